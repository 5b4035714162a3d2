"""Sensitivity of t_opt and of the model ranking to ±30% amounts, on data built so the answer is known."""

import json
import math

import numpy as np
import pytest

from evalcore import InputError, ValueTable
from evalcore.counts import score_counts
from evalcore.sensitivity import value_sensitivity


def clusters(pos: dict, neg: dict):
    """Counts from {score: number of rows} of positives and negatives."""
    y = [1] * sum(pos.values()) + [0] * sum(neg.values())
    s = [k for k, v in pos.items() for _ in range(v)] + [k for k, v in neg.items() for _ in range(v)]
    return score_counts(y, s)


def calibrated_grid():
    """Scores 0.01 … 0.99; at each score s a positive of weight s and a negative of weight 1 − s,
    so P(positive | s) = s exactly: a perfectly calibrated model with dense scores."""
    s = np.round(np.arange(1, 100) / 100, 2)
    return score_counts(np.r_[np.ones(99), np.zeros(99)], np.r_[s, s], sample_weight=np.r_[s, 1 - s])


# --- flat optimum: robust by construction --------------------------------------------------------


def test_flat_plateau_is_robust():
    # Positives only at 0.9 and 0.8, negatives only at 0.2 and 0.1: acting on exactly the positives
    # is best for ANY table with TP > FN and TN > FP (each positive acted on gains TP − FN, each
    # negative not acted on saves TN − FP), and ±30% multipliers keep those signs. So EV is maximal
    # and flat on the whole gap (0.2, 0.8], t_opt is its midpoint 0.5 in every perturbed table:
    # max |Δt_opt| = 0 exactly.
    c = {"m": clusters({0.9: 3, 0.8: 2}, {0.2: 10, 0.1: 5})}
    t = ValueTable(tp=100, fp=-20, fn=-50, tn=4)
    s = value_sensitivity(c, t, n_random=200, rng=1)
    assert s.base_t_opt.tolist() == [0.5]
    assert s.max_t_shift.tolist() == [0.0] and s.t_opt_holds.tolist() == [True]
    assert np.all(s.oat_t_opt == 0.5) and np.all(s.draw_t_opt == 0.5)
    assert s.robust and s.ranking_holds and s.n_ranking_changes == 0
    assert s.reasons[0] == "The optimal threshold of m moved at most 0.000 (limit 0.050; base 0.500)."
    assert s.reasons[1] == "Only one model: the ranking holds trivially."
    # EV at the optimum by hand: (100·5 + 4·15)/20 = 28; TP +30%: (130·5 + 4·15)/20 = 35.5;
    # TN −30%: (100·5 + 2.8·15)/20 = 27.1
    assert s.base_ev_opt[0] == pytest.approx(28.0)
    assert s.oat_ev_opt[0, 0, 1] == pytest.approx(35.5) and s.oat_ev_opt[0, 3, 0] == pytest.approx(27.1)


def test_flat_plateau_in_raw_score_units():
    # the same clusters on a 0–100 scale (scores 90, 80, 20, 10): the limit is 0.05 × (90 − 10) = 4
    c = {"m": clusters({90: 3, 80: 2}, {20: 10, 10: 5})}
    s = value_sensitivity(c, ValueTable(tp=100, fp=-20, fn=-50, tn=4), score_kinds="score", n_random=10)
    assert s.t_tol.tolist() == [4.0] and s.base_t_opt.tolist() == [50.0] and s.robust
    assert "score units" in s.reasons[0] and "5% of its score range" in s.reasons[0]
    assert "score range" in s.notes["t_tol"]


# --- sharp optimum: not robust by construction ---------------------------------------------------


