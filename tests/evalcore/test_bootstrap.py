"""Tests of evalcore.bootstrap: closed forms against statsmodels / scikit-learn / naive
oracles, the cell engine against index resampling (in distribution) and scipy.stats.bootstrap,
reproducibility, batch invariance, undefined cases and every error message.

Monte-Carlo tolerances
----------------------
Two independent bootstrap distributions of B replicates each: the q-quantile estimator has
standard deviation ≈ σ·√(q(1−q)/B)/φ(z_q) (σ the bootstrap SE). For q = 0.025, B = 4000 this is
0.042σ, so the difference of two is 0.060σ; we accept 5 standard deviations, 0.30σ. The median
(q = 0.5): 0.0198σ each, 0.028σ the difference, 5 sd → 0.14σ. The SD of a standard-deviation
estimate is ≈ σ/√(2B) = 1.1% at B = 4000, the difference 1.6%, 5 sd → 8%.
The KS tests use fixed seeds and reject at 1%: a systematic difference in distribution would
make them fail, a correct engine passes with probability 99% per seed.
"""

from __future__ import annotations

import json

import hypothesis
import numpy as np
import pytest
from _oracle import bootstrap_statistic  # tests/evalcore is on sys.path
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy import sparse, stats
from sklearn.metrics import confusion_matrix, roc_auc_score
from statsmodels.stats.proportion import proportion_confint
from strategies import binary_data, value_tables

from evalcore import InputError
from evalcore.bootstrap import (
    _design,
    _jackknife,
    analytic_ev_se,
    auc_delong,
    auc_delong_paired,
    compare_models,
    ev_interval,
    metric_intervals,
    optimum_interval,
    wilson_interval,
)
from evalcore.value import ValueTable, value_curve

TABLE = ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120)
SIMPLE = ValueTable(tp=10, fp=-2, fn=-10, tn=0)


def make_data(n=2000, prevalence=0.05, seed=0, sep=2.0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    z = rng.normal(size=n) + sep * y
    s = np.round(1 / (1 + np.exp(-(z - 2))), 3)  # rounded: ties between rows
    return y, s


def row_values(y, s, t, table):
    """The value of each row's outcome at threshold t (act iff s >= t): an independent EV."""
    v = table.effective()
    act = s >= t
    return np.where(act, np.where(y == 1, v["tp"], v["fp"]), np.where(y == 1, v["fn"], v["tn"]))


def ev_by_sklearn(y, s, t, table, w=None):
    tn, fp, fn, tp = confusion_matrix(y, (s >= t).astype(int), labels=[0, 1], sample_weight=w).ravel()
    v = table.effective()
    return (v["tp"] * tp + v["fp"] * fp + v["fn"] * fn + v["tn"] * tn) / (tp + fp + fn + tn)


def ev_stat(t, table):
    def stat(y, s, axis=-1):
        return row_values(y, s, t, table).mean(axis=axis)

    return stat


def assert_same_distribution(d1, d2, *, tol_sd=(0.30, 0.14)):
    """KS at 1% and quantiles within the Monte-Carlo tolerance of the module docstring."""
    assert stats.ks_2samp(d1, d2).pvalue > 0.01
    sd = np.std(np.r_[d1, d2], ddof=1)
    for q, tol in ((0.025, tol_sd[0]), (0.5, tol_sd[1]), (0.975, tol_sd[0])):
        assert abs(np.quantile(d1, q) - np.quantile(d2, q)) < tol * sd, q


# --------------------------------------------------------------------------------------
# Wilson and metric intervals
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("k,n", [(0, 10), (10, 10), (8, 10), (1, 1000), (800, 1000), (3, 7)])
@pytest.mark.parametrize("level", [0.95, 0.9, 0.99])
def test_wilson_matches_statsmodels(k, n, level):
    lo, hi = wilson_interval(k, n, level=level)
    ref = proportion_confint(k, n, alpha=1 - level, method="wilson")
    assert lo == pytest.approx(ref[0], abs=1e-12)
    assert hi == pytest.approx(ref[1], abs=1e-12)


def test_wilson_vectorised_and_zero_n():
    lo, hi = wilson_interval([8, 0, 5], [10, 0, 5])
    ref = proportion_confint(np.array([8, 5]), np.array([10, 5]), method="wilson")
    np.testing.assert_allclose(lo[[0, 2]], ref[0])
    np.testing.assert_allclose(hi[[0, 2]], ref[1])
    assert np.isnan(lo[1]) and np.isnan(hi[1])  # n == 0: undefined, never 0


def test_wilson_rejects_bad_input_at_once():
    with pytest.raises(InputError) as e:
        wilson_interval(11, 10, level=1.5)
    assert len(e.value.problems) == 2
    assert "level must be a confidence level strictly between 0 and 1; got 1.5" in str(e.value)
    assert "0 <= successes <= n" in str(e.value)


def test_metric_intervals_spec_example():
    # SPEC §3.1: TP=8, FP=12, FN=2, TN=78 -> accuracy 0.86, precision 0.4, recall 0.8
    m = metric_intervals(8, 12, 2, 78)
    assert m.accuracy.estimate == pytest.approx(0.86)
    assert m.precision.estimate == pytest.approx(0.4)
    assert m.recall.estimate == pytest.approx(0.8)
    assert m.specificity.estimate == pytest.approx(78 / 90)
    assert m.fpr.estimate == pytest.approx(12 / 90)
    assert m.positive_rate.estimate == pytest.approx(20 / 100)
    for name, (k, n) in {"accuracy": (86, 100), "precision": (8, 20), "recall": (8, 10), "fpr": (12, 90)}.items():
        ref = proportion_confint(k, n, method="wilson")
        got = getattr(m, name)
        assert (got.low, got.high) == pytest.approx(ref, abs=1e-12)
    json.dumps(m.to_dict(), allow_nan=False)


def test_metric_intervals_zero_denominator_is_undefined():
    m = metric_intervals(0, 0, 5, 95)  # nobody predicted positive
    assert np.isnan(m.precision.estimate) and np.isnan(m.precision.low)
    assert m.precision.undefined == "no predicted positives at this threshold"
    assert m.to_dict()["precision"]["ci"] == [None, None]
    with pytest.raises(InputError, match="must be finite and >= 0"):
        metric_intervals(-1, 0, 0, 0)


def test_spec_wald_example_is_close_to_wilson():
    # SPEC §3.4: N=1000, p̂=0.8, Wald ≈ [0.775, 0.825]; Wilson is close but not symmetric
    lo, hi = wilson_interval(800, 1000)
    assert lo == pytest.approx(0.7741, abs=1e-3) and hi == pytest.approx(0.8235, abs=1e-3)


# --------------------------------------------------------------------------------------
# DeLong
# --------------------------------------------------------------------------------------


def naive_delong(y, scores):
    """O(m·n) DeLong structural components straight from the definition (the oracle)."""
    pos, neg = scores[:, y == 1], scores[:, y == 0]
    out_auc, v10s, v01s = [], [], []
    for p, q in zip(pos, neg):
        psi = (p[:, None] > q[None, :]) + 0.5 * (p[:, None] == q[None, :])
        out_auc.append(psi.mean())
        v10s.append(psi.mean(axis=1))  # per positive
        v01s.append(psi.mean(axis=0))  # per negative
    v10, v01 = np.array(v10s), np.array(v01s)
    cov = np.atleast_2d(np.cov(v10)) / pos.shape[1] + np.atleast_2d(np.cov(v01)) / neg.shape[1]
    return np.array(out_auc), cov


def test_delong_matches_sklearn_and_naive_oracle():
    y, s = make_data(600, 0.2, seed=3)
    r = auc_delong(y, s)
    assert r.auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    auc, cov = naive_delong(y, s[None, :])
    assert r.se == pytest.approx(np.sqrt(cov[0, 0]), rel=1e-10)
    z = stats.norm.ppf(0.975)
    assert (r.low, r.high) == pytest.approx((r.auc - z * r.se, r.auc + z * r.se))


def test_delong_paired_matches_naive_oracle():
    y, s = make_data(500, 0.3, seed=4)
    rng = np.random.default_rng(5)
    s2 = np.round(s + rng.normal(0, 0.1, len(s)), 2)
    r = auc_delong_paired(y, s, s2)
    auc, cov = naive_delong(y, np.vstack([s, s2]))
    assert r.diff == pytest.approx(roc_auc_score(y, s2) - roc_auc_score(y, s), abs=1e-12)
    assert r.se == pytest.approx(np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]), rel=1e-10)
    assert r.p_value == pytest.approx(2 * stats.norm.sf(abs(r.diff) / r.se))
    same = auc_delong_paired(y, s, s)
    assert same.diff == 0 and same.se == 0 and same.p_value == 1.0


