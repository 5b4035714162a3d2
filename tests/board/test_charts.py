"""board.charts: the figures carry the traces the pages rely on, and read well on a projector
(issue 14 item 4): a share-of-cases axis, legends for the marks, colours fitted to the data,
waterfalls whose deltas show, CI labels off the zero line, one number formatter, one font size."""

import re

import numpy as np
import pytest

from board import charts
from board.charts.uncertainty import ci_bars_figure
from board.charts.value import DEPLOYED_NAME, OPTIMUM_NAME, colour_scale, share_at, share_points
from board.words import fmt
from board.words.lens import Lens
from evalcore import InputError, ValueTable, segment_curves, value_curve

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
    for axis in ("score", "share"):
        assert charts.segment_heatmap_figure(lin, axis=axis).layout.xaxis.type is None
        f = charts.segment_heatmap_figure(geo, axis=axis)
        assert f.layout.xaxis.type == "log"
        ends = (np.log10(0.05), np.log10(0.9))
        # the threshold grows to the right; the share acted on (which falls with it) grows to the right
        assert f.layout.xaxis.range == (ends if axis == "score" else ends[::-1])


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


def test_a_thinned_curve_draws_exact_points_and_always_its_optimum():
    """The what-if draws at most ``max_points`` points per curve (issue 18: a third of the figure to
    send on every edit): each drawn point is still the curve's own EV at that threshold (checked
    against ``ev_at``, the exact step function), its hover says that EV through the formatter, and
    the best point is among them."""
    rng = np.random.default_rng(7)
    y = (rng.random(20_000) < 0.1).astype(int)
    s = np.round(rng.random(20_000), 5)  # ~18,000 distinct scores
    c = value_curve(y, s, T)
    fig = charts.value_curve_figure({"A": c}, {"A": 0.5}, unit="EUR", max_points=500)
    (ev,) = [t for t in fig.data if t.name == "A: EV(t)"]
    assert len(c.thresholds) > 10_000 and 500 <= len(ev.x) <= 501  # the optimum may add one point
    for x, y_, (_, money) in zip(ev.x, ev.y, ev.customdata):
        assert y_ == c.ev_at(x)
        assert money == fmt.money(c.ev_at(x), "EUR", signed=True)
    best = int(np.argmax(c.ev[1:])) + 1
    assert c.thresholds[best] in set(ev.x) and max(ev.y) == c.ev_opt
    full = charts.value_curve_figure({"A": c}, {"A": 0.5}, unit="EUR")
    assert charts.MAX_POINTS <= len([t for t in full.data if t.name == "A: EV(t)"][0].x) <= charts.MAX_POINTS + 1


def test_plotly_safe_escapes_tags_in_hover_arrays_and_keeps_plain_ones():
    """A hover array with a tag in it is escaped element by element; one without is passed on as is."""
    import plotly.graph_objects as go

    from board.export.onepager import _plotly_text, plotly_safe

    tagged = np.array([["<a href='x'>m</a>", "1 EUR"], ["plain", "2 EUR"]], dtype=object)
    plain = np.array([["score ≥ 0.5", "1 EUR"]], dtype=object)
    fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 2], customdata=tagged), go.Scatter(x=[1], y=[1], customdata=plain)])
    safe = plotly_safe(fig)
    assert safe.data[0].customdata[0][0] == "&lt;a href='x'>m&lt;/a>" and safe.data[0].customdata[1][0] == "plain"
    assert [list(r) for r in safe.data[1].customdata] == [["score ≥ 0.5", "1 EUR"]]
    ragged = np.empty(2, dtype=object)  # an array of lists: the tag inside a list is escaped too
    ragged[0], ragged[1] = ["<b>x", "<a href='y'>"], ["plain"]
    assert _plotly_text(ragged)[0] == ["<b>x", "&lt;a href='y'>"]


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


# --------------------------------------------------------------------------- issue 14 item 4: business-grade charts

W = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 1.0, 0.5])  # row weights of the eight rows
SCI = re.compile(r"\d[eE][-+]?\d")  # 1e-05, 2.5E+04


