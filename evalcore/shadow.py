"""The shadow anchor: a held-out validation set priced with the board's value table gives the
"gold standard" value per decision, which anchors and linearly rescales the daily values.

If the shadow set shows the daily values 5% low (gold / daily = 1.05), every daily value is
multiplied by 1.05. :func:`shadow_anchor` computes

- the gold standard: EV per decision on the shadow set at the deployed threshold, with the
  board's bootstrap interval (:func:`evalcore.bootstrap.ev_interval`), and its expected loss
  ``E[L_weighted] = −EV`` (the same number with the loss sign);
- the daily value over the overlapping period: the row-weighted mean of the windows' EV, with
  its uncertainty from each window's standard error (independent windows);
- the factor ``gold / daily`` with a percentile interval: each replicate divides a bootstrap
  replicate of the gold standard by a draw of the daily mean (normal, from the windows'
  standard errors);
- whether the shadow set is older than its review period (default one quarter).

The factor is undefined (NaN, with the reason) when the daily mean's interval includes 0 or
the gold and daily values have opposite signs: a ratio of such numbers rescales nothing
meaningfully.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ._checks import as_generator, check_level
from ._errors import ProblemList
from ._json import json_float
from .bootstrap import BootstrapResult, ev_interval

__all__ = ["ShadowAnchor", "shadow_anchor", "daily_values", "REVIEW_DAYS"]

REVIEW_DAYS = 92  # one quarter: a shadow set older than this is flagged for review


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ShadowAnchor:
    """The gold standard, the daily value over the same period and their ratio.

    Attributes
    ----------
    gold : BootstrapResult
        EV per decision on the shadow set (gains positive).
    gold_loss, gold_loss_low, gold_loss_high : float
        ``E[L_weighted] = −EV`` and its interval (loss sign).
    daily, daily_low, daily_high : float
        Row-weighted mean EV of the daily windows over the overlapping period, and its interval.
    factor, factor_low, factor_high : float
        ``gold / daily`` and its percentile interval: multiply daily values by ``factor``.
    n_shadow : float
        Weighted rows of the shadow set.
    n_windows : int
        Daily windows in the overlapping period.
    label : str
        The shadow set's name (e.g. "2026-Q3").
    marked_on : pandas.Timestamp or None
        When the shadow set was drawn or marked.
    stale : bool
        Older than ``review_days`` at ``as_of``.
    review_days : int
    level : float
    undefined : dict
        Field -> why it is NaN.
    """

    gold: BootstrapResult
    gold_loss: float
    gold_loss_low: float
    gold_loss_high: float
    daily: float
    daily_low: float
    daily_high: float
    factor: float
    factor_low: float
    factor_high: float
    n_shadow: float
    n_windows: int
    label: str = ""
    marked_on: pd.Timestamp | None = None
    stale: bool = False
    review_days: int = REVIEW_DAYS
    level: float = 0.95
    undefined: dict = field(default_factory=dict)

    def rescale(self, values):
        """Daily values multiplied by the factor (NaN when the factor is undefined)."""
        return np.asarray(values, dtype=np.float64) * self.factor

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "marked_on": None if self.marked_on is None else self.marked_on.date().isoformat(),
            "stale": bool(self.stale),
            "review_days": int(self.review_days),
            "n_shadow": json_float(self.n_shadow),
            "n_windows": int(self.n_windows),
            "gold_ev": json_float(self.gold.estimate),
            "gold_ev_ci": [json_float(self.gold.low), json_float(self.gold.high)],
            "gold_loss": json_float(self.gold_loss),
            "gold_loss_ci": [json_float(self.gold_loss_low), json_float(self.gold_loss_high)],
            "daily_ev": json_float(self.daily),
            "daily_ev_ci": [json_float(self.daily_low), json_float(self.daily_high)],
            "factor": json_float(self.factor),
            "factor_ci": [json_float(self.factor_low), json_float(self.factor_high)],
            "level": self.level,
            "undefined": dict(self.undefined),
        }


def daily_values(result, model: str, start=None, end=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ev, n, standard error) of the realised windows of a
    :class:`evalcore.over_time.ValueOverTime` inside ``[start, end)`` (estimated windows and
    windows without a value are left out); the standard error is the band's half-width ÷ z."""
    z = stats.norm.ppf(0.5 + result.level / 2)
    s = None if start is None else pd.Timestamp(start)
    e = None if end is None else pd.Timestamp(end)
    ev, n, se = [], [], []
    for w in result.windows:
        if w.estimated or (s is not None and w.start < s) or (e is not None and w.end > e):
            continue
        x, lo, hi = w.ev[model], w.ev_low[model], w.ev_high[model]
        if not math.isfinite(x):
            continue
        ev.append(x)
        n.append(w.n)
        se.append((hi - lo) / (2 * z) if math.isfinite(lo) and math.isfinite(hi) else 0.0)
    return np.asarray(ev, float), np.asarray(n, float), np.asarray(se, float)


