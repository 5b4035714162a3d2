"""Value table: price the four outcomes of the decision (money gained per event)."""

import json
from datetime import date

import streamlit as st

from board.access import governance as gov
from board.app import state, table_catalog_view, ui, whatif_view
from board.app.valuetable_form import frame_from_table, reapply_edits, table_from_frame
from board.services import signoff
from board.store import ConflictError, StoreError
from board.words import fmt
from board.words import impact as impact_words
from board.words.glossary import term, terms
from board.words.i18n import t
from evalcore import InputError, ValueTable

L = state.current_locale()

user = state.current_user()
name = st.session_state.get(state.TABLE_KEY)
table, row_version = state.committed_table()
st.title(t("Value table · {x}", L, x=ui.md_text(table.name or name)))
table_catalog_view.render(user, name)  # new / clone / archive (issue 16 item 1)
current = gov.current_version(state.store(), name)


# --------------------------------------------------------------------------- the signer's review (issue 16 item 3)
def _sign(version_id: int, seen_hash: str, label: str, thresholds: dict | None = None) -> None:
    """on_click: signs the content drawn in the run that showed the button (``seen_hash``), not
    whatever the store holds at the click's rerun; the impact report uses the thresholds the
    preview used (``thresholds``: dataset id -> {model: threshold})."""
    try:
        signoff.sign_version(state.store(), user, version_id, expected_hash=seen_hash, thresholds=thresholds)
        st.session_state["vt_gov_flash"] = ("success", t("Signed {label}.", L, label=ui.md_text(label)))
        st.session_state.pop(f"committed_table::{name}", None)
    except (gov.Forbidden, StoreError, InputError) as err:
        st.session_state["vt_gov_flash"] = ("error", ui.error_text(err, L))


@st.cache_data(show_spinner=t("Computing the impact on each dataset…", L), max_entries=8)
def _impact_preview(_store, table_name: str, before: str, after: str, thresholds: str, datasets: str) -> list[dict]:
    """The impact of the proposed amounts (``after``, JSON) against the version in force
    (``before``, JSON or "null") on every dataset bound to the table (issue 16 item 4); keyed
    by the amounts, thresholds and the store's datasets and bindings (``datasets``)."""
    key = json.loads(thresholds)
    return signoff.dataset_impacts(
        _store, table_name, json.loads(before), json.loads(after), thresholds={int(k): v for k, v in key.items()}
    )


def _show_impacts(entries: list[dict], *, key: str) -> None:
    """Per dataset: the summary line (bold only when the verdict changes), then per model."""
    if not entries:
        st.caption(t("No dataset is priced with this table.", L))
    for e in entries:
        head = ui.md_text(e.get("dataset_name") or f"dataset {e['dataset_id']}")
        if "error" in e:
            st.warning(t("{head}: could not be evaluated: {x}", L, head=head, x=ui.md_text(e["error"])))
            continue
        st.markdown(f"{head}: " + impact_words.summary_markdown(e, ui.md_text, L))
        before = ui.money_of(e.get("unit_before") or "", signed=True)
        after = ui.money_of(e.get("unit_after") or "", signed=True)
        ui.show_table(
            st,
            [{"model": m, **r} for m, r in e["models"].items()],
            {
                "model": ui.Col(t("Model", L)),
                "threshold": ui.Col(t("Deployed threshold", L), fmt.score, term("best_threshold", L)),
                "ev_before": ui.Col(t("EV per decision, in force", L), before, term("ev", L)),
                "ev_after": ui.Col(t("EV per decision, proposed", L), after, term("ev", L)),
                "t_opt_before": ui.Col(t("Best threshold, in force", L), fmt.score, term("best_threshold", L)),
                "t_opt_after": ui.Col(t("Best threshold, proposed", L), fmt.score, term("best_threshold", L)),
            },
            key=f"{key}_{e['dataset_id']}",
        )
    if entries:
        st.caption(
            t(
                "Each dataset's board at its deployed thresholds; verdicts from {impact_resamples} "
                "bootstrap replicates (the board uses 1,000, so a verdict near the line may differ).",
                L,
                impact_resamples=signoff.IMPACT_RESAMPLES,
            )
        )