def test_delong_one_class_is_undefined():
    r = auc_delong([1, 1, 1], [0.1, 0.5, 0.9])
    assert all(np.isnan(x) for x in r)


# --------------------------------------------------------------------------------------
# EV at a fixed threshold
# --------------------------------------------------------------------------------------


def test_ev_estimate_matches_sklearn_and_value_curve():
    y, s = make_data()
    r = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=200, rng=0)
    assert r.estimate == pytest.approx(ev_by_sklearn(y, s, 0.3, TABLE))
    assert r.estimate == pytest.approx(value_curve(y, s, TABLE).ev_at(0.3))
    assert r.scheme == "rows" and r.method == "percentile" and r.n_resamples == 200
    assert r.distribution.shape == (200,)
    assert r.standard_error == pytest.approx(np.std(r.distribution, ddof=1))
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    assert set(d) >= {"estimate", "ci", "level", "standard_error", "method", "scheme", "n_resamples"}


def test_ev_with_prevalence_matches_value_curve_and_oracle():
    y, s = make_data(800, 0.2, seed=1)
    table = TABLE.with_amounts(prevalence=0.02)
    fast = ev_interval(y, s, table, threshold=0.3, n_resamples=1500, rng=1)
    assert fast.estimate == pytest.approx(value_curve(y, s, table).ev_at(0.3))

    def stat(yy, ss, axis=-1):  # the statistic as the product computes it, on each replicate
        return value_curve(yy, ss, table).ev_at(0.3)

    slow = bootstrap_statistic(stat, y, s, n_resamples=1500, vectorized=False, rng=2)
    assert slow.estimate == pytest.approx(fast.estimate)
    assert_same_distribution(fast.distribution, slow.distribution, tol_sd=(0.35, 0.16))  # B=1500: 0.049σ·√2·5


@pytest.mark.parametrize("scheme", ["rows", "stratified", "cluster", "stratified cluster"])
def test_fast_path_agrees_with_index_resampling(scheme):
    y, s = make_data(1500, 0.1, seed=2)
    rng = np.random.default_rng(9)
    strata = groups = None
    if "stratified" in scheme:  # strata that track the label, so stratifying changes the spread
        strata = np.where(rng.random(len(y)) < 0.8, y, 1 - y)
    if "cluster" in scheme:  # groups of 5 rows with neighbouring scores: correlated decisions
        groups = np.empty(len(y), np.int64)
        groups[np.argsort(s, kind="stable")] = np.arange(len(y)) // 5
        if strata is not None:  # groups inside strata
            strata = (groups % 3 == 0).astype(int)
    kw = dict(strata=strata, groups=groups, n_resamples=4000)
    fast = ev_interval(y, s, TABLE, threshold=0.3, rng=3, **kw)
    slow = bootstrap_statistic(ev_stat(0.3, TABLE), y, s, rng=4, **kw)
    assert fast.scheme == slow.scheme == scheme
    assert fast.estimate == pytest.approx(slow.estimate)
    assert_same_distribution(fast.distribution, slow.distribution)
    assert fast.standard_error == pytest.approx(slow.standard_error, rel=0.08)


def test_fast_path_agrees_with_scipy_bootstrap():
    y, s = make_data(2000, 0.05, seed=6)
    stat = ev_stat(0.3, TABLE)
    for method in ("percentile", "bca"):
        ours = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=4000, method=method, rng=7)
        ref = stats.bootstrap((y, s), stat, paired=True, vectorized=True, n_resamples=4000, method=method, rng=8)
        sd = ref.standard_error
        assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.30 * sd)
        assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.30 * sd)
        assert ours.standard_error == pytest.approx(sd, rel=0.08)
        generic = bootstrap_statistic(stat, y, s, n_resamples=4000, method=method, rng=9)
        assert generic.low == pytest.approx(ref.confidence_interval.low, abs=0.30 * sd)
        assert generic.high == pytest.approx(ref.confidence_interval.high, abs=0.30 * sd)


def test_cell_jackknife_equals_row_jackknife():
    # leaving one row out of a cell is the same for every row of the cell: the cell
    # jackknife with multiplicities must reproduce the naive leave-one-row-out exactly
    y, s = make_data(120, 0.3, seed=10)
    w = np.random.default_rng(0).choice([1.0, 2.5], size=len(y))
    x = row_values(y, s, 0.3, TABLE)
    naive = np.array([np.sum(np.delete(w * x, i)) / np.sum(np.delete(w, i)) for i in range(len(y))])
    key = (2 * (s < 0.3) + (1 - y)).astype(np.int64)
    d = _design(key, 4, w, None, None)
    from evalcore.bootstrap import _ev_from_cells

    v = TABLE.vector()
    jk = _jackknife(d, lambda k: {"ev": _ev_from_cells(k[:, 0], k[:, 1], k[:, 2], k[:, 3], v, None)}, ["ev"])["ev"]
    got = np.repeat(jk, d.mult)
    np.testing.assert_allclose(np.sort(got), np.sort(naive), rtol=1e-12)

    # skewness ingredient of BCa: weighted moments over cells equal the row moments
    def accel(t, m):
        mean = np.sum(m * t) / m.sum()
        dd = mean - t
        return np.sum(m * dd**3) / (6 * np.sum(m * dd**2) ** 1.5)

    assert accel(jk, d.mult) == pytest.approx(accel(naive, np.ones(len(naive))), rel=1e-9)


