"""Tests of the value table and the exact threshold–value curve (evalcore.value).

Golden numbers are derived by hand in comments or computed by a slow, obviously-correct
row-by-row loop; AUC is checked against scikit-learn."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from strategies import INCREASING, binary_data, two_class, value_tables  # tests/evalcore is on sys.path

from evalcore import InputError
from evalcore.counts import score_counts
from evalcore.value import (
    CELLS,
    ValueTable,
    auc_from_counts,
    bayes_threshold,
    price_curve,
    segment_curves,
    threshold_between,
    value_curve,
)

SPEC_TABLE = dict(tp=18500, fp=-3200, fn=-22000, tn=120)  # SPEC §2.2 example amounts


# ---------------------------------------------------------------------------------------
# the slow, obviously-correct oracle


def slow_ev(y, s, w, table: ValueTable, t: float, base_rate=None) -> float:
    """EV per decision at threshold t by visiting every row (SPEC §3.2 literally).

    With a production prevalence π each positive row counts π/p̂ and each negative
    (1−π)/(1−p̂) times its weight (SPEC §2.2), p̂ the validation positive rate.
    """
    amount = table.effective()
    w = np.ones(len(y)) if w is None else w
    if base_rate is None:
        base_rate = sum(wi for yi, wi in zip(y, w) if yi == 1) / sum(w)
    pi = table.prevalence
    total = 0.0
    n = 0.0
    for yi, si, wi in zip(y, s, w):
        if pi is not None:
            wi = wi * (pi / base_rate if yi == 1 else (1 - pi) / (1 - base_rate))
        acted = si >= t
        if acted and yi == 1:
            cell = "tp"
        elif acted:
            cell = "fp"
        elif yi == 1:
            cell = "fn"
        else:
            cell = "tn"
        total += wi * amount[cell]
        n += wi
    return total / n


def brute_force_optimum(y, s, w, table):
    """Max EV over every candidate threshold (each distinct score, and +inf) by the slow loop."""
    candidates = [np.inf] + sorted(set(np.asarray(s).tolist()), reverse=True)
    evs = np.array([slow_ev(y, s, w, table, t) for t in candidates])
    return candidates, evs


# ---------------------------------------------------------------------------------------
# out-of-fold predictions of three models on load_breast_cancer


@pytest.fixture(scope="module")
def oof():
    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    models = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "forest": RandomForestClassifier(n_estimators=50, random_state=0),  # many tied scores
        "naive_bayes": GaussianNB(),  # many scores of exactly 0 and 1
    }
    p = {name: cross_val_predict(m, X, y, cv=cv, method="predict_proba")[:, 1] for name, m in models.items()}
    return {"y": y, "p": p, "w": np.random.default_rng(0).uniform(0.2, 3.0, len(y))}


@pytest.mark.parametrize("model", ["logistic", "forest", "naive_bayes"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("prevalence", [None, 0.05])
def test_ev_equals_row_by_row_sum_at_every_threshold(oof, model, weighted, prevalence):
    y, s = oof["y"], oof["p"][model]
    w = oof["w"] if weighted else None
    table = ValueTable(**SPEC_TABLE, confidence={"fp": 0.5}, prevalence=prevalence)
    c = value_curve(y, s, table, sample_weight=w)
    assert c.thresholds[0] == np.inf and len(c.thresholds) == len(set(s.tolist())) + 1
    direct = np.array([slow_ev(y, s, w, table, t) for t in c.thresholds])
    np.testing.assert_allclose(c.ev, direct, rtol=1e-10, atol=1e-8)
    # and between the scores (ev_at), below the lowest and above the highest
    between = (c.thresholds[1:-1] + c.thresholds[2:]) / 2
    for t in [*between[::7], -1.0, 2.0]:
        assert c.ev_at(t) == pytest.approx(slow_ev(y, s, w, table, t), rel=1e-10, abs=1e-8)
    assert c.ev_none == pytest.approx(slow_ev(y, s, w, table, np.inf), rel=1e-12)
    assert c.ev_all == pytest.approx(slow_ev(y, s, w, table, -np.inf), rel=1e-12)


@pytest.mark.parametrize("model", ["logistic", "forest", "naive_bayes"])
def test_optimum_equals_brute_force_argmax(oof, model):
    y, s = oof["y"], oof["p"][model]
    table = ValueTable(**SPEC_TABLE)
    c = value_curve(y, s, table)
    candidates, evs = brute_force_optimum(y, s, None, table)
    assert c.ev_opt == pytest.approx(evs.max(), rel=1e-12)
    winners = [t for t, e in zip(candidates, evs) if e >= evs.max() - 1e-9]
    # every maximising candidate lies in one reported interval, and every interval holds one
    assert all(any(lo < t <= hi for lo, hi in c.t_opt_intervals) for t in winners)
    assert all(any(lo < t <= hi for t in winners) for lo, hi in c.t_opt_intervals)
    assert c.t_opt_interval == c.t_opt_intervals[0]
    assert c.ev_at(c.t_opt) == pytest.approx(c.ev_opt, rel=1e-12)


def test_auc_from_counts_equals_sklearn_on_oof(oof):
    for model, s in oof["p"].items():
        for w in (None, oof["w"]):
            assert auc_from_counts(score_counts(oof["y"], s, sample_weight=w)) == pytest.approx(
                roc_auc_score(oof["y"], s, sample_weight=w), rel=1e-12
            ), model


# ---------------------------------------------------------------------------------------
# the optimum: ties, disjoint maxima, midpoint rule, act on everyone / no one


def test_two_disjoint_maxima_primary_is_the_highest_thresholds():
    # amounts tp=2, fp=-1, fn=tn=0; rows (y, s): (1,.9) (1,.8) (0,.6) (0,.5) (1,.1); N=5
    # EV = (2·TP − FP)/5: none 0; ≥.9 2/5; ≥.8 4/5; ≥.6 3/5; ≥.5 2/5; ≥.1 (6−2)/5 = 4/5
    # the maximum 0.8 is reached on (0.6, 0.8] and on (−inf, 0.1] (acting on everyone)
    t = ValueTable(tp=2, fp=-1, fn=0, tn=0)
    c = value_curve([1, 1, 0, 0, 1], [0.9, 0.8, 0.6, 0.5, 0.1], t)
    np.testing.assert_allclose(c.ev, [0, 0.4, 0.8, 0.6, 0.4, 0.8])
    assert c.t_opt_intervals == ((0.6, 0.8), (-np.inf, 0.1))
    assert c.t_opt_interval == (0.6, 0.8)
    assert c.t_opt == pytest.approx(0.7)  # midpoint of (0.6, 0.8]
    assert c.policy == "threshold" and c.ev_opt == pytest.approx(0.8)
    d = c.to_dict()
    assert d["t_opt_intervals"] == [[0.6, 0.8], [None, 0.1]]
    json.dumps(d, allow_nan=False)


def test_t_opt_midpoint_rule():
    # tp=10, fp=-2, fn=-10, tn=0; rows (1,.9) (0,.6) (1,.4) (0,.1); N=4
    # EV·4: none −20; ≥.9 10−10 = 0; ≥.6 −2; ≥.4 20−2 = 18; ≥.1 20−4 = 16 → max on (0.1, 0.4]
    c = value_curve([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], ValueTable(tp=10, fp=-2, fn=-10, tn=0))
    np.testing.assert_allclose(c.ev, np.array([-20, 0, -2, 18, 16]) / 4)
    assert c.t_opt_interval == (0.1, 0.4) and c.t_opt == pytest.approx(0.25)
    # thresholds anywhere in (0.1, 0.4] act on the same rows: the two above 0.4
    for t in (0.1000001, 0.25, 0.4):
        assert c.ev_at(t) == pytest.approx(4.5)
    assert c.ev_at(0.1) == pytest.approx(4.0) and c.ev_at(0.4000001) == pytest.approx(-0.5)


def test_t_opt_between_adjacent_subnormal_scores_reproduces_ev_opt():
    # tp=10, fp=-2, fn=-10, tn=0; rows (0, 0.0) (1, 5e-324); N=2
    # EV·2: none −10; ≥5e-324 10 (TP) → 5; ≥0 10−2 = 8 → 4. The optimum is (0, 5e-324]: the
    # only float in it is 5e-324 itself, the midpoint 2.5e-324 rounds to 0 (acting on both rows)
    c = value_curve([0, 1], [0.0, 5e-324], ValueTable(tp=10, fp=-2, fn=-10, tn=0))
    assert c.ev.tolist() == [-5.0, 5.0, 4.0]
    assert c.t_opt_interval == (0.0, 5e-324) and c.policy == "threshold"
    assert c.t_opt == 5e-324  # the upper end: score >= t acts on the positive row only
    assert c.ev_at(c.t_opt) == c.ev_opt == 5.0


def test_t_opt_between_neighbouring_floats_reproduces_ev_opt():
    # the same rows one ulp apart just below 1: (1 − 2⁻⁵³ + 1) / 2 rounds to 1 − 2⁻⁵³
    lo = float(np.nextafter(1.0, 0))
    c = value_curve([0, 1], [lo, 1.0], ValueTable(tp=10, fp=-2, fn=-10, tn=0))
    assert c.t_opt_interval == (lo, 1.0)
    assert c.t_opt == 1.0 and c.ev_at(c.t_opt) == c.ev_opt == 5.0


def test_threshold_between_is_inside_the_half_open_interval():
    big = float(np.finfo(float).max)
    # midpoints by hand; then ends whose midpoint rounds onto low, or whose sum overflows
    cases = [
        (0.1, 0.4, 0.25),
        (-3.0, 5.0, 1.0),
        (0.0, 5e-324, 5e-324),
        (-5e-324, 0.0, 0.0),
        (float(np.nextafter(1.0, 0)), 1.0, 1.0),
        (1.5e308, big, big),
    ]
    for low, high, want in cases:
        assert threshold_between(low, high) == want
    np.testing.assert_array_equal(
        threshold_between(np.array([c[0] for c in cases]), np.array([c[1] for c in cases])), [c[2] for c in cases]
    )


def test_act_on_everyone_optimum():
    # tp=10, fp=-1, fn=-10, tn=0; rows (0,.9) (1,.6) (0,.4) (1,.1); N=4
    # EV·4: none −20; ≥.9 −1−20 = −21; ≥.6 10−1−10 = −1; ≥.4 −2; ≥.1 20−2 = 18 → act on everyone
    c = value_curve([0, 1, 0, 1], [0.9, 0.6, 0.4, 0.1], ValueTable(tp=10, fp=-1, fn=-10, tn=0))
    np.testing.assert_allclose(c.ev, np.array([-20, -21, -1, -2, 18]) / 4)
    assert c.policy == "act_on_everyone"
    assert c.t_opt_interval == (-np.inf, 0.1) and c.t_opt == 0.1  # the lowest score acts on all rows
    assert c.ev_opt == c.ev_all == pytest.approx(4.5)
    assert c.to_dict()["t_opt_interval"] == [None, 0.1]


def test_act_on_no_one_optimum_and_its_sharpness():
    # tp=1, fp=-10, fn=0, tn=1; rows (0,.9) (1,.6) (0,.4) (1,.1); N=4
    # EV·4: none 2 (two TN); ≥.9 −10+1 = −9; ≥.6 1−10+1 = −8; ≥.4 −19; ≥.1 2−20 = −18
    c = value_curve([0, 1, 0, 1], [0.9, 0.6, 0.4, 0.1], ValueTable(tp=1, fp=-10, fn=0, tn=1))
    np.testing.assert_allclose(c.ev, np.array([2, -9, -8, -19, -18]) / 4)
    assert c.policy == "act_on_no_one"
    assert c.t_opt_interval == (0.9, np.inf) and c.t_opt == np.inf
    assert c.ev_opt == c.ev_none == pytest.approx(0.5)
    # window centred on the highest score 0.9: [0.88, 0.92] meets "none" (0.9, inf] and
    # "≥ .9" (0.6, 0.9]; sharpness = |−9/4 − 2/4| / (2/4) = 5.5
    assert c.sharpness == pytest.approx(5.5)
    assert c.to_dict()["t_opt"] is None  # +inf is not JSON; policy says what it means
    assert c.to_dict()["policy"] == "act_on_no_one"


def test_every_threshold_optimal_and_zero_optimum_has_no_sharpness():
    c = value_curve([0, 1, 0], [0.2, 0.5, 0.9], ValueTable(tp=0, fp=0, fn=0, tn=0))
    assert c.policy == "any_threshold" and c.ev_opt == 0
    assert c.t_opt_intervals == ((-np.inf, np.inf),)
    assert math.isnan(c.sharpness) and "EV at the optimum is 0" in c.undefined["sharpness"]
    assert c.to_dict()["sharpness"] is None


# ---------------------------------------------------------------------------------------
# flatness and sharpness (SPEC §3.3), by hand

# tp=100, fp=-10, fn=tn=0; rows (y, s): (1,.9) (1,.7) (0,.6) (1,.5) (0,.49) (0,.48) (0,.1); N=7
# EV·7 at each point: none 0; ≥.9 100; ≥.7 200; ≥.6 190; ≥.5 290; ≥.49 280; ≥.48 270; ≥.1 260
FLAT_Y = [1, 1, 0, 1, 0, 0, 0]
FLAT_S = [0.9, 0.7, 0.6, 0.5, 0.49, 0.48, 0.1]
FLAT_TABLE = dict(tp=100, fp=-10, fn=0, tn=0)


def test_flatness_and_sharpness_by_hand():
    c = value_curve(FLAT_Y, FLAT_S, ValueTable(**FLAT_TABLE))
    np.testing.assert_allclose(c.ev * 7, [0, 100, 200, 190, 290, 280, 270, 260])
    assert c.t_opt_interval == (0.49, 0.5) and c.t_opt == pytest.approx(0.495)
    # within 1% of 290 means EV·7 >= 287.1: only the optimum itself
    assert c.flatness == (0.49, 0.5) and c.flat_tol == 0.01
    # ±0.02 around 0.495 is [0.475, 0.515]; it meets the points "≥.6" (0.5, 0.6], "≥.5",
    # "≥.49" (0.48, 0.49] and "≥.48" (0.1, 0.48]; the largest change is 290 → 190:
    # sharpness = 100 / 290
    assert c.sharp_window == 0.02
    assert c.sharpness == pytest.approx(100 / 290)


def test_flatness_with_a_wider_tolerance():
    # within 5% of 290 means EV·7 >= 275.5: "≥.49" (280) joins, "≥.48" (270) and "≥.6" (190) do not;
    # the band is (0.48, 0.5]
    c = value_curve(FLAT_Y, FLAT_S, ValueTable(**FLAT_TABLE), flat_tol=0.05)
    assert c.flatness == (0.48, 0.5)
    # within 15%: EV·7 >= 246.5 takes in every point down to acting on everyone (260);
    # the band is clipped to the lowest score 0.1
    c = value_curve(FLAT_Y, FLAT_S, ValueTable(**FLAT_TABLE), flat_tol=0.15)
    assert c.flatness == (0.1, 0.5)


def test_sharpness_window_for_raw_scores_is_two_percent_of_the_range():
    raw = [100 * x for x in FLAT_S]  # 90 … 10: range 80, window 1.6
    c = value_curve(FLAT_Y, raw, ValueTable(**FLAT_TABLE), score_kind="score")
    assert c.sharp_window == pytest.approx(1.6)
    assert c.t_opt == pytest.approx(49.5)
    # [47.9, 51.1] meets (50, 60], (49, 50], (48, 49] and (10, 48]: again 100 / 290
    assert c.sharpness == pytest.approx(100 / 290)
    assert math.isnan(c.bayes_threshold) and "raw scores" in c.undefined["bayes_threshold"]


def test_raw_score_window_includes_and_excludes_by_hand():
    # tp=12, fp=-10, fn=tn=0; rows (y, s) descending: (0,95) (1,90) (1,70) (1,50) (0,49) (0,47.6) (0,5); N=7
    # EV·7: none 0; ≥95 −10; ≥90 2; ≥70 14; ≥50 26; ≥49 16; ≥47.6 6; ≥5 −4 → optimum (49, 50], t_opt 49.5
    # range 95 − 5 = 90 → window 1.8 → [47.7, 51.3]: it meets (50, 70] (EV·7 14), (49, 50] (26),
    # (47.6, 49] (16), but not (5, 47.6] (its top 47.6 < 47.7). sharpness = (26 − 14)/26
    y = [0, 1, 1, 1, 0, 0, 0]
    s = [95, 90, 70, 50, 49, 47.6, 5]
    c = value_curve(y, s, ValueTable(tp=12, fp=-10, fn=0, tn=0), score_kind="score")
    np.testing.assert_allclose(c.ev * 7, [0, -10, 2, 14, 26, 16, 6, -4])
    assert c.t_opt == pytest.approx(49.5) and c.sharp_window == pytest.approx(1.8)
    assert c.sharpness == pytest.approx(12 / 26)
    # the same scores read as probabilities/100 use the fixed window 0.02 = 2 score units/100
    p = value_curve(y, [x / 100 for x in s], ValueTable(tp=12, fp=-10, fn=0, tn=0))
    # [0.475, 0.515] now also meets (0.05, 0.476] (EV·7 6): sharpness (26 − 6)/26
    assert p.sharp_window == 0.02 and p.sharpness == pytest.approx(20 / 26)


def test_sharpness_window_excludes_far_points():
    # a probability curve whose neighbours are far from t_opt: only the optimum is in the window
    # tp=10, fp=-2, fn=-10, tn=0; rows (1,.9) (0,.6) (1,.4) (0,.1): optimum (0.1, 0.4], t_opt 0.25;
    # [0.23, 0.27] lies inside (0.1, 0.4]: sharpness 0
    c = value_curve([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], ValueTable(tp=10, fp=-2, fn=-10, tn=0))
    assert c.sharpness == 0.0


# ---------------------------------------------------------------------------------------
# the Bayes threshold


def test_bayes_threshold_spec_example():
    # v_TN − v_FP = 120 + 3200 = 3320; v_TP − v_FN = 18500 + 22000 = 40500
    # t* = 3320 / (3320 + 40500) = 3320 / 43820
    t, why = bayes_threshold(ValueTable(**SPEC_TABLE))
    assert t == pytest.approx(3320 / 43820, rel=1e-15) and why == ""
    assert round(t, 4) == 0.0758
    c = value_curve([0, 1], [0.2, 0.9], ValueTable(**SPEC_TABLE))
    assert c.bayes_threshold == pytest.approx(3320 / 43820) and "bayes_threshold" not in c.undefined


def test_bayes_threshold_with_confidence_and_prevalence():
    # effective fp = −3200·0.5 = −1600: v_TN − v_FP = 1720, v_TP − v_FN = 40500
    # π = 0.02, p̂ = 0.1: α = 0.2, β = 0.98/0.9; t* = β·1720 / (β·1720 + α·40500)
    table = ValueTable(**SPEC_TABLE, confidence={"fp": 0.5}, prevalence=0.02)
    beta, alpha = 0.98 / 0.9, 0.2
    t, why = bayes_threshold(table, base_rate=0.1)
    assert t == pytest.approx(beta * 1720 / (beta * 1720 + alpha * 40500), rel=1e-12) and why == ""
    t, why = bayes_threshold(table)
    assert math.isnan(t) and "needs a validation base rate" in why


@pytest.mark.parametrize(
    "amounts, expected",
    [
        (dict(tp=5, fp=1, fn=5, tn=1), "every threshold is optimal"),  # Δp = Δn = 0
        (dict(tp=-1, fp=0, fn=0, tn=-1), "the table looks inverted"),  # Δp = −1, Δn = −1
        (dict(tp=-5, fp=-1, fn=0, tn=0), "act on no one"),  # Δp = −5 < 0, Δn = 1
        (dict(tp=1, fp=5, fn=0, tn=0), "act on everyone"),  # Δp = 1, Δn = −5 < 0
    ],
)
def test_bayes_threshold_undefined_cases(amounts, expected):
    t, why = bayes_threshold(ValueTable(**amounts))
    assert math.isnan(t) and expected in why


def test_bayes_threshold_boundaries_are_defined():
    # Δn = 0 (a false alarm costs what a true negative gains): t* = 0/(0 + Δp) = 0, act on everyone
    assert bayes_threshold(ValueTable(tp=10, fp=0, fn=0, tn=0)) == (0.0, "")
    # Δp = 0: t* = Δn/(Δn + 0) = 1, act only on certain positives
    assert bayes_threshold(ValueTable(tp=0, fp=-1, fn=0, tn=0)) == (1.0, "")


@pytest.mark.parametrize("prevalence", [None, 0.1, 0.6])
def test_bayes_threshold_is_the_empirical_optimum_for_calibrated_scores(prevalence):
    # a perfectly calibrated population: every score p appears as a positive with weight p and
    # as a negative with weight 1 − p. Acting on p gains α·p·Δp − β·(1−p)·Δn, which is ≥ 0
    # exactly when p ≥ t*, so the exact curve's optimum must straddle t*.
    p = np.arange(1, 1000) / 1000
    y = np.r_[np.ones(len(p)), np.zeros(len(p))].astype(int)
    s = np.r_[p, p]
    w = np.r_[p, 1 - p]
    table = ValueTable(**SPEC_TABLE, prevalence=prevalence)
    c = value_curve(y, s, table, sample_weight=w)
    low, high = c.t_opt_interval
    assert low < c.bayes_threshold <= high + 1e-9  # high is the smallest grid score ≥ t*
    assert high - low == pytest.approx(0.001)


# ---------------------------------------------------------------------------------------
# the value table


def test_value_table_effective_amounts_and_dict_round_trip():
    t = ValueTable(**SPEC_TABLE, confidence={"fp": 0.5, "tn": 0.25}, prevalence=0.02, unit="EUR", name="loan anti-fraud")
    assert t.effective() == {"tp": 18500.0, "fp": -1600.0, "fn": -22000.0, "tn": 30.0}
    assert t.vector().tolist() == [18500.0, -1600.0, -22000.0, 30.0]
    assert t.confidence == {"tp": 1.0, "fp": 0.5, "fn": 1.0, "tn": 0.25}
    d = t.to_dict()
    json.dumps(d, allow_nan=False)
    back = ValueTable.from_dict(d)
    assert back.effective() == t.effective() and back.prevalence == 0.02 and back.unit == "EUR"
    assert t.with_amounts(fp=-100).effective()["fp"] == -50.0
    # π/p̂ and (1−π)/(1−p̂) with p̂ = 0.1
    assert t.weights(0.1) == pytest.approx((0.2, 0.98 / 0.9))
    assert ValueTable(**SPEC_TABLE).weights(0.1) == (1.0, 1.0)


def test_value_table_lists_every_problem_at_once():
    with pytest.raises(InputError) as info:
        ValueTable(tp="lots", fp=np.nan, fn=np.inf, tn=1, confidence={"tp": 0, "fn": 1.5, "zz": 1}, prevalence=1.0)
    err = info.value
    codes = [p.code for p in err.problems]
    assert codes == [
        "amount_not_numeric",
        "amount_not_finite",
        "amount_not_finite",
        "confidence_unknown_cell",
        "confidence_out_of_range",
        "confidence_out_of_range",
        "prevalence_out_of_range",
    ]
    msg = str(err)
    assert "Amount of TP (acted, case positive) must be a number; got 'lots'." in msg
    assert "Amount of FP (acted, case negative) must be finite; got nan." in msg
    assert "Amount of FN (did not act, case positive) must be finite; got inf." in msg
    assert "confidence has unknown cells ['zz']; expected tp, fp, fn, tn." in msg
    assert "Confidence of TP (acted, case positive) must be in (0, 1]; got 0." in msg
    assert "Confidence of FN (did not act, case positive) must be in (0, 1]; got 1.5." in msg
    assert "Production prevalence must be in (0, 1) or empty; got 1.0." in msg


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tp=None), r"Amount of TP \(acted, case positive\) must be a number; got None"),
        (dict(tn=np.inf), r"Amount of TN \(did not act, case negative\) must be finite; got inf"),
        (dict(confidence={"fp": -0.5}), r"Confidence of FP \(acted, case negative\) must be in \(0, 1\]; got -0\.5"),
        (dict(confidence={"fp": "x"}), r"Confidence of FP \(acted, case negative\) must be in \(0, 1\]; got 'x'"),
        (dict(confidence=[0.5]), r"confidence must map cells to multipliers"),
        (dict(confidence={"TP": 1}), r"confidence has unknown cells \['TP'\]"),
        (dict(prevalence=0.0), r"Production prevalence must be in \(0, 1\) or empty; got 0\.0"),
        (dict(prevalence="often"), r"Production prevalence must be in \(0, 1\) or empty; got 'often'"),
    ],
)
def test_value_table_errors(kwargs, match):
    with pytest.raises(InputError, match=match):
        ValueTable(**{**SPEC_TABLE, **kwargs})


def test_value_table_from_dict_missing_amounts():
    with pytest.raises(InputError, match=r"The value table is missing amounts for fn, tn\."):
        ValueTable.from_dict({"tp": 1, "fp": -1})


def test_sign_warnings():
    assert ValueTable(**SPEC_TABLE).sign_warnings() == []
    w = ValueTable(tp=18500, fp=3200, fn=22000, tn=120).sign_warnings()
    assert len(w) == 3
    assert w[0].startswith("FP (acted, case negative) is +3,200.00: this is usually a cost (negative).")
    assert w[1].startswith("FN (did not act, case positive) is +22,000.00: this is usually a cost (negative).")
    # Δp = 18500 − 22000 < 0 and Δn = 120 − 3200 < 0
    assert "check the signs" in w[2]
    assert "acting on no one is optimal" in ValueTable(tp=-5, fp=-1, fn=0, tn=0).sign_warnings()[-1]
    assert "acting on everyone is optimal" in ValueTable(tp=1, fp=5, fn=0, tn=0).sign_warnings()[-1]
    # the policy warnings use effective amounts: tp 10·0.1 = 1 is worth less than fn = 2
    w = ValueTable(tp=10, fp=-1, fn=2, tn=0, confidence={"tp": 0.1}).sign_warnings()
    assert any("TP ≤ FN" in x for x in w)


# ---------------------------------------------------------------------------------------
# attribution, confusion and undefined curves


def test_attribution_sums_to_ev_by_hand():
    # SPEC §3.1 cells (TP=8, FP=12, FN=2, TN=78) priced with SPEC §2.2 amounts, N=100:
    # 18500·8/100 = 1480; −3200·12/100 = −384; −22000·2/100 = −440; 120·78/100 = 93.6 → EV 749.6
    y = np.array([1] * 10 + [0] * 90)
    s = np.array([0.9] * 8 + [0.1] * 2 + [0.9] * 12 + [0.1] * 78)
    c = value_curve(y, s, ValueTable(**SPEC_TABLE))
    a = c.attribution_at(0.5)
    assert a == pytest.approx({"tp": 1480.0, "fp": -384.0, "fn": -440.0, "tn": 93.6})
    assert sum(a.values()) == pytest.approx(749.6) and c.ev_at(0.5) == pytest.approx(749.6)
    m = c.confusion_at(0.5)
    assert (m.tp, m.fp, m.fn, m.tn) == (8, 12, 2, 78) and m.accuracy == pytest.approx(0.86)


def test_hard_decisions_give_one_operating_point():
    c = value_curve([1, 0, 1, 0], [1, 1, 0, 0], ValueTable(**SPEC_TABLE), score_kind="decision")
    assert c.thresholds.tolist() == [np.inf, 1, 0]
    # acting on the 1s: TP=1, FP=1, FN=1, TN=1 → (18500 − 3200 − 22000 + 120)/4
    assert c.ev_at(1) == pytest.approx((18500 - 3200 - 22000 + 120) / 4)
    assert math.isnan(c.t_opt) and c.policy == "undefined"
    assert "single operating point" in c.undefined["t_opt"]
    assert "hard 0/1 decisions" in c.undefined["bayes_threshold"]


def test_no_rows_of_positive_weight_is_undefined_not_zero():
    c = value_curve([1, 0], [0.3, 0.6], ValueTable(**SPEC_TABLE), sample_weight=[0, 0])
    assert np.isnan(c.ev).all() and math.isnan(c.ev_opt) and math.isnan(c.ev_all)
    assert c.undefined["ev"] == "no rows with positive weight" and c.policy == "undefined"
    json.dumps(c.to_dict(), allow_nan=False)


def test_prevalence_with_one_class_is_undefined():
    c = value_curve([0, 0, 0], [0.3, 0.6, 0.9], ValueTable(**SPEC_TABLE, prevalence=0.02))
    assert np.isnan(c.ev).all()
    assert "no positive cases to reweight" in c.undefined["ev"]
    assert math.isnan(c.bayes_threshold)
    # without a production prevalence one class is fine: every row is a negative
    c = value_curve([0, 0, 0], [0.3, 0.6, 0.9], ValueTable(**SPEC_TABLE))
    np.testing.assert_allclose(c.ev, [120, (-3200 + 240) / 3, (-6400 + 120) / 3, -3200])


def test_to_dict_is_json_safe():
    c = value_curve(FLAT_Y, FLAT_S, ValueTable(**FLAT_TABLE))
    d = c.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["t_opt_interval"] == [0.49, 0.5] and d["n"] == 7 and d["n_pos"] == 3 and d["n_thresholds"] == 7


# ---------------------------------------------------------------------------------------
# input errors of the curve functions


def test_value_curve_lists_every_problem_at_once():
    with pytest.raises(InputError) as info:
        value_curve([0, 2], [0.5, np.nan], "table", score_kind="odds", flat_tol=-1, resolution=0)
    assert [p.code for p in info.value.problems] == [
        "y_true_not_binary",
        "y_score_not_finite",
        "resolution_invalid",
        "score_kind_invalid",
        "flat_tol_invalid",
        "table_type",
    ]


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (([], []), {}, r"value_curve needs at least one row; got 0\."),
        (
            ([0, 1, 1], [0.5, 1.5, 42.0]),
            {},
            r"y_score was declared as probability, but probabilities must lie in \[0, 1\]; "
            r"2 values are not \(e\.g\. \[1\.5, 42\.0\]\)\. Rows: 3, 4\. Fix: Pass score_kind=\"score\"",
        ),
        (([0, 1], [0.5, 1.0]), dict(score_kind="decision"), r"hard decisions must be 0 or 1; 1 values are not"),
        (([0, 1], [0.5, 1.0]), dict(score_kind="odds"), r"score_kind must be one of probability, score, decision; got 'odds'"),
        (([0, 1], [0.5, 1.0]), dict(flat_tol=np.nan), r"flat_tol must be a finite number >= 0; got nan"),
        (([0, 1], [0.5, 1.0]), dict(resolution=-1), r"resolution must be a positive finite number or None; got -1"),
    ],
)
def test_value_curve_errors(args, kwargs, match):
    with pytest.raises(InputError, match=match):
        value_curve(*args, ValueTable(**SPEC_TABLE), **kwargs)


def test_price_curve_errors():
    counts = score_counts([0, 1], [0.5, 3.0])
    with pytest.raises(InputError, match=r"but probabilities must lie in \[0, 1\]; some scores are not \(e\.g\. \[3\.0\]\)"):
        price_curve(counts, ValueTable(**SPEC_TABLE))
    with pytest.raises(InputError) as info:
        price_curve([1, 2], {"tp": 1}, base_rate=2, score_kind=None)
    assert [p.code for p in info.value.problems] == ["score_kind_invalid", "counts_type", "table_type", "base_rate_invalid"]
    assert "base_rate must be in [0, 1] or None; got 2." in str(info.value)


@pytest.mark.parametrize("bad", [np.nan, "0.5", None])
def test_curve_lookups_reject_bad_thresholds(bad):
    c = value_curve([0, 1], [0.2, 0.8], ValueTable(**SPEC_TABLE))
    for method in (c.ev_at, c.confusion_at, c.attribution_at):
        if bad == "0.5":  # numeric strings are numbers
            method(bad)
            continue
        with pytest.raises(InputError, match=r"threshold must be a number"):
            method(bad)


def test_segment_curves_errors():
    with pytest.raises(InputError) as info:
        segment_curves([0, 1], [0.2, 0.8], ["a"], ValueTable(**SPEC_TABLE), deployed=np.nan, grid=[0.1, np.inf], score_kind="x")
    assert [p.code for p in info.value.problems] == ["threshold_invalid", "score_kind_invalid", "grid_invalid", "segments_shape"]
    with pytest.raises(InputError, match=r"n_grid must be an integer >= 1; got 0"):
        segment_curves([0, 1], [0.2, 0.8], ["a", "b"], ValueTable(**SPEC_TABLE), n_grid=0)
    with pytest.raises(InputError, match=r"segment_curves needs at least one row; got 0\."):
        segment_curves([], [], [], ValueTable(**SPEC_TABLE))


# ---------------------------------------------------------------------------------------
# prevalence reweighting against an explicit per-row weighting


def _explicit_weights(y, w, pi, base_rate=None):
    w = np.ones(len(y)) if w is None else w
    if base_rate is None:
        base_rate = w[y == 1].sum() / w.sum()
    return w * np.where(y == 1, pi / base_rate, (1 - pi) / (1 - base_rate))


def test_prevalence_reweighting_equals_explicit_row_weights(oof):
    y, s, w = oof["y"], oof["p"]["logistic"], oof["w"]
    for weights in (None, w):
        with_pi = value_curve(y, s, ValueTable(**SPEC_TABLE, prevalence=0.02), sample_weight=weights)
        explicit = value_curve(y, s, ValueTable(**SPEC_TABLE), sample_weight=_explicit_weights(y, weights, 0.02))
        np.testing.assert_allclose(with_pi.ev, explicit.ev, rtol=1e-10, atol=1e-8)
        assert with_pi.t_opt_interval == explicit.t_opt_interval
        # after reweighting, positives make up π of the total weight
        assert with_pi.tp[-1] / with_pi.n_weighted == pytest.approx(0.02)
        assert with_pi.n_weighted == pytest.approx(with_pi.n)


@settings(max_examples=60, deadline=None)
@given(binary_data(min_size=2).filter(two_class), st.floats(0.01, 0.99))
def test_prevalence_reweighting_property(data, pi):
    y, s, w = data
    a = value_curve(y, s, ValueTable(**SPEC_TABLE, prevalence=pi), sample_weight=w)
    b = value_curve(y, s, ValueTable(**SPEC_TABLE), sample_weight=_explicit_weights(y, w, pi))
    np.testing.assert_allclose(a.ev, b.ev, rtol=1e-9, atol=1e-6)


# ---------------------------------------------------------------------------------------
# segments


def test_segment_curves_equal_value_curve_on_each_subset(oof):
    y, s, w = oof["y"], oof["p"]["forest"], oof["w"]
    seg = np.where(np.arange(len(y)) % 3 == 0, "night", "day")
    table = ValueTable(**SPEC_TABLE, prevalence=0.05)
    sc = segment_curves(y, s, seg, table, column="shift", sample_weight=w, deployed=0.5)
    overall_rate = w[y == 1].sum() / w.sum()
    assert sc.levels == ("day", "night") and sc.column == "shift" and sc.base_rate == pytest.approx(overall_rate)
    assert sc.ev.shape == (2, 101) and sc.grid[0] == s.min() and sc.grid[-1] == s.max()
    for i, level in enumerate(sc.levels):
        m = seg == level
        ref = price_curve(score_counts(y[m], s[m], sample_weight=w[m]), table, base_rate=overall_rate)
        np.testing.assert_allclose(sc.curves[i].ev, ref.ev, rtol=1e-12)
        assert sc.t_opt[i] == ref.t_opt and sc.ev_opt[i] == pytest.approx(ref.ev_opt)
        assert sc.n[i] == pytest.approx(w[m].sum())
        # heatmap cells and the deployed EV by the slow loop, reweighted with the overall rate
        for j in range(0, 101, 10):
            assert sc.ev[i, j] == pytest.approx(slow_ev(y[m], s[m], w[m], table, sc.grid[j], base_rate=overall_rate), rel=1e-9)
        assert sc.ev_deployed[i] == pytest.approx(slow_ev(y[m], s[m], w[m], table, 0.5, base_rate=overall_rate), rel=1e-9)
    d = sc.to_dict()
    json.dumps(d, allow_nan=False)
    assert set(d) == {"day", "night"} and d["night"]["n"] == pytest.approx(w[seg == "night"].sum())


def test_segment_curves_explicit_grid_and_one_class_level():
    # level "b" has only negatives: its curve is still defined (priced with the overall rate)
    y = [1, 0, 0, 0]
    s = [0.9, 0.2, 0.7, 0.4]
    seg = ["a", "a", "b", "b"]
    sc = segment_curves(y, s, seg, ValueTable(tp=10, fp=-1, fn=-10, tn=1), grid=[0.0, 0.5, 1.0])
    # level b, N=2 negatives: t=0 acts on both → −1; t=0.5 acts on 0.7 → (−1 + 1)/2 = 0; t=1 → 1
    np.testing.assert_allclose(sc.ev[1], [-1.0, 0.0, 1.0])
    # level a: t=0 → (10 − 1)/2; t=0.5 → (10 + 1)/2; t=1 → (−10 + 1)/2
    np.testing.assert_allclose(sc.ev[0], [4.5, 5.5, -4.5])
    # each level's own optimum is exact, not read off the grid: level a, rows (1,.9) (0,.2), EV·2:
    # none −10 + 1 = −9; ≥.9 10 + 1 = 11; ≥.2 10 − 1 = 9 → (0.2, 0.9], midpoint 0.55;
    # level b (negatives only): acting on no one (EV 1) beats every threshold → +inf
    assert sc.t_opt[1] == np.inf and sc.t_opt[0] == pytest.approx(0.55)


# ---------------------------------------------------------------------------------------
# hypothesis properties


@settings(max_examples=80, deadline=None)
@given(
    binary_data(min_size=1),
    value_tables(confidence=False, prevalence=False),
    value_tables(confidence=False, prevalence=False),
    st.integers(-3, 3),
    st.integers(-3, 3),
)
def test_ev_is_linear_in_the_table(data, kw1, kw2, a, b):
    y, s, w = data
    assume(w is None or w.sum() > 0)
    combo = ValueTable(**{c: a * kw1[c] + b * kw2[c] for c in CELLS})
    e1 = value_curve(y, s, ValueTable(**kw1), sample_weight=w).ev
    e2 = value_curve(y, s, ValueTable(**kw2), sample_weight=w).ev
    e = value_curve(y, s, combo, sample_weight=w).ev
    np.testing.assert_allclose(e, a * e1 + b * e2, rtol=1e-9, atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(binary_data(min_size=1, kind="score"), value_tables(), st.sampled_from(sorted(INCREASING)))
def test_invariance_to_strictly_increasing_transforms(data, kw, name):
    y, s, w = data
    assume(w is None or w.sum() > 0)
    if "prevalence" in kw:
        assume(two_class(data))
    f = INCREASING[name]
    table = ValueTable(**kw)
    a = value_curve(y, s, table, sample_weight=w, score_kind="score")
    b = value_curve(y, f(s), table, sample_weight=w, score_kind="score")
    np.testing.assert_array_equal(b.thresholds[1:], f(a.thresholds[1:]))
    np.testing.assert_array_equal(a.ev, b.ev)
    assert a.policy == b.policy and a.ev_opt == b.ev_opt
    fmap = {np.inf: np.inf, -np.inf: -np.inf}
    for (lo_a, hi_a), (lo_b, hi_b) in zip(a.t_opt_intervals, b.t_opt_intervals, strict=True):
        assert lo_b == fmap.get(lo_a, f(lo_a)) and hi_b == fmap.get(hi_a, f(hi_a))
    # the midpoints differ, but act on the same rows
    assert b.ev_at(b.t_opt) == a.ev_at(a.t_opt) == a.ev_opt


@settings(max_examples=80, deadline=None)
@given(binary_data(min_size=2).filter(two_class), value_tables(prevalence=False))
def test_prevalence_equal_to_the_base_rate_changes_nothing(data, kw):
    y, s, w = data
    ww = np.ones(len(y)) if w is None else w
    p_hat = ww[y == 1].sum() / ww.sum()
    a = value_curve(y, s, ValueTable(**kw), sample_weight=w)
    b = value_curve(y, s, ValueTable(**kw, prevalence=p_hat), sample_weight=w)
    np.testing.assert_allclose(b.ev, a.ev, rtol=1e-12, atol=1e-9)
    assert b.weights == pytest.approx((1.0, 1.0))


@settings(max_examples=60, deadline=None)
@given(binary_data(min_size=1), value_tables(confidence=False))
def test_confidence_one_changes_nothing(data, kw):
    y, s, w = data
    a = value_curve(y, s, ValueTable(**kw), sample_weight=w)
    b = value_curve(y, s, ValueTable(**kw, confidence={c: 1.0 for c in CELLS}), sample_weight=w)
    np.testing.assert_array_equal(a.ev, b.ev)


@settings(max_examples=80, deadline=None)
@given(binary_data(min_size=1), value_tables(), st.floats(-0.2, 1.2, allow_nan=False))
def test_attribution_terms_sum_to_ev(data, kw, t):
    y, s, w = data
    assume(w is None or w.sum() > 0)
    if "prevalence" in kw:
        assume(two_class(data))
    c = value_curve(y, s, ValueTable(**kw), sample_weight=w)
    a = c.attribution_at(t)
    assert sum(a.values()) == pytest.approx(c.ev_at(t), rel=1e-9, abs=1e-6)
    m = c.confusion_at(t)
    v = ValueTable(**kw).effective()
    assert a["tp"] == pytest.approx(v["tp"] * m.tp / c.n_weighted, rel=1e-12, abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(binary_data(min_size=1), value_tables(), st.sampled_from(["probability", "score"]), st.sampled_from([0.0, 0.01, 0.1]))
def test_price_curve_on_counts_equals_value_curve_on_rows(data, kw, kind, flat_tol):
    y, s, w = data
    table = ValueTable(**kw)
    a = value_curve(y, s, table, sample_weight=w, score_kind=kind, flat_tol=flat_tol)
    b = price_curve(score_counts(y, s, sample_weight=w), table, score_kind=kind, flat_tol=flat_tol)
    for f in ("thresholds", "ev", "tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert a.to_dict() == b.to_dict()


@settings(max_examples=80, deadline=None)
@given(binary_data(min_size=1), value_tables())
def test_optimum_equals_brute_force_property(data, kw):
    y, s, w = data
    assume(w is None or w.sum() > 0)
    if "prevalence" in kw:
        assume(two_class(data))
    table = ValueTable(**kw)
    c = value_curve(y, s, table, sample_weight=w)
    ww = np.ones(len(y)) if w is None else w
    ys, ss = y[ww > 0], s[ww > 0]
    wk = ww[ww > 0]
    candidates, evs = brute_force_optimum(ys, ss, wk, table)
    tol = 1e-9 * max(1.0, *(abs(x) for x in table.effective().values()))
    assert c.ev_opt == pytest.approx(evs.max(), rel=1e-9, abs=tol)
    winners = [t for t, e in zip(candidates, evs) if e >= evs.max() - 10 * tol]
    # the primary interval holds the highest maximising threshold
    assert c.t_opt_interval[0] < winners[0] <= c.t_opt_interval[1]
    assert c.ev_at(c.t_opt) == pytest.approx(c.ev_opt, rel=1e-9, abs=tol)
    lo, hi = c.flatness
    assert lo <= min(hi, c.t_opt) or c.policy == "act_on_no_one"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.one_of(binary_data(min_size=1), binary_data(min_size=1, kind="score"), binary_data(min_size=1, kind="extreme")),
    value_tables(),
)
@example((np.array([0, 1], np.int8), np.array([0.0, 5e-324]), None), dict(tp=10.0, fp=-2.0, fn=-10.0, tn=0.0))
@example(
    (np.array([0, 1, 1], np.int8), np.array([0.0, 5e-324, 0.3]), np.array([1.0, 1.0, 0.0])), dict(tp=0.0, fp=0.0, fn=-1.0, tn=1.0)
)
def test_t_opt_reproduces_ev_opt_property(data, kw):
    """Whatever the data (subnormal or neighbouring scores, ties, zero weights), acting at
    the reported threshold (score >= t_opt) earns exactly the reported optimum."""
    y, s, w = data
    assume(w is None or w.sum() > 0)
    if "prevalence" in kw:
        assume(two_class(data))
    c = value_curve(y, s, ValueTable(**kw), sample_weight=w, score_kind="score")
    assert c.ev_at(c.t_opt) == c.ev_opt
    low, high = c.t_opt_interval
    assert low < c.t_opt <= high or (c.policy == "act_on_everyone" and c.t_opt == c.thresholds[-1])


@settings(max_examples=120, deadline=None)
@given(binary_data(min_size=2).filter(two_class))
def test_auc_from_counts_equals_sklearn(data):
    y, s, w = data
    assert auc_from_counts(score_counts(y, s, sample_weight=w)) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12, abs=1e-12
    )


def test_auc_undefined_with_one_class():
    assert math.isnan(auc_from_counts(score_counts([1, 1], [0.2, 0.4])))
    assert math.isnan(auc_from_counts(score_counts([], [])))


@settings(max_examples=40, deadline=None)
@given(binary_data(min_size=1, max_size=30), value_tables(), st.lists(st.sampled_from(["a", "b", "c"]), min_size=30, max_size=30))
def test_segment_curves_property(data, kw, seg):
    y, s, w = data
    seg = np.array(seg[: len(y)])
    ww = np.ones(len(y)) if w is None else w
    assume(ww.sum() > 0)
    if "prevalence" in kw:
        assume(two_class(data))
    table = ValueTable(**kw)
    rate = ww[y == 1].sum() / ww.sum()
    grid = np.linspace(-0.1, 1.1, 13)
    sc = segment_curves(y, s, seg, table, sample_weight=w, grid=grid)
    for i, level in enumerate(sc.levels):
        m = seg == level
        ref = price_curve(score_counts(y[m], s[m], sample_weight=ww[m]), table, base_rate=rate)
        np.testing.assert_array_equal(sc.curves[i].ev, ref.ev)
        np.testing.assert_array_equal(sc.ev[i], [ref.ev_at(t) for t in grid])


@settings(max_examples=80, deadline=None)
@given(binary_data(min_size=1, kind="score"), value_tables(), st.sampled_from([0.0, 0.01, 0.2]))
def test_flatness_and_sharpness_match_their_definitions(data, kw, flat_tol):
    y, s, w = data
    assume(w is None or w.sum() > 0)
    if "prevalence" in kw:
        assume(two_class(data))
    c = value_curve(y, s, ValueTable(**kw), sample_weight=w, score_kind="score", flat_tol=flat_tol)
    kept = np.unique(s if w is None else s[w > 0])
    lo_s, hi_s = kept[0], kept[-1]
    assert c.sharp_window == pytest.approx(0.02 * (hi_s - lo_s))
    tol = 1e-9 * max(1.0, *(abs(x) for x in ValueTable(**kw).effective().values()))
    if not math.isnan(c.sharpness):
        # EV is constant on (s_next, s]: its values on [centre − w, centre + w] are those at the
        # two ends and at every score inside
        centre = hi_s if c.t_opt == np.inf else c.t_opt
        lo, hi = centre - c.sharp_window, centre + c.sharp_window
        probes = [lo, hi, *[x for x in kept if lo <= x <= hi]]
        expected = max(abs(c.ev_at(t) - c.ev_opt) for t in probes) / abs(c.ev_opt)
        assert c.sharpness == pytest.approx(expected, rel=1e-9, abs=1e-9)
    # flatness: every score in (low, high] is within the band, and the band cannot be widened
    f_lo, f_hi = c.flatness
    band = c.ev_opt - flat_tol * abs(c.ev_opt) - tol
    inside = [x for x in kept if f_lo < x <= f_hi]
    assert all(c.ev_at(x) >= band for x in inside)
    assert f_lo <= c.t_opt_interval[1] and (c.t_opt_interval[0] <= f_hi or c.policy in ("act_on_no_one", "any_threshold"))
    below = kept[kept <= f_lo]
    if len(below) and f_lo > lo_s:
        assert c.ev_at(below[-1]) < band  # the next score down leaves the band
    above = kept[kept > f_hi]
    if len(above):
        assert c.ev_at(above[0]) < band
