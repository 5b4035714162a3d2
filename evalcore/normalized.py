"""Data conditions and the normalized score (SPEC §3.8) — a heuristic, shown factor by factor.

Factors, with N, d and class counts taken from the **training** data only:

- size ``f(N, d) = 1 + max(0, sigmoid(20·d/N − 1) − 0.5)`` — a reward of at most 1.5 for scarce
  data; it is exactly 1 from N = 20·d on;
- imbalance ``g = 1 / (1 + ln r)``, ``r = n_major/n_minor`` for two classes and ``r = 1/ACIR``,
  ``ACIR = mean_i(n_i/n_max)``, for more classes or clusters (r = 1, no penalty, for regression);
- basic ``normalized = metric · f · g``;
- robust ``min(1, metric · f · (1 + m(SNR_dB)) / (1 + ln r))`` with the piecewise-linear bonus
  :func:`snr_bonus` of a signal-to-noise ratio (:func:`snr_binary`, :func:`snr_multiclass`,
  :func:`snr_regression`, :func:`snr_clustering`).

:func:`task_score` / :func:`cluster_score` run one model end to end (fit on a training split,
score the held-out rows); :func:`learning_curve` repeats that on growing stratified subsets so a
user can see whether the normalized score is steadier than the raw one on their data.

The clustering SNR is not fixed by the SPEC: here it is between-cluster over within-cluster sum
of squares, ``10·log10(SS_between / SS_within)`` on the standardised features.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._errors import InputError, ProblemList
from ._json import json_float as _f
from .stability import TrainingData, make_model

__all__ = [
    "SNR_BANDS",
    "size_factor",
    "acir",
    "imbalance_ratio",
    "imbalance_factor",
    "snr_bonus",
    "snr_db",
    "snr_binary",
    "snr_multiclass",
    "snr_regression",
    "snr_clustering",
    "NormalizedScore",
    "normalized_score",
    "TaskScore",
    "task_score",
    "cluster_score",
    "LearningCurve",
    "learning_curve",
    "CLUSTERING",
]

#: (SNR dB at the band's lower edge, bonus there, bonus at its upper edge) — continuous, linear within a band.
SNR_BANDS = ((0.0, 0.0, 0.125), (10.0, 0.125, 0.25), (15.0, 0.25, 0.375), (25.0, 0.375, 0.5), (40.0, 0.5, 0.5))
CLUSTERING = "clustering"


# --------------------------------------------------------------------------------------
# factors
# --------------------------------------------------------------------------------------


def size_factor(n: float, d: float) -> float:
    """``f(N, d) = 1 + max(0, sigmoid(20·d/N − 1) − 0.5)``.

    Examples
    --------
    >>> round(size_factor(100, 50), 5), size_factor(10_000, 50)
    (1.49988, 1.0)
    """
    if not (n > 0 and d >= 0):
        raise InputError(f"size_factor needs N > 0 and d >= 0; got N={n!r}, d={d!r}.")
    x = 20.0 * d / n - 1.0
    return 1.0 + max(0.0, 1.0 / (1.0 + math.exp(-x)) - 0.5)


def _check_counts(class_counts) -> np.ndarray:
    c = np.asarray(list(class_counts.values()) if isinstance(class_counts, dict) else class_counts, dtype=float)
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise InputError(f"class_counts must be positive counts, one per class or cluster; got {np.asarray(c).tolist()[:10]}.")
    return c


def acir(class_counts) -> float:
    """Average class-imbalance ratio ``mean_i(n_i / n_max)`` (1 when balanced).

    Examples
    --------
    >>> round(acir([50, 30, 20]), 6)  # (1 + 0.6 + 0.4) / 3
    0.666667
    """
    c = _check_counts(class_counts)
    return float(np.mean(c / c.max()))


def imbalance_ratio(class_counts) -> float:
    """``r``: n_major/n_minor for two classes, 1/ACIR for more, 1 for one class (or regression: pass None)."""
    if class_counts is None or (hasattr(class_counts, "__len__") and len(class_counts) == 0):
        return 1.0
    c = _check_counts(class_counts)
    if c.size == 1:
        return 1.0
    if c.size == 2:
        return float(c.max() / c.min())
    return 1.0 / acir(c)


def imbalance_factor(class_counts) -> float:
    """``g = 1 / (1 + ln r)``.

    Examples
    --------
    >>> round(imbalance_factor([9000, 1000]), 6)  # 1 / (1 + ln 9)
    0.312771
    """
    return 1.0 / (1.0 + math.log(imbalance_ratio(class_counts)))


def snr_bonus(snr: float) -> float:
    """The bonus ``m(SNR_dB)``: ≤ 0 → 0; [0,10) → [0,0.125); [10,15) → [0.125,0.25);
    [15,25) → [0.25,0.375); [25,40) → [0.375,0.5); ≥ 40 (and +inf, zero noise) → 0.5.
    NaN stays NaN.

    Examples
    --------
    >>> snr_bonus(-3), snr_bonus(5), snr_bonus(12.5), snr_bonus(float("inf"))
    (0.0, 0.0625, 0.1875, 0.5)
    """
    s = float(snr)
    if math.isnan(s):
        return float("nan")
    if s <= 0:
        return 0.0
    for (lo, m_lo, m_hi), nxt in zip(SNR_BANDS[:-1], SNR_BANDS[1:]):
        hi = nxt[0]
        if s < hi:
            return m_lo + (m_hi - m_lo) * (s - lo) / (hi - lo)
    return 0.5


def snr_db(signal: float, noise: float) -> float:
    """``10·log10(signal/noise)``; zero noise is +inf (the top band), zero signal −inf."""
    if noise <= 0:
        return float("inf")
    if signal <= 0:
        return float("-inf")
    return 10.0 * math.log10(signal / noise)


def snr_binary(y_true, p_pos) -> float:
    """``10·log10(#correct / Σ(1 − p_pred)²)``, predicting the positive class when p ≥ 0.5 and
    ``p_pred`` the probability of the predicted class.

    Examples
    --------
    >>> round(snr_binary([1, 0, 1], [0.9, 0.2, 0.4]), 4)  # 2 correct / (0.1² + 0.2² + 0.4²) = 2 / 0.21
    9.7881
    """
    y = np.asarray(y_true).astype(int)
    p = np.asarray(p_pos, dtype=float)
    pred = (p >= 0.5).astype(int)
    p_pred = np.where(pred == 1, p, 1.0 - p)
    return snr_db(float(np.sum(pred == y)), float(np.sum((1.0 - p_pred) ** 2)))


def snr_multiclass(y_true, proba, *, labels) -> float:
    """``10·log10(Σ_i M_ii² / Σ_k ‖p_k − onehot_k‖²)``, M the confusion matrix of argmax predictions.

    ``labels`` give the class of each column of ``proba`` (explicit, so a class missing from
    ``y_true`` keeps its column).
    """
    import pandas as pd

    labels = list(labels)
    P = np.asarray(proba, dtype=float)
    true_col = pd.Index(labels).get_indexer(pd.Index(np.asarray(y_true)))  # -1: a class without a column
    pred_col = P.argmax(axis=1)
    diag = np.bincount(pred_col[true_col == pred_col], minlength=len(labels)).astype(float)  # M_ii
    onehot = np.zeros_like(P)
    known = true_col >= 0
    onehot[np.flatnonzero(known), true_col[known]] = 1.0
    return snr_db(float(np.sum(diag**2)), float(np.sum((P - onehot) ** 2)))


def snr_regression(y_true, y_pred) -> float:
    """``10·log10(Σy² / Σ(ŷ − y)²)``."""
    y = np.asarray(y_true, dtype=float)
    e = np.asarray(y_pred, dtype=float) - y
    return snr_db(float(np.sum(y**2)), float(np.sum(e**2)))


def snr_clustering(X, labels) -> float:
    """``10·log10(SS_between / SS_within)`` of a clustering of the (numeric) rows ``X``."""
    Z = np.asarray(X, dtype=float)
    lab = np.asarray(labels)
    mu = Z.mean(axis=0)
    between = within = 0.0
    for k in np.unique(lab):
        Zk = Z[lab == k]
        ck = Zk.mean(axis=0)
        between += Zk.shape[0] * float(np.sum((ck - mu) ** 2))
        within += float(np.sum((Zk - ck) ** 2))
    return snr_db(between, within)


# --------------------------------------------------------------------------------------
# the score
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class NormalizedScore:
    """The data conditions and both normalized scores, each factor kept.

    Attributes
    ----------
    metric : float
        The raw metric (accuracy, F1, recall, 1 − MAPE or NMI).
    metric_name : str
    n, d : int
        Training rows and features.
    class_counts : dict
        Training class (or cluster) counts; empty for regression.
    r : float
        Imbalance ratio (1 = balanced / no classes).
    acir : float
        ``mean_i(n_i/n_max)`` (NaN without classes).
    f, g : float
        Size and imbalance factors.
    score : float
        Basic ``metric · f · g``.
    snr_db, m : float
        Signal-to-noise ratio in dB and its bonus (NaN when no SNR was given).
    robust_uncapped, robust : float
        ``metric · f · (1 + m) / (1 + ln r)`` and the same capped at 1.
    undefined : dict
    """

    metric: float
    metric_name: str
    n: int
    d: int
    class_counts: dict
    r: float
    acir: float
    f: float
    g: float
    score: float
    snr_db: float
    m: float
    robust_uncapped: float
    robust: float
    undefined: dict = field(default_factory=dict)

    @property
    def capped(self) -> bool:
        return bool(np.isfinite(self.robust_uncapped) and self.robust_uncapped > 1.0)

    @property
    def minority_share(self) -> float:
        if not self.class_counts:
            return float("nan")
        c = np.asarray(list(self.class_counts.values()), dtype=float)
        return float(c.min() / c.sum())

    def to_dict(self) -> dict:
        keys = ("metric", "r", "acir", "f", "g", "score", "snr_db", "m", "robust_uncapped", "robust")
        return {
            "metric_name": self.metric_name,
            "n": self.n,
            "d": self.d,
            "class_counts": {str(k): int(v) for k, v in self.class_counts.items()},
            **{k: _f(getattr(self, k)) for k in keys},
            "capped": self.capped,
            "minority_share": _f(self.minority_share),
            "undefined": dict(self.undefined),
        }


def normalized_score(
    metric: float, *, n: int, d: int, class_counts=None, snr_db: float | None = None, metric_name: str = "accuracy"
) -> NormalizedScore:
    """Both normalized scores of SPEC §3.8.

    Parameters
    ----------
    metric : float
        The raw metric on held-out data.
    n, d : int
        Training rows and features (training data only).
    class_counts : dict or sequence, default=None
        Training class counts (cluster sizes for clustering); None for regression (r = 1).
    snr_db : float, default=None
        For the robust variant; None leaves it undefined.
    metric_name : str, default="accuracy"

    Examples
    --------
    SPEC §3.8: accuracy 0.9, N=10000, d=50, counts 9000/1000:

    >>> s = normalized_score(0.9, n=10_000, d=50, class_counts={0: 9000, 1: 1000})
    >>> round(s.f, 6), round(s.g, 6), round(s.score, 4)
    (1.0, 0.312771, 0.2815)
    """
    problems = ProblemList()
    if not (isinstance(n, (int, np.integer)) and n > 0):
        problems.add("n_invalid", f"n must be a positive integer; got {n!r}.", "", column="n")
    if not (isinstance(d, (int, np.integer)) and d >= 1):
        problems.add("d_invalid", f"d must be an integer >= 1; got {d!r}.", "", column="d")
    problems.raise_if_any()
    counts = (
        {}
        if class_counts is None
        else (dict(class_counts) if isinstance(class_counts, dict) else {i: c for i, c in enumerate(class_counts)})
    )
    und = {}
    metric = float(metric)
    if not math.isfinite(metric):
        und["metric"] = "the raw metric is undefined"
    f = size_factor(n, d)
    r = imbalance_ratio(counts or None)
    g = 1.0 / (1.0 + math.log(r))
    a = acir(counts) if len(counts) >= 2 else float("nan")
    if snr_db is None or (isinstance(snr_db, float) and math.isnan(snr_db)):
        s, m = float("nan"), float("nan")
        und["robust"] = "no signal-to-noise ratio was computed"
    else:
        s = float(snr_db)
        m = snr_bonus(s)
    robust_u = metric * f * (1.0 + m) / (1.0 + math.log(r))
    return NormalizedScore(
        metric=metric,
        metric_name=metric_name,
        n=int(n),
        d=int(d),
        class_counts=counts,
        r=r,
        acir=a,
        f=f,
        g=g,
        score=metric * f * g,
        snr_db=s,
        m=m,
        robust_uncapped=robust_u,
        robust=min(1.0, robust_u) if math.isfinite(robust_u) else float("nan"),
        undefined=und,
    )


# --------------------------------------------------------------------------------------
# end to end
# --------------------------------------------------------------------------------------

#: Raw metrics offered for the normalized score, per task.
RAW_METRICS = {
    "binary": ("accuracy", "f1", "recall"),
    "multiclass": ("accuracy", "f1", "recall"),
    "regression": ("one_minus_mape",),
    CLUSTERING: ("nmi",),
}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TaskScore:
    """One model fitted on a training split and scored on held-out rows, normalized."""

    task: str
    model: str
    score: NormalizedScore
    n_test: int
    seed: int
    k: int | None = None
    cluster_sizes: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "task": self.task,
            "model": self.model,
            "n_test": self.n_test,
            "seed": self.seed,
            "k": self.k,
            "cluster_sizes": {str(k): int(v) for k, v in self.cluster_sizes.items()},
            **self.score.to_dict(),
        }


def _split(data: TrainingData, test_size: float, seed: int):
    from sklearn.model_selection import train_test_split

    idx = np.arange(data.n)
    strat = data.y if data.task in ("binary", "multiclass") else None
    return train_test_split(idx, test_size=test_size, random_state=seed, stratify=strat)


def _raw_metric(data: TrainingData, metric: str, y, pred) -> float:
    from sklearn.metrics import accuracy_score, f1_score, recall_score

    if metric == "accuracy":
        return float(accuracy_score(y, pred))
    if data.task == "binary":
        y01, p01 = (y == data.positive).astype(int), (pred == data.positive).astype(int)
        fn = f1_score if metric == "f1" else recall_score
        return float(fn(y01, p01, zero_division=np.nan))
    fn = f1_score if metric == "f1" else recall_score
    return float(fn(y, pred, average="macro", labels=list(data.classes), zero_division=np.nan))


def _fit_score(data: TrainingData, model: str, metric: str, tr, te, seed: int) -> NormalizedScore:
    """Fit on rows ``tr``, score rows ``te``; N, d and class counts from ``tr``."""
    est = make_model(model, task=data.task, X=data.X, random_state=seed)
    Xtr, Xte, ytr, yte = data.X.iloc[tr], data.X.iloc[te], data.y[tr], data.y[te]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)  # e.g. a category unseen in the training subset
        est.fit(Xtr, ytr)
        if data.task == "regression":
            pred = est.predict(Xte)
            mape = float("nan") if np.any(yte == 0) else float(np.mean(np.abs((pred - yte) / yte)))
            s = normalized_score(1.0 - mape, n=len(tr), d=data.d, snr_db=snr_regression(yte, pred), metric_name="1 − MAPE")
            if not math.isfinite(mape):
                s.undefined["metric"] = "MAPE is undefined when a target value is 0"
            return s
        proba = est.predict_proba(Xte)
    labels = list(est.classes_)
    pred = np.asarray(labels, dtype=object)[proba.argmax(axis=1)]
    pred = pred.astype(data.y.dtype) if data.y.dtype != object else pred
    counts = {k: int(v) for k, v in zip(*np.unique(ytr, return_counts=True))}
    if data.task == "binary":
        snr = snr_binary((yte == data.positive).astype(int), proba[:, labels.index(data.positive)])
    else:
        snr = snr_multiclass(yte, proba, labels=labels)
    return normalized_score(
        _raw_metric(data, metric, yte, pred), n=len(tr), d=data.d, class_counts=counts, snr_db=snr, metric_name=metric
    )


def _check_task(data: TrainingData, model: str, metric: str, test_size: float) -> None:
    from .stability import CLASSIFIERS, REGRESSORS

    problems = ProblemList()
    models = REGRESSORS if data.task == "regression" else CLASSIFIERS
    if model not in models:
        problems.add("model_invalid", f"model must be one of {list(models)} for a {data.task} task; got {model!r}.", "")
    if metric not in RAW_METRICS[data.task]:
        problems.add(
            "metric_invalid", f"metric must be one of {list(RAW_METRICS[data.task])} for a {data.task} task; got {metric!r}.", ""
        )
    if not (0 < test_size < 1):
        problems.add("test_size_invalid", f"test_size must be in (0, 1); got {test_size!r}.", "")
    problems.raise_if_any()


def task_score(data: TrainingData, *, model: str, metric: str | None = None, test_size: float = 0.25, seed: int = 0) -> TaskScore:
    """Fit ``model`` on a (stratified) training split and normalize its held-out metric.

    Parameters
    ----------
    data : TrainingData
        A binary, multiclass or regression table (:func:`evalcore.stability.prepare_training`).
    model : str
        A classifier or regressor name of :mod:`evalcore.stability`.
    metric : str, default=None
        "accuracy" (default), "f1" or "recall" for classification; "one_minus_mape" for regression.
    test_size : float, default=0.25
    seed : int, default=0

    Returns
    -------
    TaskScore
        N, d and class counts are those of the training split (SPEC §3.8).
    """
    metric = metric or RAW_METRICS[data.task][0]
    _check_task(data, model, metric, test_size)
    tr, te = _split(data, test_size, seed)
    return TaskScore(
        task=data.task, model=model, score=_fit_score(data, model, metric, tr, te, seed), n_test=int(len(te)), seed=int(seed)
    )


def _cluster_matrix(X):
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    has_cat = any(X[c].dtype.name == "category" for c in X.columns)
    parts = [
        ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), make_column_selector(dtype_include="number"))
    ]
    if has_cat:
        parts.append(
            (
                "cat",
                make_pipeline(
                    SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore", sparse_output=False)
                ),
                make_column_selector(dtype_exclude="number"),
            )
        )
    return ColumnTransformer(parts)


def _cluster_fit(data: TrainingData, k: int, rows, seed: int):
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score

    prep = _cluster_matrix(data.X)
    Z = prep.fit_transform(data.X.iloc[rows])
    labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(Z)
    sizes = {int(c): int(n) for c, n in zip(*np.unique(labels, return_counts=True))}
    nmi = float(normalized_mutual_info_score(data.y[rows], labels))
    return nmi, sizes, snr_clustering(Z, labels)


def cluster_score(data: TrainingData, *, k: int, seed: int = 0) -> TaskScore:
    """k-means with ``k`` clusters on the standardised features; NMI against the label column.

    N and d are the table's; r comes from the cluster sizes; SNR is between/within sum of squares.
    """
    if not (isinstance(k, (int, np.integer)) and 2 <= k <= data.n):
        raise InputError(f"k must be an integer between 2 and the number of rows ({data.n}); got {k!r}.")
    nmi, sizes, snr = _cluster_fit(data, int(k), np.arange(data.n), seed)
    s = normalized_score(nmi, n=data.n, d=data.d, class_counts=sizes, snr_db=snr, metric_name="NMI")
    return TaskScore(task=CLUSTERING, model="k-means", score=s, n_test=data.n, seed=int(seed), k=int(k), cluster_sizes=sizes)


# --------------------------------------------------------------------------------------
# the learning-curve experiment
# --------------------------------------------------------------------------------------

VARIANTS = ("raw", "normalized", "robust")


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class LearningCurve:
    """Raw and normalized scores on growing training subsets.

    Attributes
    ----------
    sizes : ndarray of shape (s,)
        Training subset sizes N.
    values : dict
        ``"raw"``, ``"normalized"``, ``"robust"`` -> array of shape (n_repeats, s) (NaN where a
        repeat was not run, e.g. after a cancel).
    boundary : int
        ``20·d``: f(N, d) is 1 from there on.
    mad : dict
        variant -> {"before", "after", "all"} -> mean absolute deviation of the values around
        their mean (NaN with fewer than two points in a region).
    rel_mad : dict
        The same divided by |mean| (scale-free: normalizing multiplies every value by g).
    status : {"complete", "cancelled"}
    verdict : str
    """

    sizes: np.ndarray
    values: dict
    boundary: int
    mad: dict
    rel_mad: dict
    task: str
    model: str
    metric: str
    n_repeats: int
    status: str
    elapsed: float
    verdict: str
    steadier: dict

    def to_dict(self) -> dict:
        def clean(d):
            return {k: {r: _f(v) for r, v in x.items()} for k, x in d.items()}

        return {
            "sizes": self.sizes.tolist(),
            "boundary": self.boundary,
            "task": self.task,
            "model": self.model,
            "metric": self.metric,
            "n_repeats": self.n_repeats,
            "status": self.status,
            "elapsed": _f(self.elapsed),
            "values": {k: [[_f(x) for x in row] for row in v] for k, v in self.values.items()},
            "mad": clean(self.mad),
            "rel_mad": clean(self.rel_mad),
            "verdict": self.verdict,
            "steadier": dict(self.steadier),
        }


def _mad(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if x.size < 2:
        return float("nan"), float("nan")
    m = float(x.mean())
    mad = float(np.mean(np.abs(x - m)))
    return mad, (mad / abs(m) if m != 0 else float("nan"))


def default_sizes(n_train: int, d: int, n_classes: int = 2, *, n_sizes: int = 8) -> np.ndarray:
    """Geometric sizes from max(20, 5·classes) to the whole training split, with 20·d added when inside."""
    lo = min(max(20, 5 * n_classes), n_train)
    s = set(np.unique(np.geomspace(lo, n_train, n_sizes).round().astype(int)).tolist())
    if lo < 20 * d < n_train:
        s.add(20 * d)
    return np.array(sorted(s), dtype=int)


def _verdict(rel: dict) -> tuple[str, dict]:
    raw = rel["raw"]["all"]
    out, words = {}, []
    for v in ("normalized", "robust"):
        x = rel[v]["all"]
        if not (np.isfinite(raw) and np.isfinite(x)) or raw == 0:
            out[v] = "undefined"
            continue
        ratio = x / raw
        out[v] = "steadier" if ratio < 0.9 else "less steady" if ratio > 1.1 else "about as steady"
        than = "as" if out[v] == "about as steady" else "than"
        words.append(f"the {v} score is {out[v]} {than} the raw one (relative MAD {x:.3g} vs {raw:.3g})")
    if not words:
        return "Not enough points to compare the scores' steadiness.", out
    text = "On this data, " + "; ".join(words) + "."
    if out.get("normalized") != "steadier":
        text += " Do not rely on the normalized score here; report the raw metric with its data conditions."
    return text, out


def learning_curve(
    data: TrainingData,
    *,
    model: str = "logistic_regression",
    metric: str | None = None,
    sizes=None,
    n_repeats: int = 5,
    test_size: float = 0.25,
    seed: int = 0,
    k: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> LearningCurve:
    """The metric on growing stratified training subsets, raw vs normalized (SPEC §3.8).

    Each repeat draws a new stratified train/test split (``seed + repeat``); each size N draws a
    stratified subset of N training rows, fits, and scores the repeat's fixed test rows. N, d and
    class counts of the normalization are the subset's. With ``k`` set (clustering) k-means runs
    on the subset and NMI is measured on it.

    Notes
    -----
    The mean absolute deviation ``mean|x − mean(x)|`` is taken over every (repeat, size) value
    before N = 20·d, from it on, and overall; the verdict compares the scale-free relative MAD
    (MAD/|mean|) of the normalized and robust scores with the raw one's (10% margin). The robust
    score's cap at 1 can make it look steadier than it is.
    """
    from sklearn.model_selection import train_test_split

    clustering = k is not None
    metric = metric or ("nmi" if clustering else RAW_METRICS[data.task][0])
    if clustering:
        if not (isinstance(k, (int, np.integer)) and k >= 2):
            raise InputError(f"k must be an integer >= 2; got {k!r}.")
    else:
        _check_task(data, model, metric, test_size)
    if not (isinstance(n_repeats, (int, np.integer)) and n_repeats >= 1):
        raise InputError(f"n_repeats must be an integer >= 1; got {n_repeats!r}.")
    classes = len(data.classes) or 1
    n_train = data.n if clustering else data.n - int(math.ceil(test_size * data.n))
    sizes = default_sizes(n_train, data.d, classes) if sizes is None else np.asarray(sorted(set(int(s) for s in sizes)))
    if sizes.size == 0 or sizes.min() < max(2, classes) or sizes.max() > n_train:
        raise InputError(f"sizes must lie between {max(2, classes)} and the training rows ({n_train}); got {sizes.tolist()}.")
    vals = {v: np.full((n_repeats, sizes.size), np.nan) for v in VARIANTS}
    total, done, status = n_repeats * sizes.size, 0, "complete"
    t0 = time.perf_counter()
    strat_ok = data.task in ("binary", "multiclass")
    for rep in range(n_repeats):
        rs = seed + rep
        if clustering:
            tr = np.arange(data.n)
            te = None
        else:
            tr, te = _split(data, test_size, rs)
        for j, n in enumerate(sizes):
            if should_stop is not None and should_stop():
                status = "cancelled"
                break
            if n >= tr.size:
                sub = tr
            else:
                sub = train_test_split(
                    tr, train_size=int(n), random_state=rs * 1000 + j, stratify=data.y[tr] if strat_ok else None
                )[0]
            if clustering:
                nmi, sizes_k, snr = _cluster_fit(data, int(k), sub, rs)
                s = normalized_score(nmi, n=int(sub.size), d=data.d, class_counts=sizes_k, snr_db=snr, metric_name="NMI")
            else:
                s = _fit_score(data, model, metric, sub, te, rs)
            vals["raw"][rep, j], vals["normalized"][rep, j], vals["robust"][rep, j] = s.metric, s.score, s.robust
            done += 1
            if progress is not None:
                progress(done, total, f"repeat {rep + 1} of {n_repeats}, N = {int(n):,}")
        if status == "cancelled":
            break
    boundary = 20 * data.d
    before = sizes < boundary
    mad, rel = {}, {}
    for v in VARIANTS:
        mad[v], rel[v] = {}, {}
        for region, mask in (("before", before), ("after", ~before), ("all", np.ones_like(before))):
            mad[v][region], rel[v][region] = _mad(vals[v][:, mask].ravel())
    text, steadier = _verdict(rel)
    return LearningCurve(
        sizes=sizes,
        values=vals,
        boundary=boundary,
        mad=mad,
        rel_mad=rel,
        task=CLUSTERING if clustering else data.task,
        model="k-means" if clustering else model,
        metric=metric,
        n_repeats=int(n_repeats),
        status=status,
        elapsed=time.perf_counter() - t0,
        verdict=text,
        steadier=steadier,
    )
