"""Uncertainty of every board number: bootstrap intervals, Wilson and DeLong (SPEC §3.4).

The engine (DESIGN §2)
----------------------
A rows bootstrap is a multinomial draw of N over the rows. Rows with the same *key* and the
same weight are interchangeable, so instead of resampling row indices we draw multinomial
counts over **cells** (distinct ``(stratum, key, weight)`` triples) and carry the weighted
key totals. This is exact, not an approximation: every replicate has the distribution a row
index bootstrap would give it. The key is what the statistic needs:

- EV at a fixed threshold: 4 keys (decision × label); a paired A/B comparison: 8 keys
  (decision A × decision B × label). B = 1000 replicates are a (1000 × 8) multinomial.
- EV after re-optimising the threshold, t_opt, the curve band and AUC: 2·k keys (every
  distinct score × label), drawn in batches of replicates. ``resolution`` bins the scores
  first (stated in the result); ``None`` is exact.

Weights: a cell groups rows with equal key *and equal weight*, so weighted data stay exact;
with all-distinct weights every row is its own cell and the draw costs as much as index
resampling (it is still exact). No Poisson approximation is used anywhere.

Schemes: ``rows`` (default); ``stratified`` (``strata=``: each stratum draws its own number
of rows from its own cells, so stratum sizes are kept); ``cluster`` (``groups=``: whole
groups are drawn with replacement — within each stratum when ``strata`` is also given —
and each drawn group adds its per-group key totals).

Intervals: percentile, or BCa with the acceleration from the exact jackknife (leaving one
row out of a cell is the same for every row of that cell, so the jackknife over cells with
multiplicities equals the row jackknife; the cluster scheme leaves out one group). z0 and
the quantiles follow :func:`scipy.stats.bootstrap` (ties count half; linear quantiles).
Or ``"bayes"``: the Bayesian bootstrap (Dirichlet weights over the same cells, each cell of m
rows a Gamma(m) total) with, for the statistics at a fixed threshold (EV, the paired
comparison), half a pseudo-row of every outcome cell — the Jeffreys prior of the cell
probabilities; the interval is the equal-tailed posterior interval (:func:`_bayesian`). It
exists for small evidence: on 300 rows at 5% positives the 95% interval of EV_B − EV_A
covers 0.94–0.95 where percentile covers 0.90–0.92 and BCa 0.87–0.88
(``tests/evalcore/test_bootstrap_coverage.py``); it is conservative on very few positives
(≈ 0.98 with 6 positive rows, or 10 positive customers in the cluster scheme) and nominal on
large samples. Its interval need not contain the estimate
when the data sit at an edge (every row in one cell: the posterior puts some mass on the
others).

Reproducibility: ``rng`` (int seed or ``np.random.Generator``). Each stratum draws from its
own child stream in replicate order, so results are identical whatever ``batch`` is.

The generic path the cell engine is tested against (index resampling of any statistic)
lives with the tests, in ``tests/evalcore/_oracle.py``: no board number uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse  # light once scipy.special is in (the board needs both); scipy.stats loads lazily
from scipy.special import ndtr, ndtri

from ._checks import as_generator, check_binary_scores, check_level
from ._errors import InputError, ProblemList
from ._json import json_float as _none
from .counts import _bin_scores, _score_counts
from .value import ValueTable, threshold_between

__all__ = [
    "BootstrapResult",
    "Comparison",
    "CurveBand",
    "OptimumBootstrap",
    "ProportionInterval",
    "MetricIntervals",
    "DelongAUC",
    "DelongDifference",
    "wilson_interval",
    "metric_intervals",
    "analytic_ev_se",
    "ev_interval",
    "compare_models",
    "optimum_interval",
    "auto_resolution",
    "auc_delong",
    "auc_delong_paired",
]

METHODS = ("percentile", "bca", "bayes")
JEFFREYS = 0.5  # method "bayes": pseudo-units of every outcome cell, per stratum (the Jeffreys prior)
_MAX_CELLS_PER_BATCH = 4_000_000  # float64 cells held per batch of replicates (~32 MB)
_MAX_JACKKNIFE_WORK = 300_000_000  # units × keys a BCa jackknife may evaluate


# --------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class BootstrapResult:
    """A bootstrap confidence interval of one statistic.

    Attributes
    ----------
    estimate : float
        The statistic on the original data.
    low, high : float
        The interval at ``level`` (NaN with a reason in ``undefined`` when it cannot be formed).
    level : float
        Confidence level, e.g. 0.95.
    standard_error : float
        Standard deviation of the bootstrap distribution (ddof=1, as SciPy).
    method : {"percentile", "bca", "bayes"}
    scheme : {"rows", "stratified", "cluster", "stratified cluster"}
    n_resamples : int
    distribution : ndarray of shape (n_resamples,) or None
        The replicates (NaN where a replicate's statistic is undefined).
    n_undefined : int
        Replicates whose statistic was undefined (e.g. one class for AUC); they are left
        out of the interval and said so in ``undefined["replicates"]``.
    undefined : dict
        Field → reason for each NaN field (and ``"replicates"`` when some were dropped).
    """

    estimate: float
    low: float
    high: float
    level: float
    standard_error: float
    method: str
    scheme: str
    n_resamples: int
    distribution: np.ndarray | None = None
    n_undefined: int = 0
    undefined: dict = field(default_factory=dict)

    @property
    def interval(self) -> tuple[float, float]:
        return (self.low, self.high)

    def to_dict(self) -> dict:
        return {
            "estimate": _none(self.estimate),
            "ci": [_none(self.low), _none(self.high)],
            "level": self.level,
            "standard_error": _none(self.standard_error),
            "method": self.method,
            "scheme": self.scheme,
            "n_resamples": self.n_resamples,
            "n_undefined": self.n_undefined,
            "undefined": dict(self.undefined),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Comparison:
    """Paired bootstrap comparison of model B against model A on the same rows.

    Attributes
    ----------
    a, b : str
        Model names.
    threshold_a, threshold_b : float
    ev_a, ev_b : BootstrapResult
        EV per decision of each model, from the *same* resampled rows.
    diff : BootstrapResult
        EV_B − EV_A.
    p_b_better : float
        Share of replicates with EV_B − EV_A > 0 (ties count as not better).
    verdict : {"better", "worse", "no significant difference", "undefined"}
        "better"/"worse" only when the interval of the difference excludes 0.
    verdict_text : str
        The plain sentence the board shows.
    scheme : str
    """

    a: str
    b: str
    threshold_a: float
    threshold_b: float
    ev_a: BootstrapResult
    ev_b: BootstrapResult
    diff: BootstrapResult
    p_b_better: float
    verdict: str
    verdict_text: str
    scheme: str

    def to_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "threshold_a": _none(self.threshold_a),
            "threshold_b": _none(self.threshold_b),
            "ev_a": _none(self.ev_a.estimate),
            "ev_a_ci": [_none(self.ev_a.low), _none(self.ev_a.high)],
            "ev_b": _none(self.ev_b.estimate),
            "ev_b_ci": [_none(self.ev_b.low), _none(self.ev_b.high)],
            "diff_ev": _none(self.diff.estimate),
            "diff_ev_ci": [_none(self.diff.low), _none(self.diff.high)],
            "diff_ev_se": _none(self.diff.standard_error),
            "p_b_better": _none(self.p_b_better),
            "verdict": self.verdict,
            "verdict_text": self.verdict_text,
            "level": self.diff.level,
            "method": self.diff.method,
            "scheme": self.scheme,
            "n_resamples": self.diff.n_resamples,
            "undefined": {
                "ev_a": dict(self.ev_a.undefined),
                "ev_b": dict(self.ev_b.undefined),
                "diff": dict(self.diff.undefined),
            },
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CurveBand:
    """Pointwise percentile interval of EV(t) at grid thresholds.

    Attributes
    ----------
    grid : ndarray of shape (G,)
        Thresholds (act iff score >= t).
    estimate, low, high : ndarray of shape (G,)
        EV on the data and its pointwise interval (not a simultaneous band).
    level : float
    """

    grid: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float

    def as_tuple(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(grid, low, high)``, the form ``board.charts.value_curve_figure(bands=…)`` takes."""
        return self.grid, self.low, self.high

    def to_dict(self) -> dict:
        return {
            "grid": [_none(x) for x in self.grid],
            "estimate": [_none(x) for x in self.estimate],
            "low": [_none(x) for x in self.low],
            "high": [_none(x) for x in self.high],
            "level": self.level,
            "pointwise": True,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class OptimumBootstrap:
    """Everything that needs the whole curve in every replicate, from one pass.

    Attributes
    ----------
    ev_opt : BootstrapResult
        EV after re-optimising the threshold in every replicate (the second question of
        SPEC §3.4: "how good is the best threshold we could pick").
    t_opt : BootstrapResult
        The maximising threshold (midpoint rule of :class:`evalcore.value.ValueCurve`);
        its ``distribution`` feeds the histogram. ``+inf`` means "act on no one".
    auc : BootstrapResult
    band : CurveBand
    resolution : float or None
        Score binning used (None: exact).
    n_thresholds : int
        Distinct (binned) scores, i.e. k.
    """

    ev_opt: BootstrapResult
    t_opt: BootstrapResult
    auc: BootstrapResult
    band: CurveBand
    resolution: float | None
    n_thresholds: int

    def to_dict(self) -> dict:
        return {
            "ev_opt": self.ev_opt.to_dict(),
            "t_opt": self.t_opt.to_dict(),
            "auc": self.auc.to_dict(),
            "t_opt_ci": [_none(self.t_opt.low), _none(self.t_opt.high)],
            "band": self.band.to_dict(),
            "resolution": self.resolution,
            "n_thresholds": self.n_thresholds,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ProportionInterval:
    """A proportion with its Wilson interval; NaN with a reason when the denominator is 0."""

    estimate: float
    low: float
    high: float
    successes: float
    n: float
    level: float
    undefined: str = ""

    def to_dict(self) -> dict:
        return {
            "estimate": _none(self.estimate),
            "ci": [_none(self.low), _none(self.high)],
            "successes": float(self.successes),
            "n": float(self.n),
            "level": self.level,
            "undefined": self.undefined or None,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MetricIntervals:
    """Wilson intervals of the SPEC §3.1 proportions at one threshold (F1 has none: not a proportion)."""

    accuracy: ProportionInterval
    precision: ProportionInterval
    recall: ProportionInterval
    specificity: ProportionInterval
    fpr: ProportionInterval
    positive_rate: ProportionInterval

    def items(self):
        return [(k, getattr(self, k)) for k in ("accuracy", "precision", "recall", "specificity", "fpr", "positive_rate")]

    def to_dict(self) -> dict:
        return {k: v.to_dict() for k, v in self.items()}


class DelongAUC(NamedTuple):
    auc: float
    low: float
    high: float
    se: float


class DelongDifference(NamedTuple):
    diff: float
    low: float
    high: float
    se: float
    p_value: float


# --------------------------------------------------------------------------------------
# closed forms: Wilson, DeLong, analytic SE
# --------------------------------------------------------------------------------------


def _z(level: float) -> float:
    return float(ndtri(0.5 + level / 2.0))


def wilson_interval(successes, n, *, level: float = 0.95):
    """Wilson score interval of a proportion (scalar or vectorised).

    Parameters
    ----------
    successes, n : float or array-like
        Number of successes and trials (weighted counts are accepted as they are).
        ``n == 0`` gives NaN (undefined), never 0.
    level : float, default=0.95

    Returns
    -------
    low, high : float or ndarray

    Notes
    -----
    centre = (p̂ + z²/2n) / (1 + z²/n), half-width = z/(1 + z²/n)·√(p̂(1−p̂)/n + z²/4n²).

    Examples
    --------
    >>> lo, hi = wilson_interval(8, 10)  # same as statsmodels proportion_confint(8, 10, method="wilson")
    >>> round(lo, 4), round(hi, 4)
    (0.4902, 0.9433)
    """
    problems = ProblemList()
    check_level(level, problems)
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    if np.any(~np.isfinite(k)) or np.any(~np.isfinite(m)) or np.any(m < 0) or np.any(k < 0) or np.any(k > m * (1 + 1e-12)):
        problems.add(
            "wilson_counts",
            "successes and n must be finite with 0 <= successes <= n.",
            "Pass counts, not rates.",
            column="successes",
        )
    problems.raise_if_any()
    z = _z(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        denom = 1.0 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def metric_intervals(tp, fp, fn, tn, *, level: float = 0.95) -> MetricIntervals:
    """Wilson intervals of accuracy, precision, recall, specificity, FPR and positive rate.

    Parameters
    ----------
    tp, fp, fn, tn : float
        Confusion counts at one threshold (e.g. ``Confusion.tp`` …).
    level : float, default=0.95

    Returns
    -------
    MetricIntervals
        A metric with a zero denominator is NaN with the reason (as SPEC §3.1).

    Examples
    --------
    >>> m = metric_intervals(8, 12, 2, 78)
    >>> round(m.recall.estimate, 2), round(m.recall.low, 4)
    (0.8, 0.4902)
    """
    vals = [float(x) for x in (tp, fp, fn, tn)]
    if any(not np.isfinite(x) or x < 0 for x in vals):
        raise InputError(f"tp, fp, fn, tn must be finite and >= 0; got {vals}.")
    problems = ProblemList()
    check_level(level, problems)
    problems.raise_if_any()
    tp, fp, fn, tn = vals
    n = tp + fp + fn + tn

    def one(k, m, reason):
        if m == 0:
            return ProportionInterval(
                estimate=float("nan"), low=float("nan"), high=float("nan"), successes=k, n=m, level=level, undefined=reason
            )
        lo, hi = wilson_interval(k, m, level=level)
        return ProportionInterval(estimate=k / m, low=lo, high=hi, successes=k, n=m, level=level)

    return MetricIntervals(
        accuracy=one(tp + tn, n, "no rows"),
        precision=one(tp, tp + fp, "no predicted positives at this threshold"),
        recall=one(tp, tp + fn, "no positive cases"),
        specificity=one(tn, tn + fp, "no negative cases"),
        fpr=one(fp, fp + tn, "no negative cases"),
        positive_rate=one(tp + fp, n, "no rows"),
    )


def _delong_components(y: np.ndarray, scores: np.ndarray):
    """Structural components (Sun & Xu 2014 fast DeLong) for each score column."""
    pos = scores[:, y == 1]
    neg = scores[:, y == 0]
    m, n = pos.shape[1], neg.shape[1]
    from scipy.stats import rankdata

    tx = rankdata(pos, axis=1)
    ty = rankdata(neg, axis=1)
    tz = rankdata(np.concatenate([pos, neg], axis=1), axis=1)
    auc = (tz[:, :m].sum(axis=1) / m - (m + 1) / 2.0) / n
    v01 = (tz[:, :m] - tx) / n  # per positive: share of negatives below (ties half)
    v10 = 1.0 - (tz[:, m:] - ty) / m  # per negative: share of positives above (ties half)
    s01 = np.atleast_2d(np.cov(v01))
    s10 = np.atleast_2d(np.cov(v10))
    return auc, s01 / m + s10 / n


def _check_delong(y_true, scores_list, level):
    y = None
    ss = []
    for s in scores_list:
        y, s_, _ = check_binary_scores(y_true, s)
        ss.append(s_)
    problems = ProblemList()
    check_level(level, problems)
    problems.raise_if_any()
    n_pos = int((y == 1).sum())
    n_neg = len(y) - n_pos
    return y, np.vstack(ss), n_pos, n_neg


def auc_delong(y_true, y_score, *, level: float = 0.95) -> DelongAUC:
    """ROC AUC with the DeLong (1988) closed-form interval (unweighted rows).

    Returns
    -------
    DelongAUC
        ``(auc, low, high, se)``; the interval is ``auc ± z·se`` clipped to [0, 1]. All NaN
        when one class is absent; ``se`` and the interval are NaN with fewer than 2 rows of
        a class (the variance needs two).

    Examples
    --------
    >>> r = auc_delong([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r.auc  # pairs (pos, neg): 0.35>0.1, 0.35<0.4, 0.8>0.1, 0.8>0.4 -> 3/4
    0.75
    """
    y, s, n_pos, n_neg = _check_delong(y_true, [y_score], level)
    nan = float("nan")
    if n_pos == 0 or n_neg == 0:
        return DelongAUC(nan, nan, nan, nan)
    auc, cov = _delong_components(y, s)
    auc = float(auc[0])
    if n_pos < 2 or n_neg < 2:
        return DelongAUC(auc, nan, nan, nan)
    se = float(np.sqrt(cov[0, 0]))
    z = _z(level)
    return DelongAUC(auc, max(0.0, auc - z * se), min(1.0, auc + z * se), se)


def auc_delong_paired(y_true, score_a, score_b, *, level: float = 0.95) -> DelongDifference:
    """AUC_B − AUC_A on the same rows with DeLong's paired variance; two-sided normal p-value.

    Returns
    -------
    DelongDifference
        ``(diff, low, high, se, p_value)``; NaN when one class is absent.
    """
    y, s, n_pos, n_neg = _check_delong(y_true, [score_a, score_b], level)
    nan = float("nan")
    if n_pos == 0 or n_neg == 0:
        return DelongDifference(nan, nan, nan, nan, nan)
    auc, cov = _delong_components(y, s)
    diff = float(auc[1] - auc[0])
    if n_pos < 2 or n_neg < 2:
        return DelongDifference(diff, nan, nan, nan, nan)
    var = float(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    se = float(np.sqrt(max(var, 0.0)))
    z = _z(level)
    p = float(2 * ndtr(-abs(diff) / se)) if se > 0 else (1.0 if diff == 0 else 0.0)
    return DelongDifference(diff, diff - z * se, diff + z * se, se, p)


def _prevalence_weights(n_pos, n, prevalence):
    """(α, β) per replicate, the rule of ``value.price_curve``: (1, 1) without a production
    prevalence; π/p̂ and (1−π)/(1−p̂) with one; NaN where a resample has one class only (nothing
    to reweight), so that replicate is undefined and counted, as the point estimate would be."""
    n_pos = np.asarray(n_pos, dtype=float)
    if prevalence is None:
        one = np.ones_like(n_pos)
        return one, one
    with np.errstate(invalid="ignore", divide="ignore"):
        base = n_pos / np.asarray(n, dtype=float)
        ok = (base > 0) & (base < 1)
        return np.where(ok, prevalence / base, np.nan), np.where(ok, (1 - prevalence) / (1 - base), np.nan)


def _ev_from_cells(tp, fp, fn, tn, v: np.ndarray, prevalence):
    """EV per decision from (weighted) cells, vectorised; the rule of ``value.price_curve``."""
    tp, fp, fn, tn = (np.asarray(x, dtype=float) for x in (tp, fp, fn, tn))
    n_pos = tp + fn
    n_neg = fp + tn
    n = n_pos + n_neg
    alpha, beta = _prevalence_weights(n_pos, n, prevalence)
    with np.errstate(invalid="ignore", divide="ignore"):
        num = alpha * (v[0] * tp + v[2] * fn) + beta * (v[1] * fp + v[3] * tn)
        den = alpha * n_pos + beta * n_neg
        return np.where(den > 0, num / den, np.nan)


def analytic_ev_se(y_true, y_score, table: ValueTable, *, threshold: float, sample_weight=None) -> float:
    """Instant standard error of EV at a threshold: std of the per-row value ÷ √N.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    table : ValueTable
    threshold : float
        Act iff ``score >= threshold``.
    sample_weight : array-like of shape (n,), default=None

    Returns
    -------
    float
        Unweighted, no production prevalence: ``np.std(x) / sqrt(N)`` with x the value of
        each row's outcome (ddof=0, the bootstrap's own variance of a mean). With weights,
        the linearised SE of the weighted mean, √Σw²(x−EV)² / Σw. With a production
        prevalence π, EV = π·mean(x | pos) + (1−π)·mean(x | neg) and the SE is that of this
        post-stratified mean (each row centred on its class mean, scaled by π/p̂ or
        (1−π)/(1−p̂)). NaN when there are no rows of positive weight.

    Examples
    --------
    >>> t = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
    >>> se = analytic_ev_se([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], t, threshold=0.5)
    >>> round(se, 6)  # x = [10, -2, -10, 0]: mean -0.5, Σ(x - mean)² = 203, √(203/4) / √4
    3.561952
    """
    y, s, w = check_binary_scores(y_true, y_score, sample_weight)
    _check_threshold(threshold, "threshold")
    act = s >= threshold
    v = table.vector()
    x = np.where(act, np.where(y == 1, v[0], v[1]), np.where(y == 1, v[2], v[3]))
    total = w.sum()
    if total <= 0:
        return float("nan")
    pos = y == 1
    wp, wn = w[pos].sum(), w[~pos].sum()
    if table.prevalence is not None and wp > 0 and wn > 0:
        base = wp / total
        pi = table.prevalence
        mp = (w[pos] * x[pos]).sum() / wp
        mn = (w[~pos] * x[~pos]).sum() / wn
        infl = np.where(pos, pi / base * (x - mp), (1 - pi) / (1 - base) * (x - mn))
    else:
        ev = (w * x).sum() / total
        infl = x - ev
    return float(np.sqrt(np.sum((w * infl) ** 2)) / total)


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def _check_threshold(t, name):
    try:
        f = float(t)
    except (TypeError, ValueError):
        f = float("nan")
    if not (np.isfinite(f) or f == np.inf):
        raise InputError(f"{name} must be a finite number or +inf (act on no one); got {t!r}.")
    return f


def _codes(x, name: str, n: int, problems: ProblemList):
    if x is None:
        return None
    arr = np.asarray(x)
    if arr.ndim != 1 or len(arr) != n:
        problems.add(
            f"{name}_shape",
            f"{name} must have one value per row ({n}); got shape {arr.shape}.",
            f"Pass the {name} column of the same rows.",
            column=name,
        )
        return None
    codes, _ = pd.factorize(pd.Series(arr), use_na_sentinel=True)
    bad = codes < 0
    if bad.any():
        rows = (np.flatnonzero(bad)[:5] + 2).tolist()
        problems.add(
            f"{name}_missing",
            f"{name} has {int(bad.sum())} missing values.",
            "Fill them (e.g. with an explicit 'unknown' level) or drop those rows.",
            column=name,
            rows=rows,
            n_rows=int(bad.sum()),
        )
        return None
    return codes.astype(np.int64)


def _check_options(problems: ProblemList, n_resamples, level, method, batch=None):
    if not (isinstance(n_resamples, (int, np.integer)) and not isinstance(n_resamples, bool) and n_resamples >= 2):
        problems.add(
            "n_resamples", f"n_resamples must be an integer >= 2; got {n_resamples!r}.", "Use e.g. 1000.", column="n_resamples"
        )
    check_level(level, problems)
    if method not in METHODS:
        problems.add(
            "method", f"method must be one of {METHODS}; got {method!r}.", "Use 'percentile', 'bca' or 'bayes'.", column="method"
        )
    if batch is not None and not (isinstance(batch, (int, np.integer)) and not isinstance(batch, bool) and batch >= 1):
        problems.add("batch", f"batch must be a positive integer or None; got {batch!r}.", "Use e.g. 100.", column="batch")


def _scheme_name(strata, groups) -> str:
    if groups is not None:
        return "stratified cluster" if strata is not None else "cluster"
    return "stratified" if strata is not None else "rows"


# --------------------------------------------------------------------------------------
# the cell engine
# --------------------------------------------------------------------------------------

MAX_EXACT_SCORES = 20_000  # as evalcore.results.MAX_EXACT_SCORES: the board's limit of exact scores


def auto_resolution(y_score, *, max_exact_scores: int = MAX_EXACT_SCORES) -> float | None:
    """The score grid the board's re-optimising bootstrap uses for these scores: None (exact)
    up to ``max_exact_scores`` distinct scores, else 1e-4 for scores within [0, 1] and 1e-4 of
    the score range otherwise (:func:`evalcore.results.bootstrap_resolution`, which knows the
    score kind; the kind is guessed here from the range). Functions whose cost grows with
    distinct scores × resamples default to it.

    Examples
    --------
    >>> auto_resolution([0.1, 0.2, 0.2]), auto_resolution(np.linspace(0, 1, 30_000))
    (None, 0.0001)
    >>> auto_resolution(np.linspace(-5, 5, 30_000))   # raw scores: 1e-4 of their range
    0.001
    """
    s = np.asarray(y_score, dtype=np.float64)
    s = s[np.isfinite(s)]
    if len(s) == 0 or len(np.unique(s)) <= max_exact_scores:
        return None
    lo, hi = float(s.min()), float(s.max())
    if lo >= 0.0 and hi <= 1.0:
        return 1e-4
    return float((hi - lo) * 1e-4) or None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class _Design:
    """Resampling units (cells of rows, or groups), sorted by stratum.

    ``counts @ contrib`` gives the weighted key totals of a replicate whose unit draw
    counts are ``counts``; leaving one row (or group) of unit u out subtracts ``contrib[u]``.
    """

    scheme: str
    n_keys: int
    strata: tuple  # (start, stop, n_draws) per stratum, over units
    p: np.ndarray  # draw probability of each unit within its stratum
    mult: np.ndarray  # rows of the unit (rows scheme) or 1 (cluster): jackknife multiplicity
    unit_key: np.ndarray | None  # rows scheme: the key of the unit
    unit_w: np.ndarray | None  # rows scheme: the weight of one row of the unit
    group_keys: np.ndarray | None  # cluster: (n_units, n_keys) dense or csr per-group totals
    full: np.ndarray  # key totals of the original data
    unique_keys: bool = False  # rows scheme with one unit per key: scatter instead of a sparse product
    collapsed: bool = False  # cluster: units are classes of groups with one key profile (multinomial draws)
    shape: np.ndarray | None = None  # method "bayes": Gamma shape of each unit (None: multinomial draws)

    @property
    def n_units(self) -> int:
        return len(self.p)

    def keys(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.float64)  # (float counts of the cluster draw: as they are)
        if self.unit_key is not None:
            if self.unique_keys:
                out = np.zeros((counts.shape[0], self.n_keys))
                out[:, self.unit_key] = counts * self.unit_w
                return out
            m = sparse.csr_matrix((self.unit_w, (np.arange(self.n_units), self.unit_key)), shape=(self.n_units, self.n_keys))
            return np.asarray((m.T @ counts.T).T)
        g = self.group_keys
        if sparse.issparse(g):
            return np.asarray((g.T @ counts.T).T)
        return counts @ g

    def leave_one_out(self, units: np.ndarray) -> np.ndarray:
        """Key totals with one row (or group) of each of ``units`` removed: (len(units), n_keys)."""
        out = np.repeat(self.full[None, :], len(units), axis=0)
        if self.unit_key is not None:
            out[np.arange(len(units)), self.unit_key[units]] -= self.unit_w[units]
        else:
            g = self.group_keys[units]
            out -= g.toarray() if sparse.issparse(g) else g
        return out


def _group_strata(groups: np.ndarray, s: np.ndarray, *, check: bool) -> np.ndarray:
    """The stratum of each group (codes 0..G-1). With ``check``, every group must lie inside one
    stratum, else InputError (a stratified cluster bootstrap cannot split a group)."""
    g_stratum = np.zeros(int(groups.max()) + 1, np.int64)
    g_stratum[groups] = s
    if check:
        mixed = np.zeros(len(g_stratum), bool)
        np.logical_or.at(mixed, groups, g_stratum[groups] != s)
        if mixed.any():
            raise InputError(
                f"{int(mixed.sum())} groups span more than one stratum; a stratified cluster bootstrap "
                "needs every group inside one stratum. Drop strata or use a coarser group."
            )
    return g_stratum


def _units_design(scheme: str, n_keys: int, u_s, u_k, u_w, mult) -> _Design:
    """A rows-scheme design from its units (stratum, key, weight of one row, number of rows),
    units sorted by stratum: each stratum draws as many rows as it has, from its own units."""
    full = np.bincount(u_k, weights=u_w * mult, minlength=n_keys).astype(float)
    bounds = np.flatnonzero(np.r_[True, u_s[1:] != u_s[:-1]])
    stops = np.r_[bounds[1:], len(u_s)]
    strata_t = tuple((int(a), int(b), int(mult[a:b].sum())) for a, b in zip(bounds, stops))
    p = np.empty(len(u_s))
    for a, b, m in strata_t:
        p[a:b] = mult[a:b] / m
    return _Design(
        scheme=scheme,
        n_keys=n_keys,
        strata=strata_t,
        p=p,
        mult=mult,
        unit_key=u_k,
        unit_w=u_w,
        group_keys=None,
        full=full,
        unique_keys=len(np.unique(u_k)) == len(u_k),
    )


def _design(keys: np.ndarray, n_keys: int, w: np.ndarray, strata, groups) -> _Design:
    n = len(keys)
    s = strata if strata is not None else np.zeros(n, np.int64)
    scheme = _scheme_name(strata, groups)
    if groups is None:
        # units: distinct (stratum, key, weight); rows of a unit are interchangeable
        n_strata = int(s.max()) + 1
        if n and np.all(w == w[0]) and n_strata * n_keys <= 4 * n + 1024:
            # one weight: a counting pass (O(n)) finds the units, no sort needed
            code_counts = np.bincount(s * n_keys + keys, minlength=n_strata * n_keys)
            code = np.flatnonzero(code_counts)
            mult = code_counts[code].astype(np.int64)
            u_s, u_k, u_w = code // n_keys, code % n_keys, np.full(len(code), w[0])
        else:
            order = np.lexsort((w, keys, s))
            so, ko, wo = s[order], keys[order], w[order]
            start = np.r_[True, (so[1:] != so[:-1]) | (ko[1:] != ko[:-1]) | (wo[1:] != wo[:-1])]
            idx = np.flatnonzero(start)
            mult = np.diff(np.r_[idx, n]).astype(np.int64)
            u_s, u_k, u_w = so[idx], ko[idx], wo[idx]
        return _units_design(scheme, n_keys, u_s, u_k, u_w, mult)
    # cluster: units are groups; a group's stratum must be unique
    n_groups = int(groups.max()) + 1
    g_stratum = _group_strata(groups, s, check=strata is not None)
    order = np.argsort(g_stratum, kind="stable")  # units (groups) sorted by stratum
    rank = np.empty(n_groups, np.int64)
    rank[order] = np.arange(n_groups)
    gk = sparse.csr_matrix((w, (rank[groups], keys)), shape=(n_groups, n_keys))
    gk.sum_duplicates()
    if n_keys <= 64:
        gk = gk.toarray()
    so = g_stratum[order]
    bounds = np.flatnonzero(np.r_[True, so[1:] != so[:-1]])
    stops = np.r_[bounds[1:], n_groups]
    strata_t = tuple((int(a), int(b), int(b - a)) for a, b in zip(bounds, stops))
    p = np.empty(n_groups)
    for a, b, m in strata_t:
        p[a:b] = 1.0 / m
    full = np.asarray(gk.sum(axis=0)).ravel().astype(float)
    return _collapse(
        _Design(
            scheme=scheme,
            n_keys=n_keys,
            strata=strata_t,
            p=p,
            mult=np.ones(n_groups, np.int64),
            unit_key=None,
            unit_w=None,
            group_keys=gk,
            full=full,
        )
    )


def _collapse(design: _Design) -> _Design:
    """A cluster design with few keys (dense per-group totals), its groups merged into classes
    of identical key profiles. Drawing m groups uniformly with replacement and summing their
    profiles has the distribution of drawing class counts ~ Multinomial(m, size / m) times
    the profiles, so replicates cost O(classes), not O(groups); the jackknife leaves one group
    of a class out, with the class size as multiplicity. Sparse designs (the re-optimising
    bootstrap, whose profiles are nearly all distinct) are returned as they are."""
    g = design.group_keys
    if design.scheme not in ("cluster", "stratified cluster") or sparse.issparse(g) or design.collapsed:
        return design
    profiles, strata, p, mult = [], [], [], []
    start = 0
    for a, z, m in design.strata:
        prof, size = _unique_rows(g[a:z])
        profiles.append(prof)
        strata.append((start, start + len(prof), int(m)))
        p.append(size / m)
        mult.append(size.astype(np.int64))
        start += len(prof)
    return _Design(
        scheme=design.scheme,
        n_keys=design.n_keys,
        strata=tuple(strata),
        p=np.concatenate(p),
        mult=np.concatenate(mult),
        unit_key=None,
        unit_w=None,
        group_keys=np.concatenate(profiles),
        full=design.full,
        collapsed=True,
    )


def _unique_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(x, axis=0, return_counts=True)`` of a 2-D array of finite floats, equal to it:
    rows are numbered by hashing (pandas' factorize per column, combined into one integer key)
    and only the distinct rows are sorted (lexicographically, as np.unique sorts rows) — at
    hundreds of thousands of groups with few distinct profiles that is several times faster
    than sorting every row."""
    n, k = x.shape
    if n == 0 or k == 0 or not np.isfinite(x).all():
        return np.unique(x, axis=0, return_counts=True)
    key, radix = np.zeros(n, np.int64), 1
    for j in range(k):
        c, u = pd.factorize(x[:, j], use_na_sentinel=False)
        radix *= max(len(u), 1)
        if radix >= 2**62:
            return np.unique(x, axis=0, return_counts=True)
        key = key * max(len(u), 1) + c
    codes, uniq = pd.factorize(key)
    m = len(uniq)
    first = np.empty(m, np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)  # each class's first row
    prof = x[first]
    size = np.bincount(codes, minlength=m)
    order = np.lexsort(prof.T[::-1])  # by column 0, then 1, …
    return prof[order], size[order]


def _bayesian(design: _Design, prior: float) -> _Design:
    """The design of the Bayesian bootstrap (method "bayes"), with ``prior`` pseudo-units of
    every key in each stratum.

    Rubin's (1981) Bayesian bootstrap gives every row (cluster: every group) an Exp(1) weight
    and normalises: the posterior of a distribution on the observed rows under a flat
    Dirichlet. A unit of m interchangeable rows then carries a Gamma(m) total, so the draw
    stays per cell. Within a stratum the weights are normalised to the stratum's rows (or
    groups), so strata keep their size as in the stratified bootstrap.

    Alone it under-covers as the percentile bootstrap does when an outcome is rare: a cell
    seen twice can only be redrawn, a cell never seen has no mass. With ``prior > 0``
    (:data:`JEFFREYS` = 1/2 for the statistics at a fixed threshold, whose keys are the
    outcome cells) each stratum gains, for every key, a pseudo-unit of Gamma(prior) mass:
    rows — one row of that key with the stratum's mean row weight; clusters — a group of the
    stratum's mean group total, all of that key. That is the posterior Dirichlet(counts + 1/2)
    of the outcome cells (the Jeffreys prior of a multinomial), whose intervals keep their
    level where the percentile bootstrap does not (``test_bootstrap_coverage.py``). The
    original data's key totals (``full``, the estimate) do not include the pseudo-units.
    """
    shape = design.mult.astype(np.float64)
    if prior <= 0 or (design.unit_key is None and sparse.issparse(design.group_keys)):
        return replace(design, shape=shape)
    k = design.n_keys
    strata, p, mult, shapes, keys, ws, profiles = [], [], [], [], [], [], []
    start = 0
    for a, z, m in design.strata:
        u = z - a
        strata.append((start, start + u + k, m))
        p += [design.p[a:z], np.zeros(k)]
        mult += [design.mult[a:z], np.zeros(k, np.int64)]
        shapes += [shape[a:z], np.full(k, float(prior))]
        if design.unit_key is not None:
            w_mean = float(np.sum(design.unit_w[a:z] * design.mult[a:z]) / np.sum(design.mult[a:z]))
            keys += [design.unit_key[a:z], np.arange(k)]
            ws += [design.unit_w[a:z], np.full(k, w_mean)]
        else:
            g = design.group_keys[a:z]
            mean_total = float(np.sum(g.sum(axis=1) * design.mult[a:z]) / m)
            profiles += [g, np.eye(k) * mean_total]
        start += u + k
    rows = design.unit_key is not None
    return replace(
        design,
        strata=tuple(strata),
        p=np.concatenate(p),
        mult=np.concatenate(mult),
        unit_key=np.concatenate(keys) if rows else None,
        unit_w=np.concatenate(ws) if rows else None,
        group_keys=None if rows else np.concatenate(profiles),
        unique_keys=False,
        shape=np.concatenate(shapes),
    )


def _draw(design: _Design, gens, b: int, reuse: dict | None = None) -> np.ndarray:
    """The draw counts (or Bayesian weights) of ``b`` replicates: (b, units). ``reuse``: a dict in
    which the uniform group draw keeps its buffers from batch to batch (it writes every unit of
    them): at 316k customers a fresh 30 MB array per batch is mostly the kernel's page faults."""
    if design.shape is not None:  # the Bayesian bootstrap: Dirichlet weights, scaled to each stratum's size
        weights = np.zeros((b, design.n_units))
        for (a, z, m), g in zip(design.strata, gens):
            gam = g.standard_gamma(design.shape[a:z], size=(b, z - a))
            weights[:, a:z] = m * gam / gam.sum(axis=1, keepdims=True)
        return weights
    uniform = design.unit_key is None and not design.collapsed  # groups drawn one by one
    reuse = {} if reuse is None else reuse
    if uniform and sparse.issparse(design.group_keys):
        # the sparse product of :meth:`_Design.keys` reads the counts as (units, b) float rows: made
        # so here, it needs no converted or transposed copy of them; the counts are whole numbers
        # either way. Each replicate is counted into a row of an int32 scratch array first and the
        # batch copied across at the end: writing a replicate straight into its column of the
        # (units, b) array touches one cache line per unit, twice the time of counting it.
        counts = _buffer(reuse, "t", (design.n_units, b), np.float64).T
        rows = _buffer(reuse, "rows", (b, design.n_units), np.int32)
    else:
        counts = rows = np.zeros((b, design.n_units), np.int64)
    for (a, z, m), g in zip(design.strata, gens):
        if uniform:
            # cluster: m groups drawn uniformly with replacement — m uniform integers per
            # replicate are that multinomial, and much cheaper than m binomial splits
            # (one call for the whole batch: the draws do not depend on how the counting is
            # split; counting a replicate at a time keeps its u counts in cache, ~1.5x faster)
            u = z - a
            idx = g.integers(0, u, size=(b, m))
            for r in range(b):
                rows[r, a:z] = np.bincount(idx[r], minlength=u)
        else:
            p = design.p[a:z]
            counts[:, a:z] = g.multinomial(m, p / p.sum(), size=b)
    if rows is not counts:
        counts[...] = rows
    return counts


def _buffer(store: dict, name: str, shape: tuple, dtype) -> np.ndarray:
    """``store[name]``, made anew unless it already has this shape (contents: whatever was left)."""
    buf = store.get(name)
    if buf is None or buf.shape != shape:
        buf = store[name] = np.empty(shape, dtype)
    return buf


def _replicates(design: _Design, rng, n_resamples: int, batch: int | None, stat: Callable, progress=None):
    """Run ``stat(keys) -> dict of arrays (b, ...)`` over all replicates in batches."""
    gens = as_generator(rng).spawn(len(design.strata))
    if batch is None:
        batch = max(1, min(n_resamples, _MAX_CELLS_PER_BATCH // max(design.n_units, design.n_keys, 1)))
    parts: dict[str, list] = {}
    done = 0
    buffers: dict = {}
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        counts = _draw(design, gens, b, buffers)  # (stat keeps nothing of the counts: reusable)
        res = stat(design.keys(counts))
        for k, v in res.items():
            parts.setdefault(k, []).append(v)
        done += b
        if progress is not None:
            progress(done, n_resamples)
    return {k: np.concatenate(v, axis=0) for k, v in parts.items()}


def _jackknife(design: _Design, stat: Callable, names) -> dict:
    """Exact leave-one-row-out (rows) / leave-one-group-out (cluster) values and multiplicities."""
    batch = max(1, _MAX_CELLS_PER_BATCH // max(design.n_keys, 1))
    parts: dict[str, list] = {k: [] for k in names}
    for a in range(0, design.n_units, batch):
        units = np.arange(a, min(design.n_units, a + batch))
        res = stat(design.leave_one_out(units))
        for k in names:
            parts[k].append(res[k])
    return {k: np.concatenate(v) for k, v in parts.items()}


# --------------------------------------------------------------------------------------
# intervals from a bootstrap distribution
# --------------------------------------------------------------------------------------


def _quantile(sorted_x: np.ndarray, q: float) -> float:
    """Linear-interpolation quantile (numpy's default) that keeps ±inf instead of NaN."""
    n = len(sorted_x)
    pos = q * (n - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, n - 1)
    a, b = sorted_x[lo], sorted_x[hi]
    frac = pos - lo
    if a == b or frac == 0:
        return float(a)
    return float(a + (b - a) * frac)


def _acceleration(theta_i: np.ndarray, mult: np.ndarray) -> float:
    ok = np.isfinite(theta_i)
    if not ok.all():
        return float("nan")
    m = mult.astype(float)
    mean = np.sum(m * theta_i) / m.sum()
    d = mean - theta_i
    den = np.sum(m * d * d)
    if den <= 0:
        return float("nan")
    return float(np.sum(m * d**3) / (6.0 * den**1.5))


def _summarise(
    dist: np.ndarray,
    estimate: float,
    *,
    level: float,
    method: str,
    scheme: str,
    n_resamples: int,
    jack: tuple | None = None,
    keep: bool = True,
    what: str = "statistic",
) -> BootstrapResult:
    undefined: dict[str, str] = {}
    nan = float("nan")
    finite_or_inf = ~np.isnan(dist)
    n_und = int((~finite_or_inf).sum())
    vals = np.sort(dist[finite_or_inf])
    low = high = se = nan
    if n_und:
        undefined["replicates"] = (
            f"{n_und} of {n_resamples} replicates had an undefined {what} (e.g. one class drawn) and were left out"
        )
    if not np.isfinite(estimate) and not (estimate == np.inf):
        undefined["estimate"] = f"the {what} is undefined on these data"
    if len(vals) < 2:
        undefined["interval"] = f"fewer than 2 replicates have a defined {what}"
        undefined["standard_error"] = undefined["interval"]
    else:
        if np.isfinite(vals).all():
            se = float(np.std(vals, ddof=1))
        else:
            undefined["standard_error"] = "some replicates are infinite (act on no one)"
        alpha = (1.0 - level) / 2.0
        if method in ("percentile", "bayes"):  # bayes: the equal-tailed posterior interval
            q1, q2 = alpha, 1.0 - alpha
        else:
            a = nan if jack is None else _acceleration(*jack)
            frac = (np.count_nonzero(vals < estimate) + np.count_nonzero(vals <= estimate)) / (2.0 * len(vals))
            if not np.isfinite(estimate) or np.isnan(a) or frac <= 0 or frac >= 1:
                q1 = q2 = nan
                if not np.isfinite(estimate):
                    undefined["interval"] = f"BCa needs a finite {what} on the data"
                elif frac <= 0 or frac >= 1:
                    undefined["interval"] = "BCa is undefined: every replicate lies on one side of the estimate"
                else:
                    undefined["interval"] = "BCa is undefined: the jackknife is degenerate (no variation)"
            else:
                z0 = ndtri(frac)
                za = ndtri(alpha)
                n1, n2 = z0 + za, z0 - za
                q1 = float(ndtr(z0 + n1 / (1 - a * n1)))
                q2 = float(ndtr(z0 + n2 / (1 - a * n2)))
        if np.isfinite(q1) and np.isfinite(q2):
            low, high = _quantile(vals, q1), _quantile(vals, q2)
    return BootstrapResult(
        estimate=float(estimate),
        low=low,
        high=high,
        level=float(level),
        standard_error=se,
        method=method,
        scheme=scheme,
        n_resamples=int(n_resamples),
        distribution=dist if keep else None,
        n_undefined=n_und,
        undefined=undefined,
    )


# --------------------------------------------------------------------------------------
# EV at a fixed threshold, and the paired comparison
# --------------------------------------------------------------------------------------


def _prepare(y_true, scores: list, sample_weight, strata, groups, options: dict):
    """Validated ``(y, scores, w, strata codes, group codes)`` with rows of zero weight dropped:
    a zero weight is no row (as :func:`evalcore.counts.score_counts`), so it is neither a
    threshold nor a unit to draw, and a group or stratum made only of such rows does not
    exist. Every weight 0 leaves no rows: the callers return NaN with :data:`_NO_WEIGHT`."""
    problems = ProblemList()
    y = s = w = None
    ss = []
    for sc in scores:
        y, s, w = check_binary_scores(y_true, sc, sample_weight)
        ss.append(s)
    n = len(y)
    if n == 0:
        problems.add("empty", "The bootstrap needs at least one row; got 0.", "Pass the validation rows.")
    st = _codes(strata, "strata", n, problems)
    gr = _codes(groups, "groups", n, problems)
    _check_options(problems, **options)
    problems.raise_if_any()
    keep = w > 0
    if not keep.all():
        y, w, ss = y[keep], w[keep], [x[keep] for x in ss]
        # codes again in order of first appearance: those of the kept rows alone
        st = None if st is None else pd.factorize(st[keep])[0].astype(np.int64)
        gr = None if gr is None else pd.factorize(gr[keep])[0].astype(np.int64)
    return y, ss, w, st, gr


_NO_WEIGHT = "no rows with positive weight (every sample_weight is 0)"


def _no_weight_result(*, n_resamples: int, level: float, method: str, scheme: str) -> BootstrapResult:
    """Every weight is 0: the statistic, its replicates and its interval are undefined (as
    ``value_curve`` says of such data), never 0."""
    nan = float("nan")
    why = {
        "estimate": _NO_WEIGHT,
        "interval": _NO_WEIGHT,
        "standard_error": _NO_WEIGHT,
        "replicates": f"{n_resamples} of {n_resamples} replicates are undefined: {_NO_WEIGHT}",
    }
    return BootstrapResult(
        estimate=nan,
        low=nan,
        high=nan,
        level=float(level),
        standard_error=nan,
        method=method,
        scheme=scheme,
        n_resamples=int(n_resamples),
        distribution=np.full(int(n_resamples), nan),
        n_undefined=int(n_resamples),
        undefined=why,
    )


def ev_interval(
    y_true,
    y_score,
    table: ValueTable,
    *,
    threshold: float,
    n_resamples: int = 1000,
    level: float = 0.95,
    method: str = "percentile",
    strata=None,
    groups=None,
    sample_weight=None,
    rng=None,
) -> BootstrapResult:
    """Bootstrap interval of EV per decision at a fixed threshold (4-cell multinomial).

    Cost: ``n_resamples`` draws over the distinct (stratum, outcome cell, weight) units —
    milliseconds without weights whatever the number of rows or scores; with all-distinct
    weights every row is a unit (rows × resamples). The cluster scheme draws groups.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    y_score : array-like of shape (n,)
        Scores; act iff ``score >= threshold``.
    table : ValueTable
        Effective amounts and optional production prevalence (re-estimated per replicate,
        exactly as :func:`evalcore.value.value_curve` does on the resampled rows).
    threshold : float
        Deployed threshold in the score's units (``+inf``: act on no one).
    n_resamples : int, default=1000
    level : float, default=0.95
    method : {"percentile", "bca", "bayes"}, default="percentile"
        "bayes": the Bayesian bootstrap with half a pseudo-row of each of the four outcome
        cells (module docstring), for few positives.
    strata : array-like of shape (n,), default=None
        Segment labels: resample within each segment, keeping its size.
    groups : array-like of shape (n,), default=None
        Group ids (e.g. customer): resample whole groups (cluster bootstrap).
    sample_weight : array-like of shape (n,), default=None
    rng : int, numpy.random.Generator or None

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> t = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
    >>> r = ev_interval([1, 0, 1, 0] * 25, [0.9, 0.6, 0.4, 0.1] * 25, t, threshold=0.5, rng=0)
    >>> r.estimate, r.low <= r.estimate <= r.high, r.scheme
    (-0.5, True, 'rows')
    """
    threshold = _check_threshold(threshold, "threshold")
    y, (s,), w, st, gr = _prepare(
        y_true, [y_score], sample_weight, strata, groups, dict(n_resamples=n_resamples, level=level, method=method)
    )
    if len(y) == 0:
        return _no_weight_result(n_resamples=n_resamples, level=level, method=method, scheme=_scheme_name(strata, groups))
    key = 2 * (s < threshold).astype(np.int64) + (1 - y).astype(np.int64)  # tp, fp, fn, tn
    design = _design(key, 4, w, st, gr)
    v = table.vector()
    prev = table.prevalence

    def stat(k):
        return {"ev": _ev_from_cells(k[:, 0], k[:, 1], k[:, 2], k[:, 3], v, prev)}

    est = float(stat(design.full[None, :])["ev"][0])
    draws = _bayesian(design, JEFFREYS) if method == "bayes" else design
    dist = _replicates(draws, rng, n_resamples, None, stat)["ev"]
    jack = None
    if method == "bca":
        jack = (_jackknife(design, stat, ["ev"])["ev"], design.mult)
    return _summarise(dist, est, level=level, method=method, scheme=design.scheme, n_resamples=n_resamples, jack=jack, what="EV")


# indices into the 8 paired keys: key = 4·(A does not act) + 2·(B does not act) + (label is negative)
_A_CELLS = ([0, 2], [1, 3], [4, 6], [5, 7])
_B_CELLS = ([0, 4], [1, 5], [2, 6], [3, 7])


def compare_models(
    y_true,
    score_a,
    score_b,
    table: ValueTable,
    *,
    threshold_a: float,
    threshold_b: float,
    n_resamples: int = 1000,
    level: float = 0.95,
    method: str = "percentile",
    strata=None,
    groups=None,
    sample_weight=None,
    rng=None,
    names=("A", "B"),
) -> Comparison:
    """Paired bootstrap of EV_B − EV_A on the same resampled rows (the 8-cell table).

    Cost: as :func:`ev_interval` — draws over at most 8 outcome cells per stratum and weight,
    milliseconds whatever the number of distinct scores.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    score_a, score_b : array-like of shape (n,)
        Scores of the two models on the same rows.
    table : ValueTable
    threshold_a, threshold_b : float
        Each model's deployed threshold (act iff score >= it).
    n_resamples, level, method, strata, groups, sample_weight, rng
        As :func:`ev_interval`.
    names : (str, str), default=("A", "B")

    Returns
    -------
    Comparison
        "B is better" only when the interval of EV_B − EV_A excludes 0.

    Examples
    --------
    >>> t = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
    >>> y = [1, 0] * 200
    >>> c = compare_models(y, [0.4, 0.6] * 200, [0.9, 0.1] * 200, t, threshold_a=0.5, threshold_b=0.5, rng=0)
    >>> c.diff.estimate, c.verdict  # A: EV = (-10 - 2)/2 = -6;  B: EV = 10/2 = 5
    (11.0, 'better')
    """
    threshold_a = _check_threshold(threshold_a, "threshold_a")
    threshold_b = _check_threshold(threshold_b, "threshold_b")
    y, (sa, sb), w, st, gr = _prepare(
        y_true, [score_a, score_b], sample_weight, strata, groups, dict(n_resamples=n_resamples, level=level, method=method)
    )
    a_name, b_name = (str(x) for x in names)
    if len(y) == 0:
        undefined = _no_weight_result(n_resamples=n_resamples, level=level, method=method, scheme=_scheme_name(strata, groups))
        return Comparison(
            a=a_name,
            b=b_name,
            threshold_a=threshold_a,
            threshold_b=threshold_b,
            ev_a=undefined,
            ev_b=undefined,
            diff=undefined,
            p_b_better=float("nan"),
            verdict="undefined",
            verdict_text=f"No verdict: EV_{b_name} − EV_{a_name} is undefined ({_NO_WEIGHT}).",
            scheme=undefined.scheme,
        )
    key = (4 * (sa < threshold_a) + 2 * (sb < threshold_b) + (1 - y)).astype(np.int64)
    design = _design(key, 8, w, st, gr)
    return paired_comparison(
        design,
        table,
        rng=rng,
        n_resamples=n_resamples,
        level=level,
        method=method,
        names=(a_name, b_name),
        thresholds=(threshold_a, threshold_b),
    )


def paired_comparison(
    design: _Design, table: ValueTable, *, rng, n_resamples: int, level: float, method: str, names: tuple, thresholds: tuple
) -> Comparison:
    """EV_A, EV_B and EV_B − EV_A from one set of draws over an 8-key design (decision A ×
    decision B × label), with the verdict. Shared by :func:`compare_models` (rows) and
    ``evalcore.aggregate`` (cells from an engine), so both word and decide alike."""
    v = table.vector()
    prev = table.prevalence
    a_name, b_name = names

    def stat(k):
        ev_a = _ev_from_cells(*[k[:, i].sum(axis=1) for i in _A_CELLS], v, prev)
        ev_b = _ev_from_cells(*[k[:, i].sum(axis=1) for i in _B_CELLS], v, prev)
        return {"a": ev_a, "b": ev_b, "diff": ev_b - ev_a}

    est = {k: float(x[0]) for k, x in stat(design.full[None, :]).items()}
    reps = _replicates(_bayesian(design, JEFFREYS) if method == "bayes" else design, rng, n_resamples, None, stat)
    jack = _jackknife(design, stat, ["a", "b", "diff"]) if method == "bca" else None
    res = {
        k: _summarise(
            reps[k],
            est[k],
            level=level,
            method=method,
            scheme=design.scheme,
            n_resamples=n_resamples,
            jack=None if jack is None else (jack[k], design.mult),
            what="EV difference" if k == "diff" else "EV",
        )
        for k in ("a", "b", "diff")
    }
    d = res["diff"]
    finite = ~np.isnan(reps["diff"])
    p_better = float(np.mean(reps["diff"][finite] > 0)) if finite.any() else float("nan")
    pct = f"{level:.0%}" if round(level * 100, 6) == round(level * 100) else f"{level * 100:g}%"
    ci_words = f"the {pct} CI of EV_{b_name} − EV_{a_name}"
    if not (np.isfinite(d.low) and np.isfinite(d.high)):
        verdict, text = "undefined", f"No verdict: {ci_words} could not be formed ({'; '.join(d.undefined.values())})."
    elif d.low > 0:
        verdict, text = "better", f"{b_name} is better: {ci_words} excludes 0."
    elif d.high < 0:
        verdict, text = "worse", f"{b_name} is worse: {ci_words} excludes 0."
    else:
        verdict, text = (
            "no significant difference",
            f"No significant difference between {b_name} and {a_name}: {ci_words} includes 0.",
        )
    return Comparison(
        a=a_name,
        b=b_name,
        threshold_a=float(thresholds[0]),
        threshold_b=float(thresholds[1]),
        ev_a=res["a"],
        ev_b=res["b"],
        diff=d,
        p_b_better=p_better,
        verdict=verdict,
        verdict_text=text,
        scheme=design.scheme,
    )


# --------------------------------------------------------------------------------------
# the whole curve: EV(t_opt), t_opt, band, AUC
# --------------------------------------------------------------------------------------


def _curve_stats(K: np.ndarray, scores: np.ndarray, v: np.ndarray, prevalence, grid_idx: np.ndarray) -> dict:
    """Per replicate (rows of K = [pos_0..pos_{k-1}, neg_0..neg_{k-1}]): the rule of ``price_curve``."""
    k = len(scores)
    pos, neg = K[:, :k], K[:, k:]
    b = K.shape[0]
    n_pos = pos.sum(axis=1)
    n_neg = neg.sum(axis=1)
    n_val = n_pos + n_neg
    alpha, beta = _prevalence_weights(n_pos, n_val, prevalence)
    with np.errstate(invalid="ignore", divide="ignore"):
        tp = np.zeros((b, k + 1))
        fp = np.zeros((b, k + 1))
        np.cumsum(pos, axis=1, out=tp[:, 1:])
        np.cumsum(neg, axis=1, out=fp[:, 1:])
        tp *= alpha[:, None]
        fp *= beta[:, None]
        P = tp[:, -1:]
        Nn = fp[:, -1:]
        n = P + Nn
        ev = ((v[0] - v[2]) * tp + (v[1] - v[3]) * fp + v[2] * P + v[3] * Nn) / n
        # AUC: trapezoid over the ROC steps (ties give the diagonal), as auc_from_counts
        tpr_num = np.cumsum(pos, axis=1)
        auc = np.sum(neg * (tpr_num - pos / 2.0), axis=1) / (n_pos * n_neg)
        auc = np.where((n_pos > 0) & (n_neg > 0), auc, np.nan)
    ev_opt = ev.max(axis=1)
    tol = 1e-9 * np.maximum(1.0, np.abs(ev).max(axis=1))
    mask = ev >= (ev_opt - tol)[:, None]
    i0 = mask.argmax(axis=1)
    cols = np.arange(k + 1)[None, :]
    after = ~mask & (cols > i0[:, None])
    has_end = after.any(axis=1)
    i1 = np.where(has_end, after.argmax(axis=1) - 1, k)
    thr = np.r_[np.inf, scores]
    high = thr[i0]
    # lowest score present in the replicate: act on everyone = threshold at it
    present = (pos + neg) > 0
    last = k - 1 - present[:, ::-1].argmax(axis=1)
    lo_s = scores[last]
    low = np.where(i1 + 1 <= k, thr[np.minimum(i1 + 1, k)], -np.inf)
    t_opt = np.where(high == np.inf, np.inf, np.where(low == -np.inf, lo_s, threshold_between(low, high)))
    # the EV that acting at t_opt earns (score >= t_opt), so the two always agree
    ev_opt = ev[np.arange(b), np.searchsorted(-scores, -t_opt, side="right")]
    bad = ~np.isfinite(ev).all(axis=1)
    ev_opt = np.where(bad, np.nan, ev_opt)
    t_opt = np.where(bad, np.nan, t_opt)
    return {"ev_opt": ev_opt, "t_opt": t_opt, "auc": auc, "band": ev[:, grid_idx]}


def optimum_interval(
    y_true,
    y_score,
    table: ValueTable,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    method: str = "percentile",
    strata=None,
    groups=None,
    sample_weight=None,
    rng=None,
    band_grid=None,
    resolution: float | str | None = "auto",
    batch: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> OptimumBootstrap:
    """EV after re-optimising the threshold, t_opt, AUC and the curve band, in one pass.

    Every replicate draws the whole vector of (score, label) cells, re-prices the curve,
    and takes its maximum, the maximising threshold, its AUC and EV at the grid thresholds.

    Cost: about ``n_resamples × 2·k`` cells drawn and re-priced, k the distinct (binned)
    scores — roughly 1 s per 10 million cells on one core. The default ``resolution="auto"``
    keeps k at most 20,000 as the board does (B = 1000: a few seconds); exact scores
    (``resolution=None``) on a million distinct scores are ~2·10⁹ cells: minutes.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    table : ValueTable
    n_resamples, level, method, strata, groups, sample_weight, rng
        As :func:`ev_interval`. The band is always a pointwise percentile interval. With
        "bayes" the keys are every distinct score, not a few outcome cells, so there are no
        pseudo-rows: Rubin's Bayesian bootstrap.
    band_grid : array-like, default=None
        Thresholds of the band. Default: every distinct score when there are at most 201,
        else 201 evenly spaced thresholds over the score range.
    resolution : "auto", float or None, default="auto"
        Floor scores to multiples of it first (DESIGN §2; stated in the result's
        ``resolution``). "auto" is the board's rule (:func:`auto_resolution`): exact up to
        20,000 distinct scores, else a grid of 1e-4 (1e-4 of the score range for scores
        outside [0, 1]). None is exact whatever the number of distinct scores — see Cost.
    batch : int, default=None
        Replicates per batch (default: as many as fit ~4M cells). Results do not depend on it.
    progress : callable(done, total), default=None
        Called after every batch.

    Returns
    -------
    OptimumBootstrap

    Raises
    ------
    InputError
        Bad options; or ``method="bca"`` when the exact jackknife would be too large (it
        re-prices the curve once per cell: use ``resolution`` or ``method="percentile"``).

    Examples
    --------
    >>> t = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
    >>> o = optimum_interval([1, 0, 1, 0] * 25, [0.9, 0.6, 0.4, 0.1] * 25, t, n_resamples=200, rng=0)
    >>> o.ev_opt.estimate, o.t_opt.estimate, o.auc.estimate  # as value_curve: EV 4.5 on (0.1, 0.4]
    (4.5, 0.25, 0.75)
    """
    y, (s,), w, st, gr = _prepare(
        y_true, [y_score], sample_weight, strata, groups, dict(n_resamples=n_resamples, level=level, method=method, batch=batch)
    )
    if isinstance(resolution, str):
        if resolution != "auto":
            raise InputError(
                f"resolution must be 'auto', a positive number or None; got {resolution!r}. "
                "'auto' bins past 20,000 distinct scores as the board does; None is exact (slow on many scores)."
            )
        resolution = auto_resolution(s)
    if resolution is not None and not (isinstance(resolution, (int, float)) and np.isfinite(resolution) and resolution > 0):
        raise InputError(f"resolution must be a positive number or None; got {resolution!r}.")
    if progress is not None and not callable(progress):
        raise InputError(f"progress must be callable(done, total) or None; got {type(progress).__name__}.")
    if len(y) == 0:
        nothing = _no_weight_result(n_resamples=n_resamples, level=level, method=method, scheme=_scheme_name(strata, groups))
        grid = np.zeros(0) if band_grid is None else np.asarray(band_grid, dtype=float)
        empty = np.full(len(grid), np.nan)
        return OptimumBootstrap(
            ev_opt=nothing,
            t_opt=nothing,
            auc=nothing,
            resolution=resolution,
            n_thresholds=0,
            band=CurveBand(grid=grid, estimate=empty, low=empty, high=empty, level=float(level)),
        )
    counts = _score_counts(y, s, w, resolution)
    scores = counts.scores
    k = len(scores)
    binned = _bin_scores(s, resolution) if resolution is not None else s
    idx = np.searchsorted(-scores, -binned)  # exact: binned values are among scores
    key = idx.astype(np.int64) + k * (1 - y.astype(np.int64))
    design = _design(key, 2 * k, w, st, gr)
    if method == "bca" and design.n_units * 2 * k > _MAX_JACKKNIFE_WORK:
        raise InputError(
            f"method='bca' needs an exact jackknife over {design.n_units} cells, each re-pricing a curve "
            f"of {k} thresholds — too large. Pass resolution= (e.g. 1e-3) or method='percentile'."
        )
    if band_grid is None:
        grid = scores[::-1].copy() if k <= 201 else np.linspace(scores[-1], scores[0], 201)
    else:
        grid = np.asarray(band_grid, dtype=float)
        if grid.ndim != 1 or len(grid) == 0 or np.isnan(grid).any():
            raise InputError(f"band_grid must be a non-empty 1-D array of thresholds; got shape {grid.shape}.")
    grid_idx = np.searchsorted(-scores, -grid, side="right")  # point index of threshold g (as ValueCurve.ev_at)
    v = table.vector()
    prev = table.prevalence

    def stat(K):
        return _curve_stats(K, scores, v, prev, grid_idx)

    est = stat(design.full[None, :])
    # bayes: no pseudo-units here — the keys are every distinct score, not a few outcome cells
    reps = _replicates(_bayesian(design, 0.0) if method == "bayes" else design, rng, n_resamples, batch, stat, progress)
    jack = _jackknife(design, stat, ["ev_opt", "t_opt", "auc"]) if method == "bca" else None
    common = dict(level=level, method=method, scheme=design.scheme, n_resamples=n_resamples)
    out = {}
    for name, what in (("ev_opt", "optimal EV"), ("t_opt", "optimal threshold"), ("auc", "AUC")):
        out[name] = _summarise(
            reps[name], float(est[name][0]), jack=None if jack is None else (jack[name], design.mult), what=what, **common
        )
    band_vals = reps["band"]
    alpha = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        lo = np.nanquantile(band_vals, alpha, axis=0) if np.isfinite(band_vals).any() else np.full(len(grid), np.nan)
        hi = np.nanquantile(band_vals, 1 - alpha, axis=0) if np.isfinite(band_vals).any() else np.full(len(grid), np.nan)
    band = CurveBand(grid=grid, estimate=est["band"][0], low=lo, high=hi, level=float(level))
    return OptimumBootstrap(
        ev_opt=out["ev_opt"], t_opt=out["t_opt"], auc=out["auc"], band=band, resolution=resolution, n_thresholds=k
    )
