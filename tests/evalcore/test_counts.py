"""Tests of the counts primitive (evalcore.counts): toy cases by hand, every error message,
scikit-learn as the reference on real out-of-fold predictions, and hypothesis properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    confusion_matrix,
    confusion_matrix_at_thresholds,
    f1_score,
    precision_score,
    recall_score,
    roc_curve,
)
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from strategies import INCREASING, binary_data  # tests/evalcore is on sys.path (rootdir import mode)

from evalcore import InputError
from evalcore.counts import (
    ScoreCounts,
    confusion_at,
    confusion_from_counts,
    cumulate,
    metrics_from_cells,
    score_counts,
    threshold_counts,
)

# ---------------------------------------------------------------------------------------
# reference data: out-of-fold probabilities on load_breast_cancer


@pytest.fixture(scope="module")
def oof():
    """Out-of-fold P(y=1) of a scaled logistic regression, plus two weightings."""
    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    p = cross_val_predict(model, X, y, cv=cv, method="predict_proba")[:, 1]
    rng = np.random.default_rng(0)
    return {
        "y": y,
        "p": p,
        "w_real": rng.uniform(0.1, 3.0, len(y)),
        "w_int": rng.integers(0, 4, len(y)).astype(float),  # includes zero weights
    }


def _sklearn_cells(y, s, t, w=None):
    tn, fp, fn, tp = confusion_matrix(y, (s >= t).astype(int), labels=[0, 1], sample_weight=w).ravel()
    return tp, fp, fn, tn


# ---------------------------------------------------------------------------------------
# toy cases, by hand


def test_ties_grouped_and_cumulated():
    # scores 0.9 (pos) | 0.5 (pos, pos, neg) | 0.2 (neg)
    c = score_counts([0, 1, 1, 0, 1], [0.2, 0.5, 0.5, 0.5, 0.9])
    assert c.scores.tolist() == [0.9, 0.5, 0.2]
    assert c.pos.tolist() == [1, 2, 0] and c.neg.tolist() == [0, 1, 1]
    assert c.pos_rows.tolist() == [1, 2, 0] and c.neg_rows.tolist() == [0, 1, 1]
    assert c.score_sum.tolist() == pytest.approx([0.9, 1.5, 0.2])
    assert (c.n, c.n_pos, c.n_neg, c.n_rows) == (5, 3, 2, 5)
    t = threshold_counts([0, 1, 1, 0, 1], [0.2, 0.5, 0.5, 0.5, 0.9])
    # t=0.9: 1 pos acted; t=0.5: 3 pos + 1 neg; t=0.2: everyone
    assert t.thresholds.tolist() == [0.9, 0.5, 0.2]
    assert t.tp.tolist() == [1, 3, 3]
    assert t.fp.tolist() == [0, 1, 2]
    assert t.fn.tolist() == [2, 0, 0]
    assert t.tn.tolist() == [2, 1, 0]
    assert (t.n, t.n_pos, t.n_neg, t.resolution) == (5, 3, 2, None)


def test_all_equal_scores_give_one_threshold():
    t = threshold_counts([0, 1, 0], [0.5, 0.5, 0.5])
    assert t.thresholds.tolist() == [0.5]
    assert (t.tp.tolist(), t.fp.tolist(), t.fn.tolist(), t.tn.tolist()) == ([1], [2], [0], [0])


def test_one_class_counts_and_undefined_metrics():
    t = threshold_counts([1, 1], [0.3, 0.7])
    assert t.tp.tolist() == [1, 2] and t.fp.tolist() == [0, 0] and t.tn.tolist() == [0, 0]
    assert (t.n_pos, t.n_neg) == (2, 0)
    c = confusion_at([1, 1], [0.3, 0.7], 0.5)
    assert (c.tp, c.fp, c.fn, c.tn) == (1, 0, 1, 0)
    assert c.recall == 0.5 and c.precision == 1.0
    assert math.isnan(c.fpr) and math.isnan(c.specificity)
    assert c.undefined == {"fpr": "no negative cases", "specificity": "no negative cases"}
    d = c.to_dict()
    assert d["fpr"] is None and d["specificity"] is None and d["recall"] == 0.5


def test_one_row():
    t = threshold_counts([1], [0.3])
    assert (t.thresholds.tolist(), t.tp.tolist(), t.fn.tolist(), t.fp.tolist()) == ([0.3], [1], [0], [0])


def test_empty_input_gives_empty_counts_and_undefined_metrics():
    c = score_counts([], [])
    assert len(c.scores) == 0 and (c.n, c.n_pos, c.n_rows) == (0, 0, 0)
    t = threshold_counts([], [])
    assert len(t.thresholds) == 0 and (t.n, t.n_pos, t.n_neg) == (0, 0, 0)
    m = confusion_at([], [], 0.5)
    for name in ("accuracy", "precision", "recall", "fpr", "specificity", "f1", "positive_rate"):
        assert math.isnan(getattr(m, name)), name
    assert set(m.undefined) == {"accuracy", "precision", "recall", "fpr", "specificity", "f1", "positive_rate"}


def test_zero_weights_drop_rows():
    c = score_counts([1, 0, 1], [0.9, 0.8, 0.1], sample_weight=[1, 0, 2])
    # the weight-0 row at 0.8 is no row: 0.8 is not a threshold, and not counted
    assert c.scores.tolist() == [0.9, 0.1]
    assert c.pos.tolist() == [1, 2] and c.neg.tolist() == [0, 0]
    assert c.pos_rows.tolist() == [1, 1] and c.n_rows == 2
    everything_zero = score_counts([1, 0], [0.9, 0.8], sample_weight=[0, 0])
    assert len(everything_zero.scores) == 0 and everything_zero.n == 0


def test_weighted_counts_by_hand():
    # rows (y, s, w): (1, .9, 2) (0, .9, .5) (0, .4, 3) (1, .2, 1.5)
    t = threshold_counts([1, 0, 0, 1], [0.9, 0.9, 0.4, 0.2], sample_weight=[2, 0.5, 3, 1.5])
    assert t.thresholds.tolist() == [0.9, 0.4, 0.2]
    assert t.tp.tolist() == [2, 2, 3.5]
    assert t.fp.tolist() == [0.5, 3.5, 3.5]
    assert t.fn.tolist() == [1.5, 1.5, 0]
    assert t.tn.tolist() == [3, 0, 0]
    assert (t.n, t.n_pos, t.n_neg) == (7, 3.5, 3.5)
    c = score_counts([1, 0, 0, 1], [0.9, 0.9, 0.4, 0.2], sample_weight=[2, 0.5, 3, 1.5])
    assert c.score_sum.tolist() == pytest.approx([0.9 * 2.5, 0.4 * 3, 0.2 * 1.5])


def test_boolean_labels_and_integer_scores():
    t = threshold_counts([True, False, True], [3, 1, 2])
    assert t.thresholds.tolist() == [3, 2, 1] and t.tp.tolist() == [1, 2, 2] and t.fp.tolist() == [0, 0, 1]


def test_threshold_counts_equal_confusion_matrices_at_every_threshold():
    # threshold_counts is cumulate(score_counts(...)): compared with itself it could not fail.
    # The reference is independent: by hand, and sklearn's confusion_matrix of score >= t.
    y, s = [0, 1, 1, 0, 1, 0], [0.1, 0.4, 0.4, 0.35, 0.8, 0.8]
    # distinct scores 0.8 (one 1, one 0), 0.4 (two 1), 0.35 (one 0), 0.1 (one 0); 3 positives, 3 negatives
    t = threshold_counts(y, s)
    assert t.thresholds.tolist() == [0.8, 0.4, 0.35, 0.1]
    assert t.tp.tolist() == [1, 3, 3, 3] and t.fp.tolist() == [1, 1, 2, 3]
    assert t.fn.tolist() == [2, 0, 0, 0] and t.tn.tolist() == [2, 2, 1, 0]
    for i, thr in enumerate(t.thresholds):
        tn, fp, fn, tp = confusion_matrix(y, (np.asarray(s) >= thr).astype(int), labels=[0, 1]).ravel()
        assert (t.tp[i], t.fp[i], t.fn[i], t.tn[i]) == (tp, fp, fn, tn)


def test_cumulate_of_counts_built_elsewhere_by_hand():
    # counts as a GROUP BY elsewhere would give them (not from score_counts): score 0.9 has
    # weight 2 positive, 0.5 negative; 0.4 has 3 negative; 0.2 has 1.5 positive
    c = ScoreCounts(
        scores=np.array([0.9, 0.4, 0.2]),
        pos=np.array([2.0, 0.0, 1.5]),
        neg=np.array([0.5, 3.0, 0.0]),
        pos_rows=np.array([1, 0, 1]),
        neg_rows=np.array([1, 1, 0]),
        score_sum=np.array([2.25, 1.2, 0.3]),
    )
    t = cumulate(c)
    assert t.tp.tolist() == [2, 2, 3.5] and t.fp.tolist() == [0.5, 3.5, 3.5]
    assert t.fn.tolist() == [1.5, 1.5, 0] and t.tn.tolist() == [3, 0, 0]
    assert (t.n, t.n_pos, t.n_neg) == (7, 3.5, 3.5)


def test_confusion_at_threshold_rule_is_score_at_or_above():
    y, s = [1, 0, 1, 0], [0.5, 0.5, 0.4999, 0.2]
    c = confusion_at(y, s, 0.5)  # both 0.5 rows act, 0.4999 does not
    assert (c.tp, c.fp, c.fn, c.tn) == (1, 1, 1, 1)
    none = confusion_at(y, s, np.inf)
    assert (none.tp, none.fp) == (0, 0) and none.undefined == {"precision": "no predicted positives at this threshold"}
    everyone = confusion_at(y, s, -np.inf)
    assert (everyone.fn, everyone.tn) == (0, 0)


# ---------------------------------------------------------------------------------------
# SPEC §3.1 worked example and undefined metrics


def test_spec_worked_example():
    # TP=8, FP=12, FN=2, TN=78, N=100:
    # accuracy (8+78)/100 = 0.86; precision 8/20 = 0.4; recall 8/10 = 0.8;
    # F1 = 2·8/(2·8+12+2) = 16/30 = 0.5333…; FPR 12/90; specificity 78/90; positive rate 20/100
    m = metrics_from_cells(8, 12, 2, 78)
    assert m.accuracy == pytest.approx(0.86)
    assert m.precision == pytest.approx(0.4)
    assert m.recall == pytest.approx(0.8)
    assert m.f1 == pytest.approx(16 / 30)
    assert round(m.f1, 4) == 0.5333
    assert m.fpr == pytest.approx(12 / 90) and m.specificity == pytest.approx(78 / 90)
    assert m.positive_rate == pytest.approx(0.2) and m.n == 100 and m.undefined == {}
    # the same cells from rows, through the public entry points
    y = np.array([1] * 10 + [0] * 90)
    s = np.array([0.9] * 8 + [0.1] * 2 + [0.9] * 12 + [0.1] * 78)
    for c in (confusion_at(y, s, 0.5), confusion_from_counts(score_counts(y, s), 0.5)):
        assert (c.tp, c.fp, c.fn, c.tn) == (8, 12, 2, 78)
        assert c.accuracy == accuracy_score(y, s >= 0.5)
        assert c.precision == precision_score(y, s >= 0.5)
        assert c.recall == recall_score(y, s >= 0.5)
        assert c.f1 == pytest.approx(f1_score(y, s >= 0.5))


def test_always_negative_model_scores_090_accuracy():
    # predicts negative for all 100 cases: TP=0, FP=0, FN=10, TN=90 -> accuracy 90/100
    m = metrics_from_cells(0, 0, 10, 90)
    assert m.accuracy == pytest.approx(0.90)
    assert m.recall == 0.0  # 0 of 10 positives found: defined, and 0
    assert m.f1 == 0.0  # 2·0 / (0 + 0 + 10): defined, and 0
    assert math.isnan(m.precision)  # 0/0: never reported as 0
    assert m.undefined == {"precision": "no predicted positives at this threshold"}
    assert m.to_dict()["precision"] is None


def test_undefined_metrics_are_nan_with_reason_never_zero():
    m = metrics_from_cells(0, 0, 0, 5)  # only negatives, none acted on
    assert math.isnan(m.precision) and math.isnan(m.recall) and math.isnan(m.f1)
    assert m.undefined == {
        "precision": "no predicted positives at this threshold",
        "recall": "no positive cases",
        "f1": "no positive cases and no predicted positives",
    }
    assert m.accuracy == 1.0 and m.fpr == 0.0 and m.specificity == 1.0
    d = m.to_dict()
    assert d["precision"] is None and d["recall"] is None and d["f1"] is None and d["undefined"] == m.undefined


# ---------------------------------------------------------------------------------------
# every InputError message


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(y_true=[[0, 1]], y_score=[0.1, 0.2]), r"y_true must be one-dimensional; got shape \(1, 2\)"),
        (dict(y_true=[0, 1], y_score=[[0.1, 0.2]]), r"y_score must be one-dimensional; got shape \(1, 2\)"),
        (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2]), r"y_true has 3 rows but y_score has 2"),
        (
            dict(y_true=[0, 2, 3], y_score=[0.1, 0.2, 0.3]),
            r"y_true must hold only 0 and 1; 2 values are something else \(e\.g\. \[2, 3\]\)",
        ),
        (dict(y_true=["a", "b"], y_score=[0.1, 0.2]), r"y_true must be numeric 0/1 or boolean; got dtype <U1"),
        (dict(y_true=[0, 1], y_score=["x", "y"]), r"y_score must be numeric; got dtype <U1"),
        (dict(y_true=[0, 1, 1], y_score=[np.nan, np.inf, 0.2]), r"y_score must be finite; 2 values are NaN or infinite"),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.2], sample_weight=[1.0]),
            r"sample_weight must have one value per row \(2\); got shape \(1,\)",
        ),
        (dict(y_true=[0, 1], y_score=[0.1, 0.2], sample_weight=["a", "b"]), r"sample_weight must be numeric; got dtype <U1"),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.2], sample_weight=[-1.0, np.nan]),
            r"sample_weight must be finite and >= 0; 2 values are not",
        ),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.2], resolution=0.0),
            r"resolution must be a positive finite number or None; got 0\.0",
        ),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.2], resolution=-0.1),
            r"resolution must be a positive finite number or None; got -0\.1",
        ),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.2], resolution=np.nan),
            r"resolution must be a positive finite number or None; got nan",
        ),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.2], resolution="fine"),
            r"resolution must be a positive finite number or None; got 'fine'",
        ),
    ],
)
@pytest.mark.parametrize("func", [score_counts, threshold_counts])
def test_input_errors(func, kwargs, match):
    kwargs = dict(kwargs)  # parametrize shares the dict between the two funcs
    y_true, y_score = kwargs.pop("y_true"), kwargs.pop("y_score")
    with pytest.raises(InputError, match=match):
        func(y_true, y_score, **kwargs)


def test_every_problem_is_listed_at_once():
    with pytest.raises(InputError) as info:
        score_counts([0, 5], [np.nan, 0.2], sample_weight=[-1, 1], resolution=-1)
    codes = [p.code for p in info.value.problems]
    assert codes == ["y_true_not_binary", "y_score_not_finite", "weight_invalid", "resolution_invalid"]
    with pytest.raises(InputError) as info:
        confusion_at([0, 5], [0.1, 0.2], "high")
    assert [p.code for p in info.value.problems] == ["y_true_not_binary", "threshold_invalid"]
    assert "Fix:" in str(info.value)  # every problem says how to fix it


@pytest.mark.parametrize("bad", [np.nan, "high", None, True])
def test_threshold_errors(bad):
    match = r"threshold must be a number \(\+inf acts on no one, -inf on everyone\); got "
    with pytest.raises(InputError, match=match):
        confusion_at([0, 1], [0.1, 0.2], bad)
    with pytest.raises(InputError, match=match):
        confusion_from_counts(score_counts([0, 1], [0.1, 0.2]), bad)


# ---------------------------------------------------------------------------------------
# scikit-learn as the reference on real out-of-fold predictions


@pytest.mark.parametrize("weights", [None, "w_real", "w_int"])
@pytest.mark.parametrize("rounding", [None, 2])  # rounding to 2 decimals creates many ties
def test_threshold_counts_equal_sklearn_confusion_matrix_at_every_threshold(oof, weights, rounding):
    y, p = oof["y"], oof["p"] if rounding is None else np.round(oof["p"], rounding)
    w = None if weights is None else oof[weights]
    t = threshold_counts(y, p, sample_weight=w)
    kept = p if w is None else p[w > 0]
    assert t.thresholds.tolist() == sorted(set(kept.tolist()), reverse=True)
    for i, thr in enumerate(t.thresholds):
        tp, fp, fn, tn = _sklearn_cells(y, p, thr, w)
        np.testing.assert_allclose([t.tp[i], t.fp[i], t.fn[i], t.tn[i]], [tp, fp, fn, tn], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("weights", [None, "w_real", "w_int"])
@pytest.mark.parametrize("rounding", [None, 2])
def test_threshold_counts_equal_sklearn_roc_curve(oof, weights, rounding):
    y, p = oof["y"], oof["p"] if rounding is None else np.round(oof["p"], rounding)
    w = None if weights is None else oof[weights]
    t = threshold_counts(y, p, sample_weight=w)
    fpr, tpr, thr = roc_curve(y, p, sample_weight=w, drop_intermediate=False)
    assert thr[0] == np.inf
    np.testing.assert_array_equal(t.thresholds, thr[1:])
    np.testing.assert_allclose(t.fp / t.n_neg, fpr[1:], rtol=1e-12)
    np.testing.assert_allclose(t.tp / t.n_pos, tpr[1:], rtol=1e-12)
    tns, fps, fns, tps, thresholds = confusion_matrix_at_thresholds(y, p, sample_weight=w)
    np.testing.assert_array_equal(t.thresholds, thresholds)
    np.testing.assert_allclose(np.c_[t.tp, t.fp, t.fn, t.tn], np.c_[tps, fps, fns, tns], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("weights", [None, "w_real"])
def test_metrics_equal_sklearn_at_half(oof, weights):
    y, p = oof["y"], oof["p"]
    w = None if weights is None else oof[weights]
    pred = (p >= 0.5).astype(int)
    c = confusion_at(y, p, 0.5, sample_weight=w)
    assert c.accuracy == pytest.approx(accuracy_score(y, pred, sample_weight=w), rel=1e-12)
    assert c.precision == pytest.approx(precision_score(y, pred, sample_weight=w), rel=1e-12)
    assert c.recall == pytest.approx(recall_score(y, pred, sample_weight=w), rel=1e-12)
    assert c.f1 == pytest.approx(f1_score(y, pred, sample_weight=w), rel=1e-12)
    # specificity = recall of the negative class; FPR its complement
    spec = recall_score(y, pred, pos_label=0, sample_weight=w)
    assert c.specificity == pytest.approx(spec, rel=1e-12) and c.fpr == pytest.approx(1 - spec, rel=1e-12)


def test_confusion_from_counts_equals_confusion_at(oof):
    y, p, w = oof["y"], oof["p"], oof["w_real"]
    counts = score_counts(y, p, sample_weight=w)
    for thr in [np.inf, 1.0, 0.99, 0.5, float(p[3]), 0.123, 0.0, -1.0, -np.inf]:
        a, b = confusion_from_counts(counts, thr), confusion_at(y, p, thr, sample_weight=w)
        np.testing.assert_allclose([a.tp, a.fp, a.fn, a.tn], [b.tp, b.fp, b.fn, b.tn], rtol=1e-12, atol=1e-9)


# ---------------------------------------------------------------------------------------
# resolution (binning)


def test_resolution_floors_to_the_grid_by_hand():
    # 0.3 is a grid point of 0.1 and is its own bin; 0.29999 floors to 0.2; 0.77 and 0.7 share 0.7
    c = score_counts([1, 0, 1, 0], [0.3, 0.29999, 0.77, 0.7], resolution=0.1)
    assert c.resolution == 0.1
    assert c.scores.tolist() == [0.7, 0.3, 0.2]
    assert c.pos.tolist() == [1, 1, 0] and c.neg.tolist() == [1, 0, 1]
    # score_sum keeps the original scores
    assert c.score_sum.tolist() == pytest.approx([0.77 + 0.7, 0.3, 0.29999])
    t = threshold_counts([1, 0, 1, 0], [0.3, 0.29999, 0.77, 0.7], resolution=0.1)
    assert t.resolution == 0.1 and t.thresholds.tolist() == [0.7, 0.3, 0.2]


def test_resolution_floor_is_exact_where_naive_flooring_is_not():
    # np.floor(0.7 / 0.1) = 6 (0.7/0.1 = 6.999…): a naive floor puts 0.7 in bin 0.6
    assert math.floor(0.7 / 0.1) == 6
    c = score_counts([1], [0.7], resolution=0.1)
    assert c.scores.tolist() == [0.7]
    # a non-decimal resolution: representative never above the score, next grid point above it
    s = np.random.default_rng(1).random(20_000)
    c = score_counts(np.zeros(len(s), int), s, resolution=0.07)
    k = np.round(c.scores / 0.07)
    assert np.all(k * 0.07 == c.scores)


@settings(max_examples=60, deadline=None)
@given(binary_data(min_size=1, kind="probability"), st.sampled_from([0.1, 0.05, 0.01, 0.25, 1 / 3, 0.07, 1e-3]))
def test_resolution_property(data, r):
    y, s, w = data
    c = score_counts(y, s, sample_weight=w, resolution=r)
    assert c.resolution == r
    keep = np.ones(len(y), bool) if w is None else w > 0
    # every kept row falls in exactly one bin [rep, next rep): rep <= score, and no higher rep <= score
    rep_of_row = c.scores[np.searchsorted(-c.scores, -s[keep], side="left")] if len(c.scores) else np.array([])
    assert np.all(rep_of_row <= s[keep])
    assert np.all(s[keep] - rep_of_row < r * (1 + 1e-9))
    # at thresholds on the grid (the bins' edges), binned counts equal the rows' confusion
    exact = threshold_counts(y, s, sample_weight=w)
    binned = cumulate(c)
    for i, t in enumerate(binned.thresholds):
        j = np.searchsorted(-exact.thresholds, -t, side="right") - 1  # last exact threshold >= t
        assert binned.tp[i] == exact.tp[j] and binned.fp[i] == exact.fp[j]
    assert c.n == score_counts(y, s, sample_weight=w).n


# ---------------------------------------------------------------------------------------
# hypothesis properties (STYLE.md)


def _fields(c: ScoreCounts):
    return [c.scores, c.pos, c.neg, c.pos_rows, c.neg_rows]


@settings(max_examples=150, deadline=None)
@given(binary_data())
def test_counts_complement_and_monotone(data):
    y, s, w = data
    t = threshold_counts(y, s, sample_weight=w)
    ww = np.ones(len(y)) if w is None else w
    n_pos, n_neg = ww[y == 1].sum(), ww[y == 0].sum()
    assert t.n_pos == n_pos and t.n_neg == n_neg  # dyadic weights: exact
    np.testing.assert_array_equal(t.tp + t.fn, np.full(len(t.tp), n_pos))
    np.testing.assert_array_equal(t.fp + t.tn, np.full(len(t.fp), n_neg))
    assert np.all(np.diff(t.thresholds) < 0)
    assert np.all(np.diff(t.tp) >= 0) and np.all(np.diff(t.fp) >= 0)
    assert np.all(np.diff(t.fn) <= 0) and np.all(np.diff(t.tn) <= 0)
    assert np.all(np.c_[t.tp, t.fp, t.fn, t.tn] >= 0)
    if len(t.tp):
        assert t.fn[-1] == 0 and t.tn[-1] == 0  # the lowest threshold acts on everyone


@settings(max_examples=100, deadline=None)
@given(binary_data(min_size=1), st.randoms(use_true_random=False))
def test_row_order_invariance(data, rnd):
    y, s, w = data
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    a = score_counts(y, s, sample_weight=w)
    b = score_counts(y[perm], s[perm], sample_weight=None if w is None else w[perm])
    for fa, fb in zip(_fields(a), _fields(b)):
        np.testing.assert_array_equal(fa, fb)


@settings(max_examples=100, deadline=None)
@given(binary_data(kind="score"), st.sampled_from(sorted(INCREASING)))
def test_strictly_increasing_transform_invariance(data, name):
    y, s, w = data
    f = INCREASING[name]
    a = threshold_counts(y, s, sample_weight=w)
    b = threshold_counts(y, f(s), sample_weight=w)
    np.testing.assert_array_equal(b.thresholds, f(a.thresholds))
    for attr in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))


@settings(max_examples=150, deadline=None)
@given(binary_data(weighted=True))
def test_zero_weight_equals_dropping_the_row(data):
    y, s, w = data
    keep = w > 0
    a = score_counts(y, s, sample_weight=w)
    b = score_counts(y[keep], s[keep], sample_weight=w[keep])
    for fa, fb in zip(_fields(a) + [a.score_sum], _fields(b) + [b.score_sum]):
        np.testing.assert_array_equal(fa, fb)


@settings(max_examples=100, deadline=None)
@given(binary_data(weighted=False))
def test_unit_weights_equal_no_weights_and_row_counts(data):
    y, s, _ = data
    a = score_counts(y, s)
    b = score_counts(y, s, sample_weight=np.ones(len(y)))
    for fa, fb in zip(_fields(a), _fields(b)):
        np.testing.assert_array_equal(fa, fb)
    np.testing.assert_array_equal(a.pos, a.pos_rows)
    assert a.n_rows == len(y)


@settings(max_examples=100, deadline=None)
@given(binary_data(), st.floats(-0.5, 1.5, allow_nan=False))
def test_confusion_from_counts_equals_rows_at_any_threshold(data, thr):
    y, s, w = data
    a = confusion_from_counts(score_counts(y, s, sample_weight=w), thr)
    b = confusion_at(y, s, thr, sample_weight=w)
    assert (a.tp, a.fp, a.fn, a.tn) == (b.tp, b.fp, b.fn, b.tn)
    ww = np.ones(len(y)) if w is None else w
    act = s >= thr
    assert b.tp == ww[act & (y == 1)].sum() and b.fp == ww[act & (y == 0)].sum()
