"""Plotly figures for the Value tools page: AHP weights, the sensitivity tornado, the joint draws.

No Streamlit calls and no math: every number drawn comes from ``evalcore.ahp`` or
``evalcore.sensitivity``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from board.charts._style import FONT_SIZE, PALETTE, apply_font, lens_of, plain_numbers, quantity_title, title_size
from board.words import fmt
from board.words.i18n import N_, t
from board.words.lens import Lens
from evalcore.ahp import AHPWeights
from evalcore.sensitivity import CELL_NAMES, ValueSensitivity
from evalcore.value import CELLS

LOW_COLOR, HIGH_COLOR = "#E4572E", "#0B5FFF"
BAND_COLOR = "rgba(118, 176, 65, 0.18)"
QUANTITIES = {"ev_opt": N_("EV per decision at the optimum"), "t_opt": N_("optimal threshold t_opt")}


def _fmt(x: float, unit: str = "", *, signed: bool = True, locale: str = "en") -> str:
    """EV (with a unit: signed money; an expected loss unsigned) or a threshold (without: ∞ for act on no one)."""
    if unit:
        return fmt.money(x, unit, signed=signed, locale=locale)
    return fmt.score(x) if not (np.isinf(x) and x < 0) else "−∞"


def ahp_weights_figure(result: AHPWeights, *, height: int = 260, font_size: int = FONT_SIZE, locale: str = "en") -> go.Figure:
    """Horizontal bars of the weights, largest on top, labelled with the weight."""
    L = locale
    order = np.argsort(result.weights)
    fig = go.Figure(
        go.Bar(
            x=result.weights[order],
            y=[result.items[i] for i in order],
            orientation="h",
            name=t("weight", L),
            marker_color=PALETTE[0],
            text=[fmt.number(result.weights[i], 3) for i in order],
            textposition="auto",
            customdata=[fmt.number(result.weights[i], 4) for i in order],
            hovertemplate=t("{item}: weight {w}", L, item="%{y}", w="%{customdata}") + "<extra></extra>",
        )
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=40, b=40),
        template="plotly_white",
        showlegend=False,
        title=dict(text=t("AHP weights (CR {cr})", L, cr=fmt.number(result.cr, 3)), font=dict(size=title_size(font_size))),
    )
    fig.update_xaxes(title=t("weight (sums to 1)", L), rangemode="tozero", **plain_numbers())
    return apply_font(fig, font_size)


def tornado_figure(
    sens: ValueSensitivity,
    model: str,
    *,
    quantity: str = "ev_opt",
    unit: str = "",
    height: int = 300,
    font_size: int = FONT_SIZE,
    lens: Lens | None = None,
    locale: str = "en",
) -> go.Figure:
    """One model's tornado: for each amount, the value of ``quantity`` after −p and +p.

    Bars start at the unperturbed value (the vertical line) and end at the perturbed one,
    −p and +p side by side; the widest swing is on top. ``quantity`` is "ev_opt" (EV per decision at the
    re-optimised threshold) or "t_opt". For t_opt the green band is the robustness limit
    (base ± t_tol). A perturbation whose t_opt is not finite (act on no one) is drawn as
    text instead of a bar.

    Under the loss ``lens`` the "ev_opt" tornado is of the expected loss at the re-optimised
    threshold (−EV: base and every bar end negated, the same swings); "t_opt" does not change.
    """
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {sorted(QUANTITIES)}; got {quantity!r}")
    lens = lens_of(lens)
    L = lens.locale if lens.locale != "en" else locale
    loss = lens.loss and quantity == "ev_opt"
    i = sens.models.index(model)
    base = float(sens.base_ev_opt[i] if quantity == "ev_opt" else sens.base_t_opt[i])
    vals = sens.oat_ev_opt[i] if quantity == "ev_opt" else sens.oat_t_opt[i]  # (4 cells, 2 directions)
    if loss:
        base, vals = lens.amount(base), lens.amount(np.asarray(vals, dtype=float))
    with np.errstate(invalid="ignore"):
        swing = np.nan_to_num(np.abs(vals - base), nan=0.0, posinf=np.inf).max(axis=1)
    order = np.argsort(swing, kind="stable")  # plotly draws the first category at the bottom
    labels = [CELL_NAMES[CELLS[c]] for c in order]
    pct = round(sens.perturbation * 100)
    fig = go.Figure()
    steps = ((f"−{pct}%", LOW_COLOR), (f"+{pct}%", HIGH_COLOR))
    for d, (step, color) in enumerate(steps):
        name = t("amount {step}", L, step=step)
        v = vals[order, d]
        finite = np.isfinite(v)
        fig.add_trace(
            go.Bar(
                y=labels,
                x=np.where(finite, v - base, 0.0) if np.isfinite(base) else np.zeros(4),
                base=base if np.isfinite(base) else 0.0,
                orientation="h",
                name=name,
                marker_color=color,
                customdata=[_fmt(x, unit if quantity == "ev_opt" else "", signed=not loss, locale=L) for x in v],
                hovertemplate="%{y} " + step + ": %{customdata}<extra></extra>",
            )
        )
        if not finite.all():
            fig.add_trace(
                go.Scatter(
                    x=[base] * int((~finite).sum()),
                    y=[labels[k] for k in np.flatnonzero(~finite)],
                    mode="text",
                    text=[_fmt(x) for x in v[~finite]],
                    showlegend=False,
                    name=t("{name} not finite", L, name=name),
                    textposition="middle right",
                )
            )
    if np.isfinite(base):
        fig.add_vline(x=base, line=dict(color="#333", width=1, dash="dot"))
        if quantity == "t_opt":
            tol = float(sens.t_tol[i])
            fig.add_vrect(x0=base - tol, x1=base + tol, fillcolor=BAND_COLOR, line_width=0, layer="below")
    what = t("{quantity} at the optimum", L, quantity=lens.Quantity) if loss else t(QUANTITIES[quantity], L)
    base_text = _fmt(base, unit if quantity == "ev_opt" else "", signed=not loss, locale=L)
    if quantity == "t_opt" and np.isfinite(base):
        limit = fmt.number(float(sens.t_tol[i]), 3)
        title = t("{model}: {what} (base {base}; green: ±{limit} limit)", L, model=model, what=what, base=base_text, limit=limit)
    else:
        title = t("{model}: {what} (base {base})", L, model=model, what=what, base=base_text)
    fig.update_layout(
        barmode="group",
        bargap=0.25,
        height=height,
        margin=dict(l=10, r=10, t=50, b=40),
        template="plotly_white",
        title=dict(text=title, font=dict(size=title_size(font_size))),
        legend=dict(orientation="h", y=-0.25, x=0),
    )
    if quantity == "ev_opt" and unit:
        xt = t("EV per decision ({unit}, gains positive)", L, unit=unit)
    elif quantity == "ev_opt":
        xt = t("EV per decision (gains positive)", L)
    else:
        xt = t("threshold (act when score ≥ t)", L)
    if loss:
        xt = quantity_title(lens, unit)
    fig.update_xaxes(title=xt, **plain_numbers())
    return apply_font(fig, font_size)


def draws_figure(sens: ValueSensitivity, *, height: int = 300, font_size: int = FONT_SIZE, locale: str = "en") -> go.Figure:
    """t_opt of every joint random draw, one row per model, with the base and its ±t_tol band."""
    L = locale
    fig = go.Figure()
    for i, m in enumerate(sens.models):
        t_draws = sens.draw_t_opt[i]
        if np.isnan(t_draws).all():
            continue
        rng = np.random.default_rng(i)  # vertical jitter only, so points do not hide each other
        y = i + rng.uniform(-0.25, 0.25, size=t_draws.size)
        ok = sens.draw_ranking_holds
        fig.add_trace(
            go.Scatter(
                x=t_draws,
                y=y,
                mode="markers",
                name=t("{m}: draws", L, m=m),
                marker=dict(color=PALETTE[i % len(PALETTE)], size=6, opacity=0.6, symbol=np.where(ok, "circle", "x").tolist()),
                customdata=[[fmt.count(k), fmt.score(v)] for k, v in enumerate(t_draws, start=1)],
                hovertemplate=t("draw {k}: t_opt {v}", L, k="%{customdata[0]}", v="%{customdata[1]}") + "<extra></extra>",
            )
        )
        b, tol = float(sens.base_t_opt[i]), float(sens.t_tol[i])
        if np.isfinite(b):
            fig.add_shape(
                type="rect", x0=b - tol, x1=b + tol, y0=i - 0.4, y1=i + 0.4, fillcolor=BAND_COLOR, line_width=0, layer="below"
            )
            fig.add_shape(type="line", x0=b, x1=b, y0=i - 0.4, y1=i + 0.4, line=dict(color="#333", width=2))
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=50, b=40),
        template="plotly_white",
        title=dict(
            text=t(
                "t_opt in {n} joint random draws (× marks a draw where the ranking changed)",
                L,
                n=fmt.count(sens.n_random),
            ),
            font=dict(size=title_size(font_size)),
        ),
        legend=dict(orientation="h", y=-0.25, x=0),
    )
    fig.update_yaxes(tickvals=list(range(len(sens.models))), ticktext=list(sens.models), range=[-0.6, len(sens.models) - 0.4])
    fig.update_xaxes(title=t("optimal threshold t_opt (bar: base; green: ± limit)", L), **plain_numbers())
    return apply_font(fig, font_size)
