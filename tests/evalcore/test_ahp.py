"""AHP weights, consistency and amounts: a published example, hand-derived cases, validation."""

import json

import numpy as np
import pytest

from evalcore import InputError
from evalcore.ahp import CR_LIMIT, RANDOM_INDEX, SAATY_SCALE, ahp_amounts, ahp_weights, pairwise_matrix


def power_iteration(a, n_iter=500):
    """Independent oracle: the Perron vector by repeated multiplication (no eigendecomposition);
    λmax = mean over i of (A w)_i / w_i, which equals λmax exactly at the fixed point."""
    a = np.asarray(a, dtype=float)
    w = np.full(len(a), 1.0 / len(a))
    for _ in range(n_iter):
        w = a @ w
        w /= w.sum()
    return w, float(np.mean((a @ w) / w))


# Wikipedia, "Analytic hierarchy process – leader example" (criteria with respect to the goal),
# the most widely reproduced AHP worked example. Criteria: Experience, Education, Charisma, Age.
# Published priorities .547, .127, .270, .056 and consistency ratio 0.044 (RI(4) = 0.90).
LEADER = [[1, 4, 3, 7], [1 / 4, 1, 1 / 3, 3], [1 / 3, 3, 1, 5], [1 / 7, 1 / 3, 1 / 5, 1]]
LEADER_ITEMS = ["Experience", "Education", "Charisma", "Age"]


def test_published_leader_example_weights_and_cr():
    r = ahp_weights(LEADER, items=LEADER_ITEMS)
    # published to 3 decimals, truncated (0.5476 is printed .547), so within 1e-3
    assert r.weights == pytest.approx([0.547, 0.127, 0.270, 0.056], abs=1e-3)
    assert r.cr == pytest.approx(0.044, abs=1e-3)
    assert not r.inconsistent
    # independent: power iteration gives the same vector and λmax, hence CI and CR
    w, lam = power_iteration(LEADER)
    np.testing.assert_allclose(r.weights, w, rtol=0, atol=1e-12)
    assert r.lambda_max == pytest.approx(lam, abs=1e-10)
    assert r.ci == pytest.approx((lam - 4) / 3, abs=1e-10)
    assert r.cr == pytest.approx((lam - 4) / 3 / 0.90, abs=1e-10)
    assert r.ri == 0.90 and r.items == tuple(LEADER_ITEMS)
    assert (r.weights > 0).all() and r.weights.sum() == pytest.approx(1.0, abs=1e-15)


def test_leader_example_from_upper_triangle_judgements():
    # the same matrix entered the way the page does: one judgement per pair, reciprocals implied;
    # one pair given the other way round ("Age vs Charisma: Charisma 5× more" = 1/5 for (Age, Charisma))
    j = {
        ("Experience", "Education"): 4,
        ("Experience", "Charisma"): 3,
        ("Experience", "Age"): 7,
        ("Charisma", "Education"): 3,
        ("Education", "Age"): 3,
        ("Age", "Charisma"): 1 / 5,
    }
    np.testing.assert_allclose(pairwise_matrix(j, LEADER_ITEMS), LEADER, rtol=1e-15)


def test_consistent_matrix_returns_its_weights_and_cr_zero():
    # a_ij = w_i / w_j is consistent: A w = n w exactly, so λmax = n, CI = CR = 0
    w = np.array([0.4, 0.3, 0.2, 0.1])
    r = ahp_weights(w[:, None] / w[None, :], items=["TP", "FP", "FN", "TN"])
    np.testing.assert_allclose(r.weights, w, atol=1e-12)
    assert r.lambda_max == pytest.approx(4.0, abs=1e-12) and r.ci == pytest.approx(0.0, abs=1e-12)
    assert r.cr == pytest.approx(0.0, abs=1e-12) and not r.inconsistent and r.worst_pair is None