def _hand_share(t: float, w=W) -> float:
    """Weighted share of the rows with score >= t, by plain counting."""
    return float(w[S >= t].sum() / w.sum())


def _texts(fig) -> list[str]:
    """Every text a figure shows: tick labels, colour-bar labels, trace texts, hovers, names, annotations."""
    out = []
    lay = fig.layout
    for ax in (lay.xaxis, lay.yaxis):
        out += [str(t) for t in (ax.ticktext or ())]
    for a in lay.annotations:
        out.append(str(a.text))
    for tr in fig.data:
        out.append(str(tr.name))
        for attr in ("text", "customdata", "hovertemplate"):
            v = getattr(tr, attr, None)
            if v is not None:
                out.append(str(np.asarray(v, dtype=object).tolist()))
        cb = getattr(tr, "colorbar", None)
        if cb is not None and cb.ticktext:
            out += [str(t) for t in cb.ticktext]
    return out


def test_share_points_and_share_at_are_the_weighted_share_of_rows_at_or_above_t():
    """tp + fp over all cases at each point = the weighted share of rows with score >= t (hand count);
    e.g. t = 0.4: rows 0.9, 0.6, 0.4, 0.7 with weights 1, 2, 1, 3 -> 7 of 10."""
    c = value_curve(Y, S, T, sample_weight=W)
    assert _hand_share(0.4) == 0.7
    shares = share_points(c)
    assert shares[0] == 0.0 and shares[-1] == 1.0  # act on no one / on everyone
    for t, s in zip(c.thresholds[1:], shares[1:]):
        assert s == pytest.approx(_hand_share(t)), t
    for t in (0.05, 0.25, 0.4, 0.65, 0.95):  # any threshold, not only the scores
        assert share_at(c, t) == pytest.approx(_hand_share(t))
        assert share_at(c, t) == pytest.approx(c.confusion_at(t).positive_rate)  # evalcore's own point rule
    ts = np.r_[np.unique(S), 0.0, 0.3, 1.0]
    np.testing.assert_allclose(share_at(c, ts), [_hand_share(t) for t in ts])  # vectorised: the same
    assert share_at(c, np.inf) == 0.0 and share_at(c, -np.inf) == 1.0
    # with a production prevalence the share is priced as the EV is: π·TPR + (1 − π)·FPR
    cp = value_curve(Y, S, ValueTable(tp=10, fp=-2, fn=-10, tn=0, prevalence=0.1))
    act = S >= 0.4
    tpr, fpr = act[Y == 1].mean(), act[Y == 0].mean()
    assert share_at(cp, 0.4) == pytest.approx(0.1 * tpr + 0.9 * fpr)
    (i,) = np.flatnonzero(cp.thresholds == 0.4)
    assert share_points(cp)[i] == pytest.approx(0.1 * tpr + 0.9 * fpr)


def test_value_curve_share_axis_plots_each_point_at_its_hand_counted_share():
    fig = charts.value_curve_figure({"A": value_curve(Y, S, T, sample_weight=W)}, {"A": 0.5}, axis="share")
    (ev,) = [t for t in fig.data if t.name == "A: EV(t)"]
    w_ev = {}  # hand: weighted EV and share at every distinct score, and acting on no one
    for t in np.unique(S):
        act = S >= t
        tp, fp = W[act & (Y == 1)].sum(), W[act & (Y == 0)].sum()
        fn = W[~act & (Y == 1)].sum()
        w_ev[round(_hand_share(t), 12)] = (10 * tp - 2 * fp - 10 * fn) / W.sum()
    w_ev[0.0] = -10 * W[Y == 1].sum() / W.sum()
    assert sorted(round(x, 12) for x in ev.x) == sorted(w_ev)
    for x, y in zip(ev.x, ev.y):
        assert y == pytest.approx(w_ev[round(x, 12)])
    assert fig.layout.xaxis.title.text.startswith("share of cases acted on")
    # the threshold stays in the hover: "score ≥ 0.4 · acts on 70.0% of cases"
    assert any(f"score ≥ {fmt.score(0.4)} · acts on {fmt.share(0.7)}" in str(row[0]) for row in ev.customdata)
    (dep,) = [t for t in fig.data if t.name.startswith("A: deployed")]
    assert dep.x[0] == pytest.approx(_hand_share(0.5)) and dep.line.dash == "dash"
    with pytest.raises(InputError, match="axis must be"):
        charts.value_curve_figure({"A": value_curve(Y, S, T)}, {"A": 0.5}, axis="percent")


