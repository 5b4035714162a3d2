"""Value table: price the four outcomes of the decision (money gained per event)."""

import json
from datetime import date

import streamlit as st

from board.access import auth
from board.access import governance as gov
from board.app import state, table_catalog_view, ui, whatif_view
from board.app.valuetable_form import frame_from_table, reapply_edits, table_from_frame
from board.services import signoff
from board.store import ConflictError, StoreError
from board.words import fmt
from board.words import impact as impact_words
from board.words.glossary import term, terms
from evalcore import InputError, ValueTable

user = state.current_user()
name = st.session_state.get(state.TABLE_KEY)
table, row_version = state.committed_table()
st.title(f"Value table · {ui.md_text(table.name or name)}")
table_catalog_view.render(user, name)  # new / clone / archive (issue 16 item 1)
current = gov.current_version(state.store(), name)


# --------------------------------------------------------------------------- the signer's review (issue 16 item 3)
def _sign(version_id: int, seen_hash: str, label: str, thresholds: dict | None = None) -> None:
    """on_click: signs the content drawn in the run that showed the button (``seen_hash``), not
    whatever the store holds at the click's rerun; the impact report uses the thresholds the
    preview used (``thresholds``: dataset id -> {model: threshold})."""
    try:
        signoff.sign_version(state.store(), user, version_id, expected_hash=seen_hash, thresholds=thresholds)
        st.session_state["vt_gov_flash"] = f"Signed {ui.md_text(label)}."
        st.session_state.pop(f"committed_table::{name}", None)
    except (gov.Forbidden, StoreError, InputError) as err:
        st.session_state["vt_gov_flash"] = f"ERROR: {ui.md_text(err)}"


@st.cache_data(show_spinner="Computing the impact on each dataset…", max_entries=8)
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
        st.caption("No dataset is priced with this table.")
    for e in entries:
        head = ui.md_text(e.get("dataset_name") or f"dataset {e['dataset_id']}")
        if "error" in e:
            st.warning(f"{head}: could not be evaluated: {ui.md_text(e['error'])}")
            continue
        st.markdown(f"{head}: " + impact_words.summary_markdown(e, ui.md_text))
        before = ui.money_of(e.get("unit_before") or "", signed=True)
        after = ui.money_of(e.get("unit_after") or "", signed=True)
        ui.show_table(
            st,
            [{"model": m, **r} for m, r in e["models"].items()],
            {
                "model": ui.Col("Model"),
                "threshold": ui.Col("Deployed threshold", fmt.score, term("best_threshold")),
                "ev_before": ui.Col("EV per decision, in force", before, term("ev")),
                "ev_after": ui.Col("EV per decision, proposed", after, term("ev")),
                "t_opt_before": ui.Col("Best threshold, in force", fmt.score, term("best_threshold")),
                "t_opt_after": ui.Col("Best threshold, proposed", fmt.score, term("best_threshold")),
            },
            key=f"{key}_{e['dataset_id']}",
        )
    if entries:
        st.caption(
            f"Each dataset's board at its deployed thresholds; verdicts from {signoff.IMPACT_RESAMPLES} bootstrap "
            "replicates (the board uses 1,000, so a verdict near the line may differ)."
        )


