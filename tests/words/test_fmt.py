"""The one number formatter (issue 14 item 5): hand-derived expectations, and properties over
random numbers (no scientific notation, round trip within the shown precision)."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board.words import fmt


@pytest.mark.parametrize(
    "x, text",
    [
        (0.14285714285714285, "0.143"),  # 1/7 to 3 significant digits
        (2.503e-05, "0.0000250"),  # no scientific notation
        (1.1e-16, "< 0.000001"),  # float noise (an AHP consistency index of 1e-16): a bound, not 16 zeros
        (-3e-9, "> -0.000001"),
        (1329.0, "1,329"),  # a count stored as float
        (1234567.8, "1,234,568"),  # never fewer digits than the integer part
        (0.99951, "1.00"),  # rounding carries into a new digit: still 3 significant
        (0.0, "0"),
        (-0.0001, "-0.000100"),
        (12.0, "12.0"),
    ],
)
def test_number(x, text):
    assert fmt.number(x) == text


@pytest.mark.parametrize(
    "x, kw, text",
    [
        (-467.98, {}, "-468.0 EUR"),  # 4 significant digits
        (44.8, {"signed": True}, "+44.80 EUR"),  # cents below 100
        (8143.2, {}, "8,143 EUR"),
        (8143.2, {"compact": True}, "8.14k EUR"),
        (-946.42, {"compact": True}, "-946.4 EUR"),  # small amounts are not shortened
        (99.999, {}, "100.0 EUR"),  # rounds up to 100: one decimal, not two
        (2.5, {}, "2.50 EUR"),
        (1_000_000.0, {"compact": True}, "1.00M EUR"),
    ],
)
def test_money(x, kw, text):
    assert fmt.money(x, "EUR", **kw) == text


def test_money_chinese_compact_uses_wan():
    assert fmt.money(8143.2, "元", compact=True, locale="zh") == "8,143元"  # below 10,000: whole
    assert fmt.money(8143.2 * 10, "元", compact=True, locale="zh") == "8.14万元"  # 81,432 = 8.1432 × 10^4
    assert fmt.money(3.2e8, "元", compact=True, locale="zh") == "3.20亿元"  # 10^8


@pytest.mark.parametrize("x", [None, float("nan"), float("inf"), -float("inf"), "abc"])
def test_undefined_is_a_dash_never_zero(x):
    assert fmt.number(x) == fmt.DASH
    assert fmt.money(x, "EUR") == fmt.DASH
    assert fmt.count(x) == fmt.DASH
    assert fmt.share(x) == fmt.DASH


def test_shares_and_bootstrap_probabilities():
    assert fmt.share(0.1234) == "12.3%"
    assert fmt.share(0.00004) == "0.004%"  # 0.004 %: not shown as 0.0%
    assert fmt.probability(1.0) == "> 99.9%"  # a finite bootstrap never proves certainty
    assert fmt.probability(0.0) == "< 0.1%"
    assert fmt.probability(0.5) == "50.0%"


def test_score_thresholds():
    assert fmt.score(0.41234) == "0.412"
    assert fmt.score(0.09) == "0.09"  # no trailing zeros on a threshold
    assert fmt.score(0.5) == "0.5"
    assert fmt.score(12.0) == "12"
    assert fmt.score(math.inf) == "∞"
    assert fmt.score(float("nan")) == fmt.DASH


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False))
def test_never_scientific_and_close_to_the_value(x):
    text = fmt.number(x)
    assert not re.search(r"[eE]", text)
    if 0 < abs(x) < 1e-6:
        assert text in ("< 0.000001", "> -0.000001")
        return
    shown = float(text.replace(",", ""))
    # 3 significant digits: within half a unit of the third digit (or of the last integer digit)
    if x == 0:
        assert shown == 0
    elif abs(x) >= 99.95:
        assert abs(shown - x) <= 0.5 + 1e-9 * abs(x)  # whole numbers: the integer part is all shown
    else:
        tolerance = 0.5 * 10 ** (math.floor(math.log10(abs(x))) - 2)
        assert abs(shown - x) <= tolerance * (1 + 1e-6)


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_money_always_carries_its_unit(x):
    assert fmt.money(x, "EUR").endswith(" EUR")
    assert fmt.money(x, "EUR", compact=True).endswith(" EUR")
