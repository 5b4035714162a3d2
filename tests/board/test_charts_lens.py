"""Loss or value, as the reader thinks (issue 14 item 8): every chart of expected value drawn
through the loss lens plots −1 × the value figure's numbers (CI ends swapped), names expected
loss and "positive = money lost", keeps the optimum where it is, and colours losses red; the
value lens draws exactly what no lens draws.

Expected numbers are counted by hand from the eight rows of ``Y``/``S`` and the value table
``T`` (TP +10, FP −2, FN −10, TN 0 per case, 8 cases):

- act on no one: FN 3 → EV −30/8 = −3.75, loss +3.75;
- act on everyone: TP 3, FP 5 → (30 − 10)/8 = +2.5, loss −2.5;
- t = 0.4 (the best; the star sits at 0.35, inside (0.3, 0.4]): TP 3, FP 1 → 28/8 = +3.5, loss −3.5;
- t = 0.5: TP 2, FP 1, FN 1, TN 4 → (20 − 2 − 10)/8 = +1.0, loss −1.0.
"""

import re
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest

from board import charts
from board.charts import calibration as cc
from board.charts import uncertainty as cu
from board.charts import value_tools as cvt
from board.charts.value import COST, GAIN, OPTIMUM_NAME, colour_scale
from board.words import fmt
from board.words.lens import Lens
from evalcore import ValueTable, segment_curves, value_curve
from evalcore.bootstrap import BootstrapResult, CurveBand, compare_models, optimum_interval
from evalcore.counts import score_counts
from evalcore.sensitivity import value_sensitivity

T = ValueTable(tp=10, fp=-2, fn=-10, tn=0, unit="EUR")
Y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
S = np.array([0.9, 0.6, 0.4, 0.1, 0.05, 0.7, 0.2, 0.3])
LOSS, VALUE = Lens("loss"), Lens("value")
CONVENTION = "positive = money lost"
# words that name value: none may sit on a loss chart (a value-sign number next to a loss label)
VALUE_WORDS = re.compile(r"\bEV\b|EV\(|EV_|gains positive|[Vv]alue per decision|threshold–value|net EV|\bVALUE\b")


def _trace(fig, name):
    (tr,) = [t for t in fig.data if t.name == name]
    return tr


def _words(fig) -> list[str]:
    """Every text a figure shows: titles, axis and colour-bar titles, tick labels, annotations,
    trace names, texts, hovers and customdata."""
    lay = fig.layout
    out = [str(lay.title.text or "")]
    for ax in (lay.xaxis, lay.yaxis):
        out += [str(ax.title.text or "")] + [str(t) for t in (ax.ticktext or ())]
    out += [str(a.text) for a in lay.annotations]
    for tr in fig.data:
        out.append(str(tr.name))
        for attr in ("text", "customdata", "hovertemplate", "x"):
            v = getattr(tr, attr, None)
            if v is not None and attr != "x" or (attr == "x" and isinstance(tr, go.Waterfall)):
                out.append(str(np.asarray(v, dtype=object).tolist()))
        cb = getattr(tr, "colorbar", None)
        if cb is not None:
            out += [str(cb.title.text or "")] + [str(t) for t in (cb.ticktext or ())]
    return out


def _says_loss(fig, where: str) -> None:
    """The figure names expected loss and its sign convention in ``where`` (title or axis title)."""
    text = {
        "title": fig.layout.title.text,
        "x": fig.layout.xaxis.title.text,
        "y": fig.layout.yaxis.title.text,
    }[where].replace("<br>", " ")
    assert "xpected loss" in text and CONVENTION in text, text
    assert not [w for w in _words(fig) if VALUE_WORDS.search(w)], [w for w in _words(fig) if VALUE_WORDS.search(w)]


# --------------------------------------------------------------------------- the threshold–loss curve