@pytest.mark.parametrize("axis", ["score", "share"])
def test_log_axes_have_round_labelled_ticks_and_no_scientific_notation(axis):
    """Scores down to 1e-5: every log tick is a round value (1-2-5 or decade) labelled by its own
    value (no minor "2", "5" labels), and no number anywhere on the figure is written as 1e-05."""
    s = np.array([0.9, 0.2, 0.03, 0.004, 0.0005, 0.00006, 0.00001, 0.3])
    y = np.array([1, 0, 1, 0, 0, 0, 0, 1])
    fig = charts.value_curve_figure({"A": value_curve(y, s, T)}, {"A": 0.01}, axis=axis, log_x=True, unit="EUR")
    ax = fig.layout.xaxis
    assert ax.type == "log" and ax.tickmode == "array" and len(ax.tickvals) >= 3
    for v, label in zip(ax.tickvals, ax.ticktext):
        mantissa = v / 10 ** np.floor(np.log10(v))
        assert round(mantissa, 9) in (1, 2, 5), v
        value = float(label.rstrip("%")) / (100 if label.endswith("%") else 1)
        assert value == pytest.approx(v), (v, label)
    assert not [t for t in _texts(fig) if SCI.search(t)]
    assert fig.layout.yaxis.exponentformat == "none"


def _segments(table=T, grid=(0.1, 0.35, 0.65)):
    seg = np.array(["a", "b"] * 4)
    grid = np.asarray(grid, dtype=float)
    return seg, segment_curves(Y, S, seg, table, column="s", grid=grid, sample_weight=W, deployed=0.5)


def test_segment_heatmap_share_axis_hover_is_the_hand_counted_share():
    seg, sc = _segments()
    fig = charts.segment_heatmap_figure(sc, unit="EUR")  # default: the share axis
    heat = fig.data[0]
    np.testing.assert_array_equal(heat.x, sc.grid)  # cells stay the grid's thresholds
    for j, t in enumerate(sc.grid):
        assert share_at(sc.curves, t) == pytest.approx(_hand_share(t))  # over every segment
        for i, level in enumerate(["a", "b"]):
            m = seg == level
            own = W[m][S[m] >= t].sum() / W[m].sum()
            assert f"acts on {fmt.share(_hand_share(t))} of all cases ({fmt.share(own)} of this segment)" in heat.text[i][j]
    # tick labels are shares; each sits between the grid thresholds whose shares bracket it
    ax = fig.layout.xaxis
    assert ax.title.text == "share of cases acted on" and len(ax.tickvals) >= 2
    g = sc.grid
    for v, label in zip(ax.tickvals, ax.ticktext):
        assert label.endswith("%") and not SCI.search(label)
        s = float(label[:-1]) / 100
        j = np.searchsorted(g, v)  # g[j-1] < v <= g[j]
        assert _hand_share(g[max(j - 1, 0)]) >= s - 1e-12 and _hand_share(g[min(j, len(g) - 1)]) <= s + 1e-12


def test_segment_heatmap_legend_names_the_stars_and_the_deployed_line():
    _, sc = _segments()
    fig = charts.segment_heatmap_figure(sc)
    assert fig.layout.showlegend is True
    (stars,) = [t for t in fig.data if t.name == OPTIMUM_NAME]
    assert stars.marker.symbol == "star" and stars.showlegend is not False
    (line,) = [t for t in fig.data if t.name.startswith(DEPLOYED_NAME)]
    assert line.mode == "lines" and line.line.dash == "dash" and line.showlegend is not False
    assert fmt.score(0.5) in line.name and fmt.share(_hand_share(0.5)) in line.name
    # the dashed line itself is drawn at the deployed threshold
    assert any(sh.type == "line" and sh.x0 == 0.5 and sh.line.dash == "dash" for sh in fig.layout.shapes)


