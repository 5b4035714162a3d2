"""Shared hypothesis strategies for evalcore tests.

Scores and weights are drawn from small dyadic grids on purpose: ties are frequent (the
hard case of every threshold sweep) and weighted sums are exact in float64, so properties
can be asserted with ``==`` instead of a tolerance that could hide a bug.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

# dyadic weights: every sum of a few of them is exact in float64
WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0, 3.75)
# neighbouring floats whose midpoint (a + b) / 2 is not strictly between them (it rounds
# onto an end): the hard case of a midpoint threshold
EXTREME_SCORES = (0.0, 5e-324, 1e-323, -5e-324, 0.5, float(np.nextafter(0.5, 1)), float(np.nextafter(1.0, 0)), 1.0)


@st.composite
def binary_data(draw, *, min_size=0, max_size=40, weighted=None, zero_weights=True, kind="probability"):
    """``(y, s, w)``: int8 labels, float64 scores, float64 weights or None.

    kind="probability": scores in [0, 1] on a grid of 1/16 (many ties) or any float in [0, 1];
    kind="score": scores on a grid of 1/8 in [-20, 20] (raw risk scores, negative allowed);
    kind="extreme": adjacent floats where a midpoint rounds onto an end — subnormals (0,
    5e-324, 1e-323) and the neighbours of 0.5 and 1.0.
    ``weighted=None`` draws whether to weight; ``zero_weights`` allows weights of 0.
    """
    n = draw(st.integers(min_size, max_size))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int8)
    if kind == "probability":
        grid = st.integers(0, 16).map(lambda i: i / 16)
        score = draw(st.sampled_from([grid, st.floats(0.0, 1.0, allow_nan=False, width=64)]))
    elif kind == "extreme":
        score = st.sampled_from(EXTREME_SCORES)
    else:
        score = st.integers(-160, 160).map(lambda i: i / 8)
    s = np.array(draw(st.lists(score, min_size=n, max_size=n)), dtype=np.float64)
    if weighted is None:
        weighted = draw(st.booleans())
    w = None
    if weighted:
        choices = WEIGHTS if zero_weights else WEIGHTS[1:]
        w = np.array(draw(st.lists(st.sampled_from(choices), min_size=n, max_size=n)), dtype=np.float64)
    return y, s, w


def two_class(data) -> bool:
    """Both classes present with positive weight."""
    y, _, w = data
    w = np.ones(len(y)) if w is None else w
    return bool(w[y == 1].sum() > 0 and w[y == 0].sum() > 0)


amounts = st.integers(-50_000, 50_000).map(float)


@st.composite
def value_tables(draw, *, confidence=None, prevalence=None):
    """Keyword arguments for ``ValueTable`` (a dict, so tests can build variants of it).

    Integer amounts keep hand sums exact; confidence multipliers are dyadic.
    """
    kw = {c: draw(amounts) for c in ("tp", "fp", "fn", "tn")}
    if confidence is None:
        confidence = draw(st.booleans())
    if confidence:
        kw["confidence"] = {c: draw(st.sampled_from([1.0, 0.5, 0.25, 0.75])) for c in ("tp", "fp", "fn", "tn")}
    if prevalence is None:
        prevalence = draw(st.booleans())
    if prevalence:
        kw["prevalence"] = draw(st.floats(0.01, 0.99))
    return kw


# strictly increasing maps that keep distinct dyadic scores distinct in float64
INCREASING = {
    "affine": lambda s: 3.0 * s - 7.0,
    "exp": np.exp,
    "cube": lambda s: s**3 + s,
    "logistic": lambda s: 1.0 / (1.0 + np.exp(-s)),
}