def test_value_curve_under_loss_plots_minus_ev_and_keeps_the_optimum_threshold():
    c = value_curve(Y, S, T)
    band = {"A": (np.array([0.1, 0.5]), np.array([-1.0, -2.0]), np.array([1.0, 0.0]), 0.9)}
    fv = charts.value_curve_figure({"A": c}, {"A": 0.5}, unit="EUR", bands=band)
    fl = charts.value_curve_figure({"A": c}, {"A": 0.5}, unit="EUR", bands=band, lens=LOSS)
    ev, lo = _trace(fv, "A: EV(t)"), _trace(fl, "A: expected loss")
    np.testing.assert_array_equal(lo.x, ev.x)
    np.testing.assert_array_equal(lo.y, -np.asarray(ev.y))
    assert dict(zip(lo.x, lo.y))[0.4] == -3.5  # hand: the best threshold gains 3.5, a loss of −3.5
    # the hover shows the loss: at t = 0.4 "-3.50 EUR"
    (row,) = [r for x, r in zip(lo.x, lo.customdata) if x == 0.4]
    assert row[1] == fmt.money(-3.5, "EUR") == "-3.50 EUR" and "expected loss" in lo.hovertemplate
    # the star: the same threshold, at the lowest loss
    (sv,) = [t for t in fv.data if t.name.startswith("A: optimum")]
    (sl,) = [t for t in fl.data if t.name.startswith("A: optimum")]
    assert sl.x == sv.x == (0.35,) and sl.y[0] == -3.5 == min(lo.y)
    assert sl.customdata[0][3] == "-3.50 EUR"
    # the deployed ring at t = 0.5: loss −1.0
    (dep,) = [t for t in fl.data if t.name.startswith("A: deployed")]
    assert dep.x[0] == 0.5 and dep.y[0] == -1.0 and dep.customdata[0][1] == "-1.00 EUR"
    # the band of loss is [−high, −low]: the filled polygon runs along −low then back along −high
    (bv,) = [t for t in fv.data if t.fill == "toself"]
    (bl,) = [t for t in fl.data if t.fill == "toself"]
    np.testing.assert_array_equal(bl.x, bv.x)
    np.testing.assert_array_equal(bl.y, [1.0, 2.0, 0.0, -1.0])  # hand: −(−1), −(−2), then −0, −1 (reversed)
    # the reference lines: act on everyone 2.5 → −2.5, act on no one −3.75 → +3.75
    lines = {round(sh.y0, 9) for sh in fl.layout.shapes if sh.type == "line" and sh.xref == "x domain"}
    assert lines == {-2.5, 3.75}
    notes = sorted(a.text for a in fl.layout.annotations if a.text.startswith("act on"))
    assert notes == ["act on everyone: -2.50 EUR", "act on no one: 3.75 EUR"]
    # each note on the side of its line away from the (mirrored) curves
    pos_v = {a.text.split(":")[0]: a for a in fv.layout.annotations if a.text.startswith("act on")}
    pos_l = {a.text.split(":")[0]: a for a in fl.layout.annotations if a.text.startswith("act on")}
    assert len(pos_v) == 2
    for k in pos_v:
        assert pos_l[k].yanchor != pos_v[k].yanchor and pos_l[k].x == pos_v[k].x
    assert "EUR" in fl.layout.yaxis.title.text
    _says_loss(fl, "y")


def test_value_curve_share_axis_under_loss_keeps_every_x():
    c = value_curve(Y, S, T)
    fv = charts.value_curve_figure({"A": c}, {"A": 0.5}, axis="share", log_x=True)
    fl = charts.value_curve_figure({"A": c}, {"A": 0.5}, axis="share", log_x=True, lens=LOSS)
    assert len(fl.data) == len(fv.data)
    assert fl.data[0].name == "A: expected loss" and fl.data[1].name == fv.data[1].name  # the star: same name, same x
    for tv, tl in zip(fv.data, fl.data):
        np.testing.assert_array_equal(tl.x, tv.x)
        np.testing.assert_array_equal(np.asarray(tl.y, dtype=float), -np.asarray(tv.y, dtype=float))  # None (legend only): NaN
    assert fl.layout.xaxis.tickvals == fv.layout.xaxis.tickvals
    _says_loss(fl, "y")


# --------------------------------------------------------------------------- the heatmap


def _plain_segments(table, grid=(0.1, 0.35, 0.65)):
    seg = np.array(["a", "b"] * 4)
    return segment_curves(Y, S, seg, table, column="s", grid=np.asarray(grid, dtype=float), deployed=0.5)


