"""Plotly figure builders for the Drift page: drift results -> go.Figure.

No Streamlit calls and no statistics: every number drawn comes from ``evalcore.drift``.
Windows are placed on the x-axis at their last day ("window ending on ...").
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from board.charts._style import FONT_SIZE, apply_font, number_ticks, plain_numbers, set_ticks, share_ticks, small, title_size
from board.words import fmt
from board.words.drift_reasons import light_reason
from board.words.i18n import N_, t
from evalcore.drift import CalibrationDrift, DriftReport, FeatureDrift, LabelDrift

LIGHT_COLORS = {"green": "#2E9E44", "yellow": "#F2B705", "red": "#D62828", "grey": "#9AA0A6"}
LEVEL_COLORS = {-1: "#9AA0A6", 0: "#0B5FFF", 1: "#F2B705", 2: "#D62828"}
FAMILY_TITLES = {"feature": N_("Feature drift"), "label": N_("Label drift"), "calibration": N_("Calibration drift")}
BELOW_NOISE_NAME = N_("below noise floor")
TOO_FEW_NAME = N_("too few rows")
X_TITLE = N_("window ending on")
#: evalcore.drift's level names (a cell's or window's status), said in the reader's language
STATUS_WORDS = {"too few rows": N_("too few rows"), "ok": N_("ok"), "moderate": N_("moderate"), "high": N_("high")}
LIGHT_WORDS = {"green": N_("green"), "yellow": N_("yellow"), "red": N_("red"), "grey": N_("grey")}


def _status(s, locale: str) -> str:
    return t(STATUS_WORDS[str(s)], locale) if str(s) in STATUS_WORDS else str(s)


def _fmt(x, sig: int = 3) -> str:
    """A drift statistic through :func:`board.words.fmt.number` (undefined: —)."""
    return fmt.number(x, sig)


def _p_value(p) -> str:
    """A p-value: "< 0.001" below 0.001 (a plain number would need a dozen zeros)."""
    if fmt.is_undefined(p):
        return fmt.DASH
    return "< 0.001" if p < 0.001 else fmt.number(p, 2)


def _window_ends(windows) -> list[str]:
    return [(w.end - pd.Timedelta(days=1)).strftime("%Y-%m-%d") for w in windows]


def drift_lights_figure(report: DriftReport, *, height: int = 150, font_size: int = FONT_SIZE, locale: str = "en") -> go.Figure:
    """The three lights side by side; hovering a light shows its one-line reason."""
    fams = ["feature", "label", "calibration"]
    lights = [report.lights[f] for f in fams]
    fig = go.Figure(
        go.Scatter(
            x=[t(FAMILY_TITLES[f], locale) for f in fams],
            y=[0, 0, 0],
            mode="markers+text",
            marker=dict(size=46, color=[LIGHT_COLORS[l.color] for l in lights], line=dict(color="#333", width=1)),
            text=[t(LIGHT_WORDS[l.color], locale) if l.color in LIGHT_WORDS else l.color for l in lights],
            textposition="bottom center",
            customdata=[light_reason(l.reason, locale) for l in lights],
            hovertemplate="%{x}: %{text}<br>%{customdata}<extra></extra>",
            name=t("drift lights", locale),
            showlegend=False,
        )
    )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10), template="plotly_white")
    fig.update_yaxes(visible=False, range=[-1, 0.6])
    fig.update_xaxes(showgrid=False)
    return apply_font(fig, font_size)


def feature_heatmap_figure(
    fd: FeatureDrift, *, height: int | None = None, font_size: int = FONT_SIZE, locale: str = "en"
) -> go.Figure:
    """Features × windows heatmap of the drift statistic, coloured relative to each feature's
    red threshold (1 = at the threshold), so KS and PSI rows share one scale.

    Cells whose statistic is below its noise floor show it grey in parentheses (a text trace
    named ``BELOW_NOISE_NAME``); cells of windows with too few rows show "×" before it (named
    ``TOO_FEW_NAME``), whatever its size.
    Hover (the heatmap's) shows the statistic, its noise floor, rows and status.
    """
    x = _window_ends(fd.windows)
    y = [f"{f} ({'KS' if k == 'ks' else 'PSI'})" for f, k in zip(fd.features, fd.kinds)]
    fig = go.Figure()
    if not fd.features or not fd.windows:
        fig.add_annotation(text=light_reason(fd.reason, locale), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
        fig.update_layout(height=height or 200, template="plotly_white")
        return apply_font(fig, font_size)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = fd.statistic / fd.red_threshold[:, None]
    status = fd.status
    n_cur = fd.n_cur
    hover = [
        [
            t(
                "{feature}<br>window ending on {end}<br>statistic {stat}<br>noise floor {floor}"
                "<br>rows {rows} vs reference {ref_rows}<br>status: {status}",
                locale,
                feature=y[i],
                end=x[j],
                stat=_fmt(fd.statistic[i, j]),
                floor=_fmt(fd.noise_floor[i, j]),
                rows=fmt.count(n_cur[i, j]),
                ref_rows=fmt.count(fd.n_ref[i]),
                status=_status(status[i, j], locale),
            )
            for j in range(len(x))
        ]
        for i in range(len(y))
    ]
    below = fd.below_noise
    too_few = status == "too few rows"
    # numbers below their noise floor are drawn grey by their own trace, so marks never cover a number
    text = [
        [("" if below[i, j] or too_few[i, j] else _fmt(v, 2)) for j, v in enumerate(row)] for i, row in enumerate(fd.statistic)
    ]
    fig.add_trace(
        go.Heatmap(
            z=rel,
            x=x,
            y=y,
            zmin=0,
            zmax=2,
            text=text,
            texttemplate="%{text}",
            hovertext=hover,
            hoverinfo="text",
            colorscale=[[0, "#EAF4EA"], [0.5, "#F2B705"], [0.5001, "#F4A259"], [1, "#D62828"]],
            colorbar=dict(
                title=t("statistic ÷ red threshold", locale),
                tickmode="array",
                tickvals=[0, 0.5, 1, 1.5, 2],
                ticktext=number_ticks([0, 0.5, 1, 1.5, 2]),
            ),
            name=t("drift statistic", locale),
        )
    )
    bi, bj = np.nonzero(below & ~too_few)
    fig.add_trace(
        go.Scatter(
            x=[x[j] for j in bj],
            y=[y[i] for i in bi],
            mode="text",
            name=t(BELOW_NOISE_NAME, locale),
            text=[f"({_fmt(fd.statistic[i, j], 2)})" for i, j in zip(bi, bj)],
            textfont=dict(color="#8A8F94", size=small(font_size)),
            hoverinfo="skip",
        )
    )  # the heatmap's hover says it, with the numbers
    ti, tj = np.nonzero(too_few)
    fig.add_trace(
        go.Scatter(
            x=[x[j] for j in tj],
            y=[y[i] for i in ti],
            mode="text",
            name=t(TOO_FEW_NAME, locale),
            text=[f"× {_fmt(fd.statistic[i, j], 2)}" for i, j in zip(ti, tj)],
            textfont=dict(color="#333", size=small(font_size)),
            hoverinfo="skip",
        )
    )
    method = (
        t("exact KS", locale)
        if fd.ks_method == "exact"
        else t("binned KS ({n} reference-quantile bins)", locale, n=fmt.count(fd.n_bins))
    )
    fig.update_layout(
        height=height or max(260, 34 * len(y) + 140),
        template="plotly_white",
        title=dict(
            text=t("Feature drift vs reference {label} — {method}", locale, label=fd.reference.label, method=method),
            font=dict(size=title_size(font_size)),
        ),
        xaxis_title=t(X_TITLE, locale),
        legend=dict(orientation="h", y=-0.25),
        margin=dict(l=10, r=10, t=50, b=10),
    )
    fig.update_yaxes(autorange="reversed")
    return apply_font(fig, font_size)


def feature_distribution_figure(
    fd: FeatureDrift,
    feature: str,
    *,
    window: int = -1,
    height: int = 380,
    font_size: int = FONT_SIZE,
    locale: str = "en",
) -> go.Figure:
    """Reference vs current distribution of one feature in one window (default: the latest).

    Numeric: the two ECDFs on the reference's frozen grid (exact at every grid value).
    Categorical: the share of each level, with the ``(missing)`` and ``(unseen)`` buckets
    shown when either sample has rows in them.
    """
    i = fd.features.index(feature)
    ref = fd.references[i]
    w = fd.windows[window]
    cur = fd.window_counts[i][window].astype(float)
    fig = go.Figure()
    stat_name = "KS" if fd.kinds[i] == "ks" else "PSI"
    ref_name = t("reference {label}", locale, label=fd.reference.label)
    cur_name = t("window {label}", locale, label=w.label)
    if ref.kind == "ks":
        # codes 2k+1 are "equal to edge k": the cumulative share there is the ECDF at the edge
        at_edge = np.arange(1, 2 * ref.edges.size, 2)
        fr = np.cumsum(ref.counts)[at_edge] / max(ref.n, 1)
        fc = np.cumsum(cur)[at_edge] / max(cur.sum(), 1)
        fig.add_trace(
            go.Scatter(
                x=ref.edges,
                y=fr,
                mode="lines",
                line=dict(shape="hv", color="#555", width=2),
                name=ref_name,
            )
        )
        fig.add_trace(go.Scatter(x=ref.edges, y=fc, mode="lines", line=dict(shape="hv", color="#D62828", width=2), name=cur_name))
        fig.update_yaxes(title=t("share of rows ≤ x (ECDF)", locale), range=[0, 1.02])
        set_ticks(fig.update_yaxes, [0, 0.25, 0.5, 0.75, 1], share_ticks)
        fig.update_xaxes(title=feature, **plain_numbers())
    else:
        keep = [k for k, lev in enumerate(ref.levels) if not (lev in ("(missing)", "(unseen)") and ref.counts[k] + cur[k] == 0)]
        levels = [str(ref.levels[k]) for k in keep]
        fig.add_trace(go.Bar(x=levels, y=ref.counts[keep] / max(ref.n, 1), name=ref_name, marker_color="#555"))
        fig.add_trace(go.Bar(x=levels, y=cur[keep] / max(cur.sum(), 1), name=cur_name, marker_color="#D62828"))
        fig.update_layout(barmode="group")
        fig.update_yaxes(title=t("share of rows", locale), tickformat="~%")
        fig.update_xaxes(title=feature)
    j = window % len(fd.windows)
    fig.update_layout(
        height=height,
        template="plotly_white",
        legend=dict(orientation="h", y=-0.2),
        title=dict(
            text=t(
                "{feature}: {stat} {value} (noise floor {floor}, {status})",
                locale,
                feature=feature,
                stat=stat_name,
                value=_fmt(fd.statistic[i, j]),
                floor=_fmt(fd.noise_floor[i, j]),
                status=_status(fd.status[i, j], locale),
            ),
            font=dict(size=title_size(font_size)),
        ),
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return apply_font(fig, font_size)


def label_rate_figure(ld: LabelDrift, *, height: int = 380, font_size: int = FONT_SIZE, locale: str = "en") -> go.Figure:
    """Positive rate per window with Wilson 95% bands against the reference rate and its band.

    Markers: red where the two-proportion test is significant, grey where too few rows.
    A possible label-definition change is marked at the estimated step day.
    """
    x = _window_ends(ld.windows)
    fig = go.Figure()
    if x:
        fig.add_trace(
            go.Scatter(
                x=x + x[::-1],
                y=np.r_[ld.high, ld.low[::-1]],
                fill="toself",
                line=dict(width=0),
                fillcolor="rgba(11,95,255,0.15)",
                name=t("Wilson 95% interval", locale),
                hoverinfo="skip",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=ld.rate,
            mode="lines+markers",
            name=t("positive rate", locale),
            line=dict(color="#0B5FFF", width=2),
            marker=dict(size=9, color=[LEVEL_COLORS[int(v)] for v in ld.level]),
            customdata=[
                [fmt.share(r, 2), fmt.share(lo, 2), fmt.share(hi, 2), _p_value(p), fmt.count(n)]
                for r, lo, hi, p, n in zip(ld.rate, ld.low, ld.high, ld.p_value, ld.n)
            ]
            if x
            else None,
            hovertemplate=t(
                "{x}: {rate} [{low}, {high}]<br>p {p}, rows {rows}",
                locale,
                x="%{x}",
                rate="%{customdata[0]}",
                low="%{customdata[1]}",
                high="%{customdata[2]}",
                p="%{customdata[3]}",
                rows="%{customdata[4]}",
            )
            + "<extra></extra>",
        )
    )
    if np.isfinite(ld.ref_rate):
        fig.add_hline(
            y=ld.ref_rate,
            line=dict(color="#555", dash="dash", width=1.5),
            annotation_text=t("reference {value}", locale, value=fmt.share(ld.ref_rate, 2)),
            annotation_position="top left",
            annotation_font_size=small(font_size),
        )
        fig.add_hrect(y0=ld.ref_interval[0], y1=ld.ref_interval[1], fillcolor="#555", opacity=0.08, line_width=0)
    if ld.label_definition_change and ld.step_date is not None:
        fig.add_vline(x=ld.step_date.strftime("%Y-%m-%d"), line=dict(color="#D62828", dash="dot", width=1.5))
        fig.add_annotation(
            x=ld.step_date.strftime("%Y-%m-%d"),
            y=1,
            yref="paper",
            showarrow=False,
            yanchor="bottom",
            text=t("possible label-definition change", locale),
            font=dict(color="#D62828", size=small(font_size)),
        )
    fig.update_layout(
        height=height,
        template="plotly_white",
        legend=dict(orientation="h", y=-0.25),
        title=dict(
            text=t(
                "Label drift — positive rate per window (two-proportion test, α = {alpha})",
                locale,
                alpha=fmt.number(ld.alpha, 2),
            ),
            font=dict(size=title_size(font_size)),
        ),
        margin=dict(l=10, r=10, t=50, b=10),
    )
    fig.update_yaxes(title=t("observed positive rate", locale), tickformat="~%", rangemode="tozero")
    fig.update_xaxes(title=t(X_TITLE, locale))
    return apply_font(fig, font_size)


def calibration_drift_figure(
    cd: CalibrationDrift, *, height: int = 480, font_size: int = FONT_SIZE, locale: str = "en"
) -> go.Figure:
    """O/E per window (with the interval of its ratio to the reference, scaled back to O/E)
    against the reference O/E and the unchanged band; ECE per window against the reference ECE.
    """
    x = _window_ends(cd.windows)
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[0.62, 0.38],
        subplot_titles=(
            t("observed / expected (O/E)", locale),
            t("ECE ({n} uniform bins)", locale, n=fmt.count(cd.n_bins)),
        ),
    )
    lo, hi = cd.ratio_low * cd.ref_oe, cd.ratio_high * cd.ref_oe
    if x:
        hi_drawn = np.where(np.isfinite(hi), hi, np.nan)
        fig.add_trace(
            go.Scatter(
                x=x + x[::-1],
                y=np.r_[hi_drawn, lo[::-1]],
                fill="toself",
                line=dict(width=0),
                fillcolor="rgba(11,95,255,0.15)",
                name=t("95% interval (vs reference)", locale),
                hoverinfo="skip",
            ),
            row=1,
            col=1,
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=cd.oe,
            mode="lines+markers",
            name="O/E",
            line=dict(color="#0B5FFF", width=2),
            marker=dict(size=9, color=[LEVEL_COLORS[int(v)] for v in cd.level]),
            customdata=[
                [fmt.number(oe, 3), fmt.number(r, 3), fmt.count(o), fmt.number(e, 3)]
                for oe, r, o, e in zip(cd.oe, cd.ratio, cd.observed, cd.expected)
            ]
            if x
            else None,
            hovertemplate=t(
                "{x}: O/E {oe}<br>ratio to reference {ratio}<br>O {o}, E {e}",
                locale,
                x="%{x}",
                oe="%{customdata[0]}",
                ratio="%{customdata[1]}",
                o="%{customdata[2]}",
                e="%{customdata[3]}",
            )
            + "<extra></extra>",
        ),
        row=1,
        col=1,
    )
    if np.isfinite(cd.ref_oe):
        fig.add_hline(
            y=cd.ref_oe,
            line=dict(color="#555", dash="dash", width=1.5),
            row=1,
            col=1,
            annotation_text=t("reference {value}", locale, value=fmt.number(cd.ref_oe, 3)),
            annotation_position="top left",
            annotation_font_size=small(font_size),
        )
        for b in cd.band:
            fig.add_hline(y=cd.ref_oe * b, line=dict(color="#999", dash="dot", width=1), row=1, col=1)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=cd.ece,
            mode="lines+markers",
            name="ECE",
            line=dict(color="#E4572E", width=2),
            customdata=[fmt.number(e, 3) for e in cd.ece],
            hovertemplate="%{x}: ECE %{customdata}<extra></extra>",
        ),
        row=2,
        col=1,
    )
    if np.isfinite(cd.ref_ece):
        fig.add_hline(
            y=cd.ref_ece,
            line=dict(color="#555", dash="dash", width=1.5),
            row=2,
            col=1,
            annotation_text=t("reference {value}", locale, value=fmt.number(cd.ref_ece, 3)),
            annotation_position="top left",
            annotation_font_size=small(font_size),
        )
    fig.update_layout(
        height=height,
        template="plotly_white",
        legend=dict(orientation="h", y=-0.15),
        title=dict(
            text=t(
                "Calibration drift — O/E band {low}–{high} × reference",
                locale,
                low=fmt.number(cd.band[0], 3),
                high=fmt.number(cd.band[1], 3),
            ),
            font=dict(size=title_size(font_size)),
        ),
        margin=dict(l=10, r=10, t=60, b=10),
    )
    fig.update_xaxes(title=t(X_TITLE, locale), row=2, col=1)
    fig.update_yaxes(**plain_numbers())
    return apply_font(fig, font_size)
