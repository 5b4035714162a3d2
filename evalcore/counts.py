"""The primitive every board number derives from: weighted counts by distinct score.

For each distinct score (descending) we keep the weighted count of positives and of
negatives, the number of rows of each, and the weighted sum of scores. Every curve
(threshold sweep, value curve, ROC, AUC) is a cumulative sum over it; re-pricing is
O(#distinct scores), never O(#rows).

Threshold rule, everywhere: a row is predicted positive ("act") iff ``score >= t``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import check_binary_scores, positive_number
from ._errors import InputError, ProblemList

__all__ = [
    "ScoreCounts",
    "ThresholdCounts",
    "Confusion",
    "score_counts",
    "threshold_counts",
    "cumulate",
    "confusion_at",
    "confusion_from_counts",
    "metrics_from_cells",
]


def _nan_safe(x):
    return None if x is None or (isinstance(x, float) and not np.isfinite(x)) else x


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ScoreCounts:
    """Weighted counts per distinct score, scores in descending order.

    Attributes
    ----------
    scores : ndarray of shape (k,)
        Distinct scores (after binning, if ``resolution`` is set), strictly descending.
    pos, neg : ndarray of shape (k,)
        Weighted count of positives / negatives with exactly that score.
    pos_rows, neg_rows : ndarray of shape (k,), int64
        Unweighted number of positive / negative rows of positive weight with that score
        (for bootstrap draws).
    score_sum : ndarray of shape (k,)
        Weighted sum of the *original* scores in the cell (equals ``scores * (pos+neg)``
        when ``resolution`` is None); calibration needs it.
    resolution : float or None
        Bin width used to group scores; None means exact.

    Notes
    -----
    Treat the arrays as immutable: the cumulative sums every pricing shares, and
    ``n_rows``, are computed once and cached on the object.
    """

    scores: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    pos_rows: np.ndarray
    neg_rows: np.ndarray
    score_sum: np.ndarray
    resolution: float | None = None
    # cumulative sums shared by every re-pricing (value.price_curve); filled on first use
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def _cumulative(self) -> tuple[np.ndarray, np.ndarray]:
        """``(thresholds, cum)``: +inf then the scores, shape (k + 1,), and the cumulative
        (pos, neg) counts as one C-contiguous array of shape (2, k + 1) starting at the
        "act on no one" point (0, 0). Computed once, read-only; one array so that pricing
        is a single matrix–vector product."""
        if "cum" not in self._cache:
            k = len(self.scores)
            thresholds = np.empty(k + 1)
            thresholds[0] = np.inf
            thresholds[1:] = self.scores
            cum = np.empty((2, k + 1))
            cum[:, 0] = 0.0
            np.cumsum(self.pos, out=cum[0, 1:])
            np.cumsum(self.neg, out=cum[1, 1:])
            thresholds.flags.writeable = False
            cum.flags.writeable = False
            self._cache["cum"] = (thresholds, cum)
        return self._cache["cum"]

    @property
    def n(self) -> float:
        return float(self.pos.sum() + self.neg.sum())

    @property
    def n_pos(self) -> float:
        return float(self.pos.sum())

    @property
    def n_neg(self) -> float:
        return float(self.neg.sum())

    @property
    def n_rows(self) -> int:
        if "n_rows" not in self._cache:
            self._cache["n_rows"] = int(self.pos_rows.sum() + self.neg_rows.sum())
        return self._cache["n_rows"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ThresholdCounts:
    """Cumulative confusion counts at every distinct score used as a threshold.

    Attributes
    ----------
    thresholds : ndarray of shape (k,)
        Distinct scores, descending. At ``thresholds[i]`` a row is positive iff score >= it.
    tp, fp, fn, tn : ndarray of shape (k,)
        Weighted confusion counts at each threshold. ``tp + fn == n_pos`` everywhere.
    n, n_pos, n_neg : float
        Total, positive and negative weight.
    resolution : float or None
        Score binning used (None: exact).
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    n: float
    n_pos: float
    n_neg: float
    resolution: float | None = None


