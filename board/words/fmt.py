"""The one number formatter (issue 14 item 5): every page, table, chart label, export and the
CLI's text output show numbers through these functions.

Rules: 3–4 significant digits, thousands separators, a unit on every money figure, shares as
percentages, counts as integers, never scientific notation, undefined (None, NaN, ±inf) as an
em dash. ``compact`` money (KPI tiles) fits a narrow tile: 8.14k EUR, or in Chinese 8.14万元.
The functions are pure (no Streamlit); ``locale`` is "en" or Chinese ("zh", "zh_CN", "zh-CN").

Chinese conventions (issue 15 item 4): amounts are grouped by thousands as CLDR's zh locale does
(``babel.numbers``: 1,234,567), large amounts on tiles and axes are compact in 万 (10^4) and 亿
(10^8), a Chinese unit follows the number without a space (8.14万元, 8,143元), and dates read
2026年12月1日 (:func:`date`, :func:`when`). The default unit of a new value table in Chinese is
元 (:func:`default_unit`); an existing table keeps the unit its author set.
"""

from __future__ import annotations

import math
from decimal import Decimal

__all__ = [
    "DASH",
    "date",
    "default_unit",
    "when",
    "count",
    "is_undefined",
    "money",
    "number",
    "probability",
    "score",
    "share",
]

DASH = "—"
_EN_STEPS = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
_ZH_STEPS = ((1e8, "亿"), (1e4, "万"))


def is_undefined(x) -> bool:
    """None, NaN, ±inf, or not a number at all: shown as an em dash."""
    if x is None or isinstance(x, bool):
        return x is None
    try:
        return not math.isfinite(float(x))
    except (TypeError, ValueError):
        return True


def _plain(x: float, decimals: int) -> str:
    """Fixed notation with thousands separators; never "-0"."""
    text = f"{x:,.{max(decimals, 0)}f}"
    return text[1:] if text.startswith("-") and not any(c in "123456789" for c in text) else text


def _decimals_for(x: float, sig: int) -> int:
    """Decimals that show ``sig`` significant digits of ``x`` (none for |x| ≥ 10^(sig−1))."""
    if x == 0:
        return 0
    exponent = math.floor(math.log10(abs(x)))
    return max(sig - 1 - exponent, 0)


def number(x, sig: int = 3, *, signed: bool = False) -> str:
    """A plain number: ``sig`` significant digits (no fewer integer digits), separators, no
    scientific notation. 0.14285714 → "0.143"; 2.503e-05 → "0.0000250"; 1329.0 → "1,329";
    1234567.8 → "1,234,568"."""
    if is_undefined(x):
        return DASH
    x = float(x)
    if 0 < abs(x) < 1e-6:  # float noise or a tiny p-value: a bound, not a row of zeros
        return "< 0.000001" if x > 0 else "> -0.000001"
    decimals = _decimals_for(x, sig)
    # round first: 0.99951 with 3 digits is "1.00", not "0.9995"
    rounded = float(round(Decimal(repr(x)), decimals))
    if rounded != 0 and _decimals_for(rounded, sig) < decimals:
        decimals = _decimals_for(rounded, sig)
    text = _plain(rounded, decimals)
    if signed and rounded > 0:
        text = "+" + text
    return text


def count(n) -> str:
    """A count as an integer with separators (weighted counts are rounded): 1329.0 → "1,329"."""
    if is_undefined(n):
        return DASH
    return _plain(round(float(n)), 0)


def _is_zh(locale) -> bool:
    return str(locale or "").lower().startswith("zh")


def _cjk(text: str) -> bool:
    return bool(text) and "\u2e80" <= text[0] <= "\u9fff"


def _with_unit(text: str, unit: str) -> str:
    """A number and its unit: "8,143 EUR", "8,143元" (a Chinese unit follows without a space)."""
    if not unit:
        return text
    return f"{text}{unit}" if _cjk(unit) else f"{text} {unit}"


def default_unit(locale) -> str:
    """The money unit of a new value table: 元 in Chinese, EUR otherwise."""
    return "元" if _is_zh(locale) else "EUR"


def date(d, locale="en") -> str:
    """A calendar date as text: "2026-12-01", in Chinese "2026年12月1日"."""
    if d is None:
        return DASH
    if hasattr(d, "date") and callable(d.date):
        d = d.date()
    return f"{d.year}年{d.month}月{d.day}日" if _is_zh(locale) else d.isoformat()


def when(dt, locale="en") -> str:
    """A moment as text to the minute: "2026-12-01 14:05", in Chinese "2026年12月1日 14:05"."""
    if dt is None:
        return DASH
    return f"{date(dt, locale)} {dt:%H:%M}"


def _compact(x: float, locale: str) -> str | None:
    steps = _ZH_STEPS if _is_zh(locale) else _EN_STEPS
    for size, suffix in steps:
        if abs(x) >= size:
            return number(x / size, 3) + suffix
    return None


def money(x, unit: str = "", *, signed: bool = False, compact: bool = False, locale: str = "en") -> str:
    """A money figure with its unit: 4 significant digits but never fewer than the integer part,
    and cents only below 100: −467.98 → "-468.0 EUR", 44.8 → "44.80 EUR", 8143.2 → "8,143 EUR".
    ``compact`` shortens large amounts for a tile: "8.14k EUR" ("8.14万元" in Chinese, where
    amounts below 10,000 stay whole: "8,143元")."""
    if is_undefined(x):
        return DASH
    x = float(x)
    text = None
    if compact:
        text = _compact(x, locale)
        if text is not None and signed and x > 0:
            text = "+" + text
    if text is None:
        if abs(x) >= 1:
            decimals = min(2, _decimals_for(x, 4))
            rounded = round(x, decimals)
            decimals = min(2, _decimals_for(rounded, 4))  # 99.999 → 100.0, not 100.00
            text = ("+" if signed and rounded > 0 else "") + _plain(rounded, decimals)
        else:
            text = number(x, 3, signed=signed)
    return _with_unit(text, unit)


def share(p, digits: int = 1, *, signed: bool = False) -> str:
    """A share as a percentage: 0.1234 → "12.3%"; tiny non-zero shares keep one significant
    digit (0.00004 → "0.004%") rather than showing as 0."""
    if is_undefined(p):
        return DASH
    pct = float(p) * 100
    text = f"{pct:.{digits}f}"
    if pct != 0 and float(text) == 0:
        text = number(pct, 1)
    if signed and pct > 0:
        text = "+" + text
    return text + "%"


def probability(p, n_draws: int | None = None) -> str:
    """A bootstrap share (P(B better) and the like) as a percentage that never claims certainty:
    above 99.9% it is "> 99.9%", below 0.1% "< 0.1%" (a finite number of draws cannot show 100%)."""
    if is_undefined(p):
        return DASH
    p = float(p)
    if p > 0.999:
        return "> 99.9%"
    if p < 0.001:
        return "< 0.1%"
    return share(p, 1)


def score(t) -> str:
    """A score threshold: up to 3 significant digits without trailing zeros ("0.412", "0.09",
    "0.5"); +inf means acting on no one."""
    if t is None or (isinstance(t, float) and math.isnan(t)):
        return DASH
    if t == math.inf:
        return "∞"
    if t == -math.inf:
        return "-∞"
    text = number(t, 3)
    return text.rstrip("0").rstrip(".") if "." in text else text
