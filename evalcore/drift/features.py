"""Feature drift: KS (numeric) and PSI with chi-square (categorical) per feature and current
window, graded against noise floors, and the feature light (:class:`FeatureDrift`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import ProblemList
from ._common import _SEVERITY, LEVEL_NAMES, _clean, _clean_list
from .config import DriftConfig
from .primitives import (
    _ks_sorted,
    _run_length,
    chi_square,
    consecutive_rule,
    noise_floor,
    psi_noise_floor,
)
from .references import fit_reference
from .timewindows import Window, _as_time, _Days, _days


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class FeatureDrift:
    """Feature drift: one statistic per feature × current window, graded, and one light.

    Attributes
    ----------
    features : tuple of str
    kinds : tuple of {"ks", "psi"}
    reference : Window
    windows : tuple of Window
        Current windows, oldest first.
    statistic, noise_floor : ndarray of shape (F, W)
        KS or PSI, and its 95% noise floor (NaN when a sample is empty).
    n_ref : ndarray of shape (F,)
        Reference rows used per feature (numeric: non-missing).
    n_cur, n_missing : ndarray of shape (F, W)
        Window rows used, and numeric missing values left out.
    chi2_pvalue : ndarray of shape (F, W)
        Chi-square p-value (categorical; NaN for numeric).
    level : ndarray of int, shape (F, W)
        -1 too few rows, 0 ok, 1 moderate, 2 high.
    yellow_threshold, red_threshold : ndarray of shape (F,)
    colors, reasons : tuple of str, per feature
    ks_method : {"exact", "binned"}
    n_bins : int or None
        Reference-quantile intervals when binned; None when exact.
    bin_error : ndarray of shape (F,)
        Bound on exact − binned KS per feature (0 when exact or categorical).
    references : tuple of Reference
        Frozen reference fits (drill-down distributions).
    window_counts : tuple of ndarray (W, n_codes)
        Per feature, counts per reference code in each window.
    color, reason : str
        The light: the worst feature's colour, and its reason.
    step_days : int
    """

    features: tuple
    kinds: tuple
    reference: Window
    windows: tuple
    statistic: np.ndarray
    noise_floor: np.ndarray
    n_ref: np.ndarray
    n_cur: np.ndarray
    n_missing: np.ndarray
    chi2_pvalue: np.ndarray
    level: np.ndarray
    yellow_threshold: np.ndarray
    red_threshold: np.ndarray
    colors: tuple
    reasons: tuple
    ks_method: str
    n_bins: int | None
    bin_error: np.ndarray
    references: tuple = field(repr=False)
    window_counts: tuple = field(repr=False)
    color: str
    reason: str
    worst: str | None
    step_days: int = 1

    @property
    def status(self) -> np.ndarray:
        """Level names per cell (``"too few rows"``, ``"ok"``, ``"moderate"``, ``"high"``)."""
        return np.vectorize(LEVEL_NAMES.get, otypes=[object])(self.level) if self.level.size else self.level.astype(object)

    @property
    def below_noise(self) -> np.ndarray:
        """Cells whose statistic is below its noise floor (indistinguishable from noise)."""
        with np.errstate(invalid="ignore"):
            return self.statistic < self.noise_floor

    def summary(self) -> dict:
        """Compact JSON-safe details for the light (CLI, board)."""
        last = self.windows[-1] if self.windows else None
        per = {}
        for i, f in enumerate(self.features):
            per[f] = {
                "kind": self.kinds[i],
                "color": self.colors[i],
                "reason": self.reasons[i],
                "latest": _clean(self.statistic[i, -1]) if last else None,
                "noise_floor": _clean(self.noise_floor[i, -1]) if last else None,
                "threshold": _clean(self.red_threshold[i]),
            }
        return {
            "reason": self.reason,
            "worst_feature": self.worst,
            "ks_method": self.ks_method,
            "n_bins": self.n_bins,
            "reference": self.reference.to_dict(),
            "latest_window": last.to_dict() if last else None,
            "n_windows": len(self.windows),
            "features": per,
        }

    def to_dict(self) -> dict:
        return {
            "color": self.color,
            "reason": self.reason,
            "worst_feature": self.worst,
            "features": list(self.features),
            "kinds": list(self.kinds),
            "reference": self.reference.to_dict(),
            "windows": [w.to_dict() for w in self.windows],
            "statistic": _clean_list(self.statistic),
            "noise_floor": _clean_list(self.noise_floor),
            "n_ref": _clean_list(self.n_ref),
            "n_cur": _clean_list(self.n_cur),
            "n_missing": _clean_list(self.n_missing),
            "chi2_pvalue": _clean_list(self.chi2_pvalue),
            "status": _clean_list(self.status),
            "yellow_threshold": _clean_list(self.yellow_threshold),
            "red_threshold": _clean_list(self.red_threshold),
            "colors": list(self.colors),
            "reasons": list(self.reasons),
            "ks_method": self.ks_method,
            "n_bins": self.n_bins,
            "bin_error": _clean_list(self.bin_error),
        }


def _windows_word(step_days: int) -> str:
    return "daily windows" if step_days == 1 else "windows"


def _fmt_series(vals) -> str:
    return ", ".join(f"{v:.2f}" for v in vals)


def _feature_reason(name, kind, stats_row, floor_row, lv, color, k, yellow, red, step_days, cur_n) -> str:
    sname = "KS" if kind == "ks" else "PSI"
    thr = f"threshold {red:g}" if kind == "ks" else f"thresholds {yellow:g}/{red:g}"
    if color == "grey":
        if lv.size == 0:
            return f"{name}: no current window"
        return (
            f"{name}: too few rows — latest window {int(cur_n[-1])} rows, {sname} {stats_row[-1]:.2f} below its noise "
            f"floor {floor_row[-1]:.2f}, which is above {thr}"
            if np.isfinite(floor_row[-1]) and np.isfinite(stats_row[-1])
            else f"{name}: too few rows — {sname} undefined in the latest window ({int(cur_n[-1])} rows)"
        )
    if color == "red":
        return f"{name}: {sname} {_fmt_series(stats_row[-k:])} in the last {k} {_windows_word(step_days)}, {thr}"
    if color == "yellow":
        run = _run_length(lv)
        if run > 1:
            return f"{name}: {sname} {_fmt_series(stats_row[-run:])} in the last {run} {_windows_word(step_days)} (red needs {k}), {thr}"
        return f"{name}: {sname} {stats_row[-1]:.2f} in the latest window, {thr}"
    return f"{name}: {sname} {stats_row[-1]:.2f} in the latest window, {thr}"


def _check_features(features, n, config, problems):
    if features is None:
        return None
    if isinstance(features, pd.Series):
        features = features.to_frame()
    if not isinstance(features, pd.DataFrame):
        problems.add(
            "features_type",
            f"features must be a pandas DataFrame; got {type(features).__name__}.",
            "Pass the feature columns as a DataFrame.",
            column="features",
        )
        return None
    if len(features) != n:
        problems.add(
            "length_mismatch", f"features has {len(features)} rows but time has {n}.", "Pass the same rows.", column="features"
        )
    if features.columns.duplicated().any():
        problems.add(
            "features_duplicated",
            f"Duplicated feature columns: {sorted(set(features.columns[features.columns.duplicated()].astype(str)))}.",
            "Rename them.",
            column="features",
        )
    names = [str(c) for c in features.columns]
    if config.features is not None:
        missing = [f for f in config.features if f not in names]
        if missing:
            problems.add(
                "features_missing",
                f"Configured features not in the data: {missing}.",
                "Map those columns or remove them from the drift settings.",
                column="features",
            )
    for c in features.columns:
        kind = features[c].dtype.kind
        if kind in "mMc":
            problems.add(
                "feature_dtype",
                f"Feature {c!r} has dtype {features[c].dtype}; drift needs numeric or categorical values.",
                "Convert it or leave it out.",
                column=str(c),
            )
    return features


def _feature_kind(s: pd.Series, name: str, config: DriftConfig) -> str:
    if name in config.categorical:
        return "psi"
    return "ks" if s.dtype.kind in "iuf" else "psi"


def feature_drift(features: pd.DataFrame, time, config: DriftConfig | None = None) -> FeatureDrift:
    """Feature drift of every current window against the reference window.

    Parameters
    ----------
    features : pandas.DataFrame of shape (n, F)
        Numeric columns are compared with KS, others (and ``config.categorical``) with PSI.
        Only ``config.features`` count when it is set.
    time : array-like of datetime-like, shape (n,)
    config : DriftConfig, default=None

    Returns
    -------
    FeatureDrift

    Raises
    ------
    InputError
        Bad time values, length mismatch, unknown configured features, datetime features.

    Notes
    -----
    Per feature the reference is fitted once (:func:`fit_reference`); every row is coded
    once, counted per day, and a window's counts are a difference of cumulative daily
    counts. When binned, KS is computed from those counts (error bound in ``bin_error``).

    Examples
    --------
    >>> t = pd.date_range("2026-10-05", periods=14 * 48, freq="30min")
    >>> x = np.r_[np.arange(336) % 7, np.arange(336) % 7 + 3.0]
    >>> fd = feature_drift(pd.DataFrame({"x": x}), t, DriftConfig(reference_days=7, window_days=7))
    >>> fd.color, fd.statistic.round(3).tolist()
    ('yellow', [[0.429]])
    """
    config = config or DriftConfig()
    p = ProblemList()
    t = _as_time(time, problems=p)
    if t is not None:
        _check_features(features, len(t), config, p)
    elif not isinstance(features, pd.DataFrame):
        p.add(
            "features_type", "features must be a pandas DataFrame.", "Pass the feature columns as a DataFrame.", column="features"
        )
    p.raise_if_any()
    d = _days(t, config)
    return _feature_drift(features, d, config)


def _feature_drift(features: pd.DataFrame, d: _Days, config: DriftConfig) -> FeatureDrift:
    names = [str(c) for c in features.columns]
    cols = list(config.features) if config.features is not None else names
    cols = [c for c in cols if c in names]
    frame = features.set_axis(names, axis=1)
    order = np.argsort(d.day, kind="stable")
    day_sorted = d.day[order]
    bounds = lambda ds, de: (int(np.searchsorted(day_sorted, ds, "left")), int(np.searchsorted(day_sorted, de, "left")))
    r0, r1 = bounds(d.ref.day_start, d.ref.day_end)
    n_ref_rows = r1 - r0
    binned = any(n_ref_rows + w.n > config.exact_limit for w in d.cur)
    per = []
    for name in cols:
        s = frame[name]
        kind = _feature_kind(s, name, config)
        vals = (s.to_numpy(dtype=np.float64, na_value=np.nan) if kind == "ks" else s.to_numpy(dtype=object))[order]
        ref_vals = vals[r0:r1]
        ref = fit_reference(ref_vals if kind == "ks" else pd.Series(ref_vals, dtype=object), kind=kind, n_bins=config.n_bins)
        K = ref.n_codes
        codes = ref.codes(vals if kind == "ks" else pd.Series(vals, dtype=object))
        # counts per (day, code); code K = numeric missing
        h = np.bincount(day_sorted * (K + 1) + codes, minlength=d.n_days * (K + 1)).reshape(d.n_days, K + 1)
        exact = None
        if kind == "ks" and not binned:
            exact = np.full(len(d.cur), np.nan)
            for j, w in enumerate(d.cur):
                a, b = bounds(w.day_start, w.day_end)
                cur = vals[a:b].astype(np.float64)
                cur = np.sort(cur[~np.isnan(cur)])
                exact[j] = _ks_sorted(ref.sorted_values, cur) if cur.size and ref.n else np.nan
        per.append((kind, ref, h, exact))
    return _grade_features(cols, per, d, config, binned=binned)


def _grade_features(cols, per, d: _Days, config: DriftConfig, *, binned: bool) -> FeatureDrift:
    """Statistics, noise floors, levels and the light from per-feature (kind, reference,
    counts per (day, code) with missing last, exact KS per window or None) — rows or aggregates."""
    W = len(d.cur)
    F = len(cols)
    stat = np.full((F, W), np.nan)
    floor = np.full((F, W), np.nan)
    n_cur = np.zeros((F, W), np.int64)
    n_miss = np.zeros((F, W), np.int64)
    chi_p = np.full((F, W), np.nan)
    level = np.full((F, W), -1, np.int64)
    n_ref = np.zeros(F, np.int64)
    ythr = np.zeros(F)
    rthr = np.zeros(F)
    kinds, refs, wcounts, colors, reasons, errs = [], [], [], [], [], np.zeros(F)
    ds = np.array([w.day_start for w in d.cur], np.int64)
    de = np.array([w.day_end for w in d.cur], np.int64)
    for i, (name, (kind, ref, h, exact)) in enumerate(zip(cols, per)):
        kinds.append(kind)
        refs.append(ref)
        n_ref[i] = ref.n
        K = ref.n_codes
        cum = np.zeros((d.n_days + 1, K + 1), np.int64)
        np.cumsum(h, axis=0, out=cum[1:])
        wc_all = cum[np.clip(de, 0, d.n_days)] - cum[np.clip(ds, 0, d.n_days)]
        wc = wc_all[:, :K]
        wcounts.append(wc)
        n_cur[i] = wc.sum(axis=1)
        n_miss[i] = wc_all[:, K]
        if kind == "ks":
            ythr[i] = rthr[i] = config.ks_threshold
            if binned:
                stat[i] = ref.statistic(wc)
                errs[i] = ref.bin_error
            else:
                stat[i] = exact
            floor[i] = noise_floor(ref.n, n_cur[i], config.noise_c)
            with np.errstate(invalid="ignore"):
                # too few rows to judge only while the statistic is within its noise floor: a KS
                # above a floor that is itself above the threshold is a real drift, not grey
                too_few = (~(floor[i] <= config.ks_threshold) & ~(stat[i] >= floor[i])) | np.isnan(stat[i])
                lv = np.where(stat[i] > config.ks_threshold, 2, 0)
        else:
            ythr[i], rthr[i] = config.psi_yellow, config.psi_red
            stat[i] = ref.statistic(wc, floor=config.psi_floor)
            for j in range(W):
                k_seen = int(((ref.counts + wc[j]) > 0).sum())
                floor[i, j] = psi_noise_floor(ref.n, n_cur[i, j], k_seen)
                chi_p[i, j] = chi_square(ref.counts, wc[j])[1]
            with np.errstate(invalid="ignore"):
                too_few = (~(floor[i] <= config.psi_yellow) & ~(stat[i] >= floor[i])) | np.isnan(stat[i])
                lv = np.where(stat[i] > config.psi_red, 2, np.where(stat[i] > config.psi_yellow, 1, 0))
        level[i] = np.where(too_few, -1, lv)
        color = consecutive_rule(level[i], config.consecutive_red)
        colors.append(color)
        reasons.append(
            _feature_reason(
                name,
                kind,
                stat[i],
                floor[i],
                level[i],
                color,
                config.consecutive_red,
                ythr[i],
                rthr[i],
                config.step_days,
                n_cur[i],
            )
        )
    # worst feature: colour severity, then its latest statistic relative to its threshold
    if F == 0:
        color, reason, worst = "grey", "No feature columns mapped.", None
    elif W == 0:
        color, reason, worst = "grey", "No current window yet: the data span is shorter than reference + one window.", None
    else:
        with np.errstate(invalid="ignore"):
            rel = np.nan_to_num(stat[:, -1] / rthr, nan=-1.0)
        key = [(_SEVERITY[c], r) for c, r in zip(colors, rel)]
        wi = max(range(F), key=lambda i: key[i])
        color, worst = colors[wi], cols[wi]
        if color == "green":
            reason = f"No feature drift in the latest window (largest: {reasons[wi]})"
        else:
            others = sum(1 for c in colors if c == color) - 1
            reason = reasons[wi] + (f" (+{others} more {color})" if others > 0 else "")
    return FeatureDrift(
        features=tuple(cols),
        kinds=tuple(kinds),
        reference=d.ref,
        windows=d.cur,
        statistic=stat,
        noise_floor=floor,
        n_ref=n_ref,
        n_cur=n_cur,
        n_missing=n_miss,
        chi2_pvalue=chi_p,
        level=level,
        yellow_threshold=ythr,
        red_threshold=rthr,
        colors=tuple(colors),
        reasons=tuple(reasons),
        ks_method="binned" if binned else "exact",
        n_bins=config.n_bins if binned else None,
        bin_error=errs,
        references=tuple(refs),
        window_counts=tuple(wcounts),
        color=color,
        reason=reason,
        worst=worst,
        step_days=config.step_days,
    )
