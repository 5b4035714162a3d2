"""Random error of training: repeated cross-validation and what to read from it (SPEC §3.7).

- :func:`prepare_training` validates a training table (target, features) once and returns
  canonical ``X`` (a DataFrame) and ``y``.
- :func:`repeated_cv` fits a scikit-learn model on repeated (stratified) K-fold splits and
  scores every test fold, with a progress callback and cooperative cancellation; the result
  (:class:`CVResult`) keeps each fold's test rows so a fold can be opened and two models can
  be paired fold by fold.
- :func:`summarize` gives the distribution of scores (mean, sample std, SEM, mean ± 1.96·SEM,
  quartiles, min, max, the alert line mean − 2·std).
- :func:`sample_size_plan` — (σ/δ)² makes the standard error equal δ; detecting δ (80% power, 5% two-sided) needs ≈ 7.85× that for one sample, ≈ 15.7× for two.
- :func:`paired_test` / :func:`compare_cv` — the Nadeau–Bengio corrected paired t-test on
  matched folds, beside the simple (conservative) interval-overlap view.
- :func:`fold_profile` and :func:`diagnostics` — the worst fold's rows, and the checklist
  shown when the std exceeds 0.015.

Seeds: one ``numpy.random.default_rng(seed)`` draws the split seed first and then one
``random_state`` per fit. A rerun with the same seed is identical; different folds and repeats
get different model seeds ("model randomness left free"). With ``model_randomness="fixed"``
every fit gets the same ``random_state``, so only the folds vary. Two models run with the same
seed, splits and table see the same folds (required by the paired test).
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ._checks import check_level, positive_index, positive_number
from ._errors import InputError, ProblemList
from ._json import json_float as _f

__all__ = [
    "CLASSIFIERS",
    "REGRESSORS",
    "METRICS",
    "STD_LIMIT",
    "ScoreSummary",
    "SampleSizePlan",
    "CVResult",
    "PairedTest",
    "CVComparison",
    "FoldProfile",
    "Check",
    "TrainingData",
    "prepare_training",
    "make_model",
    "repeated_cv",
    "summarize",
    "sample_size_plan",
    "intervals_overlap",
    "paired_test",
    "compare_cv",
    "fold_profile",
    "diagnostics",
]

#: Model choices per task: name -> label shown to users.
CLASSIFIERS = {
    "logistic_regression": "Logistic regression",
    "random_forest": "Random forest",
    "hist_gradient_boosting": "Histogram gradient boosting",
}
REGRESSORS = {
    "ridge": "Ridge regression",
    "random_forest": "Random forest",
    "hist_gradient_boosting": "Histogram gradient boosting",
}
#: Metric choices per task (all "higher is better").
METRICS = {
    "binary": {"accuracy": "Accuracy", "roc_auc": "ROC AUC", "f1": "F1", "expected_value": "Expected value per decision"},
    "multiclass": {"accuracy": "Accuracy", "roc_auc": "ROC AUC (one-vs-rest, macro)", "f1": "F1 (macro)"},
    "regression": {"one_minus_mape": "1 − MAPE", "r2": "R²"},
}
#: Above this sample std of the scores the diagnostics checklist is shown (SPEC §3.7).
STD_LIMIT = 0.015


# --------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ScoreSummary:
    """The distribution of repeated-run scores.

    Attributes
    ----------
    n : int
        Number of scores.
    mean, std, sem : float
        Mean, sample standard deviation (ddof=1) and standard error ``std / sqrt(n)``.
    ci_low, ci_high : float
        ``mean ∓ z·sem`` (z = 1.96 by default).
    q1, median, q3, min, max : float
        Quartiles (numpy's default linear interpolation), extremes.
    alert_line : float
        ``mean − alert_k·std`` (alert_k = 2): a monitored score below it is unusual.
    std_limit : float
        The std above which the diagnostics checklist applies.
    undefined : dict
        Field -> reason, for values that are NaN (e.g. the std of one score).
    """

    n: int
    mean: float
    std: float
    sem: float
    ci_low: float
    ci_high: float
    q1: float
    median: float
    q3: float
    min: float
    max: float
    alert_line: float
    z: float
    alert_k: float
    std_limit: float
    undefined: dict = field(default_factory=dict)

    @property
    def needs_diagnostics(self) -> bool:
        """True when the sample std exceeds ``std_limit`` (False when it is undefined)."""
        return bool(np.isfinite(self.std) and self.std > self.std_limit)

    def to_dict(self) -> dict:
        keys = (
            "mean",
            "std",
            "sem",
            "ci_low",
            "ci_high",
            "q1",
            "median",
            "q3",
            "min",
            "max",
            "alert_line",
            "z",
            "alert_k",
            "std_limit",
        )
        return {
            "n": self.n,
            **{k: _f(getattr(self, k)) for k in keys},
            "needs_diagnostics": self.needs_diagnostics,
            "undefined": dict(self.undefined),
        }


def _check_scores(scores, name: str, problems: ProblemList) -> np.ndarray:
    try:
        s = np.asarray(scores, dtype=float).ravel()
    except (TypeError, ValueError):
        problems.add(
            "scores_not_numeric",
            f"{name} must be numbers; got {type(scores).__name__} with non-numeric values.",
            "Pass one number per run.",
            column=name,
        )
        return np.array([])
    if s.size == 0:
        problems.add("scores_empty", f"{name} is empty.", "Pass at least one score (two for a standard deviation).", column=name)
    bad = ~np.isfinite(s)
    if bad.any():
        problems.add(
            "scores_not_finite",
            f"{name} has {int(bad.sum())} missing or infinite value(s), at positions {np.flatnonzero(bad)[:5].tolist()}.",
            "Remove or fix the runs that failed.",
            column=name,
            n_rows=int(bad.sum()),
        )
    return s


def summarize(scores, *, z: float = 1.96, alert_k: float = 2.0, std_limit: float = STD_LIMIT) -> ScoreSummary:
    """Summarise scores of repeated runs (one number per fold × repeat).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite scores, e.g. the accuracy of every test fold.
    z : float, default=1.96
        Normal quantile of the interval ``mean ± z·SEM``.
    alert_k : float, default=2.0
        The alert line is ``mean − alert_k·std``.
    std_limit : float, default=0.015
        Above it :attr:`ScoreSummary.needs_diagnostics` is True.

    Returns
    -------
    ScoreSummary

    Raises
    ------
    InputError
        Empty, non-numeric or non-finite scores.

    Notes
    -----
    ``std`` uses ddof=1. The SEM treats the runs as independent; CV folds share training rows,
    so ``mean ± 1.96·SEM`` is narrower than the true uncertainty of the mean (the paired test
    in :func:`paired_test` corrects for this when comparing two models).

    Examples
    --------
    >>> s = summarize([0.70, 0.72, 0.74, 0.76])
    >>> round(s.mean, 4), round(s.std, 6), round(s.sem, 6), s.min, s.max
    (0.73, 0.025820, 0.01291, 0.7, 0.76)
    """
    problems = ProblemList()
    s = _check_scores(scores, "scores", problems)
    problems.raise_if_any()
    n = s.size
    und = {}
    mean = float(s.mean())
    if n >= 2:
        std = float(s.std(ddof=1))
        sem = float(std / np.sqrt(n))
    else:
        std = sem = float("nan")
        for k in ("std", "sem", "ci_low", "ci_high", "alert_line"):
            und[k] = "one score: a sample standard deviation needs at least two"
    q1, med, q3 = (float(v) for v in np.quantile(s, [0.25, 0.5, 0.75]))
    return ScoreSummary(
        n=n,
        mean=mean,
        std=std,
        sem=sem,
        ci_low=mean - z * sem,
        ci_high=mean + z * sem,
        q1=q1,
        median=med,
        q3=q3,
        min=float(s.min()),
        max=float(s.max()),
        alert_line=mean - alert_k * std,
        z=float(z),
        alert_k=float(alert_k),
        std_limit=float(std_limit),
        undefined=und,
    )


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SampleSizePlan:
    """How much more evaluation data a target change δ needs.

    Attributes
    ----------
    sigma, delta : float
        The current standard deviation of the score and the change to detect.
    factor : float
        ``(sigma / delta)**2``: how many times the current evaluation data make the standard
        error equal δ (not enough to *detect* δ).
    n_eval : int or None
        Current number of evaluation rows, if given.
    n_needed : int or None
        ``ceil(factor · n_eval)``.
    factor_detect_one, factor_detect_two : float
        To detect δ with 80% power at 5% two-sided: ``(z_0.975 + z_0.8)² ≈ 7.85`` times
        ``factor`` for one sample (a change against a known value), twice that (≈ 15.7×) for
        two independent samples (before against after, each measured with spread σ).
    n_detect_one, n_detect_two : int or None
        ``ceil(factor_detect_* · n_eval)``.

    Notes
    -----
    σ from repeated cross-validation folds includes the variance of training (each fold
    trains a new model), so it overstates the spread of one fixed model's score on new data.
    """

    sigma: float
    delta: float
    factor: float
    n_eval: int | None = None
    n_needed: int | None = None
    factor_detect_one: float = float("nan")
    factor_detect_two: float = float("nan")
    n_detect_one: int | None = None
    n_detect_two: int | None = None

    def to_dict(self) -> dict:
        return {
            "sigma": _f(self.sigma),
            "delta": _f(self.delta),
            "factor": _f(self.factor),
            "n_eval": self.n_eval,
            "n_needed": self.n_needed,
            "factor_detect_one": _f(self.factor_detect_one),
            "factor_detect_two": _f(self.factor_detect_two),
            "n_detect_one": self.n_detect_one,
            "n_detect_two": self.n_detect_two,
        }


#: (z_{0.975} + z_{0.80})²: detecting δ with 80% power at 5% two-sided needs the standard error
#: at δ / 2.80, i.e. 7.85 times the data that make it δ.
POWER_80_ALPHA_05 = float((stats.norm.ppf(0.975) + stats.norm.ppf(0.80)) ** 2)


def sample_size_plan(sigma: float, delta: float, *, n_eval: int | None = None) -> SampleSizePlan:
    """How much evaluation data a change δ needs: ``(σ/δ)²`` and the multiples that detect it.

    The standard error of a mean shrinks as 1/√n, so ``(σ/δ)²`` times the evaluation data make
    the standard error equal δ. That is not enough to *detect* a change δ: with 80% power at 5%
    two-sided it takes ``(1.96 + 0.84)² ≈ 7.85`` times that for one sample, and ≈ 15.7 times for
    two independent samples (each with spread σ). σ estimated from cross-validation folds
    includes the variance of training, so these are upper estimates for one fixed model.

    Examples
    --------
    >>> p = sample_size_plan(0.0118, 0.005, n_eval=1000)
    >>> round(p.factor, 4), p.n_needed
    (5.5696, 5570)
    >>> round(p.factor_detect_one / p.factor, 2), round(p.factor_detect_two / p.factor, 2)
    (7.85, 15.7)
    """
    problems = ProblemList()
    sigma_f = float(sigma) if np.isscalar(sigma) else float("nan")
    delta_f = float(delta) if np.isscalar(delta) else float("nan")
    if not (np.isfinite(sigma_f) and sigma_f >= 0):
        problems.add(
            "sigma_invalid",
            f"sigma must be a finite number >= 0; got {sigma!r}.",
            "Use the sample std of the repeated scores.",
            column="sigma",
        )
    if not (np.isfinite(delta_f) and delta_f > 0):
        problems.add(
            "delta_invalid",
            f"delta must be a finite number > 0; got {delta!r}.",
            "Enter the smallest change of the score you need to detect, e.g. 0.005.",
            column="delta",
        )
    if n_eval is not None and not (isinstance(n_eval, (int, np.integer)) and n_eval > 0):
        problems.add("n_eval_invalid", f"n_eval must be a positive integer or None; got {n_eval!r}.", "", column="n_eval")
    problems.raise_if_any()
    factor = (sigma_f / delta_f) ** 2
    # round before ceil: 5.5696 * 1000 is 5569.600000000001 in floating point, never 5570.0000001
    needed = int(np.ceil(round(factor * n_eval, 9))) if n_eval is not None else None
    one, two = POWER_80_ALPHA_05 * factor, 2 * POWER_80_ALPHA_05 * factor
    return SampleSizePlan(
        sigma=sigma_f,
        delta=delta_f,
        factor=factor,
        n_eval=None if n_eval is None else int(n_eval),
        n_needed=needed,
        factor_detect_one=one,
        factor_detect_two=two,
        n_detect_one=int(np.ceil(round(one * n_eval, 9))) if n_eval is not None else None,
        n_detect_two=int(np.ceil(round(two * n_eval, 9))) if n_eval is not None else None,
    )


def intervals_overlap(a: ScoreSummary, b: ScoreSummary) -> bool:
    """The simple view of SPEC §3.7: two models differ only if their mean ± z·SEM intervals do not overlap."""
    return bool(a.ci_low <= b.ci_high and b.ci_low <= a.ci_high)


# --------------------------------------------------------------------------------------
# training data and models
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TrainingData:
    """A validated training table.

    Attributes
    ----------
    X : DataFrame
        The feature columns (numeric as float, others as pandas ``category``), index = the
        file's row ids.
    y : ndarray
        The target: class labels (classification) or floats (regression).
    task : {"binary", "multiclass", "regression"}
    classes : tuple
        Sorted class labels (empty for regression).
    positive : object or None
        The positive class of a binary task.
    target, features : str, tuple of str
    n_dropped : int
        Rows dropped because the target was missing (only with ``drop_missing_target=True``).
    """

    X: pd.DataFrame
    y: np.ndarray
    task: str
    classes: tuple
    positive: object
    target: str
    features: tuple
    n_dropped: int = 0

    @property
    def n(self) -> int:
        return int(len(self.y))

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def class_counts(self) -> dict:
        if self.task == "regression":
            return {}
        vals, cnt = np.unique(self.y, return_counts=True)
        return {v.item() if hasattr(v, "item") else v: int(c) for v, c in zip(vals, cnt)}

    @property
    def y_binary(self) -> np.ndarray:
        """0/1 labels (1 = the positive class) of a binary task."""
        return (self.y == self.positive).astype(np.int8)


def _rows_of(index: pd.Index, mask: np.ndarray) -> tuple[list[int], int]:
    pos = np.flatnonzero(mask)
    rows = [int(r) if isinstance(r, (int, np.integer)) else i + 2 for i, r in zip(pos[:5], index[pos[:5]])]
    return rows, int(pos.size)


def prepare_training(
    frame: pd.DataFrame,
    target: str,
    *,
    features=None,
    task: str = "auto",
    positive=None,
    drop_missing_target: bool = False,
    min_per_class: int = 2,
) -> TrainingData:
    """Validate a training table and split it into features and target.

    Parameters
    ----------
    frame : DataFrame
        The table (e.g. from :func:`evalcore.read_table`; its index is kept as row ids).
    target : str
        The target column.
    features : list of str, default=None
        Feature columns; None means every column but the target.
    task : {"auto", "binary", "multiclass", "regression"}, default="auto"
        "auto": binary with two distinct values; regression for a numeric target with more than
        20 distinct values; multiclass otherwise.
    positive : object, default=None
        The positive class of a binary target, matched as :func:`evalcore.data.default_positive`
        and the reader match it (as text, ignoring case, or as a number). None: the positive
        of a known pair (1/0, true/false, yes/no, y/n, t/f, 是/否, any case), else the larger
        of the two sorted values.
    drop_missing_target : bool, default=False
        Rows with a missing target are an error unless the user confirmed dropping them.
    min_per_class : int, default=2
        Every class needs at least this many rows (use the number of folds).

    Raises
    ------
    InputError
        Missing columns, an empty feature list, a missing target (unconfirmed), one class,
        a class smaller than ``min_per_class``, a feature that is entirely missing — all at once.
    """
    problems = ProblemList()
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise InputError("The training table is empty: it needs rows and at least a target and one feature column.")
    cols = list(frame.columns)
    if target not in cols:
        problems.add(
            "missing_column",
            f"The target column {target!r} is not in the table (columns: {cols[:20]}).",
            "Pick one of the table's columns as the target.",
            column=str(target),
        )
    feats = [c for c in cols if c != target] if features is None else list(features)
    missing = [c for c in feats if c not in cols]
    if missing:
        problems.add(
            "missing_column",
            f"Feature columns not in the table: {missing[:10]}.",
            "Pick existing columns.",
            column=str(missing[0]),
        )
    if target in feats:
        problems.add(
            "column_in_two_roles",
            f"{target!r} is both the target and a feature.",
            "Remove the target from the features (it would leak the answer).",
            column=str(target),
        )
    if not feats:
        problems.add("no_features", "No feature column is selected.", "Select at least one feature.")
    if task not in ("auto", "binary", "multiclass", "regression"):
        problems.add("task_invalid", f"task must be auto, binary, multiclass or regression; got {task!r}.", "")
    problems.raise_if_any()
    y_raw = frame[target]
    miss = y_raw.isna().to_numpy()
    n_dropped = 0
    if miss.any():
        if not drop_missing_target:
            rows, n = _rows_of(frame.index, miss)
            problems.add(
                "target_missing",
                f"The target {target!r} is missing in {n} row(s).",
                "Confirm dropping these rows, or fill the target in the file.",
                column=str(target),
                rows=rows,
                n_rows=n,
            )
        else:
            n_dropped = int(miss.sum())
    keep = ~miss
    X = frame.loc[keep, feats].copy()
    y_s = y_raw[keep]
    for c in feats:
        if X[c].isna().all():
            problems.add("feature_all_missing", f"Feature {c!r} has no values.", "Deselect it.", column=str(c))
        elif pd.api.types.is_bool_dtype(X[c]) or pd.api.types.is_numeric_dtype(X[c]):
            X[c] = X[c].astype(float)
        else:
            X[c] = X[c].astype(str).where(X[c].notna()).astype("category")
    n_unique = y_s.nunique()
    if task == "auto":
        if n_unique == 2:
            task = "binary"
        elif pd.api.types.is_numeric_dtype(y_s) and n_unique > 20:
            task = "regression"
        else:
            task = "multiclass"
    classes: tuple = ()
    pos = None
    if task == "regression":
        if not pd.api.types.is_numeric_dtype(y_s):
            problems.add(
                "target_not_numeric",
                f"A regression target must be numeric; {target!r} has text values.",
                "Pick a numeric target or a classification task.",
                column=str(target),
            )
            y = y_s.to_numpy()
        else:
            y = y_s.to_numpy(dtype=float)
            if not np.isfinite(y).all():
                rows, n = _rows_of(X.index, ~np.isfinite(y))
                problems.add(
                    "target_not_finite",
                    f"The target {target!r} has {n} infinite value(s).",
                    "Fix them.",
                    column=str(target),
                    rows=rows,
                    n_rows=n,
                )
    else:
        y = y_s.to_numpy()
        if y.dtype == object:
            y = y.astype(str)
        vals, cnt = np.unique(y, return_counts=True)
        classes = tuple(v.item() if hasattr(v, "item") else v for v in vals)
        if len(vals) < 2:
            problems.add(
                "target_one_class",
                f"The target {target!r} has one class ({classes[:1]}).",
                "A classifier needs at least two classes.",
                column=str(target),
            )
        elif task == "binary" and len(vals) != 2:
            problems.add(
                "target_not_binary",
                f"A binary target has two classes; {target!r} has {len(vals)}.",
                "Choose the multiclass task.",
                column=str(target),
            )
        small = [f"{v!r} ({c})" for v, c in zip(classes, cnt) if c < min_per_class]
        if small and len(vals) >= 2:
            problems.add(
                "class_too_small",
                f"Classes with fewer than {min_per_class} rows: {', '.join(small[:10])}.",
                "Every class needs at least one row per fold: use fewer folds or merge rare classes.",
                column=str(target),
            )
        if task == "binary" and len(vals) == 2:
            i = positive_index(classes, positive)
            if i is not None:
                pos = classes[i]
            elif positive is None:
                # the rule cannot tell (e.g. "bad"/"good") and the Stability page has no picker:
                # the larger of the two sorted values, as documented
                pos = classes[1]
            else:
                problems.add(
                    "positive_not_found",
                    f"The positive class {positive!r} is not a value of {target!r} ({list(classes)}).",
                    "Pick one of the target's values.",
                    column=str(target),
                )
    problems.raise_if_any()
    return TrainingData(
        X=X, y=y, task=task, classes=classes, positive=pos, target=str(target), features=tuple(feats), n_dropped=n_dropped
    )


def make_model(name: str, *, task: str, X: pd.DataFrame, random_state: int | None = None):
    """A scikit-learn pipeline for ``name`` that handles missing values and text columns.

    Numeric columns are median-imputed (and standardised for the linear models); text columns
    are one-hot encoded (linear models) or ordinal encoded (forests); histogram gradient boosting
    takes missing values and categories natively.
    """
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.ensemble import (
        HistGradientBoostingClassifier,
        HistGradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

    regression = task == "regression"
    choices = REGRESSORS if regression else CLASSIFIERS
    if name not in choices:
        raise InputError(f"model must be one of {list(choices)} for a {task} task; got {name!r}.")
    num = make_column_selector(dtype_include="number")
    cat = make_column_selector(dtype_exclude="number")
    has_cat = any(not pd.api.types.is_numeric_dtype(X[c]) for c in X.columns)
    if name == "hist_gradient_boosting":
        cls = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
        return cls(categorical_features="from_dtype" if has_cat else None, random_state=random_state)
    if name in ("logistic_regression", "ridge"):
        num_pipe = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
        cat_pipe = make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore"))
        est = Ridge() if regression else LogisticRegression(max_iter=2000)
    else:
        num_pipe = SimpleImputer(strategy="median")
        cat_pipe = make_pipeline(
            SimpleImputer(strategy="most_frequent"), OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
        )
        cls = RandomForestRegressor if regression else RandomForestClassifier
        est = cls(n_estimators=100, random_state=random_state, n_jobs=-1)  # both cores: 50k rows take ~20 s a fit
    transformers = [("num", num_pipe, num)] + ([("cat", cat_pipe, cat)] if has_cat else [])
    return make_pipeline(ColumnTransformer(transformers, verbose_feature_names_out=False), est)


# --------------------------------------------------------------------------------------
# repeated cross-validation
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CVResult:
    """Scores of repeated K-fold cross-validation, one per fit (fold × repeat).

    Attributes
    ----------
    scores, train_scores : ndarray of shape (n_done,)
        Test-fold score and the same metric on the fit's own training rows (the gap hints at
        model complexity), in run order (repeat-major).
    repeat, fold, model_seed : ndarray of int
        Which repeat/fold each score belongs to, and the fit's ``random_state``.
    test_idx : tuple of ndarray
        Positions (0-based, into ``X``) of each fold's test rows.
    n_train, n_test : ndarray of int
        Rows used to fit and to score each fold.
    status : {"complete", "cancelled"}
        "cancelled": the run was stopped; only ``n_done`` of ``n_planned`` fits are here.
    n_planned : int
    model, metric, task, model_randomness : str
    n_splits, n_repeats, seed : int
    threshold : float
        Decision threshold of the expected-value metric (NaN otherwise).
    elapsed : float
        Wall time in seconds.
    warnings : tuple of str
        Distinct warnings raised by the fits, with counts (a browser shows no Python warnings).
    """

    scores: np.ndarray
    train_scores: np.ndarray
    repeat: np.ndarray
    fold: np.ndarray
    model_seed: np.ndarray
    test_idx: tuple
    n_train: np.ndarray
    n_test: np.ndarray
    status: str
    n_planned: int
    model: str
    metric: str
    task: str
    model_randomness: str
    n_splits: int
    n_repeats: int
    seed: int
    threshold: float = float("nan")
    elapsed: float = float("nan")
    warnings: tuple = ()

    @property
    def n_done(self) -> int:
        return int(self.scores.size)

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    def summary(self, **kw) -> ScoreSummary:
        return summarize(self.scores, **kw)

    @property
    def worst(self) -> int:
        """Index of the fit with the lowest test score (every metric here is higher-is-better)."""
        return int(np.argmin(self.scores))

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "metric": self.metric,
            "task": self.task,
            "status": self.status,
            "n_planned": self.n_planned,
            "n_done": self.n_done,
            "n_splits": self.n_splits,
            "n_repeats": self.n_repeats,
            "seed": self.seed,
            "model_randomness": self.model_randomness,
            "threshold": _f(self.threshold),
            "elapsed": _f(self.elapsed),
            "scores": [_f(s) for s in self.scores],
            "train_scores": [_f(s) for s in self.train_scores],
            "repeat": self.repeat.tolist(),
            "fold": self.fold.tolist(),
            "model_seed": self.model_seed.tolist(),
            "n_train": self.n_train.tolist(),
            "n_test": self.n_test.tolist(),
            "warnings": list(self.warnings),
            "summary": summarize(self.scores).to_dict() if self.n_done else None,
        }


def _score(metric: str, task: str, est, X, y, data: TrainingData, table, threshold: float) -> float:
    from sklearn.metrics import accuracy_score, f1_score, r2_score, roc_auc_score

    if task == "regression":
        pred = est.predict(X)
        if metric == "r2":
            return float(r2_score(y, pred))
        return 1.0 - _mape(y, pred)
    if metric in ("roc_auc", "expected_value") or (metric == "f1" and task == "binary"):
        proba = est.predict_proba(X)
    if task == "binary":
        pos_col = list(est.classes_).index(data.positive)
        y01 = (y == data.positive).astype(np.int8)
        if metric == "accuracy":
            return float(accuracy_score(y, est.predict(X)))
        if metric == "roc_auc":
            return float(roc_auc_score(y01, proba[:, pos_col]))
        if metric == "f1":
            return float(f1_score(y01, (est.predict(X) == data.positive).astype(np.int8), zero_division=np.nan))
        from .value import value_curve

        return value_curve(y01, proba[:, pos_col], table).ev_at(threshold)
    if metric == "accuracy":
        return float(accuracy_score(y, est.predict(X)))
    if metric == "f1":
        return float(f1_score(y, est.predict(X), average="macro", labels=list(data.classes), zero_division=np.nan))
    return float(roc_auc_score(y, proba, multi_class="ovr", average="macro", labels=list(est.classes_)))


def _mape(y, pred) -> float:
    y = np.asarray(y, dtype=float)
    if np.any(y == 0):
        return float("nan")  # a percentage error of a zero target is undefined
    return float(np.mean(np.abs((np.asarray(pred, dtype=float) - y) / y)))


def _splits(data: TrainingData, n_splits: int, n_repeats: int, split_seed: int):
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    cls = RepeatedKFold if data.task == "regression" else RepeatedStratifiedKFold
    return cls(n_splits=n_splits, n_repeats=n_repeats, random_state=split_seed).split(np.zeros(data.n), data.y)


def repeated_cv(
    data: TrainingData,
    *,
    model: str = "logistic_regression",
    metric: str = "accuracy",
    n_splits: int = 5,
    n_repeats: int = 10,
    seed: int = 0,
    model_randomness: str = "free",
    table=None,
    threshold: float = 0.5,
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> CVResult:
    """Repeated (stratified) K-fold cross-validation of one model.

    Parameters
    ----------
    data : TrainingData
        From :func:`prepare_training`.
    model : str, default="logistic_regression"
        A key of :data:`CLASSIFIERS` (classification) or :data:`REGRESSORS`.
    metric : str, default="accuracy"
        A key of ``METRICS[data.task]``. "expected_value" needs ``table`` (a
        :class:`~evalcore.value.ValueTable`) and prices each test fold's confusion at ``threshold``.
    n_splits, n_repeats : int, default=5, 10
        Folds per repeat and repeats (stratified by class for classification).
    seed : int, default=0
        Seeds the splits and each fit's random_state (see the module notes).
    model_randomness : {"free", "fixed"}, default="free"
        "free": a new random_state per fit; "fixed": the same one for every fit.
    progress : callable(done, total, text), default=None
        Called after every fit (from the calling thread).
    should_stop : callable() -> bool, default=None
        Checked before every fit; when it returns True the run stops and returns the fits done
        so far with ``status="cancelled"``.

    Returns
    -------
    CVResult

    Raises
    ------
    InputError
        Unknown model or metric, bad fold counts, a missing value table — all at once.
    """
    problems = ProblemList()
    task = data.task
    models = REGRESSORS if task == "regression" else CLASSIFIERS
    if model not in models:
        problems.add("model_invalid", f"model must be one of {list(models)} for a {task} task; got {model!r}.", "")
    if metric not in METRICS[task]:
        problems.add("metric_invalid", f"metric must be one of {list(METRICS[task])} for a {task} task; got {metric!r}.", "")
    for name, v, lo in (("n_splits", n_splits, 2), ("n_repeats", n_repeats, 1)):
        if not (isinstance(v, (int, np.integer)) and v >= lo):
            problems.add(f"{name}_invalid", f"{name} must be an integer >= {lo}; got {v!r}.", "", column=name)
    if model_randomness not in ("free", "fixed"):
        problems.add("model_randomness_invalid", f"model_randomness must be 'free' or 'fixed'; got {model_randomness!r}.", "")
    if metric == "expected_value":
        if table is None:
            problems.add("table_missing", "The expected-value metric needs a value table.", "Pass table=ValueTable(...).")
        if not (np.isscalar(threshold) and np.isfinite(float(threshold)) and 0.0 <= float(threshold) <= 1.0):
            problems.add("threshold_invalid", f"threshold must be a probability in [0, 1]; got {threshold!r}.", "")
    if task != "regression" and isinstance(n_splits, (int, np.integer)) and n_splits >= 2:
        smallest = min(data.class_counts.values())
        if smallest < n_splits:
            problems.add(
                "class_too_small",
                f"The smallest class has {smallest} rows, fewer than the {n_splits} folds.",
                "Use fewer folds or merge rare classes.",
            )
    if isinstance(n_splits, (int, np.integer)) and data.n < n_splits:
        problems.add("too_few_rows", f"{data.n} rows cannot make {n_splits} folds.", "Use fewer folds.")
    problems.raise_if_any()

    rng = np.random.default_rng(seed)
    split_seed = int(rng.integers(0, 2**31 - 1))
    total = n_splits * n_repeats
    fixed_seed = int(rng.integers(0, 2**31 - 1))
    seeds = np.full(total, fixed_seed) if model_randomness == "fixed" else rng.integers(0, 2**31 - 1, size=total)
    out = {k: [] for k in ("scores", "train", "repeat", "fold", "seed", "test", "n_train", "n_test")}
    caught: Counter = Counter()
    status = "complete"
    t0 = time.perf_counter()
    X, y = data.X, data.y
    for i, (tr, te) in enumerate(_splits(data, n_splits, n_repeats, split_seed)):
        if should_stop is not None and should_stop():
            status = "cancelled"
            break
        est = make_model(model, task=task, X=X, random_state=int(seeds[i]))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            est.fit(X.iloc[tr], y[tr])
            s_te = _score(metric, task, est, X.iloc[te], y[te], data, table, threshold)
            s_tr = _score(metric, task, est, X.iloc[tr], y[tr], data, table, threshold)
        caught.update(
            f"{type(m.message).__name__ if isinstance(m.message, Warning) else m.category.__name__}: "
            f"{str(m.message).splitlines()[0][:160]}"
            for m in w
        )
        for k, v in (
            ("scores", s_te),
            ("train", s_tr),
            ("repeat", i // n_splits),
            ("fold", i % n_splits),
            ("seed", int(seeds[i])),
            ("test", te),
            ("n_train", tr.size),
            ("n_test", te.size),
        ):
            out[k].append(v)
        if progress is not None:
            progress(
                i + 1, total, f"{models[model]}: fit {i + 1} of {total} (repeat {i // n_splits + 1}, fold {i % n_splits + 1})"
            )
    return CVResult(
        scores=np.asarray(out["scores"], dtype=float),
        train_scores=np.asarray(out["train"], dtype=float),
        repeat=np.asarray(out["repeat"], dtype=int),
        fold=np.asarray(out["fold"], dtype=int),
        model_seed=np.asarray(out["seed"], dtype=np.int64),
        test_idx=tuple(out["test"]),
        n_train=np.asarray(out["n_train"], dtype=int),
        n_test=np.asarray(out["n_test"], dtype=int),
        status=status,
        n_planned=total,
        model=model,
        metric=metric,
        task=task,
        model_randomness=model_randomness,
        n_splits=int(n_splits),
        n_repeats=int(n_repeats),
        seed=int(seed),
        threshold=float(threshold) if metric == "expected_value" else float("nan"),
        elapsed=time.perf_counter() - t0,
        warnings=tuple(f"{m} (×{c})" for m, c in caught.most_common()),
    )


# --------------------------------------------------------------------------------------
# comparing two models
# --------------------------------------------------------------------------------------

CONSERVATIVE_NOTE = (
    "Why the overlap view is conservative: each interval carries the fold-to-fold variation that both models share "
    "(a hard fold is hard for both), so two intervals can overlap although one model wins on almost every fold. The "
    "paired test looks at the per-fold differences, which cancels that shared variation. A plain paired t-test on CV "
    "folds would be too confident in turn (folds share training rows, so their differences are correlated); the "
    "Nadeau–Bengio correction widens its variance by the test/train size ratio."
)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class PairedTest:
    """Corrected repeated K-fold t-test on matched differences ``d_j = a_j − b_j``.

    Attributes
    ----------
    n : int
        Number of matched folds J (= K·R).
    mean_diff, std_diff : float
        Mean and sample std (ddof=1) of the differences.
    test_train_ratio : float
        n_test / n_train of the folds.
    naive_se, corrected_se : float
        ``sqrt(S²/J)`` and ``sqrt((1/J + n_test/n_train)·S²)``.
    t, p_value : float
        Corrected statistic ``mean_diff / corrected_se`` and its two-sided p-value with J − 1 df.
    naive_t, naive_p : float
        The uncorrected paired t-test, for reference (anti-conservative on CV folds).
    ci_low, ci_high : float
        ``mean_diff ± t_{J−1, (1+level)/2}·corrected_se``.
    level : float
    undefined : dict
    """

    n: int
    mean_diff: float
    std_diff: float
    test_train_ratio: float
    naive_se: float
    corrected_se: float
    t: float
    p_value: float
    naive_t: float
    naive_p: float
    ci_low: float
    ci_high: float
    level: float
    undefined: dict = field(default_factory=dict)

    @property
    def significant(self) -> bool:
        return bool(np.isfinite(self.p_value) and self.p_value < 1 - self.level)

    @property
    def t_quantile(self) -> float:
        """``t_{J−1, (1+level)/2}``: half-width / SE of both intervals (naive and corrected)."""
        return float(stats.t.ppf(0.5 + self.level / 2, self.n - 1)) if self.n > 1 else float("nan")

    def to_dict(self) -> dict:
        keys = (
            "mean_diff",
            "std_diff",
            "test_train_ratio",
            "naive_se",
            "corrected_se",
            "t",
            "p_value",
            "naive_t",
            "naive_p",
            "ci_low",
            "ci_high",
            "level",
        )
        return {
            "n": self.n,
            **{k: _f(getattr(self, k)) for k in keys},
            "significant": self.significant,
            "undefined": dict(self.undefined),
        }


def paired_test(scores_a, scores_b, *, test_train_ratio: float, level: float = 0.95) -> PairedTest:
    """Nadeau–Bengio corrected resampled t-test of ``a − b`` on matched folds.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (J,)
        Scores of the two models on the same folds, in the same order.
    test_train_ratio : float
        n_test / n_train (1/(K−1) for K-fold).
    level : float, default=0.95

    Notes
    -----
    Var_corrected = (1/J + n_test/n_train)·S², S² the sample variance of the differences
    (Nadeau & Bengio 2003; Bouckaert & Frank 2004 for repeated K-fold); t has J − 1 degrees of
    freedom. With all differences equal S² = 0: a zero difference has an undefined t, a non-zero
    one is infinitely significant.

    Examples
    --------
    >>> r = paired_test([0.8, 0.82, 0.81, 0.83], [0.78, 0.8, 0.8, 0.8], test_train_ratio=0.25)
    >>> round(r.mean_diff, 4), round(r.corrected_se, 6)  # sqrt((1/4 + 0.25) * 0.0002/3)
    (0.02, 0.005774)
    """
    problems = ProblemList()
    a = _check_scores(scores_a, "scores_a", problems)
    b = _check_scores(scores_b, "scores_b", problems)
    if a.size != b.size:
        problems.add(
            "length_mismatch",
            f"scores_a has {a.size} values, scores_b {b.size}; matched folds need the same.",
            "Run both models on the same folds (same seed and settings).",
        )
    if a.size == b.size and a.size < 2:
        problems.add("too_few_folds", "A paired test needs at least two matched folds.", "Run more folds or repeats.")
    r = positive_number(test_train_ratio)
    if np.isnan(r):
        problems.add("ratio_invalid", f"test_train_ratio must be > 0; got {test_train_ratio!r}.", "Use 1/(K−1) for K folds.")
    check_level(level, problems)
    problems.raise_if_any()
    d = a - b
    J = d.size
    mean, s2 = float(d.mean()), float(d.var(ddof=1))
    naive_se, corr_se = np.sqrt(s2 / J), np.sqrt((1.0 / J + r) * s2)
    und = {}

    def t_and_p(se):
        if se > 0:
            t = mean / se
            return t, float(2 * stats.t.sf(abs(t), J - 1))
        if mean == 0:
            und["t"] = "every fold has the same score for both models: no difference to test"
            return float("nan"), float("nan")
        return float(np.copysign(np.inf, mean)), 0.0

    t, p = t_and_p(corr_se)
    nt, npv = t_and_p(naive_se)
    q = stats.t.ppf(0.5 + level / 2, J - 1)
    return PairedTest(
        n=J,
        mean_diff=mean,
        std_diff=float(np.sqrt(s2)),
        test_train_ratio=r,
        naive_se=float(naive_se),
        corrected_se=float(corr_se),
        t=float(t),
        p_value=p,
        naive_t=float(nt),
        naive_p=npv,
        ci_low=mean - q * corr_se,
        ci_high=mean + q * corr_se,
        level=float(level),
        undefined=und,
    )


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CVComparison:
    """Two models on the same folds: the overlap view and the corrected paired test (a − b)."""

    a: str
    b: str
    summary_a: ScoreSummary
    summary_b: ScoreSummary
    overlap: bool
    paired: PairedTest
    note: str = CONSERVATIVE_NOTE

    @property
    def verdict(self) -> str:
        p = self.paired
        if p.significant:
            better = self.a if p.mean_diff > 0 else self.b
            return f"{better} is better on matched folds (corrected paired test, p = {p.p_value:.3g})" + (
                "; the intervals overlap, so the simple view would have missed it." if self.overlap else "."
            )
        return "No significant difference on matched folds (corrected paired test" + (
            f", p = {p.p_value:.3g})." if np.isfinite(p.p_value) else ")."
        )

    def to_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "summary_a": self.summary_a.to_dict(),
            "summary_b": self.summary_b.to_dict(),
            "overlap": self.overlap,
            "paired": self.paired.to_dict(),
            "verdict": self.verdict,
            "note": self.note,
        }


def compare_cv(a: CVResult, b: CVResult, *, level: float = 0.95) -> CVComparison:
    """Compare two CV runs fold by fold (they must share the folds: same seed, splits and table).

    Raises
    ------
    InputError
        The runs do not have the same folds (or one was cancelled part-way at a different fit).
    """
    same = a.n_done == b.n_done and a.n_done >= 2 and all(np.array_equal(x, y) for x, y in zip(a.test_idx, b.test_idx))
    if not same:
        raise InputError(
            "The two runs do not share their folds (different seed, fold settings, table, or a run "
            "stopped part-way); run both models with the same settings."
        )
    ratio = float(np.mean(a.n_test / a.n_train))
    sa, sb = a.summary(), b.summary()
    return CVComparison(
        a=a.model,
        b=b.model,
        summary_a=sa,
        summary_b=sb,
        overlap=intervals_overlap(sa, sb),
        paired=paired_test(a.scores, b.scores, test_train_ratio=ratio, level=level),
    )


# --------------------------------------------------------------------------------------
# the worst fold and the diagnostics checklist
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class FoldProfile:
    """What a fold's test rows look like next to the whole table.

    Attributes
    ----------
    n : int
    class_counts, overall_class_counts : dict
        Per class in this fold and in the whole table (empty for regression).
    missing_rate, overall_missing_rate : float
        Share of missing feature cells.
    row_ids : ndarray
        The table's row ids (file row numbers) of the fold's test rows.
    """

    n: int
    class_counts: dict
    overall_class_counts: dict
    missing_rate: float
    overall_missing_rate: float
    row_ids: np.ndarray

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "class_counts": {str(k): v for k, v in self.class_counts.items()},
            "overall_class_counts": {str(k): v for k, v in self.overall_class_counts.items()},
            "missing_rate": _f(self.missing_rate),
            "overall_missing_rate": _f(self.overall_missing_rate),
            "row_ids": self.row_ids.tolist(),
        }


def _counts(y) -> dict:
    vals, cnt = np.unique(y, return_counts=True)
    return {v.item() if hasattr(v, "item") else v: int(c) for v, c in zip(vals, cnt)}


def fold_profile(data: TrainingData, test_idx) -> FoldProfile:
    """Class ratio, missing-value rate and row ids of one fold's test rows."""
    idx = np.asarray(test_idx, dtype=int)
    Xf = data.X.iloc[idx]
    cells = max(Xf.size, 1)
    regression = data.task == "regression"
    return FoldProfile(
        n=int(idx.size),
        class_counts={} if regression else _counts(data.y[idx]),
        overall_class_counts={} if regression else data.class_counts,
        missing_rate=float(Xf.isna().to_numpy().sum() / cells),
        overall_missing_rate=float(data.X.isna().to_numpy().sum() / max(data.X.size, 1)),
        row_ids=np.asarray(Xf.index),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """One item of the diagnostics checklist.

    status : "flag" (a likely cause), "ok", or "not computed" (with why in ``detail``).
    """

    name: str
    status: str
    detail: str

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail}


