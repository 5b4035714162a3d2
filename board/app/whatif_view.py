"""Live what-if of the Value table page (issue 16 item 2).

The edited (unsaved) amounts and the version in force are both priced on the bound dataset's
counts by score (``evalcore.value.price_curve``; the counts are cached per dataset, so an edit
re-prices only: no re-sorting, no bootstrap, no board run). Shown: the two curves (the version in
force as a ghost), EV per decision at each model's deployed threshold and at its optimum, the
optimum threshold, each with its change, and which model is best at its optimum.

The verdict word comes from the whole board (bootstrap intervals, drift, evidence), so it is
shown last, after the curve and the table: the board of the edited amounts is computed with the
board's own settings (and cached by amounts, like the board), the version in force's board is
usually already cached by the Board page. The curve and the EV table appear at once; the verdict
fills in a few seconds later, under a spinner.
"""

from __future__ import annotations

import time

import streamlit as st

from board import charts
from board.app import state, ui
from board.words import fmt
from board.words.i18n import N_, t
from board.words.verdict import plain_verdict
from evalcore import ValueTable, price_curve


def _L() -> str:
    """This tab's language."""
    return state.current_locale()


EDITED, IN_FORCE = N_("edited"), N_("in force")  # said with t(…) where shown


def curves_of(counts: dict, score_kinds: dict, table: ValueTable) -> dict:
    """Model → ValueCurve of ``table`` on each model's counts by score (re-pricing only)."""
    return {m: price_curve(c, table, score_kind=score_kinds[m]) for m, c in counts.items()}


def _change(new, old):
    return None if old is None or fmt.is_undefined(new) or fmt.is_undefined(old) else new - old


def compare(edited: dict, in_force: dict | None, deployed: dict) -> list[dict]:
    """One row per model: EV at the deployed threshold and at the optimum, and the optimum
    threshold, for the edited curves and those in force (None: no version in force), with changes."""
    rows = []
    for m, c in edited.items():
        o = None if in_force is None else in_force[m]
        row = {"model": m, "threshold": deployed[m]}
        for key, new, old in (
            ("ev_deployed", c.ev_at(deployed[m]), None if o is None else o.ev_at(deployed[m])),
            ("ev_opt", c.ev_opt, None if o is None else o.ev_opt),
            ("t_opt", c.t_opt, None if o is None else o.t_opt),
        ):
            row[f"{key}_edited"], row[f"{key}_in_force"], row[f"{key}_change"] = new, old, _change(new, old)
        rows.append(row)
    return rows


def best_model(curves: dict) -> str | None:
    """The model with the highest EV per decision at its own optimum (None without curves)."""
    ok = {m: c.ev_opt for m, c in curves.items() if not fmt.is_undefined(c.ev_opt)}
    return max(ok, key=ok.get) if ok else None