def _review(v) -> None:
    """A pending version beside the version in force: every change with the reason, the EV
    preview on the current dataset, then (for a signer who may) Sign / Reject."""
    s = state.store()
    in_force = s.latest_approved_version(name)
    unit = v.amounts.get("unit", "")
    money = ui.money_of(unit, signed=True)
    st.markdown(
        f"#### Review {ui.md_text(v.label)} (pending) against "
        f"{ui.md_text(in_force.label) + ' (in force)' if in_force else 'no approved version'}"
    )
    st.caption(
        f"Proposed by {ui.md_text(v.author)}, effective {v.effective_date}. **Reason:** {ui.md_text(v.reason or fmt.DASH)}"
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
                f"- **{r['item']}**: {was} → **{money(r['proposed'])}**{by}, confidence "
                f"{fmt.number(r['confidence_proposed'])}. Why: {ui.md_text(v.reason or fmt.DASH)}"
            )
    if not changes:
        st.caption("Same amounts as the version in force.")
    ui.show_table(
        st,
        [{**r, "changed": "changed" if r["changed"] else ""} for r in diff],
        {
            "item": ui.Col("Outcome"),
            "in_force": ui.Col("In force", lambda x: money(x) if isinstance(x, float) else ui.cell(x)),
            "proposed": ui.Col("Proposed", lambda x: money(x) if isinstance(x, float) else ui.cell(x)),
            "change": ui.Col("Change", money),
            "confidence_proposed": ui.Col("Confidence (proposed)", fmt.number),
            "changed": ui.Col(""),
            "description": ui.Col("Description"),
            "source": ui.Col("Data source"),
        },
        key=f"vt_review_{v.id}",
    )
    data = state.current_data()
    thresholds = {}
    if data is not None and state.current_dataset_id() is not None:
        thresholds = {state.current_dataset_id(): {m: state.deployed_threshold(data, m) for m in data.models}}
    st.markdown("##### Impact preview on every dataset priced with this table")
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
    st.markdown(f"Waiting for {', '.join(auth.ROLE_LABELS[r] for r in missing)}.")
    if not (gov.allowed(user, "sign_version") and user.role in missing):
        return
    if v.author == user.username and not gov.self_sign_allowed():
        st.info(
            f"You proposed {ui.md_text(v.label)}: another {auth.ROLE_LABELS[user.role]} account must sign it (four-eyes rule)."
        )
        return
    c1, c2, c3 = st.columns([1, 2, 1])
    c1.button(
        f"Sign {ui.md_text(v.label)} as {auth.ROLE_LABELS[user.role]}",
        key=f"vt_sign_{v.id}",
        type="primary",
        on_click=_sign,
        args=(v.id, gov.content_hash(v.amounts), v.label, thresholds),
        help="Signs exactly the amounts shown above; if they change before you click, nothing is signed.",
    )
    comment = c2.text_input(
        "Rejection comment", key=f"vt_reject_comment_{v.id}", label_visibility="collapsed", placeholder="why it is rejected"
    )
    if c3.button(f"Reject {ui.md_text(v.label)}", key=f"vt_reject_{v.id}"):
        _act(lambda: gov.reject_version(state.store(), user, v.id, comment=comment), f"Rejected {ui.md_text(v.label)}.")
        st.rerun()


def _act(fn, ok: str):
    try:
        fn()
        st.session_state["vt_gov_flash"] = ok
        st.session_state.pop(f"committed_table::{name}", None)
    except (gov.Forbidden, StoreError, InputError) as err:
        st.session_state["vt_gov_flash"] = f"ERROR: {ui.md_text(err)}"


def _flash() -> None:
    gflash = st.session_state.pop("vt_gov_flash", None)
    if gflash:
        (st.error if gflash.startswith("ERROR") else st.success)(gflash)


_pending = [v for v in state.store().list_value_table_versions(name) if v.status == "pending"]
if _pending and state.store().get_value_table_draft(name) is None:
    # nothing to edit: the pending content is reviewed and signed, never edited or saved here
    st.info("A version is waiting for signatures; review it below. Its amounts cannot be edited while it is pending.")
    _flash()
    for v in _pending:
        _review(v)
    if gov.allowed(user, "edit_draft") and st.button("Start a new draft from the version in force", key="vt_new_draft"):
        base = current.amounts if current is not None else table.to_dict()
        _act(lambda: gov.save_draft(state.store(), user, name, dict(base), expected_row_version=0), "New draft started.")
        st.rerun()
    st.stop()
if current is not None and current.status == "approved":
    st.caption(
        f"In force: **{ui.md_text(current.label)}** (approved, effective {current.effective_date}). Edits below go to the "
        "open draft, which becomes a new version once proposed and signed by business, risk and model owner."
    )
st.markdown(
    "**Each amount is the money GAINED per event; enter a cost as a negative number.** "
    "Example (loan anti-fraud): TP **+18,500** (fraud loss avoided), FP **−3,200** (complaint cost, lost customer "
    "value), FN **−22,000** (fraud loss), TN **+120** (review cost saved). The effective amount is amount × "
    "confidence; confidence in (0, 1] says how well the amount can be measured."
)