def test_sharp_calibrated_curve_is_not_robust():
    # On a calibrated model with dense scores, acting on score s gains s·Δp − (1 − s)·Δn with
    # Δp = TP − FN and Δn = TN − FP, so the optimum sits on the Bayes threshold t* = Δn / (Δn + Δp):
    # a single grid step, and it moves with every amount. With TP = 1, FP = −1, FN = TN = 0:
    #   base      t* = 1/2           → act on s ≥ 0.50 and 0.51 alike (the 0.50 term is 0): t_opt 0.50
    #   TP −30%   t* = 1/1.7 = 0.588 → act on s ≥ 0.59: interval (0.58, 0.59], t_opt 0.585
    #   TP +30%   t* = 1/2.3 = 0.435 → s ≥ 0.44: t_opt 0.435
    #   FP −30%   t* = 0.7/1.7 = 0.412 → s ≥ 0.42: t_opt 0.415
    #   FP +30%   t* = 1.3/2.3 = 0.565 → s ≥ 0.57: t_opt 0.565
    # FN and TN are 0 and stay 0. The largest move is 0.085 > 0.05: not robust.
    s = value_sensitivity({"cal": calibrated_grid()}, ValueTable(tp=1, fp=-1, fn=0, tn=0), n_random=200, rng=0)
    assert s.base_t_opt[0] == pytest.approx(0.50)
    np.testing.assert_allclose(s.oat_t_opt[0], [[0.585, 0.435], [0.415, 0.565], [0.5, 0.5], [0.5, 0.5]], atol=1e-12)
    assert np.max(np.abs(s.oat_t_opt[0] - 0.5)) == pytest.approx(0.085, abs=1e-12)
    assert not s.t_opt_holds[0] and not s.robust
    assert s.notes["zero_amounts"] == "FN, TN is 0: a relative change of ±30% leaves it at 0"
    # every joint draw, against the same closed form: with multipliers (f_tp, f_fp, ·, ·),
    # t* = f_fp / (f_tp + f_fp); act on the grid scores above t*: t_opt = ceil(100 t*)/100 − 0.005
    f = s.draw_factors
    t_star = f[:, 1] / (f[:, 0] + f[:, 1])
    np.testing.assert_allclose(s.draw_t_opt[0], np.ceil(100 * t_star) / 100 - 0.005, atol=1e-12)
    # jointly the moves add up (TP −30% with FP +30%: t* = 1.3/2 = 0.65), so the largest is a draw's
    worst = int(np.argmax(np.abs(s.draw_t_opt[0] - 0.5)))
    assert s.max_t_shift[0] == pytest.approx(abs(s.draw_t_opt[0, worst] - 0.5), abs=1e-12)
    assert s.max_t_shift[0] > 0.085
    assert s.max_t_shift_at[0] == f"random draw {worst + 1}"
    assert s.reasons[0] == (
        f"The optimal threshold of cal moved by up to {s.max_t_shift[0]:.3f} (limit 0.050; base 0.500, "
        f"at random draw {worst + 1})."
    )


def test_optimum_jumping_to_act_on_no_one_is_an_infinite_move():
    # one score, one positive and one negative: acting on both is worth (1 − 0.9)/2 = 0.05 > 0 = not acting,
    # so t_opt = 0.5 (the lowest score); with TP −30% ((0.7 − 0.9)/2 < 0) or FP +30% ((1 − 1.17)/2 < 0)
    # acting loses: act on no one, t_opt = +inf. TP −30% comes first in the order tp, fp, fn, tn.
    s = value_sensitivity({"m": clusters({0.5: 1}, {0.5: 1})}, ValueTable(tp=1, fp=-0.9, fn=0, tn=0), n_random=0)
    assert s.base_t_opt[0] == 0.5 and s.oat_t_opt[0, 0, 0] == math.inf and s.oat_t_opt[0, 1, 1] == math.inf
    assert s.oat_t_opt[0, 0, 1] == 0.5 and s.oat_t_opt[0, 1, 0] == 0.5
    assert s.max_t_shift[0] == math.inf and s.max_t_shift_at[0] == "TP −30%" and not s.robust
    assert "moved by up to ∞ (act on no one)" in s.reasons[0]
    assert json.loads(json.dumps(s.to_dict(), allow_nan=False))["max_t_shift"]["m"] is None


# --- the ranking ---------------------------------------------------------------------------------

# Two models, 10 positives and 90 negatives; both act on their 0.9 cluster at the optimum:
#   A: 9 positives and 10 negatives at 0.9 → TP 9, FP 10, FN 1, TN 80
#   B: 6 positives and  2 negatives at 0.9 → TP 6, FP 2,  FN 4, TN 88
# EV_A − EV_B = (3·TP + 8·FP − 3·FN)/100 (TN drops out: 80 vs 88 TN rows, but TN = 0 below).
A = clusters({0.9: 9, 0.1: 1}, {0.9: 10, 0.1: 80})
B = clusters({0.9: 6, 0.1: 4}, {0.9: 2, 0.1: 88})


def test_ranking_flip_is_detected():
    # TP 10, FP −7, FN −10, TN 0: EV_A = (90 − 70 − 10)/100 = 0.10 > EV_B = (60 − 14 − 40)/100 = 0.06.
    # One at a time, 3·TP + 8·FP − 3·FN = 30 − 56 + 30 = 4 turns negative for
    #   TP −30% (21 − 56 + 30 = −5), FP +30% (30 − 72.8 + 30 = −12.8), FN −30% (30 − 56 + 21 = −5),
    # and stays positive for TP +30%, FP −30%, FN +30% and both TN changes (TN = 0).
    # Both optima stay at the 0.9 cluster (t_opt 0.5), so only the ranking breaks robustness.
    s = value_sensitivity({"A": A, "B": B}, ValueTable(tp=10, fp=-7, fn=-10, tn=0), n_random=200, rng=3)
    assert s.base_ev_opt == pytest.approx([0.10, 0.06]) and s.ranking == ("A", "B")
    assert s.oat_ranking_holds.tolist() == [[False, True], [True, False], [False, True], [True, True]]
    assert s.oat_ev_opt[:, 1, 1] == pytest.approx([-0.11, 0.018])  # FP +30%: (90 − 91 − 10)/100, (60 − 18.2 − 40)/100
    assert s.t_opt_holds.tolist() == [True, True] and not s.ranking_holds and not s.robust
    # the draws: the ranking breaks exactly where 3·TP + 8·FP − 3·FN < 0 with the drawn amounts
    f = s.draw_factors
    diff = 3 * 10 * f[:, 0] - 8 * 7 * f[:, 1] + 3 * 10 * f[:, 2]
    np.testing.assert_array_equal(s.draw_ranking_holds, diff >= 0)
    assert s.n_ranking_changes == 3 + int((diff < 0).sum()) and s.first_ranking_change == "TP −30%"
    assert s.reasons[-1] == (
        f"The ranking A > B (by EV at each model's optimum) changed in {s.n_ranking_changes} of 208 "
        "perturbations (first at TP −30%)."
    )