def test_colour_scale_is_sequential_inside_the_data_when_every_cell_is_a_loss():
    lossy = ValueTable(tp=-1, fp=-2, fn=-10, tn=-0.5)  # every outcome costs: every cell < 0
    _, sc = _segments(lossy)
    z = np.asarray(sc.ev, dtype=float)
    assert z.max() < 0
    heat = charts.segment_heatmap_figure(sc).data[0]
    assert z.min() <= heat.zmin < heat.zmax <= z.max()  # the data's range, not ±symmetric around 0
    assert heat.zmin == z.min() and heat.zmax == z.max()
    scale = [c for _, c in heat.colorscale]
    assert scale[0] != scale[-1] and "#F7F7F7" not in scale  # no white midpoint: not diverging
    ticks = heat.colorbar.tickvals
    assert all(heat.zmin <= v <= heat.zmax for v in ticks) and len(ticks) >= 2
    assert all(not SCI.search(t) for t in heat.colorbar.ticktext)


def test_colour_scale_diverges_around_zero_only_when_the_data_straddle_it():
    d = colour_scale([[-50.0, 10.0], [30.0, -5.0]])
    assert d["kind"] == "diverging" and d["zmin"] == -50.0 and d["zmax"] == 30.0
    white = [p for p, c in d["colorscale"] if c == "#F7F7F7"]
    assert white == [pytest.approx(50 / 80)]  # white exactly at 0
    # a tiny gain beside a large loss does not get the full blue: its side reaches a quarter of the loss
    assert colour_scale([[-100.0, 1.0]])["zmax"] == 25.0
    gains = colour_scale([[5.0, 9.0], [7.0, np.nan]])
    assert gains["kind"] == "gains" and (gains["zmin"], gains["zmax"]) == (5.0, 9.0)
    assert colour_scale([[-3.0, 0.0]])["kind"] == "losses"


def test_segment_heatmap_shows_the_column_asked_for():
    seg = np.array(["a", "b"] * 4)
    other = np.array(["x", "x", "y", "y", "x", "y", "z", "z"])
    by_col = {
        "s": segment_curves(Y, S, seg, T, column="s", grid=np.array([0.1, 0.5])),
        "channel": segment_curves(Y, S, other, T, column="channel", grid=np.array([0.1, 0.5])),
    }
    fig = charts.segment_heatmap_figure(by_col, column="channel")
    assert [lv.split(" (n=")[0] for lv in fig.data[0].y] == ["x", "y", "z"]
    assert "channel" in fig.layout.title.text
    assert charts.heatmap_column(by_col) == "s"  # None: the first column
    assert [lv.split(" (n=")[0] for lv in charts.segment_heatmap_figure(by_col).data[0].y] == ["a", "b"]
    with pytest.raises(InputError, match=r"'device' is not one of .*'s', 'channel'"):
        charts.segment_heatmap_figure(by_col, column="device")
    with pytest.raises(InputError, match="curves are of 's'"):
        charts.segment_heatmap_figure(by_col["s"], column="channel")
    assert charts.segment_heatmap_figure(by_col["s"], column="s").data[0].z is not None


def test_user_names_are_kept_as_they_are():
    """The charts keep model and segment names as given; escaping is the callers' (plotly_safe)."""
    name = "<b>risk</b> & co"
    seg = np.array([name, "b"] * 4)
    sc = segment_curves(Y, S, seg, T, column="<i>col</i>", grid=np.array([0.1, 0.5]))
    fig = charts.segment_heatmap_figure(sc)
    assert any(lv.startswith(name + " (n=") for lv in fig.data[0].y)
    assert "<i>col</i>" in fig.layout.title.text
    cf = charts.value_curve_figure({name: value_curve(Y, S, T)}, {name: 0.5})
    assert f"{name}: EV(t)" in [t.name for t in cf.data]