epoch = st.session_state.setdefault("vt_epoch", 0)
c1, c2 = st.columns([1, 1])
unit = c1.text_input("Currency / unit", value=table.unit, key=f"vt_unit_{epoch}")
use_prev = c2.checkbox(
    "Production prevalence differs from the validation set", value=table.prevalence is not None, key=f"vt_use_prev_{epoch}"
)
prevalence = None
if use_prev:
    prevalence = c2.number_input(
        "Production prevalence π (share of positives in production)",
        min_value=0.0,
        max_value=1.0,
        value=float(table.prevalence or 0.02),
        step=0.001,
        format="%.4f",
        key=f"vt_prev_{epoch}",
    )

edited = st.data_editor(
    frame_from_table(table),
    key=f"vt_editor_{epoch}",
    num_rows="fixed",
    hide_index=True,
    width="stretch",
    disabled=["outcome", "meaning"],
    column_config={
        "outcome": st.column_config.TextColumn("Outcome", help=terms("tp", "fp", "fn", "tn")),
        "meaning": st.column_config.TextColumn("Meaning"),
        "amount": st.column_config.NumberColumn(
            f"Amount per event{f' ({table.unit})' if table.unit else ''}: gain +, cost −",
            format="localized",  # thousands separators (sprintf-js has no "," flag: "%+,.2f" showed -30000.00)
            help="Money gained each time this outcome happens; enter a cost as a negative number.",
        ),
        # no min/max/required here: the browser would silently revert an out-of-range entry; the
        # server checks every entry (table_from_frame) and says what is wrong, keeping it as entered
        "confidence": st.column_config.NumberColumn(
            "Confidence (0–1]",
            step=0.01,
            format="%.2f",
            help="How well the amount is known: 1 = exactly; the effective amount is amount × confidence.",
        ),
        "description": st.column_config.TextColumn("Description", width="large"),
        "source": st.column_config.TextColumn("Data source", width="medium"),
    },
)

new_table, problems = table_from_frame(edited, unit=unit, prevalence=prevalence, name=table.name or name)
if problems:
    st.error(
        "**Not applied — your entries stay as typed; fix these first:**\n\n" + "\n".join(f"- {ui.md_text(p)}" for p in problems)
    )
else:
    if new_table.to_dict() != table.to_dict():
        state.set_committed_table(new_table, row_version)  # every page re-prices from this, without re-reading rows
        table = new_table
    for w in table.sign_warnings():
        st.warning(w)
    eff = table.effective()
    st.caption(
        "Effective amounts (amount × confidence): "
        + ", ".join(f"{c.upper()} {fmt.money(v, table.unit, signed=True)}" for c, v in eff.items())
        + "."
    )

    saved = state.store().get_value_table_draft(name)
    # compared with the open draft, or (no draft) with the version in force: nothing to save when equal
    reference = saved if saved is not None else current
    dirty = reference is None or ValueTable.from_dict(reference.amounts).to_dict() != table.to_dict()
    reason = st.text_input("Reason for this change (kept with the draft)", key=f"vt_reason_{epoch}")
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
            st.session_state["vt_flash"] = f"Draft saved (revision {rec.row_version})."
        except ConflictError as err:
            st.session_state["vt_flash"] = f"CONFLICT: {ui.md_text(err)}"
            st.session_state[f"vt_conflict::{name}"] = {"mine": table.to_dict(), "base": st.session_state.get(f"vt_base::{name}")}
        except gov.Forbidden as err:
            st.session_state["vt_flash"] = f"CONFLICT: {ui.md_text(err)}"

    st.button("Save draft", type="primary", disabled=not dirty, on_click=_save, key="vt_save")
    st.caption(
        "Unsaved changes: they already re-price every page in this session; save to keep them." if dirty else "All changes saved."
    )
flash = st.session_state.pop("vt_flash", None)
if flash:
    (st.error if flash.startswith("CONFLICT") else st.success)(flash)


# --------------------------------------------------------------------------- a save conflict (issue 16 item 6)
def _reapply(theirs, mine: dict, base) -> None:
    """on_click: the other person's saved draft with this tab's own changes (against what it
    started from) applied on top, at the draft's row version: the next save is not a conflict."""
    merged = reapply_edits(base, mine, dict(theirs.amounts) if theirs is not None else mine)
    state.set_committed_table(ValueTable.from_dict(merged), theirs.row_version if theirs is not None else 0)
    st.session_state.pop(f"vt_conflict::{name}", None)
    st.session_state["vt_epoch"] = st.session_state.get("vt_epoch", 0) + 1  # the editor starts from the merged table
    st.session_state["vt_flash"] = "Reloaded the saved draft and re-applied your edits: check them, then save."