def test_heatmap_of_losses_is_sequential_red_darker_for_more_loss():
    """Every outcome costs: every cell is a loss (positive under the loss lens). Hand, t = 0.35:
    level a (rows 0.9+, 0.4+, 0.05−, 0.2−): TP 2, TN 2 → (−1 −1 −0.5 −0.5)/4 = −0.75, loss 0.75;
    level b (rows 0.6−, 0.1−, 0.7+, 0.3−): FP 1, TP 1, TN 2 → (−2 −1 −0.5 −0.5)/4 = −1.0, loss 1.0."""
    lossy = ValueTable(tp=-1, fp=-2, fn=-10, tn=-0.5, unit="EUR")
    sc = _plain_segments(lossy)
    fv = charts.segment_heatmap_figure(sc, unit="EUR", axis="score")
    fl = charts.segment_heatmap_figure(sc, unit="EUR", axis="score", lens=LOSS)
    hv, hl = fv.data[0], fl.data[0]
    z = np.asarray(hl.z, dtype=float)
    np.testing.assert_array_equal(z, -np.asarray(hv.z, dtype=float))
    assert z[0, 1] == 0.75 and z[1, 1] == 1.0 and (z > 0).all()
    # sequential inside the data: light at the least loss, dark red at the most
    assert (hl.zmin, hl.zmax) == (z.min(), z.max())
    scale = [c for _, c in hl.colorscale]
    assert scale[-1] == "#67000D" and scale[0] == "#FEE0D2" and "#F7F7F7" not in scale
    assert [p for p, _ in hl.colorscale] == sorted(p for p, _ in hl.colorscale)
    assert hl.colorscale[0][0] == 0 and hl.colorscale[-1][0] == 1
    assert all(hl.zmin <= v <= hl.zmax for v in hl.colorbar.tickvals)
    # the hover of a cell shows the loss: level a at 0.35 acts on 50% of the segment, loss 0.750 EUR
    assert f"expected loss {fmt.money(0.75, 'EUR')} per decision" in hl.text[0][1]
    assert "EV" not in hl.text[0][1]
    # the stars stay at each segment's best threshold
    sv, sl = _trace(fv, OPTIMUM_NAME), _trace(fl, OPTIMUM_NAME)
    np.testing.assert_array_equal(sl.x, sv.x)
    assert list(sl.y) == list(sv.y)
    title = hl.colorbar.title.text.replace("<br>", " ")
    assert title == "Expected loss per decision (EUR, positive = money lost)"
    assert fl.layout.title.text == "Expected loss per decision by s (positive = money lost)"
    assert not [w for w in _words(fl) if VALUE_WORDS.search(w)]


def test_heatmap_straddling_zero_diverges_with_red_for_loss():
    """Hand: at t = 0.95 nobody is acted on; level a has 2 positives → EV −20/4 = −5, loss +5;
    at t = 0.35 level a gains (TP 2, TN 2 → 20/4 = 5), loss −5: the cells straddle 0."""
    sc = _plain_segments(T, grid=(0.1, 0.35, 0.95))
    fl = charts.segment_heatmap_figure(sc, unit="EUR", lens=LOSS)
    h = fl.data[0]
    z = np.asarray(h.z, dtype=float)
    assert z[0, 2] == 5.0 and z[0, 1] == -5.0
    colours = dict((c, p) for p, c in h.colorscale)
    # red at the loss end (the top), blue at the gain end (the bottom), white at 0
    assert colours["#67001F"] == 1 and colours["#053061"] == 0
    assert colours["#F7F7F7"] == pytest.approx(-h.zmin / (h.zmax - h.zmin))
    assert h.zmin <= z.min() and h.zmax >= z.max()


def test_colour_scale_of_loss_is_the_value_scale_mirrored():
    # losses −50 … +30: the value −z runs −30 … +50; red for the 30 lost, blue for the 50 gained
    d = colour_scale([[-50.0, 10.0], [30.0, -5.0]], loss=True)
    assert d["kind"] == "diverging" and (d["zmin"], d["zmax"]) == (-50.0, 30.0)
    assert [p for p, c in d["colorscale"] if c == "#F7F7F7"] == [pytest.approx(50 / 80)]  # white exactly at 0
    assert d["colorscale"][-1][1] == "#67001F" and d["colorscale"][0][1] == "#053061"
    # a tiny gain (loss −1) beside a large loss (100): the gain side reaches a quarter of it
    assert (colour_scale([[100.0, -1.0]], loss=True)["zmin"], colour_scale([[100.0, -1.0]], loss=True)["zmax"]) == (-25.0, 100.0)
    # all gains (losses ≤ 0): blue, the largest gain (most negative loss) darkest
    gains = colour_scale([[-5.0, -9.0], [-7.0, np.nan]], loss=True)
    assert gains["kind"] == "gains" and (gains["zmin"], gains["zmax"]) == (-9.0, -5.0)
    assert gains["colorscale"][0][1] == "#08306B"
    losses = colour_scale([[3.0, 0.0]], loss=True)
    assert losses["kind"] == "losses" and (losses["zmin"], losses["zmax"]) == (0.0, 3.0)