def test_cyclic_judgements_are_flagged_with_hand_computed_cr():
    # A ≻ B (9), B ≻ C (9), C ≻ A (9): every row holds 1, 9 and 1/9, so the all-equal vector is the
    # Perron vector with λmax = 1 + 9 + 1/9 = 91/9; CI = (91/9 − 3)/2 = 32/9; CR = (32/9)/0.58 ≈ 6.13
    a = [[1, 9, 1 / 9], [1 / 9, 1, 9], [9, 1 / 9, 1]]
    r = ahp_weights(a, items=["A", "B", "C"])
    np.testing.assert_allclose(r.weights, [1 / 3] * 3, atol=1e-12)
    assert r.lambda_max == pytest.approx(91 / 9, rel=1e-12)
    assert r.ci == pytest.approx(32 / 9, rel=1e-12)
    assert r.cr == pytest.approx(32 / 9 / 0.58, rel=1e-12)
    assert r.inconsistent and r.cr > CR_LIMIT
    # every judgement is off by a factor 9 from the implied 1: the first pair is reported
    assert r.worst_pair == ("A", "B") and r.worst_pair_implied == pytest.approx(1.0)


def test_contradictory_4x4_is_flagged_and_agrees_with_power_iteration():
    # TP/FP/FN/TN: FN ≻ TP (3), FN ≻ FP (5), TP ≻ FP (2) and TN judged above FN (1/2 for FN vs TN)
    # although TN ranks below TP and FP: a contradiction, so CR must exceed 0.1
    items = ["TP", "FP", "FN", "TN"]
    j = {("TP", "FP"): 2, ("TP", "FN"): 1 / 3, ("TP", "TN"): 7, ("FP", "FN"): 1 / 5, ("FP", "TN"): 5, ("FN", "TN"): 1 / 2}
    a = pairwise_matrix(j, items)
    r = ahp_weights(a, items=items)
    w, lam = power_iteration(a)
    np.testing.assert_allclose(r.weights, w, atol=1e-12)
    cr = (lam - 4) / 3 / 0.90
    assert r.cr == pytest.approx(cr, abs=1e-10) and cr > 0.1 and r.inconsistent
    assert r.worst_pair == ("FN", "TN")  # the contradictory answer
    assert r.worst_pair_implied == pytest.approx(w[2] / w[3])


def test_two_items_are_consistent_by_construction():
    # [[1, 4], [1/4, 1]]: (1, 1/4)·... → w = (4/5, 1/5) by hand, λmax = 2
    r = ahp_weights([[1, 4], [1 / 4, 1]], items=["FN", "FP"])
    np.testing.assert_allclose(r.weights, [0.8, 0.2], atol=1e-12)
    assert r.lambda_max == pytest.approx(2.0) and r.ci == 0.0 and r.cr == 0.0 and not r.inconsistent
    assert "2 items" in r.notes["cr"] and "0/0" in r.notes["cr"]


def test_more_than_ten_items_cr_undefined_with_reason():
    r = ahp_weights(np.ones((11, 11)))
    np.testing.assert_allclose(r.weights, np.full(11, 1 / 11))
    assert np.isnan(r.cr) and np.isnan(r.ri) and not r.inconsistent
    assert "n ≤ 10" in r.notes["cr"]
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["cr"] is None and d["items"][0] == "item 1" and d["notes"]["cr"] == r.notes["cr"]


def test_random_index_table_and_scale():
    assert [RANDOM_INDEX[n] for n in range(1, 11)] == [0, 0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49]
    assert len(SAATY_SCALE) == 17 and SAATY_SCALE[0] == 9 and SAATY_SCALE[8] == 1 and SAATY_SCALE[-1] == pytest.approx(1 / 9)


def test_weights_follow_a_permutation_of_the_items():
    a = np.asarray(LEADER)
    perm = [2, 0, 3, 1]
    r, rp = ahp_weights(a), ahp_weights(a[np.ix_(perm, perm)])
    np.testing.assert_allclose(rp.weights, r.weights[perm], atol=1e-12)
    assert rp.cr == pytest.approx(r.cr, abs=1e-12)


def test_to_dict_is_json_safe():
    d = json.loads(json.dumps(ahp_weights(LEADER, items=LEADER_ITEMS).to_dict(), allow_nan=False))
    assert d["weights"]["Experience"] == pytest.approx(0.547, abs=1e-3) and d["cr_limit"] == 0.1


# --- validation: every problem at once ----------------------------------------------------------