def _review(v) -> None:
    """A pending version beside the version in force: every change with the reason, the EV
    preview on the current dataset, then (for a signer who may) Sign / Reject."""
    s = state.store()
    in_force = s.latest_approved_version(name)
    unit = v.amounts.get("unit", "")
    money = ui.money_of(unit, signed=True)
    st.markdown(
        t(
            "#### Review {label} (pending) against {x}",
            L,
            label=ui.md_text(v.label),
            x=t("{label} (in force)", L, label=ui.md_text(in_force.label)) if in_force else t("no approved version", L),
        )
    )
    st.caption(
        t(
            "Proposed by {author}, effective {effective_date}. **Reason:** {x}",
            L,
            author=ui.md_text(v.author),
            effective_date=v.effective_date,
            x=ui.md_text(v.reason or fmt.DASH),
        )
    )
    diff = signoff.amounts_diff(v.amounts, None if in_force is None else in_force.amounts)
    changes = [r for r in diff if r["changed"]]
    for r in changes:
        if r["item"] in ("Unit", "Production prevalence"):
            st.markdown(f"- **{r['item']}**: {ui.md_text(r['in_force'])} → **{ui.md_text(r['proposed'])}**")
        else:
            was = fmt.DASH if r["in_force"] is None else money(r["in_force"])
            by = "" if r["change"] is None else f" ({money(r['change'])})"
            st.markdown(
                t(
                    "- **{x}**: {was} → **{x2}**{by}, confidence {x3}. Why: {x4}",
                    L,
                    x=r["item"],
                    was=was,
                    x2=money(r["proposed"]),
                    by=by,
                    x3=fmt.number(r["confidence_proposed"]),
                    x4=ui.md_text(v.reason or fmt.DASH),
                )
            )
    if not changes:
        st.caption(t("Same amounts as the version in force.", L))
    ui.show_table(
        st,
        [{**r, "changed": "changed" if r["changed"] else ""} for r in diff],
        {
            "item": ui.Col(t("Outcome", L)),
            "in_force": ui.Col(t("In force", L), lambda x: money(x) if isinstance(x, float) else ui.cell(x)),
            "proposed": ui.Col(t("Proposed", L), lambda x: money(x) if isinstance(x, float) else ui.cell(x)),
            "change": ui.Col(t("Change", L), money),
            "confidence_proposed": ui.Col(t("Confidence (proposed)", L), fmt.number),
            "changed": ui.Col(""),
            "description": ui.Col(t("Description", L)),
            "source": ui.Col(t("Data source", L)),
        },
        key=f"vt_review_{v.id}",
    )
    data = state.current_data()
    thresholds = {}
    if data is not None and state.current_dataset_id() is not None:
        thresholds = {state.current_dataset_id(): {m: state.deployed_threshold(data, m) for m in data.models}}
    st.markdown(t("##### Impact preview on every dataset priced with this table", L))
    entries = _impact_preview(
        s,
        name,
        json.dumps(None if in_force is None else in_force.amounts, sort_keys=True),
        json.dumps(v.amounts, sort_keys=True),
        json.dumps(thresholds, sort_keys=True),
        f"{s.url}|{sorted(s.dataset_value_tables().items(), key=lambda kv: kv[0])}",
    )
    _show_impacts(entries, key=f"vt_preview_{v.id}")
    signed = {x.role for x in s.list_signoffs(v.id)}
    missing = [r for r in gov.SIGNING_ROLES if r not in signed]
    st.markdown(t("Waiting for {x}.", L, x=t(", ", L).join(ui.role_label(r, L) for r in missing)))
    if not (gov.allowed(user, "sign_version") and user.role in missing):
        return
    if v.author == user.username and not gov.self_sign_allowed():
        st.info(
            t(
                "You proposed {label}: another {x} account must sign it (four-eyes rule).",
                L,
                label=ui.md_text(v.label),
                x=ui.role_label(user.role, L),
            )
        )
        return
    c1, c2, c3 = st.columns([1, 2, 1])
    c1.button(
        t("Sign {label} as {x}", L, label=ui.md_text(v.label), x=ui.role_label(user.role, L)),
        key=f"vt_sign_{v.id}",
        type="primary",
        on_click=_sign,
        args=(v.id, gov.content_hash(v.amounts), v.label, thresholds),
        help=t("Signs exactly the amounts shown above; if they change before you click, nothing is signed.", L),
    )
    comment = c2.text_input(
        t("Rejection comment", L),
        key=f"vt_reject_comment_{v.id}",
        label_visibility="collapsed",
        placeholder=t("why it is rejected", L),
    )
    if c3.button(t("Reject {label}", L, label=ui.md_text(v.label)), key=f"vt_reject_{v.id}"):
        _act(
            lambda: gov.reject_version(state.store(), user, v.id, comment=comment),
            t("Rejected {label}.", L, label=ui.md_text(v.label)),
        )
        st.rerun()


