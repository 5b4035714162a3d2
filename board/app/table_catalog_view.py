"""The Value table page's "New / clone / rename / archive" popover (issue 16 item 1): several
value tables, one per decision. Creating starts a draft (from the demo's amounts, from zeros in a
unit, or from another table's current amounts); renaming moves the bindings and meeting links with
the table, in one transaction; archiving hides a table from the selectors and keeps its versions
and the boards priced with it. Editors only, audited (``board.access.governance``)."""

from __future__ import annotations

import streamlit as st

from board import services
from board.access import governance as gov
from board.app import state
from board.app.text import md_text
from board.store import StoreError
from board.words import fmt
from board.words.i18n import is_chinese, t
from evalcore import InputError


def _L() -> str:
    """This tab's language."""
    return state.current_locale()


FLASH = "vt_catalog_flash"


def _default_unit() -> str:
    """The unit of a new table left blank: 元 (CNY) in Chinese (issue 15 item 4), none otherwise
    (as before). An existing table keeps the unit its author set."""
    return fmt.default_unit(_L()) if is_chinese(_L()) else ""


def _create(user, current: str) -> None:
    ss = st.session_state
    new, start = (ss.get("vt_new_name") or "").strip(), ss.get("vt_new_from")
    try:
        if start == "clone":
            gov.clone_table(state.store(), user, current, new)
        else:
            unit = (ss.get("vt_new_unit") or "").strip() or _default_unit()
            amounts = services.evaluation.template_amounts(start, unit=unit)
            gov.create_table(state.store(), user, new, amounts)
    except (gov.Forbidden, StoreError, InputError) as err:
        ss[FLASH] = f"ERROR: {md_text(err)}"
        return
    ss[state.TABLE_KEY] = new  # open it here; the dataset's binding changes only on the Datasets page
    ss[FLASH] = t("Created “{new}” as a draft; bind a dataset to it on the Datasets page or at upload.", _L(), new=md_text(new))


def _rename(user, current: str) -> None:
    ss = st.session_state
    new = (ss.get("vt_rename_to") or "").strip()
    try:
        info = gov.rename_table(state.store(), user, current, new, default=current == services.DEFAULT_TABLE_NAME)
    except (gov.Forbidden, StoreError, InputError) as err:
        ss[FLASH] = f"ERROR: {md_text(err)}"
        return
    for key in [k for k in ss if isinstance(k, str) and k.endswith(f"::{current}")]:
        del ss[key]  # this tab's copy of the table under its old name: loaded again under the new one
    ss[state.TABLE_KEY] = info.name
    ss.pop("vt_rename_to", None)
    ss[FLASH] = t(
        "Renamed “{current}” to “{name}”: the datasets priced with it and its meeting links follow; "
        "its versions and sign-offs are kept.",
        _L(),
        current=md_text(current),
        name=md_text(info.name),
    )


def _archive(user, name: str, archived: bool) -> None:
    try:
        gov.archive_table(state.store(), user, name, archived=archived)
    except (gov.Forbidden, StoreError) as err:
        st.session_state[FLASH] = f"ERROR: {md_text(err)}"
        return
    if archived:
        st.session_state.pop(state.TABLE_KEY, None)  # the sidebar falls back to the dataset's table
    st.session_state[FLASH] = (
        t("Archived “{name}”.", _L(), name=md_text(name)) if archived else t("Restored “{name}”.", _L(), name=md_text(name))
    )


def render(user, current: str) -> None:
    """The popover, at the top of the Value table page, for the table ``current`` shown there."""
    s = state.store()
    may = gov.allowed(user, "edit_draft")
    with st.popover(t("New / clone / rename / archive", _L()), icon=":material/library_add:", disabled=not may):
        st.text_input(
            t("Name of the new table (the decision it prices)", _L()), key="vt_new_name", placeholder=t("car-loan approval", _L())
        )
        start = st.radio(
            t("Start from", _L()),
            ["demo amounts", "all zeros", "clone"],
            key="vt_new_from",
            format_func={
                "demo amounts": t("the demo's amounts (loan anti-fraud, EUR)", _L()),
                "all zeros": t("all zeros, in a unit", _L()),
                "clone": t("a copy of “{table}” (its current amounts)", _L(), table=current),
            }.get,
        )
        if start == "all zeros":
            st.text_input(
                t("Currency / unit", _L()),
                key="vt_new_unit",
                placeholder=fmt.default_unit(_L()),
                help=t("Blank: {unit}.", _L(), unit=_default_unit() or t("no unit", _L())),
            )
        st.button(
            t("Create the table (a draft)", _L()), key="vt_new_create", on_click=_create, args=(user, current), type="primary"
        )
        st.divider()
        st.text_input(
            t("New name for “{current}”", _L(), current=current), key="vt_rename_to", placeholder=t("car-loan approval", _L())
        )
        st.button(
            t("Rename “{current}”", _L(), current=current),
            key="vt_rename",
            on_click=_rename,
            args=(user, current),
            help=t("The datasets priced with it, its meeting links, versions and sign-offs follow the new name.", _L()),
        )
        st.divider()
        bound = state.bound_table()
        st.button(
            t("Archive “{current}”", _L(), current=current),
            key="vt_archive",
            on_click=_archive,
            args=(user, current, True),
            help=t("Hidden from the selectors; its versions, sign-offs and the boards priced with it are kept.", _L())
            + (t(" The dataset in use stays priced with it until you bind another.", _L()) if bound == current else ""),
        )
        archived = [t.name for t in s.list_value_table_infos() if t.archived]
        for name in archived:
            st.button(
                t("Restore “{name}”", _L(), name=name), key=f"vt_restore_{name}", on_click=_archive, args=(user, name, False)
            )
    flash = st.session_state.pop(FLASH, None)
    if flash:
        (st.error if flash.startswith("ERROR") else st.success)(flash)