def test_weighted_rows_agree_with_index_resampling():
    y, s = make_data(1200, 0.1, seed=11)
    w = np.random.default_rng(1).gamma(2.0, 1.0, size=len(y))  # all distinct: every row its own cell
    fast = ev_interval(y, s, TABLE, threshold=0.3, sample_weight=w, n_resamples=3000, rng=1)
    assert fast.estimate == pytest.approx(ev_by_sklearn(y, s, 0.3, TABLE, w))
    x = row_values(y, s, 0.3, TABLE)

    def wmean(x_, w_, axis=-1):
        return np.sum(x_ * w_, axis=axis) / np.sum(w_, axis=axis)

    slow = bootstrap_statistic(wmean, x, w, n_resamples=3000, rng=2)
    assert_same_distribution(fast.distribution, slow.distribution, tol_sd=(0.33, 0.16))  # B=3000


def test_analytic_se_matches_hand_formula_and_bootstrap():
    y, s = make_data(3000, 0.1, seed=12)
    x = row_values(y, s, 0.3, TABLE)
    se = analytic_ev_se(y, s, TABLE, threshold=0.3)
    assert se == pytest.approx(np.std(x) / np.sqrt(len(x)), rel=1e-12)
    boot = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=4000, rng=0)
    assert boot.standard_error == pytest.approx(se, rel=0.08)  # SD estimate: 1.1% per 4000 replicates
    # with a production prevalence the SE is that of the post-stratified mean; check it
    # against the bootstrap, which re-estimates p̂ in every replicate
    table = TABLE.with_amounts(prevalence=0.01)
    se_p = analytic_ev_se(y, s, table, threshold=0.3)
    boot_p = ev_interval(y, s, table, threshold=0.3, n_resamples=4000, rng=1)
    assert boot_p.standard_error == pytest.approx(se_p, rel=0.08)
    assert se_p != pytest.approx(se, rel=0.1)


def test_same_seed_same_result_and_seeds_differ():
    y, s = make_data(500, 0.2)
    a = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=300, rng=5)
    b = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=300, rng=5)
    c = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=300, rng=6)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert not np.array_equal(a.distribution, c.distribution)
    g = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=300, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.distribution, g.distribution)


def test_single_row_and_constant_data():
    # one row: every replicate equals the estimate; percentile is the point, BCa is undefined
    r = ev_interval([1], [0.9], SIMPLE, threshold=0.5, n_resamples=50, rng=0)
    assert (r.estimate, r.low, r.high, r.standard_error) == (10.0, 10.0, 10.0, 0.0)
    b = ev_interval([1], [0.9], SIMPLE, threshold=0.5, n_resamples=50, method="bca", rng=0)
    assert np.isnan(b.low) and np.isnan(b.high)
    assert "BCa is undefined" in b.undefined["interval"]
    assert b.to_dict()["ci"] == [None, None]


def test_one_class_ev_defined_auc_undefined():
    y = np.zeros(50, int)
    s = np.linspace(0, 1, 50)
    r = ev_interval(y, s, SIMPLE, threshold=0.5, n_resamples=100, rng=0)
    assert r.estimate == pytest.approx(-2 * 25 / 50)  # 25 negatives with s >= 0.5 cost 2 each
    o = optimum_interval(y, s, SIMPLE, n_resamples=100, rng=0)
    assert np.isnan(o.auc.estimate) and np.isnan(o.auc.low)
    assert o.auc.n_undefined == 100
    assert "estimate" in o.auc.undefined and "interval" in o.auc.undefined
    json.dumps(o.to_dict(), allow_nan=False)


def test_errors_are_listed_all_at_once():
    y, s = make_data(100)
    with pytest.raises(InputError) as e:
        ev_interval(y, s, TABLE, threshold=0.3, n_resamples=0, level=1.2, method="basic", strata=np.ones(5), groups=[None] * 100)
    msg = str(e.value)
    assert len(e.value.problems) == 5
    assert "n_resamples must be an integer >= 2; got 0" in msg
    assert "level must be a confidence level strictly between 0 and 1; got 1.2" in msg
    assert "method must be one of ('percentile', 'bca', 'bayes'); got 'basic'" in msg
    assert "strata must have one value per row (100); got shape (5,)" in msg
    assert "groups has 100 missing values" in msg


@pytest.mark.parametrize("bad", [float("nan"), "x", -np.inf])
def test_threshold_must_be_finite_or_inf(bad):
    with pytest.raises(InputError, match="threshold must be a finite number or \\+inf"):
        ev_interval([0, 1], [0.1, 0.9], SIMPLE, threshold=bad)


def test_other_errors():
    with pytest.raises(InputError, match="needs at least one row; got 0"):
        ev_interval([], [], SIMPLE, threshold=0.5)
    with pytest.raises(InputError, match="rng must be a non-negative int seed"):
        ev_interval([0, 1], [0.1, 0.9], SIMPLE, threshold=0.5, rng="seed")
    with pytest.raises(InputError, match="groups span more than one stratum"):
        ev_interval([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], SIMPLE, threshold=0.5, strata=[0, 1, 0, 1], groups=[0, 0, 1, 1])
    with pytest.raises(InputError, match="y_true must hold only 0 and 1"):
        ev_interval([0, 2], [0.1, 0.9], SIMPLE, threshold=0.5)
    with pytest.raises(InputError, match="resolution must be a positive number"):
        optimum_interval([0, 1], [0.1, 0.9], SIMPLE, resolution=0)
    with pytest.raises(InputError, match="batch must be a positive integer"):
        optimum_interval([0, 1], [0.1, 0.9], SIMPLE, batch=0)


def test_cluster_of_singletons_is_the_rows_scheme():
    y, s = make_data(800, 0.2, seed=13)
    rows = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=3000, rng=1)
    single = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=3000, groups=np.arange(len(y)), rng=2)
    assert single.scheme == "cluster"
    assert_same_distribution(rows.distribution, single.distribution, tol_sd=(0.33, 0.16))


def test_stratified_keeps_stratum_sizes():
    # one stratum all positive, the other all negative: every replicate keeps the class counts,
    # so EV at a threshold that acts on all rows is constant
    y = np.r_[np.ones(30, int), np.zeros(70, int)]
    s = np.linspace(0.5, 1, 100)
    r = ev_interval(y, s, SIMPLE, threshold=0.0, strata=y, n_resamples=200, rng=0)
    assert r.scheme == "stratified"
    assert np.all(r.distribution == pytest.approx((10 * 30 - 2 * 70) / 100))
    free = ev_interval(y, s, SIMPLE, threshold=0.0, n_resamples=200, rng=0)
    assert free.standard_error > 0


