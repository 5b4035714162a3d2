"""Drift settings: :class:`DriftConfig` (validated, hashable, saved with the dataset) and
the one-problem helper its ``from_dict`` and :func:`~evalcore.drift.fit_reference` raise with."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np
import pandas as pd

from .._errors import InputError, ProblemList


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
                p.add(
                    "config_invalid", f"{name} must be a positive integer; got {v!r}.", f"Set {name} to 1 or more.", column=name
                )
        for name in ("ks_threshold", "psi_yellow", "psi_red", "psi_floor", "noise_c", "min_expected"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.number)) or isinstance(v, bool) or not (math.isfinite(v) and v > 0):
                p.add(
                    "config_invalid",
                    f"{name} must be a finite number > 0; got {v!r}.",
                    f"Set {name} to a positive number.",
                    column=name,
                )
        for name in ("label_alpha", "calibration_alpha"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.number)) or not (0 < v < 1):
                p.add("config_invalid", f"{name} must be in (0, 1); got {v!r}.", "Use e.g. 0.01 or 0.05.", column=name)
        if not p and self.psi_yellow > self.psi_red:
            p.add(
                "config_invalid",
                f"psi_yellow ({self.psi_yellow}) must not exceed psi_red ({self.psi_red}).",
                "Swap them.",
                column="psi_yellow",
            )
        try:
            lo, hi = (float(v) for v in self.oe_band)
            ok = 0 < lo < 1 < hi
        except (TypeError, ValueError):
            ok = False
        if not ok:
            p.add(
                "config_invalid",
                f"oe_band must be (low, high) with 0 < low < 1 < high; got {self.oe_band!r}.",
                "Use e.g. (0.8, 1.25).",
                column="oe_band",
            )
        else:
            object.__setattr__(self, "oe_band", (lo, hi))
        if self.reference_start is not None:
            try:
                pd.Timestamp(self.reference_start)
            except (TypeError, ValueError):
                p.add(
                    "config_invalid",
                    f"reference_start must be an ISO date; got {self.reference_start!r}.",
                    "Use e.g. '2026-10-05'.",
                    column="reference_start",
                )
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
    from .._errors import Problem

    return Problem(code=code, message=message, fix=fix, column=column)
