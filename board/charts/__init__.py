"""Plotly figure builders: result -> go.Figure. No Streamlit, no database."""

from board.charts.value import (  # noqa: F401 - the package's API
    CELL_LABELS,
    MAX_POINTS,
    PALETTE,
    WHATIF_POINTS,
    attribution_figure,
    delta_waterfall_figure,
    headline_figure,
    heatmap_column,
    segment_heatmap_figure,
    share_at,
    share_points,
    totals_in_ticks,
    value_curve_figure,
)

__all__ = [
    "CELL_LABELS",
    "MAX_POINTS",
    "PALETTE",
    "WHATIF_POINTS",
    "attribution_figure",
    "delta_waterfall_figure",
    "headline_figure",
    "heatmap_column",
    "segment_heatmap_figure",
    "share_at",
    "share_points",
    "totals_in_ticks",
    "value_curve_figure",
]