def test_delta_waterfall_fits_its_axis_to_the_running_total_away_from_zero():
    """EV A = −5,000 and EV B = −4,990 with deltas of a few units: an axis from 0 would draw the
    deltas as slivers; the range holds every bar end (EV A, after each Δ, EV B) and not 0."""
    a = {"tp": 100.0, "fp": -2000.0, "fn": -3000.0, "tn": -100.0}
    b = {"tp": 104.0, "fp": -1997.0, "fn": -3001.0, "tn": -96.0}
    fig = charts.delta_waterfall_figure(a, b, names=("old", "new"), unit="EUR")
    levels = [-5000, -4996, -4993, -4994, -4990, -4990]  # by hand: −5,000 +4 +3 −1 +4
    lo, hi = fig.layout.yaxis.range
    assert hi < 0, "0 is not in view"
    assert lo < min(levels) and hi > max(levels)
    assert (hi - lo) < 3 * (max(levels) - min(levels))  # the deltas fill the plot
    assert "axis not from 0" in fig.layout.yaxis.title.text and "EUR" in fig.layout.yaxis.title.text
    wf = fig.data[0]
    assert list(wf.text) == [fmt.money(v, "", signed=s) for v, s in zip([-5000, 4, 3, -1, 4, -4990], [0, 1, 1, 1, 1, 0])]
    assert wf.cliponaxis is False and fig.layout.xaxis.automargin is True
    assert all(not SCI.search(t) for t in fig.layout.yaxis.ticktext)


def test_waterfalls_keep_zero_when_the_bars_reach_it():
    c = value_curve(Y, S, T)
    terms = c.attribution_at(0.35)
    fig = charts.attribution_figure(terms, unit="EUR")
    levels = np.r_[0, np.cumsum([terms[k] for k in ("tp", "fp", "fn", "tn")])]
    lo, hi = fig.layout.yaxis.range
    assert lo < min(levels.min(), 0) and hi > max(levels.max(), 0)
    assert "axis not from 0" not in fig.layout.yaxis.title.text
    # a small change between two EVs near 0: 0 stays in view too
    fig = charts.delta_waterfall_figure({"tp": 1, "fp": 0, "fn": 0, "tn": 0}, {"tp": 3, "fp": 0, "fn": 0, "tn": 0})
    lo, hi = fig.layout.yaxis.range
    assert lo < 0 < hi


def test_ci_labels_never_sit_on_the_zero_line():
    """A difference whose estimate is about 0 (the case that put its label on the dashed line): the
    numbers are written in the row label beside the plot, none is drawn at x = 0 inside it."""
    rows = [("EV A", (-537.4, -580.0, -512.0)), ("EV B", (-320.7, -352.3, -287.8)), ("B − A", (0.4, -40.0, 41.0))]
    fig = ci_bars_figure(rows, unit="EUR", title="t", subtitle="s")
    assert all("text" not in tr.mode for tr in fig.data)  # no text at a data point
    assert not [a for a in fig.layout.annotations if a.xref != "paper" and a.x == 0]
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    assert ticks["B − A"] == f"B − A<br><b>{fmt.money(0.4, 'EUR', signed=True)}</b> [{fmt.money(-40.0, signed=True)}, +41.00]"
    assert fig.layout.yaxis.automargin is True
    lo, hi = fig.layout.xaxis.range
    assert lo < -580 and hi > 41 and 0 in list(fig.layout.xaxis.tickvals)
    assert all(not SCI.search(t) for t in fig.layout.xaxis.ticktext)


def test_headline_rows_and_font_size(monkeypatch):
    from types import SimpleNamespace

    from evalcore.bootstrap import BootstrapResult

    def r(est, lo, hi):
        return BootstrapResult(
            estimate=est, low=lo, high=hi, level=0.95, standard_error=1.0, method="percentile", scheme="rows", n_resamples=200
        )

    comp = SimpleNamespace(
        a="old", b="new", ev_a=r(-5.0, -6.0, -4.0), ev_b=r(-3.0, -4.0, -2.0), diff=r(2.0, 1.0, 3.0), scheme="rows"
    )
    result = SimpleNamespace(
        table=SimpleNamespace(unit="EUR"),
        models={"old": SimpleNamespace(threshold=0.05), "new": SimpleNamespace(threshold=0.09)},
        comparison=comp,
    )
    fig = charts.headline_figure(result, font_size=18)
    assert [t.name for t in fig.data] == [f"EV old @ {fmt.score(0.05)}", f"EV new @ {fmt.score(0.09)}", "new − old"]
    assert fig.layout.font.size == 18 and fig.layout.title.font.size >= 18


