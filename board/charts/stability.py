"""Plotly figure builders for stability and data conditions (SPEC §3.7, §3.8): result -> go.Figure.

- :func:`score_histogram` — scores of repeated runs per model, with the mean, mean ± 1.96·SEM
  and the alert line mean − 2·std.
- :func:`score_box` — box plots of the same scores.
- :func:`mean_ci_figure` — mean ± 1.96·SEM per model (the overlap view).
- :func:`paired_figure` — per-fold differences A − B with the naive and the corrected interval.
- :func:`learning_curve_figure` — raw, normalized and robust score against training size N.

No Streamlit, no math beyond means for drawing.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from board.charts._style import (
    FONT_SIZE,
    PALETTE,
    apply_font,
    log_ticks,
    plain_numbers,
    set_ticks,
    small,
    title_size,
)
from board.words import fmt
from board.words.i18n import N_, t, tn
from evalcore.normalized import LearningCurve
from evalcore.stability import CVComparison

GREY = "#7F7F7F"
ALERT = "#C0392B"
NAIVE_NAME = N_("naive paired t")
CORRECTED_NAME = N_("corrected (Nadeau–Bengio)")


def _num(x) -> str:
    """A score, mean or limit of repeated runs: 4 significant digits (:func:`board.words.fmt.number`)."""
    return fmt.number(x, 4)


def _layout(fig: go.Figure, *, title: str, height: int, font_size: int, x: str = "", y: str = "") -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, font=dict(size=title_size(font_size))),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis_title=x,
        yaxis_title=y,
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=1, xanchor="right"),
        uirevision="const",
    )
    fig.update_xaxes(**plain_numbers())
    fig.update_yaxes(**plain_numbers())
    return apply_font(fig, font_size)


def score_histogram(runs: dict, *, metric: str, height: int = 340, font_size: int = FONT_SIZE, locale: str = "en") -> go.Figure:
    """Histogram of scores per model; ``runs`` maps a name to (scores, ScoreSummary)."""
    fig = go.Figure()
    for i, (name, (scores, s)) in enumerate(runs.items()):
        color = PALETTE[i % len(PALETTE)]
        fig.add_trace(
            go.Histogram(
                x=np.asarray(scores),
                name=tn("{name} ({n} run)", "{name} ({n} runs)", s.n, locale, name=name, n=fmt.count(s.n)),
                marker_color=color,
                opacity=0.65,
                nbinsx=min(30, max(5, s.n // 2)),
            )
        )
        if np.isfinite(s.sem):
            fig.add_vrect(x0=s.ci_low, x1=s.ci_high, fillcolor=color, opacity=0.15, line_width=0)
        fig.add_vline(
            x=s.mean,
            line=dict(color=color, width=2),
            annotation=dict(text=t("mean {value}", locale, value=_num(s.mean)), font=dict(color=color, size=small(font_size))),
            annotation_position="top",
        )
        if np.isfinite(s.alert_line):
            fig.add_vline(
                x=s.alert_line,
                line=dict(color=ALERT, width=1.5, dash="dash"),
                annotation=dict(
                    text=t("alert {value}", locale, value=_num(s.alert_line)), font=dict(color=ALERT, size=small(font_size))
                ),
                annotation_position="bottom left" if i == 0 else "bottom right",
            )
    fig.update_layout(barmode="overlay", bargap=0.05)
    return _layout(
        fig,
        title=t("Scores of repeated runs (band: mean ± 1.96·SEM; dashed: alert line)", locale),
        height=height,
        font_size=font_size,
        x=metric,
        y=t("runs", locale),
    )


def score_box(runs: dict, *, metric: str, height: int = 340, font_size: int = FONT_SIZE, locale: str = "en") -> go.Figure:
    """Box plots (quartiles, whiskers at 1.5·IQR, every run as a point)."""
    fig = go.Figure()
    for i, (name, (scores, _)) in enumerate(runs.items()):
        fig.add_trace(
            go.Box(
                y=np.asarray(scores),
                name=name,
                marker_color=PALETTE[i % len(PALETTE)],
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                boxmean=True,
            )
        )
    return _layout(
        fig, title=t("Distribution (box: quartiles; dashed: mean)", locale), height=height, font_size=font_size, y=metric
    )


def mean_ci_figure(
    summaries: dict, *, metric: str, height: int = 340, font_size: int = FONT_SIZE, locale: str = "en"
) -> go.Figure:
    """mean ± z·SEM per model: overlapping intervals = no difference in the simple view."""
    fig = go.Figure()
    for i, (name, s) in enumerate(summaries.items()):
        color = PALETTE[i % len(PALETTE)]
        half = s.z * s.sem if np.isfinite(s.sem) else 0.0
        fig.add_trace(
            go.Scatter(
                x=[s.mean],
                y=[name],
                mode="markers+text",
                marker=dict(size=12, color=color),
                error_x=dict(type="data", array=[half], color=color, thickness=3, width=10),
                text=[f"{_num(s.mean)} [{_num(s.ci_low)}, {_num(s.ci_high)}]"],
                textposition="top center",
                name=name,
                showlegend=False,
            )
        )
    fig.update_yaxes(type="category", autorange="reversed")
    return _layout(fig, title=t("Mean ± 1.96·SEM per model (overlap view)", locale), height=height, font_size=font_size, x=metric)


def paired_figure(
    cmp: CVComparison, diffs, *, metric: str, height: int = 300, font_size: int = FONT_SIZE, locale: str = "en"
) -> go.Figure:
    """Per-fold differences A − B, with the naive and the Nadeau–Bengio corrected intervals."""
    p = cmp.paired
    folds, naive, corrected = t("folds", locale), t(NAIVE_NAME, locale), t(CORRECTED_NAME, locale)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=np.asarray(diffs),
            y=[folds] * len(diffs),
            mode="markers",
            name=t("A − B per fold", locale),
            marker=dict(color=GREY, size=8, opacity=0.6),
        )
    )
    q = p.t_quantile
    for label, se, color in (
        (naive, p.naive_se, PALETTE[2]),
        (corrected, p.corrected_se, PALETTE[0]),
    ):
        if np.isfinite(se):
            fig.add_trace(
                go.Scatter(
                    x=[p.mean_diff],
                    y=[label],
                    mode="markers",
                    marker=dict(size=12, color=color),
                    error_x=dict(type="data", array=[q * se], color=color, thickness=3, width=10),
                    name=label,
                    showlegend=False,
                )
            )
    fig.add_vline(x=0, line=dict(color="black", width=1))
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=[corrected, naive, folds])
    return _layout(
        fig,
        title=t(
            "{a} − {b} on matched folds · {level} intervals of the mean difference",
            locale,
            a=cmp.a,
            b=cmp.b,
            level=fmt.share(p.level, 0),
        ),
        height=height,
        font_size=font_size,
        x=t("difference of {metric}", locale, metric=metric),
    )


def learning_curve_figure(
    lc: LearningCurve,
    *,
    height: int = 380,
    font_size: int = FONT_SIZE,
    locale: str = "en",
    metric_name: str | None = None,
) -> go.Figure:
    """Mean over repeats (line) and the spread (min–max band) of each score against N; the raw
    score is named ``metric_name`` (the metric as the reader says it; default: its code)."""
    fig = go.Figure()
    names = {
        "raw": t("raw {metric}", locale, metric=metric_name or lc.metric),
        "normalized": t("normalized (basic)", locale),
        "robust": t("robust (capped at 1)", locale),
    }
    x = lc.sizes.astype(float)
    for i, (v, label) in enumerate(names.items()):
        vals = lc.values[v]
        ok = np.isfinite(vals).any(axis=0)
        if not ok.any():
            continue
        with np.errstate(all="ignore"):
            mean = np.nanmean(np.where(np.isfinite(vals), vals, np.nan)[:, ok], axis=0)
            lo = np.nanmin(vals[:, ok], axis=0)
            hi = np.nanmax(vals[:, ok], axis=0)
        color = PALETTE[i]
        fig.add_trace(
            go.Scatter(
                x=np.r_[x[ok], x[ok][::-1]],
                y=np.r_[hi, lo[::-1]],
                fill="toself",
                fillcolor=color,
                opacity=0.15,
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
            )
        )
        fig.add_trace(go.Scatter(x=x[ok], y=mean, mode="lines+markers", name=label, line=dict(color=color, width=2)))
    if x.min() <= lc.boundary <= x.max() * 1.5:
        fig.add_vline(
            x=lc.boundary,
            line=dict(color=GREY, dash="dash"),
            annotation=dict(text=f"N = 20·d = {fmt.count(lc.boundary)}", font=dict(size=small(font_size))),
            annotation_position="top left",
        )
    fig = _layout(
        fig,
        title=tn(
            "Learning curve · {n} repeat (band: min–max) · {model}",
            "Learning curve · {n} repeats (band: min–max) · {model}",
            lc.n_repeats,
            locale,
            n=fmt.count(lc.n_repeats),
            model=lc.model,
        ),
        height=height,
        font_size=font_size,
        x=t("training rows N (log)", locale),
        y=t("score", locale),
    )
    fig.update_xaxes(type="log")  # round ticks (100, 1,000, …), never log minor labels
    if len(x) and x.min() > 0:
        set_ticks(fig.update_xaxes, log_ticks(x.min(), x.max()), lambda v: [fmt.count(t) for t in v])
    return fig
