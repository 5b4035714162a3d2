"""Drift lights: feature, label and calibration drift of time windows against a reference.

Fit on a reference window, apply to sliding current windows, grade every window, and
turn the grades into one light per family with a one-line reason (SPEC §3.6).

Windows
    Time is cut into calendar days (UTC for tz-aware times; day 0 is the midnight before the
    earliest row). The reference window is ``reference_days`` days starting at
    ``reference_start`` (default: day 0). Current windows are ``window_days`` long, end on a
    day boundary, step by ``step_days`` backwards from the end of the last day with data, and
    never overlap the reference (each starts at or after the reference's end), so a window
    and the reference are independent samples. Only whole windows are used.

Feature drift
    Numeric features: the two-sample Kolmogorov–Smirnov statistic D. Exact (both samples
    sorted, ECDFs compared at every pooled value — the statistic of ``scipy.stats.ks_2samp``,
    ties included) while ``n_ref + n_cur <= exact_limit`` for every window; above it, binned
    on a grid frozen on the reference (see :func:`fit_reference`), whose error bound is
    stated in the result. Missing values (NaN) are left out of KS and counted.
    Categorical features (non-numeric dtypes, booleans, or names in ``categorical``): PSI
    ``sum((c - r) * ln(c / r))`` over the reference's levels plus a ``(missing)`` and an
    ``(unseen)`` bucket (levels absent from the reference share the latter); proportions
    below ``psi_floor`` are raised to it (no renormalisation). A Pearson chi-square test of
    the 2×k table is reported beside it.

Noise floors (95%)
    KS: ``1.36 * sqrt((n + m) / (n * m))``. PSI: ``(1/n + 1/m) * chi2.ppf(0.95, k - 1)`` with
    k the buckets seen in either sample (PSI is a J-divergence, asymptotically
    ``(1/n + 1/m) * chi2(k - 1)`` under no drift).

Grading (per window, one ``level``)
    -1 "too few rows": the noise floor is above the (yellow) threshold, or a sample is empty.
    0 "ok"; 1 "moderate" (PSI above ``psi_yellow`` only); 2 "high": KS above ``ks_threshold``
    (KS has one threshold) or PSI above ``psi_red``. Comparisons are strict (``>``).

The consecutive-window rule (:func:`consecutive_rule`), the same for every family
    grey when there is no current window or the latest is "too few rows"; red when the last
    ``consecutive_red`` windows are all "high"; yellow when the latest window is at least
    "moderate"; green otherwise. "Too few rows" never counts as high, so it never lights red.
    The feature light is its worst feature's (red > yellow > grey > green).

Label drift
    Positive rate per window with a Wilson 95% interval; pooled two-proportion z-test
    against the reference. A window is "high" when p < ``label_alpha``; "too few rows" when
    the expected positives or negatives under the pooled rate are below ``min_expected``.
    Same consecutive rule. When the label light is not green while the feature light is
    green the result says "possible label-definition change"; the most likely step day
    (single change point, binomial likelihood ratio over the days from the reference on)
    is reported.

Calibration drift
    Per window O/E = sum(y) / sum(p) and ECE (10 uniform bins). Drift is judged against the
    reference: ratio = (O/E)_cur / (O/E)_ref, with an exact interval from the conditional
    binomial (O_cur | O_cur + O_ref ~ Binomial(O_cur + O_ref, E_cur / (E_cur + E_ref)) under
    no change; Clopper–Pearson at ``calibration_alpha``). A window is "high" when the ratio
    is outside ``oe_band`` and its interval excludes 1; "too few rows" when E_cur or E_ref is
    below ``min_expected`` or the reference has no positives. ECE is shown, not graded (its
    bias depends on the window size).

Sample weights are not used here: drift compares the rows as they arrived.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

import numpy as np
import pandas as pd
from scipy import stats

from .calibration import _bin_index, _uniform_edges
from .bootstrap import wilson_interval
from ._checks import check_binary_scores
from ._errors import InputError, ProblemList

__all__ = [
    "DriftConfig",
    "Window",
    "Reference",
    "FeatureDrift",
    "LabelDrift",
    "CalibrationDrift",
    "Light",
    "DriftReport",
    "ks_statistic",
    "noise_floor",
    "psi",
    "psi_noise_floor",
    "chi_square",
    "two_proportion_test",
    "consecutive_rule",
    "fit_reference",
    "windows",
    "feature_drift",
    "label_drift",
    "calibration_drift",
    "drift_lights",
    "drift_from_days",
    "calibration_drift_from_days",
    "exact_ks_applies",
    "reference_spec",
    "DAY_COLUMNS",
    "CALIBRATION_DAY_COLUMNS",
    "FEATURE_DAY_COLUMNS",
]

LEVEL_NAMES = {-1: "too few rows", 0: "ok", 1: "moderate", 2: "high"}
_SEVERITY = {"red": 3, "yellow": 2, "grey": 1, "green": 0}
_DAY = np.timedelta64(1, "D")


def _clean(x):
    """JSON-safe scalar: NaN/inf -> None, numpy -> Python."""
    if x is None:
        return None
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, (pd.Timestamp, np.datetime64)):
        return pd.Timestamp(x).isoformat()
    return x


def _clean_list(a):
    return [_clean(v) if not isinstance(v, (list, np.ndarray)) else _clean_list(v) for v in np.asarray(a, dtype=object).tolist()] if np.ndim(a) else _clean(a)


# --------------------------------------------------------------------------- config


@dataclass(frozen=True, slots=True, kw_only=True)
class DriftConfig:
    """Drift settings, saved with the dataset (hashable, so it can key a cache).

    Parameters
    ----------
    reference_start : str or None, default=None
        ISO date of the reference window's first day; None means the first day with data.
    reference_days : int, default=7
        Length of the reference window in days.
    window_days : int, default=7
        Length of each current window in days.
    step_days : int, default=1
        Slide between consecutive current windows (1 = daily).
    ks_threshold : float, default=0.15
        KS statistic above which a window counts as drifted.
    consecutive_red : int, default=3
        Consecutive latest windows above the threshold that light red.
    psi_yellow, psi_red : float, default=0.1, 0.25
        PSI thresholds for categorical features.
    psi_floor : float, default=1e-4
        Proportions below this are raised to it before PSI (empty buckets).
    exact_limit : int, default=200_000
        KS is exact while ``n_ref + n_cur`` stays at or below this for every window, binned above.
    n_bins : int, default=1000
        Number of reference-quantile intervals of the binned KS grid.
    noise_c : float, default=1.36
        KS noise-floor constant (1.36 is the 95% point of the Kolmogorov distribution).
    label_alpha : float, default=0.01
        Significance level of the two-proportion test for label drift.
    min_expected : float, default=5.0
        Minimum expected count for the normal/Poisson approximations (label, calibration).
    oe_band : tuple of float, default=(0.8, 1.25)
        Band of (O/E)_cur / (O/E)_ref within which calibration counts as unchanged.
    calibration_alpha : float, default=0.05
        Level of the interval of that ratio (must exclude 1 to count).
    features : tuple of str or None, default=None
        Feature columns that count; None means every column passed.
    categorical : tuple of str, default=()
        Columns treated as categorical (PSI) even if numeric.
    """

    reference_start: str | None = None
    reference_days: int = 7
    window_days: int = 7
    step_days: int = 1
    ks_threshold: float = 0.15
    consecutive_red: int = 3
    psi_yellow: float = 0.1
    psi_red: float = 0.25
    psi_floor: float = 1e-4
    exact_limit: int = 200_000
    n_bins: int = 1000
    noise_c: float = 1.36
    label_alpha: float = 0.01
    min_expected: float = 5.0
    oe_band: tuple[float, float] = (0.8, 1.25)
    calibration_alpha: float = 0.05
    features: tuple[str, ...] | None = None
    categorical: tuple[str, ...] = ()

    def __post_init__(self):
        p = ProblemList()
        for name in ("reference_days", "window_days", "step_days", "consecutive_red", "exact_limit", "n_bins"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                p.add("config_invalid", f"{name} must be a positive integer; got {v!r}.", f"Set {name} to 1 or more.", column=name)
        for name in ("ks_threshold", "psi_yellow", "psi_red", "psi_floor", "noise_c", "min_expected"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.number)) or isinstance(v, bool) or not (math.isfinite(v) and v > 0):
                p.add("config_invalid", f"{name} must be a finite number > 0; got {v!r}.", f"Set {name} to a positive number.", column=name)
        for name in ("label_alpha", "calibration_alpha"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.number)) or not (0 < v < 1):
                p.add("config_invalid", f"{name} must be in (0, 1); got {v!r}.", "Use e.g. 0.01 or 0.05.", column=name)
        if not p and self.psi_yellow > self.psi_red:
            p.add("config_invalid", f"psi_yellow ({self.psi_yellow}) must not exceed psi_red ({self.psi_red}).", "Swap them.", column="psi_yellow")
        try:
            lo, hi = (float(v) for v in self.oe_band)
            ok = 0 < lo < 1 < hi
        except (TypeError, ValueError):
            ok = False
        if not ok:
            p.add("config_invalid", f"oe_band must be (low, high) with 0 < low < 1 < high; got {self.oe_band!r}.", "Use e.g. (0.8, 1.25).", column="oe_band")
        else:
            object.__setattr__(self, "oe_band", (lo, hi))
        if self.reference_start is not None:
            try:
                pd.Timestamp(self.reference_start)
            except (TypeError, ValueError):
                p.add("config_invalid", f"reference_start must be an ISO date; got {self.reference_start!r}.", "Use e.g. '2026-10-05'.", column="reference_start")
        if self.features is not None:
            if isinstance(self.features, str):
                object.__setattr__(self, "features", (self.features,))
            else:
                object.__setattr__(self, "features", tuple(str(f) for f in self.features))
        if isinstance(self.categorical, str):
            object.__setattr__(self, "categorical", (self.categorical,))
        else:
            object.__setattr__(self, "categorical", tuple(str(f) for f in self.categorical))
        p.raise_if_any()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["oe_band"] = list(self.oe_band)
        d["features"] = None if self.features is None else list(self.features)
        d["categorical"] = list(self.categorical)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "DriftConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise InputError([_problem("config_unknown", f"Unknown drift setting(s): {unknown}.", f"Use only: {sorted(known)}.")])
        d = dict(d)
        if "oe_band" in d and d["oe_band"] is not None:
            d["oe_band"] = tuple(d["oe_band"])
        return cls(**d)


def _problem(code, message, fix="", column=None):
    from ._errors import Problem

    return Problem(code=code, message=message, fix=fix, column=column)


# --------------------------------------------------------------------------- primitives


def ks_statistic(ref, cur) -> float:
    """Exact two-sample Kolmogorov–Smirnov statistic ``sup_x |F_ref(x) - F_cur(x)|``.

    Both samples are sorted and their right-continuous ECDFs compared at every pooled
    value, so ties are handled exactly (the statistic of ``scipy.stats.ks_2samp``).

    Parameters
    ----------
    ref, cur : array-like of shape (n,), (m,)
        Finite numeric samples.

    Returns
    -------
    float
        D in [0, 1]; NaN when a sample is empty.

    Raises
    ------
    InputError
        If a sample is not one-dimensional numeric or holds NaN.

    Examples
    --------
    >>> ks_statistic([1, 2, 3, 4], [3, 4, 5, 6])
    0.5
    >>> ks_statistic([1, 1, 2], [1, 1, 2])
    0.0
    """
    p = ProblemList()
    arrs = []
    for name, a in (("ref", ref), ("cur", cur)):
        a = np.asarray(a)
        if a.ndim != 1 or (a.size and a.dtype.kind not in "iufb"):
            p.add("sample_invalid", f"{name} must be a one-dimensional numeric array; got shape {a.shape}, dtype {a.dtype}.", "Pass one number per row.", column=name)
            continue
        a = a.astype(np.float64)
        if np.isnan(a).any():
            p.add("sample_nan", f"{name} holds {int(np.isnan(a).sum())} NaN values.", "Drop missing values first.", column=name)
        arrs.append(a)
    p.raise_if_any()
    a, b = arrs
    if a.size == 0 or b.size == 0:
        return float("nan")
    return _ks_sorted(np.sort(a), np.sort(b))


def _ks_sorted(a: np.ndarray, b: np.ndarray) -> float:
    pooled = np.concatenate([a, b])
    fa = np.searchsorted(a, pooled, side="right") / a.size
    fb = np.searchsorted(b, pooled, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def _ks_counts(av: np.ndarray, ac: np.ndarray, bv: np.ndarray, bc: np.ndarray) -> float:
    """:func:`_ks_sorted` from sorted distinct values and their counts (bit for bit: the same
    integer ECDF numerators over the same pooled values)."""
    pooled = np.union1d(av, bv)

    def ecdf(v, c):
        cum = np.concatenate([[0], np.cumsum(c)])
        return cum[np.searchsorted(v, pooled, side="right")] / cum[-1]

    return float(np.max(np.abs(ecdf(av, ac) - ecdf(bv, bc))))


def noise_floor(n, m, c: float = 1.36):
    """95% noise floor of the two-sample KS statistic: ``c * sqrt((n + m) / (n * m))``.

    Below it a KS value is indistinguishable from sampling noise. NaN when n or m is 0.

    Examples
    --------
    >>> round(noise_floor(80 * 7, 80 * 7), 4)
    0.0813
    >>> round(noise_floor(164, 164), 3)
    0.15
    """
    n = np.asarray(n, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((n > 0) & (m > 0), c * np.sqrt((n + m) / (n * m)), np.nan)
    return float(out) if out.ndim == 0 else out


def _psi_counts(r: np.ndarray, c: np.ndarray, floor: float):
    """PSI along the last axis of count arrays (no validation)."""
    nr = r.sum(axis=-1, keepdims=True)
    nc = c.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pr = np.maximum(r / nr, floor)
        pc = np.maximum(c / nc, floor)
        out = np.sum((pc - pr) * np.log(pc / pr), axis=-1)
    bad = (nr[..., 0] <= 0) | (nc[..., 0] <= 0)
    return np.where(bad, np.nan, out)


def psi(ref_counts, cur_counts, *, floor: float = 1e-4) -> float:
    """Population stability index of two count vectors over the same buckets.

    ``PSI = sum_i (c_i - r_i) * ln(c_i / r_i)`` with ``r_i, c_i`` the bucket proportions,
    each raised to ``floor`` when smaller (so empty buckets stay finite; no renormalisation).

    Returns
    -------
    float
        PSI >= 0; NaN when either total is 0.

    Examples
    --------
    >>> round(psi([50, 50], [40, 60]), 6)   # (0.4-0.5)ln(0.8) + (0.6-0.5)ln(1.2)
    0.040547
    """
    r = np.asarray(ref_counts, dtype=np.float64)
    c = np.asarray(cur_counts, dtype=np.float64)
    p = ProblemList()
    if r.ndim != 1 or c.shape != r.shape:
        p.add("counts_shape", f"ref_counts and cur_counts must be 1-D of equal length; got {r.shape} and {c.shape}.", "Count the same buckets in both.")
    elif not (np.isfinite(r).all() and np.isfinite(c).all() and (r >= 0).all() and (c >= 0).all()):
        p.add("counts_invalid", "Counts must be finite and >= 0.", "Pass counts, not proportions with NaN.")
    if not (isinstance(floor, (int, float)) and 0 < floor < 1):
        p.add("floor_invalid", f"floor must be in (0, 1); got {floor!r}.", "Use e.g. 1e-4.")
    p.raise_if_any()
    return float(_psi_counts(r, c, floor))


def psi_noise_floor(n, m, k) -> float:
    """95% noise floor of PSI over k buckets: ``(1/n + 1/m) * chi2.ppf(0.95, k - 1)``.

    NaN when n or m is 0; 0 when k < 2 (one bucket cannot drift).

    Examples
    --------
    >>> round(psi_noise_floor(1000, 1000, 2), 5)   # 0.002 * 3.84146
    0.00768
    """
    n, m, k = float(n), float(m), int(k)
    if n <= 0 or m <= 0:
        return float("nan")
    if k < 2:
        return 0.0
    return float((1 / n + 1 / m) * stats.chi2.ppf(0.95, k - 1))


def chi_square(ref_counts, cur_counts) -> tuple[float, float]:
    """Pearson chi-square test of homogeneity of the 2×k table (buckets empty in both dropped).

    Returns ``(statistic, p_value)``; NaN for both when fewer than 2 buckets are non-empty
    or a sample is empty. No continuity correction.

    Examples
    --------
    >>> stat, p = chi_square([30, 70], [50, 50])
    >>> round(stat, 4)   # 200*(30*50-70*50)^2 / (100*100*80*120)
    8.3333
    """
    r = np.asarray(ref_counts, dtype=np.float64)
    c = np.asarray(cur_counts, dtype=np.float64)
    keep = (r + c) > 0
    r, c = r[keep], c[keep]
    if r.size < 2 or r.sum() <= 0 or c.sum() <= 0:
        return float("nan"), float("nan")
    obs = np.vstack([r, c])
    exp = obs.sum(axis=1, keepdims=True) * obs.sum(axis=0, keepdims=True) / obs.sum()
    stat = float(((obs - exp) ** 2 / exp).sum())
    return stat, float(stats.chi2.sf(stat, r.size - 1))


def two_proportion_test(x1, n1, x2, n2) -> tuple[float, float]:
    """Pooled two-proportion z-test of ``x1/n1`` against ``x2/n2`` (two-sided).

    Returns ``(z, p_value)``; NaN for both when a sample is empty or the pooled rate is 0 or 1
    (no variance: the test is undefined). Works elementwise on arrays.

    Examples
    --------
    >>> z, p = two_proportion_test(30, 100, 20, 100)
    >>> round(z, 4)   # 0.1 / sqrt(0.25*0.75*0.02)
    1.633
    """
    x1, n1, x2, n2 = (np.asarray(v, dtype=np.float64) for v in (x1, n1, x2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        pool = (x1 + x2) / (n1 + n2)
        se = np.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
        z = np.where((n1 > 0) & (n2 > 0) & (se > 0), (x1 / n1 - x2 / n2) / se, np.nan)
    pval = np.where(np.isfinite(z), 2 * stats.norm.sf(np.abs(np.nan_to_num(z))), np.nan)
    if z.ndim == 0:
        return float(z), float(pval)
    return z, pval


def _wilson(x, n):
    lo, hi = wilson_interval(np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64))
    return np.asarray(lo), np.asarray(hi)


def consecutive_rule(levels, consecutive_red: int = 3) -> str:
    """Colour of one series of graded windows (oldest first, latest last).

    ``levels`` holds -1 (too few rows), 0 (ok), 1 (moderate) or 2 (high) per window.
    grey: no window, or the latest is too few rows; red: the last ``consecutive_red`` are
    all high; yellow: the latest is moderate or high; green otherwise.

    Examples
    --------
    >>> consecutive_rule([0, 2, 2, 2], 3), consecutive_rule([2, 0, 2, 2], 3), consecutive_rule([2, 2, 0], 3)
    ('red', 'yellow', 'green')
    >>> consecutive_rule([2, 2, -1], 3)
    'grey'
    """
    lv = np.asarray(levels, dtype=np.int64)
    if lv.size == 0 or lv[-1] < 0:
        return "grey"
    if lv.size >= consecutive_red and (lv[-consecutive_red:] == 2).all():
        return "red"
    if lv[-1] >= 1:
        return "yellow"
    return "green"


def _run_length(levels) -> int:
    """How many of the latest windows are 'high' in a row."""
    k = 0
    for v in np.asarray(levels)[::-1]:
        if v != 2:
            break
        k += 1
    return k


# --------------------------------------------------------------------------- windows


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Window:
    """One time window ``[start, end)`` (whole days).

    Attributes
    ----------
    kind : {"reference", "current"}
    start, end : pandas.Timestamp
        Inclusive start and exclusive end (midnights).
    day_start, day_end : int
        The same as day numbers relative to the first day with data.
    n : int
        Rows in the window.
    """

    kind: str
    start: pd.Timestamp
    end: pd.Timestamp
    day_start: int
    day_end: int
    n: int

    @property
    def label(self) -> str:
        last = self.end - pd.Timedelta(days=1)
        if last == self.start:
            return f"{self.start:%Y-%m-%d}"
        return f"{self.start:%Y-%m-%d} – {last:%Y-%m-%d}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "start": self.start.isoformat(), "end": self.end.isoformat(),
                "label": self.label, "n": int(self.n)}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class _Days:
    day: np.ndarray | None   # int64 day number per row (None when built from per-day counts)
    day0: pd.Timestamp       # midnight of day 0
    n_days: int              # day numbers are 0..n_days-1
    ref: Window
    cur: tuple               # of Window


def _as_time(time, n_expected=None, problems=None) -> pd.DatetimeIndex | None:
    own = problems is None
    p = ProblemList() if own else problems
    try:
        arr = np.asarray(time) if not isinstance(time, (pd.Series, pd.Index)) else time
        if getattr(arr, "ndim", 1) != 1:
            p.add("time_shape", f"time must be one-dimensional; got shape {np.shape(time)}.", "Pass one timestamp per row.", column="time")
            t = None
        else:
            t = pd.DatetimeIndex(pd.to_datetime(arr, errors="coerce"))
    except (TypeError, ValueError) as exc:
        p.add("time_invalid", f"time could not be read as dates ({exc}).", "Map a date or timestamp column.", column="time")
        t = None
    if t is not None:
        if t.tz is not None:
            t = t.tz_convert("UTC").tz_localize(None)
        bad = np.asarray(t.isna())
        if bad.any():
            rows = (np.flatnonzero(bad)[:5] + 2).tolist()
            p.add("time_unparseable", f"time has {int(bad.sum())} missing or unparseable values.",
                  "Fix or remove those rows.", column="time", rows=rows, n_rows=int(bad.sum()))
        if n_expected is not None and len(t) != n_expected:
            p.add("length_mismatch", f"time has {len(t)} rows but the other inputs have {n_expected}.", "Pass the same rows.", column="time")
        if len(t) == 0:
            p.add("time_empty", "time is empty.", "Pass at least one row.", column="time")
    if own:
        p.raise_if_any()
    return t


def _days(t: pd.DatetimeIndex, config: DriftConfig) -> _Days:
    day0 = t.min().normalize()
    day = ((t.values - day0.to_datetime64()) // _DAY).astype(np.int64)
    return _days_of_counts(day0, np.bincount(day, minlength=int(day.max()) + 1), config, day=day)


def _days_of_counts(day0: pd.Timestamp, counts: np.ndarray, config: DriftConfig, *, day=None) -> _Days:
    """Windows from rows per day (day 0 = ``day0``, a midnight); ``day`` per row when rows exist."""
    n_days = len(counts)
    cum = np.concatenate([[0], np.cumsum(counts)])

    def n_in(ds, de):
        a, b = min(max(ds, 0), n_days), min(max(de, 0), n_days)
        return int(cum[b] - cum[a])

    rs = 0 if config.reference_start is None else int((pd.Timestamp(config.reference_start).normalize() - day0) // pd.Timedelta(days=1))
    re = rs + config.reference_days
    ref = Window(kind="reference", start=day0 + pd.Timedelta(days=rs), end=day0 + pd.Timedelta(days=re),
                 day_start=rs, day_end=re, n=n_in(rs, re))
    cur = []
    e = n_days
    while e - config.window_days >= re:
        s = e - config.window_days
        cur.append(Window(kind="current", start=day0 + pd.Timedelta(days=s), end=day0 + pd.Timedelta(days=e),
                          day_start=s, day_end=e, n=n_in(s, e)))
        e -= config.step_days
    return _Days(day=day, day0=day0, n_days=n_days, ref=ref, cur=tuple(cur[::-1]))


def windows(time, config: DriftConfig | None = None) -> list[Window]:
    """The reference window followed by the current windows, oldest first.

    Parameters
    ----------
    time : array-like of datetime-like, shape (n,)
        One timestamp per row (tz-aware times are taken in UTC).
    config : DriftConfig, default=None
        ``reference_start``, ``reference_days``, ``window_days`` and ``step_days`` are used.

    Returns
    -------
    list of Window
        ``[reference, current_1, ..., current_W]``; current windows are whole, do not overlap
        the reference, and the last ends at the end of the last day with data.

    Examples
    --------
    >>> t = pd.date_range("2026-10-05", periods=28, freq="D")
    >>> ws = windows(t)
    >>> ws[0].label, len(ws) - 1, ws[1].label, ws[-1].label
    ('2026-10-05 – 2026-10-11', 15, '2026-10-12 – 2026-10-18', '2026-10-26 – 2026-11-01')
    """
    config = config or DriftConfig()
    d = _days(_as_time(time), config)
    return [d.ref, *d.cur]


# --------------------------------------------------------------------------- reference fit


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Reference:
    """A feature's reference distribution, frozen once; current windows are binned on it.

    Attributes
    ----------
    kind : {"ks", "psi"}
    edges : ndarray or None
        Numeric: distinct reference values at ``n_bins + 1`` evenly spaced order statistics
        (min and max included). Values are coded ``2i`` when strictly between edges i-1 and
        i (``2E`` above the last edge) and ``2i + 1`` when equal to edge i, so both ECDFs are
        known exactly at every edge and just below it.
    levels : tuple or None
        Categorical: the reference levels (sorted by their text), then ``"(missing)"`` and
        ``"(unseen)"``; codes are positions in this tuple.
    counts : ndarray of int64
        Reference counts per code (missing numeric values excluded).
    n : int
        Reference rows counted (non-missing for numeric).
    sorted_values : ndarray or None
        Numeric: the sorted reference sample (for the exact statistic).
    bin_error : float
        Numeric: the largest reference share strictly between two edges; the binned KS
        is never above the exact one and at most this much below it. 0 for categorical.
    """

    kind: str
    edges: np.ndarray | None
    levels: tuple | None
    counts: np.ndarray
    n: int
    sorted_values: np.ndarray | None
    bin_error: float

    @property
    def n_codes(self) -> int:
        return len(self.counts)

    def codes(self, values) -> np.ndarray:
        """Code per value; numeric NaN gets ``n_codes`` (excluded from every count)."""
        if self.kind == "ks":
            v = np.asarray(values, dtype=np.float64)
            e = self.edges
            i = np.searchsorted(e, v, side="left")
            eq = e[np.minimum(i, e.size - 1)] == v
            code = 2 * i + eq
            code[np.isnan(v)] = self.n_codes
            return code
        vals = pd.Series(values, dtype=object) if not isinstance(values, pd.Series) else values
        code = np.asarray(pd.Index(list(self.levels[:-2]), dtype=object).get_indexer(vals), dtype=np.int64)
        miss = np.asarray(vals.isna())
        code[code < 0] = len(self.levels) - 1      # unseen
        code[miss] = len(self.levels) - 2           # missing
        return code

    def counts_of(self, values) -> np.ndarray:
        """Counts per code of a sample (numeric NaN left out)."""
        return np.bincount(self.codes(values), minlength=self.n_codes + 1)[: self.n_codes]

    def statistic(self, cur_counts, *, floor: float = 1e-4):
        """Binned KS (``kind="ks"``) or PSI of count vector(s) against the reference (last axis)."""
        c = np.asarray(cur_counts, dtype=np.float64)
        if self.kind == "psi":
            return _psi_counts(np.broadcast_to(self.counts.astype(np.float64), c.shape), c, floor)
        fr = np.cumsum(self.counts) / self.n if self.n else np.full(self.n_codes, np.nan)
        nc = c.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            fc = np.cumsum(c, axis=-1) / nc
            out = np.max(np.abs(fc - fr), axis=-1)
        return np.where((nc[..., 0] > 0) & (self.n > 0), out, np.nan)


def fit_reference(values, *, kind: str, n_bins: int = 1000) -> Reference:
    """Freeze a feature's reference distribution (pure; the grid never moves afterwards).

    Parameters
    ----------
    values : array-like of shape (n,)
        The reference sample (numeric NaN are left out; categorical missing is a level).
    kind : {"ks", "psi"}
        Numeric (KS) or categorical (PSI).
    n_bins : int, default=1000
        Numeric: reference-quantile intervals of the grid.

    Examples
    --------
    >>> ref = fit_reference([1.0, 2.0, 2.0, 3.0], kind="ks", n_bins=1000)
    >>> ref.edges.tolist(), ref.bin_error
    ([1.0, 2.0, 3.0], 0.0)
    >>> cat = fit_reference(["a", "b", "a"], kind="psi")
    >>> cat.levels, cat.counts_of(["a", "z", None]).tolist()
    (('a', 'b', '(missing)', '(unseen)'), [1, 0, 1, 1])
    """
    if kind == "ks":
        v = np.asarray(values, dtype=np.float64)
        v = np.sort(v[~np.isnan(v)])
        n = v.size
        if n == 0:
            edges = np.array([0.0])
        else:
            pos = np.unique(np.round(np.linspace(0, n - 1, n_bins + 1)).astype(np.int64))
            edges = np.unique(v[pos])
        ref = Reference(kind="ks", edges=edges, levels=None, counts=np.zeros(2 * edges.size + 1, np.int64),
                        n=n, sorted_values=v, bin_error=0.0)
        counts = np.bincount(ref.codes(v), minlength=ref.n_codes + 1)[: ref.n_codes].astype(np.int64)
        open_share = counts[0::2].max() / n if n else 0.0
        return Reference(kind="ks", edges=edges, levels=None, counts=counts, n=n, sorted_values=v, bin_error=float(open_share))
    if kind == "psi":
        s = pd.Series(values, dtype=object) if not isinstance(values, pd.Series) else values
        present = pd.unique(s.dropna())
        levels = tuple(sorted(present.tolist(), key=lambda x: (str(type(x)), str(x)))) + ("(missing)", "(unseen)")
        ref = Reference(kind="psi", edges=None, levels=levels, counts=np.zeros(len(levels), np.int64), n=len(s),
                        sorted_values=None, bin_error=0.0)
        counts = ref.counts_of(s).astype(np.int64)
        return Reference(kind="psi", edges=None, levels=levels, counts=counts, n=int(counts.sum()), sorted_values=None, bin_error=0.0)
    raise InputError([_problem("kind_invalid", f"kind must be 'ks' or 'psi'; got {kind!r}.", "Pass kind='ks' for numeric, 'psi' for categorical.", "kind")])


# --------------------------------------------------------------------------- feature drift


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class FeatureDrift:
    """Feature drift: one statistic per feature × current window, graded, and one light.

    Attributes
    ----------
    features : tuple of str
    kinds : tuple of {"ks", "psi"}
    reference : Window
    windows : tuple of Window
        Current windows, oldest first.
    statistic, noise_floor : ndarray of shape (F, W)
        KS or PSI, and its 95% noise floor (NaN when a sample is empty).
    n_ref : ndarray of shape (F,)
        Reference rows used per feature (numeric: non-missing).
    n_cur, n_missing : ndarray of shape (F, W)
        Window rows used, and numeric missing values left out.
    chi2_pvalue : ndarray of shape (F, W)
        Chi-square p-value (categorical; NaN for numeric).
    level : ndarray of int, shape (F, W)
        -1 too few rows, 0 ok, 1 moderate, 2 high.
    yellow_threshold, red_threshold : ndarray of shape (F,)
    colors, reasons : tuple of str, per feature
    ks_method : {"exact", "binned"}
    n_bins : int or None
        Reference-quantile intervals when binned; None when exact.
    bin_error : ndarray of shape (F,)
        Bound on exact − binned KS per feature (0 when exact or categorical).
    references : tuple of Reference
        Frozen reference fits (drill-down distributions).
    window_counts : tuple of ndarray (W, n_codes)
        Per feature, counts per reference code in each window.
    color, reason : str
        The light: the worst feature's colour, and its reason.
    step_days : int
    """

    features: tuple
    kinds: tuple
    reference: Window
    windows: tuple
    statistic: np.ndarray
    noise_floor: np.ndarray
    n_ref: np.ndarray
    n_cur: np.ndarray
    n_missing: np.ndarray
    chi2_pvalue: np.ndarray
    level: np.ndarray
    yellow_threshold: np.ndarray
    red_threshold: np.ndarray
    colors: tuple
    reasons: tuple
    ks_method: str
    n_bins: int | None
    bin_error: np.ndarray
    references: tuple = field(repr=False)
    window_counts: tuple = field(repr=False)
    color: str
    reason: str
    worst: str | None
    step_days: int = 1

    @property
    def status(self) -> np.ndarray:
        """Level names per cell (``"too few rows"``, ``"ok"``, ``"moderate"``, ``"high"``)."""
        return np.vectorize(LEVEL_NAMES.get, otypes=[object])(self.level) if self.level.size else self.level.astype(object)

    @property
    def below_noise(self) -> np.ndarray:
        """Cells whose statistic is below its noise floor (indistinguishable from noise)."""
        with np.errstate(invalid="ignore"):
            return self.statistic < self.noise_floor

    def summary(self) -> dict:
        """Compact JSON-safe details for the light (CLI, board)."""
        last = self.windows[-1] if self.windows else None
        per = {}
        for i, f in enumerate(self.features):
            per[f] = {
                "kind": self.kinds[i], "color": self.colors[i], "reason": self.reasons[i],
                "latest": _clean(self.statistic[i, -1]) if last else None,
                "noise_floor": _clean(self.noise_floor[i, -1]) if last else None,
                "threshold": _clean(self.red_threshold[i]),
            }
        return {
            "reason": self.reason, "worst_feature": self.worst, "ks_method": self.ks_method, "n_bins": self.n_bins,
            "reference": self.reference.to_dict(), "latest_window": last.to_dict() if last else None,
            "n_windows": len(self.windows), "features": per,
        }

    def to_dict(self) -> dict:
        return {
            "color": self.color, "reason": self.reason, "worst_feature": self.worst,
            "features": list(self.features), "kinds": list(self.kinds),
            "reference": self.reference.to_dict(), "windows": [w.to_dict() for w in self.windows],
            "statistic": _clean_list(self.statistic), "noise_floor": _clean_list(self.noise_floor),
            "n_ref": _clean_list(self.n_ref), "n_cur": _clean_list(self.n_cur), "n_missing": _clean_list(self.n_missing),
            "chi2_pvalue": _clean_list(self.chi2_pvalue), "status": _clean_list(self.status),
            "yellow_threshold": _clean_list(self.yellow_threshold), "red_threshold": _clean_list(self.red_threshold),
            "colors": list(self.colors), "reasons": list(self.reasons),
            "ks_method": self.ks_method, "n_bins": self.n_bins, "bin_error": _clean_list(self.bin_error),
        }


def _windows_word(step_days: int) -> str:
    return "daily windows" if step_days == 1 else "windows"


def _fmt_series(vals) -> str:
    return ", ".join(f"{v:.2f}" for v in vals)


def _feature_reason(name, kind, stats_row, floor_row, lv, color, k, yellow, red, step_days, cur_n) -> str:
    sname = "KS" if kind == "ks" else "PSI"
    thr = f"threshold {red:g}" if kind == "ks" else f"thresholds {yellow:g}/{red:g}"
    if color == "grey":
        if lv.size == 0:
            return f"{name}: no current window"
        return (f"{name}: too few rows — latest window {int(cur_n[-1])} rows, {sname} noise floor "
                f"{floor_row[-1]:.2f} above {thr}" if np.isfinite(floor_row[-1]) else f"{name}: too few rows — latest window empty")
    if color == "red":
        return f"{name}: {sname} {_fmt_series(stats_row[-k:])} in the last {k} {_windows_word(step_days)}, {thr}"
    if color == "yellow":
        run = _run_length(lv)
        if run > 1:
            return f"{name}: {sname} {_fmt_series(stats_row[-run:])} in the last {run} {_windows_word(step_days)} (red needs {k}), {thr}"
        return f"{name}: {sname} {stats_row[-1]:.2f} in the latest window, {thr}"
    return f"{name}: {sname} {stats_row[-1]:.2f} in the latest window, {thr}"


def _check_features(features, n, config, problems):
    if features is None:
        return None
    if isinstance(features, pd.Series):
        features = features.to_frame()
    if not isinstance(features, pd.DataFrame):
        problems.add("features_type", f"features must be a pandas DataFrame; got {type(features).__name__}.", "Pass the feature columns as a DataFrame.", column="features")
        return None
    if len(features) != n:
        problems.add("length_mismatch", f"features has {len(features)} rows but time has {n}.", "Pass the same rows.", column="features")
    if features.columns.duplicated().any():
        problems.add("features_duplicated", f"Duplicated feature columns: {sorted(set(features.columns[features.columns.duplicated()].astype(str)))}.", "Rename them.", column="features")
    names = [str(c) for c in features.columns]
    if config.features is not None:
        missing = [f for f in config.features if f not in names]
        if missing:
            problems.add("features_missing", f"Configured features not in the data: {missing}.", "Map those columns or remove them from the drift settings.", column="features")
    for c in features.columns:
        kind = features[c].dtype.kind
        if kind in "mMc":
            problems.add("feature_dtype", f"Feature {c!r} has dtype {features[c].dtype}; drift needs numeric or categorical values.", "Convert it or leave it out.", column=str(c))
    return features


def _feature_kind(s: pd.Series, name: str, config: DriftConfig) -> str:
    if name in config.categorical:
        return "psi"
    return "ks" if s.dtype.kind in "iuf" else "psi"


def feature_drift(features: pd.DataFrame, time, config: DriftConfig | None = None) -> FeatureDrift:
    """Feature drift of every current window against the reference window.

    Parameters
    ----------
    features : pandas.DataFrame of shape (n, F)
        Numeric columns are compared with KS, others (and ``config.categorical``) with PSI.
        Only ``config.features`` count when it is set.
    time : array-like of datetime-like, shape (n,)
    config : DriftConfig, default=None

    Returns
    -------
    FeatureDrift

    Raises
    ------
    InputError
        Bad time values, length mismatch, unknown configured features, datetime features.

    Notes
    -----
    Per feature the reference is fitted once (:func:`fit_reference`); every row is coded
    once, counted per day, and a window's counts are a difference of cumulative daily
    counts. When binned, KS is computed from those counts (error bound in ``bin_error``).

    Examples
    --------
    >>> t = pd.date_range("2026-10-05", periods=14 * 48, freq="30min")
    >>> x = np.r_[np.arange(336) % 7, np.arange(336) % 7 + 3.0]
    >>> fd = feature_drift(pd.DataFrame({"x": x}), t, DriftConfig(reference_days=7, window_days=7))
    >>> fd.color, fd.statistic.round(3).tolist()
    ('yellow', [[0.429]])
    """
    config = config or DriftConfig()
    p = ProblemList()
    t = _as_time(time, problems=p)
    if t is not None:
        _check_features(features, len(t), config, p)
    elif not isinstance(features, pd.DataFrame):
        p.add("features_type", "features must be a pandas DataFrame.", "Pass the feature columns as a DataFrame.", column="features")
    p.raise_if_any()
    d = _days(t, config)
    return _feature_drift(features, d, config)


def _feature_drift(features: pd.DataFrame, d: _Days, config: DriftConfig) -> FeatureDrift:
    names = [str(c) for c in features.columns]
    cols = list(config.features) if config.features is not None else names
    cols = [c for c in cols if c in names]
    frame = features.set_axis(names, axis=1)
    order = np.argsort(d.day, kind="stable")
    day_sorted = d.day[order]
    bounds = lambda ds, de: (int(np.searchsorted(day_sorted, ds, "left")), int(np.searchsorted(day_sorted, de, "left")))
    r0, r1 = bounds(d.ref.day_start, d.ref.day_end)
    n_ref_rows = r1 - r0
    binned = any(n_ref_rows + w.n > config.exact_limit for w in d.cur)
    per = []
    for name in cols:
        s = frame[name]
        kind = _feature_kind(s, name, config)
        vals = (s.to_numpy(dtype=np.float64, na_value=np.nan) if kind == "ks" else s.to_numpy(dtype=object))[order]
        ref_vals = vals[r0:r1]
        ref = fit_reference(ref_vals if kind == "ks" else pd.Series(ref_vals, dtype=object), kind=kind, n_bins=config.n_bins)
        K = ref.n_codes
        codes = ref.codes(vals if kind == "ks" else pd.Series(vals, dtype=object))
        # counts per (day, code); code K = numeric missing
        h = np.bincount(day_sorted * (K + 1) + codes, minlength=d.n_days * (K + 1)).reshape(d.n_days, K + 1)
        exact = None
        if kind == "ks" and not binned:
            exact = np.full(len(d.cur), np.nan)
            for j, w in enumerate(d.cur):
                a, b = bounds(w.day_start, w.day_end)
                cur = vals[a:b].astype(np.float64)
                cur = np.sort(cur[~np.isnan(cur)])
                exact[j] = _ks_sorted(ref.sorted_values, cur) if cur.size and ref.n else np.nan
        per.append((kind, ref, h, exact))
    return _grade_features(cols, per, d, config, binned=binned)


def _grade_features(cols, per, d: _Days, config: DriftConfig, *, binned: bool) -> FeatureDrift:
    """Statistics, noise floors, levels and the light from per-feature (kind, reference,
    counts per (day, code) with missing last, exact KS per window or None) — rows or aggregates."""
    W = len(d.cur)
    F = len(cols)
    stat = np.full((F, W), np.nan)
    floor = np.full((F, W), np.nan)
    n_cur = np.zeros((F, W), np.int64)
    n_miss = np.zeros((F, W), np.int64)
    chi_p = np.full((F, W), np.nan)
    level = np.full((F, W), -1, np.int64)
    n_ref = np.zeros(F, np.int64)
    ythr = np.zeros(F)
    rthr = np.zeros(F)
    kinds, refs, wcounts, colors, reasons, errs = [], [], [], [], [], np.zeros(F)
    ds = np.array([w.day_start for w in d.cur], np.int64)
    de = np.array([w.day_end for w in d.cur], np.int64)
    for i, (name, (kind, ref, h, exact)) in enumerate(zip(cols, per)):
        kinds.append(kind)
        refs.append(ref)
        n_ref[i] = ref.n
        K = ref.n_codes
        cum = np.zeros((d.n_days + 1, K + 1), np.int64)
        np.cumsum(h, axis=0, out=cum[1:])
        wc_all = cum[np.clip(de, 0, d.n_days)] - cum[np.clip(ds, 0, d.n_days)]
        wc = wc_all[:, :K]
        wcounts.append(wc)
        n_cur[i] = wc.sum(axis=1)
        n_miss[i] = wc_all[:, K]
        if kind == "ks":
            ythr[i] = rthr[i] = config.ks_threshold
            if binned:
                stat[i] = ref.statistic(wc)
                errs[i] = ref.bin_error
            else:
                stat[i] = exact
            floor[i] = noise_floor(ref.n, n_cur[i], config.noise_c)
            with np.errstate(invalid="ignore"):
                too_few = ~(floor[i] <= config.ks_threshold) | np.isnan(stat[i])
                lv = np.where(stat[i] > config.ks_threshold, 2, 0)
        else:
            ythr[i], rthr[i] = config.psi_yellow, config.psi_red
            stat[i] = ref.statistic(wc, floor=config.psi_floor)
            for j in range(W):
                k_seen = int(((ref.counts + wc[j]) > 0).sum())
                floor[i, j] = psi_noise_floor(ref.n, n_cur[i, j], k_seen)
                chi_p[i, j] = chi_square(ref.counts, wc[j])[1]
            with np.errstate(invalid="ignore"):
                too_few = ~(floor[i] <= config.psi_yellow) | np.isnan(stat[i])
                lv = np.where(stat[i] > config.psi_red, 2, np.where(stat[i] > config.psi_yellow, 1, 0))
        level[i] = np.where(too_few, -1, lv)
        color = consecutive_rule(level[i], config.consecutive_red)
        colors.append(color)
        reasons.append(_feature_reason(name, kind, stat[i], floor[i], level[i], color, config.consecutive_red,
                                       ythr[i], rthr[i], config.step_days, n_cur[i]))
    # worst feature: colour severity, then its latest statistic relative to its threshold
    if F == 0:
        color, reason, worst = "grey", "No feature columns mapped.", None
    elif W == 0:
        color, reason, worst = "grey", "No current window yet: the data span is shorter than reference + one window.", None
    else:
        with np.errstate(invalid="ignore"):
            rel = np.nan_to_num(stat[:, -1] / rthr, nan=-1.0)
        key = [(_SEVERITY[c], r) for c, r in zip(colors, rel)]
        wi = max(range(F), key=lambda i: key[i])
        color, worst = colors[wi], cols[wi]
        if color == "green":
            reason = f"No feature drift in the latest window (largest: {reasons[wi]})"
        else:
            others = sum(1 for c in colors if c == color) - 1
            reason = reasons[wi] + (f" (+{others} more {color})" if others > 0 else "")
    return FeatureDrift(
        features=tuple(cols), kinds=tuple(kinds), reference=d.ref, windows=d.cur, statistic=stat, noise_floor=floor,
        n_ref=n_ref, n_cur=n_cur, n_missing=n_miss, chi2_pvalue=chi_p, level=level, yellow_threshold=ythr,
        red_threshold=rthr, colors=tuple(colors), reasons=tuple(reasons),
        ks_method="binned" if binned else "exact", n_bins=config.n_bins if binned else None, bin_error=errs,
        references=tuple(refs), window_counts=tuple(wcounts), color=color, reason=reason, worst=worst,
        step_days=config.step_days,
    )


# --------------------------------------------------------------------------- label drift


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class LabelDrift:
    """Label drift: positive rate per window against the reference.

    Attributes
    ----------
    reference : Window
    windows : tuple of Window
    ref_pos, ref_n : int
        Reference positives and rows.
    ref_rate : float
        Reference positive rate (NaN when the reference is empty).
    ref_interval : tuple of float
        Its Wilson 95% interval.
    pos, n : ndarray of shape (W,)
        Positives and rows per current window.
    rate, low, high : ndarray of shape (W,)
        Positive rate and Wilson 95% interval per window (NaN when empty).
    z, p_value : ndarray of shape (W,)
        Pooled two-proportion z-test against the reference.
    level : ndarray of int, shape (W,)
        -1 too few rows, 0 ok, 2 high (p < alpha).
    step_date : pandas.Timestamp or None
        Most likely single change day of the daily positive rate (reference start onward).
    step_before, step_after : float
        Positive rates before / from the step day.
    label_definition_change : bool
        The label light is not green while the feature light is green.
    color, reason : str
    alpha : float
    """

    reference: Window
    windows: tuple
    ref_pos: int
    ref_n: int
    ref_rate: float
    ref_interval: tuple
    pos: np.ndarray
    n: np.ndarray
    rate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    z: np.ndarray
    p_value: np.ndarray
    level: np.ndarray
    step_date: pd.Timestamp | None
    step_before: float
    step_after: float
    label_definition_change: bool
    color: str
    reason: str
    alpha: float

    def summary(self) -> dict:
        last = len(self.windows) - 1
        return {
            "reason": self.reason, "reference_rate": _clean(self.ref_rate), "reference_n": int(self.ref_n),
            "latest_rate": _clean(self.rate[last]) if last >= 0 else None,
            "latest_interval": [_clean(self.low[last]), _clean(self.high[last])] if last >= 0 else None,
            "latest_p_value": _clean(self.p_value[last]) if last >= 0 else None, "alpha": self.alpha,
            "latest_window": self.windows[last].to_dict() if last >= 0 else None,
            "step_date": None if self.step_date is None else self.step_date.isoformat(),
            "step_before": _clean(self.step_before), "step_after": _clean(self.step_after),
            "label_definition_change": bool(self.label_definition_change),
        }

    def to_dict(self) -> dict:
        return {
            **self.summary(), "color": self.color, "reference": self.reference.to_dict(),
            "reference_interval": _clean_list(list(self.ref_interval)),
            "windows": [w.to_dict() for w in self.windows], "pos": _clean_list(self.pos), "n": _clean_list(self.n),
            "rate": _clean_list(self.rate), "low": _clean_list(self.low), "high": _clean_list(self.high),
            "z": _clean_list(self.z), "p_value": _clean_list(self.p_value),
            "status": [LEVEL_NAMES[int(v)] for v in self.level],
        }


def _window_sums(per_day: np.ndarray, d: _Days, w: Window):
    a, b = min(max(w.day_start, 0), d.n_days), min(max(w.day_end, 0), d.n_days)
    return per_day[b] - per_day[a]


def _step(pos_day: np.ndarray, n_day: np.ndarray, first: int):
    """Single change point of a daily binomial series by likelihood ratio (days >= first)."""
    x = pos_day[max(first, 0):].astype(np.float64)
    n = n_day[max(first, 0):].astype(np.float64)
    if x.size < 2 or n.sum() == 0:
        return None, np.nan, np.nan

    def ll(xs, ns):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = xs / ns
            return np.nan_to_num(xs * np.log(p)) + np.nan_to_num((ns - xs) * np.log1p(-p))

    cx, cn = np.cumsum(x), np.cumsum(n)
    X, N = cx[-1], cn[-1]
    left = ll(cx[:-1], cn[:-1])
    right = ll(X - cx[:-1], N - cn[:-1])
    valid = (cn[:-1] > 0) & (N - cn[:-1] > 0)
    if not valid.any():
        return None, np.nan, np.nan
    gain = np.where(valid, left + right, -np.inf)
    k = int(np.argmax(gain))  # split after position k
    return max(first, 0) + k + 1, cx[k] / cn[k], (X - cx[k]) / (N - cn[k])


def label_drift(y_true, time, config: DriftConfig | None = None, *, feature_result: FeatureDrift | None = None) -> LabelDrift:
    """Label drift: positive rate per current window against the reference.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    time : array-like of datetime-like, shape (n,)
    config : DriftConfig, default=None
    feature_result : FeatureDrift, default=None
        When given and green while this light is not, the result flags a possible
        label-definition change.

    Returns
    -------
    LabelDrift

    Examples
    --------
    >>> t = pd.date_range("2026-10-05", periods=14 * 24, freq="h")
    >>> y = np.r_[np.arange(168) % 8 == 0, np.arange(168) % 8 < 3].astype(int)
    >>> ld = label_drift(y, t)
    >>> ld.ref_rate, ld.rate.tolist(), ld.color
    (0.125, [0.375], 'yellow')
    """
    config = config or DriftConfig()
    p = ProblemList()
    t = _as_time(time, problems=p)
    try:
        y, _, _ = check_binary_scores(y_true, np.zeros(np.shape(y_true)[0] if np.ndim(y_true) else 0))
    except InputError as exc:
        p.problems.extend(exc.problems)
        y = None
    if t is not None and y is not None and len(y) != len(t):
        p.add("length_mismatch", f"y_true has {len(y)} rows but time has {len(t)}.", "Pass the same rows.", column="y_true")
    p.raise_if_any()
    d = _days(t, config)
    return _label_drift(y, d, config, feature_result)


def _label_drift(y, d: _Days, config, feature_result):
    n_day = np.bincount(d.day, minlength=d.n_days)
    pos_day = np.bincount(d.day, weights=y, minlength=d.n_days).astype(np.int64)
    return _label_drift_days(n_day, pos_day, d, config, feature_result)


def _label_drift_days(n_day, pos_day, d: _Days, config, feature_result):
    """Label drift from rows and positives per day (the row path and aggregates)."""
    cn = np.concatenate([[0], np.cumsum(n_day)])
    cp = np.concatenate([[0], np.cumsum(pos_day)])
    rn, rp = int(_window_sums(cn, d, d.ref)), int(_window_sums(cp, d, d.ref))
    n = np.array([_window_sums(cn, d, w) for w in d.cur], np.int64)
    pos = np.array([_window_sums(cp, d, w) for w in d.cur], np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(n > 0, pos / np.maximum(n, 1), np.nan)
        ref_rate = rp / rn if rn else float("nan")
    low, high = _wilson(pos, n)
    rlo, rhi = _wilson(rp, rn)
    z, pv = two_proportion_test(pos, n, np.full(n.shape, rp), np.full(n.shape, rn))
    z, pv = np.atleast_1d(z), np.atleast_1d(pv)
    with np.errstate(divide="ignore", invalid="ignore"):
        pool = (pos + rp) / (n + rn)
        expected_min = np.minimum(n, rn) * np.minimum(pool, 1 - pool)
    too_few = (n == 0) | (rn == 0) | ~(expected_min >= config.min_expected)
    level = np.where(too_few, -1, np.where(pv < config.label_alpha, 2, 0)).astype(np.int64)
    color = consecutive_rule(level, config.consecutive_red)
    sd, before, after = _step(pos_day, n_day, d.ref.day_start)
    step_date = None if sd is None else d.day0 + pd.Timedelta(days=sd)
    ldc = bool(feature_result is not None and feature_result.color == "green" and color in ("yellow", "red"))
    k = config.consecutive_red
    if color == "grey":
        reason = "No current window yet." if n.size == 0 else (
            f"Too few rows: latest window {int(n[-1])} rows, reference {rn} rows (expected count below {config.min_expected:g}).")
    else:
        run = _run_length(level)
        if color == "green":
            reason = f"Positive rate {rate[-1]:.2%} in the latest window vs {ref_rate:.2%} reference (p = {pv[-1]:.2g})"
        else:
            pct = ", ".join(f"{r:.2%}" for r in rate[-run:])
            where = f"in the last {run} {_windows_word(config.step_days)}" if run > 1 else "in the latest window"
            need = f" (red needs {k})" if color == "yellow" and run > 1 else ""
            reason = (f"Positive rate {pct} {where}{need} vs {ref_rate:.2%} reference, "
                      f"two-proportion test p < {config.label_alpha:g}")
        if ldc:
            reason += " — no feature drift: possible label-definition change"
            if step_date is not None:
                reason += f" (step around {step_date:%Y-%m-%d}: {before:.2%} → {after:.2%})"
    return LabelDrift(
        reference=d.ref, windows=d.cur, ref_pos=rp, ref_n=rn, ref_rate=float(ref_rate), ref_interval=(float(rlo), float(rhi)),
        pos=pos, n=n, rate=rate, low=low, high=high, z=z, p_value=pv, level=level, step_date=step_date,
        step_before=float(before), step_after=float(after), label_definition_change=ldc, color=color, reason=reason,
        alpha=config.label_alpha,
    )


# --------------------------------------------------------------------------- calibration drift


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CalibrationDrift:
    """Calibration drift: observed/expected ratio and ECE per window against the reference.

    Attributes
    ----------
    reference : Window
    windows : tuple of Window
    ref_observed, ref_expected : float
        Reference positives (O) and sum of predicted probabilities (E).
    ref_oe, ref_ece : float
        Reference O/E and ECE (10 uniform bins).
    observed, expected, n : ndarray of shape (W,)
    oe, ece : ndarray of shape (W,)
        Per window O/E and ECE (NaN when empty).
    ratio, ratio_low, ratio_high : ndarray of shape (W,)
        (O/E)_cur / (O/E)_ref and its exact conditional-binomial interval.
    p_value : ndarray of shape (W,)
        Exact conditional binomial test of ratio = 1.
    level : ndarray of int, shape (W,)
        -1 too few rows, 0 ok, 2 high (ratio outside ``band`` and its interval excludes 1).
    band : tuple of float
    n_bins : int
        ECE bins (uniform).
    color, reason : str
    """

    reference: Window
    windows: tuple
    ref_observed: float
    ref_expected: float
    ref_oe: float
    ref_ece: float
    observed: np.ndarray
    expected: np.ndarray
    n: np.ndarray
    oe: np.ndarray
    ece: np.ndarray
    ratio: np.ndarray
    ratio_low: np.ndarray
    ratio_high: np.ndarray
    p_value: np.ndarray
    level: np.ndarray
    band: tuple
    n_bins: int
    color: str
    reason: str

    def summary(self) -> dict:
        last = len(self.windows) - 1
        pick = lambda a: _clean(a[last]) if last >= 0 else None
        return {
            "reason": self.reason, "reference_oe": _clean(self.ref_oe), "reference_ece": _clean(self.ref_ece),
            "latest_oe": pick(self.oe), "latest_ece": pick(self.ece), "latest_ratio": pick(self.ratio),
            "latest_ratio_interval": [pick(self.ratio_low), pick(self.ratio_high)], "band": list(self.band),
            "n_bins": self.n_bins, "strategy": "uniform",
            "latest_window": self.windows[last].to_dict() if last >= 0 else None,
        }

    def to_dict(self) -> dict:
        return {
            **self.summary(), "color": self.color, "reference": self.reference.to_dict(),
            "windows": [w.to_dict() for w in self.windows], "observed": _clean_list(self.observed),
            "expected": _clean_list(self.expected), "n": _clean_list(self.n), "oe": _clean_list(self.oe),
            "ece": _clean_list(self.ece), "ratio": _clean_list(self.ratio), "ratio_low": _clean_list(self.ratio_low),
            "ratio_high": _clean_list(self.ratio_high), "p_value": _clean_list(self.p_value),
            "status": [LEVEL_NAMES[int(v)] for v in self.level],
        }


def calibration_drift(y_true, y_prob, time, config: DriftConfig | None = None) -> CalibrationDrift:
    """Calibration drift: O/E and ECE per current window against the reference.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    y_prob : array-like of shape (n,)
        Predicted probabilities in [0, 1].
    time : array-like of datetime-like, shape (n,)
    config : DriftConfig, default=None

    Returns
    -------
    CalibrationDrift

    Examples
    --------
    >>> t = pd.date_range("2026-10-05", periods=14 * 24, freq="h")
    >>> y = (np.arange(336) % 8 == 0).astype(int)
    >>> cd = calibration_drift(y, np.full(336, 0.125), t)
    >>> cd.ref_oe, cd.oe.round(6).tolist(), cd.color
    (1.0, [1.0], 'green')
    """
    config = config or DriftConfig()
    p = ProblemList()
    t = _as_time(time, problems=p)
    y = prob = None
    try:
        y, prob, _ = check_binary_scores(y_true, y_prob)
    except InputError as exc:
        p.problems.extend(exc.problems)
    if prob is not None:
        out = (prob < 0) | (prob > 1)
        if out.any():
            p.add("y_prob_range", f"y_prob must be probabilities in [0, 1]; {int(out.sum())} values are outside.",
                  "Recalibrate raw scores to probabilities first, or pass y_prob=None.", column="y_prob", n_rows=int(out.sum()))
    if t is not None and y is not None and len(y) != len(t):
        p.add("length_mismatch", f"y_true has {len(y)} rows but time has {len(t)}.", "Pass the same rows.", column="y_true")
    p.raise_if_any()
    return _calibration_drift(y, prob, _days(t, config), config)


def _calibration_drift(y, prob, d: _Days, config, n_bins: int = 10):
    nb = n_bins
    b = _bin_index(prob, _uniform_edges(nb))  # the reliability diagram's bins, float traps included
    idx = d.day * nb + b
    size = d.n_days * nb
    cnt = np.bincount(idx, minlength=size).reshape(d.n_days, nb)
    sy = np.bincount(idx, weights=y, minlength=size).reshape(d.n_days, nb)
    sp = np.bincount(idx, weights=prob, minlength=size).reshape(d.n_days, nb)
    return _calibration_drift_days(cnt, sy, sp, d, config)


def _calibration_drift_days(cnt, sy, sp, d: _Days, config):
    """Calibration drift from rows, positives and summed probabilities per (day, uniform bin)."""
    nb = cnt.shape[1]
    cum = lambda a: np.concatenate([np.zeros((1, nb)), np.cumsum(a, axis=0)])
    C, Y, P = cum(cnt), cum(sy), cum(sp)

    def sums(w):
        return _window_sums(C, d, w), _window_sums(Y, d, w), _window_sums(P, d, w)

    def oe_ece(c, yy, pp):
        n = c.sum()
        o, e = yy.sum(), pp.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            return n, o, e, (o / e if e > 0 else np.nan), (np.abs(yy - pp).sum() / n if n > 0 else np.nan)

    rn, ro, re, roe, rece = oe_ece(*sums(d.ref))
    rows = [oe_ece(*sums(w)) for w in d.cur]
    W = len(rows)
    arr = np.array(rows, dtype=np.float64).reshape(W, 5)
    n, o, e, oe, ece = (arr[:, i] for i in range(5))
    o_int = np.rint(o).astype(np.int64)
    ro_int = int(round(ro))
    a = config.calibration_alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = oe / roe
        pi0 = e / (e + re)
    tot = o_int + ro_int
    lo_pi = np.where(o_int > 0, stats.beta.ppf(a / 2, np.maximum(o_int, 1), tot - o_int + 1), 0.0)
    hi_pi = np.where(o_int < tot, stats.beta.ppf(1 - a / 2, o_int + 1, np.maximum(tot - o_int, 1)), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = re / e
        r_lo = lo_pi / (1 - lo_pi) * scale
        r_hi = np.where(hi_pi < 1, hi_pi / (1 - hi_pi) * scale, np.inf)
    pv = np.array([stats.binomtest(int(k), int(m), float(q)).pvalue if m > 0 and 0 < q < 1 else np.nan
                   for k, m, q in zip(o_int, tot, pi0)], dtype=np.float64)
    lo_b, hi_b = config.oe_band
    too_few = (e < config.min_expected) | (re < config.min_expected) | (ro_int == 0) | ~np.isfinite(ratio)
    with np.errstate(invalid="ignore"):
        off = ((ratio < lo_b) | (ratio > hi_b)) & ((r_lo > 1) | (r_hi < 1))
    level = np.where(too_few, -1, np.where(off, 2, 0)).astype(np.int64)
    color = consecutive_rule(level, config.consecutive_red)
    k = config.consecutive_red
    band = f"band {lo_b:g}–{hi_b:g}"
    if color == "grey":
        reason = "No current window yet." if W == 0 else (
            f"Too few rows: expected positives {e[-1]:.1f} in the latest window, {re:.1f} in the reference "
            f"(need {config.min_expected:g}), reference positives {ro_int}.")
    else:
        run = _run_length(level)
        if color == "green":
            reason = (f"O/E {oe[-1]:.2f} in the latest window vs {roe:.2f} reference (ratio {ratio[-1]:.2f}, "
                      f"{1 - a:.0%} CI {r_lo[-1]:.2f}–{r_hi[-1]:.2f}), within {band}; ECE {ece[-1]:.3f} vs {rece:.3f}")
        else:
            where = f"in the last {run} {_windows_word(config.step_days)}" if run > 1 else "in the latest window"
            need = f" (red needs {k})" if color == "yellow" and run > 1 else ""
            reason = (f"O/E ratio to reference {_fmt_series(ratio[-max(run, 1):])} {where}{need}, outside {band} "
                      f"(latest O/E {oe[-1]:.2f} vs {roe:.2f}, {1 - a:.0%} CI {r_lo[-1]:.2f}–{r_hi[-1]:.2f}); "
                      f"ECE {ece[-1]:.3f} vs {rece:.3f}")
    return CalibrationDrift(
        reference=d.ref, windows=d.cur, ref_observed=float(ro), ref_expected=float(re), ref_oe=float(roe),
        ref_ece=float(rece), observed=o, expected=e, n=n.astype(np.int64), oe=oe, ece=ece, ratio=ratio,
        ratio_low=r_lo, ratio_high=r_hi, p_value=pv, level=level, band=(lo_b, hi_b), n_bins=nb, color=color, reason=reason,
    )


# --------------------------------------------------------------------------- lights


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Light:
    """One drift light.

    Attributes
    ----------
    family : {"feature", "label", "calibration"}
    color : {"green", "yellow", "red", "grey"}
        grey: cannot be judged (no input, no window, too few rows).
    reason : str
        One line citing the numbers that lit it.
    details : dict
        JSON-safe structured details (what the board and the action sentence cite).
    """

    family: str
    color: str
    reason: str
    details: dict

    def to_dict(self) -> dict:
        return {"light": self.color, "details": {"reason": self.reason, **self.details}}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DriftReport:
    """The three drift lights and the results behind them.

    Attributes
    ----------
    lights : dict of str to Light
        Keys "feature", "label", "calibration".
    feature : FeatureDrift or None
    label : LabelDrift or None
    calibration : CalibrationDrift or None
    config : DriftConfig
    """

    lights: dict
    feature: FeatureDrift | None
    label: LabelDrift | None
    calibration: CalibrationDrift | None
    config: DriftConfig

    @property
    def any_red(self) -> bool:
        return any(l.color == "red" for l in self.lights.values())

    def to_dict(self) -> dict:
        """``{"feature": {"light", "details"}, "label": {...}, "calibration": {...}}`` (the CLI's ``drift``)."""
        return {k: self.lights[k].to_dict() for k in ("feature", "label", "calibration")}


def _grey(family, reason):
    return Light(family=family, color="grey", reason=reason, details={})


def drift_lights(y_true, y_prob, time, features: pd.DataFrame | None = None, *, config: DriftConfig | None = None) -> DriftReport:
    """All three drift lights from one validated input.

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        0/1 labels; None leaves label and calibration grey.
    y_prob : array-like of shape (n,) or None
        Predicted probabilities in [0, 1]; None (raw scores) leaves calibration grey.
    time : array-like of datetime-like, shape (n,)
    features : pandas.DataFrame or None
        Feature columns (numeric -> KS, other -> PSI); None leaves the feature light grey.
    config : DriftConfig, default=None

    Returns
    -------
    DriftReport

    Raises
    ------
    InputError
        Every problem of every input at once.
    """
    config = config or DriftConfig()
    p = ProblemList()
    t = _as_time(time, problems=p)
    n = len(t) if t is not None else None
    y = prob = None
    if y_true is not None:
        try:
            ny = np.shape(y_true)[0] if np.ndim(y_true) else 0
            y, prob, _ = check_binary_scores(y_true, np.zeros(ny) if y_prob is None else y_prob)
            if y_prob is None:
                prob = None
        except InputError as exc:
            p.problems.extend(exc.problems)
        if prob is not None and ((prob < 0) | (prob > 1)).any():
            bad = int(((prob < 0) | (prob > 1)).sum())
            p.add("y_prob_range", f"y_prob must be probabilities in [0, 1]; {bad} values are outside.",
                  "Recalibrate raw scores first, or pass y_prob=None.", column="y_prob", n_rows=bad)
        if y is not None and n is not None and len(y) != n:
            p.add("length_mismatch", f"y_true has {len(y)} rows but time has {n}.", "Pass the same rows.", column="y_true")
    if features is not None and n is not None:
        _check_features(features, n, config, p)
    p.raise_if_any()
    d = _days(t, config)
    fd = _feature_drift(features, d, config) if features is not None and features.shape[1] > 0 else None
    ld = _label_drift(y, d, config, fd) if y is not None else None
    cd = _calibration_drift(y, prob, d, config) if prob is not None else None
    return _report(fd, ld, cd, config, has_labels=y is not None)


def _report(fd, ld, cd, config, *, has_labels: bool) -> DriftReport:
    y = True if has_labels else None
    lights = {
        "feature": Light(family="feature", color=fd.color, reason=fd.reason, details=fd.summary()) if fd else _grey("feature", "No feature columns mapped."),
        "label": Light(family="label", color=ld.color, reason=ld.reason, details=ld.summary()) if ld else _grey("label", "No label column."),
        "calibration": (Light(family="calibration", color=cd.color, reason=cd.reason, details=cd.summary()) if cd
                        else _grey("calibration", "No probabilities (raw scores need recalibration first)." if y is not None else "No label column.")),
    }
    return DriftReport(lights=lights, feature=fd, label=ld, calibration=cd, config=config)


# --------------------------------------------------------------------------- from per-day tables

DAY_COLUMNS = ("date", "rows", "pos")
CALIBRATION_DAY_COLUMNS = ("date", "bin", "rows", "pos", "prob_sum")
FEATURE_DAY_COLUMNS = ("date", "code", "rows")


def reference_spec(ref: Reference, *, grid: str = "exact") -> dict:
    """The JSON-safe part of a frozen reference that fixes its codes: KS edges or PSI levels.

    ``grid`` says where KS edges came from ("exact": the order statistics of
    :func:`fit_reference`; "engine quantiles": an engine's quantile function). Counts are
    not part of it: :func:`drift_from_days` counts the reference window's codes.

    Examples
    --------
    >>> reference_spec(fit_reference([1.0, 2.0, 2.0, 3.0], kind="ks"))
    {'kind': 'ks', 'edges': [1.0, 2.0, 3.0], 'grid': 'exact'}
    """
    if ref.kind == "ks":
        return {"kind": "ks", "edges": [float(e) for e in ref.edges], "grid": grid}
    return {"kind": "psi", "levels": [_clean(v) for v in ref.levels[:-2]]}


def _ref_of_spec(spec: dict, ref_counts: np.ndarray) -> Reference:
    """A :class:`Reference` from its spec and the reference window's counts per code."""
    if spec["kind"] == "ks":
        edges = np.asarray(spec["edges"], dtype=np.float64)
        counts = np.asarray(ref_counts[: 2 * edges.size + 1], dtype=np.int64)
        n = int(counts.sum())
        err = float(counts[0::2].max() / n) if n else 0.0
        return Reference(kind="ks", edges=edges, levels=None, counts=counts, n=n, sorted_values=None, bin_error=err)
    levels = tuple(spec["levels"]) + ("(missing)", "(unseen)")
    counts = np.asarray(ref_counts[: len(levels)], dtype=np.int64)
    return Reference(kind="psi", edges=None, levels=levels, counts=counts, n=int(counts.sum()), sorted_values=None,
                     bin_error=0.0)


def _day_index(dates, day0) -> np.ndarray:
    return ((pd.DatetimeIndex(pd.to_datetime(dates)).normalize().values - day0.to_datetime64()) // _DAY).astype(np.int64)


def _days_of_table(days: pd.DataFrame, config: DriftConfig) -> _Days:
    problems = ProblemList()
    missing = [c for c in DAY_COLUMNS if c not in days.columns]
    if missing:
        problems.add("day_columns", f"the per-day table lacks {missing}.", "Aggregate with evalboard's engines.")
    elif len(days) == 0 or int(days["rows"].sum()) == 0:
        problems.add("time_empty", "the per-day table has no rows.", "Aggregate a source with rows.")
    problems.raise_if_any()
    day0 = pd.Timestamp(pd.to_datetime(days["date"]).min()).normalize()
    idx = _day_index(days["date"], day0)
    return _days_of_counts(day0, np.bincount(idx, weights=days["rows"].to_numpy(np.float64)).astype(np.int64), config)


def _per_day(frame: pd.DataFrame, d: _Days, column: str, width: int | None = None, key: str | None = None) -> np.ndarray:
    idx = _day_index(frame["date"], d.day0)
    keep = (idx >= 0) & (idx < d.n_days)
    vals = frame[column].to_numpy(np.float64)[keep]
    if width is None:
        return np.bincount(idx[keep], weights=vals, minlength=d.n_days)
    k = frame[key].to_numpy(np.int64)[keep]
    return np.bincount(idx[keep] * width + k, weights=vals, minlength=d.n_days * width).reshape(d.n_days, width)


def exact_ks_applies(days: pd.DataFrame, config: DriftConfig | None = None) -> bool:
    """Whether the row path computes KS exactly for these days (``n_ref + n_cur <=
    exact_limit`` in every window): then an aggregate needs per-value counts to match it."""
    config = config or DriftConfig()
    d = _days_of_table(days, config)
    return not any(d.ref.n + w.n > config.exact_limit for w in d.cur)


def _exact_ks(values: pd.DataFrame, d: _Days) -> np.ndarray:
    """Exact KS per current window from (date, value, rows) of one numeric feature."""
    idx = _day_index(values["date"], d.day0)
    v = values["value"].to_numpy(np.float64)
    c = values["rows"].to_numpy(np.int64)

    def sample(ds, de):
        m = (idx >= ds) & (idx < de)
        u, inv = np.unique(v[m], return_inverse=True)
        return u, np.bincount(inv, weights=c[m], minlength=len(u)).astype(np.int64)

    rv, rc = sample(d.ref.day_start, d.ref.day_end)
    out = np.full(len(d.cur), np.nan)
    for j, w in enumerate(d.cur):
        cv, cc = sample(w.day_start, w.day_end)
        if cc.sum() and rc.sum():
            out[j] = _ks_counts(rv, rc, cv, cc)
    return out


def calibration_drift_from_days(days: pd.DataFrame, calibration: pd.DataFrame, config: DriftConfig | None = None,
                                *, n_bins: int = 10) -> CalibrationDrift:
    """:func:`calibration_drift` from rows per day and (date, bin, rows, pos, prob_sum) per
    day and uniform reliability bin — the same numbers as from the rows (sums of
    probabilities up to summation order)."""
    config = config or DriftConfig()
    d = _days_of_table(days, config)
    cnt, sy, sp = (_per_day(calibration, d, c, n_bins, "bin") for c in ("rows", "pos", "prob_sum"))
    return _calibration_drift_days(cnt, sy, sp, d, config)


def drift_from_days(days: pd.DataFrame, *, calibration: pd.DataFrame | None = None, features: dict | None = None,
                    config: DriftConfig | None = None) -> DriftReport:
    """All three drift lights from per-day tables instead of rows (aggregates of any engine).

    Parameters
    ----------
    days : DataFrame
        (date, rows, pos): rows and positives per calendar day (midnights).
    calibration : DataFrame or None
        (date, bin, rows, pos, prob_sum) per day and uniform reliability bin of the first
        probability model; None leaves calibration grey.
    features : dict or None
        Feature -> (spec, table) or (spec, table, values): ``spec`` from
        :func:`reference_spec` (fitted on this reference window), ``table`` (date, code,
        rows) with the reference's codes (numeric missing values: code ``n_codes``), and for
        numeric features optionally ``values`` (date, value, rows) of the non-missing values,
        which give the exact KS where the row path computes it exactly.
    config : DriftConfig, default=None

    Returns
    -------
    DriftReport
        Equal to :func:`drift_lights` on the rows. Where the rows would compute KS exactly
        (:func:`exact_ks_applies`) but ``values`` are missing, KS is binned on the reference
        grid instead (``ks_method`` says so; ``bin_error`` bounds the difference).

    Examples
    --------
    >>> days = pd.DataFrame({"date": pd.date_range("2026-10-05", periods=14), "rows": 100,
    ...                      "pos": [10] * 7 + [30] * 7})
    >>> r = drift_from_days(days)
    >>> r.lights["label"].color, r.label.rate.tolist()
    ('yellow', [0.3])
    """
    config = config or DriftConfig()
    d = _days_of_table(days, config)
    fd = None
    if features:
        names = list(features)
        cols = [c for c in (config.features if config.features is not None else names) if c in features]
        binned = any(d.ref.n + w.n > config.exact_limit for w in d.cur) or any(
            features[c][0]["kind"] == "ks" and (len(features[c]) < 3 or features[c][2] is None) for c in cols)
        per = []
        for name in cols:
            spec, table = features[name][:2]
            n_codes = 2 * len(spec["edges"]) + 1 if spec["kind"] == "ks" else len(spec["levels"]) + 2
            h = _per_day(table, d, "rows", n_codes + 1, "code").astype(np.int64)
            ref_counts = h[max(d.ref.day_start, 0):min(max(d.ref.day_end, 0), d.n_days)].sum(axis=0)
            exact = _exact_ks(features[name][2], d) if spec["kind"] == "ks" and not binned else None
            per.append((spec["kind"], _ref_of_spec(spec, ref_counts), h, exact))
        if cols:
            fd = _grade_features(cols, per, d, config, binned=binned)
    ld = _label_drift_days(_per_day(days, d, "rows").astype(np.int64), _per_day(days, d, "pos").astype(np.int64), d,
                           config, fd)
    cd = None
    if calibration is not None:
        cnt, sy, sp = (_per_day(calibration, d, c, 10, "bin") for c in ("rows", "pos", "prob_sum"))
        cd = _calibration_drift_days(cnt, sy, sp, d, config)
    return _report(fd, ld, cd, config, has_labels=True)
