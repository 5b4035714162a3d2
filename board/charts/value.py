"""Plotly figure builders: result -> go.Figure. No Streamlit calls, no math beyond layout.

Every chart says whether it shows value (gains positive) or loss. The builders that plot
expected value or its parts take a ``lens`` (:class:`board.words.lens.Lens`; None = value):
under the loss lens every plotted number is ``lens.amount`` of the engine's value (intervals
through ``lens.interval``), the titles name expected loss and "positive = money lost", and
every mark that picks a threshold (the optimum star) stays where it is — the threshold that
maximises value minimises loss. Every number on a chart
(ticks, hover, labels, colour bar) is written by :mod:`board.words.fmt`; every builder takes a
``font_size`` that tick labels, legend and colour bar follow (the board's present mode passes
16 or more). User names (models, segments) are kept as they are: the callers escape them
(:func:`board.export.onepager.plotly_safe`).

The threshold axis can read as the **share of cases acted on** (``axis="share"``): at a
threshold t, the weight of the cases with score ≥ t over all cases, (TP + FP) / (TP + FP + FN
+ TN) from the curve's counts — reweighted to the production prevalence when the value table
sets one, as the EV is. The score threshold stays in the hover and the legend.
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go

from board.charts._style import (
    FONT_SIZE,
    PALETTE,
    apply_font,
    category_chars,
    lens_of,
    log_number_ticks,
    log_ticks,
    money_ticks,
    nice_ticks,
    number_ticks,
    plain_numbers,
    quantity_title,
    set_ticks,
    share_ticks,
    small,
    title_size,
    wrap,
)
from board.charts.uncertainty import ci_bars_figure, shown
from board.words import fmt
from board.words.i18n import N_, t
from board.words.lens import Lens
from board.words.vocab import word
from evalcore import CELLS, InputError, SegmentCurves, ValueCurve

MAX_POINTS = 4000  # points drawn per curve; the numbers themselves are always exact
# the what-if redraws on every edit: about as many points as a wide screen has pixels across,
# so the figure it sends is a third of the size (issue 18: edit → curve in under a second)
WHATIF_POINTS = 1500
CELL_LABELS = {"tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN"}
AXES = ("share", "score")
SHARE_TITLE = N_("share of cases acted on")
SCORE_TITLE = N_("threshold t (act when score ≥ t)")
OPTIMUM_NAME = N_("best threshold per segment")
DEPLOYED_NAME = N_("deployed")
LOG_SCALE = N_(", log scale")
STAR = dict(symbol="star", size=15, color="#FFC914", line=dict(color="black", width=1))
GAIN, COST, TOTAL = "#2E8B57", "#C0392B", "#0B5FFF"


def _check_axis(axis: str) -> None:
    if axis not in AXES:
        raise InputError(f'axis must be "share" (share of cases acted on) or "score" (the threshold); got {axis!r}.')


def _thin(idx: np.ndarray, keep: list[int], max_points: int = MAX_POINTS) -> np.ndarray:
    if len(idx) <= max_points:
        return idx
    step = np.linspace(0, len(idx) - 1, max_points).astype(int)
    return np.unique(np.r_[idx[step], keep])


# --------------------------------------------------------------------------- share of cases acted on


def share_points(c: ValueCurve) -> np.ndarray:
    """Share of cases acted on at each point of ``c`` (the same shape as ``c.thresholds``):
    (TP + FP) / all cases, 0 at the first point (+inf: act on no one), 1 at the last."""
    total = float(c.tp[-1] + c.fp[-1])  # the last point acts on everyone: every case is TP or FP
    if not total > 0:
        return np.full(len(c.thresholds), np.nan)
    return (c.tp + c.fp) / total


def _acted(c: ValueCurve, t: np.ndarray) -> tuple[np.ndarray, float]:
    """(weight acted on at each threshold in ``t``, all weight) of ``c``.

    The point a threshold selects follows :class:`~evalcore.ValueCurve`: point i stands for
    every t in (thresholds[i+1], thresholds[i]], i.e. i = the number of distinct scores ≥ t
    (0 for +inf, every score for -inf); vectorised, as a heatmap asks for many thresholds."""
    acted = c.tp + c.fp
    idx = np.searchsorted(-c.thresholds[1:], -t, side="right")
    return np.where(np.isnan(t), np.nan, acted[np.minimum(idx, len(acted) - 1)]), float(acted[-1])


def share_at(curves, t):
    """Share of all cases acted on at threshold(s) ``t`` (a float or an array), over one curve or
    several disjoint ones (the segments of a heatmap: their acted-on weights and totals add up)."""
    if isinstance(curves, ValueCurve):
        curves = (curves,)
    ts = np.asarray(t, dtype=float)
    acted, total = np.zeros(ts.shape), 0.0
    for c in curves:
        a, n = _acted(c, ts)
        acted, total = acted + a, total + n
    out = acted / total if total > 0 else np.full(ts.shape, np.nan)
    return float(out) if out.ndim == 0 else out


def _where(th: float, share: float | None = None, locale: str = "en") -> str:
    """ "score ≥ 0.0412 · acts on 12.3% of cases" for a hover or legend."""
    if th == np.inf:
        return t("acts on no one", locale)
    text = t("score ≥ {t}", locale, t=fmt.score(th))
    return text if share is None else t("{where} · acts on {share} of cases", locale, where=text, share=fmt.share(share))


# --------------------------------------------------------------------------- the curve


def value_curve_figure(
    curves: dict[str, ValueCurve],
    deployed: dict[str, float],
    *,
    unit: str = "",
    bands: dict | None = None,
    height: int = 460,
    log_x: bool = False,
    axis: str = "score",
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
    max_points: int = MAX_POINTS,
) -> go.Figure:
    """EV per decision against the threshold (or the share of cases acted on) for each model,
    with optimum, deployed and Bayes thresholds, act-on-everyone/no-one lines and the flatness band.

    Parameters
    ----------
    curves : dict of str to ValueCurve
    deployed : dict of str to float
        Model -> deployed threshold (a dashed line and a ring on the curve).
    unit : str
    bands : dict, default=None
        Model -> (grid, low, high[, level]), a bootstrap CI band of the curve.
    log_x : bool, default=False
        A log x axis (rare positives: the decision is made at small scores / small shares);
        its ticks are round decades or 1-2-5 values, never log minor labels.
    axis : {"score", "share"}, default="score"
        "score": x is the threshold t. "share": x is the share of cases acted on at each
        point (each model on its own counts), the threshold in the hover and legend.
    font_size : int, default=13
        Tick labels, legend and hover; annotations slightly smaller.
    lens : Lens, default=None
        None or value: EV per decision, gains positive. Loss: the threshold–loss curve, every
        y (curve, band, optimum, deployed ring, act-on-everyone/no-one lines) is the expected
        loss −EV; the optimum star marks the same threshold (lowest loss).
    max_points : int, default=MAX_POINTS
        Points drawn per curve (evenly thinned, the optimum always kept); every number in
        hovers, markers and lines stays exact.
    """
    _check_axis(axis)
    share_axis = axis == "share"
    lens = lens_of(lens)
    loss = lens.loss
    L = lens.locale
    what = t("expected loss", L) if loss else "EV"  # the hover's name of the number

    def money(v) -> str:  # a level: signed under value (as before), plain under loss (positive = lost)
        return fmt.money(lens.amount(v), unit, signed=not loss, locale=L)

    fig = go.Figure()
    xs_all = []
    bayes_lines: list = []  # (x, colour, label) of each model's Bayes threshold t*
    # curves of one model under two tables share their points: each point worded once
    where_text = functools.cache(lambda th, s: _where(th, s, L))

    for j, (name, c) in enumerate(curves.items()):
        color = PALETTE[j % len(PALETTE)]
        shares = share_points(c)
        if share_axis:
            # act on no one (share 0) is a point of the share axis; on a log axis it cannot be drawn
            pts = np.flatnonzero(np.isfinite(shares) & ((shares > 0) if log_x else True))
            x_of = shares
        else:
            pts = np.arange(1, len(c.thresholds))  # drop +inf (act on no one: drawn as a line)
            x_of = c.thresholds
        if len(pts) == 0:
            continue
        keep = [int(pts[np.argmax(c.ev[pts])])]
        idx = _thin(pts, keep, max_points)

        def x_at(t: float, c=c) -> float:
            return share_at(c, t) if share_axis else t

        if bands and name in bands:
            g, lo, hi = (np.asarray(a, dtype=float) for a in bands[name][:3])
            lo, hi = lens.interval(lo, hi)
            level = bands[name][3] if len(bands[name]) > 3 else None
            ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(g)
            gx = share_at(c, g[ok]) if share_axis else g[ok]
            fig.add_trace(
                go.Scatter(
                    x=np.r_[gx, gx[::-1]],
                    y=np.r_[hi[ok], lo[ok][::-1]],
                    fill="toself",
                    line=dict(width=0),
                    fillcolor=color,
                    opacity=0.15,
                    hoverinfo="skip",
                    name=f"{name}: "
                    + (
                        t("bootstrap band (pointwise)", L)
                        if level is None
                        else t("{level} bootstrap band (pointwise)", L, level=fmt.share(level, 0))
                    ),
                )
            )
        hover = np.array([[where_text(c.thresholds[i], shares[i]), money(c.ev[i])] for i in idx], dtype=object).reshape(-1, 2)
        fig.add_trace(
            go.Scatter(
                x=x_of[idx],
                y=lens.amount(c.ev[idx]),
                mode="lines",
                line=dict(color=color, width=2.5, shape="linear" if share_axis else "vh"),
                name=t("{name}: {curve}", L, name=name, curve=lens.series),
                customdata=hover,
                hovertemplate="%{customdata[0]}<br>" + what + " %{customdata[1]}<extra>" + name + "</extra>",
            )
        )
        xs_all.append(x_of[idx])
        if c.score_kind == "decision":
            continue
        if np.isfinite(c.t_opt):
            lo_t, hi_t = c.t_opt_interval
            s_opt = share_at(c, c.t_opt)
            where = (
                t("acts on {share}, t = {t}", L, share=fmt.share(s_opt), t=fmt.score(c.t_opt))
                if share_axis
                else f"t={fmt.score(c.t_opt)}"
            )
            fig.add_trace(
                go.Scatter(
                    x=[x_at(c.t_opt)],
                    y=[lens.amount(c.ev_opt)],
                    mode="markers",
                    marker=dict(size=14, color=color, symbol="star", line=dict(color="black", width=0.5)),
                    name=t("{model}: optimum {where}", L, model=name, where=where),
                    customdata=[[fmt.score(lo_t), fmt.score(hi_t), fmt.share(s_opt), money(c.ev_opt)]],
                    hovertemplate=(t("lowest loss", L) if loss else t("optimum", L))
                    + t(": t in (%{customdata[0]}, %{customdata[1]}], acts on %{customdata[2]} of cases", L)
                    + "<br>"
                    + what
                    + " %{customdata[3]}<extra>"
                    + name
                    + "</extra>",
                )
            )
            f_lo, f_hi = c.flatness
            if np.isfinite(f_lo) and np.isfinite(f_hi) and f_hi > f_lo:
                if share_axis:  # thresholds in (f_lo, f_hi] act on these shares
                    x0, x1 = share_at(c, f_hi), share_at(c, float(np.nextafter(f_lo, np.inf)))
                    span = t(
                        "acting on {lo}–{hi} (t in [{t_lo}, {t_hi}])",
                        L,
                        lo=fmt.share(x0),
                        hi=fmt.share(x1),
                        t_lo=fmt.score(f_lo),
                        t_hi=fmt.score(f_hi),
                    )
                else:
                    x0, x1 = f_lo, f_hi
                    span = t("t in [{t_lo}, {t_hi}]", L, t_lo=fmt.score(f_lo), t_hi=fmt.score(f_hi))
                fig.add_vrect(x0=x0, x1=x1, fillcolor=color, opacity=0.10, line_width=0)
                fig.add_trace(
                    go.Scatter(
                        x=[None],
                        y=[None],
                        mode="markers",
                        marker=dict(symbol="square", size=12, color=color, opacity=0.25),
                        name=t(
                            "{model}: expected loss within {tol} of its lowest for {span}",
                            L,
                            model=name,
                            tol=fmt.share(c.flat_tol, 0),
                            span=span,
                        )
                        if loss
                        else t(
                            "{model}: EV within {tol} of optimum for {span}",
                            L,
                            model=name,
                            tol=fmt.share(c.flat_tol, 0),
                            span=span,
                        ),
                    )
                )
        t_dep = deployed.get(name)
        if t_dep is not None:
            s_dep = share_at(c, t_dep)
            fig.add_vline(x=x_at(t_dep), line=dict(color=color, dash="dash", width=1.5))
            fig.add_trace(
                go.Scatter(
                    x=[x_at(t_dep)],
                    y=[lens.amount(c.ev_at(t_dep))],
                    mode="lines+markers",  # the legend shows the dashed line with the ring
                    line=dict(color=color, dash="dash", width=1.5),
                    marker=dict(size=10, color=color, symbol="circle-open", line=dict(width=2)),
                    name=t("{model}: deployed t={t}", L, model=name, t=fmt.score(t_dep))
                    + (t(" (acts on {share})", L, share=fmt.share(s_dep)) if share_axis else ""),
                    customdata=[[_where(t_dep, s_dep, L), money(c.ev_at(t_dep))]],
                    hovertemplate=t("deployed", L)
                    + ": %{customdata[0]}<br>"
                    + what
                    + " %{customdata[1]}<extra>"
                    + name
                    + "</extra>",
                )
            )
        if np.isfinite(c.bayes_threshold):
            # drawn after the loop, when the x range is known: its label goes where no other label is
            bayes_lines.append((x_at(c.bayes_threshold), color, f"t* {fmt.score(c.bayes_threshold)}"))
    focus = focus_range(*_decisive_heights(curves, deployed, bands, lens))
    if curves:
        # acting on everyone / no one does not depend on the model: one pair of reference lines
        c = next(iter(curves.values()))
        # each label at the end of the axis away from where the curves reach its line, on the side
        # of the line away from the curves (under loss the curves are mirrored: the other side)
        below, above = ("top", "bottom") if loss else ("bottom", "top")
        for ev, dash, label, place in (
            (c.ev_all, "longdash", N_("act on everyone: {ev}"), f"{below} left" if share_axis else f"{below} right"),
            (c.ev_none, "dashdot", N_("act on no one: {ev}"), f"{above} right" if share_axis else f"{above} left"),
        ):
            y, text = lens.amount(ev), t(label, L, ev=money(ev))
            line = dict(color="#555", dash=dash, width=1)
            if focus is None or focus[0] <= y <= focus[1]:
                fig.add_hline(
                    y=y, line=line, annotation_text=text, annotation_position=place, annotation_font_size=small(font_size)
                )
                continue
            # the axis shows the decision and this line is off the chart: its value at the edge it lies
            # beyond, at the end of the axis where the curves run towards it (there the plot is empty)
            fig.add_hline(y=y, line=line)
            high, right = y > focus[1], not place.endswith("right")
            fig.add_annotation(
                text=t(N_("{reference} (above the chart)") if high else N_("{reference} (below the chart)"), L, reference=text),
                xref="paper",
                yref="paper",
                x=0.99 if right else 0.01,
                xanchor="right" if right else "left",
                y=1 if high else 0,
                yanchor="top" if high else "bottom",
                showarrow=False,
                font=dict(size=small(font_size), color="#555"),
                bgcolor="rgba(255,255,255,0.8)",
            )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        hovermode="x" if not share_axis else "closest",
        xaxis_title=t(SHARE_TITLE if share_axis else SCORE_TITLE, L) + (t(LOG_SCALE, L) if log_x else ""),
        yaxis_title=quantity_title(lens, unit, br="<br>")
        if loss
        else (t("VALUE per decision ({unit})", L, unit=unit) if unit else t("VALUE per decision (gains positive)", L)),
        legend=dict(orientation="h", y=-0.2),
        uirevision="curve",
    )
    fig.update_yaxes(**plain_numbers())
    xs = np.concatenate(xs_all) if xs_all else np.array([])
    xs = xs[np.isfinite(xs) & ((xs > 0) if log_x else True)]
    first = {}  # one value table: the same t* for every model, labelled once (at its first line)
    for i, (xb, _, label) in enumerate(bayes_lines):
        first.setdefault(label, (i, xb))
    # the act-on-no-one label is at the left end of its line on the score axis, the right end on the share axis
    ref = next(iter(curves.values()), None)
    y_none, y_all = (lens.amount(ref.ev_none), lens.amount(ref.ev_all)) if ref is not None else (np.nan, np.nan)
    ys = [lens.amount(float(y)) for c in curves.values() if len(c.ev) for y in (np.nanmin(c.ev), np.nanmax(c.ev))]
    left_y, right_y = (y_all, y_none) if share_axis else (y_none, y_all)
    if focus is not None:
        fig.update_yaxes(range=list(focus))  # plotly's Autoscale (toolbar) still shows every value
        ys = list(focus)
        if not focus[0] <= y_all <= focus[1]:  # (acting on no one is always on a focused chart)
            # its note is at the chart's edge, at the end of the axis where acting on no one is labelled
            edge = focus[0] if y_all < focus[0] else focus[1]
            left_y, right_y = (np.nan, edge) if share_axis else (edge, np.nan)
    places = bayes_label_places(
        [xb for _, xb in first.values()], [xs.min(), xs.max()] if len(xs) else [], ys, left_y, right_y, log_x=log_x
    )
    notes = {
        i: dict(annotation_text=label, annotation_position=place, annotation_font_size=small(font_size))
        # plotly places an annotation on a log axis at 10^x: its x is given as log10
        | (dict(annotation=dict(x=float(np.log10(xb)))) if log_x and xb > 0 else {})
        for (label, (i, xb)), place in zip(first.items(), places)
    }
    for i, (xb, color, _) in enumerate(bayes_lines):
        fig.add_vline(x=xb, line=dict(color=color, dash="dot", width=1.5), **notes.get(i, {}))
    if log_x:
        fig.update_xaxes(type="log")
        if len(xs):
            set_ticks(fig.update_xaxes, log_ticks(xs.min(), xs.max()), share_ticks if share_axis else log_number_ticks)
    elif share_axis:
        fig.update_xaxes(tickformat="~%")  # follows zoom; plain percentages
    else:
        fig.update_xaxes(**plain_numbers())
    return apply_font(fig, font_size)


def _decisive_heights(curves, deployed, bands, lens) -> tuple[list, list]:
    """(key, every) for :func:`focus_range`, as drawn (under ``lens``): each model's optimum, its
    deployed value and its band at the optimum, and acting on no one; every value a curve reaches."""
    key, every = [], []
    for name, c in curves.items():
        if not len(c.ev):
            continue
        every += [float(np.nanmin(c.ev)), float(np.nanmax(c.ev)), c.ev_all, c.ev_none]
        key.append(c.ev_none)
        if deployed.get(name) is not None:
            key.append(c.ev_at(deployed[name]))
        if c.score_kind == "decision" or not np.isfinite(c.t_opt):
            continue
        key.append(c.ev_opt)
        if bands and name in bands:
            g, lo, hi = (np.asarray(a, dtype=float) for a in bands[name][:3])
            ok = np.isfinite(g) & np.isfinite(lo) & np.isfinite(hi)
            if ok.any():
                at = int(np.argmin(np.abs(g[ok] - c.t_opt)))
                key += [lo[ok][at], hi[ok][at]]
    return [lens.amount(float(v)) for v in key], [lens.amount(float(v)) for v in every]


#: The y axis zooms to the decision when the points that decide would fill less than this share of
#: a chart scaled to every curve (a weak model or acting on everyone far below the optimum).
FOCUS_SHARE = 0.25


def focus_range(key, every) -> tuple[float, float] | None:
    """The y range of a value curve that shows the decision, or None to show every value.

    ``key`` are the heights that decide (each model's optimum and deployed value, acting on no one,
    the band at the optimum); ``every`` all heights the curves reach. When the key heights would take
    less than :data:`FOCUS_SHARE` of an axis scaled to ``every`` (the curves fall far below the
    optimum, squashing the models' differences into a line), the axis spans the key heights with
    three quarters of their spread as margin either side (5% of their size when they coincide), so
    the differences that decide are readable. Undefined heights are ignored.

    Examples
    --------
    >>> focus_range([-281.7, -271.1, -229.0], [-2806.0, -229.0])   # demo: optimum 50 EUR apart, 2,577 tall
    (-321.225, -189.475)
    >>> focus_range([-281.7, -229.0], [-400.0, -229.0]) is None      # the curves stay near: all of them
    True
    """
    k = np.asarray([v for v in key if np.isfinite(v)], dtype=float)
    e = np.asarray([v for v in every if np.isfinite(v)], dtype=float)
    if not len(k) or not len(e):
        return None
    lo, hi = min(k.min(), e.min()), max(k.max(), e.max())
    k_lo, k_hi = k.min(), k.max()
    spread = k_hi - k_lo
    if not hi > lo or spread > FOCUS_SHARE * (hi - lo):
        return None
    pad = 0.75 * spread if spread > 0 else 0.05 * max(abs(k_lo), abs(k_hi), (hi - lo) / 20)
    f_lo, f_hi = k_lo - pad, k_hi + pad
    return (float(round(f_lo, 9)), float(round(f_hi, 9))) if f_hi - f_lo < hi - lo else None


def bayes_label_places(xs_t, x_span, ys, left_y: float, right_y: float, *, log_x: bool = False) -> list:
    """Where each t* line's label goes (a plotly ``annotation_position``), so that it meets neither
    the act-on-everyone/no-one labels nor another t* label.

    Those two labels sit at the ends of their lines: ``left_y`` is the height of the one at the
    left end of the plot, ``right_y`` of the one at the right. A t* label goes to the top or the
    bottom of its line, whichever is farther from the label in its half of the x range (``x_span``,
    log-scaled when ``log_x``; ``ys`` are the heights the plot spans). Its text runs right of the
    line, or left when the line is in the last fifth of the range (it would run off the plot) or
    is the lower of two distinct t* lines (the two texts then run apart).

    Examples
    --------
    >>> bayes_label_places([0.08], [0.0, 1.0], [-2800, -270], -281, -2806)   # "no one" high on the left
    ['bottom right']
    >>> bayes_label_places([0.6], [0.0, 1.0], [-2800, -270], -281, -2806)    # "everyone" low on the right
    ['top right']
    >>> bayes_label_places([0.3, 0.35], [0.0, 1.0], [0, 10], 2, 9)
    ['top left', 'top right']
    """
    xs_t = [float(x) for x in xs_t]
    if not xs_t:
        return []
    scale = np.log10 if log_x else (lambda v: v)
    xs_ok = [float(scale(x)) for x in [*x_span, *xs_t] if np.isfinite(x) and (x > 0 or not log_x)]
    x_lo, x_hi = (min(xs_ok), max(xs_ok)) if xs_ok else (0.0, 1.0)
    ys_ok = [float(y) for y in [*ys, left_y, right_y] if np.isfinite(y)]
    y_lo, y_hi = (min(ys_ok), max(ys_ok)) if ys_ok else (0.0, 1.0)
    distinct = sorted(set(xs_t))
    out = []
    for x in xs_t:
        f = (float(scale(x)) - x_lo) / (x_hi - x_lo) if x_hi > x_lo and (x > 0 or not log_x) else 0.5
        other = left_y if f < 0.5 else right_y  # the act-on label in this half of the plot
        high = np.isfinite(other) and y_hi > y_lo and (other - y_lo) / (y_hi - y_lo) > 0.5
        v = "bottom" if high else "top"
        h = "left" if f > 0.8 or (len(distinct) > 1 and x == distinct[0]) else "right"  # runs apart from the other
        out.append(f"{v} {h}")
    return out


# --------------------------------------------------------------------------- the heatmap


def heatmap_column(segments, column: str | None = None) -> str:
    """The segment column a heatmap shows.

    ``column`` when given (it must be one of ``segments``); None: the first column of
    ``segments`` (the data's order of segment columns).

    Raises
    ------
    InputError
        ``column`` is not one of the segment columns (the message lists them), or there
        are none.
    """
    names = [str(k) for k in segments]
    if not names:
        raise InputError("no segment columns: the heatmap needs at least one (map one on the Upload page).")
    if column is None:
        return names[0]
    if column not in segments:
        raise InputError(
            f"segment column {column!r} is not one of this board's segment columns ({', '.join(map(repr, names))}); "
            "pass one of them, or None for the first."
        )
    return column


def _pick(segments, column: str | None) -> SegmentCurves:
    if isinstance(segments, SegmentCurves):
        if column is not None and column != segments.column:
            raise InputError(
                f"segment column {column!r} asked for, but these curves are of {segments.column!r}; "
                "pass the dict of every column's SegmentCurves (BoardResult.models[m].segments) to choose."
            )
        return segments
    return segments[heatmap_column(segments, column)]


def _is_geometric(g: np.ndarray) -> bool:
    return len(g) > 2 and g[0] > 0 and bool(np.allclose(np.diff(np.log(g)), np.log(g[1] / g[0])))


def colour_scale(z, *, loss: bool = False) -> dict:
    """Heatmap colours fitted to the data in ``z``.

    - values on both sides of 0: diverging, red (losses) – white at 0 – blue (gains); each side
      reaches its full colour at its own extreme, the weaker side at no less than a quarter of
      the stronger (a small gain is not painted as strongly as a large loss);
    - all ≤ 0: sequential over the data's range, light (least bad) → dark red (worst);
    - all ≥ 0: sequential, light → dark blue (best).

    ``loss=True``: ``z`` is expected loss (positive = money lost), and the colours mean the same
    money as for the value −z: red is a loss (now positive: more loss = darker red), blue a
    gain; the scale is the value scale of −z mirrored (positions 1 − p, zmin/zmax = −zmax/−zmin),
    so it still spans the data's own range.

    Returns the ``go.Heatmap`` keyword arguments ``colorscale``, ``zmin``, ``zmax`` and the kind
    ("diverging", "losses", "gains" or "constant": of the money, whichever sign shows it).
    """
    if loss:
        cs = colour_scale(-np.asarray(z, dtype=float))
        scale = cs["colorscale"]
        if not isinstance(scale, str):  # a named scale is only the grey of no data
            scale = [[1 - p, c] for p, c in reversed(scale)]
        return dict(cs, colorscale=scale, zmin=-cs["zmax"], zmax=-cs["zmin"])
    z = np.asarray(z, dtype=float)
    fin = z[np.isfinite(z)]
    if fin.size == 0:
        return dict(colorscale="Greys", zmin=-1.0, zmax=1.0, kind="constant")
    lo, hi = float(fin.min()), float(fin.max())
    if lo == hi:
        pad = max(abs(lo), 1.0) * 0.01
        reds = lo < 0
        scale = [[0, "#E8A39A" if reds else "#9EC3E6"], [1, "#E8A39A" if reds else "#9EC3E6"]]
        return dict(colorscale=scale, zmin=lo - pad, zmax=hi + pad, kind="constant")
    if lo < 0 < hi:
        big = max(-lo, hi)
        zmin, zmax = -max(-lo, 0.25 * big), max(hi, 0.25 * big)
        mid = -zmin / (zmax - zmin)
        scale = [[0.0, "#67001F"], [mid * 0.5, "#D6604D"], [mid, "#F7F7F7"], [mid + (1 - mid) * 0.5, "#4393C3"], [1.0, "#053061"]]
        return dict(colorscale=scale, zmin=zmin, zmax=zmax, kind="diverging")
    if hi <= 0:
        return dict(
            colorscale=[[0.0, "#67000D"], [0.35, "#CB181D"], [0.7, "#FB6A4A"], [1.0, "#FEE0D2"]],
            zmin=lo,
            zmax=hi,
            kind="losses",
        )
    return dict(
        colorscale=[[0.0, "#DEEBF7"], [0.3, "#9ECAE1"], [0.65, "#3182BD"], [1.0, "#08306B"]], zmin=lo, zmax=hi, kind="gains"
    )


def _colour_ticks(cs: dict) -> np.ndarray:
    """Two or three colour-bar ticks: a board heatmap's colour bar is a few lines of text tall.
    The round values nearest the ends, and 0 on a diverging scale when it is not crowded."""
    lo, hi = cs["zmin"], cs["zmax"]
    ticks = nice_ticks(lo, hi, 4)
    if len(ticks) <= 2:
        return ticks
    ends = [ticks[0], ticks[-1]]
    if cs["kind"] == "diverging" and min(-lo, hi) >= 0.25 * (hi - lo):
        ends = [ticks[0], 0.0, ticks[-1]]
    return np.array(sorted(set(ends)))


def _colour_bar_title(lens: Lens, unit: str) -> str:
    """The quantity, its unit and its sign convention in lines as narrow as the colour bar:
    "Expected loss / per decision / (EUR, / positive = / money lost)"."""
    inside = f"({unit},<br>{wrap(lens.convention, 14)})" if unit else f"({wrap(lens.convention, 14)})"
    return f"{wrap(lens.Quantity, 14)}<br>{inside}"


def _share_tick_positions(pos: np.ndarray, shares: np.ndarray, n_max: int = 7) -> tuple[list[float], list[float]]:
    """Round shares (1%, 5%, 10%, …) and where they fall on the threshold axis.

    ``pos`` are the grid positions in axis units (log10 t on a log axis), ``shares`` the share
    acted on there (non-increasing). A round share is placed by linear interpolation between
    the two grid thresholds around it (the heatmap's cells are the grid's: the hover of each
    cell has its exact share). Candidates closer than 1/(n_max+1) of the axis to a rounder
    one are left out.
    """
    ok = np.isfinite(shares) & np.isfinite(pos)
    pos, shares = pos[ok], shares[ok]
    if len(pos) < 2:
        return [], []
    order = np.argsort(shares, kind="stable")
    s_sorted, p_sorted = shares[order], pos[order]
    s_unique, first = np.unique(s_sorted, return_index=True)  # a flat stretch: its first position
    p_unique = p_sorted[first]
    if len(s_unique) < 2:
        return [], []
    span = float(pos.max() - pos.min())
    rank = [1.0, 0.1, 0.01, 0.001, 0.5, 0.05, 0.005, 0.2, 0.02, 0.002, 0.3, 0.03, 0.7, 0.9, 0.003]
    picked_p, picked_s = [], []
    for s in rank:
        if not (s_unique[0] <= s <= s_unique[-1]):
            continue
        p = float(np.interp(s, s_unique, p_unique))
        if all(abs(p - q) >= span / (n_max + 1) for q in picked_p):
            picked_p.append(p)
            picked_s.append(s)
    order = np.argsort(picked_p)
    return [picked_p[i] for i in order], [picked_s[i] for i in order]


def segment_heatmap_figure(
    segments,
    *,
    column: str | None = None,
    unit: str = "",
    height: int = 360,
    axis: str = "share",
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
) -> go.Figure:
    """Threshold × segment heatmap of EV per decision, each segment's optimum marked.

    Parameters
    ----------
    segments : SegmentCurves, or dict of str to SegmentCurves
        One column's curves, or every column's (``BoardResult.models[m].segments``), of which
        ``column`` is drawn.
    column : str, default=None
        The segment column to show (e.g. the one the verdict talks about); None: the first
        (see :func:`heatmap_column`). A column that is not there raises ``InputError``.
    unit : str
    axis : {"share", "score"}, default="share"
        "share": the x axis reads the share of all cases acted on (over every segment), the
        score threshold is in the hover and the deployed line's legend entry; share grows to
        the right. "score": the threshold t. The cells are the grid's thresholds either way.
    font_size : int, default=13
        Tick labels, legend, colour bar and hover follow it.
    lens : Lens, default=None
        None or value: EV per decision. Loss: the cells, hovers and colour bar are expected
        loss (−EV, positive = money lost), coloured by :func:`colour_scale` ``(loss=True)``;
        the stars stay at each segment's best (value-maximising = loss-minimising) threshold.

    Returns
    -------
    go.Figure
        Traces: the heatmap (x = the grid thresholds, z = EV), ``OPTIMUM_NAME`` (stars at each
        segment's exact optimum inside the grid) and ``DEPLOYED_NAME`` (the legend entry of
        the dashed deployed line). The colour scale is :func:`colour_scale` of the cells.
    """
    _check_axis(axis)
    lens = lens_of(lens)
    loss = lens.loss
    L = lens.locale
    what = t("expected loss", L) if loss else "EV"
    seg = _pick(segments, column)
    labels = [f"{lv} (n={fmt.count(n)})" for lv, n in zip(seg.levels, seg.n)]
    z = lens.amount(np.asarray(seg.ev, dtype=float))
    g = np.asarray(seg.grid, dtype=float)
    curves = seg.curves
    share_all = share_at(curves, g)
    share_own = np.array([share_at(c, g) for c in curves]).reshape(len(curves), len(g))
    hover = [
        [
            f"{seg.column} = {lv}<br>"
            + t(
                "score ≥ {t}: acts on {all} of all cases ({own} of this segment)<br>{what} {ev} per decision",
                L,
                t=fmt.score(th),
                all=fmt.share(share_all[j]),
                own=fmt.share(share_own[i, j]),
                what=what,
                ev=fmt.money(z[i, j], unit, signed=not loss, locale=L),
            )
            for j, th in enumerate(g)
        ]
        for i, lv in enumerate(seg.levels)
    ]
    cs = colour_scale(z, loss=loss)
    ticks = _colour_ticks(cs)
    fig = go.Figure(
        go.Heatmap(
            x=g,
            y=labels,
            z=z,
            colorscale=cs["colorscale"],
            zmin=cs["zmin"],
            zmax=cs["zmax"],
            colorbar=dict(
                # per decision: the figure's title; under loss the words, wrapped to the bar's width
                title=dict(text=_colour_bar_title(lens, unit) if loss else (f"EV ({unit})" if unit else "EV")),
                tickmode="array",
                tickvals=list(ticks),
                ticktext=money_ticks(ticks, signed=cs["kind"] == "diverging", locale=L),
                thickness=14,
            ),
            text=hover,
            hovertemplate="%{text}<extra></extra>",
            name=lens.Quantity if loss else t("EV per decision", L),
        )
    )
    ok = np.isfinite(seg.t_opt) & (seg.t_opt <= g.max()) & (seg.t_opt >= g.min())
    star_hover = [
        t(
            "{level}: best at score ≥ {t} (acts on {share} of all cases)<br>{what} {ev} per decision",
            L,
            level=lv,
            t=fmt.score(th),
            share=fmt.share(share_at(curves, th)),
            what=what,
            ev=fmt.money(lens.amount(ev), unit, signed=not loss, locale=L),
        )
        for lv, th, ev, keep in zip(seg.levels, seg.t_opt, seg.ev_opt, ok)
        if keep
    ]
    fig.add_trace(
        go.Scatter(
            x=seg.t_opt[ok],
            y=np.array(labels)[ok],
            mode="markers",
            marker=STAR,
            name=t(OPTIMUM_NAME, L),
            text=star_hover,
            hovertemplate="%{text}<extra></extra>",
        )
    )
    dep = float(seg.deployed)
    s_dep = share_at(curves, dep)
    fig.add_vline(x=dep, line=dict(color="black", dash="dash", width=2))
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line=dict(color="black", dash="dash", width=2),
            name=t(
                "{deployed}: score ≥ {t} ({share} acted on)",
                L,
                deployed=t(DEPLOYED_NAME, L),
                t=fmt.score(dep),
                share=fmt.share(s_dep),
            ),
            hoverinfo="skip",
        )
    )
    geometric = _is_geometric(g)
    if geometric:
        fig.update_xaxes(type="log")
    pos = np.log10(g) if geometric else g
    lo_end, hi_end = float(pos[0]), float(pos[-1])
    if axis == "share":
        tick_pos, tick_share = _share_tick_positions(pos, share_all)
        vals = [10**p for p in tick_pos] if geometric else tick_pos
        set_ticks(fig.update_xaxes, vals, share_ticks(tick_share))
        fig.update_xaxes(range=[hi_end, lo_end], title=t(SHARE_TITLE, L))  # share grows to the right
    else:
        if geometric:
            set_ticks(fig.update_xaxes, log_ticks(g[0], g[-1]), log_number_ticks)
        else:
            set_ticks(fig.update_xaxes, nice_ticks(g[0], g[-1], 5), number_ticks)
        fig.update_xaxes(range=[lo_end, hi_end], title=t(SCORE_TITLE, L) + (t(LOG_SCALE, L) if geometric else ""))
    fig.update_yaxes(automargin=True)  # the column is named in the title (a rotated axis title does not fit a board row)
    fig.update_layout(
        title=dict(
            text=t(
                "{quantity} by {column} ({convention})", L, quantity=lens.Quantity, column=seg.column, convention=lens.convention
            )
            if loss
            else t("EV per decision by {column}", L, column=seg.column),
            font=dict(size=title_size(font_size)),
        ),
        height=height,
        margin=dict(l=10, r=10, t=round(2.4 * font_size) + 6, b=10),
        showlegend=True,
        # the legend at the figure's foot, under the axis title whatever the plot's height
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
    )
    fig.update_xaxes(automargin=True)
    return apply_font(fig, font_size)


# --------------------------------------------------------------------------- waterfalls


def _fitted_range(levels, *, pad: float = 0.2, keep_zero_share: float = 2 / 3) -> tuple[tuple[float, float], bool]:
    """The y range of a waterfall: every cumulative level (bar end) with ``pad`` of their span on
    each side for the labels. 0 is kept in view unless that would squeeze the bars' own span
    below ``keep_zero_share`` of the axis (then the axis does not start at 0; returns False)."""
    v = np.asarray([x for x in levels if np.isfinite(x)], dtype=float)
    if v.size == 0:
        return (-1.0, 1.0), True
    lo, hi = float(v.min()), float(v.max())
    span = hi - lo
    with_zero = (min(lo, 0.0), max(hi, 0.0))
    zero_in = span >= keep_zero_share * (with_zero[1] - with_zero[0]) or span == 0
    a, b = with_zero if zero_in else (lo, hi)
    p = pad * (b - a) if b > a else max(abs(b), 1.0) * pad
    return (a - p, b + p), zero_in


def _waterfall(x, y, measure, levels, *, unit, title, height, font_size, hover_names, lens: Lens) -> go.Figure:
    """A waterfall of ``y`` as displayed (value, or loss under the loss lens). Green is good
    money, red bad: under value a rise is a gain, under loss a rise is more money lost."""
    up, down = (COST, GAIN) if lens.loss else (GAIN, COST)
    L = lens.locale
    texts = [fmt.money(v, unit, signed=m == "relative", locale=L) for v, m in zip(y, measure)]
    bar_texts = [fmt.money(v, "", signed=m == "relative", locale=L) for v, m in zip(y, measure)]  # the unit: axis title
    fig = go.Figure(
        go.Waterfall(
            x=x,
            y=y,
            measure=measure,
            text=bar_texts,
            textposition="outside",
            constraintext="none",  # labels keep the font size (plotly shrinks them to the bar otherwise)
            cliponaxis=False,
            customdata=[[n, t] for n, t in zip(hover_names, texts)],
            hovertemplate="%{customdata[0]}: %{customdata[1]}<extra></extra>",
            increasing=dict(marker=dict(color=up)),
            decreasing=dict(marker=dict(color=down)),
            totals=dict(marker=dict(color=TOTAL)),
            connector=dict(line=dict(color="#888")),
        )
    )
    (y0, y1), zero_in = _fitted_range(levels)
    ticks = nice_ticks(y0, y1, 4)
    if lens.loss:
        ytitle = quantity_title(lens, unit, br="<br>")
    else:
        ytitle = t("{unit} per decision", L, unit=unit) if unit else t("value per decision", L)
    if not zero_in:
        ytitle += "<br>" + t("(axis not from 0)", L)
    fig.update_yaxes(range=[y0, y1], title=dict(text=ytitle, font=dict(size=small(font_size))), automargin=True)
    set_ticks(fig.update_yaxes, ticks, lambda v: money_ticks(v, locale=L))
    fig.update_xaxes(automargin=True, type="category", tickangle=0)
    fig.update_layout(
        title=dict(text=title, font=dict(size=title_size(font_size))) if title else None,
        height=height,
        margin=dict(l=10, r=10, t=(40 if title else 24), b=10),
        showlegend=False,
    )
    return apply_font(fig, font_size)


def totals_in_ticks(fig: go.Figure, *, split_names: bool = False) -> go.Figure:
    """A waterfall for a narrow chart (the board's half or third of a 1366-px screen): each total's
    number moves from beside its bar into its category label, in bold, so it cannot run into the
    neighbouring delta's number ("-0.132-271.8"); ``split_names`` also puts the model's name on a
    line of its own ("EV" / "old"). The categories (``x``) are unchanged; ``fig`` is changed and returned.
    """
    wf = fig.data[0]
    cats, measure, text = list(wf.x), list(wf.measure), list(wf.text)
    ticks = [x.replace(" ", "<br>", 1) if split_names and m != "relative" else x for x, m in zip(cats, measure)]
    ticks = [f"{x}<br><b>{s}</b>" if m != "relative" else x for x, m, s in zip(ticks, measure, text)]
    wf.update(text=[s if m == "relative" else "" for s, m in zip(text, measure)])
    fig.update_xaxes(tickvals=cats, ticktext=ticks)
    return fig


def attribution_figure(
    terms: dict[str, float],
    *,
    unit: str = "",
    title: str = "",
    height: int = 320,
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
) -> go.Figure:
    """Value waterfall: the TP, FP, FN, TN terms → net EV per decision.

    The y range is fitted to the bars' ends (from 0, as the terms start there) with room for
    the labels; category labels get the margin they need. Under the loss ``lens`` each bar is
    the term's part of the expected loss (−term: a TP term that earns money lowers the loss)
    and the last bar the expected loss (−net EV); rises (more loss) are red.
    """
    lens = lens_of(lens)
    labels = [CELL_LABELS[c] for c in CELLS]
    values = [lens.amount(float(terms[c])) if lens.loss else terms[c] for c in CELLS]
    net = float(sum(values))
    levels = np.r_[0.0, np.cumsum(values)]
    last = t("expected loss", lens.locale) if lens.loss else t("net EV", lens.locale)
    return _waterfall(
        labels + [last],
        values + [net],
        ["relative"] * 4 + ["total"],
        levels,
        unit=unit,
        title=title,
        height=height,
        font_size=font_size,
        hover_names=[t("{cell}: its part of the expected loss", lens.locale, cell=lb) for lb in labels] + [last]
        if lens.loss
        else labels + [last],
        lens=lens,
    )


def delta_waterfall_figure(
    terms_a: dict[str, float],
    terms_b: dict[str, float],
    *,
    names=("A", "B"),
    unit: str = "",
    height: int = 320,
    title: str = "",
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
) -> go.Figure:
    """Where the money moved from model A to B: per outcome, (count_B − count_A) × amount / N.

    The y range is fitted to the running total (EV A, after each Δ, EV B) with room for the
    labels, so small deltas between two large EVs are visible; when 0 is left out of view,
    the figure says "axis does not start at 0". Under the loss ``lens`` the bars run from the
    expected loss of A to that of B and each Δ is the change in loss from that outcome (−Δ of
    its value term: negative = B loses less there); rises (more loss) are red.
    """
    lens = lens_of(lens)
    loss = lens.loss
    a, b = names
    deltas = [terms_b[c] - terms_a[c] for c in CELLS]
    start = float(sum(terms_a.values()))
    end = float(sum(terms_b.values()))
    if loss:
        deltas = [lens.amount(float(d)) for d in deltas]
        start, end = lens.amount(start), lens.amount(end)
    levels = np.r_[start, start + np.cumsum(deltas), end]
    k = category_chars(6, font_size)  # a long model name wraps instead of tilting into the margin
    L = lens.locale
    total = t("loss", L) if loss else "EV"
    x = [wrap(f"{total} {a}", k)] + [f"Δ{CELL_LABELS[c]}" for c in CELLS] + [wrap(f"{total} {b}", k)]
    if loss:
        hover = (
            [t("expected loss {model}", L, model=a)]
            + [t("change in loss from the {cell} term", L, cell=CELL_LABELS[c]) for c in CELLS]
            + [t("expected loss {model}", L, model=b)]
        )
    else:
        hover = [f"EV {a}"] + [t("change in the {cell} term", L, cell=CELL_LABELS[c]) for c in CELLS] + [f"EV {b}"]
    return _waterfall(
        x,
        [start] + deltas + [end],
        ["absolute"] + ["relative"] * 4 + ["total"],
        levels,
        unit=unit,
        title=title,
        height=height,
        font_size=font_size,
        hover_names=hover,
        lens=lens,
    )


# --------------------------------------------------------------------------- the headline


def headline_figure(result, *, height: int = 300, font_size: int = FONT_SIZE, lens: Lens | None = None) -> go.Figure:
    """Module 1 of the board: EV per decision of each model with its CI, and B − A when there are two.

    Under the loss ``lens``: each model's expected loss (−EV, its CI ends swapped) and the change
    in loss B − A (= −(EV_B − EV_A): negative means B loses less), titled as expected loss,
    positive = money lost.
    """
    lens = lens_of(lens)
    loss = lens.loss
    L = lens.locale
    unit = result.table.unit
    names = list(result.models)
    rows = []
    what = t("loss", L) if loss else "EV"
    if result.comparison is not None:
        comp = result.comparison
        rows = [
            (f"{what} {comp.a} @ {fmt.score(result.models[comp.a].threshold)}", shown(comp.ev_a, lens)),
            (f"{what} {comp.b} @ {fmt.score(result.models[comp.b].threshold)}", shown(comp.ev_b, lens)),
            (f"{comp.b} − {comp.a}" + (t(" (change in loss)", L) if loss else ""), shown(comp.diff, lens)),
        ]
        sub = t(
            "{level} {method} bootstrap · {scheme} · {n} replicates · paired",
            L,
            level=fmt.share(comp.diff.level, 0),
            method=word(comp.diff.method, L),
            scheme=word(comp.scheme, L),
            n=fmt.count(comp.diff.n_resamples),
        )
    else:
        for n in names:
            m = result.models[n]
            rows.append(
                (
                    f"{what} {n} @ {fmt.score(m.threshold)}",
                    shown(
                        m.ev_ci if m.ev_ci is not None else (m.ev, float("nan"), float("nan"), t("no bootstrap was run", L)),
                        lens,
                    ),
                )
            )
        m0 = result.models[names[0]]
        sub = (
            t(
                "{level} {method} bootstrap · {scheme} · {n} replicates",
                L,
                level=fmt.share(m0.ev_ci.level, 0),
                method=word(m0.ev_ci.method, L),
                scheme=word(m0.ev_ci.scheme, L),
                n=fmt.count(m0.ev_ci.n_resamples),
            )
            if m0.ev_ci is not None
            else t("no bootstrap run", L)
        )
    fig = ci_bars_figure(
        rows,
        unit=unit,
        subtitle=sub,
        title=t("{quantity} ({convention})", L, quantity=lens.Quantity, convention=lens.convention)
        if loss
        else t("Value per decision (gains positive)", L),
        height=height,
        font_size=font_size,
        x_title=quantity_title(lens, unit)
        if loss
        else (t("value per decision ({unit})", L, unit=unit) if unit else t("value per decision", L)),
        locale=L,
    )
    fig.update_layout(margin=dict(r=20))
    return fig
