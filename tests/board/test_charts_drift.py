"""Drift figures carry the numbers of evalcore.drift, trace by trace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from board.charts.drift import (
    BELOW_NOISE_NAME,
    LIGHT_COLORS,
    TOO_FEW_NAME,
    calibration_drift_figure,
    drift_lights_figure,
    feature_distribution_figure,
    feature_heatmap_figure,
    label_rate_figure,
)
from evalcore.drift import DriftConfig, drift_lights, feature_drift

START = pd.Timestamp("2026-10-05")


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(0)
    n_days, per_day = 21, 400
    t = pd.DatetimeIndex([START + pd.Timedelta(days=d, minutes=3 * k) for d in range(n_days) for k in range(per_day)])
    day = np.repeat(np.arange(n_days), per_day)
    late = day >= 14
    frame = pd.DataFrame(
        {
            "shifted": rng.normal(size=t.size) + np.where(late, 0.8, 0.0),
            "stable": rng.normal(size=t.size),
            "channel": np.where(rng.random(t.size) < np.where(late, 0.8, 0.5), "app", "web"),
        }
    )
    y = (rng.random(t.size) < np.where(day >= 16, 0.12, 0.05)).astype(int)
    p = np.full(t.size, 0.05)
    return drift_lights(y, p, t, frame)


def test_lights_figure_colors_and_reasons(report):
    fig = drift_lights_figure(report)
    tr = fig.data[0]
    assert list(tr.x) == ["Feature drift", "Label drift", "Calibration drift"]
    assert list(tr.marker.color) == [LIGHT_COLORS[report.lights[f].color] for f in ("feature", "label", "calibration")]
    assert list(tr.customdata) == [report.lights[f].reason for f in ("feature", "label", "calibration")]


def test_feature_heatmap_cells_and_marks(report):
    fd = report.feature
    fig = feature_heatmap_figure(fd)
    heat = next(t for t in fig.data if isinstance(t, go.Heatmap))
    assert np.asarray(heat.z).shape == (3, len(fd.windows))
    np.testing.assert_allclose(np.asarray(heat.z, float), fd.statistic / fd.red_threshold[:, None])
    assert list(heat.x)[-1] == (fd.windows[-1].end - pd.Timedelta(days=1)).strftime("%Y-%m-%d")
    assert heat.y[0] == "shifted (KS)" and heat.y[2] == "channel (PSI)"
    below = next(t for t in fig.data if t.name == BELOW_NOISE_NAME)
    assert len(below.x) == int(fd.below_noise.sum()) > 0  # the stable feature sits below its floor somewhere
    too_few = next(t for t in fig.data if t.name == TOO_FEW_NAME)
    assert len(too_few.x) == int((fd.level == -1).sum())
    assert "exact KS" in fig.layout.title.text


def test_feature_heatmap_marks_too_few_rows():
    t = pd.DatetimeIndex([START + pd.Timedelta(days=d, hours=h) for d in range(14) for h in range(10)])
    fd = feature_drift(pd.DataFrame({"x": np.arange(t.size, dtype=float) % 7}), t)
    fig = feature_heatmap_figure(fd)
    too_few = next(tr for tr in fig.data if tr.name == TOO_FEW_NAME)
    assert len(too_few.x) == 1 and fd.status[0, 0] == "too few rows"


def test_feature_heatmap_without_windows_shows_reason():
    t = pd.DatetimeIndex([START + pd.Timedelta(days=d) for d in range(8)])
    fd = feature_drift(pd.DataFrame({"x": np.arange(8.0)}), t)
    fig = feature_heatmap_figure(fd)
    assert len(fig.data) == 0 and fig.layout.annotations[0].text == fd.reason


def test_feature_distribution_numeric_is_the_ecdf(report):
    fd = report.feature
    fig = feature_distribution_figure(fd, "shifted")
    ref_tr, cur_tr = fig.data
    ref = fd.references[0]
    x_ref = ref.sorted_values
    # the reference ECDF at every grid value, by counting
    np.testing.assert_allclose(ref_tr.y, [(x_ref <= e).mean() for e in ref.edges])
    assert ref_tr.y[-1] == pytest.approx(1.0) and cur_tr.y[0] >= 0
    # KS is the largest vertical gap between the two drawn ECDFs (up to the stated bin error: exact here)
    assert np.max(np.abs(np.asarray(ref_tr.y) - np.asarray(cur_tr.y))) == pytest.approx(
        fd.statistic[0, -1], abs=fd.references[0].bin_error + 1e-3
    )
    assert "KS" in fig.layout.title.text


def test_feature_distribution_categorical_shares(report):
    fd = report.feature
    fig = feature_distribution_figure(fd, "channel", window=0)
    ref_tr, cur_tr = fig.data
    assert list(ref_tr.x) == ["app", "web"]  # (missing)/(unseen) hidden when empty
    counts = fd.window_counts[2][0]
    np.testing.assert_allclose(cur_tr.y, counts[:2] / counts.sum())


def test_label_rate_figure(report):
    ld = report.label
    fig = label_rate_figure(ld)
    rate = next(t for t in fig.data if t.name == "positive rate")
    np.testing.assert_allclose(rate.y, ld.rate)
    band = next(t for t in fig.data if t.name == "Wilson 95% interval")
    np.testing.assert_allclose(band.y, np.r_[ld.high, ld.low[::-1]])
    assert fig.layout.yaxis.title.text == "observed positive rate"
    assert any("reference" in a.text for a in fig.layout.annotations)


def test_label_rate_figure_marks_label_definition_change():
    rng = np.random.default_rng(1)
    t = pd.DatetimeIndex([START + pd.Timedelta(days=d, minutes=k) for d in range(21) for k in range(800)])
    day = np.repeat(np.arange(21), 800)
    y = (rng.random(t.size) < np.where(day >= 12, 0.08, 0.02)).astype(int)
    rep = drift_lights(y, None, t, pd.DataFrame({"x": rng.normal(size=t.size)}))
    assert rep.label.label_definition_change
    fig = label_rate_figure(rep.label)
    assert any(a.text == "possible label-definition change" for a in fig.layout.annotations)


def test_calibration_drift_figure(report):
    cd = report.calibration
    fig = calibration_drift_figure(cd)
    oe = next(t for t in fig.data if t.name == "O/E")
    np.testing.assert_allclose(oe.y, cd.oe)
    ece = next(t for t in fig.data if t.name == "ECE")
    np.testing.assert_allclose(ece.y, cd.ece)
    band = next(t for t in fig.data if t.name.startswith("95% interval"))
    np.testing.assert_allclose(band.y, np.r_[cd.ratio_high * cd.ref_oe, (cd.ratio_low * cd.ref_oe)[::-1]])


def test_figures_survive_empty_windows():
    t = pd.DatetimeIndex([START + pd.Timedelta(days=d) for d in range(8)])
    rep = drift_lights(
        np.r_[np.ones(4, int), np.zeros(4, int)], np.full(8, 0.5), t, pd.DataFrame({"x": np.arange(8.0)}), config=DriftConfig()
    )
    for fig in (drift_lights_figure(rep), label_rate_figure(rep.label), calibration_drift_figure(rep.calibration)):
        assert isinstance(fig, go.Figure)


def test_drift_figures_follow_font_size_and_write_p_values_without_exponents(report):
    """A p-value of 1e-12 is "< 0.001" in the hover (plotly's .2g wrote "1e-12"); every figure
    takes font_size, which its ticks, legend and colour bar inherit."""
    import re

    from board.charts.drift import _p_value

    assert _p_value(1e-12) == "< 0.001" and _p_value(0.0312) == "0.031" and _p_value(float("nan")) == "—"
    fd = report.feature
    figs = [
        drift_lights_figure(report, font_size=19),
        feature_heatmap_figure(fd, font_size=19),
        feature_distribution_figure(fd, fd.features[0], font_size=19),
        label_rate_figure(report.label, font_size=19),
        calibration_drift_figure(report.calibration, font_size=19),
    ]
    sci = re.compile(r"\d[eE][-+]?\d")
    for fig in figs:
        assert fig.layout.font.size == 19
        assert fig.layout.legend.font.size in (None, 19)
        for tr in fig.data:
            for v in (getattr(tr, "customdata", None), getattr(tr, "text", None)):
                if v is not None:
                    assert not sci.search(str(np.asarray(v, dtype=object).tolist()))
    rate = next(t for t in figs[3].data if t.name == "positive rate")
    assert "%{customdata[3]}" in rate.hovertemplate and ":.2g" not in rate.hovertemplate
    assert [row[3] for row in rate.customdata] == [_p_value(p) for p in report.label.p_value]
