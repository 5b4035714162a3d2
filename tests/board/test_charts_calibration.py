"""board.charts.calibration: the figures carry the right traces for the results they show."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from board.charts.calibration import DIAGONAL_NAME, metrics_line, recalibration_figure, reliability_figure
from evalcore.calibration import cross_fit_calibration, reliability


def _traces(fig, name):
    return [t for t in fig.data if t.name == name]


@pytest.fixture
def two_models():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.0, 0.55, 400)  # bins [0.6, 1.0] stay empty
    y = (rng.uniform(size=400) < p).astype(int)
    return {"A": reliability(y, p), "B": reliability(y, np.sqrt(p))}


def test_reliability_figure_traces(two_models):
    fig = reliability_figure(two_models, title="Calibration")
    assert isinstance(fig, go.Figure)
    (diag,) = _traces(fig, DIAGONAL_NAME)
    assert list(diag.x) == [0, 1] and list(diag.y) == [0, 1]
    for name, rel in two_models.items():
        (pts,) = _traces(fig, name)
        full = [b for b in rel.bins if not b.empty]
        assert len(pts.x) == len(full) < rel.n_bins  # one point per non-empty bin, none for empty ones
        np.testing.assert_allclose(pts.x, [b.mean_pred for b in full])
        np.testing.assert_allclose(pts.y, [b.frac_pos for b in full])
        np.testing.assert_allclose(np.array(pts.y) + np.array(pts.error_y.array), [b.frac_pos_high for b in full])
        np.testing.assert_allclose(np.array(pts.y) - np.array(pts.error_y.arrayminus), [b.frac_pos_low for b in full])
        assert not np.isnan(np.asarray(pts.y, dtype=float)).any()
        (bars,) = _traces(fig, f"{name}: count")
        assert list(bars.y) == [b.count for b in rel.bins]  # every bin, empty ones as 0
        assert bars.yaxis == "y2"
    n_empty = sum(b.empty for rel in two_models.values() for b in rel.bins)
    assert sum(a.text == "empty" for a in fig.layout.annotations) == n_empty > 0
    assert fig.layout.yaxis.title.text == "observed positive rate"
    assert fig.layout.xaxis2.title.text == "mean predicted probability"
    assert "ECE" in fig.layout.title.text and "10 uniform bins" in fig.layout.title.text
    json.loads(fig.to_json())  # serialisable: no NaN sneaks in as an invalid value


def test_single_row_and_all_equal_scores_draw():
    fig = reliability_figure({"one row": reliability([1], [0.73])})
    assert len(_traces(fig, "one row")[0].x) == 1
    fig = reliability_figure({"flat": reliability([0, 1, 1], [0.4] * 3, strategy="quantile")})
    assert len(_traces(fig, "flat")[0].x) == 1
    assert sum(a.text == "empty" for a in fig.layout.annotations) == 0


def test_recalibration_figure():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.02, 0.98, 600)
    y = (rng.uniform(size=600) < p).astype(int)
    cf = cross_fit_calibration(y, p**2, method="isotonic")
    fig = recalibration_figure(cf.before, cf.after, "isotonic")
    names = {t.name for t in fig.data}
    assert {"before", "after: isotonic (cross-fitted)", DIAGONAL_NAME} <= names
    (after,) = _traces(fig, "after: isotonic (cross-fitted)")
    assert len(after.x) == sum(not b.empty for b in cf.after.bins)
    # raw scores: no "before"
    cf_raw = cross_fit_calibration(y, 100 * p, method="platt", score_kind="score")
    fig = recalibration_figure(cf_raw.before, cf_raw.after, "platt")
    assert not _traces(fig, "before") and _traces(fig, "after: platt (cross-fitted)")


def test_metrics_line_shows_undefined_as_a_dash():
    line = metrics_line(reliability([1, 1], [0.2, 0.9]))
    assert "slope —" in line and "10 uniform bins" in line and "1e-15" in line


def test_reliability_hover_numbers_come_from_the_formatter(two_models):
    """Quantile-bin edges and counts are written by board.words.fmt (plotly's .3g and ,.4g wrote
    "1e-05" and "1.235e+04"); ticks, legend and hover follow font_size."""
    import re

    from board.words import fmt

    rng = np.random.default_rng(3)
    p = np.r_[rng.uniform(0, 0.0001, 20000), rng.uniform(0.2, 1, 5000)]
    y = (rng.uniform(size=p.size) < p).astype(int)
    rel = reliability(y, p, strategy="quantile")
    fig = reliability_figure({"A": rel}, font_size=20)
    assert fig.layout.font.size == 20 and fig.layout.legend.font.size in (None, 20)
    (pts,) = _traces(fig, "A")
    full = [b for b in rel.bins if not b.empty]
    assert [row[0] for row in pts.customdata] == [f"[{fmt.number(b.low, 3)}, {fmt.number(b.high, 3)})" for b in full]
    assert [row[3] for row in pts.customdata] == [f"{fmt.count(b.count)} ({fmt.count(b.n_rows)} rows)" for b in full]
    assert any(b.count >= 10_000 for b in full) or any(b.low < 1e-4 for b in full)  # the case that used to show "e"
    sci = re.compile(r"\d[eE][-+]?\d")
    for tr in fig.data:
        assert not sci.search(str(np.asarray(tr.customdata, dtype=object).tolist())), tr.name


def test_the_ece_line_is_the_title_at_full_size_or_left_out():
    """Without a title the ECE line is the title at the title's size (a superscript was too small
    for a projector), in the reader's language; a page that shows the ECE in a card leaves it out."""
    from board.charts._style import FONT_SIZE, title_size

    rel = reliability([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.3, 0.9])
    fig = reliability_figure({"A": rel})
    assert fig.layout.title.text.startswith("A: ECE ") and "<sup>" not in fig.layout.title.text
    assert fig.layout.title.font.size == title_size(FONT_SIZE)
    zh = reliability_figure({"A": rel}, locale="zh_CN").layout.title.text
    assert zh.startswith("A：ECE ") and zh.endswith("）"), zh
    bare = reliability_figure({"A": rel}, ece_line=False)
    assert not bare.layout.title.text and bare.layout.margin.t == 20
