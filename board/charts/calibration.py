"""Plotly figure and table builders for calibration (SPEC §3.5): result -> go.Figure or
DataFrame, no Streamlit.

Reliability diagram: the diagonal, each non-empty bin's observed positive rate against its
mean predicted probability with a Wilson interval, and below it the count per bin. Empty
bins are never drawn as a point at 0: they are absent from the line and marked "empty"
under a zero-height bar.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from board.charts._style import FONT_SIZE, PALETTE, apply_font, lens_of, plain_numbers, small, title_size  # one palette
from board.words import fmt
from board.words.i18n import N_, t
from board.words.lens import Lens
from evalcore.calibration import Reliability
from evalcore.value import ValueCurve

DIAGONAL_NAME = N_("perfectly calibrated")
Y_TITLE = N_("observed positive rate")
X_TITLE = N_("mean predicted probability")
STRATEGY_WORDS = {"uniform": N_("uniform"), "quantile": N_("quantile")}


def _bins_words(rel: Reliability, locale: str) -> str:
    """ "10 quantile bins" in ``locale``."""
    strategy = t(STRATEGY_WORDS.get(rel.strategy, rel.strategy), locale)
    return t("{n} {strategy} bins", locale, n=fmt.count(rel.n_bins), strategy=strategy)


def _fmt(x: float, spec: str = ".3f") -> str:
    return "—" if x is None or not np.isfinite(x) else format(x, spec)


def metrics_line(rel: Reliability) -> str:
    """One line of the headline metrics, naming ECE's bins and the log-loss clipping."""
    return (
        f"Brier {_fmt(rel.brier, '.4f')} · log loss {_fmt(rel.log_loss, '.4f')} (p clipped to "
        f"[{rel.log_loss_clip:g}, 1−{rel.log_loss_clip:g}]) · ECE {_fmt(rel.ece, '.4f')} "
        f"({rel.n_bins} {rel.strategy} bins) · O/E {_fmt(rel.oe_ratio)} · slope {_fmt(rel.slope)} · "
        f"intercept {_fmt(rel.intercept)}"
    )


def _add_model(
    fig: go.Figure, name: str, rel: Reliability, color: str, k: int, n_models: int, font_size: int, locale: str = "en"
) -> None:
    L = locale
    bins = rel.bins
    full = [b for b in bins if not b.empty]
    x = np.array([b.mean_pred for b in full])
    y = np.array([b.frac_pos for b in full])
    lo = np.array([b.frac_pos_low for b in full])
    hi = np.array([b.frac_pos_high for b in full])
    # every number of the hover written by board.words.fmt (bin edges of quantile bins can be tiny)
    custom = np.array(
        [
            [
                f"[{fmt.number(b.low, 3)}, {fmt.number(b.high, 3)})",
                fmt.number(b.mean_pred, 3),
                t(
                    "{share} (95% Wilson {low}–{high})",
                    L,
                    share=fmt.share(b.frac_pos),
                    low=fmt.share(b.frac_pos_low),
                    high=fmt.share(b.frac_pos_high),
                ),
                t("{count} ({n} rows)", L, count=fmt.count(b.count), n=fmt.count(b.n_rows)),
            ]
            for b in full
        ],
        dtype=object,
    ).reshape(-1, 4)
    count_max = max((b.count for b in full), default=1.0)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="lines+markers",
            name=name,
            legendgroup=name,
            line=dict(color=color, width=2),
            marker=dict(color=color, size=8 + 14 * np.sqrt(np.array([b.count for b in full]) / count_max) if full else 8),
            error_y=dict(type="data", symmetric=False, array=hi - y, arrayminus=y - lo, color=color, thickness=1.2, width=4),
            customdata=custom,
            hovertemplate=(
                t(
                    "bin {bin}<br>mean predicted {pred}<br>observed {obs}<br>count {count}",
                    L,
                    bin="%{customdata[0]}",
                    pred="%{customdata[1]}",
                    obs="%{customdata[2]}",
                    count="%{customdata[3]}",
                )
                + "<extra>"
                + name
                + "</extra>"
            ),
        ),
        row=1,
        col=1,
    )
    centres = [(b.low + b.high) / 2 for b in bins]
    widths = [0.92 * max(b.high - b.low, 1e-3) / max(n_models, 1) for b in bins]
    offsets = [(k - (n_models - 1) / 2) * w for w in widths]
    fig.add_trace(
        go.Bar(
            x=[c + o for c, o in zip(centres, offsets)],
            y=[b.count for b in bins],
            width=widths,
            name=t("{name}: count", L, name=name),
            legendgroup=name,
            showlegend=False,
            marker_color=color,
            opacity=0.75,
            customdata=[
                [
                    f"[{fmt.number(b.low, 3)}, {fmt.number(b.high, 3)})",
                    t("{count} ({n} rows)", L, count=fmt.count(b.count), n=fmt.count(b.n_rows)),
                ]
                for b in bins
            ],
            hovertemplate=t("bin {bin}<br>count {count}", L, bin="%{customdata[0]}", count="%{customdata[1]}")
            + "<extra>"
            + name
            + "</extra>",
        ),
        row=2,
        col=1,
    )
    word = t("empty", L)
    for c, o, b in zip(centres, offsets, bins):
        if b.empty:
            fig.add_annotation(
                x=c + o,
                y=0,
                text=word,
                showarrow=False,
                yanchor="bottom",
                textangle=-90 if len(word) > 2 else 0,  # a word stands in its bin; one character (空) reads upright
                font=dict(size=small(font_size), color=color),
                row=2,
                col=1,
            )