@settings(max_examples=40, deadline=None)
@given(
    hst.lists(hst.tuples(hst.integers(0, 1), hst.integers(0, 5)), min_size=1, max_size=40),
    hst.sampled_from([0.0, 1.5, 3.0, 9.0]),
    hst.sampled_from(["percentile", "bca"]),
)
def test_property_estimate_and_order(rows, t, method):
    y = np.array([r[0] for r in rows])
    s = np.array([float(r[1]) for r in rows])
    r = ev_interval(y, s, SIMPLE, threshold=t, n_resamples=50, method=method, rng=0)
    assert r.estimate == pytest.approx(ev_by_sklearn(y, s, t, SIMPLE))
    if np.isfinite(r.low):
        assert r.low <= r.high
        assert r.distribution.min() <= r.low and r.high <= r.distribution.max()
    else:
        assert r.undefined
    json.dumps(r.to_dict(), allow_nan=False)


# --------------------------------------------------------------------------------------
# paired comparison
# --------------------------------------------------------------------------------------


def paired_data(n=2000, seed=14, prevalence=0.05):
    y, s = make_data(n, prevalence, seed=seed)
    rng = np.random.default_rng(seed + 1)
    s2 = np.round(np.clip(s + rng.normal(0, 0.05, n), 0, 1), 3)
    return y, s, s2


def test_compare_models_estimates_and_pairing():
    y, a, b = paired_data()
    c = compare_models(y, a, b, TABLE, threshold_a=0.3, threshold_b=0.35, n_resamples=2000, rng=0, names=("current", "new"))
    assert c.ev_a.estimate == pytest.approx(ev_by_sklearn(y, a, 0.3, TABLE))
    assert c.ev_b.estimate == pytest.approx(ev_by_sklearn(y, b, 0.35, TABLE))
    assert c.diff.estimate == pytest.approx(c.ev_b.estimate - c.ev_a.estimate)
    # the SAME draws for both models
    np.testing.assert_allclose(c.diff.distribution, c.ev_b.distribution - c.ev_a.distribution)
    assert c.p_b_better == pytest.approx(np.mean(c.diff.distribution > 0))
    # pairing: correlated models have a much tighter difference than independent errors suggest
    assert c.diff.standard_error < 0.8 * np.hypot(c.ev_a.standard_error, c.ev_b.standard_error)
    d = c.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["a"] == "current" and d["b"] == "new"
    assert d["diff_ev_ci"] == [c.diff.low, c.diff.high]
    assert set(d) >= {"a", "b", "diff_ev", "diff_ev_ci", "p_b_better"}


@pytest.mark.parametrize("scheme", ["rows", "stratified", "cluster"])
def test_paired_difference_agrees_with_index_resampling(scheme):
    y, a, b = paired_data(1500, seed=15, prevalence=0.1)
    strata = np.where(np.random.default_rng(1).random(len(y)) < 0.8, y, 1 - y) if scheme == "stratified" else None
    groups = None
    if scheme == "cluster":  # groups of 3 rows with neighbouring scores
        groups = np.empty(len(y), np.int64)
        groups[np.argsort(a, kind="stable")] = np.arange(len(y)) // 3
    fast = compare_models(y, a, b, TABLE, threshold_a=0.3, threshold_b=0.3, n_resamples=4000, strata=strata, groups=groups, rng=2)

    def diff(yy, sa, sb, axis=-1):
        return row_values(yy, sb, 0.3, TABLE).mean(axis=axis) - row_values(yy, sa, 0.3, TABLE).mean(axis=axis)

    slow = bootstrap_statistic(diff, y, a, b, n_resamples=4000, strata=strata, groups=groups, rng=3)
    assert fast.diff.estimate == pytest.approx(slow.estimate)
    assert_same_distribution(fast.diff.distribution, slow.distribution)


def test_verdicts():
    y = np.array([1, 0] * 200)
    a = np.array([0.4, 0.6] * 200)  # A acts only on negatives: EV (-10 - 2)/2 = -6
    b = np.array([0.9, 0.1] * 200)  # B acts only on positives: EV 10/2 = 5
    better = compare_models(y, a, b, SIMPLE, threshold_a=0.5, threshold_b=0.5, rng=0)
    assert better.diff.estimate == 11.0 and better.verdict == "better" and better.p_b_better == 1.0
    assert better.verdict_text == "B is better: the 95% CI of EV_B − EV_A excludes 0."
    worse = compare_models(y, b, a, SIMPLE, threshold_a=0.5, threshold_b=0.5, rng=0, names=("new", "old"), level=0.9)
    assert worse.verdict == "worse" and worse.p_b_better == 0.0
    assert worse.verdict_text == "old is worse: the 90% CI of EV_old − EV_new excludes 0."
    y, a, b2 = paired_data(300, seed=3)
    same = compare_models(y, a, a, TABLE, threshold_a=0.3, threshold_b=0.3, rng=0)
    assert same.verdict == "no significant difference" and same.p_b_better == 0.0  # every diff is 0, not > 0
    assert same.verdict_text.startswith("No significant difference between B and A")


def test_compare_bca_runs_and_orders():
    y, a, b = paired_data(1000, seed=16, prevalence=0.1)
    c = compare_models(y, a, b, TABLE, threshold_a=0.3, threshold_b=0.3, method="bca", n_resamples=1000, rng=0)
    for r in (c.ev_a, c.ev_b, c.diff):
        assert r.method == "bca" and r.low <= r.high


# --------------------------------------------------------------------------------------
# the whole curve: ev_opt, t_opt, band, AUC
# --------------------------------------------------------------------------------------


def test_optimum_estimates_match_value_curve_and_sklearn():
    y, s = make_data(1500, 0.1, seed=17)
    for table in (TABLE, TABLE.with_amounts(prevalence=0.02)):
        o = optimum_interval(y, s, table, n_resamples=100, rng=0)
        vc = value_curve(y, s, table)
        assert o.ev_opt.estimate == pytest.approx(vc.ev_opt)
        assert o.t_opt.estimate == pytest.approx(vc.t_opt)
        assert o.auc.estimate == pytest.approx(roc_auc_score(y, s))
        np.testing.assert_allclose(o.band.estimate, [vc.ev_at(g) for g in o.band.grid])
        assert o.n_thresholds == len(vc.thresholds) - 1 and o.resolution is None


def test_optimum_replicates_agree_with_value_curve_on_index_resamples():
    y, s = make_data(400, 0.15, seed=18)
    s = np.round(s, 2)
    fast = optimum_interval(y, s, TABLE, n_resamples=1500, rng=1)
    for name, fn in (("ev_opt", lambda yy, ss: value_curve(yy, ss, TABLE).ev_opt), ("auc", lambda yy, ss: roc_auc_score(yy, ss))):
        slow = bootstrap_statistic(lambda yy, ss, axis=-1, fn=fn: fn(yy, ss), y, s, n_resamples=1500, vectorized=False, rng=2)
        assert_same_distribution(getattr(fast, name).distribution, slow.distribution, tol_sd=(0.35, 0.16))