def _act(fn, ok: str):
    try:
        fn()
        st.session_state["vt_gov_flash"] = ("success", ok)
        st.session_state.pop(f"committed_table::{name}", None)
    except (gov.Forbidden, StoreError, InputError) as err:
        st.session_state["vt_gov_flash"] = ("error", ui.error_text(err, L))


def _flash() -> None:
    gflash = st.session_state.pop("vt_gov_flash", None)  # (kind, text) of the last governance step
    if gflash:
        kind, text = gflash
        (st.error if kind == "error" else st.success)(text)


_pending = [v for v in state.store().list_value_table_versions(name) if v.status == "pending"]
if _pending and state.store().get_value_table_draft(name) is None:
    # nothing to edit: the pending content is reviewed and signed, never edited or saved here
    st.info(t("A version is waiting for signatures; review it below. Its amounts cannot be edited while it is pending.", L))
    _flash()
    for v in _pending:
        _review(v)
    if gov.allowed(user, "edit_draft") and st.button(t("Start a new draft from the version in force", L), key="vt_new_draft"):
        base = current.amounts if current is not None else table.to_dict()
        _act(lambda: gov.save_draft(state.store(), user, name, dict(base), expected_row_version=0), t("New draft started.", L))
        st.rerun()
    st.stop()
if current is not None and current.status == "approved":
    st.caption(
        t(
            "In force: **{label}** (approved, effective {effective_date}). Edits below go to the open "
            "draft, which becomes a new version once proposed and signed by business, risk and model "
            "owner.",
            L,
            label=ui.md_text(current.label),
            effective_date=current.effective_date,
        )
    )
st.markdown(
    t(
        "**Each amount is the money GAINED per event; enter a cost as a negative number.** Example "
        "(loan anti-fraud): TP **+18,500** (fraud loss avoided), FP **−3,200** (complaint cost, "
        "lost customer value), FN **−22,000** (fraud loss), TN **+120** (review cost saved). The "
        "effective amount is amount × confidence; confidence in (0, 1] says how well the amount can "
        "be measured.",
        L,
    )
)


# --------------------------------------------------------------------------- a save conflict (issue 16 item 6)
def _reapply(theirs, mine: dict, base) -> None:
    """on_click: the other person's saved draft with this tab's own changes (against what it
    started from) applied on top, at the draft's row version: the next save is not a conflict."""
    merged = reapply_edits(base, mine, dict(theirs.amounts) if theirs is not None else mine)
    state.set_committed_table(ValueTable.from_dict(merged), theirs.row_version if theirs is not None else 0)
    st.session_state.pop(f"vt_conflict::{name}", None)
    st.session_state["vt_epoch"] = st.session_state.get("vt_epoch", 0) + 1  # the editor starts from the merged table
    st.session_state["vt_flash"] = ("success", t("Reloaded the saved draft and re-applied your edits: check them, then save.", L))