def diagnostics(data: TrainingData | None, result: CVResult | None = None) -> list[Check]:
    """The checklist for unstable scores (SPEC §3.7), computing what can be computed.

    Checks: small data (N < 20·d, or under 50 rows per test fold), imbalance without
    stratification (minority share < 10% and folds not stratified), missing values, model
    complexity (mean train − test gap > 0.05), leakage (a single feature that separates the
    classes almost perfectly, AUC ≥ 0.98, or an id-like column with one value per row).
    Without the table (uploaded scores) every check is "not computed".
    """
    names = ("Small data", "Imbalance without stratification", "Missing values", "Model complexity", "Leakage")
    if data is None:
        return [
            Check(name=n, status="not computed", detail="needs the training table (only scores were uploaded)") for n in names
        ]
    out = []
    n, d = data.n, data.d
    per_fold = n / result.n_splits if result is not None else float("nan")
    small = n < 20 * d or (np.isfinite(per_fold) and per_fold < 50)
    out.append(
        Check(
            name=names[0],
            status="flag" if small else "ok",
            detail=f"N = {n:,} rows, d = {d} features (20·d = {20 * d:,})"
            + (f", about {per_fold:,.0f} rows per test fold" if np.isfinite(per_fold) else ""),
        )
    )
    if data.task == "regression":
        out.append(Check(name=names[1], status="ok", detail="regression target: no classes"))
    else:
        cc = data.class_counts
        share = min(cc.values()) / n
        strat = result is None or result.task != "regression"
        out.append(
            Check(
                name=names[1],
                status="flag" if share < 0.1 and not strat else "ok",
                detail=f"smallest class {share:.1%} of rows; folds are " + ("stratified by class" if strat else "NOT stratified"),
            )
        )
    miss = data.X.isna().mean()
    rate = float(data.X.isna().to_numpy().mean()) if data.X.size else 0.0
    worst = miss.sort_values(ascending=False)
    out.append(
        Check(
            name=names[2],
            status="flag" if rate > 0.01 or worst.iloc[0] > 0.2 else "ok",
            detail=f"{rate:.1%} of feature cells missing"
            + (f"; most in {worst.index[0]!r} ({worst.iloc[0]:.0%})" if worst.iloc[0] > 0 else ""),
        )
    )
    if result is None or result.n_done == 0:
        out.append(Check(name=names[3], status="not computed", detail="needs a cross-validation run"))
    else:
        gap = float(np.mean(result.train_scores - result.scores))
        if result.metric == "expected_value":
            detail = f"mean train − test gap {gap:+.4g} per decision (value units)"
            flag = False
        else:
            detail = f"mean train − test gap {gap:+.3f} of the metric"
            flag = gap > 0.05
        out.append(
            Check(
                name=names[3],
                status="flag" if flag else "ok",
                detail=detail + ("; a large gap means the model fits noise (overfits)" if flag else ""),
            )
        )
    out.append(_leakage_check(data, names[4]))
    return out


def _leakage_check(data: TrainingData, name: str) -> Check:
    from sklearn.metrics import roc_auc_score

    suspects = []
    for c in data.X.columns:
        col = data.X[c]
        if col.notna().all() and col.nunique() == data.n and data.n > 20:
            suspects.append(f"{c!r} has one value per row (an id?)")
            continue
        if data.task == "binary" and pd.api.types.is_numeric_dtype(col):
            ok = col.notna().to_numpy()
            y01 = data.y_binary[ok]
            if ok.sum() > 10 and 0 < y01.sum() < y01.size:
                auc = roc_auc_score(y01, col.to_numpy()[ok])
                if max(auc, 1 - auc) >= 0.98:
                    suspects.append(f"{c!r} alone separates the classes (AUC {max(auc, 1 - auc):.3f})")
    if suspects:
        return Check(name=name, status="flag", detail="; ".join(suspects[:5]))
    what = "no id-like column" + ("; no single feature with AUC ≥ 0.98" if data.task == "binary" else "")
    return Check(name=name, status="ok", detail=what + " (leakage through time or duplicates is not checked)")