def _all_builders():
    """One figure from every builder in board.charts, each asked for font_size=21."""
    from board.charts import calibration as cc
    from board.charts import stability as cs
    from board.charts import uncertainty as cu
    from evalcore.bootstrap import metric_intervals, optimum_interval
    from evalcore.calibration import reliability

    c = value_curve(Y, S, T)
    _, sc = _segments()
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=300) + 2 * y - 1))), 2)
    o = optimum_interval(y, s, T, n_resamples=50, rng=0)
    fs = dict(font_size=21)
    yield "curve", charts.value_curve_figure({"A": c, "B": value_curve(Y, S[::-1], T)}, {"A": 0.5, "B": 0.3}, **fs)
    yield "curve share", charts.value_curve_figure({"A": c, "B": value_curve(Y, S[::-1], T)}, {}, axis="share", **fs)
    yield "heatmap", charts.segment_heatmap_figure(sc, **fs)
    yield "attribution", charts.attribution_figure(c.attribution_at(0.35), **fs)
    yield "delta", charts.delta_waterfall_figure(c.attribution_at(0.35), c.attribution_at(0.5), **fs)
    yield "ci", cu.ci_bars_figure([("x", (1.0, 0.0, 2.0))], **fs)
    yield "metrics", cu.metric_intervals_figure(metric_intervals(8, 12, 2, 78), **fs)
    yield "t_opt", cu.t_opt_histogram(o, deployed=0.5, **fs)
    yield "band", cu.curve_band_figure(o, **fs)
    yield "reliability", cc.reliability_figure({"A": reliability(y, s)}, **fs)
    yield "learning", cs.mean_ci_figure({}, metric="auc", **fs)
    loss = dict(lens=Lens("loss"), **fs)  # the loss lens (issue 14 item 8) follows font_size too
    yield "curve loss", charts.value_curve_figure({"A": c}, {"A": 0.5}, **loss)
    yield "heatmap loss", charts.segment_heatmap_figure(sc, **loss)
    yield "delta loss", charts.delta_waterfall_figure(c.attribution_at(0.35), c.attribution_at(0.5), **loss)
    yield "band loss", cu.curve_band_figure(o, **loss)


def test_every_builder_follows_font_size():
    """Ticks, legend and colour bar inherit layout.font; nothing sets a smaller size on them."""
    for name, fig in _all_builders():
        lay = fig.layout
        assert lay.font.size == 21, name
        for ax in (lay.xaxis, lay.yaxis):
            assert ax.tickfont.size in (None, 21), name
        assert lay.legend.font.size in (None, 21), name
        for tr in fig.data:
            cb = getattr(tr, "colorbar", None)
            if cb is not None:
                assert cb.tickfont.size in (None, 21), name
        assert not [t for t in _texts(fig) if SCI.search(t)], name
        # an annotation without text is drawn by plotly as "new text" (two models share one t*)
        assert all(a.text for a in lay.annotations), name


def test_totals_in_ticks_moves_the_totals_numbers_into_their_labels():
    """On a narrow chart the last delta's number (ΔTN −0.132) and EV new's (−271.8) sat at one height
    and ran together: the totals' numbers go in bold under their category, the deltas' stay on the bars."""
    a = {"tp": 100.0, "fp": -2000.0, "fn": -3000.0, "tn": -100.0}
    b = {"tp": 104.0, "fp": -1997.0, "fn": -3001.0, "tn": -96.0}
    fig = charts.delta_waterfall_figure(a, b, names=("old", "new"), unit="EUR")
    before = list(fig.data[0].text)
    charts.totals_in_ticks(fig, split_names=True)
    wf = fig.data[0]
    assert list(wf.x) == ["EV old", "ΔTP", "ΔFP", "ΔFN", "ΔTN", "EV new"]  # the categories are unchanged
    assert list(wf.text) == ["", *before[1:5], ""]
    assert list(fig.layout.xaxis.ticktext) == [
        f"EV<br>old<br><b>{fmt.money(-5000, '')}</b>",
        "ΔTP",
        "ΔFP",
        "ΔFN",
        "ΔTN",
        f"EV<br>new<br><b>{fmt.money(-4990, '')}</b>",
    ]
    assert list(fig.layout.xaxis.tickvals) == list(wf.x)


