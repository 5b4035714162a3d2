"""Validation at the public boundary of evalcore (private: helpers trust their inputs)."""

from __future__ import annotations

import numpy as np

from ._errors import ProblemList


def positive_number(x) -> float:
    """``float(x)`` when x is a positive finite number (not a bool), else NaN: the check
    behind every "must be a positive finite number" problem.

    Examples
    --------
    >>> positive_number(1e-4), positive_number("x"), positive_number(True), positive_number(-1)
    (0.0001, nan, nan, nan)
    """
    if isinstance(x, bool):
        return float("nan")
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    return v if np.isfinite(v) and v > 0 else float("nan")


def check_binary_scores(y_true, y_score, sample_weight=None):
    """Return canonical ``(y_true int8 0/1, y_score float64, weight float64)`` or raise.

    Every problem is collected and raised at once as :class:`InputError`.
    """
    problems = ProblemList()
    y = np.asarray(y_true)
    s = np.asarray(y_score)
    if y.ndim != 1:
        problems.add("y_true_shape", f"y_true must be one-dimensional; got shape {y.shape}.", "Pass one label per row.", column="y_true")
    if s.ndim != 1:
        problems.add("y_score_shape", f"y_score must be one-dimensional; got shape {s.shape}.", "Pass one score per row.", column="y_score")
    problems.raise_if_any()
    if len(y) != len(s):
        problems.add("length_mismatch", f"y_true has {len(y)} rows but y_score has {len(s)}.", "Pass labels and scores of the same rows.", column="y_score")
    if y.dtype == bool:
        y = y.astype(np.int8)
    elif y.dtype.kind in "iuf":
        bad = ~np.isin(y, (0, 1))
        if bad.any():
            problems.add("y_true_not_binary", f"y_true must hold only 0 and 1; {int(bad.sum())} values are something else (e.g. {y[bad][:3].tolist()}).",
                         "Map the label to 0/1 (the positive class to 1).", column="y_true", n_rows=int(bad.sum()))
        else:
            y = y.astype(np.int8)
    else:
        problems.add("y_true_dtype", f"y_true must be numeric 0/1 or boolean; got dtype {y.dtype}.", "Map the label to 0/1.", column="y_true")
    if s.dtype.kind not in "iufb":
        problems.add("y_score_dtype", f"y_score must be numeric; got dtype {s.dtype}.", "Pass numeric scores.", column="y_score")
    else:
        s = s.astype(np.float64)
        bad = ~np.isfinite(s)
        if bad.any():
            problems.add("y_score_not_finite", f"y_score must be finite; {int(bad.sum())} values are NaN or infinite.",
                         "Remove or fix those rows.", column="y_score", n_rows=int(bad.sum()))
    if sample_weight is None:
        w = np.ones(len(s), dtype=np.float64)
    else:
        w = np.asarray(sample_weight)
        if w.ndim != 1 or len(w) != len(s):
            problems.add("weight_shape", f"sample_weight must have one value per row ({len(s)}); got shape {w.shape}.", "Pass one weight per row.", column="sample_weight")
        elif w.dtype.kind not in "iufb":
            problems.add("weight_dtype", f"sample_weight must be numeric; got dtype {w.dtype}.", "Pass numeric weights.", column="sample_weight")
        else:
            w = w.astype(np.float64)
            bad = ~np.isfinite(w) | (w < 0)
            if bad.any():
                problems.add("weight_invalid", f"sample_weight must be finite and >= 0; {int(bad.sum())} values are not.",
                             "Fix or remove those weights.", column="sample_weight", n_rows=int(bad.sum()))
    problems.raise_if_any()
    return y, s, w