def test_each_optimum_replicate_is_the_value_curve_of_its_resample():
    # exactness, replicate by replicate: rebuild each replicate's rows from the drawn cell
    # counts and ask value_curve (the product's own implementation) for t_opt and ev_opt
    from evalcore.bootstrap import _curve_stats

    y, s = make_data(300, 0.2, seed=19)
    s = np.round(s, 2)
    c = value_curve(y, s, TABLE)
    scores = c.thresholds[1:]
    rng = np.random.default_rng(0)
    for _ in range(30):
        idx = rng.integers(0, len(y), len(y))
        yy, ss = y[idx], s[idx]
        pos = np.array([np.sum((ss == v) & (yy == 1)) for v in scores], float)
        neg = np.array([np.sum((ss == v) & (yy == 0)) for v in scores], float)
        got = _curve_stats(np.r_[pos, neg][None, :], scores, TABLE.vector(), None, np.array([0]))
        ref = value_curve(yy, ss, TABLE)
        assert got["ev_opt"][0] == pytest.approx(ref.ev_opt)
        assert got["t_opt"][0] == pytest.approx(ref.t_opt)
        assert got["auc"][0] == pytest.approx(roc_auc_score(yy, ss))


def test_optimum_batch_size_invariance_and_progress():
    y, s = make_data(600, 0.1, seed=20)
    strata = np.random.default_rng(0).choice(["a", "b"], size=len(y))
    calls = []
    ref = optimum_interval(y, s, TABLE, n_resamples=50, strata=strata, rng=3, batch=50)
    for b in (1, 7, None):
        o = optimum_interval(
            y, s, TABLE, n_resamples=50, strata=strata, rng=3, batch=b, progress=lambda d, t: calls.append((d, t))
        )
        for name in ("ev_opt", "t_opt", "auc"):
            np.testing.assert_array_equal(getattr(o, name).distribution, getattr(ref, name).distribution)
        np.testing.assert_array_equal(o.band.low, ref.band.low)
    assert calls[:3] == [(1, 50), (2, 50), (3, 50)] and calls[-1] == (50, 50)