def test_matrix_problems_are_listed_together():
    bad = [[1, 2, -1], [0.5, 2, 3], [1, 1 / 3, 1]]  # a_22 = 2 and a_13 < 0; 2 names for 3 rows
    with pytest.raises(InputError) as e:
        ahp_weights(bad, items=["a", "b"])
    codes = {p.code for p in e.value.problems}
    assert {"matrix_diagonal", "matrix_not_positive", "items_length"} <= codes
    with pytest.raises(InputError, match=r"matrix must be reciprocal \(a_ji = 1/a_ij\); 1 pair\(s\) are not: \(1,2\)"):
        ahp_weights([[1, 3], [1 / 2, 1]])
    with pytest.raises(InputError, match=r"matrix must be square \(n×n\); got shape \(2, 3\)"):
        ahp_weights([[1, 2, 3], [1, 2, 3]])
    with pytest.raises(InputError, match=r"at least 2 items; got a 1×1 matrix"):
        ahp_weights([[1]])
    with pytest.raises(InputError, match=r"outside Saaty's scale 1/9 … 9 \(e.g. \[12.0"):
        ahp_weights([[1, 12], [1 / 12, 1]])
    with pytest.raises(InputError, match=r"finite; 2 entries are NaN or infinite"):
        ahp_weights([[1, np.nan], [np.inf, 1]])


def test_judgement_problems_are_listed_together():
    items = ["TP", "FP", "FN"]
    j = {("TP", "FP"): 3, ("FP", "TP"): 2, ("TP", "XX"): 2, ("FP", "FN"): 15, ("TP", "TP"): 1, "TP-FN": 3}
    with pytest.raises(InputError) as e:
        pairwise_matrix(j, items)
    msgs = {p.code: p.message for p in e.value.problems}
    assert set(msgs) == {
        "judgement_twice",
        "judgement_unknown_item",
        "judgement_off_scale",
        "judgement_self",
        "judgement_key_invalid",
        "judgement_missing",
    }
    assert (
        msgs["judgement_off_scale"]
        == "judgement FP vs FN must be on Saaty's scale 1/9 … 9; it is outside Saaty's scale 1/9 … 9 (15)."
    )
    assert msgs["judgement_missing"] == "2 pair(s) are not judged: TP/FN, FP/FN."
    with pytest.raises(InputError, match="items must be distinct; repeated: \\['TP'\\]"):
        pairwise_matrix({}, ["TP", "TP"])
    with pytest.raises(InputError, match="not a positive finite number"):
        pairwise_matrix({("a", "b"): 0}, ["a", "b"])


# --- amounts ------------------------------------------------------------------------------------

TWO_ITEMS = ahp_weights([[1, 4], [1 / 4, 1]], items=["FN", "TP"])  # w = (0.8, 0.2)


def test_amounts_by_scale_and_by_anchor():
    r = ahp_weights(
        np.array([0.4, 0.1, 0.4, 0.1])[:, None] / np.array([0.4, 0.1, 0.4, 0.1])[None, :], items=["TP", "FP", "FN", "TN"]
    )
    out = ahp_amounts(r, gains=["TP", "TN"], scale=10000)
    assert out == pytest.approx({"TP": 4000, "FP": -1000, "FN": -4000, "TN": 1000})
    # anchor FN = −22,000: scale = 22000 / 0.4 = 55,000 per unit weight
    out = ahp_amounts(r, gains=["TP", "TN"], anchor=("FN", -22000))
    assert out["FN"] == -22000.0
    assert out == pytest.approx({"TP": 22000, "FP": -5500, "FN": -22000, "TN": 5500})


def test_amount_problems():
    with pytest.raises(InputError, match=r"exactly one of scale .* got neither"):
        ahp_amounts(TWO_ITEMS, gains=["TP"])
    with pytest.raises(InputError, match=r"exactly one of scale .* got both"):
        ahp_amounts(TWO_ITEMS, gains=["TP"], scale=1, anchor=("FN", -1))
    with pytest.raises(InputError) as e:
        ahp_amounts(TWO_ITEMS, gains=["TP", "XX"], anchor=("FN", 22000))
    assert {p.code for p in e.value.problems} == {"gains_unknown_item", "anchor_sign"}
    assert "anchor FN = +22,000.00 contradicts its role: FN is marked as a cost." in str(e.value)
    with pytest.raises(InputError, match="scale must be a positive finite number"):
        ahp_amounts(TWO_ITEMS, gains=[], scale=-5)
    with pytest.raises(InputError, match="anchor amount must be a non-zero finite number; got 0"):
        ahp_amounts(TWO_ITEMS, gains=[], anchor=("FN", 0))
    with pytest.raises(InputError, match="anchor item 'FP' is not compared"):
        ahp_amounts(TWO_ITEMS, gains=[], anchor=("FP", -1))