def reliability_figure(
    rel_by_model: dict[str, Reliability],
    *,
    title: str | None = None,
    height: int = 560,
    font_size: int = FONT_SIZE,
    locale: str = "en",
    ece_line: bool = True,
) -> go.Figure:
    """Reliability diagram of one or more models, with a count histogram below.

    Parameters
    ----------
    rel_by_model : dict of str to Reliability
        Model name -> its reliability. Trace names: the model name for the points
        (one per non-empty bin, Wilson error bars), ``"<name>: count"`` for its bars (one
        per bin, empty bins as zero-height bars annotated "empty"), and
        ``"perfectly calibrated"`` for the diagonal.
    title : str, default=None
        Figure title; the ECE of each model with its bins is added below it (without a title,
        that line is the title).
    font_size : int, default=13
        Tick labels, legend and hover follow it.
    ece_line : bool, default=True
        False: no ECE line (a page that shows the ECE in a card beside the chart, under the
        model's name), so a narrow chart has no title to cut.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.74, 0.26], vertical_spacing=0.05)
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name=t(DIAGONAL_NAME, locale),
            line=dict(color="#888888", dash="dash", width=1.5),
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    n_models = len(rel_by_model)
    for k, (name, rel) in enumerate(rel_by_model.items()):
        _add_model(fig, name, rel, PALETTE[k % len(PALETTE)], k, n_models, font_size, locale)
    subtitle = " · ".join(
        t("{model}: ECE {ece} ({bins})", locale, model=name, ece=fmt.number(rel.ece, 3), bins=_bins_words(rel, locale))
        for name, rel in rel_by_model.items()
    )
    # without a title the ECE line is the title, at the title's size (as a superscript it was too
    # small to read on a projector)
    text = (f"{title}<br><sup>{subtitle}</sup>" if title else subtitle) if ece_line else title
    weighted = any(abs(b.count - b.n_rows) > 1e-9 for rel in rel_by_model.values() for b in rel.bins)
    fig.update_layout(
        title=dict(text=text, font=dict(size=title_size(font_size))),
        height=height,
        margin=dict(l=10, r=10, t=70 if text else 20, b=10),
        barmode="overlay",
        legend=dict(orientation="h", y=-0.12),
        uirevision="reliability",
    )
    count_title = t("weighted count", locale) if weighted else t("count", locale)
    fig.update_yaxes(title_text=t(Y_TITLE, locale), range=[-0.02, 1.02], row=1, col=1)
    fig.update_yaxes(title_text=count_title, rangemode="tozero", row=2, col=1, **plain_numbers())
    fig.update_xaxes(range=[-0.02, 1.02], row=1, col=1)
    fig.update_xaxes(title_text=t(X_TITLE, locale), range=[-0.02, 1.02], row=2, col=1)
    return apply_font(fig, font_size)


def recalibration_figure(
    before: Reliability | None,
    after: Reliability,
    method: str,
    *,
    height: int = 560,
    font_size: int = FONT_SIZE,
    locale: str = "en",
) -> go.Figure:
    """Before/after reliability diagram of a cross-fitted recalibration.

    Trace names ``"before"`` and ``"after: <method> (cross-fitted)"``; ``before`` may be
    None for raw scores, which have no calibration before they are mapped to [0, 1].
    """
    after_name = t("after: {method} (cross-fitted)", locale, method=method)
    rels = {after_name: after} if before is None else {t("before", locale): before, after_name: after}
    title = t("Recalibration: {method}", locale, method=method)
    return reliability_figure(rels, title=title, height=height, font_size=font_size, locale=locale)


# --------------------------------------------------------------------------- tables


def comparison_table(before: Reliability | None, after: Reliability, *, auc_before: float, auc_after: float) -> pd.DataFrame:
    """Metrics before and after a (cross-fitted) recalibration, one row per metric.

    Index: the metric names (ECE names its bins, log loss its clipping); columns
    ``"before"`` and ``"after"``, floats, NaN where undefined (``before`` is None for raw
    scores, which are not probabilities: every row but AUC is then NaN).
    """

    def values(rel):
        if rel is None:
            return [np.nan] * 6
        return [rel.brier, rel.log_loss, rel.ece, rel.oe_ratio, rel.slope, rel.intercept]

    index = [
        "Brier",
        f"log loss (p clipped at {after.log_loss_clip:g})",
        f"ECE ({after.n_bins} {after.strategy} bins)",
        "O/E ratio",
        "calibration slope",
        "calibration intercept",
        "AUC",
    ]
    return pd.DataFrame({"before": values(before) + [auc_before], "after": values(after) + [auc_after]}, index=index)


def segment_styler(df: pd.DataFrame, *, color: str = "#FDE2DC"):
    """:func:`evalcore.segment_calibration`'s table for display: the worst segment's row
    highlighted, counts as integers, metrics to 4 significant digits, undefined as —."""
    metrics = ("brier", "log_loss", "ece", "oe_ratio", "slope", "intercept")
    formats = {"n": "{:,.0f}", "n_pos": "{:,.0f}"} | {c: "{:.4g}" for c in metrics}
    return df.style.apply(lambda r: [f"background-color: {color}" if r["worst"] else ""] * len(r), axis=1).format(
        formats, na_rep="—"
    )


def threshold_effect(
    before: ValueCurve, after: ValueCurve, *, unit: str = "", lens: Lens | None = None
) -> tuple[pd.DataFrame, str]:
    """How a recalibration moves the threshold–value optimum relative to the Bayes t*.

    Returns
    -------
    table : DataFrame
        Index ``EV at optimum``, ``empirical optimum t_opt``, ``Bayes t*``,
        ``gap |t* − t_opt|``; columns ``"before"`` and ``"after"`` (NaN where undefined).
        Under the loss ``lens`` the first row is ``Expected loss per decision at optimum``
        (with the unit and "positive = money lost"), its numbers −EV; the thresholds do not change.
    verdict : str
        One sentence saying whether the gap shrank (empty when either gap is undefined).
    """
    lens = lens_of(lens)
    L = lens.locale

    def gap(c):
        return abs(c.bayes_threshold - c.t_opt) if np.isfinite(c.bayes_threshold) and np.isfinite(c.t_opt) else np.nan

    g0, g1 = gap(before), gap(after)
    if lens.loss:
        ev = f"{lens.Quantity} at optimum ({unit + ', ' if unit else ''}{lens.convention})"
    else:
        ev = f"EV at optimum ({unit})" if unit else "EV at optimum"
    table = pd.DataFrame(
        {
            c_name: [lens.amount(c.ev_opt), c.t_opt, c.bayes_threshold, g]
            for c_name, c, g in (("before", before, g0), ("after", after, g1))
        },
        index=[ev, "empirical optimum t_opt", "Bayes t*", "gap |t* − t_opt|"],
    )
    if not (np.isfinite(g0) and np.isfinite(g1)):
        return table, ""
    g0_, g1_, t_star = (format(x, ".3f") for x in (g0, g1, after.bayes_threshold))
    if g1 < g0 and lens.loss:
        verdict = t(
            "The gap between the closed-form Bayes threshold t* and the empirical optimum shrank from "
            "{g0} to {g1}: after recalibration t* = {t_star} is close to where the loss is actually lowest, "
            "as it should be for calibrated probabilities.",
            L,
            g0=g0_,
            g1=g1_,
            t_star=t_star,
        )
    elif g1 < g0:
        verdict = t(
            "The gap between the closed-form Bayes threshold t* and the empirical optimum shrank from "
            "{g0} to {g1}: after recalibration t* = {t_star} is close to where the value actually peaks, "
            "as it should be for calibrated probabilities.",
            L,
            g0=g0_,
            g1=g1_,
            t_star=t_star,
        )
    else:
        verdict = t(
            "The gap between the closed-form Bayes threshold t* and the empirical optimum did not shrink "
            "({g0} → {g1}): this recalibration does not make t* trustworthy; compare its slope and "
            "O/E above, or try another method.",
            L,
            g0=g0_,
            g1=g1_,
        )
    return table, verdict
