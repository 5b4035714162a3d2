"""board.charts: the figures carry the traces the pages rely on."""

import numpy as np

from board import charts
from evalcore import ValueTable, segment_curves, value_curve

T = ValueTable(tp=10, fp=-2, fn=-10, tn=0, unit="EUR")
Y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
S = np.array([0.9, 0.6, 0.4, 0.1, 0.05, 0.7, 0.2, 0.3])


def test_value_curve_figure_traces_and_log_axis():
    curves = {"A": value_curve(Y, S, T)}
    for log_x in (False, True):
        fig = charts.value_curve_figure(
            curves,
            {"A": 0.5},
            unit="EUR",
            log_x=log_x,
            bands={"A": (np.array([0.1, 0.5]), np.array([-1.0, -2.0]), np.array([1.0, 0.0]), 0.9)},
        )
        names = [t.name for t in fig.data]
        assert "A: EV(t)" in names and any(n.startswith("A: optimum") for n in names)
        assert "A: 90% bootstrap band (pointwise)" in names
        assert fig.layout.xaxis.type == ("log" if log_x else None)


def test_segment_heatmap_uses_a_log_axis_only_for_geometric_grids():
    seg = np.array(["a", "b"] * 4)
    lin = segment_curves(Y, S, seg, T, column="s", grid=np.linspace(0.05, 0.9, 11))
    geo = segment_curves(Y, S, seg, T, column="s", grid=np.geomspace(0.05, 0.9, 11))
    assert charts.segment_heatmap_figure(lin).layout.xaxis.type is None
    f = charts.segment_heatmap_figure(geo)
    assert f.layout.xaxis.type == "log"
    assert f.layout.xaxis.range == (np.log10(0.05), np.log10(0.9))


def test_attribution_waterfall_sums_to_ev():
    c = value_curve(Y, S, T)
    terms = c.attribution_at(0.35)
    fig = charts.attribution_figure(terms, unit="EUR")
    assert list(fig.data[0].x) == ["TP", "FP", "FN", "TN", "net EV"]
    assert fig.data[0].y[-1] == sum(terms.values()) == c.ev_at(0.35)


def test_value_curve_figure_without_bands():
    fig = charts.value_curve_figure({"A": value_curve(Y, S, T)}, {"A": 0.5}, log_x=True)
    assert fig.layout.xaxis.type == "log"


def _ev_by_hand(t: float) -> float:
    """EV per decision at threshold t from the eight rows (act when score >= t), by plain counting."""
    act = S >= t
    tp, fp = int(((Y == 1) & act).sum()), int(((Y == 0) & act).sum())
    fn, tn = int(((Y == 1) & ~act).sum()), int(((Y == 0) & ~act).sum())
    return (10 * tp - 2 * fp - 10 * fn + 0 * tn) / len(Y)


def test_value_curve_figure_plots_the_ev_of_every_threshold_and_the_optimum():
    """The plotted points are the EV of the rows at each drawn threshold (counted by hand), the
    star at the best of them; e.g. t = 0.4: TP 3, FP 1, FN 0, TN 4 -> (30 - 2) / 8 = 3.5."""
    fig = charts.value_curve_figure({"A": value_curve(Y, S, T)}, {"A": 0.5}, unit="EUR")
    (ev,) = [t for t in fig.data if t.name == "A: EV(t)"]
    assert sorted(ev.x) == sorted(S)  # every distinct score is a threshold (8 rows, no thinning)
    for x, y in zip(ev.x, ev.y):
        assert y == _ev_by_hand(x), x
    assert _ev_by_hand(0.4) == 3.5
    (star,) = [t for t in fig.data if t.name.startswith("A: optimum")]
    assert star.y[0] == max(_ev_by_hand(x) for x in S) == 3.5
    # the star's threshold is the midpoint of the optimal interval (0.3, 0.4]: it acts on the rows 0.4 acts on
    assert star.x[0] == 0.35 and _ev_by_hand(star.x[0]) == 3.5


def test_segment_heatmap_cells_are_each_levels_ev_on_the_grid():
    """Each heatmap cell is the EV per decision of that level's rows at that grid threshold (base
    rate of prevalence reweighting = the overall rate, so no reweighting here)."""
    seg = np.array(["a", "b"] * 4)
    grid = np.array([0.1, 0.35, 0.65])
    fig = charts.segment_heatmap_figure(segment_curves(Y, S, seg, T, column="s", grid=grid))
    z = np.asarray(fig.data[0].z, dtype=float)
    for i, level in enumerate(["a", "b"]):
        m = seg == level
        for j, t in enumerate(grid):
            act = S[m] >= t
            y = Y[m]
            want = (10 * (y[act] == 1).sum() - 2 * (y[act] == 0).sum() - 10 * (y[~act] == 1).sum()) / m.sum()
            assert z[i, j] == want, (level, t)
