"""Tests for evalcore.calibration (SPEC §3.5).

Every golden number is derived by hand in a comment or computed by scikit-learn,
SciPy or statsmodels.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from sklearn.calibration import _sigmoid_calibration, calibration_curve
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
from sklearn.model_selection import StratifiedKFold
from statsmodels.stats.proportion import proportion_confint

from evalcore import InputError
from evalcore.calibration import (
    LOG_LOSS_EPS,
    bin_edges,
    calibration_intervals,
    calibration_slope_intercept,
    cross_fit_calibration,
    ece,
    fit_calibration_map,
    reliability,
    segment_calibration,
    wilson_interval,
)


def _calibrated_sample(n, seed, *, power=1.0):
    """y ~ Bernoulli(p_true); the returned score is p_true ** power (power 1: calibrated)."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return y, p**power


def _overconfident_sample(n, seed, factor=3.0):
    """Scores sigmoid(factor · logit(p_true)): right ranking, far too extreme."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return y, special.expit(factor * special.logit(p))


def _nonempty(rel):
    return [b for b in rel.bins if not b.empty]


# --------------------------------------------------------------------------- Wilson


def test_wilson_matches_statsmodels():
    k = np.array([0, 1, 5, 8, 10, 37])
    n = np.array([10, 10, 10, 10, 10, 120])
    lo, hi = wilson_interval(k, n)
    ref_lo, ref_hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hi, ref_hi, rtol=1e-12, atol=1e-15)
    lo90, hi90 = wilson_interval(k, n, level=0.9)
    ref_lo90, ref_hi90 = proportion_confint(k, n, alpha=0.1, method="wilson")
    np.testing.assert_allclose(lo90, ref_lo90, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hi90, ref_hi90, rtol=1e-12, atol=1e-15)


def test_wilson_edge_cases():
    lo, hi = wilson_interval([0, 3, 0], [5, 3, 0])
    assert lo[0] == 0.0 and hi[1] == 1.0  # all-0 / all-1 bins keep a one-sided interval
    assert 0 < hi[0] < 1 and 0 < lo[1] < 1
    assert math.isnan(lo[2]) and math.isnan(hi[2])  # n == 0: undefined, not 0
    with pytest.raises(InputError, match="level must be a confidence level strictly between 0 and 1; got 1.5"):
        wilson_interval(1, 2, level=1.5)


# --------------------------------------------------------------------------- bins


def test_uniform_edges_are_the_decimal_edges():
    e = bin_edges([0.5], n_bins=10)
    assert e.tolist() == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    # the float trap the implementation must avoid
    assert np.linspace(0, 1, 11)[3] != 0.3


@pytest.mark.parametrize(
    "score, low",
    [
        (0.0, 0.0),
        (0.1, 0.1),
        (0.2, 0.2),
        (0.3, 0.3),
        (0.4, 0.4),
        (0.5, 0.5),
        (0.6, 0.6),
        (0.7, 0.7),
        (0.8, 0.8),
        (0.9, 0.9),
        (1.0, 0.9),  # 1.0 belongs to the last, closed bin
        (0.1 + 0.2, 0.3),  # 0.30000000000000004 is above 0.3
        (float(np.nextafter(0.3, 0)), 0.2),
        (float(np.nextafter(0.7, 0)), 0.6),
        (float(np.nextafter(0.6, 0)), 0.5),
        (0.35, 0.3),
        (0.999999, 0.9),
    ],
)
def test_score_on_an_edge_goes_to_the_bin_above(score, low):
    r = reliability([1], [score])
    (b,) = _nonempty(r)
    assert b.low == low and b.count == 1 and b.n_rows == 1
    assert b.low <= score <= b.high


def test_edge_traps_by_hand():
    # 0.3, 0.6, 0.7 each start their bin; 0.29 lies in [0.2, 0.3)
    y = [1, 0, 1, 0]
    p = [0.3, 0.6, 0.7, 0.29]
    r = reliability(y, p)
    counts = {round(b.low, 1): b.count for b in r.bins}
    assert counts == {0.0: 0, 0.1: 0, 0.2: 1, 0.3: 1, 0.4: 0, 0.5: 0, 0.6: 1, 0.7: 1, 0.8: 0, 0.9: 0}


def test_nonempty_bins_equal_sklearn_calibration_curve_off_the_edges():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=2000)
    p = p[np.abs(p * 10 - np.round(p * 10)) > 1e-6]  # no score near an edge
    y = (rng.uniform(size=len(p)) < p).astype(int)
    for n_bins in (5, 10, 13):
        r = reliability(y, p, n_bins=n_bins)
        prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins)
        ne = _nonempty(r)
        np.testing.assert_allclose([b.frac_pos for b in ne], prob_true, rtol=1e-12)
        np.testing.assert_allclose([b.mean_pred for b in ne], prob_pred, rtol=1e-12)


def test_nonempty_bins_equal_sklearn_after_accounting_for_right_closed_bins():
    # Scores exactly on edges. sklearn's bins are right-closed (searchsorted side="left" on
    # np.linspace edges), ours left-closed, so an edge score sits one bin lower in sklearn.
    # Nudging every edge score up by 1e-9 moves it into the bin we use, for sklearn too.
    rng = np.random.default_rng(4)
    p = np.r_[np.repeat([0.0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.9, 1.0], 7), rng.uniform(size=300)]
    y = (rng.uniform(size=len(p)) < p).astype(int)
    on_edge = np.isin(p, np.arange(11) / 10)
    nudged = np.where(on_edge & (p < 1.0), p + 1e-9, p)
    r = reliability(y, p)
    prob_true, prob_pred = calibration_curve(y, nudged, n_bins=10)
    ne = _nonempty(r)
    np.testing.assert_allclose([b.frac_pos for b in ne], prob_true, rtol=1e-12)
    np.testing.assert_allclose([b.mean_pred for b in ne], prob_pred, atol=1e-9)
    # and the un-nudged sklearn curve really does differ (the convention matters)
    y2, p2 = [1, 0], [0.3, 0.25]
    assert calibration_curve(y2, p2, n_bins=10)[0].tolist() == [0.5]  # one bin (0.2, 0.3]
    assert [b.frac_pos for b in _nonempty(reliability(y2, p2))] == [0.0, 1.0]  # [0.2,0.3) and [0.3,0.4)


def test_quantile_bins_equal_sklearn_on_distinct_scores():
    y, p = _calibrated_sample(1000, 5)
    r = reliability(y, p, strategy="quantile", n_bins=10)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy="quantile")
    assert r.n_bins == 10 and r.strategy == "quantile"
    np.testing.assert_allclose([b.frac_pos for b in r.bins], prob_true, rtol=1e-12)
    np.testing.assert_allclose([b.mean_pred for b in r.bins], prob_pred, rtol=1e-12)
    assert [b.n_rows for b in r.bins] == [100] * 10  # linear quantiles of 1000 distinct values
    np.testing.assert_allclose(r.edges, np.quantile(p, np.arange(11) / 10))


def test_quantile_bins_collapse_duplicate_edges():
    # 6 rows at 0.2, 2 at 0.5, 2 at 0.8: the deciles are mostly 0.2 -> edges {0.2, 0.5, 0.8}
    p = [0.2] * 6 + [0.5] * 2 + [0.8] * 2
    y = [0, 0, 0, 0, 0, 1, 1, 0, 1, 1]
    r = reliability(y, p, strategy="quantile", n_bins=10)
    expected_edges = np.unique(np.quantile(p, np.arange(11) / 10))
    assert r.edges.tolist() == expected_edges.tolist()
    assert r.n_bins == len(expected_edges) - 1 < 10
    assert sum(b.n_rows for b in r.bins) == 10


def test_quantile_all_scores_equal_is_one_closed_bin():
    r = reliability([0, 1, 1], [0.4, 0.4, 0.4], strategy="quantile")
    assert r.n_bins == 1
    (b,) = r.bins
    assert (b.low, b.high, b.count) == (0.4, 0.4, 3.0)
    assert b.frac_pos == pytest.approx(2 / 3)


def test_weighted_quantile_edges_are_weighted_inverted_cdf():
    # weights 1,1,1,5 on 0.1,0.2,0.3,0.4: total 8; CDF 1/8, 2/8, 3/8, 1.
    # median (q=0.5): first score whose CDF >= 0.5 is 0.4 -> edges [0.1, 0.4]
    e = bin_edges([0.1, 0.2, 0.3, 0.4], sample_weight=[1, 1, 1, 5], n_bins=2, strategy="quantile")
    assert e.tolist() == [0.1, 0.4]


# --------------------------------------------------------------------------- metrics


def test_brier_and_log_loss_equal_sklearn():
    y, p = _calibrated_sample(500, 6, power=1.7)
    w = np.random.default_rng(6).uniform(0.1, 3.0, len(y))
    r = reliability(y, p)
    assert r.brier == pytest.approx(brier_score_loss(y, p), rel=1e-12)
    assert r.log_loss == pytest.approx(log_loss(y, p), rel=1e-12)
    rw = reliability(y, p, sample_weight=w)
    assert rw.brier == pytest.approx(brier_score_loss(y, p, sample_weight=w), rel=1e-12)
    assert rw.log_loss == pytest.approx(log_loss(y, p, sample_weight=w), rel=1e-12)
    assert r.log_loss_clip == LOG_LOSS_EPS == 1e-15


def test_log_loss_clips_at_1e_15():
    # y=1 with p=0 -> -log(1e-15) = 34.538776394910684; y=0 with p=0 -> -log(1 - 1e-15) ≈ 1e-15
    r = reliability([1, 0], [0.0, 0.0])
    assert r.log_loss == pytest.approx((34.538776394910684 + 1e-15) / 2, rel=1e-12)
    assert math.isfinite(r.log_loss)


def test_ece_by_hand():
    # 3 bins of width 1/3: [0, 1/3), [1/3, 2/3), [2/3, 1]
    # bin 0: p = 0.1, 0.2 (y 0, 0)      -> |0 - 0.15|   = 0.15, n_b = 2
    # bin 1: empty
    # bin 2: p = 0.7, 0.8, 0.9 (y 1,0,1) -> |2/3 - 0.8| = 2/15, n_b = 3
    # ECE = 2/5 · 0.15 + 3/5 · 2/15 = 0.06 + 0.08 = 0.14
    y = [0, 0, 1, 0, 1]
    p = [0.1, 0.2, 0.7, 0.8, 0.9]
    assert ece(y, p, n_bins=3) == pytest.approx(0.14, abs=1e-12)
    r = reliability(y, p, n_bins=3)
    assert r.ece == pytest.approx(0.14, abs=1e-12)
    assert r.bins[1].empty and math.isnan(r.bins[1].frac_pos) and math.isnan(r.bins[1].mean_pred)
    assert "1 of 3 bins are empty" in r.undefined["bins"]
    # weights: doubling the rows of bin 0 -> N = 7; 4/7 · 0.15 + 3/7 · 2/15 = 0.6/7 + 0.4/7 = 1/7
    assert ece(y, p, n_bins=3, sample_weight=[2, 2, 1, 1, 1]) == pytest.approx(1 / 7, abs=1e-12)


def test_oe_ratio_by_hand():
    # positive rate 1/4, mean prediction (0.1+0.2+0.3+0.4)/4 = 0.25 -> O/E = 1.0
    assert reliability([1, 0, 0, 0], [0.1, 0.2, 0.3, 0.4]).oe_ratio == pytest.approx(1.0)
    # positive rate 3/4, mean prediction 0.25 -> 3.0 (the model under-predicts)
    assert reliability([1, 1, 1, 0], [0.1, 0.2, 0.3, 0.4]).oe_ratio == pytest.approx(3.0)
    r = reliability([1, 0], [0.0, 0.0])
    assert math.isnan(r.oe_ratio) and "divides by 0" in r.undefined["oe_ratio"]


def test_per_bin_wilson_equals_statsmodels():
    y, p = _calibrated_sample(300, 7)
    r = reliability(y, p)
    for b in _nonempty(r):
        k = round(b.frac_pos * b.n_rows)
        lo, hi = proportion_confint(k, b.n_rows, alpha=0.05, method="wilson")
        assert b.frac_pos_low == pytest.approx(lo, rel=1e-9)
        assert b.frac_pos_high == pytest.approx(hi, rel=1e-9)


def test_slope_intercept_equal_statsmodels_glm():
    y, p = _calibrated_sample(800, 8, power=2.0)
    x = special.logit(p)
    ref = sm.GLM(y, sm.add_constant(x), family=sm.families.Binomial()).fit()
    b, a = calibration_slope_intercept(y, p)
    assert b == pytest.approx(ref.params[1], rel=1e-6)
    assert a == pytest.approx(ref.params[0], rel=1e-6, abs=1e-8)
    w = np.random.default_rng(8).integers(1, 4, len(y)).astype(float)
    refw = sm.GLM(y, sm.add_constant(x), family=sm.families.Binomial(), freq_weights=w).fit()
    bw, aw = calibration_slope_intercept(y, p, sample_weight=w)
    assert bw == pytest.approx(refw.params[1], rel=1e-6)
    assert aw == pytest.approx(refw.params[0], rel=1e-6, abs=1e-8)


def test_slope_below_one_for_an_overconfident_model():
    # scores = sigmoid(3·logit(p_true)) -> the true slope on logit(score) is 1/3
    y, s = _overconfident_sample(4000, 9)
    b, a = calibration_slope_intercept(y, s)
    assert 0.25 < b < 0.42 and abs(a) < 0.15


def test_integer_weights_equal_duplicated_rows_and_zero_weight_equals_dropping():
    y = np.array([0, 1, 1, 0, 1, 0])
    p = np.array([0.15, 0.35, 0.3, 0.62, 0.81, 0.05])
    w = np.array([2, 1, 3, 1, 2, 0])
    rw = reliability(y, p, sample_weight=w)
    rep = reliability(np.repeat(y, w), np.repeat(p, w))
    for name in ("brier", "log_loss", "ece", "oe_ratio", "slope", "intercept", "n", "n_pos"):
        assert getattr(rw, name) == pytest.approx(getattr(rep, name), rel=1e-6), name
    for bw, br in zip(rw.bins, rep.bins):
        assert bw.count == br.count
        assert (bw.frac_pos == br.frac_pos) or (math.isnan(bw.frac_pos) and math.isnan(br.frac_pos))
    drop = reliability(y[:-1], p[:-1], sample_weight=w[:-1])
    assert rw.ece == drop.ece and rw.brier == drop.brier


# --------------------------------------------------------------------------- undefined cases


def test_one_class_no_exception_slope_undefined_with_reason():
    r = reliability([1, 1, 1], [0.2, 0.5, 0.9])
    assert math.isnan(r.slope) and math.isnan(r.intercept)
    assert r.undefined["slope"] == "only one class present"
    # Brier (0.64 + 0.25 + 0.01)/3 = 0.3 is still defined
    assert r.brier == pytest.approx(0.3)
    assert r.oe_ratio == pytest.approx(1 / (1.6 / 3))


def test_all_scores_equal():
    r = reliability([0, 1, 1, 0], [0.5] * 4)
    assert math.isnan(r.slope) and "all scores are equal" in r.undefined["slope"]
    assert r.ece == pytest.approx(0.0) and r.brier == pytest.approx(0.25)
    assert sum(not b.empty for b in r.bins) == 1


def test_perfect_separation_gives_nan_not_a_huge_slope():
    r = reliability([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    assert math.isnan(r.slope) and "perfectly separated" in r.undefined["slope"]


def test_single_row():
    r = reliability([1], [0.73])
    assert r.n == 1 and r.n_rows == 1 and r.n_bins == 10
    (b,) = _nonempty(r)
    assert b.low == 0.7 and b.frac_pos == 1.0 and b.mean_pred == 0.73
    # ECE = |1 - 0.73| = 0.27; Brier = 0.27² = 0.0729
    assert r.ece == pytest.approx(0.27) and r.brier == pytest.approx(0.0729)
    assert math.isnan(r.slope)
    assert sum(b.empty for b in r.bins) == 9


def test_to_dict_is_json_safe_and_has_cli_keys():
    r = reliability([1], [0.73])
    d = r.to_dict()
    text = json.dumps(d, allow_nan=False)  # NaN would raise here
    for key in ("brier", "log_loss", "ece", "n_bins", "strategy", "bins"):
        assert key in d
    assert set(d["bins"][0]) >= {"low", "high", "count", "mean_pred", "frac_pos"}
    assert d["slope"] is None and d["bins"][0]["frac_pos"] is None
    assert d["bins"][7]["frac_pos"] == 1.0
    assert json.loads(text)["strategy"] == "uniform"


# --------------------------------------------------------------------------- errors


def test_errors_are_all_listed():
    with pytest.raises(InputError) as err:
        reliability([0, 1, 2], [0.1, 1.5, -0.2], n_bins=0, strategy="equal")
    text = str(err.value)
    codes = {p.code for p in err.value.problems}
    assert codes >= {"n_bins_invalid", "strategy_invalid", "y_true_not_binary", "prob_out_of_range"}
    assert "2 values are outside" in text and "recalibrate them first" in text


def test_errors_no_rows_and_zero_weight():
    with pytest.raises(InputError, match="no rows"):
        reliability([], [])
    with pytest.raises(InputError, match="sums to 0"):
        reliability([0, 1], [0.1, 0.2], sample_weight=[0, 0])
    with pytest.raises(InputError, match="must be finite"):
        reliability([0, 1], [0.1, np.nan])


# --------------------------------------------------------------------------- bootstrap


def test_intervals_reproducible_and_bracket_the_estimate():
    y, p = _calibrated_sample(600, 10, power=1.5)
    r = reliability(y, p)
    ci = calibration_intervals(y, p, n_resamples=200, rng=7, slope_method="bootstrap")
    assert ci == calibration_intervals(y, p, n_resamples=200, rng=7, slope_method="bootstrap")
    assert ci != calibration_intervals(y, p, n_resamples=200, rng=8, slope_method="bootstrap")
    for name in ("brier", "log_loss", "ece", "oe_ratio", "slope", "intercept"):
        lo, hi = ci[name]
        assert lo < getattr(r, name) < hi, name
    # bootstrap and Wald intervals of the slope tell the same story on 600 rows
    wald = calibration_intervals(y, p, n_resamples=10, slope_method="wald")
    assert wald["slope"] == pytest.approx(ci["slope"], rel=0.2)
    assert set(calibration_intervals(y, p, n_resamples=10, slope_method=None)) == {"brier", "log_loss", "ece", "oe_ratio"}


def test_wald_slope_intercept_intervals_equal_statsmodels():
    y, p = _calibrated_sample(800, 23, power=1.5)
    w = np.random.default_rng(23).integers(1, 4, len(y)).astype(float)
    ref = sm.GLM(y, sm.add_constant(special.logit(p)), family=sm.families.Binomial(), freq_weights=w).fit()
    (a_lo, a_hi), (b_lo, b_hi) = ref.conf_int(alpha=0.05)
    ci = calibration_intervals(y, p, sample_weight=w, n_resamples=10)
    assert ci["slope"] == pytest.approx((b_lo, b_hi), rel=1e-5)
    assert ci["intercept"] == pytest.approx((a_lo, a_hi), rel=1e-5, abs=1e-7)


def test_brier_interval_width_agrees_with_the_analytic_standard_error():
    # Brier is a mean of per-row terms: SE = std((p - y)²) / sqrt(n); 95% width ≈ 2·1.96·SE
    y, p = _calibrated_sample(2000, 11)
    se = np.std((p - y) ** 2, ddof=1) / np.sqrt(len(y))
    lo, hi = calibration_intervals(y, p, n_resamples=400, rng=1, slope_method=None)["brier"]
    assert (hi - lo) == pytest.approx(2 * 1.959964 * se, rel=0.2)


def test_intervals_batches_do_not_change_the_result(monkeypatch):
    import evalcore.calibration as cal

    y, p = _calibrated_sample(200, 12)
    one_batch = calibration_intervals(y, p, n_resamples=30, rng=3, slope_method="bootstrap")
    monkeypatch.setattr(cal, "_BATCH_ELEMENTS", 7 * len(y))  # batches of 7 replicates
    for name, ci in calibration_intervals(y, p, n_resamples=30, rng=3, slope_method="bootstrap").items():
        assert ci == pytest.approx(one_batch[name], rel=1e-12), name
    # and the Brier interval is the plain percentile of row-resampled Brier scores
    draws = np.random.default_rng(3).integers(0, len(y), size=(30, len(y)))
    br = np.quantile([np.mean((p[d] - y[d]) ** 2) for d in draws], [0.025, 0.975])
    assert one_batch["brier"] == pytest.approx(tuple(br), rel=1e-12)


def test_intervals_undefined_metric_is_nan():
    for method in ("wald", "bootstrap"):
        ci = calibration_intervals([1, 1, 1, 1], [0.2, 0.4, 0.6, 0.8], n_resamples=20, slope_method=method)
        assert all(math.isnan(v) for v in ci["slope"] + ci["intercept"])
    assert ci["brier"][0] <= ci["brier"][1]


def test_intervals_option_errors():
    with pytest.raises(InputError) as err:
        calibration_intervals([0, 1], [0.2, 0.7], n_resamples=0, level=2, slope_method="profile")
    assert {p.code for p in err.value.problems} == {"n_resamples_invalid", "level_invalid", "slope_method_invalid"}
    with pytest.raises(
        InputError, match=r"level must be a confidence level strictly between 0 and 1; got 2\. Fix: Pass e\.g\. 0\.95"
    ):
        calibration_intervals([0, 1], [0.2, 0.7], level=2)
    with pytest.raises(InputError, match="rng must be a non-negative int seed, a numpy Generator or None; got 'x'"):
        calibration_intervals([0, 1], [0.2, 0.7], rng="x")


# --------------------------------------------------------------------------- maps


def test_isotonic_map_equals_sklearn():
    y, p = _calibrated_sample(500, 13, power=2.0)
    m = fit_calibration_map(y, p, method="isotonic")
    iso = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(p, y)
    grid = np.r_[np.linspace(-0.0, 1.0, 501), p[:50]]
    np.testing.assert_allclose(m.apply(grid), iso.predict(grid), rtol=0, atol=1e-12)


def test_platt_on_raw_scores_equals_sklearn_sigmoid_calibration():
    rng = np.random.default_rng(14)
    score = rng.normal(size=600) * 15 + 50  # a 0–100-like risk score
    y = (rng.uniform(size=600) < special.expit((score - 50) / 8)).astype(int)
    m = fit_calibration_map(y, score, method="platt", score_kind="score")
    a, b = _sigmoid_calibration(score, y)  # sklearn: p = 1 / (1 + exp(a·f + b))
    assert m.slope == pytest.approx(-a, rel=1e-4)
    assert m.intercept == pytest.approx(-b, rel=1e-4)
    assert m.score_kind == "score"
    with pytest.raises(InputError, match="finite"):
        m.apply([np.inf])


def test_temperature_equals_no_intercept_logistic_regression():
    # sigmoid(logit(p)/T) = sigmoid(β·logit(p)) with β = 1/T: the MLE of a logistic
    # regression of y on logit(p) without intercept (statsmodels) gives T = 1/β.
    y, s = _overconfident_sample(3000, 15)
    m = fit_calibration_map(y, s, method="temperature")
    beta = sm.Logit(y, special.logit(s)[:, None]).fit(disp=0).params[0]
    assert m.temperature == pytest.approx(1 / beta, rel=1e-5)
    assert 2.5 < m.temperature < 3.5  # the scores were made 3x too confident


def test_temperature_preserves_ranking_and_reduces_ece():
    y, s = _overconfident_sample(3000, 16)
    m = fit_calibration_map(y, s, method="temperature")
    assert roc_auc_score(y, m.apply(s)) == roc_auc_score(y, s)
    cf = cross_fit_calibration(y, s, method="temperature")
    assert cf.after.ece < 0.5 * cf.before.ece
    # per-fold temperatures differ slightly, so cross-fitted AUC is only nearly unchanged
    assert roc_auc_score(y, cf.calibrated) == pytest.approx(roc_auc_score(y, s), abs=2e-3)


def test_temperature_on_raw_scores_is_rejected():
    with pytest.raises(InputError, match="method='platt' or method='isotonic'"):
        fit_calibration_map([0, 1], [3.0, 40.0], method="temperature", score_kind="score")


def test_map_errors_listed():
    with pytest.raises(InputError) as err:
        fit_calibration_map([1, 1], [0.2, 1.4], method="beta", score_kind="prob")
    assert {p.code for p in err.value.problems} >= {"method_invalid", "score_kind_invalid", "one_class"}


def test_lookup_table_reproduces_the_map():
    y, p = _calibrated_sample(400, 17, power=2.0)
    iso = fit_calibration_map(y, p, method="isotonic")
    table = iso.lookup_table()
    assert list(table.columns) == ["score", "calibrated"]
    assert table["score"].min() == 0.0 and table["score"].max() == 1.0
    q = np.random.default_rng(1).uniform(size=300)
    # the table holds every knot, so linear interpolation in it is the isotonic map itself
    np.testing.assert_allclose(np.interp(q, table["score"], table["calibrated"]), iso.apply(q), atol=1e-12)
    platt = fit_calibration_map(y, p, method="platt")
    tp = platt.lookup_table()
    inner = q[(q > 0.01) & (q < 0.99)]
    np.testing.assert_allclose(np.interp(inner, tp["score"], tp["calibrated"]), platt.apply(inner), atol=1e-3)
    csv = table.to_csv(index=False)
    assert csv.startswith("score,calibrated")


def test_lookup_table_on_raw_scores_spans_the_fitted_range():
    score = np.array([10.0, 20.0, 35.0, 60.0, 80.0, 90.0])
    y = np.array([0, 0, 1, 0, 1, 1])
    m = fit_calibration_map(y, score, method="platt", score_kind="score")
    t = m.lookup_table()
    assert t["score"].iloc[0] == 10.0 and t["score"].iloc[-1] == 90.0
    assert t["calibrated"].is_monotonic_increasing


def test_map_to_dict_json_safe():
    m = fit_calibration_map([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8], method="platt")
    d = m.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["temperature"] is None and d["method"] == "platt"


# --------------------------------------------------------------------------- cross-fitting


def test_isotonic_in_sample_looks_better_than_cross_fitted_and_cross_fitted_is_returned():
    y, p = _calibrated_sample(600, 18, power=1.6)
    cf = cross_fit_calibration(y, p, method="isotonic", n_folds=5, rng=0)
    in_sample = reliability(y, fit_calibration_map(y, p, method="isotonic").apply(p))
    # in-sample isotonic fits its own noise: every pooled block is calibrated on itself
    assert in_sample.ece < cf.after.ece
    assert in_sample.brier < cf.after.brier
    # what is returned is the cross-fitted evaluation
    assert cf.after.ece == reliability(y, cf.calibrated).ece
    assert cf.after.ece != in_sample.ece
    # ... and each row's value comes from a map fitted on the *other* folds
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros((len(y), 1)), y))
    for f, (train, test) in enumerate(folds):
        assert (cf.fold[test] == f).all()
        iso = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(p[train], y[train])
        np.testing.assert_allclose(cf.calibrated[test], iso.predict(p[test]), atol=1e-12)
    # the deployment map is fitted on all rows
    np.testing.assert_allclose(cf.final_map.apply(p), in_sample_values := fit_calibration_map(y, p, method="isotonic").apply(p))
    assert in_sample_values.shape == p.shape


def test_cross_fitting_is_seeded():
    y, p = _calibrated_sample(300, 19, power=1.5)
    a = cross_fit_calibration(y, p, method="platt", rng=1)
    b = cross_fit_calibration(y, p, method="platt", rng=1)
    c = cross_fit_calibration(y, p, method="platt", rng=2)
    np.testing.assert_array_equal(a.calibrated, b.calibrated)
    assert not np.array_equal(a.fold, c.fold)
    assert cross_fit_calibration(y, p, method="platt", rng=np.random.default_rng(5)).n_folds == 5


def test_platt_recalibration_fixes_a_miscalibrated_model():
    y, p = _calibrated_sample(2000, 20, power=2.0)  # p² under-predicts
    cf = cross_fit_calibration(y, p, method="platt")
    assert cf.before.oe_ratio > 1.2
    assert abs(cf.after.oe_ratio - 1) < 0.05
    assert cf.after.ece < cf.before.ece
    json.dumps(cf.to_dict(), allow_nan=False)


def test_raw_scores_get_calibration_only_after_recalibration():
    rng = np.random.default_rng(21)
    score = rng.uniform(0, 100, 500)
    y = (rng.uniform(size=500) < score / 100).astype(int)
    with pytest.raises(InputError, match="recalibrate them first"):
        reliability(y, score)
    cf = cross_fit_calibration(y, score, method="isotonic", score_kind="score")
    assert cf.before is None
    assert 0 <= cf.calibrated.min() and cf.calibrated.max() <= 1
    assert cf.after.ece < 0.1


def test_folds_are_reduced_when_a_class_is_small():
    y = np.array([1, 1, 1] + [0] * 20)
    p = np.linspace(0.05, 0.95, 23)
    cf = cross_fit_calibration(y, p, method="platt", n_folds=5)
    assert cf.n_folds == 3
    assert any("folds reduced from 5 to 3" in n for n in cf.notes)
    assert set(cf.fold.tolist()) == {0, 1, 2}


def test_cross_fitting_needs_two_rows_of_each_class():
    with pytest.raises(InputError, match="at least 2 rows of each class; class 1 has 1"):
        cross_fit_calibration([1, 0, 0, 0], [0.9, 0.1, 0.2, 0.3], method="platt")
    with pytest.raises(InputError, match="n_folds must be an integer >= 2"):
        cross_fit_calibration([1, 1, 0, 0], [0.9, 0.8, 0.2, 0.3], method="platt", n_folds=1)


def test_platt_with_all_scores_equal_is_the_smoothed_base_rate():
    # 2 positives, 2 negatives: smoothed targets 3/4 and 1/4, mean 0.5
    m = fit_calibration_map([1, 1, 0, 0], [0.3] * 4, method="platt")
    assert m.apply([0.3, 0.9]).tolist() == pytest.approx([0.5, 0.5])
    assert m.notes


# --------------------------------------------------------------------------- segments


def test_segment_calibration_matches_per_segment_reliability_and_flags_the_worst():
    y, p = _calibrated_sample(900, 22)
    seg = np.array(["a", "b", "c"])[np.arange(900) % 3]
    p = p.copy()
    p[seg == "b"] = p[seg == "b"] ** 2  # make segment b miscalibrated
    df = segment_calibration(y, p, seg)
    assert df["segment"].tolist() == ["a", "b", "c"]
    for _, row in df.iterrows():
        m = seg == row["segment"]
        r = reliability(y[m], p[m])
        assert row["n"] == m.sum() and row["ece"] == pytest.approx(r.ece)
        assert row["slope"] == pytest.approx(r.slope) and row["oe_ratio"] == pytest.approx(r.oe_ratio)
    assert df.loc[df["worst"], "segment"].tolist() == ["b"]


def test_segment_with_one_class_is_reported_not_raised():
    df = segment_calibration([1, 1, 0, 1], [0.8, 0.6, 0.3, 0.7], pd.Series(["x", "x", "y", "y"]))
    x = df.set_index("segment").loc["x"]
    assert math.isnan(x["slope"]) and "only one class" in x["undefined"]
    assert df["worst"].sum() == 1


def test_segment_shape_error():
    with pytest.raises(InputError, match="one value per row"):
        segment_calibration([0, 1], [0.2, 0.3], ["a"])


# --------------------------------------------------------------------------- properties

_edgy = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.6, 0.7, 0.9, 1.0, 0.1 + 0.2, 0.7 - 1e-16])
_probs = st.one_of(st.floats(0.0, 1.0, allow_nan=False), _edgy)


@st.composite
def _samples(draw):
    n = draw(st.integers(1, 40))
    p = np.array(draw(st.lists(_probs, min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))
    if w.sum() == 0:
        w[0] = 1.0
    return y, p, w


@settings(max_examples=150, deadline=None)
@given(_samples(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_properties(sample, n_bins, strategy):
    y, p, w = sample
    r = reliability(y, p, sample_weight=w, n_bins=n_bins, strategy=strategy)
    assert sum(b.count for b in r.bins) == pytest.approx(w.sum())  # bin counts sum to N
    assert sum(b.n_rows for b in r.bins) == len(y)
    assert len(r.bins) == r.n_bins and (r.n_bins == n_bins if strategy == "uniform" else r.n_bins <= n_bins)
    for b in r.bins:
        if not b.empty:
            assert b.low - 1e-12 <= b.mean_pred <= b.high + 1e-12  # a bin's mean lies inside it
            assert b.frac_pos_low <= b.frac_pos + 1e-12 and b.frac_pos <= b.frac_pos_high + 1e-12
    assert 0.0 <= r.ece <= 1.0 and 0.0 <= r.brier <= 1.0
    # ECE is at least the calibration-in-the-large gap |mean y − mean p| (triangle inequality),
    # with equality for a single bin
    gap = abs(np.average(y, weights=w) - np.average(p, weights=w))
    assert r.ece >= gap - 1e-12
    assert ece(y, p, sample_weight=w, n_bins=1) == pytest.approx(gap, abs=1e-12)
    # row order does not matter
    perm = np.random.default_rng(0).permutation(len(y))
    rp = reliability(y[perm], p[perm], sample_weight=w[perm], n_bins=n_bins, strategy=strategy)
    assert rp.ece == pytest.approx(r.ece, abs=1e-12) and [b.count for b in rp.bins] == pytest.approx([b.count for b in r.bins])
    json.dumps(r.to_dict(), allow_nan=False)


def test_wilson_coverage_by_simulation():
    # ~95% coverage for a small bin (n=30, p=0.2); Monte-Carlo SE of the coverage ≈ 0.003
    rng = np.random.default_rng(0)
    k = rng.binomial(30, 0.2, size=20_000)
    lo, hi = wilson_interval(k, 30)
    coverage = np.mean((lo <= 0.2) & (0.2 <= hi))
    assert 0.93 < coverage < 0.98