def _discard(theirs) -> None:
    """on_click: drop this tab's edits and take the saved draft as it is."""
    if theirs is not None:
        state.set_committed_table(ValueTable.from_dict(theirs.amounts), theirs.row_version)
    else:
        st.session_state.pop(f"committed_table::{name}", None)
    st.session_state.pop(f"vt_conflict::{name}", None)
    st.session_state["vt_epoch"] = st.session_state.get("vt_epoch", 0) + 1


_conflict = st.session_state.get(f"vt_conflict::{name}")
if _conflict is not None:
    theirs = state.store().get_value_table_draft(name)
    with st.container(key="vt_conflict", border=True):
        if theirs is None:
            st.markdown("**The draft you edited is no longer open** (proposed or discarded by someone else).")
        else:
            st.markdown(
                f"**{ui.md_text(theirs.author)} saved the draft (revision {theirs.row_version}) while you were editing.** "
                f"Their reason: {ui.md_text(theirs.reason or fmt.DASH)}"
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
                    "outcome": ui.Col("Outcome"),
                    "started": ui.Col("When you started", lambda x: fmt.DASH if x is None else money(x)),
                    "theirs": ui.Col("Their saved amount", lambda x: fmt.DASH if x is None else money(x)),
                    "mine": ui.Col("Your edit", money),
                },
                key="vt_conflict_table",
            )
        a, b = st.columns(2)
        a.button(
            "Reload and re-apply my edits",
            key="vt_reapply",
            type="primary",
            on_click=_reapply,
            args=(theirs, _conflict["mine"], _conflict.get("base")),
            help="Their saved draft, with the amounts you changed put back on top; nothing is saved until you save.",
        )
        b.button("Discard my edits and load theirs", key="vt_discard", on_click=_discard, args=(theirs,))

# --------------------------------------------------------------------------- live what-if (issue 16 item 2)
if not problems:
    _in_force = state.store().latest_approved_version(name) or state.store().get_value_table_draft(name)
    whatif_view.render(
        state.current_data(),
        table,
        None if _in_force is None else ValueTable.from_dict(_in_force.amounts),
        "no saved version"
        if _in_force is None
        else (f"{_in_force.label} (in force)" if _in_force.status == "approved" else "the saved draft"),
    )


# --------------------------------------------------------------------------- versions and sign-off
store = state.store()


st.divider()
st.subheader("How boards show this table", help=term("ev"))
DISPLAY_LABELS = {
    "value": "Expected value per decision (gains positive)",
    "loss": "Expected loss per decision (positive = money lost)",
}
shown = store.get_value_table_display(name) or "value"
if gov.allowed(user, "edit_draft") and name in store.list_value_tables():
    choice = st.radio(
        "Boards priced with this table show",
        list(DISPLAY_LABELS),
        index=list(DISPLAY_LABELS).index(shown),
        format_func=DISPLAY_LABELS.get,
        key="vt_display",
        horizontal=True,
        help="The same numbers either way; each reader can still choose for themselves on the Board.",
    )
    if choice != shown:
        try:
            gov.set_table_display(store, user, name, choice)
            st.toast(f"Boards of “{name}” now show {DISPLAY_LABELS[choice].lower()} (unless a reader chose otherwise).")
        except (gov.Forbidden, StoreError, InputError) as err:
            st.error(ui.md_text(err))
else:
    st.caption(f"Boards priced with this table show {DISPLAY_LABELS[shown].lower()}; each reader can choose on the Board.")

st.divider()
st.subheader("Versions and sign-off")
draft = store.get_value_table_draft(name)
if draft is not None and gov.allowed(user, "propose_version"):
    with st.form("vt_propose"):
        st.markdown("**Propose the saved draft for sign-off** (business, risk and model owner each sign it).")
        c1, c2 = st.columns(2)
        label = c1.text_input("Version label", placeholder="v2026.Q4", key="vt_prop_label")
        eff = c2.date_input("Effective date", value=date.today(), key="vt_prop_date")
        why = st.text_input(
            "Reason for the change",
            value=draft.reason,
            key=f"vt_prop_reason_{draft.id}_{draft.row_version}",  # the saved draft's reason, carried over
            help="Blank keeps the reason saved with the draft.",
        )
        if st.form_submit_button("Propose version", type="primary"):
            _act(
                lambda: gov.propose_version(
                    store, user, name, label=label, effective_date=eff, reason=why, expected_row_version=draft.row_version
                ),
                f"Version {ui.md_text(label)} proposed; waiting for business, risk and model owner.",
            )
            st.rerun()