def _label(fig, prefix):
    (a,) = [a for a in fig.layout.annotations if a.text.startswith(prefix)]
    return a


@pytest.mark.parametrize("display", ["value", "loss"])
def test_the_t_star_label_sits_away_from_the_act_on_labels(display):
    """The t* label goes to the end of its line (top or bottom of the plot) away from the
    act-on-everyone/no-one label in its half of the plot. With the SPEC's fraud amounts, 5.5%
    positives and a weak model, acting on no one is worth -0.055 × 22,000 + 0.945 × 120 ≈ -1,100
    per case, acting on everyone 0.055 × 18,500 - 0.945 × 3,200 ≈ -2,000, and the best threshold
    about -520: the no-one label (left end) is in the upper part of the plot. t* = 3,320 / 43,820
    = 0.0758 is in the left half, so its label goes to the bottom (under loss everything is
    mirrored: to the top)."""
    rng = np.random.default_rng(3)
    y = (rng.random(4000) < 0.05).astype(int)
    s = np.clip(0.05 + 0.1 * y + rng.normal(0, 0.1, 4000), 0, 1)
    c = value_curve(y, s, ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120, unit="EUR"))
    assert c.bayes_threshold == pytest.approx(3320 / 43820)
    lens = Lens(display)
    fig = charts.value_curve_figure({"A": c}, {"A": 0.5}, unit="EUR", lens=lens)
    star, none = _label(fig, "t* 0.0758"), _label(fig, "act on no one")
    assert none.x == 0 and star.x < 0.5  # both in the left half
    lo, hi = sorted(lens.amount(v) for v in (c.ev.min(), c.ev.max()))
    high = (none.y - lo) / (hi - lo) > 0.5
    assert high == (display == "value")
    assert star.y == (0 if high else 1)  # the plot's bottom / top (y domain)
    # the text runs right of the line, or left in the last fifth of the x range (scores 0.05–0.9)
    for fp, t_star, anchor in ((-30, 30 / 50, "left"), (-120, 120 / 140, "right")):  # at 0.65 / 0.95 of it
        c = value_curve(Y, S, T.with_amounts(fp=fp))
        assert c.bayes_threshold == pytest.approx(t_star)  # (0 - fp) / ((0 - fp) + (10 + 10))
        assert _label(charts.value_curve_figure({"A": c}, {}, unit="EUR"), "t* ").xanchor == anchor


def test_two_t_star_labels_run_apart():
    """Two value tables (the what-if's edited and in-force amounts): the lower t*'s text runs left
    of its line, the higher's right, so close lines do not print over each other."""
    a = value_curve(Y, S, T)  # t* = 2 / 22
    b = value_curve(Y, S, T.with_amounts(fp=-2.4))  # t* = 2.4 / 22.4
    fig = charts.value_curve_figure({"A · edited": a, "A · in force": b}, {}, unit="EUR")
    lo, hi = _label(fig, f"t* {fmt.score(2 / 22)}"), _label(fig, f"t* {fmt.score(2.4 / 22.4)}")
    assert (lo.xanchor, hi.xanchor) == ("right", "left")
    assert lo.y == hi.y


def test_t_star_label_on_a_log_axis_is_at_its_line():
    """plotly reads an annotation's x on a log axis as log10: the label of t* = 2 / 22 is at
    log10(0.0909) = -1.04, not at 10^0.0909 = 1.23 (past the plot's right end)."""
    fig = charts.value_curve_figure({"A": value_curve(Y, S, T)}, {}, unit="EUR", log_x=True)
    star = _label(fig, "t* ")
    assert star.x == pytest.approx(np.log10(2 / 22))
    (line,) = [s for s in fig.layout.shapes if s.x0 == pytest.approx(2 / 22)]  # the line itself in data units


