"""Value tools figures draw the numbers of evalcore.ahp and evalcore.sensitivity, trace by trace."""

import numpy as np
import plotly.graph_objects as go
import pytest

from board.charts.value_tools import BAND_COLOR, ahp_weights_figure, draws_figure, tornado_figure
from board.words import fmt
from evalcore import ValueTable
from evalcore.ahp import ahp_weights
from evalcore.counts import score_counts
from evalcore.sensitivity import value_sensitivity


def _counts(pos: dict, neg: dict):
    y = [1] * sum(pos.values()) + [0] * sum(neg.values())
    s = [k for k, v in pos.items() for _ in range(v)] + [k for k, v in neg.items() for _ in range(v)]
    return score_counts(y, s)


@pytest.fixture(scope="module")
def sens():
    s = np.round(np.arange(1, 100) / 100, 2)
    cal = score_counts(np.r_[np.ones(99), np.zeros(99)], np.r_[s, s], sample_weight=np.r_[s, 1 - s])
    two = _counts({0.9: 9, 0.1: 1}, {0.9: 10, 0.1: 80})
    return value_sensitivity({"cal": cal, "two": two}, ValueTable(tp=1, fp=-1, fn=-0.2, tn=0.1), n_random=30, rng=0)


def test_ahp_weights_bars_are_the_weights_largest_on_top():
    r = ahp_weights([[1, 4, 3], [1 / 4, 1, 1 / 2], [1 / 3, 2, 1]], items=["TP", "FP", "FN"])
    fig = ahp_weights_figure(r)
    bar = fig.data[0]
    assert dict(zip(bar.y, bar.x)) == pytest.approx(r.weight_of())
    assert list(bar.y)[-1] == "TP" and np.all(np.diff(bar.x) >= 0)  # plotly draws the last category on top
    assert f"CR {fmt.number(r.cr, 3)}" in fig.layout.title.text


@pytest.mark.parametrize("quantity", ["ev_opt", "t_opt"])
def test_tornado_bars_end_at_the_perturbed_values(sens, quantity):
    fig = tornado_figure(sens, "cal", quantity=quantity, unit="EUR")
    bars = [t for t in fig.data if isinstance(t, go.Bar)]
    assert [b.name for b in bars] == ["amount −30%", "amount +30%"]
    base = sens.base_ev_opt[0] if quantity == "ev_opt" else sens.base_t_opt[0]
    vals = sens.oat_ev_opt[0] if quantity == "ev_opt" else sens.oat_t_opt[0]
    cells = ["TP", "FP", "FN", "TN"]
    for d, b in enumerate(bars):
        assert b.base == pytest.approx(base)
        drawn = {y: b.base + x for y, x in zip(b.y, b.x)}
        assert drawn == pytest.approx({c: vals[i, d] for i, c in enumerate(cells)})
    swing = {c: np.max(np.abs(vals[i] - base)) for i, c in enumerate(cells)}
    assert list(bars[0].y)[-1] == max(swing, key=swing.get)  # widest on top
    assert any(s.type == "line" and s.x0 == pytest.approx(base) for s in fig.layout.shapes)
    bands = [s for s in fig.layout.shapes if s.type == "rect"]
    if quantity == "t_opt":
        assert len(bands) == 1 and bands[0].fillcolor == BAND_COLOR
        assert (bands[0].x0, bands[0].x1) == pytest.approx((base - 0.05, base + 0.05))
    else:
        assert not bands and "EUR" in fig.layout.xaxis.title.text


def test_tornado_writes_an_infinite_t_opt_as_text():
    one = _counts({0.5: 1}, {0.5: 1})
    s = value_sensitivity({"m": one}, ValueTable(tp=1, fp=-0.9, fn=0, tn=0), n_random=0)
    fig = tornado_figure(s, "m", quantity="t_opt")
    texts = [t for t in fig.data if isinstance(t, go.Scatter)]
    assert {tuple(t.y) for t in texts} == {("TP",), ("FP",)} and all(t.text == ("∞",) for t in texts)


def test_tornado_rejects_an_unknown_quantity(sens):
    with pytest.raises(ValueError, match="quantity must be one of"):
        tornado_figure(sens, "cal", quantity="auc")


def test_draws_figure_has_every_draw_and_the_band(sens):
    fig = draws_figure(sens)
    assert [t.name for t in fig.data] == ["cal: draws", "two: draws"]
    for i, t in enumerate(fig.data):
        np.testing.assert_allclose(t.x, sens.draw_t_opt[i])
        assert np.all(np.abs(np.asarray(t.y) - i) <= 0.25)  # jitter stays in the model's row
        symbols = np.where(sens.draw_ranking_holds, "circle", "x")
        assert list(t.marker.symbol) == symbols.tolist()
    # "two" acts on no one with this table (9·1.2 − 10·1.1 < 0 at its 0.9 cluster): t_opt = +inf has no band
    assert sens.base_t_opt[1] == np.inf
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    # "cal": t* = Δn/(Δn + Δp) = 1.1/2.3 = 0.478 → act on s ≥ 0.48, t_opt = 0.475; band ± 0.05
    assert len(rects) == 1 and (rects[0].x0, rects[0].x1) == pytest.approx((0.475 - 0.05, 0.475 + 0.05))


def test_value_tools_figures_follow_font_size(sens):
    r = ahp_weights([[1, 4, 3], [1 / 4, 1, 1 / 2], [1 / 3, 2, 1]], items=["TP", "FP", "FN"])
    figs = [
        ahp_weights_figure(r, font_size=18),
        tornado_figure(sens, "cal", unit="EUR", font_size=18),
        draws_figure(sens, font_size=18),
    ]
    for fig in figs:
        assert fig.layout.font.size == 18 and fig.layout.title.font.size >= 18
        assert fig.layout.xaxis.exponentformat == "none"
    draws = figs[2].data[0]
    assert [row[1] for row in draws.customdata] == [fmt.score(t) for t in sens.draw_t_opt[0]]
