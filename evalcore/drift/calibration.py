"""Calibration drift: observed/expected ratio to the reference with its exact interval, and ECE,
per current window, and the calibration light (:class:`CalibrationDrift`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd  # noqa: F401 (calibration_drift's doctest)

from .._checks import check_binary_scores
from .._errors import InputError, ProblemList
from ..calibration import _bin_index, _uniform_edges
from ._common import LEVEL_NAMES, _clean, _clean_list
from .config import DriftConfig
from .features import _fmt_series, _windows_word
from .label import _window_sums
from .primitives import _run_length, consecutive_rule
from .timewindows import Window, _as_time, _Days, _days


def _stats():
    """scipy.stats, imported on first use (it costs half a second; evalcore loads without it)."""
    from scipy import stats

    return stats


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
            "reason": self.reason,
            "reference_oe": _clean(self.ref_oe),
            "reference_ece": _clean(self.ref_ece),
            "latest_oe": pick(self.oe),
            "latest_ece": pick(self.ece),
            "latest_ratio": pick(self.ratio),
            "latest_ratio_interval": [pick(self.ratio_low), pick(self.ratio_high)],
            "band": list(self.band),
            "n_bins": self.n_bins,
            "strategy": "uniform",
            "latest_window": self.windows[last].to_dict() if last >= 0 else None,
        }

    def to_dict(self) -> dict:
        return {
            **self.summary(),
            "color": self.color,
            "reference": self.reference.to_dict(),
            "windows": [w.to_dict() for w in self.windows],
            "observed": _clean_list(self.observed),
            "expected": _clean_list(self.expected),
            "n": _clean_list(self.n),
            "oe": _clean_list(self.oe),
            "ece": _clean_list(self.ece),
            "ratio": _clean_list(self.ratio),
            "ratio_low": _clean_list(self.ratio_low),
            "ratio_high": _clean_list(self.ratio_high),
            "p_value": _clean_list(self.p_value),
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
            p.add(
                "y_prob_range",
                f"y_prob must be probabilities in [0, 1]; {int(out.sum())} values are outside.",
                "Recalibrate raw scores to probabilities first, or pass y_prob=None.",
                column="y_prob",
                n_rows=int(out.sum()),
            )
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
    lo_pi = np.where(o_int > 0, _stats().beta.ppf(a / 2, np.maximum(o_int, 1), tot - o_int + 1), 0.0)
    hi_pi = np.where(o_int < tot, _stats().beta.ppf(1 - a / 2, o_int + 1, np.maximum(tot - o_int, 1)), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = re / e
        r_lo = lo_pi / (1 - lo_pi) * scale
        r_hi = np.where(hi_pi < 1, hi_pi / (1 - hi_pi) * scale, np.inf)
    pv = np.array(
        [
            _stats().binomtest(int(k), int(m), float(q)).pvalue if m > 0 and 0 < q < 1 else np.nan
            for k, m, q in zip(o_int, tot, pi0)
        ],
        dtype=np.float64,
    )
    lo_b, hi_b = config.oe_band
    too_few = (e < config.min_expected) | (re < config.min_expected) | (ro_int == 0) | ~np.isfinite(ratio)
    with np.errstate(invalid="ignore"):
        off = ((ratio < lo_b) | (ratio > hi_b)) & ((r_lo > 1) | (r_hi < 1))
    level = np.where(too_few, -1, np.where(off, 2, 0)).astype(np.int64)
    color = consecutive_rule(level, config.consecutive_red)
    k = config.consecutive_red
    band = f"band {lo_b:g}–{hi_b:g}"
    if color == "grey":
        reason = (
            "No current window yet."
            if W == 0
            else (
                f"Too few rows: expected positives {e[-1]:.1f} in the latest window, {re:.1f} in the reference "
                f"(need {config.min_expected:g}), reference positives {ro_int}."
            )
        )
    else:
        run = _run_length(level)
        if color == "green":
            reason = (
                f"O/E {oe[-1]:.2f} in the latest window vs {roe:.2f} reference (ratio {ratio[-1]:.2f}, "
                f"{1 - a:.0%} CI {r_lo[-1]:.2f}–{r_hi[-1]:.2f}), within {band}; ECE {ece[-1]:.3f} vs {rece:.3f}"
            )
        else:
            where = f"in the last {run} {_windows_word(config.step_days)}" if run > 1 else "in the latest window"
            need = f" (red needs {k})" if color == "yellow" and run > 1 else ""
            reason = (
                f"O/E ratio to reference {_fmt_series(ratio[-max(run, 1) :])} {where}{need}, outside {band} "
                f"(latest O/E {oe[-1]:.2f} vs {roe:.2f}, {1 - a:.0%} CI {r_lo[-1]:.2f}–{r_hi[-1]:.2f}); "
                f"ECE {ece[-1]:.3f} vs {rece:.3f}"
            )
    return CalibrationDrift(
        reference=d.ref,
        windows=d.cur,
        ref_observed=float(ro),
        ref_expected=float(re),
        ref_oe=float(roe),
        ref_ece=float(rece),
        observed=o,
        expected=e,
        n=n.astype(np.int64),
        oe=oe,
        ece=ece,
        ratio=ratio,
        ratio_low=r_lo,
        ratio_high=r_hi,
        p_value=pv,
        level=level,
        band=(lo_b, hi_b),
        n_bins=nb,
        color=color,
        reason=reason,
    )
