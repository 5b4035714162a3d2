"""The board's "Record decision" popover and its "Last decision: …" line (issue 16 item 5).

The popover records what the meeting decided (roll out / keep / hold, the threshold, why, who was
present) through ``governance.record_decision``, which saves a snapshot of the board (with its
HTML export) in the same call; the line under the verdict banner reads the last decision of the
board's value table back and what changed since (``board.words.decision``).
"""

from __future__ import annotations

import streamlit as st

from board import export
from board.app import over_time_view, state
from board.app.text import html_text, md_text
from board.words.decision import decision_word, last_decision_line
from board.words.i18n import t
from board.words.problems import problem_line
from evalcore import InputError

__all__ = ["last_line", "record_popover", "split_names"]

KINDS = ("roll out", "keep", "hold")


def split_names(text: str) -> list[str]:
    """ "anna, ben ,, carl" -> ["anna", "ben", "carl"]."""
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def _model_of(kind: str, models: list[str]) -> str:
    """The model a decision is about: rolling out is the candidate's (the last one), keeping and
    holding the current model's (the first one)."""
    return models[-1] if kind == "roll out" else models[0]


def record_popover(where, v, result, rec, thresholds: dict, version: str, version_rec, user, lens) -> None:
    """The "Record decision" popover of the tool row; disabled for roles that cannot save boards
    and for unsaved value tables (a decision keeps a snapshot, which records a stored version)."""
    from board.access import governance

    L = state.current_locale()
    saveable = version_rec is not None and governance.allowed(user, "save_evaluation")
    pop = where.popover(
        t("Record decision", L),
        icon=":material/gavel:",
        disabled=not saveable,
        help=(
            t("Record what the meeting decided, with a snapshot of this board: the next board shows it.", L)
            if saveable
            else t(
                "Save the value table first (a decision keeps a snapshot of a stored version), "
                "or ask an analyst: your role cannot record decisions.",
                L,
            )
        ),
    )
    if not saveable:
        return
    models = list(result.models)
    with pop:
        kind = st.radio(
            t("Decision", L),
            KINDS,
            index=KINDS.index(v.kind) if v.kind in KINDS else KINDS.index("keep"),
            format_func=lambda k: md_text(decision_word(k, _model_of(k, models), L)),
            horizontal=True,
            key="board_decision_kind",
        )
        model = _model_of(kind, models)
        threshold = st.number_input(
            t("Threshold of {model}", L, model=md_text(model)),
            value=float(thresholds[model]),
            format="%.6g",
            key=f"board_decision_t_{model}",  # one per model: each starts at the board's threshold
        )
        rationale = st.text_area(t("Rationale (required)", L), key="board_decision_rationale", height=90)
        present = st.text_input(t("Present (comma separated)", L), key="board_decision_present")
        if st.button(t("Record", L), type="primary", key="board_decision_record", icon=":material/gavel:"):
            snapshot = {
                "models": models,
                "config": result.config.to_dict(),
                "result": {
                    **result.to_dict(),
                    "dataset_name": rec.name,
                    "table_version": version,
                    "verdict": {"kind": v.kind, "word": v.word},
                },
                "version": version_rec,
                # the stored HTML says what the board's meta line says (late labels, a rescaling applied)
                "export_html": export.board_html(
                    result, dataset_name=over_time_view.export_name(rec, L), table_version=version, lens=lens, locale=L
                ),
            }
            try:
                d = governance.record_decision(
                    state.store(),
                    user,
                    rec.id,
                    table_name=result.table.name,
                    table_version=version,
                    kind=kind,
                    model=model,
                    thresholds={**{m: float(t) for m, t in thresholds.items()}, model: float(threshold)},
                    rationale=rationale,
                    present=split_names(present),
                    snapshot=snapshot,
                )
            except InputError as err:
                st.error(md_text("\n".join(problem_line(p, L) for p in err.problems)))
            else:
                st.session_state.pop("board_decision_rationale", None)
                st.toast(
                    t(
                        "Decision recorded (#{id}) with a snapshot of this board (#{snapshot}).",
                        L,
                        id=d.id,
                        snapshot=d.evaluation_id,
                    )
                )
                st.rerun()


def last_line(v, result, lens) -> None:
    """ "Last decision: … on …, by … — why. Since then: …" under the verdict banner (nothing when
    no decision was recorded for this value table)."""
    store = state.store()
    d = store.last_decision(table_name=result.table.name)
    if d is None:
        return
    try:
        then = store.get_evaluation(d.evaluation_id).result
    except KeyError:  # pragma: no cover - the database keeps a decision's snapshot (foreign key)
        then = {}
    c = result.comparison
    if c is not None:
        gain, now = True, c.diff.estimate
        old = (then.get("comparison") or {}).get("diff_ev")
    else:
        gain = False
        m = result.models.get(d.model)
        now = None if m is None else m.ev
        old = (((then.get("models") or {}).get(d.model) or {}).get("at_threshold") or {}).get("ev")
    line = last_decision_line(
        d,
        verdict_kind=v.kind,
        verdict_word=v.word,
        verdict_then=(then.get("verdict") or {}).get("word"),
        then=old,
        now=now,
        gain=gain,
        model=d.model,
        unit=result.table.unit,
        lens=lens,
    )
    present = t(" Present: {names}.", lens.locale, names=", ".join(d.present)) if d.present else ""
    st.html(
        f"<div class='eb-last-decision' title='{html_text(d.rationale + present)}' "
        f"style='font-size:0.9rem;color:#333;line-height:1.3'>"
        f"{html_text(line)}</div>"
    )
