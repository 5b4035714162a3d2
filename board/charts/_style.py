"""What every chart shares: the palette (a model keeps its colour across pages), the text
sizes that follow one ``font_size``, and axis ticks whose labels come from the one number
formatter (:mod:`board.words.fmt`), so no chart shows scientific notation or log minor labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

from board.words import fmt
from board.words.i18n import N_, is_chinese, normalize, t
from board.words.lens import Lens

PALETTE = ["#0B5FFF", "#E4572E", "#17BEBB", "#FFC914", "#76B041", "#8E44AD"]
FONT_SIZE = 13  # the board's normal mode; its present mode passes 16 or more
PLOT_WIDTH = 640  # px a board chart gets (used only to leave room for labels beside the data)


VALUE_LENS = Lens()  # no lens given: value per decision, gains positive (the engine's sign)


def lens_of(lens: Lens | None) -> Lens:
    """The lens a builder draws with: ``lens``, or value (gains positive) when None."""
    return VALUE_LENS if lens is None else lens


def quantity_title(lens: Lens, unit: str = "", *, br: str = " ") -> str:
    """An axis or colour-bar title naming the quantity, its unit and its sign convention:
    "Expected loss per decision (EUR, positive = money lost)"; ``br="<br>"`` puts the brackets
    on a line of their own (a vertical axis title of a short chart)."""
    inside = t("{unit}, {convention}", lens.locale, unit=unit, convention=lens.convention) if unit else lens.convention
    return t("{quantity}{br}({inside})", lens.locale, quantity=lens.Quantity, br=br, inside=inside)


# plotly's own Latin fonts first, then CJK fonts (Debian fonts-noto-cjk, macOS, Windows) so Chinese
# segment and model names render as characters, not boxes, in the app and the exports
FONT_FAMILY = (
    '"Open Sans", verdana, arial, "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", '
    '"WenQuanYi Micro Hei", sans-serif'
)


# plotly.js writes some words itself: the dates on a time axis ("Oct 18 / 2026", hover "Oct 18,
# 2026") and the tooltips of a chart's modebar. They come from the locale in the chart's config
# (plotly's own locale bundles are not served offline), in the reader's language: the month and day
# names from CLDR (Babel), the date patterns and tooltips from the catalogs.
PLOTLY_WORDS = (
    N_("Autoscale"),
    N_("Box Select"),
    N_("Lasso Select"),
    N_("Download plot as a png"),
    N_("Download plot"),
    N_("Pan"),
    N_("Reset axes"),
    N_("Reset view"),
    N_("Zoom"),
    N_("Zoom in"),
    N_("Zoom out"),
    N_("Double-click to zoom back out"),
    N_("Show closest data on hover"),
    N_("Compare data on hover"),
    N_("Toggle Spike Lines"),
    N_("Toggle show closest data on hover"),
    N_("Snapshot succeeded"),
    N_("Taking snapshot - this may take a few seconds"),
    N_("Sorry, there was a problem downloading your snapshot!"),
)
#: plotly's date patterns (d3 time format) by its own key, in English as plotly writes them.
PLOTLY_DATE_FORMATS = {
    "year": N_("%Y"),
    "month": N_("%b %Y"),
    "dayMonth": N_("%b %-d"),
    "dayMonthYear": N_("%b %-d, %Y"),
    "date": N_("%m/%d/%Y"),
}


def plotly_config(locale: str = "en", **config) -> dict:
    """A chart's plotly.js config (``config`` plus) in the reader's language: for a language other
    than English, a locale of its own (``config.locales``) whose month and day names, date patterns
    and modebar tooltips are that language's, so a time axis reads 10月18日 / 2026年, not Oct 18."""
    code = normalize(locale)
    if code in (None, "en"):
        return dict(config)
    from babel.dates import get_day_names, get_month_names

    month = {kind: get_month_names(kind, locale=code) for kind in ("wide", "abbreviated")}
    day = {kind: get_day_names(kind, locale=code) for kind in ("wide", "abbreviated")}
    name = code.replace("_", "-")
    formats = {key: t(pattern, code) for key, pattern in PLOTLY_DATE_FORMATS.items()}
    formats.update(
        months=[month["wide"][m] for m in range(1, 13)],
        shortMonths=[month["abbreviated"][m] for m in range(1, 13)],
        # plotly's week starts on Sunday (its day 0), CLDR's on Monday (Babel's day 0)
        days=[day["wide"][(i + 6) % 7] for i in range(7)],
        shortDays=[day["abbreviated"][(i + 6) % 7] for i in range(7)],
    )
    words = {w: t(w, code) for w in PLOTLY_WORDS}
    return {**config, "locale": name, "locales": {name: {"dictionary": words, "format": formats}}}


