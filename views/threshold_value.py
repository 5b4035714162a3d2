"""Threshold–value: the exact EV curve of each model, its optimum, and the segments."""

import pandas as pd
import streamlit as st

from board import charts, services
from board.app import state, ui
from board.app import uncertainty_view as uv
from evalcore import price_curve

preds = state.current_data()  # the dataset's aggregate: curves from its counts
if preds is None:
    st.stop()
table, _ = state.committed_table()
unit = table.unit
st.title("Threshold–value curve")
res_note = services.resolution_note(preds) if state.dataset_record().is_aggregate else "Exact: no threshold grid."
st.caption(
    f"Expected VALUE per decision (gains positive) at every distinct score, priced with “{ui.md_text(table.name)}”. "
    f"Act when score ≥ t. {res_note}"
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
        f"Deployed threshold of {ui.md_text(m)} ({preds.score_kinds[m]})",
        rng.low,
        rng.high,
        value,
        rng.step,
        key=key,
        on_change=_commit,
        format="%.3f",
    )

curves = {m: price_curve(state.counts_for(preds, m), table, score_kind=preds.score_kinds[m]) for m in models}
log_x = st.toggle(
    "Log threshold axis (for rare positives, where the optimum sits at small scores)",
    key="tv_log_x",
    value=all(k == "probability" for k in preds.score_kinds.values()) and services.positive_rate_of(preds) < 0.1,
)
bands = uv.bands_for(preds, table, models)
ui.plotly_chart(st, charts.value_curve_figure(curves, deployed, unit=unit, log_x=log_x, bands=bands), key="tv_curve")
st.caption(
    "The shaded bootstrap band appears once the Uncertainty page has run for these settings."
    if bands is None
    else "Shaded: pointwise bootstrap interval of EV(t) from the Uncertainty page's last run."
)
for note in services.calibration_gap_notes(curves):
    st.warning(ui.md_text(note))

rows = services.operating_table(curves, deployed, unit)
metric_cols = st.columns(len(models))
for col, r in zip(metric_cols, rows):
    col.metric(
        f"{ui.md_text(r['model'])}: EV per decision at deployed t",
        ui.fmt(r["EV at deployed"], unit=unit, signed=True),
        delta=ui.fmt(r["EV at optimum"] - r["EV at deployed"], unit=unit, signed=True) + " available at the optimum",
    )
st.dataframe(pd.DataFrame(rows).set_index("model").T.map(ui.cell), width="stretch")
for m, c in curves.items():
    if c.score_kind == "decision":
        st.info(f"{ui.md_text(m)} is a hard 0/1 decision: it has a single operating point, not a curve.")
    ui.undefined_notes(c.undefined, prefix=f"{ui.md_text(m)}: ")

st.subheader("Where the value comes from (at the deployed threshold)")
wcols = st.columns(len(models))
for col, m in zip(wcols, models):
    ui.plotly_chart(col, charts.attribution_figure(curves[m].attribution_at(deployed[m]), unit=unit, title=m), key=f"tv_attr_{m}")

if preds.segments:
    st.subheader("By segment: threshold × segment heatmap of EV per decision")
    a, b = st.columns(2)
    seg_col = a.selectbox("Segment column", list(preds.segments), key="tv_segment")
    seg_model = b.selectbox("Model", models, key="tv_seg_model")
    seg = state.segments_of(preds, table, deployed, seg_model, seg_col, log_grid=log_x)
    ui.plotly_chart(st, charts.segment_heatmap_figure(seg, unit=unit), key="tv_heatmap")
    st.caption("Stars mark each segment's own optimum (exact); the grid is for display only.")