def _discard(theirs) -> None:
    """on_click: drop this tab's edits and take the saved draft as it is."""
    if theirs is not None:
        state.set_committed_table(ValueTable.from_dict(theirs.amounts), theirs.row_version)
    else:
        st.session_state.pop(f"committed_table::{name}", None)
    st.session_state.pop(f"vt_conflict::{name}", None)
    st.session_state["vt_epoch"] = st.session_state.get("vt_epoch", 0) + 1


# --------------------------------------------------------------------------- the editor and its live what-if
@st.fragment
def _editor_and_what_if():
    """The amounts editor, Save draft, a save conflict and the live what-if: a fragment, so an edit
    reruns only this part of the page (issue 18: edit → curve in under a second); a save reruns the
    whole page. Returns the table as edited (the committed table when an entry has a problem) and
    the problems."""
    # read here, not taken from the page's run: a fragment rerun reuses the arguments of the last full run
    table, row_version = state.committed_table()
    current = gov.current_version(state.store(), name)
    epoch = st.session_state.setdefault("vt_epoch", 0)
    c1, c2 = st.columns([1, 1])
    unit = c1.text_input(t("Currency / unit", L), value=table.unit, key=f"vt_unit_{epoch}")
    use_prev = c2.checkbox(
        t("Production prevalence differs from the validation set", L),
        value=table.prevalence is not None,
        key=f"vt_use_prev_{epoch}",
    )
    prevalence = None
    if use_prev:
        prevalence = c2.number_input(
            t("Production prevalence π (share of positives in production)", L),
            min_value=0.0,
            max_value=1.0,
            value=float(table.prevalence or 0.02),
            step=0.001,
            format="%.4f",
            key=f"vt_prev_{epoch}",
        )

    edited = st.data_editor(
        frame_from_table(table, L),
        key=f"vt_editor_{epoch}",
        num_rows="fixed",
        hide_index=True,
        width="stretch",
        disabled=["outcome", "meaning"],
        column_config={
            "outcome": st.column_config.TextColumn(t("Outcome", L), help=terms("tp", "fp", "fn", "tn", locale=L)),
            "meaning": st.column_config.TextColumn(t("Meaning", L)),
            "amount": st.column_config.NumberColumn(
                t("Amount per event{x}: gain +, cost −", L, x=f" ({table.unit})" if table.unit else ""),
                format="localized",  # thousands separators (sprintf-js has no "," flag: "%+,.2f" showed -30000.00)
                help=t("Money gained each time this outcome happens; enter a cost as a negative number.", L),
            ),
            # no min/max/required here: the browser would silently revert an out-of-range entry; the
            # server checks every entry (table_from_frame) and says what is wrong, keeping it as entered
            "confidence": st.column_config.NumberColumn(
                t("Confidence (0–1]", L),
                step=0.01,
                format="%.2f",
                help=t("How well the amount is known: 1 = exactly; the effective amount is amount × confidence.", L),
            ),
            "description": st.column_config.TextColumn(t("Description", L), width="large"),
            "source": st.column_config.TextColumn(t("Data source", L), width="medium"),
        },
    )

    new_table, problems = table_from_frame(edited, unit=unit, prevalence=prevalence, name=table.name or name)
    if problems:
        st.error(
            t("**Not applied — your entries stay as typed; fix these first:**\n\n", L)
            + "\n".join(f"- {ui.md_text(p)}" for p in problems)
        )
    else:
        if new_table.to_dict() != table.to_dict():
            state.set_committed_table(new_table, row_version)  # every page re-prices from this, without re-reading rows
            table = new_table
        for w in table.sign_warnings():
            st.warning(w)
        eff = table.effective()
        st.caption(
            t("Effective amounts (amount × confidence): ", L)
            + ", ".join(f"{c.upper()} {fmt.money(v, table.unit, signed=True)}" for c, v in eff.items())
            + "."
        )

        saved = state.store().get_value_table_draft(name)
        # compared with the open draft, or (no draft) with the version in force: nothing to save when equal
        reference = saved if saved is not None else current
        dirty = reference is None or ValueTable.from_dict(reference.amounts).to_dict() != table.to_dict()
        reason = st.text_input(t("Reason for this change (kept with the draft)", L), key=f"vt_reason_{epoch}")
        if (saved.row_version if saved is not None else 0) == row_version and reference is not None:
            st.session_state[f"vt_base::{name}"] = dict(reference.amounts)  # what this tab's edits start from

        def _save():
            try:
                rec = gov.save_draft(
                    state.store(),
                    user,
                    name,
                    table.to_dict(),
                    reason=reason,
                    expected_row_version=row_version if saved is not None else 0,
                )
                state.set_committed_table(table, rec.row_version)
                # said beside the button while the draft stays as saved (a one-off message was gone
                # after the grid's own rerun that follows a save)
                st.session_state[f"vt_saved::{name}"] = rec.row_version
            except ConflictError as err:
                st.session_state["vt_flash"] = ("error", t("Not saved: {reason}", L, reason=ui.error_text(err, L)))
                st.session_state[f"vt_conflict::{name}"] = {
                    "mine": table.to_dict(),
                    "base": st.session_state.get(f"vt_base::{name}"),
                }
            except gov.Forbidden as err:
                st.session_state["vt_flash"] = ("error", t("Not saved: {reason}", L, reason=ui.error_text(err, L)))

        # not an on_click callback: it would save what the previous run showed, without an edit or
        # a reason typed just before the click (both arrive with the click); this run has them
        if st.button(t("Save draft", L), type="primary", disabled=not dirty, key="vt_save"):
            _save()
            st.rerun(scope="app")  # the versions below now have this draft to propose
        st.caption(
            t("Unsaved changes: they already re-price every page in this session; save to keep them.", L)
            if dirty
            else t("All changes saved.", L)
        )
        if not dirty and saved is not None and st.session_state.get(f"vt_saved::{name}") == saved.row_version:
            st.success(t("Draft saved (revision {row_version}).", L, row_version=saved.row_version))
    flash = st.session_state.pop("vt_flash", None)  # (kind, text) of the last save or reload
    if flash:
        kind, text = flash
        (st.error if kind == "error" else st.success)(text)

    _conflict = st.session_state.get(f"vt_conflict::{name}")
    if _conflict is not None:
        theirs = state.store().get_value_table_draft(name)
        with st.container(key="vt_conflict", border=True):
            if theirs is None:
                st.markdown(t("**The draft you edited is no longer open** (proposed or discarded by someone else).", L))
            else:
                st.markdown(
                    t(
                        "**{author} saved the draft (revision {row_version}) while you were editing.** Their reason: {x}",
                        L,
                        author=ui.md_text(theirs.author),
                        row_version=theirs.row_version,
                        x=ui.md_text(theirs.reason or fmt.DASH),
                    )
                )
                money = ui.money_of(_conflict["mine"].get("unit", ""), signed=True)
                base = _conflict.get("base") or {}
                ui.show_table(
                    st,
                    [
                        {
                            "outcome": c.upper(),
                            "theirs": theirs.amounts.get(c),
                            "mine": _conflict["mine"][c],
                            "started": base.get(c),
                        }
                        for c in ("tp", "fp", "fn", "tn")
                    ],
                    {
                        "outcome": ui.Col(t("Outcome", L)),
                        "started": ui.Col(t("When you started", L), lambda x: fmt.DASH if x is None else money(x)),
                        "theirs": ui.Col(t("Their saved amount", L), lambda x: fmt.DASH if x is None else money(x)),
                        "mine": ui.Col(t("Your edit", L), money),
                    },
                    key="vt_conflict_table",
                )
            a, b = st.columns(2)
            a.button(
                t("Reload and re-apply my edits", L),
                key="vt_reapply",
                type="primary",
                on_click=_reapply,
                args=(theirs, _conflict["mine"], _conflict.get("base")),
                help=t("Their saved draft, with the amounts you changed put back on top; nothing is saved until you save.", L),
            )
            b.button(t("Discard my edits and load theirs", L), key="vt_discard", on_click=_discard, args=(theirs,))

    # --------------------------------------------------------------------------- live what-if (issue 16 item 2)
    if not problems:
        _in_force = state.store().latest_approved_version(name) or state.store().get_value_table_draft(name)
        whatif_view.render(
            state.current_data(),
            table,
            None if _in_force is None else ValueTable.from_dict(_in_force.amounts),
            t("no saved version", L)
            if _in_force is None
            else (
                t("{label} (in force)", L, label=_in_force.label) if _in_force.status == "approved" else t("the saved draft", L)
            ),
        )
    return table, problems


