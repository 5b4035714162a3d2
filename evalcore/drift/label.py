"""Label drift: positive rate per current window against the reference (two-proportion test,
Wilson intervals), the label light and the likely step day (:class:`LabelDrift`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import check_binary_scores
from .._errors import InputError, ProblemList
from ._common import LEVEL_NAMES, _clean, _clean_list
from .config import DriftConfig
from .features import FeatureDrift, _windows_word
from .primitives import _run_length, _wilson, consecutive_rule, two_proportion_test
from .timewindows import Window, _as_time, _Days, _days


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
            "reason": self.reason,
            "reference_rate": _clean(self.ref_rate),
            "reference_n": int(self.ref_n),
            "latest_rate": _clean(self.rate[last]) if last >= 0 else None,
            "latest_interval": [_clean(self.low[last]), _clean(self.high[last])] if last >= 0 else None,
            "latest_p_value": _clean(self.p_value[last]) if last >= 0 else None,
            "alpha": self.alpha,
            "latest_window": self.windows[last].to_dict() if last >= 0 else None,
            "step_date": None if self.step_date is None else self.step_date.isoformat(),
            "step_before": _clean(self.step_before),
            "step_after": _clean(self.step_after),
            "label_definition_change": bool(self.label_definition_change),
        }

    def to_dict(self) -> dict:
        return {
            **self.summary(),
            "color": self.color,
            "reference": self.reference.to_dict(),
            "reference_interval": _clean_list(list(self.ref_interval)),
            "windows": [w.to_dict() for w in self.windows],
            "pos": _clean_list(self.pos),
            "n": _clean_list(self.n),
            "rate": _clean_list(self.rate),
            "low": _clean_list(self.low),
            "high": _clean_list(self.high),
            "z": _clean_list(self.z),
            "p_value": _clean_list(self.p_value),
            "status": [LEVEL_NAMES[int(v)] for v in self.level],
        }


def _window_sums(per_day: np.ndarray, d: _Days, w: Window):
    a, b = min(max(w.day_start, 0), d.n_days), min(max(w.day_end, 0), d.n_days)
    return per_day[b] - per_day[a]


def _step(pos_day: np.ndarray, n_day: np.ndarray, first: int):
    """Single change point of a daily binomial series by likelihood ratio (days >= first)."""
    x = pos_day[max(first, 0) :].astype(np.float64)
    n = n_day[max(first, 0) :].astype(np.float64)
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
        reason = (
            "No current window yet."
            if n.size == 0
            else (
                f"Too few rows: latest window {int(n[-1])} rows, reference {rn} rows (expected count below {config.min_expected:g})."
            )
        )
    else:
        run = _run_length(level)
        if color == "green":
            reason = f"Positive rate {rate[-1]:.2%} in the latest window vs {ref_rate:.2%} reference (p = {pv[-1]:.2g})"
        else:
            pct = ", ".join(f"{r:.2%}" for r in rate[-run:])
            where = f"in the last {run} {_windows_word(config.step_days)}" if run > 1 else "in the latest window"
            need = f" (red needs {k})" if color == "yellow" and run > 1 else ""
            reason = (
                f"Positive rate {pct} {where}{need} vs {ref_rate:.2%} reference, two-proportion test p < {config.label_alpha:g}"
            )
        if ldc:
            reason += " — no feature drift: possible label-definition change"
            if step_date is not None:
                reason += f" (step around {step_date:%Y-%m-%d}: {before:.2%} → {after:.2%})"
    return LabelDrift(
        reference=d.ref,
        windows=d.cur,
        ref_pos=rp,
        ref_n=rn,
        ref_rate=float(ref_rate),
        ref_interval=(float(rlo), float(rhi)),
        pos=pos,
        n=n,
        rate=rate,
        low=low,
        high=high,
        z=z,
        p_value=pv,
        level=level,
        step_date=step_date,
        step_before=float(before),
        step_after=float(after),
        label_definition_change=ldc,
        color=color,
        reason=reason,
        alpha=config.label_alpha,
    )