elif draft is None and gov.allowed(user, "edit_draft"):
    if st.button("Start a new draft from the version in force", key="vt_new_draft"):
        base = current.amounts if current is not None else table.to_dict()
        _act(lambda: gov.save_draft(store, user, name, dict(base), expected_row_version=0), "New draft started.")
        st.rerun()

versions = store.list_value_table_versions(name)
rows = []
for v in versions:
    signs = store.list_signoffs(v.id)
    rows.append(
        {
            "Version": v.label,
            "Status": v.status,
            "Effective from": str(v.effective_date or fmt.DASH),
            "Author": v.author,
            "Reason": v.reason,
            "Signed by": ", ".join(f"{auth.ROLE_LABELS.get(s.role, s.role)}: {s.username}" for s in signs),
            "Comment": v.decision_comment,
        }
    )
if rows:
    st.dataframe(rows, hide_index=True, width="stretch")

for v in (v for v in versions if v.status == "pending"):
    _review(v)
for v in (v for v in versions if v.status == "rejected"):
    if gov.allowed(user, "reopen_version") and draft is None:
        if st.button(f"Reopen {ui.md_text(v.label)} as the draft (to fix and propose again)", key=f"vt_reopen_{v.id}"):
            _act(lambda v=v: gov.reopen_version(store, user, v.id), f"{ui.md_text(v.label)} reopened as the draft.")
            st.rerun()

_flash()

reports = store.list_impact_reports(name)
if reports:
    rep = reports[0].report
    st.subheader(f"Impact report: {ui.md_text(rep.get('from_version') or 'unversioned')} → {ui.md_text(rep['to_version'])}")
    if "datasets" in rep:  # issue 16 item 4: every bound dataset, computed at approval
        _show_impacts(rep["datasets"], key=f"vt_impact_ds_{reports[0].id}")
    if rep["evaluations"]:
        st.markdown("###### Saved boards re-evaluated")
    elif "datasets" not in rep:
        st.caption("No stored evaluation used the previous version; nothing to re-evaluate.")
    # a saved board's table keeps its unit (older reports did not store it: the table's own)
    unit_before = rep.get("unit_before") if rep.get("unit_before") is not None else table.unit
    unit_after = rep.get("unit_after") if rep.get("unit_after") is not None else table.unit
    for e in rep["evaluations"]:
        if "error" in e:
            st.warning(f"Evaluation #{e['evaluation_id']} could not be re-evaluated: {ui.md_text(e['error'])}")
            continue
        st.markdown(
            f"Evaluation #{e['evaluation_id']} ({ui.md_text(e.get('dataset_name') or 'dataset ' + str(e['dataset_id']))})"
            + (" — ranking changed" if e["rank_changed"] else " — ranking unchanged")
            + (" — the recommendation's wording changed" if e["action_changed"] else "")
        )
        before = ui.money_of(unit_before, signed=True)
        after = ui.money_of(unit_after, signed=True)
        ui.show_table(
            st,
            [{"model": m, **r} for m, r in e["models"].items()],
            {
                "model": ui.Col("Model"),
                "ev_before": ui.Col("EV per decision before", before, term("ev")),
                "ev_after": ui.Col("EV per decision after", after, term("ev")),
                "ev_change": ui.Col("Change in EV", after if unit_before == unit_after else fmt.number),
                "rank_before": ui.Col("Rank before", fmt.count),
                "rank_after": ui.Col("Rank after", fmt.count),
                "t_opt_before": ui.Col("Best threshold before", fmt.score, term("best_threshold")),
                "t_opt_after": ui.Col("Best threshold after", fmt.score, term("best_threshold")),
                "t_opt_moved": ui.Col("Move of the best threshold", lambda x: fmt.number(x, signed=True)),
            },
            key=f"vt_impact_{e['evaluation_id']}",
        )
        if e["action_changed"]:
            st.caption(f"Action before: {ui.md_text(e['action_before'])}  \nAction after: {ui.md_text(e['action_after'])}")
