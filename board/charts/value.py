"""Plotly figure builders: result -> go.Figure. No Streamlit calls, no math beyond layout.

Every chart says whether it shows value (gains positive) or loss.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from board.charts._style import PALETTE
from board.charts.uncertainty import ci_bars_figure
from evalcore import CELLS, SegmentCurves, ValueCurve

MAX_POINTS = 4000  # points drawn per curve; the numbers themselves are always exact
CELL_LABELS = {"tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN"}


def _money(x: float, unit: str = "") -> str:
    if x is None or not np.isfinite(x):
        return "—"
    return f"{x:+,.2f} {unit}".strip()


def _thin(idx: np.ndarray, keep: list[int]) -> np.ndarray:
    if len(idx) <= MAX_POINTS:
        return idx
    step = np.linspace(0, len(idx) - 1, MAX_POINTS).astype(int)
    return np.unique(np.r_[idx[step], keep])


def value_curve_figure(
    curves: dict[str, ValueCurve],
    deployed: dict[str, float],
    *,
    unit: str = "",
    bands: dict | None = None,
    height: int = 460,
    log_x: bool = False,
) -> go.Figure:
    """EV per decision against the threshold for each model, with optimum, deployed and
    Bayes thresholds, act-on-everyone/no-one lines and the flatness band.

    ``bands`` optionally maps model -> (grid, low, high), a bootstrap CI band of the curve.
    """
    fig = go.Figure()
    for j, (name, c) in enumerate(curves.items()):
        color = PALETTE[j % len(PALETTE)]
        x, y = c.thresholds[1:], c.ev[1:]  # drop +inf (act on no one: drawn as a line)
        if len(x) == 0:
            continue
        keep = [int(np.argmax(y))]
        idx = _thin(np.arange(len(x)), keep)
        if bands and name in bands:
            g, lo, hi = bands[name][:3]
            level = bands[name][3] if len(bands[name]) > 3 else None
            ok = np.isfinite(lo) & np.isfinite(hi)
            fig.add_trace(
                go.Scatter(
                    x=np.r_[g[ok], g[ok][::-1]],
                    y=np.r_[hi[ok], lo[ok][::-1]],
                    fill="toself",
                    line=dict(width=0),
                    fillcolor=color,
                    opacity=0.15,
                    hoverinfo="skip",
                    name=f"{name}: {'' if level is None else f'{level:.0%} '}bootstrap band (pointwise)",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=x[idx],
                y=y[idx],
                mode="lines",
                line=dict(color=color, width=2.5, shape="vh"),
                name=f"{name}: EV(t)",
                hovertemplate="t=%{x:.4g}<br>EV=%{y:,.2f} " + unit + "<extra>" + name + "</extra>",
            )
        )
        if c.score_kind == "decision":
            continue
        if np.isfinite(c.t_opt):
            lo_t, hi_t = c.t_opt_interval
            fig.add_trace(
                go.Scatter(
                    x=[c.t_opt],
                    y=[c.ev_opt],
                    mode="markers",
                    marker=dict(size=13, color=color, symbol="star"),
                    name=f"{name}: optimum t={c.t_opt:.4g}",
                    hovertemplate=f"optimum (t in ({lo_t:.4g}, {hi_t:.4g}])<br>EV=%{{y:,.2f}} {unit}<extra></extra>",
                )
            )
            f_lo, f_hi = c.flatness
            if np.isfinite(f_lo) and np.isfinite(f_hi) and f_hi > f_lo:
                fig.add_vrect(x0=f_lo, x1=f_hi, fillcolor=color, opacity=0.10, line_width=0)
                fig.add_trace(
                    go.Scatter(
                        x=[None],
                        y=[None],
                        mode="markers",
                        marker=dict(symbol="square", size=12, color=color, opacity=0.25),
                        name=f"{name}: EV within {c.flat_tol:.0%} of optimum for t in [{f_lo:.4g}, {f_hi:.4g}]",
                    )
                )
        t_dep = deployed.get(name)
        if t_dep is not None:
            fig.add_vline(x=t_dep, line=dict(color=color, dash="dash", width=1.5))
            fig.add_trace(
                go.Scatter(
                    x=[t_dep],
                    y=[c.ev_at(t_dep)],
                    mode="markers",
                    marker=dict(size=10, color=color, symbol="circle-open", line=dict(width=2)),
                    name=f"{name}: deployed t={t_dep:.4g}",
                    hovertemplate="deployed<br>EV=%{y:,.2f} " + unit + "<extra></extra>",
                )
            )
        if np.isfinite(c.bayes_threshold):
            fig.add_vline(
                x=c.bayes_threshold,
                line=dict(color=color, dash="dot", width=1.5),
                annotation_text=f"t* {c.bayes_threshold:.3g}",
                annotation_position="top right",
                annotation_font_size=11,
            )
    if curves:
        # acting on everyone / no one does not depend on the model: one pair of reference lines
        c = next(iter(curves.values()))
        fig.add_hline(
            y=c.ev_all,
            line=dict(color="#555", dash="longdash", width=1),
            annotation_text=f"act on everyone: {_money(c.ev_all, unit)}",
            annotation_position="bottom left",
            annotation_font_size=11,
        )
        fig.add_hline(
            y=c.ev_none,
            line=dict(color="#555", dash="dashdot", width=1),
            annotation_text=f"act on no one: {_money(c.ev_none, unit)}",
            annotation_position="top left",
            annotation_font_size=11,
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        hovermode="x",
        xaxis_title="threshold t (act when score ≥ t)",
        yaxis_title=f"expected VALUE per decision ({unit or 'money'}; gains positive)",
        legend=dict(orientation="h", y=-0.2),
        uirevision="curve",
    )
    if log_x:
        fig.update_xaxes(type="log", title="threshold t (act when score ≥ t), log scale")
    return fig


def segment_heatmap_figure(seg: SegmentCurves, *, unit: str = "", height: int = 360) -> go.Figure:
    """Threshold × segment heatmap of EV per decision, each segment's optimum marked."""
    labels = [f"{lv} (n={n:,.0f})" for lv, n in zip(seg.levels, seg.n)]
    z = seg.ev
    # colour range from the 95th percentile of |EV|: the extremes (acting on everyone) saturate
    # instead of washing out the region where the decision is made
    lim = float(np.nanpercentile(np.abs(z), 95)) if np.isfinite(z).any() else 1.0
    lim = lim or 1.0
    fig = go.Figure(
        go.Heatmap(
            x=seg.grid,
            y=labels,
            z=z,
            colorscale="RdBu",
            zmid=0,
            zmin=-lim,
            zmax=lim,
            colorbar=dict(title=f"EV per decision<br>({unit or 'money'})"),
            hovertemplate=seg.column + "=%{y}<br>t=%{x:.4g}<br>EV=%{z:,.2f} " + unit + "<extra></extra>",
        )
    )
    ok = np.isfinite(seg.t_opt) & (seg.t_opt <= seg.grid.max()) & (seg.t_opt >= seg.grid.min())
    fig.add_trace(
        go.Scatter(
            x=seg.t_opt[ok],
            y=np.array(labels)[ok],
            mode="markers",
            marker=dict(symbol="star", size=14, color="#FFC914", line=dict(color="black", width=1)),
            name="segment optimum",
            customdata=seg.ev_opt[ok],
            hovertemplate="optimum t=%{x:.4g}<br>EV=%{customdata:,.2f} " + unit + "<extra></extra>",
        )
    )
    fig.add_vline(
        x=seg.deployed, line=dict(color="black", dash="dash", width=1.5), annotation_text="deployed", annotation_font_size=11
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis_title="threshold t (act when score ≥ t)",
        yaxis_title=seg.column,
        showlegend=False,
    )
    g = seg.grid
    if len(g) > 2 and g[0] > 0 and np.allclose(np.diff(np.log(g)), np.log(g[1] / g[0])):
        fig.update_xaxes(
            type="log", title="threshold t (act when score ≥ t), log scale", range=[float(np.log10(g[0])), float(np.log10(g[-1]))]
        )
    else:
        fig.update_xaxes(range=[float(g[0]), float(g[-1])])
    return fig