def render(data, edited: ValueTable, in_force: ValueTable | None, in_force_label: str) -> None:
    """The what-if block for ``data`` (the session's aggregate) below the editor."""
    st.subheader(t("What-if on the current dataset", _L()))
    if data is None:
        st.caption(t("Choose a dataset in the sidebar to see what these amounts do to its models.", _L()))
        return
    lens = state.current_lens()
    models = list(data.score_kinds)
    started = time.perf_counter()
    counts = {m: state.counts_for(data, m) for m in models}
    deployed = {m: state.deployed_threshold(data, m) for m in models}
    new = curves_of(counts, data.score_kinds, edited)
    old = None if in_force is None else curves_of(counts, data.score_kinds, in_force)
    rows = compare(new, old, deployed)
    elapsed = time.perf_counter() - started
    unit = edited.unit
    many = len(models) > 1
    edited_w, in_force_w = t(EDITED, lens.locale), t(IN_FORCE, lens.locale)
    shown = {(f"{m} · {edited_w}" if many else edited_w): c for m, c in new.items()}
    if old is not None:
        shown.update({(f"{m} · {in_force_w}" if many else in_force_w): c for m, c in old.items()})
    marks = {(f"{m} · {edited_w}" if many else edited_w): deployed[m] for m in models}
    fig = charts.value_curve_figure(shown, marks, unit=unit, height=360, lens=lens, max_points=charts.WHATIF_POINTS)
    for tr in fig.data:  # the version in force as a ghost
        if in_force_w in (tr.name or ""):
            tr.opacity = 0.45
            if getattr(tr, "mode", None) == "lines":
                tr.line.dash = "dot"
        # the legend names the curves only: with every mark of two models under two tables it ran
        # past the chart (18 entries, scrolling); the stars, rings and bands say what they are on hover
        # and the table below gives their numbers
        if getattr(tr, "mode", None) != "lines":
            tr.showlegend = False
    ui.plotly_chart(st, fig, key="vt_whatif_curve")
    money = lambda x: fmt.DASH if x is None else fmt.money(lens.amount(x), unit, signed=True)  # noqa: E731 (levels and changes)
    q = lens.Quantity
    ui.show_table(
        st.container(key="vt_whatif"),
        rows,
        {
            "model": ui.Col(t("Model", _L())),
            "threshold": ui.Col(t("Deployed threshold", _L()), fmt.score),
            "ev_deployed_edited": ui.Col(t("{q} at deployed, edited", _L(), q=q), money),
            "ev_deployed_in_force": ui.Col(t("{q} at deployed, {in_force}", _L(), q=q, in_force=t(IN_FORCE, _L())), money),
            "ev_deployed_change": ui.Col(t("Change at deployed", _L()), money),
            "ev_opt_edited": ui.Col(t("{q} at optimum, edited", _L(), q=q), money),
            "ev_opt_in_force": ui.Col(t("{q} at optimum, {in_force}", _L(), q=q, in_force=t(IN_FORCE, _L())), money),
            "ev_opt_change": ui.Col(t("Change at optimum", _L()), money),
            "t_opt_edited": ui.Col(t("Best threshold, edited", _L()), fmt.score),
            "t_opt_in_force": ui.Col(t("Best threshold, {in_force}", _L(), in_force=t(IN_FORCE, _L())), fmt.score),
            "t_opt_change": ui.Col(
                t("Move of the best threshold", _L()), lambda x: fmt.DASH if x is None else fmt.number(x, signed=True)
            ),
        },
        key="vt_whatif_table",
    )
    b_new, b_old = best_model(new), None if old is None else best_model(old)
    if many and b_new is not None:
        st.markdown(
            t("Best model at its optimum with the edited amounts: **{b_new}**", _L(), b_new=ui.md_text(b_new))
            + (
                ""
                if old is None
                else (t(" (unchanged)", _L()) if b_new == b_old else t(" (in force: {x})", _L(), x=ui.md_text(b_old or fmt.DASH)))
            )
        )
    st.caption(
        t(
            "Edited amounts against {in_force_label}, re-priced on the dataset's counts in {x} ms.",
            _L(),
            in_force_label=ui.md_text(in_force_label),
            x=fmt.number(elapsed * 1000, 2),
        )
    )
    verdict_change(data, edited, in_force, deployed)


def verdict_change(data, edited: ValueTable, in_force: ValueTable | None, deployed: dict) -> None:
    """The board's verdict word with the edited amounts, beside the one with the version in force
    (the board's configuration and thresholds; both boards cached by amounts)."""
    config = state.board_config(data, deployed)
    lens = state.current_lens()
    with st.spinner(t("Computing the verdict with the edited amounts (bootstrap intervals, drift) …", _L())):
        new = plain_verdict(state.board_result(data, edited, config), locale=_L(), lens=lens).word
        old = None if in_force is None else plain_verdict(state.board_result(data, in_force, config), locale=_L(), lens=lens).word
    # the word names a model ("ROLL OUT new"): a user's name, shown as text, never as markdown
    new, old = ui.md_text(new), None if old is None else ui.md_text(old)
    if old is None:
        text = t("Verdict with the edited amounts: **{new}** (no version in force to compare with).", _L(), new=new)
    elif old == new:
        text = t("Verdict: **{old} → {new}** (unchanged by the edit).", _L(), old=old, new=new)
    else:
        text = t("Verdict: **{old} → {new}** — the edit changes the decision.", _L(), old=old, new=new)
    st.markdown(text, help=t("The board's verdict at the deployed thresholds, in force → edited.", _L()))