table, problems = _editor_and_what_if()


# --------------------------------------------------------------------------- versions and sign-off
store = state.store()


st.divider()
st.subheader(t("How boards show this table", L), help=term("ev", L))
DISPLAY_LABELS = {
    "value": t("Expected value per decision (gains positive)", L),
    "loss": t("Expected loss per decision (positive = money lost)", L),
}
shown = store.get_value_table_display(name) or "value"
if gov.allowed(user, "edit_draft") and name in store.list_value_tables():
    choice = st.radio(
        t("Boards priced with this table show", L),
        list(DISPLAY_LABELS),
        index=list(DISPLAY_LABELS).index(shown),
        format_func=DISPLAY_LABELS.get,
        key="vt_display",
        horizontal=True,
        help=t("The same numbers either way; each reader can still choose for themselves on the Board.", L),
    )
    if choice != shown:
        try:
            gov.set_table_display(store, user, name, choice)
            st.toast(
                t(
                    "Boards of “{name}” now show {x} (unless a reader chose otherwise).",
                    L,
                    name=name,
                    x=DISPLAY_LABELS[choice].lower(),
                )
            )
        except (gov.Forbidden, StoreError, InputError) as err:
            st.error(ui.error_text(err, L))
else:
    st.caption(
        t("Boards priced with this table show {x}; each reader can choose on the Board.", L, x=DISPLAY_LABELS[shown].lower())
    )