def test_ranking_that_holds_in_the_whole_box_is_robust():
    # FP −3: 3·TP + 8·FP − 3·FN is linear, so its minimum over the ±30% box is at a corner:
    # 3·7 − 8·3.9 + 3·7 = 10.8 > 0 → A stays ahead in every perturbation
    s = value_sensitivity({"A": A, "B": B}, ValueTable(tp=10, fp=-3, fn=-10, tn=0), n_random=200, rng=3)
    assert s.ranking_holds and s.draw_ranking_holds.all() and s.oat_ranking_holds.all() and s.robust
    assert s.reasons[-1] == "The ranking A > B (by EV at each model's optimum) held in all 208 perturbations."


def test_deployed_ev_is_reported_but_not_judged():
    # deployed at 0.95 (above every score): act on no one, EV = (FN·10 + TN·90)/100 = −1;
    # FN +30%: −13·10/100 = −1.3
    s = value_sensitivity({"A": A}, ValueTable(tp=10, fp=-3, fn=-10, tn=0), deployed={"A": 0.95}, n_random=5)
    assert s.base_ev_deployed[0] == pytest.approx(-1.0) and s.oat_ev_deployed[0, 2, 1] == pytest.approx(-1.3)
    row = next(r for r in s.rows() if r["perturbation"] == "FN +30%")
    assert row["EV at deployed"] == pytest.approx(-1.3) and row["amount"] == pytest.approx(-13.0)
    assert s.robust


def test_hard_decisions_have_no_threshold_but_enter_the_ranking():
    dec = clusters({1: 9, 0: 1}, {1: 10, 0: 80})  # the decisions of model A above
    s = value_sensitivity(
        {"A": dec, "B": B}, ValueTable(tp=10, fp=-7, fn=-10, tn=0), n_random=0, score_kinds={"A": "decision", "B": "probability"}
    )
    assert np.isnan(s.base_t_opt[0]) and s.base_ev_opt[0] == pytest.approx(0.10)  # its operating point
    assert s.t_opt_holds[0] and "hard 0/1 decision" in s.reasons[0]
    assert not s.ranking_holds  # the same flips as with the scores


# --- reproducibility and validation --------------------------------------------------------------


def test_draws_are_reproducible_with_a_seed():
    c, t = {"cal": calibrated_grid()}, ValueTable(tp=1, fp=-1, fn=-0.2, tn=0.1)
    a, b = value_sensitivity(c, t, n_random=50, rng=7), value_sensitivity(c, t, n_random=50, rng=7)
    np.testing.assert_array_equal(a.draw_factors, b.draw_factors)
    np.testing.assert_array_equal(a.draw_t_opt, b.draw_t_opt)
    assert a.seed == 7 and a.to_dict() == b.to_dict()
    other = value_sensitivity(c, t, n_random=50, rng=8)
    assert not np.array_equal(other.draw_factors, a.draw_factors)
    assert a.draw_factors.shape == (50, 4) and a.draw_factors.min() >= 0.7 and a.draw_factors.max() <= 1.3


def test_every_problem_is_listed():
    with pytest.raises(InputError) as e:
        value_sensitivity(
            {"a": "x"},
            None,
            score_kinds={"b": "prob"},
            deployed={"b": float("nan")},
            perturbation=1.5,
            n_random=-1,
            t_tol=0,
            rng=-3,
        )
    codes = {p.code for p in e.value.problems}
    assert codes == {
        "counts_type",
        "table_type",
        "score_kinds_missing",
        "deployed_unknown_model",
        "deployed_not_finite",
        "perturbation_invalid",
        "n_random_invalid",
        "t_tol_invalid",
        "rng_invalid",
    }
    with pytest.raises(InputError, match="at least one model"):
        value_sensitivity({}, ValueTable(tp=1, fp=-1, fn=-1, tn=1))
    # a kind that does not fit the scores is reported per model (by price_curve)
    with pytest.raises(InputError, match=r"model 'raw': y_score was declared as probability"):
        value_sensitivity({"raw": clusters({90: 1}, {10: 1})}, ValueTable(tp=1, fp=-1, fn=-1, tn=1))


def test_to_dict_is_json_safe_and_complete():
    s = value_sensitivity({"A": A, "B": B}, ValueTable(tp=10, fp=-7, fn=-10, tn=0), deployed={"A": 0.5}, n_random=4)
    d = json.loads(json.dumps(s.to_dict(), allow_nan=False))
    assert d["robust"] is False and d["ranking"] == ["A", "B"] and len(d["one_at_a_time"]) == 16
    assert d["base"]["B"]["ev_deployed"] is None and len(d["draws"]["factors"]) == 4
