"""Streamlit side of "register a dataset by path" (the Upload page's second mode).

A path under an allowed root → the Parquet schema (DuckDB ``DESCRIBE``) → a column mapping →
DuckDB aggregates behind a spinner → only the aggregate is stored (:func:`board.services.datasets.register`).
Every problem is listed at once; widget values stay (nothing is reset on failure).
"""

from __future__ import annotations

import streamlit as st

from board.app import state, ui
from board.engines import lake
from board.services import datasets
from board.words import fmt
from board.words.i18n import t, tn
from evalcore import InputError

PENDING_SELECT = "register_select"  # read by state.sidebar() before it draws the dataset choice
FLASH = "register_flash"


@st.cache_data(max_entries=16, show_spinner="Reading the Parquet schema …")
def _schema(path: str, files: tuple, mtimes: tuple) -> tuple[dict, object]:
    """(columns → DuckDB type, a 200-row sample) of a checked source; keyed by its files' mtimes.
    Both come through the lake's locked-down DuckDB (only the checked files are readable)."""
    src = lake.resolve_source(path)
    return lake.parquet_columns(src), lake.preview(src, 200)


def render() -> None:
    """The registration form (the page has checked the role)."""
    import os

    from evalcore.data import guess_mapping

    L = state.current_locale()
    roots = lake.path_roots()
    st.caption(
        t(
            "For data too large to upload: a Parquet file, a glob such as `logs/2026-11-*.parquet`, or a folder "
            "**on the server**. DuckDB aggregates it out of memory; only the aggregate (counts by segment, score "
            "and label) is stored, never the rows. Relative paths start at the first root.",
            L,
        )
    )
    st.markdown(
        t(
            "Allowed roots: {roots} (set `{env}` to change them).",
            L,
            roots=", ".join(f"`{r}`" for r in roots),
            env=lake.ROOTS_ENV,
        )
    )
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    path = st.text_input(
        t("Path (Parquet file, glob or folder)", L),
        key="register_path",
        placeholder=f"{roots[0]}{os.sep}logs{os.sep}2026-11-*.parquet",
    )
    if not path.strip():
        st.info(t("Enter a path to read its columns.", L))
        return
    try:
        src = lake.resolve_source(path, roots)
        mtimes = tuple(os.path.getmtime(f) for f in src.files)
        columns, sample = _schema(path, src.files, mtimes)
    except InputError as err:
        ui.show_problems(err, title=t("The path cannot be used", L))
        return
    st.write(
        tn(
            "**{n} Parquet file** matched under {path}",
            "**{n} Parquet files** matched under {path}",
            len(src.files),
            L,
            n=fmt.count(len(src.files)),
            path=ui.md_text(src.path),
        )
        + " · "
        + t("{n} columns:", L, n=fmt.count(len(columns)))
        + " "
        + ", ".join(f"{ui.md_text(c)} ({ui.md_text(kind)})" for c, kind in columns.items())
    )
    with st.expander(t("First rows (a preview; nothing is stored)", L)):
        st.container(key="register_preview").dataframe(sample.head(8), hide_index=True, width="stretch")  # the file as it is
    guess = guess_mapping(sample)
    roles = ui.column_roles(list(columns), guess, prefix="register", label_values=lambda c: lake.label_values(src, c))
    if roles is None:
        return
    names = roles["names"]
    name = st.text_input(
        t("Dataset name", L), value=os.path.basename(src.path.rstrip(os.sep)).split(".")[0] or "lake", key="register_dsname"
    )
    query = {
        "label": roles["label"],
        "scores": {names[c]: c for c in roles["score_cols"]},
        "score_kinds": {names[c]: roles["kinds"][c] for c in roles["score_cols"]},
        "positive": roles["positive"],
        "segments": list(roles["segments"]),
        "group": roles["group"],
        "weight": roles["weight"],
        "time": roles["time"],
        "features": list(roles["features"]),
    }
    if len(set(names.values())) != len(names):
        st.warning(t("Give the two models different names.", L))
        return
    if st.button(t("Aggregate with DuckDB and save", L), type="primary", key="register_save", icon=":material/database:"):
        try:
            with st.spinner(t("Aggregating {n} file(s) with DuckDB …", L, n=fmt.count(len(src.files)))):
                rec = datasets.register(state.store(), state.current_user(), name=name, path=path, query=query, roots=roots)
        except InputError as err:
            ui.show_problems(err, title=t("Nothing was saved", L))
            return
        st.session_state[PENDING_SELECT] = rec.id
        st.session_state[FLASH] = t(
            "Saved as dataset #{id}: {what}. It is now selected in the sidebar for every page.",
            L,
            id=rec.id,
            what=lake.describe(rec),
        )
        st.rerun()
