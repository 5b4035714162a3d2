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
