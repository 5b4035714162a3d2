"""board.charts.uncertainty: figures carry the numbers of the results they draw."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from board.charts.uncertainty import (
    add_curve_band,
    ci_bars_figure,
    comparison_figure,
    curve_band_figure,
    metric_intervals_figure,
    t_opt_histogram,
    uncertainty_summary_figure,
)
from board.words import fmt
from evalcore.bootstrap import (
    BootstrapResult,
    CurveBand,
    compare_models,
    ev_interval,
    metric_intervals,
    optimum_interval,
)
from evalcore.value import ValueTable

TABLE = ValueTable(tp=10, fp=-2, fn=-10, tn=0, unit="EUR")


def data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 2 * y - 1))), 2)
    return y, s


def test_ci_bars_carry_estimate_and_interval():
    y, s = data()
    r = ev_interval(y, s, TABLE, threshold=0.5, n_resamples=200, rng=0)
    fig = ci_bars_figure([("EV A", r), ("tuple", (1.0, 0.5, 2.0))], unit="EUR")
    assert isinstance(fig, go.Figure)
    a, t = fig.data
    assert a.name == "EV A" and a.x[0] == pytest.approx(r.estimate)
    assert a.x[0] - a.error_x.arrayminus[0] == pytest.approx(r.low)
    assert a.x[0] + a.error_x.array[0] == pytest.approx(r.high)
    assert (t.x[0], t.error_x.arrayminus[0], t.error_x.array[0]) == (1.0, 0.5, 1.0)
    assert any(s.x0 == 0 for s in fig.layout.shapes)  # the zero line


def test_undefined_interval_is_a_point_not_a_bar():
    r = BootstrapResult(
        estimate=3.0,
        low=float("nan"),
        high=float("nan"),
        level=0.95,
        standard_error=float("nan"),
        method="bca",
        scheme="rows",
        n_resamples=10,
        undefined={"interval": "BCa is undefined: the jackknife is degenerate"},
    )
    fig = ci_bars_figure([("x", r)])
    tr = fig.data[0]
    assert tr.error_x.visible is False and tr.marker.symbol == "x"
    assert "interval undefined" in tr.text[0]
    assert "jackknife is degenerate" in tr.hovertemplate


def test_comparison_figure_states_verdict_and_probability():
    y = np.array([1, 0] * 100)
    c = compare_models(
        y,
        np.array([0.4, 0.6] * 100),
        np.array([0.9, 0.1] * 100),
        TABLE,
        threshold_a=0.5,
        threshold_b=0.5,
        n_resamples=200,
        rng=0,
        names=("old", "new"),
    )
    fig = comparison_figure(c, unit="EUR")
    assert c.verdict_text in fig.layout.title.text
    # 200 replicates cannot show certainty: board.words.fmt.probability writes "> 99.9%"
    assert c.p_b_better == 1.0 and "P(new better) > 99.9%" in fig.layout.title.text
    assert "rows scheme" in fig.layout.title.text
    names = [d.name for d in fig.data]
    t = fmt.score(0.5)
    assert names == [f"EV old (t={t})", f"EV new (t={t})", "new − old"]
    assert fig.data[2].x[0] == pytest.approx(c.diff.estimate)


def test_metric_intervals_figure_uses_wilson_bounds():
    m = metric_intervals(8, 12, 2, 78)
    fig = metric_intervals_figure(m, threshold=0.5)
    rec = next(d for d in fig.data if d.name == "recall")
    assert rec.x[0] == pytest.approx(0.8)
    assert rec.x[0] - rec.error_x.arrayminus[0] == pytest.approx(m.recall.low)
    assert "Wilson" in fig.layout.title.text
    assert tuple(fig.layout.xaxis.range) == (0, 1)
    # proportions are written as shares: the row label and the axis
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    assert ticks["recall"] == f"recall<br><b>{fmt.share(0.8)}</b> [{fmt.share(m.recall.low)}, {fmt.share(m.recall.high)}]"
    assert list(fig.layout.xaxis.ticktext) == ["0%", "25%", "50%", "75%", "100%"]


def test_t_opt_histogram_and_band():
    y, s = data()
    o = optimum_interval(y, s, TABLE, n_resamples=200, rng=0)
    fig = t_opt_histogram(o, deployed=0.5)
    h = fig.data[0]
    assert isinstance(h, go.Histogram)
    assert len(h.x) == np.isfinite(o.t_opt.distribution).sum()
    assert any(abs(sh.x0 - o.t_opt.estimate) < 1e-12 for sh in fig.layout.shapes if sh.type == "line")
    band_fig = curve_band_figure(o, name="A", unit="EUR")
    fill = band_fig.data[0]
    assert fill.fill == "toself" and len(fill.x) == 2 * len(o.band.grid)
    assert max(fill.y) == pytest.approx(np.max(o.band.high))


def test_band_with_undefined_points_is_split():
    band = CurveBand(
        grid=np.array([0.1, 0.2, 0.3, 0.4]),
        estimate=np.zeros(4),
        low=np.array([0, np.nan, 0, 0.0]),
        high=np.array([1, np.nan, 1, 1.0]),
        level=0.9,
    )
    fig = add_curve_band(go.Figure(), band, name="B")
    assert len(fig.data) == 2  # [0.1] and [0.3, 0.4]; the NaN point is not drawn as 0
    assert fig.data[0].name == "B: 90% band (pointwise)"
    assert [d.showlegend for d in fig.data] == [True, False]


def test_summary_labels_both_questions():
    y, s = data()
    r = ev_interval(y, s, TABLE, threshold=0.5, n_resamples=200, rng=0)
    o = optimum_interval(y, s, TABLE, n_resamples=200, rng=0)
    fig = uncertainty_summary_figure([("EV at deployed t", r), ("EV after re-optimising t", o.ev_opt)], unit="EUR")
    assert [d.name for d in fig.data] == ["EV at deployed t", "EV after re-optimising t"]
    assert "not of training" in fig.layout.title.text