# --------------------------------------------------------------------------- waterfalls


def test_attribution_under_loss_is_each_terms_part_of_the_loss():
    """Hand, t = 0.35: TP 3 → +30/8 = 3.75, FP 1 → −2/8 = −0.25, FN 0, TN 0 (amount 0); EV 3.5.
    As loss: −3.75, +0.25, 0, 0, and the expected loss −3.5."""
    terms = value_curve(Y, S, T).attribution_at(0.35)
    fv = charts.attribution_figure(terms, unit="EUR")
    fl = charts.attribution_figure(terms, unit="EUR", lens=LOSS)
    wv, wl = fv.data[0], fl.data[0]
    assert list(wl.y) == [-3.75, 0.25, 0, 0, -3.5] == [-v for v in wv.y]
    assert list(wl.x) == ["TP", "FP", "FN", "TN", "expected loss"]
    assert list(wl.text) == ["-3.75", "+0.250", "0", "0", "-3.50"]
    # a rise is more money lost: red; a fall green (the other way round from value)
    assert (wl.increasing.marker.color, wl.decreasing.marker.color) == (COST, GAIN)
    assert (wv.increasing.marker.color, wv.decreasing.marker.color) == (GAIN, COST)
    lo, hi = fl.layout.yaxis.range
    assert lo < -3.75 and hi > 0.25
    assert list(wl.customdata[-1]) == ["expected loss", "-3.50 EUR"]
    _says_loss(fl, "y")


def test_delta_waterfall_under_loss_shows_the_change_in_loss():
    """A at t = 0.35 (EV 3.5) → B at t = 0.5 (TP 2 → 2.5, FP 1 → −0.25, FN 1 → −1.25, TN 0; EV 1.0).
    Value deltas: ΔTP −1.25, ΔFP 0, ΔFN −1.25, ΔTN 0. As loss: from −3.5 by +1.25, 0, +1.25, 0 to −1.0."""
    c = value_curve(Y, S, T)
    a, b = c.attribution_at(0.35), c.attribution_at(0.5)
    fv = charts.delta_waterfall_figure(a, b, names=("old", "new"), unit="EUR")
    fl = charts.delta_waterfall_figure(a, b, names=("old", "new"), unit="EUR", lens=LOSS)
    wv, wl = fv.data[0], fl.data[0]
    assert list(wl.y) == [-3.5, 1.25, 0, 1.25, 0, -1.0] == [-v for v in wv.y]
    assert list(wl.x) == ["loss old", "ΔTP", "ΔFP", "ΔFN", "ΔTN", "loss new"]
    assert list(wl.measure) == list(wv.measure)
    assert [tuple(cd) for cd in wl.customdata] == [
        ("expected loss old", "-3.50 EUR"),
        ("change in loss from the TP term", "+1.25 EUR"),
        ("change in loss from the FP term", "0 EUR"),
        ("change in loss from the FN term", "+1.25 EUR"),
        ("change in loss from the TN term", "0 EUR"),
        ("expected loss new", "-1.00 EUR"),
    ]
    assert (wl.increasing.marker.color, wl.decreasing.marker.color) == (COST, GAIN)
    _says_loss(fl, "y")


def test_delta_waterfall_under_loss_fits_the_negated_running_total():
    """EV A −5,000 → B −4,990 (value deltas +4, +3, −1, +4): losses 5,000 → 4,990 by −4, −3, +1, −4."""
    a = {"tp": 100.0, "fp": -2000.0, "fn": -3000.0, "tn": -100.0}
    b = {"tp": 104.0, "fp": -1997.0, "fn": -3001.0, "tn": -96.0}
    fig = charts.delta_waterfall_figure(a, b, unit="EUR", lens=LOSS)
    assert list(fig.data[0].y) == [5000, -4, -3, 1, -4, 4990]
    levels = [5000, 4996, 4993, 4994, 4990, 4990]
    lo, hi = fig.layout.yaxis.range
    assert lo > 0 and lo < min(levels) and hi > max(levels)
    assert "axis not from 0" in fig.layout.yaxis.title.text