def test_generic_batch_size_invariance():
    y, s = make_data(300, 0.2, seed=21)
    stat = ev_stat(0.3, TABLE)
    for kw in ({}, {"strata": y}, {"groups": np.arange(len(y)) // 3}):
        a = bootstrap_statistic(stat, y, s, n_resamples=40, batch=40, rng=1, **kw)
        b = bootstrap_statistic(stat, y, s, n_resamples=40, batch=3, rng=1, **kw)
        np.testing.assert_array_equal(a.distribution, b.distribution)


def test_band_and_resolution():
    y, s = make_data(3000, 0.1, seed=22)
    s = s + np.random.default_rng(0).uniform(0, 1e-3, len(s))  # nearly all distinct
    o = optimum_interval(y, s, TABLE, n_resamples=300, resolution=0.01, rng=0)
    assert o.resolution == 0.01 and o.n_thresholds <= 101
    binned = np.floor(s / 0.01) * 0.01
    vc = value_curve(y, binned, TABLE)
    assert o.ev_opt.estimate == pytest.approx(vc.ev_opt)
    assert o.t_opt.estimate == pytest.approx(vc.t_opt)
    g, lo, hi = o.band.as_tuple()
    assert len(g) == o.n_thresholds  # <= 201 distinct: the band sits on every threshold
    assert np.all(lo <= o.band.estimate + 1e-9) and np.all(o.band.estimate <= hi + 1e-9)
    custom = optimum_interval(y, s, TABLE, n_resamples=100, resolution=0.01, band_grid=[0.1, 0.5], rng=0)
    np.testing.assert_allclose(custom.band.estimate, [vc.ev_at(0.1), vc.ev_at(0.5)])


def test_optimum_bca_and_t_opt_distribution():
    y, s = make_data(1500, 0.1, seed=23)
    o = optimum_interval(y, s, TABLE, n_resamples=500, method="bca", resolution=0.02, rng=0)
    assert o.ev_opt.method == "bca"
    assert o.ev_opt.low <= o.ev_opt.high and o.auc.low <= o.auc.high
    t = o.t_opt.distribution
    assert t.shape == (500,) and np.all((t >= 0) | np.isinf(t))
    json.dumps(o.to_dict(), allow_nan=False)


def test_auc_bootstrap_se_close_to_delong():
    y, s = make_data(2000, 0.2, seed=24)
    o = optimum_interval(y, s, TABLE, n_resamples=3000, rng=0)
    r = auc_delong(y, s)
    assert o.auc.estimate == pytest.approx(r.auc)
    assert o.auc.standard_error == pytest.approx(r.se, rel=0.1)  # DeLong is first order; MC 1.3%


def test_optimum_with_weights_matches_weighted_value_curve():
    y, s = make_data(800, 0.1, seed=25)
    w = np.where(y == 1, 1.0, 4.0)  # negatives down-sampled 1:4, weighted back
    w[::7] *= 0.5  # and unequal weights within some cells
    o = optimum_interval(y, s, TABLE, sample_weight=w, n_resamples=200, rng=0)
    vc = value_curve(y, s, TABLE, sample_weight=w)
    assert o.ev_opt.estimate == pytest.approx(vc.ev_opt)
    assert o.t_opt.estimate == pytest.approx(vc.t_opt)
    assert o.auc.estimate == pytest.approx(roc_auc_score(y, s, sample_weight=w))
    assert o.ev_opt.low <= o.ev_opt.high


def test_one_class_replicates_under_a_production_prevalence_are_undefined_not_unweighted():
    # 1 positive in 30 rows: a resample misses it with probability (29/30)^30 ≈ 0.36. Such a
    # replicate has nothing to reweight to the production prevalence, so (like the point
    # estimate of price_curve on one class) it is undefined and counted, never priced unweighted.
    y = np.r_[1, np.zeros(29, int)]
    s = np.linspace(0.9, 0.05, 30)
    t = ValueTable(tp=100, fp=-5, fn=-100, tn=1, prevalence=0.1)
    r = ev_interval(y, s, t, threshold=0.5, n_resamples=500, rng=0)
    assert 100 < r.n_undefined < 260  # binomial(500, 0.362): mean 181, sd 10.7
    assert "replicates" in r.undefined
    assert np.isfinite(r.low) and np.isfinite(r.high)
    plain = ev_interval(y, s, t.with_amounts(prevalence=None), threshold=0.5, n_resamples=500, rng=0)
    assert plain.n_undefined == 0


def test_collapsed_cluster_design_draws_what_uniform_group_draws_draw():
    """Groups with the same key profile are merged into classes drawn by a multinomial: the
    key totals have the distribution of m uniform group draws (checked on means, covariance
    and a KS test of one key), and the jackknife values repeat each group's value once."""
    import dataclasses

    from evalcore.bootstrap import _collapse, _design, _draw, _jackknife

    rng = np.random.default_rng(5)
    n_groups, n = 400, 2000
    groups = np.unique(rng.integers(0, n_groups, n), return_inverse=True)[1]  # codes 0..G-1, as factorized ids
    keys = rng.integers(0, 4, n)
    full = _design(keys, 4, np.ones(n), None, groups)
    assert full.collapsed and full.n_units < n_groups  # e.g. many groups of one row share a profile
    g = np.zeros((groups.max() + 1, 4))  # the same groups drawn one by one (the design before collapsing)
    np.add.at(g, (groups, keys), 1.0)
    plain = dataclasses.replace(
        full,
        group_keys=g,
        p=np.full(len(g), 1 / len(g)),
        mult=np.ones(len(g), np.int64),
        strata=((0, len(g), len(g)),),
        collapsed=False,
    )
    a = full.keys(_draw(full, np.random.default_rng([1]).spawn(1), 20_000))
    b = plain.keys(_draw(plain, np.random.default_rng([2]).spawn(1), 20_000))
    np.testing.assert_allclose(a.mean(axis=0), full.full, rtol=0.01)
    np.testing.assert_allclose(b.mean(axis=0), full.full, rtol=0.01)
    # covariance of m uniform group draws: m * (mean of g g^T - mu mu^T)
    mu = g.mean(axis=0)
    theory = len(g) * (g.T @ g / len(g) - np.outer(mu, mu))
    np.testing.assert_allclose(np.cov(a.T), theory, atol=15)  # sampling SE of a covariance here: about 4
    np.testing.assert_allclose(np.cov(b.T), theory, atol=15)
    assert stats.ks_2samp(a[:, 0], b[:, 0]).pvalue > 0.01
    # jackknife: each class's leave-one-group-out value, repeated class-size times, is the plain one
    stat = lambda k: {"t": k[:, 0] / k.sum(axis=1)}  # noqa: E731
    ja, jb = _jackknife(full, stat, ["t"])["t"], _jackknife(plain, stat, ["t"])["t"]
    np.testing.assert_allclose(np.sort(np.repeat(ja, full.mult)), np.sort(jb))
    assert _collapse(full) is full


# --------------------------------------------------------------------------------------
# zero weights and the midpoint threshold (issue 20)
# --------------------------------------------------------------------------------------


def _same_bootstrap(a, b):
    for name in ("estimate", "low", "high", "standard_error", "n_undefined"):
        x, y = getattr(a, name), getattr(b, name)
        assert x == y or (np.isnan(x) and np.isnan(y)), name
    np.testing.assert_array_equal(a.distribution, b.distribution)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"strata": ["a", "a", "b", "b", "b"]},
        {"groups": [1, 2, 2, 3, 4]},
        {"groups": [1, 2, 3, 3, 4], "strata": ["a", "a", "b", "b", "b"]},
    ],
)
def test_a_zero_weight_row_is_a_dropped_row(kw):
    # the zero-weight row (label 0, score 0.05) lies below every other score: it used to
    # index past the last threshold and crash with a bare ValueError
    y, s, w = np.array([1, 0, 1, 0, 0]), np.array([0.9, 0.6, 0.4, 0.1, 0.05]), np.array([1.0, 2.0, 1.0, 1.0, 0.0])
    keep = w > 0
    dropped = {k: np.asarray(v)[keep] for k, v in kw.items()}
    for method in ("percentile", "bca"):
        a = optimum_interval(y, s, SIMPLE, sample_weight=w, n_resamples=60, method=method, rng=5, **kw)
        b = optimum_interval(y[keep], s[keep], SIMPLE, sample_weight=w[keep], n_resamples=60, method=method, rng=5, **dropped)
        for name in ("ev_opt", "t_opt", "auc"):
            _same_bootstrap(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(a.band.grid, b.band.grid)
        np.testing.assert_array_equal(a.band.low, b.band.low)
        assert a.n_thresholds == b.n_thresholds == 4
        for fn in (
            lambda yy, ss, ww, **k: ev_interval(yy, ss, SIMPLE, threshold=0.5, sample_weight=ww, **k),
            lambda yy, ss, ww, **k: (
                compare_models(yy, ss, 1 - ss, SIMPLE, threshold_a=0.5, threshold_b=0.3, sample_weight=ww, **k).diff
            ),
        ):
            _same_bootstrap(
                fn(y, s, w, n_resamples=60, method=method, rng=5, **kw),
                fn(y[keep], s[keep], w[keep], n_resamples=60, method=method, rng=5, **dropped),
            )
    # the estimate is the weighted curve's: tp=10, fp=-2, fn=-10 over N=5 → max on (0.1, 0.4]
    vc = value_curve(y, s, SIMPLE, sample_weight=w)
    assert a.ev_opt.estimate == vc.ev_opt and a.t_opt.estimate == vc.t_opt == pytest.approx(0.25)


@pytest.mark.parametrize("kw", [{}, {"groups": [1, 1, 2, 3]}, {"strata": [1, 1, 2, 2]}])
def test_all_zero_weights_are_undefined_with_the_reason(kw):
    # as value_curve: no rows of positive weight is valid but undefined — NaN that says why
    y, s, w = [1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], [0, 0, 0, 0]
    o = optimum_interval(y, s, SIMPLE, sample_weight=w, n_resamples=20, rng=0, **kw)
    assert value_curve(y, s, SIMPLE, sample_weight=w).undefined["ev_opt"] == "no rows with positive weight"
    for r in (
        o.ev_opt,
        o.t_opt,
        o.auc,
        ev_interval(y, s, SIMPLE, threshold=0.5, sample_weight=w, n_resamples=20, **kw),
        compare_models(y, s, s, SIMPLE, threshold_a=0.5, threshold_b=0.3, sample_weight=w, n_resamples=20, **kw).diff,
    ):
        assert np.isnan(r.estimate) and np.isnan(r.low) and np.isnan(r.high)
        assert r.n_undefined == 20 and np.isnan(r.distribution).all()
        assert r.undefined["estimate"] == "no rows with positive weight (every sample_weight is 0)"
    assert o.n_thresholds == 0 and len(o.band.grid) == 0
    json.dumps(o.to_dict(), allow_nan=False)


def test_optimum_threshold_between_subnormal_scores_reproduces_ev_opt():
    # rows (0, 0.0) and (1, 5e-324) five times each; tp=10, fp=-2, fn=-10: EV 5 acting on the
    # positives only, (0, 5e-324] — whose midpoint rounds to 0, which acts on everyone (EV 4)
    y, s = np.array([0, 1] * 5), np.array([0.0, 5e-324] * 5)
    o = optimum_interval(y, s, SIMPLE, n_resamples=50, rng=0)
    vc = value_curve(y, s, SIMPLE)
    assert o.t_opt.estimate == vc.t_opt == 5e-324
    assert o.ev_opt.estimate == vc.ev_at(o.t_opt.estimate) == 5.0
    # every replicate's threshold earns that replicate's optimum on its own data
    assert set(o.t_opt.distribution[np.isfinite(o.t_opt.distribution)].tolist()) <= {5e-324, 0.0}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(binary_data(min_size=1, max_size=25, kind="extreme"), value_tables(prevalence=False))
def test_each_replicate_threshold_reproduces_its_optimum_property(data, kw):
    """Replicate by replicate (the cell counts rebuilt into rows), t_opt is that of
    value_curve on the resample, and acting at it (the band at t_opt, as optimum_interval
    reads the band) earns exactly the replicate's ev_opt."""
    from evalcore.bootstrap import _curve_stats

    y, s, w = data
    w = np.ones(len(y)) if w is None else w
    hypothesis.assume(w.sum() > 0)
    table = ValueTable(**kw)
    keep = w > 0
    scores = np.unique(s[keep])[::-1]
    rng = np.random.default_rng(0)
    for _ in range(5):
        idx = rng.choice(np.flatnonzero(keep), keep.sum())
        yy, ss, ww = y[idx], s[idx], w[idx]
        pos = np.array([ww[(ss == v) & (yy == 1)].sum() for v in scores])
        neg = np.array([ww[(ss == v) & (yy == 0)].sum() for v in scores])
        K = np.r_[pos, neg][None, :]
        got = _curve_stats(K, scores, table.vector(), None, np.array([0]))
        ref = value_curve(yy, ss, table, sample_weight=ww, score_kind="score")
        assert got["t_opt"][0] == ref.t_opt
        at_t = np.searchsorted(-scores, -got["t_opt"], side="right")  # the grid index optimum_interval uses
        assert _curve_stats(K, scores, table.vector(), None, at_t)["band"][0, 0] == got["ev_opt"][0]
        # the curve is priced by another formula here than in value_curve: equal up to rounding
        assert got["ev_opt"][0] == pytest.approx(ref.ev_opt, rel=1e-12, abs=1e-9 * max(1.0, *map(abs, table.vector())))


# --------------------------------------------------------------------------------------
# method "bayes": the Bayesian bootstrap with a Jeffreys prior on the outcome cells
# --------------------------------------------------------------------------------------


def _rows_of_cells(counts, keys_to_rows):
    """Rows (y, scores...) whose cells have exactly ``counts``: ``keys_to_rows[k]`` is one row of key k."""
    out = [np.repeat(np.asarray(keys_to_rows[k], float)[None, :], c, axis=0) for k, c in enumerate(counts) if c]
    return np.concatenate(out)


def dirichlet_moments(counts, values, prior=0.5):
    """Mean and SD of Σ values·p under p ~ Dirichlet(counts + prior): the closed form
    E = Σ v α / α0, Var = (Σ v² α / α0 − E²) / (α0 + 1)."""
    a = np.asarray(counts, float) + prior
    a0 = a.sum()
    mean = float(values @ a / a0)
    var = float((values**2 @ a / a0 - mean**2) / (a0 + 1))
    return mean, np.sqrt(var)


def test_bayes_ev_is_the_dirichlet_posterior_of_the_four_outcome_cells():
    # the SPEC §3.1 example: TP 8, FP 12, FN 2, TN 78 at threshold 0.5 (rows: y, score)
    rows = _rows_of_cells([8, 12, 2, 78], {0: (1, 0.9), 1: (0, 0.9), 2: (1, 0.1), 3: (0, 0.1)})
    y, s = rows[:, 0].astype(int), rows[:, 1]
    B = 20000
    r = ev_interval(y, s, SIMPLE, threshold=0.5, n_resamples=B, method="bayes", rng=3)
    v = SIMPLE.vector()
    assert r.estimate == pytest.approx((8 * 10 - 12 * 2 - 2 * 10) / 100)  # the data's EV, not the posterior mean
    mean, sd = dirichlet_moments([8, 12, 2, 78], v)  # α = (8.5, 12.5, 2.5, 78.5), α0 = 102
    d = r.distribution
    assert abs(d.mean() - mean) < 5 * sd / np.sqrt(B)
    assert np.std(d, ddof=1) == pytest.approx(sd, rel=5 / np.sqrt(2 * B))
    # the whole distribution: SciPy's Dirichlet sampler with the same α
    ref = stats.dirichlet([8.5, 12.5, 2.5, 78.5]).rvs(size=B, random_state=np.random.default_rng(4)) @ v
    assert stats.ks_2samp(d, ref).pvalue > 0.01
    assert (r.low, r.high) == pytest.approx((np.quantile(d, 0.025), np.quantile(d, 0.975)), rel=1e-12)
    assert r.method == "bayes" and not r.undefined


def test_bayes_gives_an_unseen_outcome_mass_the_percentile_bootstrap_cannot():
    # every row a true negative: the bootstrap can only redraw TN (a point interval); the
    # posterior keeps half a pseudo-row of TP, FP and FN, so the interval has width
    y, s = np.zeros(200, int), np.full(200, 0.1)
    pct = ev_interval(y, s, SIMPLE, threshold=0.5, n_resamples=500, rng=0)
    bay = ev_interval(y, s, SIMPLE, threshold=0.5, n_resamples=500, method="bayes", rng=0)
    assert pct.low == pct.high == 0.0
    assert bay.low < 0.0 < bay.high  # TP (+10) and FP/FN (−2, −10) each possible


def test_bayes_paired_difference_is_the_dirichlet_posterior_of_the_eight_cells():
    # cells (A act, B act, label): key = 4·(A does not act) + 2·(B does not act) + (negative)
    counts = [20, 5, 2, 9, 6, 4, 7, 147]
    rows = _rows_of_cells(
        counts,
        {k: (1 - k % 2, 0.9 if k // 4 == 0 else 0.1, 0.9 if (k // 2) % 2 == 0 else 0.1) for k in range(8)},
    )
    y, a, b = rows[:, 0].astype(int), rows[:, 1], rows[:, 2]
    B = 20000
    c = compare_models(y, a, b, SIMPLE, threshold_a=0.5, threshold_b=0.5, n_resamples=B, method="bayes", rng=5)
    v = SIMPLE.vector()
    keys = np.arange(8)
    pos = keys % 2 == 0

    def value(act):
        return np.where(act, np.where(pos, v[0], v[1]), np.where(pos, v[2], v[3]))

    d_val = value((keys // 2) % 2 == 0) - value(keys // 4 == 0)  # B's value minus A's, per cell
    mean, sd = dirichlet_moments(counts, d_val)
    d = c.diff.distribution
    assert abs(d.mean() - mean) < 5 * sd / np.sqrt(B)
    assert np.std(d, ddof=1) == pytest.approx(sd, rel=5 / np.sqrt(2 * B))
    assert c.p_b_better == pytest.approx(np.mean(d > 0))


def test_bayes_stratified_keeps_each_stratum_share():
    # two strata of 60 and 140 rows: each has its own Dirichlet(counts + 1/2 on all four cells),
    # weighted by its share of rows, so the posterior mean is 0.3·mean_1 + 0.7·mean_2
    cells = {0: (1, 0.9), 1: (0, 0.9), 2: (1, 0.1), 3: (0, 0.1)}
    c1, c2 = [10, 5, 0, 45], [3, 20, 7, 110]
    rows = np.r_[_rows_of_cells(c1, cells), _rows_of_cells(c2, cells)]
    strata = np.r_[np.zeros(60, int), np.ones(140, int)]
    B = 20000
    r = ev_interval(
        rows[:, 0].astype(int), rows[:, 1], SIMPLE, threshold=0.5, strata=strata, n_resamples=B, method="bayes", rng=6
    )
    v = SIMPLE.vector()
    (m1, s1), (m2, s2) = dirichlet_moments(c1, v), dirichlet_moments(c2, v)
    sd = np.hypot(0.3 * s1, 0.7 * s2)
    assert r.scheme == "stratified"
    assert abs(r.distribution.mean() - (0.3 * m1 + 0.7 * m2)) < 5 * sd / np.sqrt(B)
    assert np.std(r.distribution, ddof=1) == pytest.approx(sd, rel=5 / np.sqrt(2 * B))


def test_bayes_cluster_of_singletons_is_the_rows_scheme():
    # a group of one row: its pseudo-groups are one row each, as the rows scheme's pseudo-rows
    y, s = make_data(400, 0.1, seed=21)
    rows = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=3000, method="bayes", rng=1)
    single = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=3000, method="bayes", groups=np.arange(len(y)), rng=2)
    assert single.scheme == "cluster"
    assert_same_distribution(rows.distribution, single.distribution, tol_sd=(0.33, 0.16))


def test_bayes_optimum_draws_rubin_weights_without_pseudo_rows():
    # the re-optimising pass has a key per distinct score: no pseudo-rows, so EV at a fixed grid
    # threshold has posterior mean exactly the data's EV (Dirichlet(counts) has mean counts / n)
    y, s = make_data(300, 0.2, seed=22)
    B = 8000
    o = optimum_interval(y, s, TABLE, n_resamples=B, method="bayes", rng=7, band_grid=[0.3])
    band = o.band
    est = ev_by_sklearn(y, s, 0.3, TABLE)
    assert band.estimate[0] == pytest.approx(est)
    pct = optimum_interval(y, s, TABLE, n_resamples=B, rng=7, band_grid=[0.3])
    sd = (pct.band.high[0] - pct.band.low[0]) / (2 * 1.96)
    mid = (band.low[0] + band.high[0]) / 2
    assert abs(mid - est) < 0.1 * sd  # centred on the data (a pseudo-row per score would shift it)
    assert o.ev_opt.method == o.auc.method == "bayes"
    assert o.ev_opt.low <= o.ev_opt.high and np.isfinite(o.auc.low)


def test_bayes_same_seed_same_result_and_batch_invariance():
    y, s = make_data(500, 0.05, seed=23)
    r1 = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=300, method="bayes", rng=9)
    r2 = ev_interval(y, s, TABLE, threshold=0.3, n_resamples=300, method="bayes", rng=9)
    np.testing.assert_array_equal(r1.distribution, r2.distribution)
    o1 = optimum_interval(y, s, TABLE, n_resamples=120, method="bayes", rng=4, batch=7)
    o2 = optimum_interval(y, s, TABLE, n_resamples=120, method="bayes", rng=4, batch=120)
    np.testing.assert_array_equal(o1.ev_opt.distribution, o2.ev_opt.distribution)


def test_uniform_group_draws_are_m_integers_per_replicate_counted():
    """The cluster draw of a replicate is the count of each group among m uniform integers of
    the stratum's generator — one ``integers`` call per batch (the stream does not depend on how
    the counting is split), counted one replicate at a time; two strata of uneven sizes."""
    import dataclasses

    from evalcore.bootstrap import _design, _draw

    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(301), 2)
    design = _design(rng.integers(0, 4, len(groups)), 4, np.ones(len(groups)), None, groups)
    plain = dataclasses.replace(
        design,
        group_keys=np.zeros((301, 4)),
        p=np.full(301, 1 / 301),
        mult=np.ones(301, np.int64),
        strata=((0, 120, 120), (120, 301, 181)),
        collapsed=False,
    )
    got = _draw(plain, np.random.default_rng([7]).spawn(2), 9)
    ref = np.zeros((9, 301), np.int64)
    for (a, z, m), g in zip(plain.strata, np.random.default_rng([7]).spawn(2)):
        idx = g.integers(0, z - a, size=(9, m))
        for r in range(9):
            np.add.at(ref[r], a + idx[r], 1)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got[:, :120].sum(axis=1), 120)
    np.testing.assert_array_equal(got[:, 120:].sum(axis=1), 181)


