"""Shared pieces of the drift package: level names, colour severity, the one-day step and
the JSON-safe cleaners used by every result's ``to_dict``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

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
    return (
        [_clean(v) if not isinstance(v, (list, np.ndarray)) else _clean_list(v) for v in np.asarray(a, dtype=object).tolist()]
        if np.ndim(a)
        else _clean(a)
    )
