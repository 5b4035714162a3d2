"""Threshold–value: the exact EV curve of each model, its optimum, and the segments."""

import streamlit as st

from board import charts, services
from board.app import state, ui
from board.app import uncertainty_view as uv
from board.words import fmt
from board.words.glossary import term, terms
from board.words.i18n import N_, t
from board.words.vocab import word
from evalcore import price_curve

L = state.current_locale()

# the rows of services.operating_table → (plain name, how the value is shown); the two ranges are
# shown from the curve itself (the table has them as text)
OPERATING = {
    "deployed t": (N_("Deployed threshold"), fmt.score),
    "TP": (N_("True positives (TP)"), fmt.count),
    "FP": (N_("False positives (FP)"), fmt.count),
    "FN": (N_("False negatives (FN)"), fmt.count),
    "TN": (N_("True negatives (TN)"), fmt.count),
    "accuracy": (N_("Accuracy"), fmt.share),
    "precision": (N_("Precision (positives among cases acted on)"), fmt.share),
    "recall": (N_("Recall (positives caught)"), fmt.share),
    "F1": (N_("F1 score"), fmt.number),
    "FPR": (N_("False-positive rate (negatives acted on)"), fmt.share),
    "positive rate": (N_("Share of cases acted on"), fmt.share),
    "EV at deployed": (N_("EV per decision at the deployed threshold"), "money"),
    "t_opt": (N_("Best threshold"), fmt.score),
    "t_opt interval": (N_("Thresholds as good as the best"), "range"),
    "EV at optimum": (N_("EV per decision at the best threshold"), "money"),
    "Bayes t*": (N_("Bayes threshold t*"), fmt.score),
    "flat range (±1%)": (N_("Thresholds within 1% of the best EV"), "range"),
    "sharpness": (N_("Sharpness (largest EV drop near the best threshold)"), fmt.share),
}


def _range(lo, hi) -> str:
    """A threshold range, or one threshold when both ends show the same."""
    if fmt.is_undefined(lo) and fmt.is_undefined(hi):
        return fmt.DASH
    a, b = fmt.score(lo), fmt.score(hi)
    return a if a == b else t("{a} to {b}", L, a=a, b=b)


def _operating_rows(rows, curves, unit):
    """The operating table for the screen: one row per measure, one column per model, as text."""
    ranges = {"t_opt interval": lambda c: c.t_opt_interval, "flat range (±1%)": lambda c: c.flatness}
    out = []
    for field, (label, show) in OPERATING.items():
        line = {t("Measure", L): t(label, L)}
        for r in rows:
            m = r["model"]
            if show == "range":
                line[m] = _range(*ranges[field](curves[m])) if not fmt.is_undefined(curves[m].t_opt) else fmt.DASH
            elif show == "money":
                line[m] = fmt.money(r[field], unit, signed=True, locale=L)
            else:
                line[m] = show(r[field])
        out.append(line)
    return out


preds = state.current_data()  # the dataset's aggregate: curves from its counts
if preds is None:
    st.stop()
table, _ = state.committed_table()
unit = table.unit
lens = state.current_lens()  # expected value or expected loss, as the reader chose (board/words/lens.py)
st.title(t("Threshold–value curve", L))
res_note = (
    ui.service_text(services.resolution_note(preds)) if state.dataset_record().is_aggregate else t("Exact: no threshold grid.", L)
)
st.caption(
    t(
        "Expected VALUE per decision (gains positive) at every distinct score, priced with “{table}”. Act when score ≥ t.",
        L,
        table=ui.md_text(table.name),
    )
    + " "
    + res_note
)

models = list(preds.score_kinds)
deployed = {}
cols = st.columns(len(models))
for col, m in zip(cols, models):
    rng = services.threshold_range(preds, m)
    key = state.threshold_key(m)

    def _commit(m=m, key=key):
        st.session_state[f"committed_{key}"] = st.session_state[key]

    value = min(max(state.deployed_threshold(preds, m), rng.low), rng.high)
    deployed[m] = col.slider(
        t("Deployed threshold of {model} ({kind})", L, model=ui.md_text(m), kind=word(preds.score_kinds[m], L)),
        rng.low,
        rng.high,
        value,
        rng.step,
        key=key,
        on_change=_commit,
        format="%.3f",
        help=term("threshold", L),
    )

curves = {m: price_curve(state.counts_for(preds, m), table, score_kind=preds.score_kinds[m]) for m in models}
log_x = st.toggle(
    t("Log threshold axis (for rare positives, where the optimum sits at small scores)", L),
    key="tv_log_x",
    value=all(k == "probability" for k in preds.score_kinds.values()) and services.positive_rate_of(preds) < 0.1,
)
bands = uv.bands_for(preds, table, models)
ui.plotly_chart(st, charts.value_curve_figure(curves, deployed, unit=unit, log_x=log_x, bands=bands, lens=lens), key="tv_curve")
st.caption(
    t("The shaded bootstrap band appears once the Uncertainty page has run for these settings.", L)
    if bands is None
    else t("Shaded: pointwise bootstrap interval of EV(t) from the Uncertainty page's last run.", L)
)
for note in services.calibration_gap_notes(curves):
    st.warning(ui.md_text(ui.service_text(note)))

rows = services.operating_table(curves, deployed, unit)
metric_cols = st.columns(len(models))
for col, r in zip(metric_cols, rows):
    col.metric(
        t("{model}: EV per decision at deployed t", L, model=ui.md_text(r["model"])),
        fmt.money(r["EV at deployed"], unit, signed=True, locale=L),
        delta=t(
            "{diff} available at the best threshold",
            L,
            diff=fmt.money(r["EV at optimum"] - r["EV at deployed"], unit, signed=True, locale=L),
        ),
        help=term("ev", L),
    )
st.subheader(t("At the deployed and at the best threshold", L), help=terms("threshold", "tp", "fp", "fn", "tn", "ev", locale=L))
st.dataframe(
    _operating_rows(rows, curves, unit),
    hide_index=True,
    width="stretch",
    height=35 * (len(OPERATING) + 1) + 3,  # every row at once (35 px a row): no scrolling inside the table
    key="tv_operating",
    column_config={
        t("Measure", L): st.column_config.TextColumn(t("Measure", L), help=terms("best_threshold", "bayes_threshold", locale=L))
    },
)
for m, c in curves.items():
    if c.score_kind == "decision":
        st.info(t("{model} is a hard 0/1 decision: it has a single operating point, not a curve.", L, model=ui.md_text(m)))
    ui.undefined_notes(c.undefined, prefix=f"{ui.md_text(m)}: ")

st.subheader(t("Where the value comes from (at the deployed threshold)", L))
wcols = st.columns(len(models))
for col, m in zip(wcols, models):
    ui.plotly_chart(
        col, charts.attribution_figure(curves[m].attribution_at(deployed[m]), unit=unit, title=m, lens=lens), key=f"tv_attr_{m}"
    )

if preds.segments:
    st.subheader(t("By segment: threshold × segment heatmap of EV per decision", L), help=terms("segment", "ev", locale=L))
    a, b = st.columns(2)
    seg_col = a.selectbox(t("Segment column", L), list(preds.segments), key="tv_segment")
    seg_model = b.selectbox(t("Model", L), models, key="tv_seg_model")
    seg = state.segments_of(preds, table, deployed, seg_model, seg_col, log_grid=log_x)
    ui.plotly_chart(st, charts.segment_heatmap_figure(seg, unit=unit, lens=lens), key="tv_heatmap")
    st.caption(t("Stars mark each segment's own optimum (exact); the grid is for display only.", L))
