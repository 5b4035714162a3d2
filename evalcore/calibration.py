"""Calibration of probability scores (SPEC §3.5): reliability bins, Brier, log loss, ECE,
calibration-in-the-large (O/E), calibration slope and intercept, bootstrap intervals,
and cross-fitted recalibration (Platt, isotonic, temperature scaling).

Everything here is a pure function of arrays; results are frozen dataclasses whose
``to_dict()`` is JSON-safe (NaN -> None). Undefined values are NaN, and the result's
``undefined`` mapping says why -- never 0, never a plausible number.

Bin rule, everywhere: bins are left-closed, ``[low, high)``, and the last bin is closed,
``[low, high]``. A score exactly on an edge belongs to the bin *above* it (0.3 is in
[0.3, 0.4)). Note that :func:`sklearn.calibration.calibration_curve` uses the opposite,
right-closed convention (and edges from ``np.linspace``, whose interior values are not
the decimal edges: ``np.linspace(0, 1, 11)[3] == 0.30000000000000004``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special  # SciPy's optimize and stats and scikit-learn load where they are used

from ._checks import as_generator, check_binary_scores, check_level
from ._errors import InputError, Problem, ProblemList
from ._json import json_float as _nan_to_none
from .bootstrap import wilson_interval  # one Wilson implementation for the whole package

__all__ = [
    "LOG_LOSS_EPS",
    "ReliabilityBin",
    "Reliability",
    "CalibrationMap",
    "CrossFitted",
    "wilson_interval",
    "bin_edges",
    "reliability",
    "ece",
    "calibration_slope_intercept",
    "calibration_intervals",
    "fit_calibration_map",
    "cross_fit_calibration",
    "segment_calibration",
]

#: Probabilities are clipped to ``[LOG_LOSS_EPS, 1 - LOG_LOSS_EPS]`` before any logarithm
#: or logit. (scikit-learn >= 1.5 clips at the float64 machine epsilon, 2.2e-16, instead;
#: the two agree unless a probability is within 1e-15 of 0 or 1.)
LOG_LOSS_EPS = 1e-15

_STRATEGIES = ("uniform", "quantile")
_METHODS = ("platt", "isotonic", "temperature")
_KINDS = ("probability", "score")


# --------------------------------------------------------------------------- Wilson


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ReliabilityBin:
    """One reliability bin, ``[low, high)`` (the last bin is ``[low, high]``).

    Attributes
    ----------
    low, high : float
        Bin edges.
    count : float
        Weighted number of predictions in the bin (equals ``n_rows`` without weights).
    n_rows : int
        Unweighted number of rows in the bin.
    mean_pred : float
        Weighted mean predicted probability; NaN when the bin is empty.
    frac_pos : float
        Weighted observed positive rate; NaN when the bin is empty.
    frac_pos_low, frac_pos_high : float
        Wilson interval of ``frac_pos`` (on the Kish effective count when weighted); NaN
        when the bin is empty.
    """

    low: float
    high: float
    count: float
    n_rows: int
    mean_pred: float
    frac_pos: float
    frac_pos_low: float
    frac_pos_high: float

    @property
    def empty(self) -> bool:
        return not self.count > 0

    def to_dict(self) -> dict:
        return {
            "low": float(self.low),
            "high": float(self.high),
            "count": float(self.count),
            "n_rows": int(self.n_rows),
            "mean_pred": _nan_to_none(self.mean_pred),
            "frac_pos": _nan_to_none(self.frac_pos),
            "frac_pos_low": _nan_to_none(self.frac_pos_low),
            "frac_pos_high": _nan_to_none(self.frac_pos_high),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Reliability:
    """Reliability diagram and calibration metrics of one probability score.

    Attributes
    ----------
    bins : tuple of ReliabilityBin
        Every bin, empty ones included, in increasing order of score.
    n_bins : int
        Actual number of bins (for ``"quantile"`` this can be fewer than requested,
        because duplicate edges are collapsed).
    strategy : {"uniform", "quantile"}
        How the edges were chosen.
    brier : float
        Weighted mean of ``(p - y)²``.
    log_loss : float
        Weighted mean of ``-[y log p + (1-y) log(1-p)]`` with ``p`` clipped to
        ``[log_loss_clip, 1 - log_loss_clip]``.
    log_loss_clip : float
        The clipping ``eps`` used (:data:`LOG_LOSS_EPS`).
    ece : float
        ``Σ_b (n_b / N) · |frac_pos_b − mean_pred_b|`` over non-empty bins.
    oe_ratio : float
        Observed / expected: positive rate ÷ mean predicted probability. NaN when every
        prediction is 0.
    slope, intercept : float
        Coefficients of the unpenalised logistic regression of ``y`` on
        ``logit(p)``. Perfect calibration is slope 1, intercept 0. NaN when undefined
        (one class, all scores equal, perfect separation).
    n, n_pos : float
        Total and positive weight.
    n_rows : int
        Number of rows.
    undefined : dict of str to str
        For each undefined (NaN) metric, why; ``"bins"`` notes empty bins.
    """

    bins: tuple
    n_bins: int
    strategy: str
    brier: float
    log_loss: float
    log_loss_clip: float
    ece: float
    oe_ratio: float
    slope: float
    intercept: float
    n: float
    n_pos: float
    n_rows: int
    undefined: dict = field(default_factory=dict)

    @property
    def edges(self) -> np.ndarray:
        """The ``n_bins + 1`` bin edges."""
        return np.array([b.low for b in self.bins] + [self.bins[-1].high])

    def to_dict(self) -> dict:
        return {
            "brier": _nan_to_none(self.brier),
            "log_loss": _nan_to_none(self.log_loss),
            "log_loss_clip": float(self.log_loss_clip),
            "ece": _nan_to_none(self.ece),
            "n_bins": int(self.n_bins),
            "strategy": self.strategy,
            "oe_ratio": _nan_to_none(self.oe_ratio),
            "slope": _nan_to_none(self.slope),
            "intercept": _nan_to_none(self.intercept),
            "n": float(self.n),
            "n_pos": float(self.n_pos),
            "n_rows": int(self.n_rows),
            "bins": [b.to_dict() for b in self.bins],
            "undefined": dict(self.undefined),
        }


# --------------------------------------------------------------------------- validation


def _check_options(problems: ProblemList, *, n_bins=None, strategy=None) -> None:
    if n_bins is not None and (isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1):
        problems.add(
            "n_bins_invalid", f"n_bins must be an integer >= 1; got {n_bins!r}.", "Pass e.g. n_bins=10.", column="n_bins"
        )
    if strategy is not None and strategy not in _STRATEGIES:
        problems.add(
            "strategy_invalid",
            f"strategy must be one of {_STRATEGIES}; got {strategy!r}.",
            "Use 'uniform' (equal-width bins) or 'quantile'.",
            column="strategy",
        )


def _check_rows(problems: ProblemList, y, w) -> None:
    if len(y) == 0:
        problems.add("no_rows", "There are no rows to evaluate (0 rows).", "Pass at least one row.", column="y_true")
    elif not w.sum() > 0:
        problems.add(
            "weight_all_zero",
            "sample_weight sums to 0; nothing to evaluate.",
            "Give at least one row a positive weight.",
            column="sample_weight",
        )


def _check_probabilities(problems: ProblemList, p, name="y_prob") -> None:
    bad = (p < 0) | (p > 1)
    if bad.any():
        rows = np.flatnonzero(bad)[:5] + 2
        problems.add(
            "prob_out_of_range",
            f"{name} must be probabilities in [0, 1]; {int(bad.sum())} values are outside (e.g. {p[bad][:3].tolist()}).",
            "If these are raw scores, recalibrate them first (fit_calibration_map / cross_fit_calibration "
            "with score_kind='score'), which maps them to [0, 1].",
            column=name,
            rows=rows,
            n_rows=int(bad.sum()),
        )


def _check_inputs(y_true, y_prob, sample_weight, *, n_bins=None, strategy=None, probability=True):
    problems = ProblemList()
    _check_options(problems, n_bins=n_bins, strategy=strategy)
    try:
        y, p, w = check_binary_scores(y_true, y_prob, sample_weight)
    except InputError as err:
        problems.problems.extend(err.problems)
        if probability:
            _check_raw_probabilities(problems, y_prob, "y_prob")
        raise InputError(problems.problems) from None
    _check_rows(problems, y, w)
    if probability:
        _check_probabilities(problems, p)
    problems.raise_if_any()
    return y, p, w


def _check_raw_probabilities(problems: ProblemList, values, name) -> None:
    # the label check failed first; still report out-of-range probabilities, so that the
    # user sees every problem at once
    s = np.asarray(values)
    if s.ndim == 1 and s.dtype.kind in "iuf":
        s = s.astype(np.float64)
        _check_probabilities(problems, np.where(np.isfinite(s), s, 0.5), name)


# --------------------------------------------------------------------------- bins


def _clip(p):
    return np.clip(p, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)


def _logit(p):
    return special.logit(_clip(p))


def _uniform_edges(n_bins: int) -> np.ndarray:
    # i / n is the correctly rounded float of the decimal edge (3/10 == 0.3), whereas
    # np.linspace(0, 1, 11)[3] == 0.30000000000000004 would put the score 0.3 in [0.2, 0.3).
    return np.arange(n_bins + 1, dtype=np.float64) / n_bins


def _quantile_edges(p, w, n_bins: int) -> np.ndarray:
    keep = w > 0
    p, w = p[keep], w[keep]
    q = np.arange(n_bins + 1, dtype=np.float64) / n_bins
    if np.all(w == w[0]):
        edges = np.quantile(p, q)  # numpy's default (linear), as np.percentile in sklearn's calibration_curve
    else:
        edges = np.quantile(p, q, weights=w, method="inverted_cdf")  # the weighted definition numpy offers
    return np.unique(edges)  # duplicate edges collapsed: fewer bins, none forced empty by a tie


def bin_edges(y_prob, *, sample_weight=None, n_bins=10, strategy="uniform") -> np.ndarray:
    """Bin edges used by :func:`reliability`.

    Parameters
    ----------
    y_prob : array-like of shape (n,)
        Probabilities (only used by ``"quantile"``).
    sample_weight : array-like of shape (n,), default=None
        Weights for the quantiles.
    n_bins : int, default=10
        Requested number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: edges ``i / n_bins``. ``"quantile"``: edges at the quantiles
        ``i / n_bins`` of the scores, zero-weight rows ignored. With equal weights this is
        numpy's default (linear) quantile, as in scikit-learn's ``calibration_curve``;
        with unequal weights it is the weighted inverted-CDF quantile (every edge an
        observed score). Duplicate edges are collapsed, so the result may have fewer than
        ``n_bins + 1`` edges; if all scores are equal, the single bin is ``[s, s]``.

    Returns
    -------
    ndarray of shape (k + 1,)

    Examples
    --------
    >>> bin_edges([0.5], n_bins=5).tolist()
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> bin_edges([0.1, 0.1, 0.1, 0.1, 0.9], n_bins=4, strategy="quantile").tolist()
    [0.1, 0.9]
    """
    p = np.asarray(y_prob, dtype=np.float64)
    w = np.ones(len(p)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    problems = ProblemList()
    _check_options(problems, n_bins=n_bins, strategy=strategy)
    problems.raise_if_any()
    return _edges(p, w, n_bins, strategy)


def _edges(p, w, n_bins, strategy):
    if strategy == "uniform":
        return _uniform_edges(n_bins)
    e = _quantile_edges(p, w, n_bins)
    if len(e) == 1:
        e = np.array([e[0], e[0]])
    return e


def _bin_index(p, edges) -> np.ndarray:
    # left-closed bins; the top edge belongs to the last bin
    k = len(edges) - 1
    return np.clip(np.searchsorted(edges, p, side="right") - 1, 0, k - 1)


# --------------------------------------------------------------------------- metrics


def _brier(y, p, w):
    return float(np.sum(w * (p - y) ** 2) / np.sum(w))


def _log_loss(y, p, w):
    pc = _clip(p)
    return float(-np.sum(w * (y * np.log(pc) + (1 - y) * np.log1p(-pc))) / np.sum(w))


def _bin_sums(y, p, w, idx, k):
    W = np.bincount(idx, weights=w, minlength=k)
    WY = np.bincount(idx, weights=w * y, minlength=k)
    WP = np.bincount(idx, weights=w * p, minlength=k)
    return W, WY, WP


def _ece_from_sums(W, WY, WP):
    ne = W > 0
    return float(np.sum(np.abs(WY[ne] - WP[ne])) / np.sum(W))  # (n_b/N)·|WY/n_b − WP/n_b|


def ece(y_true, y_prob, *, sample_weight=None, n_bins=10, strategy="uniform") -> float:
    """Expected calibration error, ``Σ_b (n_b/N)·|mean(y)_b − mean(p)_b|`` over non-empty bins.

    Bins as in :func:`bin_edges` (left-closed, the last one closed).

    Examples
    --------
    Two bins: [0, 0.5) holds p = 0.2, 0.4 with labels 0, 1 -> |0.5 - 0.3| = 0.2;
    [0.5, 1] holds p = 0.6, 0.8 with labels 1, 1 -> |1 - 0.7| = 0.3.
    ECE = (2/4)·0.2 + (2/4)·0.3 = 0.25.

    >>> round(ece([0, 1, 1, 1], [0.2, 0.4, 0.6, 0.8], n_bins=2), 12)
    0.25
    """
    y, p, w = _check_inputs(y_true, y_prob, sample_weight, n_bins=n_bins, strategy=strategy)
    edges = _edges(p, w, n_bins, strategy)
    k = len(edges) - 1
    return _ece_from_sums(*_bin_sums(y, p, w, _bin_index(p, edges), k))


def _logistic_fit(x, y, w):
    """Unpenalised weighted logistic regression of y on x -> (slope, intercept, reason).

    The MLE does not exist for one class, a constant x or (quasi-)complete separation;
    those return NaN and the reason instead of a huge, meaningless coefficient.
    """
    keep = w > 0
    x, y, w = x[keep], y[keep], w[keep]
    pos = y == 1
    if not pos.any() or pos.all():
        return np.nan, np.nan, "only one class present"
    if np.ptp(x) == 0:
        return np.nan, np.nan, "all scores are equal, so the slope is not identifiable"
    if x[~pos].max() <= x[pos].min() or x[pos].max() <= x[~pos].min():
        return np.nan, np.nan, "the classes are perfectly separated by the score, so the maximum-likelihood slope is infinite"
    # standardise for conditioning, then map the coefficients back to the original x
    mean = np.average(x, weights=w)
    sd = np.sqrt(np.average((x - mean) ** 2, weights=w))
    z = (x - mean) / sd
    b0, a0, converged = _fit_standardised(z, y, w)
    if not converged:
        return np.nan, np.nan, "the logistic regression did not converge"
    b = b0 / sd
    a = a0 - b * mean
    return float(b), float(a), None


def _logistic_model():
    from sklearn.linear_model import LogisticRegression  # loaded on first fit, not with evalcore

    # C=inf is scikit-learn's unpenalised fit (penalty=None is deprecated since 1.8);
    # Newton-Cholesky converges in a handful of iterations for one feature.
    return LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-10, max_iter=1000)


def _fit_standardised(z, y, w):
    """Fit on a standardised feature; judge convergence by the score equations.

    scikit-learn's Newton solver may warn and fall back to L-BFGS near the optimum (line
    search at float precision); the warning alone says nothing about the answer, so we
    silence it and check the gradient of the mean log-likelihood ourselves instead.

    Kept on scikit-learn on purpose: a Newton iteration of our own reaches the maximum-likelihood
    estimate to the last bit, but scikit-learn stops once its gradient is below ``tol`` and so
    lands up to ~1e-9 (relative) away from it, which would move the pinned boards' slopes.
    """
    from scipy.linalg import LinAlgWarning
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", LinAlgWarning)
        model = _logistic_model().fit(z[:, None], y, sample_weight=w)
    b, a = float(model.coef_[0, 0]), float(model.intercept_[0])
    r = w * (y - special.expit(a + b * z)) / np.sum(w)
    converged = max(abs(r.sum()), abs((r * z).sum())) < 1e-6
    return b, a, converged


def calibration_slope_intercept(y_true, y_prob, *, sample_weight=None) -> tuple[float, float]:
    """Calibration slope and intercept: logistic regression of ``y`` on ``logit(p)``.

    Unpenalised (``LogisticRegression(C=np.inf)``, Newton-Cholesky), weighted, with ``p`` clipped to
    ``[1e-15, 1 - 1e-15]`` before the logit. A perfectly calibrated model has slope 1 and
    intercept 0; slope < 1 means over-confident scores.

    Returns
    -------
    slope, intercept : float
        NaN when undefined (one class, all scores equal, perfect separation); the
        reason is in ``reliability(...).undefined``.

    Examples
    --------
    >>> b, a = calibration_slope_intercept([0, 0, 1, 0, 1, 1], [0.1, 0.3, 0.4, 0.6, 0.7, 0.9])
    >>> b > 0
    True
    >>> calibration_slope_intercept([1, 1], [0.2, 0.9])
    (nan, nan)
    """
    y, p, w = _check_inputs(y_true, y_prob, sample_weight)
    b, a, _ = _logistic_fit(_logit(p), y, w)
    return b, a


def bins_from_sums(edges, W, WY, WP, W2, rows) -> tuple[tuple, dict]:
    """Reliability bins from per-bin sums (weight, weight of positives, weighted scores, squared
    weights, rows): rows or an engine's aggregate give the same bins. Empty bins keep their edges
    and are NaN, said so in the returned ``undefined``. Wilson intervals use the Kish effective
    count (the row count without weights)."""
    k = len(edges) - 1
    ne = W > 0
    safe = np.where(ne, W, 1.0)
    mean_pred = np.where(ne, WP / safe, np.nan)
    frac_pos = np.where(ne, WY / safe, np.nan)
    n_eff = np.where(ne, W * W / np.where(W2 > 0, W2, 1.0), 0.0)
    lo, hi = wilson_interval(np.where(ne, frac_pos, 0.0) * n_eff, n_eff)
    bins = tuple(
        ReliabilityBin(
            low=float(edges[i]),
            high=float(edges[i + 1]),
            count=float(W[i]),
            n_rows=int(rows[i]),
            mean_pred=float(mean_pred[i]),
            frac_pos=float(frac_pos[i]),
            frac_pos_low=float(lo[i]),
            frac_pos_high=float(hi[i]),
        )
        for i in range(k)
    )
    undefined: dict[str, str] = {}
    n_empty = int((~ne).sum())
    if n_empty:
        undefined["bins"] = f"{n_empty} of {k} bins are empty (no predictions); their rate is undefined, not 0"
    return bins, undefined


def _reliability(y, p, w, *, n_bins, strategy) -> Reliability:
    edges = _edges(p, w, n_bins, strategy)
    k = len(edges) - 1
    idx = _bin_index(p, edges)
    W, WY, WP = _bin_sums(y, p, w, idx, k)
    W2 = np.bincount(idx, weights=w * w, minlength=k)
    rows = np.bincount(idx, minlength=k)
    bins, undefined = bins_from_sums(edges, W, WY, WP, W2, rows)
    N = float(W.sum())
    n_pos = float(np.sum(w * y))
    mean_p = float(np.sum(w * p) / N)
    if mean_p > 0:
        oe = (n_pos / N) / mean_p
    else:
        oe = np.nan
        undefined["oe_ratio"] = "every predicted probability is 0, so observed/expected divides by 0"
    slope, intercept, reason = _logistic_fit(_logit(p), y, w)
    if reason:
        undefined["slope"] = undefined["intercept"] = reason
    return Reliability(
        bins=bins,
        n_bins=k,
        strategy=strategy,
        brier=_brier(y, p, w),
        log_loss=_log_loss(y, p, w),
        log_loss_clip=LOG_LOSS_EPS,
        ece=_ece_from_sums(W, WY, WP),
        oe_ratio=float(oe),
        slope=float(slope),
        intercept=float(intercept),
        n=N,
        n_pos=n_pos,
        n_rows=int(len(y)),
        undefined=undefined,
    )


def reliability(y_true, y_prob, *, sample_weight=None, n_bins=10, strategy="uniform") -> Reliability:
    """Reliability diagram and calibration metrics of probability scores (SPEC §3.5).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 or boolean labels; 1 is the positive class.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1]. Raw scores must be
        recalibrated first (:func:`cross_fit_calibration` with ``score_kind="score"``).
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights.
    n_bins : int, default=10
        Requested number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins ``[0, 0.1), …, [0.9, 1.0]`` or bins at weighted quantiles of the
        scores (duplicate edges collapsed; ``Reliability.n_bins`` is the actual number).

    Returns
    -------
    Reliability
        Bins (empty ones included, with NaN rates), Brier, log loss, ECE, O/E ratio,
        calibration slope and intercept, denominators and the reasons for any NaN.

    Raises
    ------
    InputError
        Non-binary labels, non-finite or out-of-[0, 1] probabilities, bad weights, no
        rows, zero total weight, bad ``n_bins`` or ``strategy`` -- all listed at once.

    Notes
    -----
    Bins are left-closed, ``[low, high)``, the last one closed; a score on an edge goes to
    the bin above (0.3 -> [0.3, 0.4)). Uniform edges are ``i / n_bins`` (correctly rounded
    decimals). Per-bin intervals are Wilson intervals on the bin's (Kish effective)
    count, not bootstrap: the bootstrap collapses in small all-0 or all-1 bins.

    Examples
    --------
    >>> r = reliability([0, 1, 1, 1], [0.2, 0.4, 0.6, 0.8], n_bins=2)
    >>> [(b.low, b.high, b.count, b.frac_pos) for b in r.bins]
    [(0.0, 0.5, 2.0, 0.5), (0.5, 1.0, 2.0, 1.0)]
    >>> round(r.ece, 12), round(r.brier, 12)
    (0.25, 0.2)
    """
    y, p, w = _check_inputs(y_true, y_prob, sample_weight, n_bins=n_bins, strategy=strategy)
    return _reliability(y, p, w, n_bins=n_bins, strategy=strategy)


# --------------------------------------------------------------------------- bootstrap


# rows × replicates drawn at once: bounds memory (~16 MB per array) whatever n is
_BATCH_ELEMENTS = 2_000_000
_INTERVAL_METRICS = ("brier", "log_loss", "ece", "oe_ratio", "slope", "intercept")


def calibration_intervals(
    y_true, y_prob, *, sample_weight=None, n_bins=10, strategy="uniform", n_resamples=200, level=0.95, rng=0, slope_method="wald"
) -> dict:
    """Intervals of the calibration metrics: percentile bootstrap, and Wald for slope/intercept.

    Cost: every replicate resamples the rows, so it grows with rows × ``n_resamples`` (not
    with distinct scores): about 1.2 s per 100,000 rows at the default 200 replicates on one
    core, ~12 s at a million rows; ``slope_method="bootstrap"`` adds one logistic fit per
    replicate. From an aggregate, :func:`evalcore.aggregate.calibration_intervals_of` draws
    cell counts instead (cost grows with cells, not rows).

    Parameters
    ----------
    y_true, y_prob, sample_weight
        As in :func:`reliability`.
    n_bins, strategy
        Bins for ECE. The edges are fixed from the full sample (for ``"quantile"`` they
        are not re-estimated in each replicate).
    n_resamples : int, default=200
        Bootstrap replicates (rows resampled with replacement; a row keeps its weight).
    level : float, default=0.95
        Confidence level.
    rng : int, numpy.random.Generator or None, default=0
        Seed or generator; the same seed gives the same intervals.
    slope_method : {"wald", "bootstrap", None}, default="wald"
        Interval of the calibration slope and intercept. ``"wald"``: closed form,
        estimate ± z·SE with SE from the Fisher information of the logistic fit (weights
        treated as frequency weights) -- instant. ``"bootstrap"``: one logistic fit per
        replicate (about 0.1 s each at 100k rows). ``None``: leave them out.

    Returns
    -------
    dict of str to (float, float)
        ``brier``, ``log_loss``, ``ece``, ``oe_ratio`` (bootstrap percentile) and, unless
        ``slope_method`` is None, ``slope``, ``intercept`` -> ``(low, high)``. Replicates in
        which a metric is undefined (e.g. one class drawn) are left out of its
        percentiles; if fewer than half the replicates define it, or the point estimate
        is undefined (Wald), the interval is ``(nan, nan)``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> p = rng.uniform(size=300); y = (rng.uniform(size=300) < p).astype(int)
    >>> ci = calibration_intervals(y, p, n_resamples=50)
    >>> lo, hi = ci["brier"]; bool(lo < reliability(y, p).brier < hi)
    True
    >>> lo, hi = ci["slope"]; bool(lo < 1 < hi)
    True
    """
    y, p, w = _check_inputs(y_true, y_prob, sample_weight, n_bins=n_bins, strategy=strategy)
    problems = ProblemList()
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        problems.add(
            "n_resamples_invalid",
            f"n_resamples must be an integer >= 1; got {n_resamples!r}.",
            "Pass e.g. 200.",
            column="n_resamples",
        )
    check_level(level, problems)
    if slope_method not in ("wald", "bootstrap", None):
        problems.add(
            "slope_method_invalid",
            f"slope_method must be 'wald', 'bootstrap' or None; got {slope_method!r}.",
            "Pass slope_method='wald' (instant) or 'bootstrap'.",
            column="slope_method",
        )
    gen = as_generator(rng, problems)
    problems.raise_if_any()
    include_slope = slope_method == "bootstrap"
    edges = _edges(p, w, n_bins, strategy)
    k = len(edges) - 1
    idx_bin = _bin_index(p, edges)
    pc = _clip(p)
    row_ll = -(y * np.log(pc) + (1 - y) * np.log1p(-pc))
    row_br = (p - y) ** 2
    x = _logit(p)
    n = len(y)
    out = {m: np.full(n_resamples, np.nan) for m in _INTERVAL_METRICS}
    batch = max(1, min(n_resamples, _BATCH_ELEMENTS // max(n, 1)))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        draw = gen.integers(0, n, size=(b, n))
        wi = w[draw]
        W = wi.sum(axis=1)
        ok = W > 0
        Ws = np.where(ok, W, 1.0)
        sl = slice(done, done + b)
        out["brier"][sl] = np.where(ok, (wi * row_br[draw]).sum(axis=1) / Ws, np.nan)
        out["log_loss"][sl] = np.where(ok, (wi * row_ll[draw]).sum(axis=1) / Ws, np.nan)
        WY = (wi * y[draw]).sum(axis=1)
        WP = (wi * p[draw]).sum(axis=1)
        out["oe_ratio"][sl] = np.where(ok & (WP > 0), WY / np.where(WP > 0, WP, 1.0), np.nan)
        flat = (np.arange(b)[:, None] * k + idx_bin[draw]).ravel()
        bWY = np.bincount(flat, weights=(wi * y[draw]).ravel(), minlength=b * k).reshape(b, k)
        bWP = np.bincount(flat, weights=(wi * p[draw]).ravel(), minlength=b * k).reshape(b, k)
        out["ece"][sl] = np.where(ok, np.abs(bWY - bWP).sum(axis=1) / Ws, np.nan)
        if include_slope:
            for r in range(b):
                mult = np.bincount(draw[r], minlength=n) * w
                slope, intercept, _ = _logistic_fit(x, y, mult)
                out["slope"][done + r] = slope
                out["intercept"][done + r] = intercept
        done += b
    alpha = (1.0 - level) / 2.0
    result = {}
    for m in _INTERVAL_METRICS:
        if m in ("slope", "intercept") and not include_slope:
            continue
        v = out[m][np.isfinite(out[m])]
        if len(v) < max(1, n_resamples / 2):
            result[m] = (np.nan, np.nan)
        else:
            lo, hi = np.quantile(v, [alpha, 1.0 - alpha])
            result[m] = (float(lo), float(hi))
    if slope_method == "wald":
        result.update(_wald_slope_intercept(x, y, w, level))
    return result


def _wald_slope_intercept(x, y, w, level) -> dict:
    b, a, reason = _logistic_fit(x, y, w)
    if reason:
        return {"slope": (np.nan, np.nan), "intercept": (np.nan, np.nan)}
    mu = special.expit(a + b * x)
    v = w * mu * (1.0 - mu)
    # Fisher information of (intercept, slope): Xᵀ diag(v) X with X = [1, x]
    info = np.array([[v.sum(), (v * x).sum()], [(v * x).sum(), (v * x * x).sum()]])
    cov = np.linalg.inv(info)
    z = special.ndtri(0.5 + level / 2.0)  # scipy.stats.norm.ppf
    se_a, se_b = np.sqrt(np.diag(cov))
    return {"slope": (float(b - z * se_b), float(b + z * se_b)), "intercept": (float(a - z * se_a), float(a + z * se_a))}


# --------------------------------------------------------------------------- recalibration


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CalibrationMap:
    """A fitted, frozen map from a score to a calibrated probability.

    Attributes
    ----------
    method : {"platt", "isotonic", "temperature"}
    score_kind : {"probability", "score"}
        What the map takes as input: probabilities in [0, 1] or raw real-valued scores.
    slope, intercept : float
        Platt: ``p = sigmoid(slope · x + intercept)`` with ``x = logit(p_in)`` for
        probabilities, ``x = score`` for raw scores. NaN for other methods.
    temperature : float
        Temperature: ``p = sigmoid(logit(p_in) / temperature)``. NaN for other methods.
    x_knots, y_knots : ndarray
        Isotonic: the fitted step points; the map interpolates linearly between them and
        is constant outside (``out_of_bounds="clip"``). Empty for other methods.
    score_min, score_max : float
        Range of the scores the map was fitted on (the default lookup-table range).
    n : float
        Total weight of the fitting rows.
    notes : tuple of str
        Anything the user should know about the fit.
    """

    method: str
    score_kind: str
    slope: float = np.nan
    intercept: float = np.nan
    temperature: float = np.nan
    x_knots: np.ndarray = field(default_factory=lambda: np.zeros(0))
    y_knots: np.ndarray = field(default_factory=lambda: np.zeros(0))
    score_min: float = np.nan
    score_max: float = np.nan
    n: float = np.nan
    notes: tuple = ()

    def _apply(self, s: np.ndarray) -> np.ndarray:
        if self.method == "platt":
            x = _logit(s) if self.score_kind == "probability" else s
            return special.expit(self.slope * x + self.intercept)
        if self.method == "isotonic":
            return np.interp(s, self.x_knots, self.y_knots)
        return special.expit(_logit(s) / self.temperature)

    def apply(self, scores) -> np.ndarray:
        """Calibrated probabilities for ``scores`` (validated: finite, and in [0, 1] for
        ``score_kind="probability"``)."""
        s = np.asarray(scores)
        problems = ProblemList()
        if s.ndim != 1 or s.dtype.kind not in "iufb":
            problems.add(
                "scores_invalid",
                f"scores must be a one-dimensional numeric array; got shape {s.shape}, dtype {s.dtype}.",
                "Pass one number per row.",
                column="scores",
            )
            problems.raise_if_any()
        s = s.astype(np.float64)
        bad = ~np.isfinite(s)
        if bad.any():
            problems.add(
                "scores_not_finite",
                f"scores must be finite; {int(bad.sum())} values are NaN or infinite.",
                "Remove or fix those rows.",
                column="scores",
                n_rows=int(bad.sum()),
            )
        elif self.score_kind == "probability":
            _check_probabilities(problems, s, "scores")
        problems.raise_if_any()
        return self._apply(s)

    def lookup_table(self, grid=None) -> pd.DataFrame:
        """The map as a table (columns ``score``, ``calibrated``) for deployment as CSV.

        The default grid is 1001 evenly spaced points over [0, 1] (probabilities) or over
        the fitted score range (raw scores), plus every isotonic knot, so linear
        interpolation in the table reproduces the isotonic map exactly.
        """
        if grid is None:
            lo, hi = (0.0, 1.0) if self.score_kind == "probability" else (self.score_min, self.score_max)
            grid = np.union1d(np.linspace(lo, hi, 1001), self.x_knots)
        grid = np.asarray(grid, dtype=np.float64)
        return pd.DataFrame({"score": grid, "calibrated": self.apply(grid)})

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "score_kind": self.score_kind,
            "slope": _nan_to_none(self.slope),
            "intercept": _nan_to_none(self.intercept),
            "temperature": _nan_to_none(self.temperature),
            "x_knots": [float(v) for v in self.x_knots],
            "y_knots": [float(v) for v in self.y_knots],
            "score_min": _nan_to_none(self.score_min),
            "score_max": _nan_to_none(self.score_max),
            "n": _nan_to_none(self.n),
            "notes": list(self.notes),
        }


def _check_recal_inputs(y_true, y_score, sample_weight, method, score_kind):
    problems = ProblemList()
    if method not in _METHODS:
        problems.add(
            "method_invalid",
            f"method must be one of {_METHODS}; got {method!r}.",
            "Pick a recalibration method.",
            column="method",
        )
    if score_kind not in _KINDS:
        problems.add(
            "score_kind_invalid",
            f"score_kind must be one of {_KINDS}; got {score_kind!r}.",
            "Use 'probability' for scores in [0, 1], 'score' for any real-valued score.",
            column="score_kind",
        )
    elif method == "temperature" and score_kind == "score":
        problems.add(
            "temperature_needs_probabilities",
            "Temperature scaling rescales the logit of a probability, so it needs score_kind='probability'; "
            "got raw scores (score_kind='score').",
            "Use method='platt' or method='isotonic' for raw scores.",
            column="method",
        )
    try:
        y, s, w = check_binary_scores(y_true, y_score, sample_weight)
    except InputError as err:
        problems.problems.extend(err.problems)
        if score_kind == "probability":
            _check_raw_probabilities(problems, y_score, "y_score")
        raise InputError(problems.problems) from None
    _check_rows(problems, y, w)
    if score_kind == "probability":
        _check_probabilities(problems, s, "y_score")
    if len(y) and w.sum() > 0:
        keep = w > 0
        if np.all(y[keep] == y[keep][0]):
            problems.add(
                "one_class",
                f"Recalibration needs both classes; all {int(keep.sum())} rows (with positive weight) have label {int(y[keep][0])}.",
                "Use a validation set with positive and negative cases.",
                column="y_true",
            )
    problems.raise_if_any()
    return y, s, w


def _fit_map(y, s, w, method, score_kind) -> CalibrationMap:
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    common = dict(method=method, score_kind=score_kind, score_min=float(s.min()), score_max=float(s.max()), n=float(w.sum()))
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0, increasing=True).fit(s, y, sample_weight=w)
        return CalibrationMap(
            x_knots=np.array(iso.X_thresholds_, dtype=np.float64), y_knots=np.array(iso.y_thresholds_, dtype=np.float64), **common
        )
    if method == "temperature":
        x = _logit(s)
        if not np.any(x != 0):
            return CalibrationMap(
                temperature=1.0, notes=("every probability is 0.5: temperature has no effect; T = 1",), **common
            )

        def loss(log_t):
            z = x / np.exp(log_t)
            return np.sum(w * (y * np.logaddexp(0.0, -z) + (1 - y) * np.logaddexp(0.0, z))) / np.sum(w)

        from scipy import optimize

        res = optimize.minimize_scalar(loss, bounds=(np.log(1e-3), np.log(1e3)), method="bounded", options={"xatol": 1e-10})
        t = float(np.exp(res.x))
        notes = ()
        if abs(res.x - np.log(1e-3)) < 1e-6 or abs(res.x - np.log(1e3)) < 1e-6:
            notes = (f"the fitted temperature {t:g} is at the search bound [0.001, 1000]",)
        return CalibrationMap(temperature=t, notes=notes, **common)
    # Platt: logistic regression on the score, with Platt's smoothed targets
    # (N+ + 1)/(N+ + 2) and 1/(N- + 2) so that separable data still give a finite map.
    x = _logit(s) if score_kind == "probability" else s
    pos = y == 1
    n_pos, n_neg = float(w[pos].sum()), float(w[~pos].sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    if np.ptp(x) == 0:
        rate = float(np.average(t, weights=w))
        return CalibrationMap(
            slope=0.0,
            intercept=float(special.logit(rate)),
            notes=("all scores are equal: the map is the constant (smoothed) positive rate",),
            **common,
        )
    mean = np.average(x, weights=w)
    sd = np.sqrt(np.average((x - mean) ** 2, weights=w))
    z = (x - mean) / sd
    # soft targets as two weighted copies of each row: label 1 with weight w·t, 0 with w·(1−t)
    b0, a0, converged = _fit_standardised(np.r_[z, z], np.r_[np.ones(len(x)), np.zeros(len(x))], np.r_[w * t, w * (1.0 - t)])
    notes = () if converged else ("the Platt logistic fit stopped before full convergence",)
    b = b0 / sd
    a = a0 - b * mean
    return CalibrationMap(slope=b, intercept=a, notes=notes, **common)


def fit_calibration_map(y_true, y_score, *, method, score_kind="probability", sample_weight=None) -> CalibrationMap:
    """Fit a recalibration map on ``(y_true, y_score)``.

    Use this for deployment only; to *evaluate* a recalibration use
    :func:`cross_fit_calibration`, which never scores a row with a map fitted on it.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels; both classes must be present.
    y_score : array-like of shape (n,)
        Probabilities (``score_kind="probability"``) or raw real-valued scores
        (``score_kind="score"``).
    method : {"platt", "isotonic", "temperature"}
        ``"platt"``: ``sklearn.linear_model.LogisticRegression`` (unpenalised) of the label
        on the score (raw) or on ``logit(p)``, with Platt's smoothed targets.
        ``"isotonic"``: ``sklearn.isotonic.IsotonicRegression(out_of_bounds="clip",
        y_min=0, y_max=1)``. ``"temperature"``: one ``T > 0`` minimising the log loss of
        ``sigmoid(logit(p) / T)`` (``scipy.optimize.minimize_scalar`` over ``log T`` in
        [log 1e-3, log 1e3]); probabilities only.
    score_kind : {"probability", "score"}, default="probability"
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    CalibrationMap

    Raises
    ------
    InputError
        Unknown method or kind, temperature on raw scores, one class, and every
        :func:`reliability` input problem.

    Examples
    --------
    >>> m = fit_calibration_map([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9], method="isotonic")
    >>> m.apply(np.array([0.1, 0.5, 0.9])).tolist()
    [0.0, 0.5, 1.0]
    """
    y, s, w = _check_recal_inputs(y_true, y_score, sample_weight, method, score_kind)
    return _fit_map(y, s, w, method, score_kind)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CrossFitted:
    """Out-of-fold recalibration: no row is scored by a map fitted on itself.

    Attributes
    ----------
    method : str
    score_kind : str
    calibrated : ndarray of shape (n,)
        Out-of-fold calibrated probability of each row (row order as given).
    fold : ndarray of shape (n,), int
        The fold each row was held out in.
    n_folds : int
        Number of folds actually used (reduced when a class has fewer rows).
    final_map : CalibrationMap
        Map fitted on all rows -- for deployment only, never for the numbers shown.
    before : Reliability or None
        Calibration of the original scores (None for raw scores: not probabilities).
    after : Reliability
        Calibration of ``calibrated`` -- the cross-fitted numbers.
    notes : tuple of str
    """

    method: str
    score_kind: str
    calibrated: np.ndarray
    fold: np.ndarray
    n_folds: int
    final_map: CalibrationMap
    before: Reliability | None
    after: Reliability
    notes: tuple = ()

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "score_kind": self.score_kind,
            "n_folds": int(self.n_folds),
            "before": None if self.before is None else self.before.to_dict(),
            "after": self.after.to_dict(),
            "final_map": self.final_map.to_dict(),
            "notes": list(self.notes),
        }


def _seed(rng) -> int | None:
    """scikit-learn's ``random_state`` for a validated ``rng``: a Generator draws one, a seed
    (or None) is passed on, so an int gives the folds StratifiedKFold gives that int."""
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**31 - 1))
    return rng


def cross_fit_calibration(
    y_true, y_score, *, method, n_folds=5, rng=0, score_kind="probability", sample_weight=None, n_bins=10, strategy="uniform"
) -> CrossFitted:
    """Recalibrate by K-fold cross-fitting and report calibration before and after.

    Each fold's rows are calibrated by a map fitted on the other folds
    (``StratifiedKFold(n_folds, shuffle=True, random_state=rng)``), so the "after"
    metrics are honest. A map fitted on all rows is returned separately for deployment.

    Parameters
    ----------
    y_true, y_score, method, score_kind, sample_weight
        As in :func:`fit_calibration_map`.
    n_folds : int, default=5
        Requested folds (>= 2). When the smaller class has fewer rows, the folds are
        reduced to that count and a note says so; fewer than 2 rows of a class raise.
    rng : int, numpy.random.Generator or None, default=0
        Seed for the fold shuffle.
    n_bins, strategy
        Bins of the before/after reliability.

    Returns
    -------
    CrossFitted

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 400); y = (rng.uniform(size=400) < p).astype(int)
    >>> cf = cross_fit_calibration(y, p ** 2, method="platt")
    >>> bool(cf.after.ece < cf.before.ece)
    True
    """
    y, s, w = _check_recal_inputs(y_true, y_score, sample_weight, method, score_kind)
    problems = ProblemList()
    _check_options(problems, n_bins=n_bins, strategy=strategy)
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        problems.add(
            "n_folds_invalid", f"n_folds must be an integer >= 2; got {n_folds!r}.", "Pass e.g. n_folds=5.", column="n_folds"
        )
    as_generator(rng, problems)  # validated as every rng= option; an int seed goes to StratifiedKFold as it is
    problems.raise_if_any()
    n_min = int(min((y == 1).sum(), (y == 0).sum()))
    if n_min < 2:
        cls = 1 if (y == 1).sum() < (y == 0).sum() else 0
        raise InputError(
            _problem(
                "too_few_rows_for_cross_fitting",
                f"Cross-fitting needs at least 2 rows of each class; class {cls} has {n_min}.",
                "Use more validation rows, or fit a map without evaluating it (fit_calibration_map).",
            )
        )
    notes = []
    k = int(n_folds)
    if n_min < k:
        notes.append(f"folds reduced from {k} to {n_min}: the smaller class has only {n_min} rows")
        k = n_min
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=_seed(rng))
    calibrated = np.full(len(y), np.nan)
    fold = np.full(len(y), -1, dtype=np.int64)
    for f, (train, test) in enumerate(splitter.split(np.zeros((len(y), 1)), y)):
        wt = w[train]
        keep_y = y[train][wt > 0]
        if len(keep_y) == 0 or np.all(keep_y == keep_y[0]):
            raise InputError(
                _problem(
                    "fold_one_class",
                    f"Training folds for fold {f} hold only one class once zero-weight rows are ignored.",
                    "Use fewer folds or give more rows a positive weight.",
                )
            )
        fmap = _fit_map(y[train], s[train], wt, method, score_kind)
        calibrated[test] = fmap._apply(s[test])
        fold[test] = f
    final_map = _fit_map(y, s, w, method, score_kind)
    before = _reliability(y, s, w, n_bins=n_bins, strategy=strategy) if score_kind == "probability" else None
    after = _reliability(y, calibrated, w, n_bins=n_bins, strategy=strategy)
    return CrossFitted(
        method=method,
        score_kind=score_kind,
        calibrated=calibrated,
        fold=fold,
        n_folds=k,
        final_map=final_map,
        before=before,
        after=after,
        notes=tuple(notes) + final_map.notes,
    )


def _problem(code, message, fix):
    return Problem(code=code, message=message, fix=fix)


# --------------------------------------------------------------------------- segments


def segment_calibration(y_true, y_prob, segments, *, sample_weight=None, n_bins=10, strategy="uniform") -> pd.DataFrame:
    """Calibration metrics per segment level, worst segment (highest ECE) flagged.

    Parameters
    ----------
    y_true, y_prob, sample_weight, n_bins, strategy
        As in :func:`reliability` (quantile edges are computed within each segment).
    segments : array-like of shape (n,)
        Segment level of each row; missing values form their own level.

    Returns
    -------
    pandas.DataFrame
        One row per level, in sorted order when the levels sort: ``segment``, ``n``
        (weight), ``n_rows``, ``n_pos``, ``brier``, ``log_loss``, ``ece``, ``oe_ratio``,
        ``slope``, ``intercept``, ``worst`` (True for the level(s) with the highest ECE
        among levels with positive weight) and ``undefined`` (reasons, ``"; "``-joined).
        Levels whose rows all have zero weight get NaN metrics.

    Examples
    --------
    >>> df = segment_calibration([0, 1, 0, 1], [0.1, 0.9, 0.8, 0.2], ["a", "a", "b", "b"])
    >>> df[["segment", "ece", "worst"]].values.tolist()
    [['a', 0.1, False], ['b', 0.8, True]]
    """
    y, p, w = _check_inputs(y_true, y_prob, sample_weight, n_bins=n_bins, strategy=strategy)
    seg = (
        np.asarray(segments, dtype=object) if not isinstance(segments, (pd.Series, pd.Index)) else segments.to_numpy(dtype=object)
    )
    if seg.ndim != 1 or len(seg) != len(y):
        raise InputError(
            _problem(
                "segments_shape",
                f"segments must have one value per row ({len(y)}); got shape {seg.shape}.",
                "Pass the segment column of the same rows.",
            )
        )
    try:
        codes, levels = pd.factorize(seg, sort=True, use_na_sentinel=False)
    except TypeError:  # unorderable mix of types
        codes, levels = pd.factorize(seg, sort=False, use_na_sentinel=False)
    records = []
    for i, level in enumerate(levels):
        m = codes == i
        base = {"segment": level, "n": float(w[m].sum()), "n_rows": int(m.sum()), "n_pos": float(np.sum(w[m] * y[m]))}
        if not w[m].sum() > 0:
            records.append(
                base
                | {k: np.nan for k in ("brier", "log_loss", "ece", "oe_ratio", "slope", "intercept")}
                | {"undefined": "all rows of this segment have zero weight"}
            )
            continue
        r = _reliability(y[m], p[m], w[m], n_bins=n_bins, strategy=strategy)
        und = "; ".join(f"{k}: {v}" for k, v in r.undefined.items() if k != "bins")
        records.append(
            base
            | {
                "brier": r.brier,
                "log_loss": r.log_loss,
                "ece": r.ece,
                "oe_ratio": r.oe_ratio,
                "slope": r.slope,
                "intercept": r.intercept,
                "undefined": und,
            }
        )
    df = pd.DataFrame.from_records(
        records,
        columns=["segment", "n", "n_rows", "n_pos", "brier", "log_loss", "ece", "oe_ratio", "slope", "intercept", "undefined"],
    )
    e = df["ece"].to_numpy(dtype=np.float64)
    worst = np.zeros(len(df), dtype=bool)
    if np.isfinite(e).any():
        worst = np.isfinite(e) & (e == np.nanmax(e))
    df.insert(len(df.columns) - 1, "worst", worst)
    return df