st.divider()
st.subheader(t("Versions and sign-off", L))
draft = store.get_value_table_draft(name)
if draft is not None and gov.allowed(user, "propose_version"):
    with st.form("vt_propose"):
        st.markdown(t("**Propose the saved draft for sign-off** (business, risk and model owner each sign it).", L))
        c1, c2 = st.columns(2)
        label = c1.text_input(t("Version label", L), placeholder="v2026.Q4", key="vt_prop_label")
        eff = c2.date_input(t("Effective date", L), value=date.today(), key="vt_prop_date")
        why = st.text_input(
            t("Reason for the change", L),
            value=draft.reason,
            key=f"vt_prop_reason_{draft.id}_{draft.row_version}",  # the saved draft's reason, carried over
            help=t("Blank keeps the reason saved with the draft.", L),
        )
        if st.form_submit_button(t("Propose version", L), type="primary"):
            _act(
                lambda: gov.propose_version(
                    store, user, name, label=label, effective_date=eff, reason=why, expected_row_version=draft.row_version
                ),
                t("Version {label} proposed; waiting for business, risk and model owner.", L, label=ui.md_text(label)),
            )
            st.rerun()
elif draft is None and gov.allowed(user, "edit_draft"):
    if st.button(t("Start a new draft from the version in force", L), key="vt_new_draft"):
        base = current.amounts if current is not None else table.to_dict()
        _act(lambda: gov.save_draft(store, user, name, dict(base), expected_row_version=0), t("New draft started.", L))
        st.rerun()