# --------------------------------------------------------------------------- intervals


def _r(est, lo, hi):
    return BootstrapResult(
        estimate=est, low=lo, high=hi, level=0.95, standard_error=1.0, method="percentile", scheme="rows", n_resamples=200
    )


def _ends(tr):
    """(estimate, low, high) a CI bar draws."""
    x = tr.x[0]
    return x, x - tr.error_x.arrayminus[0], x + tr.error_x.array[0]


def test_headline_under_loss_swaps_the_interval_ends_and_names_the_change_in_loss():
    comp = SimpleNamespace(
        a="old", b="new", ev_a=_r(-5.0, -6.5, -4.0), ev_b=_r(-3.0, -4.0, -2.0), diff=_r(2.0, 0.5, 3.0), scheme="rows"
    )
    result = SimpleNamespace(
        table=SimpleNamespace(unit="EUR"),
        models={"old": SimpleNamespace(threshold=0.05), "new": SimpleNamespace(threshold=0.09)},
        comparison=comp,
    )
    fv = charts.headline_figure(result)
    fl = charts.headline_figure(result, lens=LOSS)
    t5, t9 = fmt.score(0.05), fmt.score(0.09)
    assert [t.name for t in fl.data] == [f"loss old @ {t5}", f"loss new @ {t9}", "new − old (change in loss)"]
    # hand: loss old 5 in [4, 6.5]; loss new 3 in [2, 4]; change in loss −2 in [−3, −0.5]
    assert [_ends(t) for t in fl.data] == [(5.0, 4.0, 6.5), (3.0, 2.0, 4.0), (-2.0, -3.0, -0.5)]
    assert [_ends(t) for t in fv.data] == [(-5.0, -6.5, -4.0), (-3.0, -4.0, -2.0), (2.0, 0.5, 3.0)]
    ticks = dict(zip(fl.layout.yaxis.tickvals, fl.layout.yaxis.ticktext))
    assert ticks["new − old (change in loss)"].endswith("<b>-2.00 EUR</b> [-3.00, -0.500]")
    assert ticks[f"loss old @ {t5}"].endswith("<b>+5.00 EUR</b> [+4.00, +6.50]")
    assert fl.layout.title.text.startswith("Expected loss per decision (positive = money lost)")
    assert "95% percentile bootstrap" in fl.layout.title.text  # the subtitle stays
    _says_loss(fl, "x")
    # one model without a bootstrap: the estimate alone, negated
    one = SimpleNamespace(
        table=SimpleNamespace(unit="EUR"),
        models={"m": SimpleNamespace(threshold=0.5, ev=-2.25, ev_ci=None)},
        comparison=None,
    )
    tr = charts.headline_figure(one, lens=LOSS).data[0]
    assert tr.x[0] == 2.25 and "interval undefined" in tr.text[0]


def _comparison():
    """Hand, t = 0.5 on 200 rows (100 positives): A acts on the negatives only (FP 100, FN 100) →
    (−200 − 1,000)/200 = −6; B on the positives only (TP 100, TN 100) → 1,000/200 = +5; B − A = 11."""
    y = np.array([1, 0] * 100)
    return compare_models(
        y,
        np.array([0.4, 0.6] * 100),
        np.array([0.9, 0.1] * 100),
        ValueTable(tp=10, fp=-2, fn=-10, tn=0, unit="EUR"),
        threshold_a=0.5,
        threshold_b=0.5,
        n_resamples=200,
        rng=0,
        names=("old", "new"),
    )


def test_comparison_under_loss_says_the_verdict_of_the_change_in_loss():
    c = _comparison()
    fv = cu.comparison_figure(c, unit="EUR")
    fl = cu.comparison_figure(c, unit="EUR", lens=LOSS)
    assert (fv.data[0].x[0], fv.data[1].x[0], fv.data[2].x[0]) == pytest.approx((-6.0, 5.0, 11.0))
    assert (fl.data[0].x[0], fl.data[1].x[0], fl.data[2].x[0]) == pytest.approx((6.0, -5.0, -11.0))
    for tv, tl in zip(fv.data, fl.data):
        est, lo, hi = _ends(tv)
        assert _ends(tl) == pytest.approx((-est, -hi, -lo))
    t = fmt.score(0.5)
    assert [d.name for d in fl.data] == [f"loss old (t={t})", f"loss new (t={t})", "new − old (change in loss)"]
    assert c.verdict == "better"
    assert fl.layout.title.text.startswith("new is better: the 95% CI of loss_new − loss_old is below 0.")
    assert "P(new better) > 99.9%" in fl.layout.title.text and "expected loss, positive = money lost" in fl.layout.title.text
    assert fl.layout.title.font.color == fv.layout.title.font.color  # the verdict's colour: the same verdict
    _says_loss(fl, "x")


