"""Page tables from a dataset's aggregate (every dataset's: rows are counted into one).

Reliability per segment level (:func:`segment_calibration_of`, the frame of
:func:`evalcore.segment_calibration`) from the segment cells. No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.aggregate import Aggregate, reliability_of

__all__ = ["segment_calibration_of", "levels_of"]

_METRICS = ("brier", "log_loss", "ece", "oe_ratio", "slope", "intercept")


def levels_of(agg: Aggregate, model: str, column: str) -> list:
    """The levels of a segment column in the aggregate, sorted (as the row path factorises them)."""
    p = agg.part(model, column)
    return sorted(set(p["level"].astype(str)))


def segment_calibration_of(
    agg: Aggregate, model: str, column: str, *, n_bins: int = 10, strategy: str = "uniform"
) -> pd.DataFrame:
    """:func:`evalcore.segment_calibration`'s table from the aggregate's segment cells.

    Columns segment, n, n_rows, n_pos, brier, log_loss, ece, oe_ratio, slope, intercept,
    worst, undefined; the worst segment is the one with the largest finite ECE.
    """
    records = []
    for level in levels_of(agg, model, column):
        part = agg.part(model, column, level)
        w = part["weight"].to_numpy()
        pos = part["label"].to_numpy() == 1
        base = {"segment": level, "n": float(w.sum()), "n_rows": int(part["rows"].sum()), "n_pos": float(w[pos].sum())}
        if not w.sum() > 0:
            records.append(base | {k: np.nan for k in _METRICS} | {"undefined": "all rows of this segment have zero weight"})
            continue
        r = reliability_of(part, n_bins=n_bins, strategy=strategy)
        und = "; ".join(f"{k}: {v}" for k, v in r.undefined.items() if k != "bins")
        records.append(base | {k: getattr(r, k) for k in _METRICS} | {"undefined": und})
    df = pd.DataFrame.from_records(records, columns=["segment", "n", "n_rows", "n_pos", *_METRICS, "undefined"])
    e = df["ece"].to_numpy(dtype=np.float64)
    worst = np.isfinite(e) & (e == np.nanmax(e)) if np.isfinite(e).any() else np.zeros(len(df), dtype=bool)
    df.insert(len(df.columns) - 1, "worst", worst)
    return df
