"""Plotly figure builders for uncertainty (SPEC §3.4): result -> go.Figure, no Streamlit, no math.

- :func:`ci_bars_figure` — horizontal CI bars for any list of intervals (EV of A, EV of B,
  the paired difference B − A, AUC, Wilson intervals of the §3.1 metrics).
- :func:`comparison_figure` — the paired comparison with its verdict and P(B better).
- :func:`metric_intervals_figure` — Wilson intervals of accuracy, precision, recall, …
- :func:`t_opt_histogram` — the bootstrap distribution of the re-optimised threshold.
- :func:`add_curve_band` — a CI band around a threshold–value curve on an existing figure.

Every figure says that it shows *value* (money gained per decision), the interval level,
the method and the resampling scheme. An interval that could not be formed is drawn as a
point with "interval undefined" and its reason, never as a zero-width bar.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from board.charts._style import PALETTE
from evalcore.bootstrap import BootstrapResult, Comparison, CurveBand, MetricIntervals, OptimumBootstrap

GREY = "#7F7F7F"
FIT_NOTE = "Resampling the test set: uncertainty of a fixed model on finite data, not of training."


def _finite(x) -> bool:
    return x is not None and bool(np.isfinite(x))


def _fmt(x, unit: str = "", signed: bool = False) -> str:
    if not _finite(x):
        return "—"
    s = f"{x:+,.2f}" if signed else f"{x:,.4g}" if abs(x) < 1000 else f"{x:,.0f}"
    return f"{s} {unit}".strip()


def _level_words(level: float) -> str:
    return f"{level * 100:g}%"


def _as_interval(item) -> tuple[float, float, float, str]:
    """(estimate, low, high, why-undefined) from a BootstrapResult, a ProportionInterval or a tuple."""
    if isinstance(item, BootstrapResult):
        why = "; ".join(v for k, v in item.undefined.items() if k != "replicates")
        return item.estimate, item.low, item.high, why
    if hasattr(item, "estimate") and hasattr(item, "low"):
        return item.estimate, item.low, item.high, getattr(item, "undefined", "") or ""
    est, low, high = item[:3]
    return est, low, high, (item[3] if len(item) > 3 else "")


def _x_range(items, zero_line: bool, fixed) -> tuple[float, float] | None:
    """The x range: ``fixed`` if given, else the data (and 0) padded so the labels fit."""
    if fixed is not None:
        return float(fixed[0]), float(fixed[1])
    xs = [v for est, low, high, _ in items for v in (est, low, high) if _finite(v)]
    if zero_line:
        xs.append(0.0)
    if not xs:
        return None
    lo, hi = min(xs), max(xs)
    pad = 0.08 * (hi - lo) if hi > lo else max(abs(hi), 1.0) * 0.1
    return lo - pad, hi + pad


def _text_position(x, x_range) -> str:
    """Anchor a label away from the nearer edge, so it is not cut off."""
    if x is None or x_range is None or x_range[1] <= x_range[0]:
        return "top center"
    f = (x - x_range[0]) / (x_range[1] - x_range[0])
    return "top right" if f < 0.3 else "top left" if f > 0.7 else "top center"


def ci_bars_figure(
    rows: list[tuple[str, object]],
    *,
    unit: str = "",
    title: str = "",
    zero_line: bool = True,
    colors: list[str] | None = None,
    subtitle: str = "",
    height: int | None = None,
    x_range: tuple[float, float] | None = None,
) -> go.Figure:
    """Horizontal confidence-interval bars, one row per interval, top to bottom.

    Parameters
    ----------
    rows : list of (label, interval)
        ``interval`` is a :class:`~evalcore.bootstrap.BootstrapResult`, a
        :class:`~evalcore.bootstrap.ProportionInterval`, or ``(estimate, low, high[, why])``.
    unit : str
        Unit of the x axis (e.g. "EUR per decision").
    zero_line : bool, default=True
        Draw x = 0 (the line a difference must clear).
    subtitle : str
        Shown under the title, e.g. "95% percentile bootstrap, rows, 1000 replicates".
    x_range : (float, float), default=None
        Fixed x range (e.g. (0, 1) for proportions); default: the intervals (and 0) padded.

    Returns
    -------
    go.Figure
        One scatter trace per row (point + error bar), named by its label; undefined
        intervals become points with a "interval undefined" hover and annotation.
    """
    fig = go.Figure()
    labels = [str(r[0]) for r in rows]
    items = [_as_interval(item) for _, item in rows]
    xr = _x_range(items, zero_line, x_range)
    for j, ((label, _), (est, low, high, why)) in enumerate(zip(rows, items)):
        color = (colors or PALETTE)[j % len(colors or PALETTE)]
        defined = _finite(low) and _finite(high)
        text = f"{_fmt(est, unit)}  [{_fmt(low)}, {_fmt(high)}]" if defined else f"{_fmt(est, unit)}  (interval undefined)"
        hover = f"{label}<br>estimate {_fmt(est, unit)}<br>" + (
            f"interval [{_fmt(low)}, {_fmt(high)}]" if defined else f"interval undefined: {why or 'not enough data'}"
        )
        x = est if _finite(est) else (0.5 * (low + high) if defined else None)
        fig.add_trace(
            go.Scatter(
                x=[x],
                y=[str(label)],
                mode="markers+text",
                name=str(label),
                marker=dict(size=14, color=color, symbol="diamond" if defined else "x"),
                error_x=dict(
                    type="data",
                    symmetric=False,
                    array=[high - x] if defined and x is not None else [0],
                    arrayminus=[x - low] if defined and x is not None else [0],
                    thickness=6,
                    width=10,
                    color=color,
                    visible=defined,
                ),
                text=[text],
                textposition=_text_position(x, xr),
                hovertemplate=hover + "<extra></extra>",
                showlegend=False,
            )
        )
    if zero_line:
        fig.add_vline(x=0, line_dash="dash", line_color=GREY, annotation_text="0", annotation_position="bottom")
    full_title = title
    if subtitle:
        full_title = f"{title}<br><sup>{subtitle}</sup>" if title else f"<sup>{subtitle}</sup>"
    fig.update_layout(
        title=full_title or None,
        height=height or 120 + 70 * max(1, len(rows)),
        margin=dict(l=10, r=10, t=60 if full_title else 20, b=10),
        xaxis_title=f"value ({unit})" if unit else "value",
        showlegend=False,
    )
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], automargin=True)
    if xr is not None:
        fig.update_xaxes(range=list(xr))
    return fig


def _describe(r: BootstrapResult) -> str:
    return f"{_level_words(r.level)} {r.method} bootstrap, {r.scheme} scheme, {r.n_resamples} replicates"


def comparison_figure(comp: Comparison, *, unit: str = "", height: int | None = None) -> go.Figure:
    """EV of A, EV of B and the paired difference B − A with their intervals and the verdict.

    The title is the plain verdict ("B is better: the 95% CI of EV_B − EV_A excludes 0." or
    "No significant difference …"); the subtitle states P(B better), the method and scheme.
    """
    rows = [
        (f"EV {comp.a} (t={comp.threshold_a:.4g})", comp.ev_a),
        (f"EV {comp.b} (t={comp.threshold_b:.4g})", comp.ev_b),
        (f"{comp.b} − {comp.a}", comp.diff),
    ]
    verdict_color = {"better": "#2E7D32", "worse": "#C62828"}.get(comp.verdict, GREY)
    p = f"P({comp.b} better) = {comp.p_b_better:.1%}" if _finite(comp.p_b_better) else f"P({comp.b} better) undefined"
    fig = ci_bars_figure(
        rows,
        unit=f"{unit} per decision".strip(),
        title=comp.verdict_text,
        subtitle=f"{p} · {_describe(comp.diff)} · value, gains positive",
        colors=[PALETTE[0], PALETTE[1], verdict_color],
        height=height,
    )
    fig.update_layout(title_font_color=verdict_color)
    return fig


def metric_intervals_figure(m: MetricIntervals, *, threshold: float | None = None, height: int | None = None) -> go.Figure:
    """Wilson intervals of the §3.1 proportions at one threshold (x axis 0–1)."""
    rows = [(name.replace("_", " "), iv) for name, iv in m.items()]
    level = m.accuracy.level
    t = f" at t={threshold:.4g}" if threshold is not None else ""
    fig = ci_bars_figure(
        rows,
        title=f"Metrics{t}",
        subtitle=f"{_level_words(level)} Wilson intervals",
        zero_line=False,
        height=height,
        x_range=(0, 1),
    )
    fig.update_xaxes(title="proportion")
    return fig


def t_opt_histogram(opt: OptimumBootstrap, *, deployed: float | None = None, nbins: int = 40, height: int = 320) -> go.Figure:
    """Histogram of the re-optimised threshold over bootstrap replicates.

    Marks the optimum on the data, its interval and (if given) the deployed threshold.
    Replicates where acting on no one was best (t_opt = +inf) cannot sit on a threshold
    axis; they are counted in the title instead of dropped silently.
    """
    r = opt.t_opt
    dist = r.distribution if r.distribution is not None else np.array([])
    finite = dist[np.isfinite(dist)]
    n_inf = int(np.sum(np.isinf(dist)))
    fig = go.Figure()
    fig.add_trace(
        go.Histogram(
            x=finite,
            nbinsx=nbins,
            marker_color=PALETTE[0],
            opacity=0.8,
            name="replicates",
            hovertemplate="t_opt %{x}<br>%{y} replicates<extra></extra>",
        )
    )
    if _finite(r.estimate):
        fig.add_vline(
            x=r.estimate,
            line_color=PALETTE[1],
            line_width=3,
            annotation_text=f"t_opt {r.estimate:.4g}",
            annotation_position="top",
        )
    if _finite(r.low) and _finite(r.high):
        fig.add_vrect(
            x0=r.low,
            x1=r.high,
            fillcolor=PALETTE[1],
            opacity=0.08,
            line_width=0,
            annotation_text=f"{_level_words(r.level)} CI",
            annotation_position="top left",
        )
    if deployed is not None and np.isfinite(deployed):
        fig.add_vline(
            x=deployed,
            line_dash="dash",
            line_color=GREY,
            annotation_text=f"deployed {deployed:.4g}",
            annotation_position="bottom right",
        )
    res = f", scores binned to {opt.resolution:g}" if opt.resolution else ""
    extra = f"; {n_inf} of {len(dist)} replicates: act on no one" if n_inf else ""
    fig.update_layout(
        title=f"Re-optimised threshold over {r.n_resamples} replicates<br><sup>{r.scheme} scheme{res}{extra}</sup>",
        height=height,
        margin=dict(l=10, r=10, t=60, b=10),
        bargap=0.05,
        showlegend=False,
        xaxis_title="t_opt (act when score ≥ t)",
        yaxis_title="replicates",
    )
    return fig


def add_curve_band(
    fig: go.Figure, band: CurveBand, *, name: str = "", color: str = PALETTE[0], opacity: float = 0.18
) -> go.Figure:
    """Add a filled pointwise CI band of EV(t) to ``fig`` (in place; returns it).

    Grid points where the band is undefined (NaN) split the band instead of being drawn as 0.
    """
    g, lo, hi = (np.asarray(a, dtype=float) for a in band.as_tuple())
    ok = np.isfinite(g) & np.isfinite(lo) & np.isfinite(hi)
    label = f"{name + ': ' if name else ''}{_level_words(band.level)} band (pointwise)"
    runs = np.split(np.flatnonzero(ok), np.flatnonzero(np.diff(np.flatnonzero(ok)) > 1) + 1) if ok.any() else []
    for i, idx in enumerate(runs):
        if len(idx) == 0:
            continue
        x, l_, h_ = g[idx], lo[idx], hi[idx]
        order = np.argsort(x)
        x, l_, h_ = x[order], l_[order], h_[order]
        fig.add_trace(
            go.Scatter(
                x=np.r_[x, x[::-1]],
                y=np.r_[h_, l_[::-1]],
                fill="toself",
                fillcolor=color,
                opacity=opacity,
                line=dict(width=0),
                name=label,
                legendgroup=label,
                showlegend=i == 0,
                hoverinfo="skip",
            )
        )
    return fig


def curve_band_figure(opt: OptimumBootstrap, *, name: str = "", unit: str = "", height: int = 420) -> go.Figure:
    """EV(t) on the data at the band grid with its pointwise band (a stand-alone figure)."""
    band = opt.band
    fig = add_curve_band(go.Figure(), band, name=name)
    fig.add_trace(
        go.Scatter(
            x=band.grid,
            y=band.estimate,
            mode="lines",
            line=dict(color=PALETTE[0], width=2.5),
            name=f"{name + ': ' if name else ''}EV(t)",
        )
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=40, b=10),
        title=f"Threshold–value curve with its {_level_words(band.level)} band<br>"
        f"<sup>{opt.ev_opt.scheme} scheme, {opt.ev_opt.n_resamples} replicates · value, gains positive</sup>",
        xaxis_title="threshold t (act when score ≥ t)",
        yaxis_title=f"EV per decision ({unit})" if unit else "EV per decision",
    )
    return fig


def uncertainty_summary_figure(
    rows: list[tuple[str, BootstrapResult]], *, unit: str = "", height: int | None = None, colors: list[str] | None = None
) -> go.Figure:
    """The two questions side by side: EV at the deployed threshold, EV after re-optimising.

    ``rows`` e.g. ``[("A: EV at deployed t", ev_a), ("A: EV after re-optimising t", opt_a.ev_opt)]``;
    ``colors`` one per row (e.g. one colour per model), default the palette in turn.
    """
    sub = _describe(rows[0][1]) if rows else ""
    return ci_bars_figure(
        rows,
        unit=f"{unit} per decision".strip(),
        title="Expected value per decision",
        subtitle=f"{sub} · {FIT_NOTE}",
        zero_line=True,
        height=height,
        colors=colors,
    )