def test_uniform_group_draws_refill_the_previous_batch_and_draw_the_same():
    """With many keys the cluster design stays sparse (groups drawn one by one): its counts are
    made as (units, b) float rows for the sparse product, and a batch refills the previous
    batch's buffers — the counts, the key totals and the memory are the same as without."""
    from evalcore.bootstrap import _design, _draw

    rng = np.random.default_rng(12)
    groups = rng.integers(0, 500, 4000)
    design = _design(rng.integers(0, 100, 4000), 100, np.ones(4000), None, groups)
    assert not design.collapsed and sparse.issparse(design.group_keys)
    gens = np.random.default_rng([3]).spawn(1)
    buffers = {}
    first = _draw(design, gens, 7, buffers)
    assert first.T.flags.c_contiguous  # the sparse product reads it without a copy
    first_copy = first.copy()
    second = _draw(design, gens, 7, buffers)
    assert np.shares_memory(second, first)
    again = np.random.default_rng([3]).spawn(1)
    np.testing.assert_array_equal(_draw(design, again, 7), first_copy)  # fresh buffers: the same draws
    np.testing.assert_array_equal(second, _draw(design, again, 7))  # the second batch of the stream
    # the counts are the uniform draws counted: bincount of the stream's integers, replicate by replicate
    u = design.n_units  # groups drawn as many as there are, each with probability 1/u
    assert design.strata == ((0, u, u),)
    ref = np.random.default_rng([3]).spawn(1)[0].integers(0, u, size=(7, u))
    want = np.stack([np.bincount(r, minlength=u) for r in ref]).astype(float)
    np.testing.assert_array_equal(first_copy, want)
    np.testing.assert_array_equal(second.sum(axis=1), u)  # u groups per replicate
    np.testing.assert_allclose(design.keys(second), second @ design.group_keys.toarray())