def _bin_scores(s: np.ndarray, resolution: float) -> np.ndarray:
    """Floor every score to the grid ``k * resolution`` exactly, in float arithmetic.

    The representative never exceeds any member of its bin (acting at the representative
    acts on the whole bin) and the next grid point lies above every member. ``np.floor(s /
    r) * r`` alone gets both wrong for some scores (e.g. 0.7 / 0.1 = 6.999…), so one
    correction step follows. When ``1 / resolution`` is an integer m (0.1, 1e-4 …) the grid
    is ``k / m``, which makes decimal grid points such as 0.3 their own representative.
    """
    m = round(1.0 / resolution) if resolution <= 1.0 else 0
    if m >= 1 and abs(m * resolution - 1.0) <= 1e-12:

        def grid(k):
            return k / m

        k = np.floor(s * m)
    else:

        def grid(k):
            return k * resolution

        k = np.floor(s / resolution)
    k[grid(k) > s] -= 1.0
    k[grid(k + 1.0) <= s] += 1.0
    return grid(k)


def score_counts(y_true, y_score, *, sample_weight=None, resolution=None) -> ScoreCounts:
    """Group rows by distinct score: the sufficient statistic of DESIGN §2.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 or boolean labels; 1 is the positive class.
    y_score : array-like of shape (n,)
        Finite real scores; higher means more likely positive.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights. Rows of zero weight are dropped before grouping (as
        scikit-learn's ranking metrics do), so a zero weight is the same as no row: its
        score is not a threshold and it is not counted in ``pos_rows``/``neg_rows``.
    resolution : float, default=None
        If given, scores are floored to the grid ``k * resolution`` before grouping (the
        representative of a bin is its lower edge, never above any member); the result
        states it. None means exact.

    Returns
    -------
    ScoreCounts

    Raises
    ------
    InputError
        Non-binary labels, non-finite scores, bad weights or a bad ``resolution`` — every
        problem at once.

    Examples
    --------
    >>> c = score_counts([0, 1, 1, 0], [0.1, 0.8, 0.8, 0.4])
    >>> c.scores.tolist(), c.pos.tolist(), c.neg.tolist()
    ([0.8, 0.4, 0.1], [2.0, 0.0, 0.0], [0.0, 1.0, 1.0])
    """
    problems = _check_resolution(resolution)
    y, s, w = _check_all(problems, y_true, y_score, sample_weight)
    return _score_counts(y, s, w, None if resolution is None else float(resolution))


def _check_all(problems: ProblemList, y_true, y_score, sample_weight):
    """``check_binary_scores`` plus problems already found, raised together."""
    try:
        out = check_binary_scores(y_true, y_score, sample_weight)
    except InputError as err:
        raise InputError(err.problems + problems.problems) from None
    problems.raise_if_any()
    return out


def _check_resolution(resolution) -> ProblemList:
    problems = ProblemList()
    if resolution is None:
        return problems
    if np.isnan(positive_number(resolution)):
        problems.add(
            "resolution_invalid",
            f"resolution must be a positive finite number or None; got {resolution!r}.",
            "Pass e.g. 1e-4 to bin probabilities, or None for the exact curve.",
            column="resolution",
        )
    return problems


def _check_threshold(threshold, problems: ProblemList | None = None) -> ProblemList:
    problems = ProblemList() if problems is None else problems
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        t = float("nan")
    if isinstance(threshold, bool) or np.isnan(t):
        problems.add(
            "threshold_invalid",
            f"threshold must be a number (+inf acts on no one, -inf on everyone); got {threshold!r}.",
            "Pass the score at or above which the model acts.",
            column="threshold",
        )
    return problems


