"""Drift from per-day tables instead of rows (aggregates of any engine): the table columns,
reference specs, and :func:`drift_from_days` / :func:`calibration_drift_from_days`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import ProblemList
from ._common import _DAY, _clean
from .calibration import CalibrationDrift, _calibration_drift_days
from .config import DriftConfig
from .features import _grade_features
from .label import _label_drift_days
from .lights import DriftReport, _report
from .primitives import _ks_counts
from .references import Reference, fit_reference  # noqa: F401 (fit_reference: reference_spec's doctest)
from .timewindows import _Days, _days_of_counts

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
    return Reference(kind="psi", edges=None, levels=levels, counts=counts, n=int(counts.sum()), sorted_values=None, bin_error=0.0)


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


def calibration_drift_from_days(
    days: pd.DataFrame, calibration: pd.DataFrame, config: DriftConfig | None = None, *, n_bins: int = 10
) -> CalibrationDrift:
    """:func:`calibration_drift` from rows per day and (date, bin, rows, pos, prob_sum) per
    day and uniform reliability bin — the same numbers as from the rows (sums of
    probabilities up to summation order)."""
    config = config or DriftConfig()
    d = _days_of_table(days, config)
    cnt, sy, sp = (_per_day(calibration, d, c, n_bins, "bin") for c in ("rows", "pos", "prob_sum"))
    return _calibration_drift_days(cnt, sy, sp, d, config)


def drift_from_days(
    days: pd.DataFrame,
    *,
    calibration: pd.DataFrame | None = None,
    features: dict | None = None,
    config: DriftConfig | None = None,
) -> DriftReport:
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
            features[c][0]["kind"] == "ks" and (len(features[c]) < 3 or features[c][2] is None) for c in cols
        )
        per = []
        for name in cols:
            spec, table = features[name][:2]
            n_codes = 2 * len(spec["edges"]) + 1 if spec["kind"] == "ks" else len(spec["levels"]) + 2
            h = _per_day(table, d, "rows", n_codes + 1, "code").astype(np.int64)
            ref_counts = h[max(d.ref.day_start, 0) : min(max(d.ref.day_end, 0), d.n_days)].sum(axis=0)
            exact = _exact_ks(features[name][2], d) if spec["kind"] == "ks" and not binned else None
            per.append((spec["kind"], _ref_of_spec(spec, ref_counts), h, exact))
        if cols:
            fd = _grade_features(cols, per, d, config, binned=binned)
    ld = _label_drift_days(_per_day(days, d, "rows").astype(np.int64), _per_day(days, d, "pos").astype(np.int64), d, config, fd)
    cd = None
    if calibration is not None:
        cnt, sy, sp = (_per_day(calibration, d, c, 10, "bin") for c in ("rows", "pos", "prob_sum"))
        cd = _calibration_drift_days(cnt, sy, sp, d, config)
    return _report(fd, ld, cd, config, has_labels=True)