def attribution_figure(terms: dict[str, float], *, unit: str = "", title: str = "", height: int = 320) -> go.Figure:
    """Value waterfall: the TP, FP, FN, TN terms → net EV per decision."""
    labels = [CELL_LABELS[c] for c in CELLS]
    values = [terms[c] for c in CELLS]
    net = float(sum(values))
    fig = go.Figure(
        go.Waterfall(
            x=labels + ["net EV"],
            y=values + [net],
            measure=["relative"] * 4 + ["total"],
            text=[_money(v, unit) for v in values + [net]],
            textposition="outside",
            increasing=dict(marker=dict(color="#2E8B57")),
            decreasing=dict(marker=dict(color="#C0392B")),
            totals=dict(marker=dict(color="#0B5FFF")),
            connector=dict(line=dict(color="#888")),
        )
    )
    fig.update_layout(
        title=title or None,
        height=height,
        margin=dict(l=10, r=10, t=40 if title else 20, b=10),
        yaxis_title=f"VALUE per decision ({unit or 'money'})",
        showlegend=False,
    )
    return fig


def delta_waterfall_figure(
    terms_a: dict[str, float], terms_b: dict[str, float], *, names=("A", "B"), unit: str = "", height: int = 320
) -> go.Figure:
    """Where the money moved from model A to B: per outcome, (count_B − count_A) × amount / N."""
    a, b = names
    deltas = [terms_b[c] - terms_a[c] for c in CELLS]
    start = float(sum(terms_a.values()))
    end = float(sum(terms_b.values()))
    fig = go.Figure(
        go.Waterfall(
            x=[f"EV {a}"] + [f"Δ{CELL_LABELS[c]}" for c in CELLS] + [f"EV {b}"],
            y=[start] + deltas + [end],
            measure=["absolute"] + ["relative"] * 4 + ["total"],
            text=[_money(v, unit) for v in [start] + deltas + [end]],
            textposition="outside",
            increasing=dict(marker=dict(color="#2E8B57")),
            decreasing=dict(marker=dict(color="#C0392B")),
            totals=dict(marker=dict(color="#0B5FFF")),
            connector=dict(line=dict(color="#888")),
        )
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=20, b=10),
        showlegend=False,
        yaxis_title=f"VALUE per decision ({unit or 'money'})",
    )
    return fig


