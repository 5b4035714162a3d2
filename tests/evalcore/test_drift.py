"""Tests of evalcore.drift: KS/PSI/chi-square primitives, windows, the consecutive rule, lights."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris

from evalcore import InputError
from evalcore.drift import (
    DriftConfig,
    calibration_drift,
    chi_square,
    consecutive_rule,
    drift_lights,
    feature_drift,
    fit_reference,
    ks_statistic,
    label_drift,
    noise_floor,
    psi,
    psi_noise_floor,
    two_proportion_test,
    windows,
)

START = pd.Timestamp("2026-10-05")


def _times(rows_per_day: int, n_days: int) -> pd.DatetimeIndex:
    """rows_per_day timestamps inside each of n_days days, day after day."""
    minutes = (np.arange(rows_per_day) * (1440 // max(rows_per_day, 1))) % 1440
    return pd.DatetimeIndex([START + pd.Timedelta(days=d, minutes=int(m)) for d in range(n_days) for m in minutes])


# --------------------------------------------------------------------------- KS


def _split_cases():
    bc = load_breast_cancer(as_frame=True).frame
    db = load_diabetes(as_frame=True, scaled=False).frame
    ir = load_iris(as_frame=True).frame
    return [
        # continuous features split by the label
        (bc.loc[bc.target == 0, "mean radius"], bc.loc[bc.target == 1, "mean radius"]),
        (bc.loc[bc.target == 0, "worst texture"], bc.loc[bc.target == 1, "worst texture"]),
        # split by another feature (sex): bmi and s5; age has many ties
        (db.loc[db.sex == 1, "bmi"], db.loc[db.sex == 2, "bmi"]),
        (db.loc[db.sex == 1, "age"], db.loc[db.sex == 2, "age"]),
        # iris: one-decimal measurements, heavy ties
        (ir.loc[ir.target == 1, "sepal width (cm)"], ir.loc[ir.target == 2, "sepal width (cm)"]),
        (ir.loc[ir.target == 0, "petal width (cm)"], ir.loc[ir.target != 0, "petal width (cm)"]),
    ]


@pytest.mark.parametrize("a, b", _split_cases())
def test_ks_equals_scipy_on_real_data(a, b):
    assert ks_statistic(a.to_numpy(), b.to_numpy()) == pytest.approx(stats.ks_2samp(a, b).statistic, abs=1e-12)


def test_ks_toy_by_hand():
    # F_ref - F_cur at x=2: 2/4 - 0 = 0.5, the largest gap
    assert ks_statistic([1, 2, 3, 4], [3, 4, 5, 6]) == 0.5
    # ties across samples: at x=1: 2/3 vs 1/3 -> 1/3; at x=2: 1 vs 2/3 -> 1/3
    assert ks_statistic([1, 1, 2], [1, 2, 2]) == pytest.approx(1 / 3)
    assert ks_statistic([5, 5, 5], [5, 5]) == 0.0
    assert math.isnan(ks_statistic([], [1.0]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=40), st.lists(st.integers(0, 6), min_size=1, max_size=40))
def test_ks_equals_scipy_with_ties(a, b):
    # method="asymp" only changes the p-value (the exact one warns on degenerate ties); the statistic is the same
    with np.errstate(all="ignore"):  # SciPy's p-value divides by zero when D = 0; the statistic is unaffected
        expected = stats.ks_2samp(a, b, method="asymp").statistic
    assert ks_statistic(a, b) == pytest.approx(expected, abs=1e-12)


def test_ks_rejects_bad_input():
    with pytest.raises(InputError, match="ref holds 1 NaN") as err:
        ks_statistic([1.0, np.nan], [[1.0]])
    assert "cur must be a one-dimensional numeric array" in str(err.value)


def test_noise_floor_formula():
    # 1.36 * sqrt((100 + 400) / (100 * 400)) = 1.36 * sqrt(0.0125) = 0.152053...
    assert noise_floor(100, 400) == pytest.approx(1.36 * math.sqrt(0.0125))
    # SPEC: about 0.15 at ~80 rows a day... for a single day against a day: 1.36*sqrt(2/80) = 0.215;
    # it is 0.15 at n = m = 2 * (1.36 / 0.15)^2 = 164.4
    assert noise_floor(164, 164) == pytest.approx(0.1502, abs=1e-4)
    assert math.isnan(noise_floor(0, 10))
    assert noise_floor(np.array([100, 0]), 400).shape == (2,)


# --------------------------------------------------------------------------- binned KS


@pytest.mark.parametrize("kind", ["continuous", "ties", "shifted", "atoms"])
def test_binned_ks_within_bound_of_exact(kind):
    rng = np.random.default_rng(7)
    n_days, per_day = 21, 3000
    t = _times(per_day, n_days)
    day = np.repeat(np.arange(n_days), per_day)
    if kind == "continuous":
        x = rng.normal(size=t.size)
    elif kind == "ties":
        x = rng.poisson(3.0, size=t.size).astype(float)
    elif kind == "shifted":
        x = rng.lognormal(size=t.size) * np.where(day >= 14, 1.3, 1.0)
    else:  # a big atom at 0 in the reference that the late days lose
        x = np.where((rng.random(t.size) < 0.3) & (day < 14), 0.0, rng.exponential(size=t.size))
    frame = pd.DataFrame({"x": x})
    exact = feature_drift(frame, t, DriftConfig())
    binned = feature_drift(frame, t, DriftConfig(exact_limit=1000))
    assert exact.ks_method == "exact" and exact.n_bins is None
    assert binned.ks_method == "binned" and binned.n_bins == 1000
    # the binned grid only evaluates a subset of points: never above exact, at most bin_error below
    diff = exact.statistic - binned.statistic
    assert (diff >= -1e-12).all()
    assert (diff <= binned.bin_error[0] + 1e-12).all()
    assert binned.bin_error[0] <= 0.002
    assert np.abs(diff).max() <= 0.005
    # and the exact cells are scipy's statistic
    ref = x[day < 7]
    cur = x[day >= n_days - 7]
    assert exact.statistic[0, -1] == pytest.approx(stats.ks_2samp(ref, cur).statistic, abs=1e-12)


def test_fit_reference_codes_and_bound():
    ref = fit_reference(np.array([1.0, 2.0, 2.0, 3.0, np.nan]), kind="ks", n_bins=2)
    # n_bins=2 on 4 values: order statistics 0, 1.5->2, 3 -> values 1, 2, 3 (all distinct values)
    assert ref.edges.tolist() == [1.0, 2.0, 3.0]
    assert ref.n == 4
    # codes: below 1 -> 0, ==1 -> 1, (1,2) -> 2, ==2 -> 3, (2,3) -> 4, ==3 -> 5, >3 -> 6, NaN -> 7
    assert ref.codes(np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 9.0, np.nan])).tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert ref.counts.tolist() == [0, 1, 0, 2, 0, 1, 0]
    coarse = fit_reference(np.arange(100.0), kind="ks", n_bins=4)
    # edges at 0, 25 (24.75 rounds to 25), 50 (49.5 -> 50, banker's rounding), 74, 99; largest open gap 26..49 = 24 values
    assert coarse.edges.tolist() == [0.0, 25.0, 50.0, 74.0, 99.0]
    assert coarse.bin_error == pytest.approx(24 / 100)


# --------------------------------------------------------------------------- PSI, chi-square, proportions


def test_psi_by_hand():
    # (0.4-0.5)*ln(0.4/0.5) + (0.6-0.5)*ln(0.6/0.5) = 0.0223144 + 0.0182322
    assert psi([50, 50], [40, 60]) == pytest.approx(0.0405465, abs=1e-7)
    # empty bucket raised to the floor 1e-4: r = (1, 1e-4), c = (0.5, 0.5)
    # (0.5-1)*ln(0.5) + (0.5-1e-4)*ln(0.5/1e-4) = 0.3465736 + 0.4999*8.5171932
    assert psi([10, 0], [5, 5], floor=1e-4) == pytest.approx(0.3465736 + 0.4999 * 8.5171932, abs=1e-6)
    assert psi([3, 7], [30, 70]) == 0.0
    assert math.isnan(psi([0, 0], [1, 1]))


def test_psi_rejects_bad_input():
    with pytest.raises(InputError, match="equal length"):
        psi([1, 2], [1, 2, 3])
    with pytest.raises(InputError, match="finite and >= 0"):
        psi([1, -2], [1, 2])


def test_psi_noise_floor_by_hand():
    # (1/1000 + 1/4000) * chi2.ppf(0.95, 3) = 0.00125 * 7.814728
    assert psi_noise_floor(1000, 4000, 4) == pytest.approx(0.00125 * 7.814728, rel=1e-6)
    assert psi_noise_floor(10, 10, 1) == 0.0
    assert math.isnan(psi_noise_floor(0, 10, 3))


def test_chi_square_equals_scipy():
    r, c = [120, 30, 0, 50], [100, 60, 0, 40]
    stat, p = chi_square(r, c)
    ref = stats.chi2_contingency(np.array([[120, 30, 50], [100, 60, 40]]), correction=False)
    assert stat == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    assert all(math.isnan(v) for v in chi_square([5, 0], [3, 0]))


def test_two_proportion_and_wilson_equal_statsmodels():
    from statsmodels.stats.proportion import proportion_confint, proportions_ztest

    z, p = two_proportion_test(45, 1000, 20, 900)
    zs, ps = proportions_ztest([45, 20], [1000, 900])
    assert z == pytest.approx(zs) and p == pytest.approx(ps)
    t = _times(100, 14)
    y = np.zeros(t.size, int)
    y[:7] = 1  # 7 positives in the reference
    y[700:723] = 1  # 23 in the current window
    ld = label_drift(y, t)
    lo, hi = proportion_confint(23, 700, method="wilson")
    assert ld.low[0] == pytest.approx(lo) and ld.high[0] == pytest.approx(hi)
    assert ld.ref_interval == pytest.approx(proportion_confint(7, 700, method="wilson"))
    assert ld.p_value[0] == pytest.approx(proportions_ztest([23, 7], [700, 700])[1])
    assert math.isnan(two_proportion_test(0, 10, 0, 10)[0])


# --------------------------------------------------------------------------- windows


def test_windows_layout():
    t = _times(10, 28)
    ws = windows(t)
    ref, cur = ws[0], ws[1:]
    assert ref.kind == "reference" and ref.label == "2026-10-05 – 2026-10-11" and ref.n == 70
    # current windows: 7 days, after the reference, sliding daily, the last ending with the data
    assert len(cur) == 28 - 7 - 7 + 1
    assert cur[0].label == "2026-10-12 – 2026-10-18" and cur[-1].label == "2026-10-26 – 2026-11-01"
    assert all(w.n == 70 for w in cur)
    weekly = windows(t, DriftConfig(step_days=7))
    assert [w.label for w in weekly[1:]] == ["2026-10-12 – 2026-10-18", "2026-10-19 – 2026-10-25", "2026-10-26 – 2026-11-01"]
    moved = windows(t, DriftConfig(reference_start="2026-10-12", reference_days=3, window_days=1, step_days=1))
    assert moved[0].label == "2026-10-12 – 2026-10-14" and moved[1].label == "2026-10-15" and len(moved) == 1 + 18


def test_windows_tz_aware_and_errors():
    t = pd.date_range("2026-10-05", periods=28, freq="D", tz="Europe/Berlin")
    # midnight Berlin = 22:00/23:00 UTC the day before: day 0 is 2026-10-04 in UTC
    assert windows(t)[0].label == "2026-10-04 – 2026-10-10"
    with pytest.raises(InputError, match="time has 1 missing or unparseable") as err:
        windows(["2026-10-05", "not a date", "2026-10-07"])
    assert err.value.problems[0].rows == (3,)


# --------------------------------------------------------------------------- the consecutive rule


@pytest.mark.parametrize(
    "levels, color",
    [
        ([], "grey"),
        ([0], "green"),
        ([2], "yellow"),
        ([2, 2], "yellow"),
        ([2, 2, 2], "red"),
        ([0, 2, 2, 2], "red"),
        ([2, 2, 2, 0], "green"),
        ([2, -1, 2, 2], "yellow"),
        ([2, 2, 2, -1], "grey"),
        ([1, 1, 1], "yellow"),
        ([2, 2, 1], "yellow"),
    ],
)
def test_consecutive_rule_table(levels, color):
    assert consecutive_rule(levels, 3) == color


def _shift_series(shifts, per_day=200):
    """7 reference days of integers 0..99, then one day per shift with the values + shift.

    KS of a day shifted by s (in 1/100 units) against the reference is exactly s/100.
    """
    base = np.tile(np.arange(100), per_day // 100)
    vals = [base] * 7 + [base + s for s in shifts]
    t = _times(per_day, len(vals))
    return t, pd.DataFrame({"x": np.concatenate(vals).astype(float)})


def test_consecutive_rule_on_constructed_series():
    # daily windows (window_days=1): KS per day is shift/100 exactly
    shifts = [0, 20, 0, 20, 20, 10, 20, 20, 20, 16]
    expected = ["green", "yellow", "green", "yellow", "yellow", "green", "yellow", "yellow", "red", "red"]
    t, x = _shift_series(shifts)
    cfg = DriftConfig(window_days=1)
    got = []
    for k in range(1, len(shifts) + 1):
        keep = t < START + pd.Timedelta(days=7 + k)
        fd = feature_drift(x[keep], t[keep], cfg)
        assert fd.statistic[0, -1] == pytest.approx(shifts[k - 1] / 100)
        got.append(fd.color)
    assert got == expected
    # noise floor: 1.36*sqrt((1400+200)/(1400*200)) = 0.1028 < 0.15 -> every window is judged
    assert fd.noise_floor[0, -1] == pytest.approx(1.36 * math.sqrt(1600 / 280000))
    assert fd.reason == "x: KS 0.20, 0.20, 0.16 in the last 3 daily windows, threshold 0.15"
    assert fd.status[0, -3:].tolist() == ["high", "high", "high"]


def test_small_windows_say_too_few_rows_not_red():
    rng = np.random.default_rng(3)
    t = _times(10, 28)  # 70 rows per 7-day window: noise floor 1.36*sqrt(2/70) = 0.2299 > 0.15
    x = pd.DataFrame({"x": rng.normal(size=t.size)})  # no drift at all
    fd = feature_drift(x, t)
    assert (fd.statistic[0] > 0.15).sum() >= 3  # noise alone crosses the threshold...
    assert fd.noise_floor[0, -1] == pytest.approx(1.36 * math.sqrt(2 / 70))
    assert (fd.level == -1).all()  # ...but no window can light
    assert fd.color == "grey" and "too few rows" in fd.reason
    assert set(fd.status.ravel()) == {"too few rows"}


def test_drift_above_its_noise_floor_is_judged_even_on_few_rows():
    # issue 19 item 4: 140 rows per 7-day window (floor 1.36*sqrt(2/140) = 0.1626 > 0.15), the
    # current windows shifted by 1.5 sd: KS far above the floor is a real drift, not "too few rows"
    rng = np.random.default_rng(5)
    t = _times(20, 21)
    shift = np.where(np.asarray(t) >= np.datetime64(START + pd.Timedelta(days=7)), 1.5, 0.0)
    x = pd.DataFrame({"x": rng.normal(size=t.size) + shift})
    fd = feature_drift(x, t)
    assert fd.noise_floor[0, -1] == pytest.approx(1.36 * math.sqrt(2 / 140))
    ref, cur = x["x"].to_numpy()[:140], x["x"].to_numpy()[-140:]
    res = stats.ks_2samp(ref, cur)  # SciPy: the same statistic, and its p-value
    assert fd.statistic[0, -1] == pytest.approx(res.statistic)
    assert fd.statistic[0, -1] > 0.4 and res.pvalue < 1e-10
    assert fd.level[0, -3:].tolist() == [2, 2, 2]
    assert fd.color == "red"
    # the same windows without the shift stay "too few rows" wherever KS is below its floor
    quiet = feature_drift(pd.DataFrame({"x": rng.normal(size=t.size)}), t)
    below = quiet.statistic[0] < quiet.noise_floor[0]
    assert below.any() and (quiet.level[0][below] == -1).all()


def test_identical_windows_give_zero_and_green():
    rng = np.random.default_rng(0)
    day_x = rng.normal(size=300)
    day_c = rng.choice(["a", "b", "c"], size=300)
    t = _times(300, 21)
    frame = pd.DataFrame({"x": np.tile(day_x, 21), "c": np.tile(day_c, 21)})
    y = np.tile((np.arange(300) % 10 == 0).astype(int), 21)
    p = np.tile(np.full(300, 0.1), 21)
    rep = drift_lights(y, p, t, frame)
    assert (rep.feature.statistic == 0).all()
    assert [l.color for l in rep.lights.values()] == ["green", "green", "green"]
    assert (rep.label.p_value == 1).all() and (rep.calibration.ratio == pytest.approx(1.0))


# --------------------------------------------------------------------------- categorical


def test_categorical_psi_unseen_bucket_and_rule():
    t = _times(200, 10)
    ref_day = np.array(["a"] * 100 + ["b"] * 100, dtype=object)
    mild = np.array(["a"] * 135 + ["b"] * 65, dtype=object)  # PSI 0.1226 -> moderate
    new_level = np.array(["a"] * 100 + ["z"] * 100, dtype=object)  # "z" unseen -> own bucket
    days = [ref_day] * 7 + [mild, new_level, new_level]
    frame = pd.DataFrame({"c": np.concatenate(days)})
    fd = feature_drift(frame, t, DriftConfig(window_days=1))
    assert fd.kinds == ("psi",)
    assert fd.references[0].levels == ("a", "b", "(missing)", "(unseen)")
    # mild: (0.675-0.5)ln(1.35) + (0.325-0.5)ln(0.65) = 0.0525191 + 0.0753865
    assert fd.statistic[0, 0] == pytest.approx(0.0525191 + 0.0753865, abs=1e-6)
    # new level: b 0.5 -> 1e-4 floor, unseen 1e-4 -> 0.5: 2 * (0.5-1e-4) * ln(0.5/1e-4)
    assert fd.statistic[0, 1] == pytest.approx(2 * 0.4999 * math.log(5000), abs=1e-6)
    assert fd.window_counts[0][1].tolist() == [100, 0, 0, 100]
    assert fd.level[0].tolist() == [1, 2, 2]
    assert fd.color == "yellow"  # only 2 consecutive above psi_red
    assert fd.chi2_pvalue[0, 1] < 1e-10
    assert consecutive_rule(fd.level[0], 2) == "red"


def test_numeric_missing_excluded_and_counted():
    t = _times(100, 14)
    x = np.tile(np.arange(100.0), 14)
    x[-10:] = np.nan
    fd = feature_drift(pd.DataFrame({"x": x}), t)
    assert fd.n_missing[0, -1] == 10 and fd.n_cur[0, -1] == 690
    assert fd.n_ref[0] == 700


# --------------------------------------------------------------------------- label and calibration


def _label_step_data(step_day=17, n_days=28, per_day=1000, seed=1, feature_shift=0.0):
    rng = np.random.default_rng(seed)
    t = _times(per_day, n_days)
    day = np.repeat(np.arange(n_days), per_day)
    rate = np.where(day >= step_day, 0.05, 0.02)
    y = (rng.random(t.size) < rate).astype(int)
    x = rng.normal(size=t.size) + np.where(day >= 21, feature_shift, 0.0)
    return t, y, pd.DataFrame({"x": x})


def test_label_step_without_feature_drift_flags_label_definition():
    t, y, x = _label_step_data()
    rep = drift_lights(y, None, t, x)
    assert rep.lights["feature"].color == "green"
    assert rep.lights["label"].color == "red"
    assert rep.label.label_definition_change
    assert "possible label-definition change" in rep.lights["label"].reason
    assert rep.label.step_date == START + pd.Timedelta(days=17)
    assert rep.lights["calibration"].color == "grey"  # no probabilities
    # with feature drift too, it is plain label drift
    t, y, x = _label_step_data(feature_shift=1.0)
    rep = drift_lights(y, None, t, x)
    assert rep.lights["feature"].color == "red" and rep.lights["label"].color == "red"
    assert not rep.label.label_definition_change


def test_label_small_windows_too_few_rows():
    t = _times(5, 21)
    y = np.zeros(t.size, int)
    y[::50] = 1
    ld = label_drift(y, t)
    assert ld.color == "grey" and (ld.level == -1).all() and "Too few rows" in ld.reason


def test_calibration_drift_ratio_and_interval():
    t = _times(1000, 14)
    day = np.repeat(np.arange(14), 1000)
    # 10% positives, predicted 0.1, then 20% positives in the one current window (days 7-13)
    y = ((np.arange(t.size) % 10 == 0) | ((day >= 7) & (np.arange(t.size) % 10 == 1))).astype(int)
    p = np.full(t.size, 0.1)
    cd = calibration_drift(y, p, t)
    assert cd.ref_oe == pytest.approx(1.0) and cd.oe[-1] == pytest.approx(2.0) and cd.ratio[-1] == pytest.approx(2.0)
    # O_cur=1400, O_ref=700, E_cur=E_ref=700: pi = 1400/2100 with a Clopper-Pearson interval (SciPy)
    ci = stats.binomtest(1400, 2100).proportion_ci(0.95, method="exact")
    assert cd.ratio_low[-1] == pytest.approx(ci.low / (1 - ci.low)) and cd.ratio_high[-1] == pytest.approx(
        ci.high / (1 - ci.high)
    )
    assert cd.level[-1] == 2 and cd.color == "yellow"  # one window only: red needs 3
    # ECE: one bin [0.1, 0.2): |0.2 - 0.1| in the last window, 0 in the reference
    assert cd.ece[-1] == pytest.approx(0.1) and cd.ref_ece == pytest.approx(0.0)


def test_window_ece_by_hand():
    # one window whose rows land on the decimal edges (the float traps 0.3, 0.6, 0.7):
    # bins [0.3,.4): |1-.3|; [.6,.7): |0-.6|; [.7,.8): |1-.7|; [.9,1]: |1-1.0| -> (.7 + .6 + .3 + 0) / 4 = 0.4
    t = pd.to_datetime(["2026-01-01"] * 4 + ["2026-01-09"] * 4)
    y = np.array([1, 0, 1, 1, 1, 0, 1, 1])
    p = np.array([0.3, 0.6, 0.7, 1.0, 0.3, 0.6, 0.7, 1.0])
    cd = calibration_drift(y, p, t, DriftConfig(reference_days=1, window_days=1))
    assert cd.ref_ece == pytest.approx(0.4) and cd.ece[-1] == pytest.approx(0.4)


def test_calibration_rejects_non_probabilities():
    t = _times(10, 14)
    with pytest.raises(InputError, match="y_prob must be probabilities in \\[0, 1\\]; 1 values") as err:
        calibration_drift(np.zeros(140, int), np.r_[np.full(139, 0.1), 3.0], t[:140])
    assert err.value.problems[0].column == "y_prob"


# --------------------------------------------------------------------------- report, config, errors


def test_report_to_dict_is_json_safe():
    t, y, x = _label_step_data(feature_shift=1.0)
    x["c"] = np.where(np.arange(len(x)) % 3 == 0, "u", "v")
    rep = drift_lights(y, np.full(len(y), 0.02), t, x)
    d = rep.to_dict()
    assert set(d) == {"feature", "label", "calibration"}
    assert d["feature"]["light"] == "red" and d["feature"]["details"]["worst_feature"] == "x"
    json.dumps(d, allow_nan=False)
    json.dumps(rep.feature.to_dict(), allow_nan=False)
    json.dumps(rep.label.to_dict(), allow_nan=False)
    json.dumps(rep.calibration.to_dict(), allow_nan=False)


def test_config_roundtrip_and_validation():
    cfg = DriftConfig(features=["a", "b"], oe_band=[0.9, 1.1])
    assert cfg.features == ("a", "b") and cfg.oe_band == (0.9, 1.1)
    assert DriftConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    hash(cfg)
    with pytest.raises(InputError) as err:
        DriftConfig(window_days=0, ks_threshold=-1, label_alpha=2, oe_band=(1.2, 0.8))
    msgs = str(err.value)
    assert "window_days must be a positive integer" in msgs and "ks_threshold must be a finite number > 0" in msgs
    assert "label_alpha must be in (0, 1)" in msgs and "oe_band must be (low, high)" in msgs
    with pytest.raises(InputError, match="Unknown drift setting"):
        DriftConfig.from_dict({"ks": 1})


def test_inputs_errors_listed_together():
    t = _times(10, 14)
    with pytest.raises(InputError) as err:
        drift_lights(
            np.r_[np.zeros(139), 2], None, t, pd.DataFrame({"x": np.zeros(139)}), config=DriftConfig(features=["x", "nope"])
        )
    codes = {p.code for p in err.value.problems}
    assert codes == {"y_true_not_binary", "length_mismatch", "features_missing"}


def test_features_subset_and_no_window():
    t = _times(10, 10)  # 10 days: reference 7 + no whole 7-day window
    frame = pd.DataFrame({"x": np.arange(100.0), "y": np.arange(100.0)})
    rep = drift_lights(np.zeros(100, int), None, t, frame, config=DriftConfig(features=["y"]))
    assert rep.feature.features == ("y",)
    assert rep.lights["feature"].color == "grey" and "No current window" in rep.lights["feature"].reason


# --------------------------------------------------------------------------- the demo dataset

from board.services import demo  # noqa: E402 - the demo is part of the repo; a failed import must fail

FEATURES = [
    "amount",
    "income",
    "debt_ratio",
    "age",
    "account_age_days",
    "n_prev_applications",
    "device_risk",
    "velocity_24h",
    "channel",
    "region",
]


def _demo_report(seed=0, drift=True):
    df = demo.demo_frame(seed, drift=drift)
    return drift_lights(df["is_fraud"], df["score_new"], df["application_time"], df[FEATURES])


def test_demo_injected_drift_lights_feature_red_and_label_drift():
    rep = _demo_report()
    fd = rep.feature
    assert rep.lights["feature"].color == "red"
    colors = dict(zip(fd.features, fd.colors))
    assert colors["debt_ratio"] == "red" and colors["device_risk"] == "red"
    assert {f for f, c in colors.items() if c == "green"} >= {"amount", "income", "age", "region"}
    assert rep.lights["label"].color == "red"
    # features drift as well, so the label step is not blamed on a label-definition change
    assert not rep.label.label_definition_change


def test_demo_without_drift_is_green():
    rep = _demo_report(drift=False)
    assert [l.color for l in rep.lights.values()] == ["green", "green", "green"]


@pytest.mark.slow
def test_demo_false_alarm_rate():
    # demo without injected drift, seeds 0..99, default settings.
    # Observed when written: feature light green 100/100; all three green 95/100 (the non-green
    # ones: calibration in seeds 9, 10, 16, 80, 81 and label in 9, 80 — the demo's customers repeat
    # with a shared effect, so window rates vary more than the binomial tests assume).
    colors = [{k: l.color for k, l in _demo_report(seed, drift=False).lights.items()} for seed in range(100)]
    assert sum(c["feature"] == "green" for c in colors) >= 95
    assert sum(all(v == "green" for v in c.values()) for c in colors) >= 95


# --------------------------------------------------------------------------- the grid's fast search


def _values_near(edges, rng, n=70_000):
    """Values on the edges, one float either side of them, between and beyond them, NaN and ±inf."""
    e = np.asarray(edges, dtype=np.float64)
    pick = e[rng.integers(0, e.size, n)]
    v = np.concatenate(
        [
            pick[: n // 4],
            np.nextafter(pick[n // 4 : n // 2], np.inf),
            np.nextafter(pick[n // 2 : 3 * n // 4], -np.inf),
            rng.uniform(e[0] - 1, e[-1] + 1, n - 3 * n // 4),
            [np.nan, np.inf, -np.inf],
        ]
    )
    return rng.permutation(v)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=300),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1 << 16, 1 << 8, 7]),
)
def test_left_positions_equals_numpys_search(edge_list, seed, cells):
    from evalcore.drift.references import left_positions

    edges = np.sort(np.asarray(edge_list))  # ties allowed: "left" is then the first equal edge
    v = _values_near(edges, np.random.default_rng(seed))
    np.testing.assert_array_equal(left_positions(edges, v, cells=cells), np.searchsorted(edges, v, side="left"))


@pytest.mark.parametrize("draw", ["exponential", "lognormal", "integers", "outlier"])
def test_left_positions_on_reference_grids(draw):
    """The grids the board fits (1000 quantile bins of skewed, discrete or outlying samples)."""
    from evalcore.drift.references import fit_reference, left_positions

    rng = np.random.default_rng(7)
    sample = {
        "exponential": lambda: rng.exponential(1.0, 200_000),
        "lognormal": lambda: np.round(rng.lognormal(3, 1, 200_000), 2),
        "integers": lambda: rng.integers(18, 90, 200_000).astype(float),
        "outlier": lambda: np.append(rng.normal(0, 1, 199_999), 1e12),  # every edge in one cell: numpy's search
    }[draw]()
    edges = fit_reference(sample[:50_000], kind="ks", n_bins=1000).edges
    np.testing.assert_array_equal(left_positions(edges, sample), np.searchsorted(edges, sample, side="left"))


@pytest.mark.parametrize("dtype", ["str", "object", "int64", "float64"])
def test_a_categorical_column_is_coded_as_its_objects_are(dtype):
    """Codes of a long column (numbered once, each distinct value looked up) equal those of the
    same values one by one as objects: levels, "(missing)" and "(unseen)"."""
    from evalcore.drift.references import fit_reference

    rng = np.random.default_rng(11)
    if dtype in ("str", "object"):
        pool = np.array(["app", "web", "store", "电话", None], dtype=object)
    else:
        pool = np.array([1, 2, 3, 7, None], dtype=object)
    raw = pool[rng.integers(0, len(pool), 10_000)]
    if dtype == "int64":
        raw = np.where(raw == None, 0, raw)  # noqa: E711 - no missing in an integer column
    col = pd.Series(raw, dtype=dtype if dtype != "int64" else np.int64)
    ref = fit_reference(pd.Series(col.to_numpy(dtype=object)[:3_000][raw[:3_000] != pool[2]], dtype=object), kind="psi")
    assert len(col) > 4096  # the column way
    objects = pd.Series(col.to_numpy(dtype=object), dtype=object)
    want = np.concatenate([ref.codes(objects.iloc[i : i + 4096]) for i in range(0, len(col), 4096)])  # one by one
    np.testing.assert_array_equal(ref.codes(col), want)
    assert (ref.codes(col) == len(ref.levels) - 1).any()  # the level left out of the reference is unseen
    if dtype not in ("int64",):
        assert (ref.codes(col) == len(ref.levels) - 2).any()  # and missing values are missing
