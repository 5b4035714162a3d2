"""Board: the one-page decision view (home)."""

import streamlit as st

from board import charts, state, ui
from evalcore import price_curve, segment_curves

preds = state.current_predictions()
if preds is None:
    st.stop()
table, _ = state.committed_table()
unit = table.unit
models = list(preds.scores)
deployed = {m: state.deployed_threshold(preds, m) for m in models}
curves = {m: price_curve(state.counts_for(preds, m), table, score_kind=preds.score_kinds[m]) for m in models}

st.title("Decision board")
st.caption(f"Value table “{table.name}” · {preds.n_rows:,} decisions · expected VALUE per decision (gains positive).")

cols = st.columns(len(models) + (1 if len(models) == 2 else 0))
for col, m in zip(cols, models):
    col.metric(f"EV of {m} at t={deployed[m]:.3g}", ui.fmt(curves[m].ev_at(deployed[m]), unit=unit, signed=True))
if len(models) == 2:
    a, b = models
    uplift = curves[b].ev_at(deployed[b]) - curves[a].ev_at(deployed[a])
    cols[-1].metric(f"Uplift {b} − {a} per decision", ui.fmt(uplift, unit=unit, signed=True))

left, right = st.columns(2)
best = max(models, key=lambda m: curves[m].ev_at(deployed[m]))
if preds.segments:
    seg_col = next(iter(preds.segments))
    seg = segment_curves(preds.y_true, preds.scores[best], preds.segments[seg_col], table, column=seg_col,
                         deployed=deployed[best], sample_weight=preds.sample_weight, score_kind=preds.score_kinds[best])
    left.plotly_chart(charts.segment_heatmap_figure(seg, unit=unit, height=330), key="board_heatmap")
if len(models) == 2:
    a, b = models
    right.plotly_chart(charts.delta_waterfall_figure(curves[a].attribution_at(deployed[a]), curves[b].attribution_at(deployed[b]),
                                                     names=(a, b), unit=unit, height=330), key="board_waterfall")
else:
    right.plotly_chart(charts.attribution_figure(curves[best].attribution_at(deployed[best]), unit=unit, height=330),
                       key="board_waterfall")