def headline_figure(result, *, height: int = 300, font_size: int = 14) -> go.Figure:
    """Module 1 of the board: EV per decision of each model with its CI, and B − A when there are two."""
    unit = result.table.unit
    names = list(result.models)
    rows = []
    if result.comparison is not None:
        comp = result.comparison
        rows = [
            (f"EV {comp.a} @ {result.models[comp.a].threshold:.3g}", comp.ev_a),
            (f"EV {comp.b} @ {result.models[comp.b].threshold:.3g}", comp.ev_b),
            (f"{comp.b} − {comp.a}", comp.diff),
        ]
        sub = f"{comp.diff.level:.0%} {comp.diff.method} bootstrap · {comp.scheme} · {comp.diff.n_resamples} replicates · paired"
    else:
        for n in names:
            m = result.models[n]
            rows.append(
                (
                    f"EV {n} @ {m.threshold:.3g}",
                    m.ev_ci if m.ev_ci is not None else (m.ev, float("nan"), float("nan"), "no bootstrap was run"),
                )
            )
        m0 = result.models[names[0]]
        sub = (
            f"{m0.ev_ci.level:.0%} {m0.ev_ci.method} bootstrap · {m0.ev_ci.scheme} · {m0.ev_ci.n_resamples} replicates"
            if m0.ev_ci is not None
            else "no bootstrap run"
        )
    fig = ci_bars_figure(rows, unit=unit, subtitle=sub, title="Expected VALUE per decision (gains positive)", height=height)
    lows = [t.error_x.arrayminus[0] for t in fig.data]
    xs = [t.x[0] for t in fig.data if t.x[0] is not None]
    if xs:  # room for the labels on both sides, and 0 always in view
        lo = min([x - (m or 0) for x, m in zip(xs, lows)] + [0])
        hi = max([x + (t.error_x.array[0] or 0) for x, t in zip(xs, fig.data)] + [0])
        pad = 0.18 * (hi - lo or 1)
        fig.update_xaxes(range=[lo - pad, hi + pad])
    fig.update_layout(
        font=dict(size=font_size),
        margin=dict(l=10, r=30, t=70, b=10),
        xaxis_title=f"value per decision ({unit})" if unit else "value per decision",
    )
    # room above the top bar for its label (categories sit at 0..n-1, top row last)
    fig.update_yaxes(range=[-0.5, len(rows) - 0.5 + 0.45])
    return fig