# one positive at the top score, nine negatives below it; a false alarm costs 100: acting on
# everyone is worth (10 − 9·100)/10 = −89 a decision, acting on no one −10/10 = −1, acting on the top
# score alone +10/10 = +1 (the optimum, at t = 0.9)
FAR_T = ValueTable(tp=10, fp=-100, fn=-10, tn=0, unit="EUR")
FAR_Y = np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
FAR_S = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05])


def _texts(fig) -> list:
    return [a.text for a in fig.layout.annotations]


@pytest.mark.parametrize("display", ["value", "loss"])
def test_the_value_axis_zooms_to_the_decision_when_acting_on_everyone_is_far_below(display):
    c = value_curve(FAR_Y, FAR_S, FAR_T)
    assert (c.ev_all, c.ev_none, c.ev_opt) == (-89.0, -1.0, 1.0)
    lens = Lens(display)
    # deployed at 0.85 acts on the top score alone (+1): the points that decide span −1 … +1, 2 of the
    # 90 the curve spans; the axis shows them with 0.75 · 2 either side
    fig = charts.value_curve_figure({"A": c}, {"A": 0.85}, unit="EUR", lens=lens)
    assert tuple(fig.layout.yaxis.range) == (-2.5, 2.5)
    texts = _texts(fig)
    everyone = "act on everyone: " + fmt.money(lens.amount(-89.0), "EUR", signed=display == "value")
    where = "below" if display == "value" else "above"  # a loss of 89 lies above the chart
    assert f"{everyone} ({where} the chart)" in texts
    assert not any(s.startswith("act on everyone") and "chart" not in s for s in texts)
    assert any(s.startswith("act on no one: ") for s in texts)  # on the chart, labelled at its line


def test_the_value_axis_shows_every_value_when_the_decision_spans_it():
    c = value_curve(FAR_Y, FAR_S, FAR_T)
    # deployed at 0.5 acts on five rows, one positive: (10 − 4·100)/10 = −39, so the points that
    # decide span −39 … +1, 40 of 90: more than a quarter, the axis is left to plotly
    assert c.ev_at(0.5) == -39.0
    fig = charts.value_curve_figure({"A": c}, {"A": 0.5}, unit="EUR")
    assert fig.layout.yaxis.range is None
    assert not any("the chart)" in s for s in _texts(fig))
    # and the small example of this file: its curve stays whole
    assert charts.value_curve_figure({"A": value_curve(Y, S, T)}, {"A": 0.5}).layout.yaxis.range is None


def test_a_t_star_label_keeps_clear_of_the_note_of_a_line_below_the_chart():
    # one positive among 100; a catch is worth 100, a miss −100, a false alarm −10: acting on everyone
    # (100 − 99·10)/100 = −8.9, on no one −1, on the top score alone +1; t* = 10/(200 + 10) ≈ 0.048
    y = np.r_[1, np.zeros(99, dtype=int)]
    s = np.r_[0.9, np.linspace(0.8, 0.005, 99)]
    c = value_curve(y, s, ValueTable(tp=100, fp=-10, fn=-100, tn=0, unit="EUR"))
    assert (round(c.ev_all, 9), c.ev_none, c.ev_opt) == (-8.9, -1.0, 1.0)
    assert c.bayes_threshold == pytest.approx(10 / 210)
    fig = charts.value_curve_figure({"A": c}, {"A": 0.85}, unit="EUR")
    assert tuple(fig.layout.yaxis.range) == (-2.5, 2.5)  # −1 … +1, with 1.5 either side
    note = next(a for a in fig.layout.annotations if a.text.endswith("(below the chart)"))
    assert (note.x, note.y, note.xanchor) == (0.01, 0, "left")  # at the bottom, on the left, where the curve runs down
    star = next(a for a in fig.layout.annotations if a.text.startswith("t* "))
    assert star.y == 1  # t* (in the left half) is labelled at the top of its line, away from that note
