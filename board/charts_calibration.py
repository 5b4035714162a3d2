"""Plotly figure builders for calibration (SPEC §3.5): result -> go.Figure, no Streamlit.

Reliability diagram: the diagonal, each non-empty bin's observed positive rate against its
mean predicted probability with a Wilson interval, and below it the count per bin. Empty
bins are never drawn as a point at 0: they are absent from the line and marked "empty"
under a zero-height bar.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from evalcore.calibration import Reliability

# same colours as board.charts, so a model keeps its colour across pages
PALETTE = ["#0B5FFF", "#E4572E", "#17BEBB", "#FFC914", "#76B041", "#8E44AD"]
DIAGONAL_NAME = "perfectly calibrated"
Y_TITLE = "observed positive rate"
X_TITLE = "mean predicted probability"


def _fmt(x: float, spec: str = ".3f") -> str:
    return "—" if x is None or not np.isfinite(x) else format(x, spec)


def metrics_line(rel: Reliability) -> str:
    """One line of the headline metrics, naming ECE's bins and the log-loss clipping."""
    return (f"Brier {_fmt(rel.brier, '.4f')} · log loss {_fmt(rel.log_loss, '.4f')} (p clipped to "
            f"[{rel.log_loss_clip:g}, 1−{rel.log_loss_clip:g}]) · ECE {_fmt(rel.ece, '.4f')} "
            f"({rel.n_bins} {rel.strategy} bins) · O/E {_fmt(rel.oe_ratio)} · slope {_fmt(rel.slope)} · "
            f"intercept {_fmt(rel.intercept)}")


def _add_model(fig: go.Figure, name: str, rel: Reliability, color: str, k: int, n_models: int) -> None:
    bins = rel.bins
    full = [b for b in bins if not b.empty]
    x = np.array([b.mean_pred for b in full])
    y = np.array([b.frac_pos for b in full])
    lo = np.array([b.frac_pos_low for b in full])
    hi = np.array([b.frac_pos_high for b in full])
    custom = np.array([[b.low, b.high, b.count, b.n_rows, b.frac_pos_low, b.frac_pos_high] for b in full]).reshape(-1, 6)
    count_max = max((b.count for b in full), default=1.0)
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="lines+markers", name=name, legendgroup=name,
        line=dict(color=color, width=2),
        marker=dict(color=color, size=8 + 14 * np.sqrt(np.array([b.count for b in full]) / count_max) if full else 8),
        error_y=dict(type="data", symmetric=False, array=hi - y, arrayminus=y - lo, color=color, thickness=1.2, width=4),
        customdata=custom,
        hovertemplate=("bin [%{customdata[0]:.3g}, %{customdata[1]:.3g})<br>mean predicted %{x:.3f}<br>"
                       "observed %{y:.3f} (95% Wilson %{customdata[4]:.3f}–%{customdata[5]:.3f})<br>"
                       "count %{customdata[2]:,.4g} (%{customdata[3]} rows)<extra>" + name + "</extra>"),
    ), row=1, col=1)
    centres = [(b.low + b.high) / 2 for b in bins]
    widths = [0.92 * max(b.high - b.low, 1e-3) / max(n_models, 1) for b in bins]
    offsets = [(k - (n_models - 1) / 2) * w for w in widths]
    fig.add_trace(go.Bar(
        x=[c + o for c, o in zip(centres, offsets)], y=[b.count for b in bins], width=widths,
        name=f"{name}: count", legendgroup=name, showlegend=False, marker_color=color, opacity=0.75,
        customdata=[[b.low, b.high, b.n_rows] for b in bins],
        hovertemplate="bin [%{customdata[0]:.3g}, %{customdata[1]:.3g})<br>count %{y:,.4g} (%{customdata[2]} rows)"
                      "<extra>" + name + "</extra>",
    ), row=2, col=1)
    for c, o, b in zip(centres, offsets, bins):
        if b.empty:
            fig.add_annotation(x=c + o, y=0, text="empty", showarrow=False, yanchor="bottom", textangle=-90,
                               font=dict(size=10, color=color), row=2, col=1)


def reliability_figure(rel_by_model: dict[str, Reliability], *, title: str | None = None, height: int = 560) -> go.Figure:
    """Reliability diagram of one or more models, with a count histogram below.

    Parameters
    ----------
    rel_by_model : dict of str to Reliability
        Model name -> its reliability. Trace names: the model name for the points
        (one per non-empty bin, Wilson error bars), ``"<name>: count"`` for its bars (one
        per bin, empty bins as zero-height bars annotated "empty"), and
        ``"perfectly calibrated"`` for the diagonal.
    title : str, default=None
        Figure title; the ECE of each model with its bins is added below it.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.74, 0.26], vertical_spacing=0.05)
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name=DIAGONAL_NAME,
                             line=dict(color="#888888", dash="dash", width=1.5), hoverinfo="skip"), row=1, col=1)
    n_models = len(rel_by_model)
    for k, (name, rel) in enumerate(rel_by_model.items()):
        _add_model(fig, name, rel, PALETTE[k % len(PALETTE)], k, n_models)
    subtitle = " · ".join(f"{name}: ECE {_fmt(rel.ece, '.4f')} ({rel.n_bins} {rel.strategy} bins)"
                          for name, rel in rel_by_model.items())
    text = f"{title}<br><sup>{subtitle}</sup>" if title else f"<sup>{subtitle}</sup>"
    weighted = any(abs(b.count - b.n_rows) > 1e-9 for rel in rel_by_model.values() for b in rel.bins)
    fig.update_layout(title=dict(text=text), height=height, margin=dict(l=10, r=10, t=70, b=10), barmode="overlay",
                      legend=dict(orientation="h", y=-0.12), uirevision="reliability")
    fig.update_yaxes(title_text=Y_TITLE, range=[-0.02, 1.02], row=1, col=1)
    fig.update_yaxes(title_text="weighted count" if weighted else "count", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(range=[-0.02, 1.02], row=1, col=1)
    fig.update_xaxes(title_text=X_TITLE, range=[-0.02, 1.02], row=2, col=1)
    return fig


def recalibration_figure(before: Reliability | None, after: Reliability, method: str, *, height: int = 560) -> go.Figure:
    """Before/after reliability diagram of a cross-fitted recalibration.

    Trace names ``"before"`` and ``"after: <method> (cross-fitted)"``; ``before`` may be
    None for raw scores, which have no calibration before they are mapped to [0, 1].
    """
    after_name = f"after: {method} (cross-fitted)"
    rels = {after_name: after} if before is None else {"before": before, after_name: after}
    return reliability_figure(rels, title=f"Recalibration: {method}", height=height)
