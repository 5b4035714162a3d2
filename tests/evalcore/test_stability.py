"""evalcore.stability: summaries, sample size, the corrected paired test, repeated CV (SPEC §3.7)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from evalcore import InputError, ValueTable
from evalcore.stability import (
    STD_LIMIT,
    compare_cv,
    diagnostics,
    fold_profile,
    intervals_overlap,
    paired_test,
    prepare_training,
    repeated_cv,
    sample_size_plan,
    summarize,
)

# SPEC §3.7 worked example: 50 accuracies from 5 folds × 10 repeats of a credit model
SPEC_SCORES = [
    float(x)
    for x in """
0.721 0.723 0.725 0.726 0.728 0.729 0.730 0.731 0.732 0.733 0.734 0.735 0.735 0.736 0.737 0.737
0.738 0.739 0.740 0.741 0.742 0.742 0.743 0.744 0.744 0.745 0.745 0.746 0.747 0.747 0.748 0.749
0.749 0.750 0.751 0.752 0.752 0.753 0.754 0.755 0.756 0.757 0.758 0.759 0.760 0.761 0.762 0.763
0.764 0.768""".split()
]


@pytest.fixture(scope="module")
def cancer():
    frame = load_breast_cancer(as_frame=True).frame
    return frame, prepare_training(frame, "target")


@pytest.fixture(scope="module")
def wine():
    return prepare_training(load_wine(as_frame=True).frame, "target")


# --------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------


def test_summary_of_the_spec_worked_example():
    x = np.array(SPEC_SCORES)
    assert x.size == 50
    s = summarize(x)
    # independent: numpy directly
    mean, std = x.mean(), x.std(ddof=1)
    sem = std / math.sqrt(50)
    assert s.n == 50
    assert s.mean == pytest.approx(mean, abs=1e-12)
    assert s.std == pytest.approx(std, abs=1e-12)
    assert s.sem == pytest.approx(sem, abs=1e-12)
    assert (s.ci_low, s.ci_high) == pytest.approx((mean - 1.96 * sem, mean + 1.96 * sem), abs=1e-12)
    assert (s.q1, s.median, s.q3) == pytest.approx(tuple(np.percentile(x, [25, 50, 75])), abs=1e-12)
    assert (s.min, s.max) == (0.721, 0.768)
    assert s.alert_line == pytest.approx(mean - 2 * std, abs=1e-12)
    # and the numbers the SPEC prints: sum = 37.216 -> mean 0.74432; std ≈ 0.01180
    assert s.mean == pytest.approx(37.216 / 50, abs=1e-12)
    assert round(s.std, 4) == 0.0118
    assert not s.needs_diagnostics  # 0.0118 <= 0.015


def test_summary_of_a_toy_list_by_hand():
    s = summarize([0.70, 0.72, 0.74, 0.76])
    # deviations ±0.01, ±0.03: Σd² = 2·1e-4 + 2·9e-4 = 0.002; /3 -> var; std = sqrt(0.002/3)
    std = math.sqrt(0.002 / 3)
    assert s.mean == pytest.approx(0.73)
    assert s.std == pytest.approx(std)
    assert s.sem == pytest.approx(std / 2)
    # linear quartiles: positions 0.75, 1.5, 2.25 of the sorted list
    assert (s.q1, s.median, s.q3) == pytest.approx((0.715, 0.73, 0.745))
    assert s.alert_line == pytest.approx(0.73 - 2 * std)
    assert s.needs_diagnostics  # 0.0258 > 0.015
    assert s.to_dict()["needs_diagnostics"] is True


def test_one_score_has_undefined_spread_not_zero():
    s = summarize([0.8])
    assert math.isnan(s.std) and math.isnan(s.sem) and math.isnan(s.alert_line)
    assert "at least two" in s.undefined["std"]
    assert s.to_dict()["std"] is None
    assert not s.needs_diagnostics


@pytest.mark.parametrize(
    "bad, match", [([], "empty"), ([0.7, float("nan"), float("inf")], "2 missing or infinite"), (["a", "b"], "must be numbers")]
)
def test_summary_rejects_bad_scores(bad, match):
    with pytest.raises(InputError, match=match):
        summarize(bad)


def test_sample_size_plan():
    p = sample_size_plan(0.01, 0.005, n_eval=1000)  # (0.01/0.005)² = 4
    assert p.factor == pytest.approx(4.0) and p.n_needed == 4000
    assert sample_size_plan(0.002, 0.004).factor == pytest.approx(0.25)  # already enough data
    # detecting δ, 80% power, 5% two-sided: n = (z_.975 + z_.8)² σ²/δ² (one sample), twice that
    # for two independent samples; (1.959964 + 0.841621)² = 7.8489 by hand
    assert p.factor_detect_one == pytest.approx(4.0 * 7.8489, rel=1e-4)
    assert p.factor_detect_two == pytest.approx(2 * 4.0 * 7.8489, rel=1e-4)
    assert p.n_detect_one == 31396 and p.n_detect_two == 62792  # ceil(31395.6), ceil(62791.2)
    with pytest.raises(InputError) as e:
        sample_size_plan(-1, 0)
    assert {p.code for p in e.value.problems} == {"sigma_invalid", "delta_invalid"}


def test_intervals_overlap():
    a, b = summarize([0.70, 0.71, 0.72]), summarize([0.715, 0.725, 0.735])
    assert intervals_overlap(a, b) and intervals_overlap(b, a)
    c = summarize([0.80, 0.81, 0.82])
    assert not intervals_overlap(a, c)


# --------------------------------------------------------------------------------------
# the corrected paired test
# --------------------------------------------------------------------------------------


def test_paired_test_against_hand_computation():
    rng = np.random.default_rng(3)
    a = 0.80 + 0.01 * rng.standard_normal(50)
    b = a - 0.004 + 0.006 * rng.standard_normal(50)
    r = paired_test(a, b, test_train_ratio=0.25)
    d = a - b
    J, mean, s2 = 50, d.mean(), d.var(ddof=1)
    se = math.sqrt((1 / J + 0.25) * s2)  # Nadeau–Bengio: (1/J + n_test/n_train)·S²
    t = mean / se
    assert r.mean_diff == pytest.approx(mean) and r.corrected_se == pytest.approx(se)
    assert r.t == pytest.approx(t)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), J - 1))
    q = stats.t.ppf(0.975, J - 1)
    assert (r.ci_low, r.ci_high) == pytest.approx((mean - q * se, mean + q * se))
    assert r.t_quantile == pytest.approx(q)  # the chart's half-widths: q·naive_se and q·corrected_se
    # the uncorrected test is scipy's paired t-test
    ref = stats.ttest_rel(a, b)
    assert r.naive_t == pytest.approx(ref.statistic) and r.naive_p == pytest.approx(ref.pvalue)
    assert r.corrected_se > r.naive_se  # the correction widens


def test_paired_test_zero_variance_and_errors():
    r = paired_test([0.8, 0.8], [0.8, 0.8], test_train_ratio=0.25)
    assert math.isnan(r.t) and "same score" in r.undefined["t"]
    r = paired_test([0.9, 0.9], [0.8, 0.8], test_train_ratio=0.25)
    assert r.t == math.inf and r.p_value == 0.0
    with pytest.raises(InputError) as e:
        paired_test([0.8, 0.9, 0.7], [0.8], test_train_ratio=0)
    assert {p.code for p in e.value.problems} == {"length_mismatch", "ratio_invalid"}
    for bad in (1.0, "0.95", True):  # a string used to raise TypeError from the comparison
        with pytest.raises(InputError, match="level must be a confidence level strictly between 0 and 1; got ") as e:
            paired_test([0.8, 0.9], [0.7, 0.8], test_train_ratio=0.25, level=bad)
        assert [p.code for p in e.value.problems] == ["level_invalid"]


# --------------------------------------------------------------------------------------
# repeated cross-validation
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_repeated_cv_50_scores_reproducible_with_free_model_randomness(wine):
    calls = []
    r1 = repeated_cv(wine, model="random_forest", seed=7, progress=lambda d, t, _: calls.append((d, t)))
    # same seed, same numbers: a second run's fits are the first run's, fit for fit (its first two
    # repeats checked: the fits of a repeat do not depend on how many repeats follow, so running
    # all 50 forests again would test nothing more and cost 20 s)
    r2 = repeated_cv(wine, model="random_forest", seed=7, n_repeats=2)
    assert r1.n_done == 50 and r1.complete and r1.n_planned == 50
    assert r2.n_done == 10 and np.array_equal(r1.scores[:10], r2.scores)
    assert np.array_equal(r1.model_seed[:10], r2.model_seed)
    assert all(np.array_equal(x, y) for x, y in zip(r1.test_idx, r2.test_idx))
    assert r1.summary().std > 0
    assert np.unique(r1.model_seed).size == 50  # a new random_state per fit
    assert calls == [(i, 50) for i in range(1, 51)]
    # every repeat is a partition of the rows into 5 stratified folds
    for rep in range(10):
        idx = np.concatenate([r1.test_idx[i] for i in range(50) if r1.repeat[i] == rep])
        assert np.array_equal(np.sort(idx), np.arange(wine.n))
    # with the model seed fixed, the folds are the same but the forests are not: the scores change
    fixed = repeated_cv(wine, model="random_forest", seed=7, model_randomness="fixed", n_repeats=2)
    assert np.unique(fixed.model_seed).size == 1
    assert all(np.array_equal(x, y) for x, y in zip(fixed.test_idx, r1.test_idx[:10]))
    other = repeated_cv(wine, model="random_forest", seed=8, n_repeats=2)
    assert not np.array_equal(other.scores, r1.scores[:10])


def test_repeated_cv_cancels_between_fits(wine):
    calls = []

    def stop():
        return len(calls) >= 3

    r = repeated_cv(wine, model="logistic_regression", progress=lambda d, t, _: calls.append(d), should_stop=stop)
    assert r.status == "cancelled" and r.n_done == 3 and r.n_planned == 50 and not r.complete
    assert r.to_dict()["status"] == "cancelled"


def test_expected_value_metric_by_hand(cancer):
    frame, data = cancer
    table = ValueTable(tp=100, fp=-20, fn=-150, tn=5)
    r = repeated_cv(data, metric="expected_value", table=table, threshold=0.3, n_repeats=1, seed=1)
    # fold 0 again, fitted independently: scaled logistic regression (no randomness in lbfgs)
    tr = np.setdiff1d(np.arange(data.n), r.test_idx[0])
    te = r.test_idx[0]
    X = frame.drop(columns="target").to_numpy()
    y = frame["target"].to_numpy()
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[tr], y[tr])
    act = est.predict_proba(X[te])[:, 1] >= 0.3
    pos = y[te] == 1
    tp, fp = np.sum(act & pos), np.sum(act & ~pos)
    fn, tn = np.sum(~act & pos), np.sum(~act & ~pos)
    ev = (100 * tp - 20 * fp - 150 * fn + 5 * tn) / te.size
    assert r.scores[0] == pytest.approx(ev, abs=1e-9)


@pytest.mark.slow
def test_compare_cv_pairs_matched_folds(wine):
    a = repeated_cv(wine, model="logistic_regression", n_repeats=2, seed=3)
    b = repeated_cv(wine, model="random_forest", n_repeats=2, seed=3)
    c = compare_cv(a, b)
    ratio = np.mean(a.n_test / a.n_train)  # about 1/4 for 5 folds
    assert ratio == pytest.approx(0.25, abs=0.02)
    d = a.scores - b.scores
    se = math.sqrt((1 / 10 + ratio) * d.var(ddof=1))
    assert c.paired.corrected_se == pytest.approx(se)
    assert c.overlap == (a.summary().ci_low <= b.summary().ci_high and b.summary().ci_low <= a.summary().ci_high)
    assert c.to_dict()["verdict"] == c.verdict
    with pytest.raises(InputError, match="do not share their folds"):
        compare_cv(a, repeated_cv(wine, model="random_forest", n_repeats=2, seed=4))


def test_repeated_cv_validates_options(wine):
    with pytest.raises(InputError) as e:
        repeated_cv(wine, model="svm", metric="expected_value", n_splits=1, threshold=2)
    codes = {p.code for p in e.value.problems}
    assert {"model_invalid", "metric_invalid", "n_splits_invalid"} <= codes  # EV is binary-only


# --------------------------------------------------------------------------------------
# training data, the worst fold, diagnostics
# --------------------------------------------------------------------------------------


def test_prepare_training_lists_every_problem():
    frame = pd.DataFrame(
        {"y": [1, None, 1, 1], "a": [1.0, 2.0, 3.0, 4.0], "b": [None] * 4}, index=pd.Index([2, 3, 4, 5], name="row")
    )
    with pytest.raises(InputError) as e:
        prepare_training(frame, "y")
    codes = {p.code for p in e.value.problems}
    assert codes == {"target_missing", "feature_all_missing", "target_one_class"}
    missing = next(p for p in e.value.problems if p.code == "target_missing")
    assert missing.rows == (3,)
    d = prepare_training(frame.assign(y=["x", None, "y", "y"]), "y", features=["a"], drop_missing_target=True, min_per_class=1)
    assert d.n == 3 and d.n_dropped == 1 and d.task == "binary" and d.positive == "y"


def test_fold_profile_and_diagnostics(cancer):
    frame, data = cancer
    r = repeated_cv(data, n_repeats=1, seed=0)
    p = fold_profile(data, r.test_idx[r.worst])
    assert p.n == r.n_test[r.worst] == sum(p.class_counts.values())
    assert np.array_equal(p.row_ids, frame.index[r.test_idx[r.worst]])
    assert p.missing_rate == 0.0
    checks = {c.name: c for c in diagnostics(data, r)}
    assert checks["Small data"].status == "flag"  # 569 < 20·30
    assert checks["Missing values"].status == "ok" and checks["Leakage"].status == "ok"
    # a leaked copy of the target and holes in a feature are found
    leaky = frame.assign(leak=frame["target"] + 0.01 * np.arange(len(frame)) / len(frame))
    leaky.loc[leaky.index[:100], "mean radius"] = np.nan
    d2 = prepare_training(leaky, "target")
    checks = {c.name: c for c in diagnostics(d2, None)}
    assert checks["Leakage"].status == "flag" and "'leak'" in checks["Leakage"].detail
    assert checks["Missing values"].status == "ok" or "mean radius" in checks["Missing values"].detail
    assert checks["Model complexity"].status == "not computed"
    assert all(c.status == "not computed" for c in diagnostics(None))


def test_std_limit_is_the_spec_number():
    assert STD_LIMIT == 0.015