def small(font_size: int) -> int:
    """Secondary text (annotations, notes): a little smaller, never below 10 px."""
    return max(10, round(0.85 * font_size))


def title_size(font_size: int) -> int:
    return font_size + 2


def apply_font(fig: go.Figure, font_size: int) -> go.Figure:
    """Every text that does not set its own size (ticks, legend, colour bar, hover) follows ``font_size``."""
    fig.update_layout(font=dict(size=font_size, family=FONT_FAMILY), hoverlabel=dict(font_size=font_size))
    return fig


def plain_numbers(axis: dict | None = None) -> dict:
    """Axis settings for plotly's own tick labels where they must follow zoom: plain digits with
    thousands separators, never "1e-05" or "5µ" (``exponentformat="none"``)."""
    return dict(exponentformat="none", separatethousands=True, **(axis or {}))


def nice_ticks(lo: float, hi: float, n: int = 5) -> np.ndarray:
    """Round values (steps 1, 2, 2.5 or 5 × 10^k) inside [lo, hi], about ``n`` of them."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
        return np.array([lo]) if np.isfinite(lo) else np.array([])
    raw = (hi - lo) / max(n - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))

    def count(step: float) -> int:
        return math.floor(hi / step + 1e-9) - math.ceil(lo / step - 1e-9) + 1

    step = min((m * mag for m in (1, 2, 2.5, 5, 10)), key=lambda s: (abs(count(s) - n), -s))
    first = math.ceil(lo / step - 1e-9) * step
    ticks = np.arange(first, hi + step * 1e-9, step)
    ticks[np.abs(ticks) < step * 1e-9] = 0.0  # no "-0"
    return ticks


def log_ticks(lo: float, hi: float) -> np.ndarray:
    """Tick values for a log axis over [lo, hi] (lo > 0): decades (0.001, 0.01, 0.1, …) when the
    axis spans two decades or more, else 1-2-5 values, so every label is a round number."""
    if not (lo > 0 and hi > lo):
        return np.array([lo]) if lo > 0 else np.array([])
    e0, e1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mantissas = (1,) if math.log10(hi / lo) >= 2 else (1, 2, 5)
    vals = np.array([m * 10.0**e for e in range(e0, e1 + 1) for m in mantissas])
    vals = vals[(vals >= lo * (1 - 1e-9)) & (vals <= hi * (1 + 1e-9))]
    if len(vals) < 2:  # less than one decade without a 1-2-5 value inside: use the ends
        vals = np.array([lo, hi])
    return vals


def _decimals(values) -> int:
    """Fewest decimals that tell every value apart as written (0.25 → 2, 500 → 0)."""
    vals = [float(v) for v in values if np.isfinite(v)]
    for d in range(0, 9):
        if all(abs(round(v, d) - v) <= 1e-9 * max(abs(v), 1e-12) for v in vals):
            return d
    return 9


def _plain(v: float, decimals: int) -> str:
    """``v`` through :func:`fmt.number` with exactly ``decimals`` decimals (no trailing noise)."""
    if v == 0:
        return "0"
    sig = max(1, decimals + math.floor(math.log10(abs(v))) + 1)
    return fmt.number(v, sig)


def number_ticks(values, *, signed: bool = False, compact: bool = False, locale: str = "en") -> list[str]:
    """Labels of round tick values through :func:`fmt.number`: "-2,500", "0.25", with ``compact``
    "12.5k" (thousands, millions, …; in Chinese 万 and 亿: "1.5万"). The unit belongs in the axis title."""
    values = [float(v) for v in values]
    scale, suffix = 1.0, ""
    if compact:
        top = max((abs(v) for v in values), default=0.0)
        steps = ((1e8, "亿"), (1e4, "万")) if is_chinese(locale) else ((1e9, "B"), (1e6, "M"), (1e3, "k"))
        scale, suffix = next(((s, x) for s, x in steps if top >= (1 if is_chinese(locale) else 10) * s), (1.0, ""))
    scaled = [v / scale for v in values]
    d = _decimals(scaled)
    out = []
    for v in scaled:
        text = _plain(v, d) + (suffix if v != 0 else "")
        out.append("+" + text if signed and v > 0 else text)
    return out


def log_number_ticks(values) -> list[str]:
    """Labels of log-axis ticks, each with its own decimals: "0.0001", "0.001", "0.01", "0.1"."""
    return [_plain(float(v), _decimals([v])) for v in values]


def money_ticks(values, *, signed: bool = False, locale: str = "en") -> list[str]:
    """Money tick labels (unit in the axis title), compact from 10,000 on: "-500", "12.5k"
    (in Chinese "1.25万")."""
    top = max((abs(float(v)) for v in values), default=0.0)
    return number_ticks(values, signed=signed, compact=top >= 10_000, locale=locale)


def share_ticks(values) -> list[str]:
    """Share tick labels through :func:`fmt.share`: "0.1%", "5%", "25%", "100%"."""
    return [fmt.share(v, _decimals([100 * float(v)])) for v in values]


def set_ticks(axis_update: Callable, values, labels) -> None:
    """Fixed ticks at ``values`` with ``labels`` (a list, or a function of the list of values)."""
    values = [float(v) for v in values]
    text = labels(values) if callable(labels) else list(labels)
    axis_update(tickmode="array", tickvals=values, ticktext=text)


def padded(lo: float, hi: float, frac: float = 0.08) -> tuple[float, float]:
    """[lo, hi] widened by ``frac`` of its span on each side (by 1 when lo == hi)."""
    span = hi - lo
    pad = frac * span if span > 0 else max(abs(hi), 1.0) * 0.1
    return lo - pad, hi + pad


def text_px(text: str, font_size: int) -> float:
    """Rough width in px of ``text`` in the default sans-serif font (for room beside the data)."""
    return 0.58 * font_size * len(text)


def wrap(text: str, width: int) -> str:
    """``text`` on lines of about ``width`` characters joined by <br> (after "_", "-", "/" or a
    space where possible), every character kept: a long model name on a category axis wraps
    instead of being tilted into the margin and cut."""
    if len(text) <= width:
        return text
    tokens = re.findall(r"[^_\-/ ]*[_\-/ ]|[^_\-/ ]+$", text)
    lines, line = [], ""
    for tok in tokens:
        while len(tok.rstrip("_-/ ")) > 1.5 * width:  # a very long word: split it
            if line:
                lines.append(line)
                line = ""
            lines.append(tok[:width])
            tok = tok[width:]
        if line and len(line) + len(tok.rstrip("_-/ ")) > width:
            lines.append(line)
            line = ""
        line += tok
    if line:
        lines.append(line)
    return "<br>".join(x.rstrip(" ") for x in lines)


def category_chars(n: int, font_size: int, width: int = PLOT_WIDTH) -> int:
    """Characters of a category label that fit its slot on an axis of ``n`` categories."""
    slot = (width - 90) / max(n, 1)
    return max(10, int(slot / (0.6 * font_size)))
