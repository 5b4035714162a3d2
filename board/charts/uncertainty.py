"""Plotly figure builders for uncertainty (SPEC §3.4): result -> go.Figure, no Streamlit, no math.

- :func:`ci_bars_figure` — horizontal CI bars for any list of intervals (EV of A, EV of B,
  the paired difference B − A, AUC, Wilson intervals of the §3.1 metrics).
- :func:`comparison_figure` — the paired comparison with its verdict and P(B better).
- :func:`metric_intervals_figure` — Wilson intervals of accuracy, precision, recall, …
- :func:`t_opt_histogram` — the bootstrap distribution of the re-optimised threshold.
- :func:`add_curve_band` — a CI band around a threshold–value curve on an existing figure.

Every figure says that it shows *value* (money gained per decision) or, under the loss
``lens`` (:class:`board.words.lens.Lens`), expected loss (positive = money lost: every EV, its
interval ends swapped, and B − A as the change in loss), the interval level, the method and
the resampling scheme. An interval that could not be formed is drawn as a
point with "interval undefined" and its reason, never as a zero-width bar.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from board.charts._style import (
    FONT_SIZE,
    PALETTE,
    apply_font,
    lens_of,
    money_ticks,
    nice_ticks,
    number_ticks,
    padded,
    plain_numbers,
    quantity_title,
    set_ticks,
    share_ticks,
    small,
    title_size,
)
from board.words import fmt
from board.words.i18n import N_, t
from board.words.lens import Lens
from board.words.reasons import undefined_reason
from board.words.vocab import word
from evalcore.bootstrap import BootstrapResult, Comparison, CurveBand, MetricIntervals, OptimumBootstrap

GREY = "#7F7F7F"
FIT_NOTE = N_("Resampling the test set: uncertainty of a fixed model on finite data, not of training.")
VALUE_FORMATS = ("money", "share", "number")


def _finite(x) -> bool:
    return x is not None and bool(np.isfinite(x))


def _fmt(x, unit: str = "", signed: bool = False, kind: str = "money", locale: str = "en") -> str:
    """One number of a CI chart through :mod:`board.words.fmt`."""
    if kind == "share":
        return fmt.share(x, 1, signed=signed)
    if kind == "number":
        return fmt.number(x, 3, signed=signed)
    return fmt.money(x, unit, signed=signed, locale=locale)


def _level_words(level: float) -> str:
    whole = _finite(level) and abs(level * 100 - round(level * 100)) < 1e-9
    return fmt.share(level, 0 if whole else 1)


def _as_interval(item) -> tuple[float, float, float, str]:
    """(estimate, low, high, why-undefined) from a BootstrapResult, a ProportionInterval or a tuple."""
    if isinstance(item, BootstrapResult):
        why = "; ".join(v for k, v in item.undefined.items() if k != "replicates")
        return item.estimate, item.low, item.high, why
    if hasattr(item, "estimate") and hasattr(item, "low"):
        return item.estimate, item.low, item.high, getattr(item, "undefined", "") or ""
    est, low, high = item[:3]
    return est, low, high, (item[3] if len(item) > 3 else "")


def shown(item, lens: Lens | None):
    """An interval of value (EV, or a difference of EVs) as ``lens`` shows it.

    None or the value lens: ``item`` itself, untouched. The loss lens: the tuple
    ``(−estimate, −high, −low, why-undefined)`` (:meth:`Lens.amount`, :meth:`Lens.interval`), which
    :func:`ci_bars_figure` takes as a row's interval. Only for money: never an AUC or a share.
    """
    if lens is None or not lens.loss:
        return item
    est, low, high, why = _as_interval(item)
    low, high = lens.interval(low, high)
    return lens.amount(est), low, high, why


def _per_decision(unit: str, locale: str) -> str:
    if unit:
        return t("value per decision ({unit})", locale, unit=unit)
    return t("value per decision", locale)


# A subtitle line holds about this many wide (CJK) characters, a Latin one counting ~0.55: the width
# of a half-page chart at 1366×768 (about 440 px) in the subtitle's size. Plotly never wraps a title.
SUBTITLE_EMS = 40.0


def _ems(text: str) -> float:
    return sum(1.0 if ord(ch) > 0x2E7F else 0.55 for ch in text)


def subtitle_lines(subtitle: str, ems: float = SUBTITLE_EMS) -> str:
    """``subtitle``'s " · "-separated parts packed onto lines of at most ``ems`` (wide-character
    widths) joined by <br>, every part kept whole: in Chinese the long ones were cut at the chart's
    right edge on a 1366×768 screen.

    >>> subtitle_lines("P(B better) = 99.7% · 95% percentile bootstrap · value, gains positive", ems=30)
    'P(B better) = 99.7% · 95% percentile bootstrap<br>value, gains positive'
    """
    lines: list[str] = []
    for part in subtitle.split(" · "):
        if lines and _ems(lines[-1] + " · " + part) <= ems:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return "<br>".join(lines)


def _title_room(title: str, subtitle: str, font_size: int) -> int:
    """Top margin in px for a title (and a subtitle in <sup>, on as many lines as it has) at ``font_size``."""
    sub_lines = subtitle.count("<br>") + 1 if subtitle else 0
    lines = title_size(font_size) * 1.25 * (title.count("<br>") + 1) * bool(title) + 0.8 * font_size * 1.25 * sub_lines
    return int(lines + 14 + title_size(font_size) * 0.3) if lines else 20


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
    font_size: int = FONT_SIZE,
    value_format: str = "money",
    x_title: str | None = None,
    locale: str = "en",
) -> go.Figure:
    """Horizontal confidence-interval bars, one row per interval, top to bottom (a forest plot).

    Parameters
    ----------
    rows : list of (label, interval)
        ``interval`` is a :class:`~evalcore.bootstrap.BootstrapResult`, a
        :class:`~evalcore.bootstrap.ProportionInterval`, or ``(estimate, low, high[, why])``.
    unit : str
        Unit of the numbers (e.g. "EUR"), in the labels and the axis title.
    zero_line : bool, default=True
        Draw x = 0 (the line a difference must clear); money estimates are then signed.
    subtitle : str
        Shown under the title, e.g. "95% percentile bootstrap, rows, 1000 replicates".
    x_range : (float, float), default=None
        Fixed x range (e.g. (0, 1) for proportions); default: the intervals (and 0) padded.
    font_size : int, default=13
        Tick labels, row labels, numbers and hover follow it.
    value_format : {"money", "share", "number"}, default="money"
        How the numbers are written (:func:`board.words.fmt.money`, ``share`` or ``number``).
    x_title : str, default=None
        The x axis title; default "value (<unit>)".

    Returns
    -------
    go.Figure
        One scatter trace per row (point + error bar), named by its label, its ``text`` the
        row's numbers; undefined intervals become points with a "interval undefined" hover
        and text. The numbers are written under each row's name in the row label column left
        of the plot (``yaxis.ticktext``: "name<br><b>estimate</b> [low, high]"), so they sit
        on the bar's row, never on the zero line or on another bar, at any width and sign.
    """
    if value_format not in VALUE_FORMATS:
        raise ValueError(f"value_format must be one of {VALUE_FORMATS}; got {value_format!r}.")
    fig = go.Figure()
    labels = [str(r[0]) for r in rows]
    items = [_as_interval(item) for _, item in rows]
    xs = [v for est, low, high, _ in items for v in (est, low, high) if _finite(v)]
    if zero_line:
        xs.append(0.0)
    xr = (float(x_range[0]), float(x_range[1])) if x_range is not None else (padded(min(xs), max(xs), 0.06) if xs else None)
    kind = value_format
    signed = zero_line and kind == "money"
    ticktext = []
    for j, ((label, _), (est, low, high, why)) in enumerate(zip(rows, items)):
        color = (colors or PALETTE)[j % len(colors or PALETTE)]
        defined = _finite(low) and _finite(high)
        L = locale
        est_text = _fmt(est, unit, signed, kind, L)
        bounds = f"[{_fmt(low, '', signed, kind, L)}, {_fmt(high, '', signed, kind, L)}]"
        undefined = t("(interval undefined)", L)
        text = f"{est_text}  {bounds}" if defined else f"{est_text}  {undefined}"
        hover = (
            f"{label}<br>"
            + t("estimate {value}", L, value=est_text)
            + "<br>"
            + (
                t("interval {bounds}", L, bounds=bounds)
                if defined
                else t("interval undefined: {why}", L, why=undefined_reason(why, L) if why else t("not enough data", L))
            )
        )
        x = est if _finite(est) else (0.5 * (low + high) if defined else None)
        fig.add_trace(
            go.Scatter(
                x=[x],
                y=[str(label)],
                mode="markers",
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
                hovertemplate=hover + "<extra></extra>",
                showlegend=False,
            )
        )
        numbers = f"<b>{est_text}</b> {bounds}" if defined else f"<b>{est_text}</b> {undefined}"
        ticktext.append(f"{label}<br>{numbers}")
    if zero_line:
        fig.add_vline(x=0, line_dash="dash", line_color=GREY)
    full_title = title
    subtitle = subtitle_lines(subtitle)
    if subtitle:
        full_title = f"{title}<br><sup>{subtitle}</sup>" if title else f"<sup>{subtitle}</sup>"
    fig.update_layout(
        title=dict(
            text=full_title,
            font=dict(size=title_size(font_size)),
            y=1,
            yref="container",
            yanchor="top",
            pad=dict(t=4 + title_size(font_size)),
        )
        if full_title
        else None,
        height=height or 120 + 70 * max(1, len(rows)),
        margin=dict(l=10, r=10, t=_title_room(title, subtitle, font_size), b=10),
        xaxis_title=x_title or (t("value ({unit})", locale, unit=unit) if unit else t("value", locale)),
        showlegend=False,
    )
    fig.update_yaxes(
        categoryorder="array",
        categoryarray=labels[::-1],
        range=[-0.5, len(labels) - 0.5],
        tickmode="array",
        tickvals=labels,
        ticktext=ticktext,
        automargin=True,
    )
    if xr is not None:
        fig.update_xaxes(range=list(xr))
        # multiples of a round step (0 among them when in range); room-sized type (presenting) gets about
        # three, so the labels stay level on a third of a 1366-px slide instead of tilting into the rows
        ticks = nice_ticks(xr[0], xr[1], 5 if font_size <= FONT_SIZE + 2 else 3)
        label = {"share": share_ticks, "number": number_ticks}.get(kind, lambda v: money_ticks(v, locale=locale))
        set_ticks(fig.update_xaxes, ticks, label)
    return apply_font(fig, font_size)


def method_words(method: str, locale: str) -> str:
    return "BCa" if method == "bca" else word(method, locale)


def _describe(r: BootstrapResult, locale: str = "en") -> str:
    return t(
        "{level} {method} bootstrap, {scheme} scheme, {n} replicates",
        locale,
        level=_level_words(r.level),
        method=method_words(r.method, locale),
        scheme=word(r.scheme, locale),
        n=fmt.count(r.n_resamples),
    )


def _probability_words(name: str, p: float, locale: str = "en") -> str:
    """ "P(B better) = 73.2%", or "P(B better) > 99.9%" (a finite number of draws never shows 100%)."""
    if not _finite(p):
        return t("P({name} better) undefined", locale, name=name)
    text = fmt.probability(p)
    if text[0] in "<>":
        return t("P({name} better) {p}", locale, name=name, p=text)
    return t("P({name} better) = {p}", locale, name=name, p=text)


def verdict_sentence(comp: Comparison, locale: str = "en", *, loss: bool = False) -> str:
    """The verdict of a paired comparison in ``locale``: about EV_B − EV_A (the engine's
    ``verdict_text`` in English), or under ``loss`` about what the loss chart draws,
    loss_B − loss_A (the same interval mirrored: B is better when it lies below 0)."""
    a, b = comp.a, comp.b
    level = _level_words(comp.diff.level)
    if loss:
        ci = t("the {level} CI of loss_{b} − loss_{a}", locale, level=level, a=a, b=b)
    else:
        ci = t("the {level} CI of EV_{b} − EV_{a}", locale, level=level, a=a, b=b)
    if comp.verdict == "better":
        if loss:
            return t("{b} is better: {ci} is below 0.", locale, b=b, ci=ci)
        return t("{b} is better: {ci} excludes 0.", locale, b=b, ci=ci)
    if comp.verdict == "worse":
        if loss:
            return t("{b} is worse: {ci} is above 0.", locale, b=b, ci=ci)
        return t("{b} is worse: {ci} excludes 0.", locale, b=b, ci=ci)
    if comp.verdict == "no significant difference":
        return t("No significant difference between {b} and {a}: {ci} includes 0.", locale, a=a, b=b, ci=ci)
    if not loss and locale == "en":
        return comp.verdict_text  # the engine's own words (e.g. no weight at all)
    why = "; ".join(v for k, v in comp.diff.undefined.items() if k != "replicates")
    if why:
        return t("No verdict: {ci} could not be formed ({why}).", locale, ci=ci, why=undefined_reason(why, locale))
    return t("No verdict: {ci} could not be formed.", locale, ci=ci)


def comparison_figure(
    comp: Comparison, *, unit: str = "", height: int | None = None, font_size: int = FONT_SIZE, lens: Lens | None = None
) -> go.Figure:
    """EV of A, EV of B and the paired difference B − A with their intervals and the verdict.

    The title is the plain verdict ("B is better: the 95% CI of EV_B − EV_A excludes 0." or
    "No significant difference …"); the subtitle states P(B better), the method and scheme.
    Under the loss ``lens``: the expected losses and the change in loss B − A (negative = B
    loses less), the verdict said of loss_B − loss_A; the verdict itself does not change.
    """
    lens = lens_of(lens)
    L = lens.locale
    loss = lens.loss
    what = t("loss", L) if loss else "EV"
    rows = [
        (t("{what} {m} (t={t})", L, what=what, m=comp.a, t=fmt.score(comp.threshold_a)), shown(comp.ev_a, lens)),
        (t("{what} {m} (t={t})", L, what=what, m=comp.b, t=fmt.score(comp.threshold_b)), shown(comp.ev_b, lens)),
        (
            t("{b} − {a} (change in loss)", L, a=comp.a, b=comp.b) if loss else f"{comp.b} − {comp.a}",
            shown(comp.diff, lens),
        ),
    ]
    verdict_color = {"better": "#2E7D32", "worse": "#C62828"}.get(comp.verdict, GREY)
    quantity = t("expected loss, positive = money lost", L) if loss else t("value, gains positive", L)
    fig = ci_bars_figure(
        rows,
        unit=unit,
        x_title=quantity_title(lens, unit) if loss else _per_decision(unit, L),
        # a Chinese verdict has no spaces to wrap at: it breaks after its colon, so it fits a half-width column
        title=verdict_sentence(comp, L, loss=loss).replace("：", "：<br>", 1),
        subtitle=f"{_probability_words(comp.b, comp.p_b_better, L)} · {_describe(comp.diff, L)} · {quantity}",
        colors=[PALETTE[0], PALETTE[1], verdict_color],
        height=height,
        font_size=font_size,
        locale=L,
    )
    fig.update_layout(title_font_color=verdict_color)
    return fig


#: The §3.1 proportions by their field name in :class:`~evalcore.bootstrap.MetricIntervals`.
METRIC_WORDS = {
    "accuracy": N_("accuracy"),
    "precision": N_("precision"),
    "recall": N_("recall"),
    "specificity": N_("specificity"),
    "fpr": N_("fpr"),
    "positive_rate": N_("positive rate"),
}


def metric_intervals_figure(
    m: MetricIntervals,
    *,
    threshold: float | None = None,
    height: int | None = None,
    font_size: int = FONT_SIZE,
    locale: str = "en",
) -> go.Figure:
    """Wilson intervals of the §3.1 proportions at one threshold (x axis 0–100%)."""
    L = locale
    rows = [(t(METRIC_WORDS.get(name, name.replace("_", " ")), L), iv) for name, iv in m.items()]
    level = m.accuracy.level
    title = t("Metrics at t={t}", L, t=fmt.score(threshold)) if threshold is not None else t("Metrics", L)
    fig = ci_bars_figure(
        rows,
        title=title,
        subtitle=t("{level} Wilson intervals", L, level=_level_words(level)),
        zero_line=False,
        height=height,
        x_range=(0, 1),
        font_size=font_size,
        value_format="share",
        locale=L,
    )
    fig.update_xaxes(title=t("proportion", L))
    return fig


def t_opt_histogram(
    opt: OptimumBootstrap,
    *,
    deployed: float | None = None,
    nbins: int = 40,
    height: int = 320,
    font_size: int = FONT_SIZE,
    locale: str = "en",
) -> go.Figure:
    """Histogram of the re-optimised threshold over bootstrap replicates.

    Marks the optimum on the data, its interval and (if given) the deployed threshold.
    Replicates where acting on no one was best (t_opt = +inf) cannot sit on a threshold
    axis; they are counted in the title instead of dropped silently.
    """
    L = locale
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
            name=t("replicates", L),
            hovertemplate=t("t_opt {x}<br>{y} replicates", L, x="%{x}", y="%{y}") + "<extra></extra>",
        )
    )
    note = small(font_size)
    if _finite(r.estimate):
        fig.add_vline(
            x=r.estimate,
            line_color=PALETTE[1],
            line_width=3,
            annotation_text=t("t_opt {t}", L, t=fmt.score(r.estimate)),
            annotation_position="top",
            annotation_font_size=note,
        )
    if _finite(r.low) and _finite(r.high):
        fig.add_vrect(
            x0=r.low,
            x1=r.high,
            fillcolor=PALETTE[1],
            opacity=0.08,
            line_width=0,
            annotation_text=t("{level} CI", L, level=_level_words(r.level)),
            annotation_position="top left",
            annotation_font_size=note,
        )
    if deployed is not None and np.isfinite(deployed):
        fig.add_vline(
            x=deployed,
            line_dash="dash",
            line_color=GREY,
            annotation_text=t("deployed {t}", L, t=fmt.score(deployed)),
            annotation_position="bottom right",
            annotation_font_size=note,
        )
    res = t(", scores binned to {step}", L, step=fmt.number(opt.resolution, 3)) if opt.resolution else ""
    extra = t("; {k} of {n} replicates: act on no one", L, k=fmt.count(n_inf), n=fmt.count(len(dist))) if n_inf else ""
    head = t("Re-optimised threshold over {n} replicates", L, n=fmt.count(r.n_resamples))
    scheme = t("{scheme} scheme", L, scheme=word(r.scheme, L))
    fig.update_layout(
        title=dict(
            text=f"{head}<br><sup>{scheme}{res}{extra}</sup>",
            font=dict(size=title_size(font_size)),
        ),
        height=height,
        margin=dict(l=10, r=10, t=60, b=10),
        bargap=0.05,
        showlegend=False,
        xaxis_title=t("t_opt (act when score ≥ t)", L),
        yaxis_title=t("replicates", L),
    )
    fig.update_xaxes(**plain_numbers())
    fig.update_yaxes(**plain_numbers())
    return apply_font(fig, font_size)


def add_curve_band(
    fig: go.Figure,
    band: CurveBand,
    *,
    name: str = "",
    color: str = PALETTE[0],
    opacity: float = 0.18,
    lens: Lens | None = None,
) -> go.Figure:
    """Add a filled pointwise CI band of EV(t) to ``fig`` (in place; returns it).

    Grid points where the band is undefined (NaN) split the band instead of being drawn as 0.
    Under the loss ``lens`` the band is of the expected loss: [−high, −low] at each threshold.
    """
    g, lo, hi = (np.asarray(a, dtype=float) for a in band.as_tuple())
    lens = lens_of(lens)
    lo, hi = lens.interval(lo, hi)
    ok = np.isfinite(g) & np.isfinite(lo) & np.isfinite(hi)
    label = f"{name + ': ' if name else ''}" + t("{level} band (pointwise)", lens.locale, level=_level_words(band.level))
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


def curve_band_figure(
    opt: OptimumBootstrap,
    *,
    name: str = "",
    unit: str = "",
    height: int = 420,
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
) -> go.Figure:
    """EV(t) on the data at the band grid with its pointwise band (a stand-alone figure).

    Under the loss ``lens``: the threshold–loss curve, −EV(t) with the band [−high, −low]."""
    lens = lens_of(lens)
    L = lens.locale
    loss = lens.loss
    band = opt.band
    fig = add_curve_band(go.Figure(), band, name=name, lens=lens)
    y = lens.amount(np.asarray(band.estimate, dtype=float)) if loss else band.estimate
    fig.add_trace(
        go.Scatter(
            x=band.grid,
            y=y,
            mode="lines",
            line=dict(color=PALETTE[0], width=2.5),
            name=t("{name}: {curve}", L, name=name, curve=lens.series) if name else lens.series,
            customdata=np.array(
                [[fmt.score(g), fmt.money(v, unit, signed=not loss, locale=L)] for g, v in zip(band.grid, y)],
                dtype=object,
            ).reshape(-1, 2),
            hovertemplate=t("score ≥ {t}", L, t="%{customdata[0]}")
            + "<br>"
            + (t("expected loss", L) if loss else "EV")
            + " %{customdata[1]}<extra></extra>",
        )
    )
    curve = lens.curve[:1].upper() + lens.curve[1:]
    quantity = t("expected loss, positive = money lost", L) if loss else t("value, gains positive", L)
    head = t("{curve} with its {level} band", L, curve=curve, level=_level_words(band.level))
    sub = t(
        "{scheme} scheme, {n} replicates",
        L,
        scheme=word(opt.ev_opt.scheme, L),
        n=fmt.count(opt.ev_opt.n_resamples),
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=40, b=10),
        title=dict(
            text=f"{head}<br><sup>{sub} · {quantity}</sup>",
            font=dict(size=title_size(font_size)),
        ),
        xaxis_title=t("threshold t (act when score ≥ t)", L),
        yaxis_title=quantity_title(lens, unit)
        if loss
        else (t("EV per decision ({unit})", L, unit=unit) if unit else t("EV per decision", L)),
    )
    fig.update_xaxes(**plain_numbers())
    fig.update_yaxes(**plain_numbers())
    return apply_font(fig, font_size)


def uncertainty_summary_figure(
    rows: list[tuple[str, BootstrapResult]],
    *,
    unit: str = "",
    height: int | None = None,
    colors: list[str] | None = None,
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
) -> go.Figure:
    """The two questions side by side: EV at the deployed threshold, EV after re-optimising.

    ``rows`` e.g. ``[("A: EV at deployed t", ev_a), ("A: EV after re-optimising t", opt_a.ev_opt)]``;
    ``colors`` one per row (e.g. one colour per model), default the palette in turn. Under the
    loss ``lens`` every row is drawn as expected loss (−EV, CI ends swapped); the row labels
    are the caller's, so under loss they should name loss too ("A: loss at deployed t").
    """
    lens = lens_of(lens)
    L = lens.locale
    sub = _describe(rows[0][1], L) if rows else ""
    return ci_bars_figure(
        [(label, shown(item, lens)) for label, item in rows],
        unit=unit,
        x_title=quantity_title(lens, unit) if lens.loss else _per_decision(unit, L),
        title=f"{lens.Quantity} ({lens.convention})" if lens.loss else t("Expected value per decision", L),
        subtitle=f"{sub} · {t(FIT_NOTE, L)}",
        zero_line=True,
        height=height,
        colors=colors,
        font_size=font_size,
        locale=L,
    )