versions = store.list_value_table_versions(name)
rows = []
for v in versions:
    signs = store.list_signoffs(v.id)
    rows.append(
        {
            t("Version", L): ui.version_status(v.label, L) if v.status == "draft" else v.label,  # a draft's label is "draft"
            t("Status", L): ui.version_status(v.status, L),
            t("Effective from", L): str(v.effective_date or fmt.DASH),
            t("Author", L): v.author,
            t("Reason", L): v.reason,
            t("Signed by", L): t(", ", L).join(
                t("{role}: {name}", L, role=ui.role_label(s.role, L), name=s.username) for s in signs
            ),
            t("Comment", L): v.decision_comment,
        }
    )
if rows:
    st.dataframe(rows, hide_index=True, width="stretch")

for v in (v for v in versions if v.status == "pending"):
    _review(v)
for v in (v for v in versions if v.status == "rejected"):
    if gov.allowed(user, "reopen_version") and draft is None:
        if st.button(
            t("Reopen {label} as the draft (to fix and propose again)", L, label=ui.md_text(v.label)), key=f"vt_reopen_{v.id}"
        ):
            _act(
                lambda v=v: gov.reopen_version(store, user, v.id),
                t("{label} reopened as the draft.", L, label=ui.md_text(v.label)),
            )
            st.rerun()

_flash()

reports = store.list_impact_reports(name)
if reports:
    rep = reports[0].report
    st.subheader(
        t(
            "Impact report: {x} → {x2}",
            L,
            x=ui.md_text(rep.get("from_version") or "unversioned"),
            x2=ui.md_text(rep["to_version"]),
        )
    )
    if "datasets" in rep:  # issue 16 item 4: every bound dataset, computed at approval
        _show_impacts(rep["datasets"], key=f"vt_impact_ds_{reports[0].id}")
    if rep["evaluations"]:
        st.markdown(t("###### Saved boards re-evaluated", L))
    elif "datasets" not in rep:
        st.caption(t("No stored evaluation used the previous version; nothing to re-evaluate.", L))
    # a saved board's table keeps its unit (older reports did not store it: the table's own)
    unit_before = rep.get("unit_before") if rep.get("unit_before") is not None else table.unit
    unit_after = rep.get("unit_after") if rep.get("unit_after") is not None else table.unit
    for e in rep["evaluations"]:
        if "error" in e:
            st.warning(t("Evaluation #{x} could not be re-evaluated: {x2}", L, x=e["evaluation_id"], x2=ui.md_text(e["error"])))
            continue
        st.markdown(
            t(
                "Evaluation #{e} ({x})",
                L,
                e=e["evaluation_id"],
                x=ui.md_text(e.get("dataset_name") or "dataset " + str(e["dataset_id"])),
            )
            + (t(" — ranking changed", L) if e["rank_changed"] else t(" — ranking unchanged", L))
            + (t(" — the recommendation's wording changed", L) if e["action_changed"] else "")
        )
        before = ui.money_of(unit_before, signed=True)
        after = ui.money_of(unit_after, signed=True)
        ui.show_table(
            st,
            [{"model": m, **r} for m, r in e["models"].items()],
            {
                "model": ui.Col(t("Model", L)),
                "ev_before": ui.Col(t("EV per decision before", L), before, term("ev", L)),
                "ev_after": ui.Col(t("EV per decision after", L), after, term("ev", L)),
                "ev_change": ui.Col(t("Change in EV", L), after if unit_before == unit_after else fmt.number),
                "rank_before": ui.Col(t("Rank before", L), fmt.count),
                "rank_after": ui.Col(t("Rank after", L), fmt.count),
                "t_opt_before": ui.Col(t("Best threshold before", L), fmt.score, term("best_threshold", L)),
                "t_opt_after": ui.Col(t("Best threshold after", L), fmt.score, term("best_threshold", L)),
                "t_opt_moved": ui.Col(t("Move of the best threshold", L), lambda x: fmt.number(x, signed=True)),
            },
            key=f"vt_impact_{e['evaluation_id']}",
        )
        if e["action_changed"]:
            st.caption(
                t(
                    "Action before: {x}  \nAction after: {x2}",
                    L,
                    x=ui.md_text(e["action_before"]),
                    x2=ui.md_text(e["action_after"]),
                )
            )