def _score_counts(y, s, w, resolution=None) -> ScoreCounts:
    if not w.all():
        # a zero weight is no row (sklearn drops them too): no threshold, no row count
        keep = w != 0
        y, s, w = y[keep], s[keep], w[keep]
    n = len(s)
    if n == 0:
        empty = np.zeros(0)
        return ScoreCounts(
            scores=empty,
            pos=empty,
            neg=empty,
            pos_rows=np.zeros(0, np.int64),
            neg_rows=np.zeros(0, np.int64),
            score_sum=empty,
            resolution=resolution,
        )
    # Binning is monotone (non-decreasing) in the score, so sorting the scores also sorts
    # the bins and every group (distinct score or bin) is one contiguous run. Tie order does
    # not matter: each group is summed.
    if (w == 1.0).all():
        # unweighted (the common case): sort values only, no argsort and no gathers; the
        # positives are placed in their groups by a search among the distinct scores.
        # Work ascending (contiguous, no negation), reverse the per-group results at the end.
        sa = np.sort(s)
        key = _bin_scores(sa, resolution) if resolution is not None else sa
        new_group = np.empty(n, dtype=bool)
        new_group[0] = True
        np.not_equal(key[1:], key[:-1], out=new_group[1:])
        pos_s = s[y == 1]
        pos_key = _bin_scores(pos_s, resolution) if resolution is not None else pos_s
        if resolution is None and np.count_nonzero(new_group) == n:
            # every score distinct (continuous scores): one row per group, fewest new arrays
            scores = sa[::-1].copy()
            pos_rows = np.zeros(n, dtype=np.int64)
            pos_rows[n - 1 - np.searchsorted(sa, pos_key)] = 1  # exact matches
            neg_rows = 1 - pos_rows
            out = ScoreCounts(
                scores=scores,
                pos=pos_rows.astype(np.float64),
                neg=neg_rows.astype(np.float64),
                pos_rows=pos_rows,
                neg_rows=neg_rows,
                score_sum=scores,
                resolution=None,
            )
            out._cache["n_rows"] = n
            return out
        starts = np.flatnonzero(new_group)
        k = len(starts)
        scores, rows = key[starts], np.diff(starts, append=n)
        pos_rows = np.bincount(np.searchsorted(scores, pos_key), minlength=k).astype(np.int64)  # exact matches
        if resolution is not None:
            score_sum = np.add.reduceat(sa, starts)
        else:
            score_sum = scores * rows
        pos_rows = pos_rows[::-1].copy()
        neg_rows = rows[::-1] - pos_rows
        out = ScoreCounts(
            scores=scores[::-1].copy(),
            pos=pos_rows.astype(np.float64),
            neg=neg_rows.astype(np.float64),
            pos_rows=pos_rows,
            neg_rows=neg_rows,
            score_sum=score_sum[::-1].copy(),
            resolution=resolution,
        )
        out._cache["n_rows"] = n
        return out
    order = np.argsort(s)[::-1]
    so = s[order]
    key = _bin_scores(so, resolution) if resolution is not None else so
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    yo = y[order].astype(bool)
    wo = w[order]
    pos = np.add.reduceat(np.where(yo, wo, 0.0), starts)
    neg = np.add.reduceat(np.where(yo, 0.0, wo), starts)
    pos_rows = np.add.reduceat(yo.astype(np.int64), starts)
    neg_rows = np.diff(np.r_[starts, n]) - pos_rows
    score_sum = np.add.reduceat(so * wo, starts)
    out = ScoreCounts(
        scores=key[starts], pos=pos, neg=neg, pos_rows=pos_rows, neg_rows=neg_rows, score_sum=score_sum, resolution=resolution
    )
    out._cache["n_rows"] = n
    return out


def cumulate(counts: ScoreCounts) -> ThresholdCounts:
    """Cumulative counts from per-score counts (O(k)): the threshold sweep without the rows.

    Examples
    --------
    >>> c = cumulate(score_counts([1, 0, 1], [0.9, 0.5, 0.5]))
    >>> c.thresholds.tolist(), c.tp.tolist(), c.fp.tolist(), c.fn.tolist(), c.tn.tolist()
    ([0.9, 0.5], [1.0, 2.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0])
    """
    tp = np.cumsum(counts.pos)
    fp = np.cumsum(counts.neg)
    # totals from the same sums, so that fn and tn are exactly 0 when acting on everyone
    n_pos = float(tp[-1]) if len(tp) else 0.0
    n_neg = float(fp[-1]) if len(fp) else 0.0
    return ThresholdCounts(
        thresholds=counts.scores,
        tp=tp,
        fp=fp,
        fn=n_pos - tp,
        tn=n_neg - fp,
        n=n_pos + n_neg,
        n_pos=n_pos,
        n_neg=n_neg,
        resolution=counts.resolution,
    )