def test_curve_band_and_summary_under_loss():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=300) + 2 * y - 1))), 2)
    o = optimum_interval(y, s, T, n_resamples=50, rng=0)
    fv, fl = cu.curve_band_figure(o, name="A", unit="EUR"), cu.curve_band_figure(o, name="A", unit="EUR", lens=LOSS)
    cv, cl = _trace(fv, "A: EV(t)"), _trace(fl, "A: expected loss")
    np.testing.assert_array_equal(cl.y, -np.asarray(cv.y))
    fill = fl.data[0]
    g = o.band.grid
    np.testing.assert_array_equal(fill.y, np.r_[-o.band.low, -o.band.high[::-1]][: len(fill.y)])
    assert len(fill.x) == 2 * len(g)
    assert fl.layout.title.text.startswith("Threshold–loss curve with its")
    _says_loss(fl, "y")
    # the two questions: (1, [0.5, 2]) as loss is −1 in [−2, −0.5]
    sv = cu.uncertainty_summary_figure([("y", o.ev_opt), ("x", (1.0, 0.5, 2.0))], unit="EUR")
    sl = cu.uncertainty_summary_figure([("y", o.ev_opt), ("x", (1.0, 0.5, 2.0))], unit="EUR", lens=LOSS)
    assert _ends(sl.data[1]) == (-1.0, -2.0, -0.5)
    est, lo, hi = _ends(sv.data[0])
    assert _ends(sl.data[0]) == pytest.approx((-est, -hi, -lo))
    assert sl.layout.title.text.startswith("Expected loss per decision (positive = money lost)")
    _says_loss(sl, "x")


def test_add_curve_band_under_loss_negates_and_still_splits_at_undefined_points():
    band = CurveBand(
        grid=np.array([0.1, 0.2, 0.3, 0.4]),
        estimate=np.zeros(4),
        low=np.array([0.0, np.nan, 0.5, 1.0]),
        high=np.array([1.0, np.nan, 2.0, 3.0]),
        level=0.9,
    )
    fig = cu.add_curve_band(go.Figure(), band, name="B", lens=LOSS)
    assert len(fig.data) == 2
    # along −low (the loss band's top), back along −high (its bottom)
    np.testing.assert_array_equal(fig.data[0].y, [-0.0, -1.0])
    np.testing.assert_array_equal(fig.data[1].y, [-0.5, -1.0, -3.0, -2.0])


# --------------------------------------------------------------------------- value tools, calibration


@pytest.fixture(scope="module")
def sens():
    s = np.round(np.arange(1, 100) / 100, 2)
    cal = score_counts(np.r_[np.ones(99), np.zeros(99)], np.r_[s, s], sample_weight=np.r_[s, 1 - s])
    return value_sensitivity({"cal": cal}, ValueTable(tp=1, fp=-1, fn=-0.2, tn=0.1), n_random=10, rng=0)


def test_tornado_under_loss_negates_base_and_every_bar_end(sens):
    fv = cvt.tornado_figure(sens, "cal", unit="EUR")
    fl = cvt.tornado_figure(sens, "cal", unit="EUR", lens=LOSS)
    base, vals = sens.base_ev_opt[0], sens.oat_ev_opt[0]
    cells = ["TP", "FP", "FN", "TN"]
    bars_v = [t for t in fv.data if isinstance(t, go.Bar)]
    bars_l = [t for t in fl.data if isinstance(t, go.Bar)]
    for d, (bv, bl) in enumerate(zip(bars_v, bars_l)):
        assert bl.base == pytest.approx(-base) and list(bl.y) == list(bv.y)  # the same order: the same swings
        drawn = {y: bl.base + x for y, x in zip(bl.y, bl.x)}
        assert drawn == pytest.approx({c: -vals[i, d] for i, c in enumerate(cells)})
        assert list(bl.customdata) == [fmt.money(-v, "EUR") for v in np.asarray(vals)[[cells.index(y) for y in bl.y], d]]
    assert any(s.type == "line" and s.x0 == pytest.approx(-base) for s in fl.layout.shapes)
    assert fl.layout.title.text.startswith("cal: Expected loss per decision at the optimum (base ")
    _says_loss(fl, "x")
    # the threshold tornado does not depend on the lens
    assert (
        cvt.tornado_figure(sens, "cal", quantity="t_opt", lens=LOSS).to_json()
        == cvt.tornado_figure(sens, "cal", quantity="t_opt").to_json()
    )