def shadow_anchor(
    y_true,
    y_score,
    table,
    *,
    threshold: float,
    daily_ev,
    daily_n,
    daily_se=None,
    sample_weight=None,
    n_resamples: int = 2000,
    level: float = 0.95,
    rng=None,
    label: str = "",
    marked_on=None,
    as_of=None,
    review_days: int = REVIEW_DAYS,
) -> ShadowAnchor:
    """The shadow anchor of daily values (see the module docstring).

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
        The shadow set's labels and scores.
    table : ValueTable
        The value table the daily values are priced with.
    threshold : float
        The deployed threshold (act iff ``score >= threshold``).
    daily_ev, daily_n : array-like of shape (W,)
        EV per decision and rows of each daily window over the overlapping period.
    daily_se : array-like of shape (W,), default=None
        Each window's standard error (None: the daily values taken as exact).
    sample_weight : array-like of shape (n,), default=None
    n_resamples : int, default=2000
    level : float, default=0.95
    rng : int, Generator or None
    label : str, default=""
    marked_on, as_of : date-like, default=None
        When the shadow set was drawn, and the day to judge its age on.
    review_days : int, default=92

    Returns
    -------
    ShadowAnchor

    Raises
    ------
    InputError
        Daily arrays of different lengths, negative rows, no daily window, a bad level.
    """
    p = ProblemList()
    lvl = check_level(level, p)
    ev = np.asarray(daily_ev, dtype=np.float64).ravel()
    n = np.asarray(daily_n, dtype=np.float64).ravel()
    se = np.zeros_like(ev) if daily_se is None else np.asarray(daily_se, dtype=np.float64).ravel()
    if not (len(ev) == len(n) == len(se)):
        p.add(
            "daily_shape",
            f"daily_ev, daily_n and daily_se must have one entry per window; got {len(ev)}, {len(n)}, {len(se)}.",
            "Pass the windows of the overlapping period.",
        )
    elif len(ev) == 0:
        p.add("daily_empty", "no daily window overlaps the shadow set.", "Pick the period the shadow set covers.")
    elif not (np.isfinite(ev).all() and np.isfinite(n).all() and (n > 0).all() and np.isfinite(se).all() and (se >= 0).all()):
        p.add(
            "daily_invalid",
            "daily values must be finite, rows > 0 and standard errors >= 0.",
            "Leave out windows without a value.",
        )
    if not (isinstance(review_days, (int, np.integer)) and review_days > 0):
        p.add("review_days_invalid", f"review_days must be a positive whole number; got {review_days!r}.", "Use e.g. 92.")
    if marked_on is None and as_of is not None:
        p.add("marked_on_missing", "as_of needs marked_on (when the shadow set was drawn).", "Pass marked_on too.")
    p.raise_if_any()
    gen = as_generator(rng)
    gold = ev_interval(
        y_true, y_score, table, threshold=threshold, n_resamples=n_resamples, level=lvl, sample_weight=sample_weight, rng=gen
    )
    w_shadow = float(np.sum(sample_weight)) if sample_weight is not None else float(len(np.asarray(y_true)))
    share = n / n.sum()
    daily = float(np.sum(share * ev))
    daily_sd = float(np.sqrt(np.sum((share * se) ** 2)))
    z = stats.norm.ppf(0.5 + lvl / 2)
    d_lo, d_hi = daily - z * daily_sd, daily + z * daily_sd
    undefined = dict(gold.undefined)
    nan = float("nan")
    f = f_lo = f_hi = nan
    if not math.isfinite(gold.estimate):
        undefined["factor"] = "the gold standard is undefined on the shadow set"
    elif d_lo <= 0 <= d_hi:
        undefined["factor"] = (
            f"the daily value {daily:.4g} is not distinguishable from 0 (interval {d_lo:.4g} to {d_hi:.4g}): "
            "a ratio to it rescales nothing meaningfully"
        )
    elif np.sign(gold.estimate) != np.sign(daily):
        undefined["factor"] = "the gold standard and the daily value have opposite signs"
    else:
        f = gold.estimate / daily
        reps = gold.distribution
        if reps is not None and len(reps) >= 2:
            draws = daily + daily_sd * gen.standard_normal(len(reps))
            ratio = reps / draws
            ratio = ratio[np.isfinite(ratio)]
            a = (1 - lvl) / 2
            f_lo, f_hi = float(np.quantile(ratio, a)), float(np.quantile(ratio, 1 - a))
        else:
            undefined["factor_ci"] = "no bootstrap of the gold standard"
    stale = False
    mk = None
    if marked_on is not None:
        mk = pd.Timestamp(marked_on).normalize()
        ref = pd.Timestamp(as_of).normalize() if as_of is not None else pd.Timestamp.now(tz="UTC").tz_localize(None).normalize()
        stale = (ref - mk).days > int(review_days)
    return ShadowAnchor(
        gold=gold,
        gold_loss=-gold.estimate,
        gold_loss_low=-gold.high,
        gold_loss_high=-gold.low,
        daily=daily,
        daily_low=d_lo,
        daily_high=d_hi,
        factor=f,
        factor_low=f_lo,
        factor_high=f_hi,
        n_shadow=w_shadow,
        n_windows=int(len(ev)),
        label=str(label),
        marked_on=mk,
        stale=bool(stale),
        review_days=int(review_days),
        level=lvl,
        undefined=undefined,
    )
