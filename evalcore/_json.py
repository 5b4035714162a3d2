"""JSON-safe numbers: undefined (None, NaN, ±inf) becomes None, never 0."""

from __future__ import annotations

import math


def json_float(x) -> float | None:
    """``float(x)``, or None when x is None or not finite (JSON has no NaN or infinity)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