def threshold_counts(y_true, y_score, *, sample_weight=None, resolution=None) -> ThresholdCounts:
    """Confusion counts at every distinct score used as threshold (``score >= t``).

    Equivalent to ``sklearn.metrics.confusion_matrix(y, score >= t, labels=[0, 1])`` for
    every ``t`` in ``thresholds``, computed with one stable sort and cumulative sums.
    Parameters are those of :func:`score_counts`. ``fp``/``tp`` equal scikit-learn's
    ``roc_curve(..., drop_intermediate=False)`` fps/tps (``fpr * n_neg``, ``tpr * n_pos``)
    after its leading ``inf`` threshold. With ``resolution``, thresholds are the bins'
    lower edges and a row acts iff its bin's edge is >= t.

    Examples
    --------
    >>> c = threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> c.thresholds.tolist(), c.tp.tolist(), c.fp.tolist()
    ([0.8, 0.4, 0.35, 0.1], [1.0, 1.0, 2.0, 2.0], [0.0, 1.0, 1.0, 2.0])
    """
    return cumulate(score_counts(y_true, y_score, sample_weight=sample_weight, resolution=resolution))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Confusion:
    """Counts and SPEC §3.1 metrics at one threshold. Undefined metrics are NaN, and
    ``undefined`` maps each such metric to the reason (e.g. "no predicted positives")."""

    threshold: float
    tp: float
    fp: float
    fn: float
    tn: float
    accuracy: float
    precision: float
    recall: float
    fpr: float
    specificity: float
    f1: float
    positive_rate: float
    undefined: dict = field(default_factory=dict)

    @property
    def n(self) -> float:
        return self.tp + self.fp + self.fn + self.tn

    def to_dict(self) -> dict:
        keys = (
            "threshold",
            "tp",
            "fp",
            "fn",
            "tn",
            "accuracy",
            "precision",
            "recall",
            "fpr",
            "specificity",
            "f1",
            "positive_rate",
        )
        out = {k: _nan_safe(float(getattr(self, k))) for k in keys}
        out["undefined"] = dict(self.undefined)
        return out


def _ratio(num, den, name, reason, undefined):
    if den == 0:
        undefined[name] = reason
        return float("nan")
    return float(num / den)


def metrics_from_cells(tp, fp, fn, tn, threshold=float("nan")) -> Confusion:
    """SPEC §3.1 metrics from the four (weighted) cells; 0/0 is NaN with its reason.

    Examples
    --------
    >>> c = metrics_from_cells(0, 0, 10, 90)  # always predicts negative
    >>> c.accuracy, c.precision, c.recall, c.undefined
    (0.9, nan, 0.0, {'precision': 'no predicted positives at this threshold'})
    """
    tp, fp, fn, tn = float(tp), float(fp), float(fn), float(tn)
    und: dict[str, str] = {}
    n = tp + fp + fn + tn
    return Confusion(
        threshold=float(threshold),
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        accuracy=_ratio(tp + tn, n, "accuracy", "no rows", und),
        precision=_ratio(tp, tp + fp, "precision", "no predicted positives at this threshold", und),
        recall=_ratio(tp, tp + fn, "recall", "no positive cases", und),
        fpr=_ratio(fp, fp + tn, "fpr", "no negative cases", und),
        specificity=_ratio(tn, fp + tn, "specificity", "no negative cases", und),
        f1=_ratio(2 * tp, 2 * tp + fp + fn, "f1", "no positive cases and no predicted positives", und),
        positive_rate=_ratio(tp + fp, n, "positive_rate", "no rows", und),
        undefined=und,
    )


def confusion_from_counts(counts: ScoreCounts, threshold: float) -> Confusion:
    """Confusion at ``threshold`` from per-score counts, O(k); rows with score >= t act.

    With binned counts (``counts.resolution`` set) a whole bin acts iff its lower edge is
    >= t, so the result equals the rows' confusion only for thresholds on the grid.
    """
    _check_threshold(threshold).raise_if_any()
    threshold = float(threshold)
    act = counts.scores >= threshold
    tp = counts.pos[act].sum()
    fp = counts.neg[act].sum()
    return metrics_from_cells(tp, fp, counts.n_pos - tp, counts.n_neg - fp, threshold)


def confusion_at(y_true, y_score, threshold, *, sample_weight=None) -> Confusion:
    """Counts and metrics at one threshold (act iff ``score >= threshold``).

    Examples
    --------
    SPEC §3.1 worked example (TP=8, FP=12, FN=2, TN=78):

    >>> y = [1] * 10 + [0] * 90
    >>> s = [1] * 8 + [0] * 2 + [1] * 12 + [0] * 78
    >>> c = confusion_at(y, s, 0.5)
    >>> round(c.accuracy, 4), round(c.precision, 4), round(c.recall, 4), round(c.f1, 4)
    (0.86, 0.4, 0.8, 0.5333)
    """
    y, s, w = _check_all(_check_threshold(threshold), y_true, y_score, sample_weight)
    threshold = float(threshold)
    act = s >= threshold
    pos = y == 1
    tp = w[act & pos].sum()
    fp = w[act & ~pos].sum()
    fn = w[~act & pos].sum()
    tn = w[~act & ~pos].sum()
    return metrics_from_cells(tp, fp, fn, tn, threshold)