def test_threshold_effect_under_loss_negates_the_value_row_only():
    before, after = value_curve(Y, S, T), value_curve(Y, S[::-1], T)
    tv, _ = cc.threshold_effect(before, after, unit="EUR")
    tl, _ = cc.threshold_effect(before, after, unit="EUR", lens=LOSS)
    assert tl.index[0] == "Expected loss per decision at optimum (EUR, positive = money lost)"
    assert list(tl.index[1:]) == list(tv.index[1:])
    assert tl.iloc[0, 0] == -3.5  # hand: the best of the eight rows gains 3.5
    np.testing.assert_array_equal(tl.iloc[0].to_numpy(), -tv.iloc[0].to_numpy())
    np.testing.assert_array_equal(tl.iloc[1:].to_numpy(), tv.iloc[1:].to_numpy())


# --------------------------------------------------------------------------- the value lens is today's


def _every_lensed_figure(lens):
    c = value_curve(Y, S, T)
    sc = _plain_segments(T)
    comp = _comparison()
    s = np.round(np.arange(1, 100) / 100, 2)
    sens = value_sensitivity(
        {"cal": score_counts(np.r_[np.ones(99), np.zeros(99)], np.r_[s, s], sample_weight=np.r_[s, 1 - s])},
        ValueTable(tp=1, fp=-1, fn=-0.2, tn=0.1),
        n_random=5,
        rng=0,
    )
    o = optimum_interval(np.r_[Y, Y], np.r_[S, S], T, n_resamples=20, rng=0)
    result = SimpleNamespace(
        table=T, models={"old": SimpleNamespace(threshold=0.5), "new": SimpleNamespace(threshold=0.5)}, comparison=comp
    )
    kw = {} if lens is None else {"lens": lens}
    band = {"A": (o.band.grid, o.band.low, o.band.high, 0.9)}
    yield "curve", charts.value_curve_figure({"A": c, "B": value_curve(Y, S[::-1], T)}, {"A": 0.5}, bands=band, **kw)
    yield "curve share", charts.value_curve_figure({"A": c}, {"A": 0.5}, axis="share", unit="EUR", **kw)
    yield "heatmap", charts.segment_heatmap_figure(sc, unit="EUR", **kw)
    yield "attribution", charts.attribution_figure(c.attribution_at(0.35), unit="EUR", **kw)
    yield "delta", charts.delta_waterfall_figure(c.attribution_at(0.35), c.attribution_at(0.5), unit="EUR", **kw)
    yield "headline", charts.headline_figure(result, **kw)
    yield "comparison", cu.comparison_figure(comp, unit="EUR", **kw)
    yield "band", cu.curve_band_figure(o, unit="EUR", **kw)
    yield "summary", cu.uncertainty_summary_figure([("x", comp.ev_a)], unit="EUR", **kw)
    yield "add band", cu.add_curve_band(go.Figure(), o.band, **kw)
    yield "tornado", cvt.tornado_figure(sens, "cal", unit="EUR", **kw)


def test_the_value_lens_draws_exactly_what_no_lens_draws():
    plain = dict(_every_lensed_figure(None))
    valued = dict(_every_lensed_figure(VALUE))
    assert plain.keys() == valued.keys()
    for name in plain:
        assert valued[name].to_json() == plain[name].to_json(), name
    assert cc.threshold_effect(value_curve(Y, S, T), value_curve(Y, S, T), lens=VALUE)[0].equals(
        cc.threshold_effect(value_curve(Y, S, T), value_curve(Y, S, T))[0]
    )


def test_no_loss_figure_names_value():
    """Under loss no chart writes EV, "value per decision" or "gains positive" beside its numbers."""
    for name, fig in _every_lensed_figure(LOSS):
        bad = [w for w in _words(fig) if VALUE_WORDS.search(w)]
        assert not bad, (name, bad)
