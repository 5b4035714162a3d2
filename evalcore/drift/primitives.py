"""Drift statistics on plain arrays: exact KS, PSI, their 95% noise floors, the chi-square
and two-proportion tests, Wilson intervals and the consecutive-window rule."""

from __future__ import annotations

import numpy as np

from .._errors import ProblemList
from ..bootstrap import wilson_interval


def _stats():
    """scipy.stats, imported on first use (it costs half a second; evalcore loads without it)."""
    from scipy import stats

    return stats


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
            p.add(
                "sample_invalid",
                f"{name} must be a one-dimensional numeric array; got shape {a.shape}, dtype {a.dtype}.",
                "Pass one number per row.",
                column=name,
            )
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
        p.add(
            "counts_shape",
            f"ref_counts and cur_counts must be 1-D of equal length; got {r.shape} and {c.shape}.",
            "Count the same buckets in both.",
        )
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
    return float((1 / n + 1 / m) * _stats().chi2.ppf(0.95, k - 1))


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
    return stat, float(_stats().chi2.sf(stat, r.size - 1))


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
    pval = np.where(np.isfinite(z), 2 * _stats().norm.sf(np.abs(np.nan_to_num(z))), np.nan)
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
