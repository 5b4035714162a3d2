"""Value over time: EV per decision per window (day or week) for each model at the board's
thresholds, with the board's bootstrap bands per window, B − A per window with its paired
band, an alert line, and estimates for windows whose labels have not arrived yet.

The one path
------------
Rows become two small tables (:class:`TimeTables`), the DuckDB/Spark engines build the same
tables in SQL (``board.engines.aggregation.over_time_tables``), and
:func:`value_over_time_of` computes every number from them — so rows and engines agree:

``decisions`` — one row per (date, stratum, group, act_a, act_b, label): the decisions of the
(one or two) models at the deployed thresholds, ``act = score >= threshold`` (``act_b`` is 0
with one model), ``label`` 1/0, or -1 when the label has not arrived; ``rows`` and ``weight``.
``stratum`` is the level of the stratified scheme's column (else ""), ``group`` the group id
for the cluster scheme (else "").

``scores`` — one row per (model, date, score, label): ``rows`` and ``weight`` — what the
recalibration map is fitted on (labelled rows) and applied to (rows without labels).

Windows
-------
``day`` or ``week``: whole days ``[start, end)`` counted from the drift reference start (the
first day with data when none is set), so weekly windows line up with the drift reference
window. Every window from the first to the last day with data is listed (an empty one has NaN
values, saying why). Reference windows are the windows inside the drift reference period
``[reference_start, reference_start + reference_days)`` whose labels have arrived.

Bands (realised windows)
------------------------
The board's bootstrap on the window's decision cells: the same designs (``rows``,
``stratified`` by the board's strata column, ``cluster`` by the group id), method and level;
with two models one paired draw gives EV_A, EV_B and EV_B − EV_A
(:func:`evalcore.bootstrap.paired_comparison`), as the board's comparison. Window ``i`` draws
from its own stream, ``SeedSequence([seed, 7, i])``.

Alert line
----------
Per model: ``mean − 2·std`` (ddof=1) of the reference windows' EV (the rule the stability
design uses for serving thresholds). A window is *below* when its EV is under the line; each
window's ``alert`` is the drift lights' consecutive-window rule over the windows up to it
(red: the last ``consecutive_red`` windows all below; yellow: this one below; grey: its EV is
undefined). An estimated window is judged on its estimate.

Windows whose labels have not arrived (estimated)
-------------------------------------------------
A label-known rule marks rows whose labels have arrived; a window with any other row is
*estimated*. Its confusion counts are expected counts: the labelled rows count as they are,
and a row without a label adds ``p̂`` to TP (acted) or FN (not acted) and ``1 − p̂`` to FP or
TN, where ``p̂`` is the recalibration map (:func:`evalcore.calibration.fit_calibration_map`'s
Platt for probabilities and raw scores, isotonic for decisions) fitted on labelled rows only —
never on the rows being estimated. The interval accounts for both uncertainties: each
replicate refits the map on the labelled rows resampled by day (days, not rows: calibration
moves from day to day), redraws the estimated window's rows (multinomial) and their labels
(binomial with ``p̂``, the Poisson-binomial of the window), and computes the window's EV from
those counts. B − A of an estimated window is the difference of the two estimates from the
same replicate index (the rows' pairing across models is not in the score table: the band is
wider than a paired one).

The quality check estimates the most recent fully labelled windows as if their labels had not
arrived (the map then fitted without that window: cross-fitted) and compares with the
realised EV; the estimates are not to be trusted when a realised value falls outside its
estimate's interval or the calibration drift light is red.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._errors import ProblemList
from ._json import json_float
from .aggregate import _cluster_design, _ev_boot, _rows_design
from .bootstrap import _ev_from_cells, _summarise, paired_comparison
from .calibration import _fit_map
from .counts import _bin_scores
from .data import label_known_rows, label_known_until  # noqa: F401  (moved to evalcore.data; kept here)
from .drift import DriftConfig, consecutive_rule

__all__ = [
    "WINDOWS",
    "DECISION_COLUMNS",
    "SCORE_COLUMNS",
    "TimeTables",
    "WindowValue",
    "ValueOverTime",
    "time_tables",
    "label_known_until",
    "label_known_rows",
    "value_over_time",
    "value_over_time_of",
]

WINDOWS = {"day": 1, "week": 7}
DECISION_COLUMNS = ("date", "stratum", "group", "act_a", "act_b", "label", "rows", "weight")
SCORE_COLUMNS = ("model", "date", "score", "label", "rows", "weight")
UNKNOWN = -1  # label of a row whose label has not arrived
_DAY = np.timedelta64(1, "D")
_MAX_MAPS = 200  # recalibration maps refitted per estimate (replicates reuse them in turn)
_DRAW_BATCH = 2_000_000  # cells × replicates drawn at once (memory bound of the estimate's draws)
_FIT_CELLS = 1000  # score bins (per label) the replicate Platt fits pool labelled rows into
_QUALITY_WINDOWS = 3  # most recent fully labelled windows the quality check re-estimates


# --------------------------------------------------------------------------------------
# the tables
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TimeTables:
    """The two per-day tables value over time is computed from (see the module docstring).

    Attributes
    ----------
    decisions : DataFrame
        Columns :data:`DECISION_COLUMNS`, canonical order.
    scores : DataFrame
        Columns :data:`SCORE_COLUMNS`, canonical order.
    models : tuple of str
        One or two models (A, B).
    thresholds : dict
        Model -> the threshold ``decisions`` was cut at.
    score_kinds : dict
        Model -> "probability" | "score" | "decision".
    resolution : dict
        Model -> the score grid of ``scores`` (None: exact).
    strata_column : str or None
    groups : bool
        Whether ``decisions.group`` holds the group ids.
    weighted : bool
    """

    decisions: pd.DataFrame
    scores: pd.DataFrame
    models: tuple
    thresholds: dict
    score_kinds: dict
    resolution: dict = field(default_factory=dict)
    strata_column: str | None = None
    groups: bool = False
    weighted: bool = False

    @classmethod
    def from_frames(cls, decisions: pd.DataFrame, scores: pd.DataFrame, **kw) -> "TimeTables":
        """Sum duplicate keys and sort, so every engine's tables give the same object."""
        return cls(decisions=canonical_decisions(decisions), scores=canonical_scores(scores), **kw)


def canonical_decisions(f: pd.DataFrame) -> pd.DataFrame:
    f = f.loc[:, list(DECISION_COLUMNS)].copy()
    f["date"] = pd.to_datetime(f["date"]).dt.normalize().astype("datetime64[us]")
    for c in ("stratum", "group"):
        f[c] = f[c].astype(str)
    for c in ("act_a", "act_b", "label", "rows"):
        f[c] = f[c].astype(np.int64)
    f["weight"] = f["weight"].astype(np.float64)
    keys = list(DECISION_COLUMNS[:6])
    return f.groupby(keys, sort=True, as_index=False)[["rows", "weight"]].sum().reset_index(drop=True)


def canonical_scores(f: pd.DataFrame) -> pd.DataFrame:
    f = f.loc[:, list(SCORE_COLUMNS)].copy()
    f["model"] = f["model"].astype(str)
    f["date"] = pd.to_datetime(f["date"]).dt.normalize().astype("datetime64[us]")
    f["score"] = f["score"].astype(np.float64)
    for c in ("label", "rows"):
        f[c] = f[c].astype(np.int64)
    f["weight"] = f["weight"].astype(np.float64)
    keys = list(SCORE_COLUMNS[:4])
    return f.groupby(keys, sort=True, as_index=False)[["rows", "weight"]].sum().reset_index(drop=True)


def time_tables(
    predictions,
    *,
    thresholds: dict,
    label_known=None,
    strata_column: str | None = None,
    groups: bool = False,
    resolution: dict | None = None,
) -> TimeTables:
    """The :class:`TimeTables` of validated rows (the pandas engine).

    Parameters
    ----------
    predictions : evalcore.data.Predictions
        With a time column.
    thresholds : dict
        Model -> deployed threshold (every model).
    label_known : array-like of bool, shape (n,), default=None
        Rows whose labels have arrived (None: all). Other rows' labels are ignored.
    strata_column : str, default=None
        Segment column of the stratified scheme.
    groups : bool, default=False
        Keep the group ids (cluster scheme).
    resolution : dict, default=None
        Model -> score grid of the score table (None: exact scores).
    """
    p = ProblemList()
    if predictions.time is None:
        p.add("time_missing", "value over time needs a time column.", "Map one (--time COL in the CLI).", column="time")
    names = list(predictions.scores)
    missing = [m for m in names if m not in thresholds]
    if missing:
        p.add("thresholds_missing", f"no threshold for models {missing}.", "Pass a threshold for every model.")
    if strata_column is not None and strata_column not in predictions.segments:
        p.add(
            "strata_invalid",
            f"stratified bands by {strata_column!r}: not a segment column; segments are {list(predictions.segments)}.",
            "Map it as a segment.",
            column=strata_column,
        )
    if groups and predictions.groups is None:
        p.add("groups_missing", "cluster bands need a group id column.", "Map one (--group COL).", column="group")
    n = len(predictions.y_true)
    known = np.ones(n, bool) if label_known is None else np.asarray(label_known, dtype=bool)
    if known.shape != (n,):
        p.add("label_known_shape", f"label_known has shape {known.shape}; the rows are {n}.", "Pass one flag per row.")
    p.raise_if_any()
    date = pd.DatetimeIndex(pd.to_datetime(predictions.time)).normalize()
    label = np.where(known, predictions.y_true.astype(np.int64), UNKNOWN)
    w = np.ones(n) if predictions.sample_weight is None else predictions.sample_weight
    res = {m: (resolution or {}).get(m) for m in names}
    binned = {m: predictions.scores[m] if res[m] is None else _bin_scores(predictions.scores[m].copy(), res[m]) for m in names}
    act = [(binned[m] >= thresholds[m]).astype(np.int64) for m in names]
    dec = pd.DataFrame(
        {
            "date": date,
            "stratum": predictions.segments[strata_column].astype(str) if strata_column else "",
            "group": predictions.groups.astype(str) if groups else "",
            "act_a": act[0],
            "act_b": act[1] if len(act) > 1 else 0,
            "label": label,
            "rows": 1,
            "weight": w,
        }
    )
    sc = pd.concat(
        [pd.DataFrame({"model": m, "date": date, "score": binned[m], "label": label, "rows": 1, "weight": w}) for m in names],
        ignore_index=True,
    )
    return TimeTables.from_frames(
        dec,
        sc,
        models=tuple(names),
        thresholds={m: float(thresholds[m]) for m in names},
        score_kinds=dict(predictions.score_kinds),
        resolution=res,
        strata_column=strata_column,
        groups=bool(groups),
        weighted=predictions.sample_weight is not None,
    )


# --------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class WindowValue:
    """One window's value.

    Attributes
    ----------
    start, end : pandas.Timestamp
        ``[start, end)``, midnights (UTC).
    n, n_pos : float
        Weighted rows, and weighted positives among rows whose labels have arrived.
    n_rows, n_labelled : int
        Rows, and rows whose labels have arrived.
    estimated : bool
        Some rows' labels have not arrived: EV from expected counts.
    ev, ev_low, ev_high : dict
        Model -> EV per decision and its interval.
    diff, diff_low, diff_high : float
        EV_B − EV_A and its interval (NaN with one model).
    alert : dict
        Model -> "red" | "yellow" | "green" | "grey" (the consecutive-window rule).
    below : dict
        Model -> whether the window's EV is under the alert line.
    undefined : dict
        Field -> why it is NaN.
    """

    start: pd.Timestamp
    end: pd.Timestamp
    n: float
    n_pos: float
    n_rows: int
    n_labelled: int
    estimated: bool
    ev: dict
    ev_low: dict
    ev_high: dict
    diff: float
    diff_low: float
    diff_high: float
    alert: dict
    below: dict
    undefined: dict

    def to_dict(self) -> dict:
        return {
            "start": self.start.date().isoformat(),
            "end": self.end.date().isoformat(),
            "n": json_float(self.n),
            "n_pos": json_float(self.n_pos),
            "n_rows": int(self.n_rows),
            "n_labelled": int(self.n_labelled),
            "estimated": bool(self.estimated),
            "models": {
                m: {"ev": json_float(self.ev[m]), "ev_ci": [json_float(self.ev_low[m]), json_float(self.ev_high[m])]}
                for m in self.ev
            },
            "diff": json_float(self.diff),
            "diff_ci": [json_float(self.diff_low), json_float(self.diff_high)],
            "alert": dict(self.alert),
            "below": {m: bool(v) for m, v in self.below.items()},
            "undefined": dict(self.undefined),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ValueOverTime:
    """Value per window for each model (see the module docstring).

    Attributes
    ----------
    window : {"day", "week"}
    models : tuple of str
    thresholds : dict
    windows : tuple of WindowValue
        Oldest first.
    alert_line : dict
        Model -> {"line", "mean", "std", "n_reference", "reference", "reason"}.
    quality : dict or None
        The estimate's check on recent labelled windows (None when nothing is estimated).
    scheme, method, level, n_resamples, seed
        The bootstrap of the bands.
    notes : tuple of str
    """

    window: str
    models: tuple
    thresholds: dict
    windows: tuple
    alert_line: dict
    quality: dict | None
    scheme: str
    method: str
    level: float
    n_resamples: int
    seed: int
    notes: tuple = ()

    def to_dict(self) -> list:
        """The CLI's ``value_over_time``: the list of windows."""
        return [w.to_dict() for w in self.windows]

    def info(self) -> dict:
        """The CLI's ``value_over_time_info``: how the windows were computed."""
        return {
            "window": self.window,
            "models": list(self.models),
            "thresholds": {m: json_float(t) for m, t in self.thresholds.items()},
            "alert_line": {
                m: {k: (json_float(v) if isinstance(v, float) else v) for k, v in d.items()} for m, d in self.alert_line.items()
            },
            "quality": self.quality,
            "bootstrap": {
                "scheme": self.scheme,
                "method": self.method,
                "level": self.level,
                "n_resamples": self.n_resamples,
                "seed": self.seed,
            },
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------------------
# the computation
# --------------------------------------------------------------------------------------


def value_over_time(
    predictions, table, config=None, *, window: str = "week", label_known=None, calibration_light: str | None = None
) -> ValueOverTime:
    """Value over time of validated rows (thresholds as the board's).

    Parameters
    ----------
    predictions : evalcore.data.Predictions
    table : ValueTable
    config : BoardConfig, default=None
        Thresholds, bootstrap (n_resamples, method, level, seed, scheme, strata column) and
        drift settings (reference window, consecutive_red).
    window : {"day", "week"}, default="week"
    label_known : array-like of bool, default=None
        Rows whose labels have arrived; None: all.
    calibration_light : str, default=None
        The board's calibration drift light (the quality check cites a red one).
    """
    from .results import BoardConfig, default_threshold

    config = config or BoardConfig()
    t = {m: float(config.thresholds.get(m, default_threshold(predictions, m))) for m in predictions.scores}
    tables = time_tables(
        predictions,
        thresholds=t,
        label_known=label_known,
        strata_column=config.strata_column if config.scheme == "stratified" else None,
        groups=config.scheme == "cluster",
    )
    return value_over_time_of(tables, table, config, window=window, calibration_light=calibration_light)


def _window_origin(dates: np.ndarray, drift: DriftConfig) -> np.datetime64:
    first = dates.min()
    if drift.reference_start is None:
        return first
    return np.datetime64(pd.Timestamp(drift.reference_start).normalize().to_datetime64(), "us")


def _check(tables: TimeTables, table, config, window: str) -> None:
    p = ProblemList()
    if window not in WINDOWS:
        p.add("window_invalid", f"window must be one of {list(WINDOWS)}; got {window!r}.", "Use day or week.", column="window")
    if len(tables.models) not in (1, 2):
        p.add("models_invalid", f"one or two models; got {len(tables.models)}.", "Pass one or two score columns.")
    if config.scheme == "stratified" and tables.strata_column != config.strata_column:
        p.add(
            "strata_mismatch",
            f"the tables were not built by {config.strata_column!r} (they have {tables.strata_column!r}).",
            "Build them with the board's strata column.",
        )
    if config.scheme == "cluster" and not tables.groups:
        p.add("groups_missing", "cluster bands need the tables built with group ids.", "Build them with groups=True.")
    if len(tables.decisions) == 0:
        p.add("no_rows", "value over time: no rows.", "Pass rows with a time.")
    p.raise_if_any()


def value_over_time_of(tables: TimeTables, table, config=None, *, window: str = "week", calibration_light=None) -> ValueOverTime:
    """Value over time from :class:`TimeTables` (rows or an engine): see the module docstring.

    Returns
    -------
    ValueOverTime

    Raises
    ------
    InputError
        Unknown window, tables that do not serve the scheme, no rows.
    """
    from .results import BoardConfig

    config = config or BoardConfig()
    _check(tables, table, config, window)
    drift = DriftConfig.from_dict(config.drift) if config.drift else DriftConfig()
    L = WINDOWS[window]
    dec, sc = tables.decisions, tables.scores
    ddays = dec["date"].to_numpy().astype("datetime64[D]")
    origin = _window_origin(ddays, drift).astype("datetime64[D]")
    wi = np.floor_divide((ddays - origin) // _DAY, L).astype(np.int64)
    k0, k1 = int(wi.min()), int(wi.max())
    ks = np.arange(k0, k1 + 1)
    sdays = sc["date"].to_numpy().astype("datetime64[D]")
    swi = np.floor_divide((sdays - origin) // _DAY, L).astype(np.int64)
    ref_s = (
        origin if drift.reference_start is None else np.datetime64(pd.Timestamp(drift.reference_start).normalize().date(), "D")
    )
    ref_e = ref_s + np.timedelta64(drift.reference_days, "D")
    models = tables.models
    two = len(models) == 2
    lab = dec["label"].to_numpy()
    known_rows = lab != UNKNOWN
    notes = []
    has_unknown = bool((~known_rows).any())
    est = None
    if has_unknown:
        est = _Estimator(tables, table, config, sdays, swi)
        notes += est.notes
        if config.method != "percentile":
            notes.append(f"estimated windows' intervals are percentile intervals (the board's method is {config.method})")
        if config.scheme != "rows":
            notes.append(
                f"estimated windows draw rows, not the board's {config.scheme} scheme (the score table holds no strata or groups)"
            )
    out = []
    for i, k in enumerate(ks):
        m_w = wi == k
        start = pd.Timestamp(origin + np.timedelta64(int(k) * L, "D"))
        end = start + pd.Timedelta(days=L)
        part = dec[m_w]
        w = part["weight"].to_numpy()
        lb = part["label"].to_numpy()
        kn = lb != UNKNOWN
        n, n_rows = float(w.sum()), int(part["rows"].sum())
        n_lab = int(part["rows"].to_numpy()[kn].sum())
        n_pos = float(w[lb == 1].sum()) if n_lab else float("nan")
        undefined = {}
        if n_rows == 0:
            undefined["ev"] = "no rows in this window"
        rng = np.random.default_rng(np.random.SeedSequence([int(config.seed), 7, i]))
        estimated = n_rows > 0 and n_lab < n_rows
        if n_lab == 0 and n_rows > 0:
            undefined["n_pos"] = "no labels have arrived for this window"
        ev, lo, hi = {}, {}, {}
        diff = dlo = dhi = float("nan")
        if n_rows == 0:
            ev = {m: float("nan") for m in models}
            lo, hi = dict(ev), dict(ev)
            if two:
                undefined["diff"] = undefined["ev"]
        elif estimated:
            r = est.window(k == swi, rng)
            for m in models:
                ev[m], lo[m], hi[m] = r[m]
            if two:
                diff, dlo, dhi = r["diff"]
            for key, why in r["undefined"].items():
                undefined[key] = why
        else:
            ev, lo, hi, diff, dlo, dhi, und = _realised(part, models, tables.thresholds, table, config, rng, two)
            undefined.update(und)
        out.append(
            dict(
                start=start,
                end=end,
                n=n,
                n_pos=n_pos,
                n_rows=n_rows,
                n_labelled=n_lab,
                estimated=bool(estimated),
                ev=ev,
                ev_low=lo,
                ev_high=hi,
                diff=diff,
                diff_low=dlo,
                diff_high=dhi,
                undefined=undefined,
                in_ref=bool(np.datetime64(start.date(), "D") >= ref_s and np.datetime64(end.date(), "D") <= ref_e),
            )
        )
    lines = {}
    for m in models:
        ref = [o["ev"][m] for o in out if o["in_ref"] and not o["estimated"] and math.isfinite(o["ev"][m])]
        reason = ""
        if len(ref) < 2:
            line = mean = sd = float("nan")
            reason = (
                f"{len(ref)} reference window(s) with a value between {ref_s} and {ref_e - np.timedelta64(1, 'D')}; "
                "the alert line needs at least 2: use daily windows or a longer drift reference window"
            )
        else:
            mean, sd = float(np.mean(ref)), float(np.std(ref, ddof=1))
            line = mean - 2.0 * sd
        lines[m] = {
            "line": line,
            "mean": mean,
            "std": sd,
            "n_reference": len(ref),
            "reference": [str(ref_s), str(ref_e)],
            "reason": reason,
        }
        levels = []
        for o in out:
            x = o["ev"][m]
            below = math.isfinite(line) and math.isfinite(x) and x < line
            levels.append(-1 if not (math.isfinite(line) and math.isfinite(x)) else (2 if below else 0))
            o.setdefault("below", {})[m] = below
            o.setdefault("alert", {})[m] = consecutive_rule(levels, drift.consecutive_red)
    windows = tuple(WindowValue(**{k: v for k, v in o.items() if k != "in_ref"}) for o in out)
    quality = None
    if has_unknown:
        starts = {int(k): str(origin + np.timedelta64(int(k) * L, "D")) for k in ks}
        quality = est.quality(ks, wi, dec, calibration_light, config, starts)
    return ValueOverTime(
        window=window,
        models=tuple(models),
        thresholds=dict(tables.thresholds),
        windows=windows,
        alert_line=lines,
        quality=quality,
        scheme=config.scheme,
        method=config.method,
        level=float(config.level),
        n_resamples=int(config.n_resamples),
        seed=int(config.seed),
        notes=tuple(notes),
    )


def _realised(part, models, thresholds, table, config, rng, two):
    """EV per model (and B − A) of one fully labelled window, with the board's bootstrap."""
    nan = float("nan")
    a1 = part["act_a"].to_numpy()
    lb = part["label"].to_numpy()
    if two:
        key = 4 * (1 - a1) + 2 * (1 - part["act_b"].to_numpy()) + (1 - lb)
        n_keys = 8
    else:
        key = 2 * (1 - a1) + (1 - lb)
        n_keys = 4
    key = key.astype(np.int64)
    w = part["weight"].to_numpy().astype(float)
    keep = w > 0
    undefined = {}
    if config.scheme == "cluster":
        design = _cluster_design(part["group"].to_numpy()[keep], key[keep], w[keep], n_keys)
    else:
        if config.scheme == "stratified":
            st = pd.factorize(part["stratum"].to_numpy()[keep], sort=True)[0].astype(np.int64)
        else:
            st = np.zeros(int(keep.sum()), np.int64)
        design = _rows_design(
            key[keep],
            st,
            part["rows"].to_numpy()[keep],
            w[keep],
            n_keys,
            "stratified" if config.scheme == "stratified" else "rows",
        )
    if config.n_resamples == 0:
        full = design.full
        if two:
            from .bootstrap import _A_CELLS, _B_CELLS

            a = float(_ev_from_cells(*[full[i].sum() for i in _A_CELLS], table.vector(), table.prevalence))
            b = float(_ev_from_cells(*[full[i].sum() for i in _B_CELLS], table.vector(), table.prevalence))
            ev = {models[0]: a, models[1]: b}
            return (
                ev,
                {m: nan for m in models},
                {m: nan for m in models},
                b - a,
                nan,
                nan,
                {"ev_ci": "no bootstrap (0 resamples)"},
            )
        a = float(_ev_from_cells(full[0], full[1], full[2], full[3], table.vector(), table.prevalence))
        return {models[0]: a}, {models[0]: nan}, {models[0]: nan}, nan, nan, nan, {"ev_ci": "no bootstrap (0 resamples)"}
    if two:
        c = paired_comparison(
            design,
            table,
            rng=rng,
            n_resamples=config.n_resamples,
            level=config.level,
            method=config.method,
            names=tuple(models),
            thresholds=(thresholds[models[0]], thresholds[models[1]]),
        )
        res = {models[0]: c.ev_a, models[1]: c.ev_b}
        d = c.diff
        for k, r in (("diff", d), *((f"ev.{m}", r) for m, r in res.items())):
            if r.undefined:
                undefined[k] = "; ".join(r.undefined.values())
        return (
            {m: r.estimate for m, r in res.items()},
            {m: r.low for m, r in res.items()},
            {m: r.high for m, r in res.items()},
            d.estimate,
            d.low,
            d.high,
            undefined,
        )
    r = _ev_boot(design, table, config, rng)
    if r.undefined:
        undefined[f"ev.{models[0]}"] = "; ".join(r.undefined.values())
    return {models[0]: r.estimate}, {models[0]: r.low}, {models[0]: r.high}, nan, nan, nan, undefined


# --------------------------------------------------------------------------------------
# estimates for windows whose labels have not arrived
# --------------------------------------------------------------------------------------


def _map_method(kind: str) -> tuple[str, str]:
    if kind == "decision":
        return "isotonic", "probability"
    return "platt", "probability" if kind == "probability" else "score"


class _Estimator:
    """Recalibration maps fitted on labelled rows (and refitted on days resampled), applied
    to the rows of a window without labels."""

    def __init__(self, tables: TimeTables, table, config, sdays, swi):
        self.tables, self.table, self.config = tables, table, config
        self.v, self.prev = table.vector(), table.prevalence
        sc = tables.scores
        self.sc = sc
        self.sdays, self.swi = sdays, swi
        self.lab = sc["label"].to_numpy()
        self.models = tables.models
        self.notes = []
        self._cache = {}
        self._pooled = {}
        self.B = max(int(config.n_resamples), 0)
        lab_days = np.unique(sdays[self.lab != UNKNOWN])
        self.lab_days = lab_days
        if len(lab_days) < 2:
            self.notes.append(
                f"labels have arrived for {len(lab_days)} day(s): the recalibration map's uncertainty cannot be resampled"
            )

    def _cells(self, m):
        """Model m's labelled rows pooled once into (day, score bin, label) cells: every fit
        weights days and pools the bins again, without touching the rows. Up to
        ``_FIT_CELLS`` distinct scores the bins are the scores themselves (exact); above, the
        Platt fits see equal-width bins of the range, each at its weighted mean score — the
        same likelihood up to the spread within a bin."""
        if m in self._pooled:
            return self._pooled[m]
        sc = self.sc
        sel = (sc["model"].to_numpy() == m) & (self.lab != UNKNOWN)
        s = sc["score"].to_numpy()[sel]
        y = self.lab[sel].astype(np.int64)
        w = sc["weight"].to_numpy()[sel].astype(float)
        keep = w > 0
        s, y, w, d = s[keep], y[keep], w[keep], self.sdays[sel][keep]
        method, kind = _map_method(self.tables.score_kinds[m])
        if kind == "probability":
            s = np.clip(s, 0.0, 1.0)
        distinct = np.unique(s)
        if len(distinct) <= _FIT_CELLS:
            b, nb, reps = np.searchsorted(distinct, s), max(len(distinct), 1), distinct
        else:
            lo, hi = float(s.min()), float(s.max())
            nb, reps = _FIT_CELLS, None
            b = np.minimum(((s - lo) / ((hi - lo) or 1.0) * nb).astype(np.int64), nb - 1)
        di = np.searchsorted(self.lab_days, d)
        u, inv = np.unique((di * nb + b) * 2 + y, return_inverse=True)
        out = {
            "day": u // (2 * nb),
            "bin": (u // 2) % nb,
            "y": u % 2,
            "W": np.bincount(inv, weights=w, minlength=len(u)),
            "WS": np.bincount(inv, weights=w * s, minlength=len(u)),
            "nb": nb,
            "reps": reps,
            "method": method,
            "kind": kind,
        }
        self._pooled[m] = out
        return out

    def _fit(self, m, day_mult=None, start=None):
        """The map of model m on its labelled rows, each day counted ``day_mult`` times
        (None: once; 0 leaves a day out)."""
        c = self._cells(m)
        W, WS = c["W"], c["WS"]
        if day_mult is not None:
            k = day_mult[c["day"]]
            W, WS = W * k, WS * k
        code = c["bin"] * 2 + c["y"]
        nb = c["nb"]
        Wp = np.bincount(code, weights=W, minlength=2 * nb)
        nz = np.flatnonzero(Wp > 0)
        if len(nz) == 0:
            return None
        y = (nz % 2).astype(np.int64)
        if y.min() == y.max():
            return None
        if c["reps"] is not None:
            s = c["reps"][nz // 2]
        else:
            s = np.bincount(code, weights=WS, minlength=2 * nb)[nz] / Wp[nz]
        w = Wp[nz]
        method, kind = c["method"], c["kind"]
        if start is not None and method == "platt":
            return _platt_newton(y, s, w, kind, start) or _fit_map(y, s, w, method, kind)
        return _fit_map(y, s, w, method, kind)

    def _maps(self, m, exclude, rng):
        """The point map and the replicate maps (days resampled with replacement); fitted once
        per model on all labelled rows, from their own stream ``SeedSequence([seed, 9, j])``)."""
        if exclude is None and m in self._cache:
            return self._cache[m]
        if exclude is None:
            rng = np.random.default_rng(np.random.SeedSequence([int(self.config.seed), 9, self.models.index(m)]))
        out = self._fit_maps(m, exclude, rng)
        if exclude is None:
            self._cache[m] = out
        return out

    def _fit_maps(self, m, exclude, rng):
        """``exclude``: rows of the score table whose days are left out (a window being checked)."""
        nd = len(self.lab_days)
        base = np.ones(nd)
        if exclude is not None:
            base[np.isin(self.lab_days, np.unique(self.sdays[exclude]))] = 0.0
        point = self._fit(m, None if exclude is None else base)
        if point is None:
            return None, []
        days = np.flatnonzero(base > 0)
        n_maps = min(self.B, _MAX_MAPS)
        maps = []
        if len(days) >= 2:
            for _ in range(n_maps):
                mult = np.zeros(nd)
                mult[days] = np.bincount(rng.integers(0, len(days), len(days)), minlength=len(days))
                mp = self._fit(m, mult, start=point)
                if mp is not None:
                    maps.append(mp)
        if not maps:
            maps = [point]
        return point, maps

    def _draws(self, m, sel_window, point, maps, rng, treat_all_unknown=False):
        """Point EV and B replicate EVs of model m on the window's score cells."""
        sc = self.sc
        sel = sel_window & (sc["model"].to_numpy() == m)
        s = sc["score"].to_numpy()[sel]
        lab = self.lab[sel]
        if treat_all_unknown:
            lab = np.full(len(lab), UNKNOWN)
        rows = sc["rows"].to_numpy()[sel].astype(np.int64)
        w = sc["weight"].to_numpy()[sel].astype(float)
        mean_w = np.where(rows > 0, w / np.maximum(rows, 1), 0.0)
        act = s >= self.tables.thresholds[m]
        unk = lab == UNKNOWN
        kind = self.tables.score_kinds[m]
        s_in = np.clip(s, 0.0, 1.0) if _map_method(kind)[1] == "probability" else s

        p0 = np.where(unk, point._apply(s_in), lab == 1)
        pos_w, neg_w = w * p0, w * (1 - p0)
        tp, fp, fn, tn = (np.sum(x) for x in ((pos_w * act), (neg_w * act), (pos_w * ~act), (neg_w * ~act)))
        est = float(_ev_from_cells(tp, fp, fn, tn, self.v, self.prev))
        if self.B == 0 or rows.sum() == 0:
            return est, np.zeros(0)
        if len(s_in) > _FIT_CELLS:
            # the replicates pool the window's cells into score bins within (decision, label state),
            # each at its rows' mean score: the point estimate above stays exact
            lo, hi = float(s_in.min()), float(s_in.max())
            b = np.minimum(((s_in - lo) / ((hi - lo) or 1.0) * _FIT_CELLS).astype(np.int64), _FIT_CELLS - 1)
            code = (act.astype(np.int64) * 3 + (lab + 1)) * _FIT_CELLS + b
            u, inv = np.unique(code, return_inverse=True)
            r_sum = np.bincount(inv, weights=rows, minlength=len(u))
            s_in = np.bincount(inv, weights=rows * s_in, minlength=len(u)) / r_sum
            w_sum = np.bincount(inv, weights=w, minlength=len(u))
            rows = np.rint(r_sum).astype(np.int64)
            mean_w = w_sum / r_sum
            act = (u // _FIT_CELLS) // 3 == 1
            lab = (u // _FIT_CELLS) % 3 - 1
            unk = lab == UNKNOWN
        n_rows = int(rows.sum())
        B = self.B
        P = np.stack([mp._apply(s_in) for mp in maps])  # (maps, cells)
        out = np.empty(B)
        batch = max(1, _DRAW_BATCH // max(len(s_in), 1))
        for a in range(0, B, batch):
            idx = np.arange(a, min(B, a + batch))
            # rows of the window redrawn (multinomial over its cells); labelled rows keep their
            # label, the others are Binomial(rows, p̂) under replicate idx's map
            R = rng.multinomial(n_rows, rows / n_rows, size=len(idx))
            Pb = np.clip(P[idx % len(maps)], 0.0, 1.0)
            K = np.where(unk[None, :], rng.binomial(R, Pb), np.where(lab[None, :] == 1, R, 0))
            pos_w = K * mean_w[None, :]
            neg_w = (R - K) * mean_w[None, :]
            out[idx] = _ev_from_cells(
                (pos_w * act).sum(1), (neg_w * act).sum(1), (pos_w * ~act).sum(1), (neg_w * ~act).sum(1), self.v, self.prev
            )
        return est, out

    def window(self, sel_window, rng, *, exclude=None, treat_all_unknown=False) -> dict:
        """Estimate of one window: model -> (ev, low, high), "diff", "undefined"."""
        nan = float("nan")
        out, reps, undefined = {}, {}, {}
        for m in self.models:
            point, maps = self._maps(m, exclude, rng)
            if point is None:
                out[m] = (nan, nan, nan)
                undefined[f"ev.{m}"] = "no labelled rows with both classes to fit the recalibration map on"
                reps[m] = None
                continue
            est, dist = self._draws(m, sel_window, point, maps, rng, treat_all_unknown)
            if len(dist) >= 2:
                r = _summarise(
                    dist, est, level=self.config.level, method="percentile", scheme="rows", n_resamples=self.B, what="EV"
                )
                out[m] = (est, r.low, r.high)
                if r.undefined:
                    undefined[f"ev.{m}"] = "; ".join(r.undefined.values())
            else:
                out[m] = (est, nan, nan)
                undefined[f"ev_ci.{m}"] = "no bootstrap (0 resamples)"
            reps[m] = (est, dist)
        if len(self.models) == 2:
            a, b = self.models
            if reps[a] is None or reps[b] is None:
                out["diff"] = (nan, nan, nan)
                undefined["diff"] = "an estimate is undefined"
            else:
                d_est = reps[b][0] - reps[a][0]
                if len(reps[a][1]) >= 2:
                    r = _summarise(
                        reps[b][1] - reps[a][1],
                        d_est,
                        level=self.config.level,
                        method="percentile",
                        scheme="rows",
                        n_resamples=self.B,
                        what="EV difference",
                    )
                    out["diff"] = (d_est, r.low, r.high)
                else:
                    out["diff"] = (d_est, nan, nan)
        out["undefined"] = undefined
        return out

    def quality(self, ks, wi, dec, calibration_light, config, starts) -> dict:
        """Re-estimate the most recent fully labelled windows with maps fitted without them."""
        lab = dec["label"].to_numpy()
        full = [int(k) for k in ks if (wi == k).any() and (lab[wi == k] != UNKNOWN).all()]
        recent = full[-_QUALITY_WINDOWS:]
        checks = []
        for j, k in enumerate(recent):
            rng = np.random.default_rng(np.random.SeedSequence([int(config.seed), 8, j]))
            sel = self.swi == k
            r = self.window(sel, rng, exclude=sel, treat_all_unknown=True)
            part = dec[wi == k]
            real = _realised_point(part, self.models, self.table)
            for m in self.models:
                e, lo, hi = r[m]
                inside = bool(math.isfinite(lo) and math.isfinite(hi) and lo <= real[m] <= hi)
                checks.append(
                    {
                        "window": starts[int(k)],
                        "model": m,
                        "estimated": json_float(e),
                        "ci": [json_float(lo), json_float(hi)],
                        "realised": json_float(real[m]),
                        "inside": inside,
                    }
                )
        reasons = []
        outside = [c for c in checks if not c["inside"]]
        p_chance = float("nan")
        if checks:
            from scipy import stats

            # how often estimates as good as their stated level miss at least this often
            p_chance = float(stats.binom.sf(len(outside) - 1, len(checks), 1.0 - float(config.level)))
        if outside:
            reasons.append(
                f"{len(outside)} of {len(checks)} realised values of recent labelled windows fall outside their "
                f"estimate's interval (estimates that hold their {config.level:.0%} level miss at least this often "
                f"with probability {p_chance:.2g})"
            )
        if calibration_light == "red":
            reasons.append("the calibration drift light is red")
        if not checks:
            reasons.append("no fully labelled window to check the estimate against")
        return {"checks": checks, "trusted": not reasons, "reasons": reasons, "p_misses_by_chance": json_float(p_chance)}


def _platt_newton(y, s, w, kind, start, *, tol=1e-10, max_iter=50):
    """Platt's fit (:func:`evalcore.calibration.fit_calibration_map`: logistic regression on
    ``logit(p)`` or the raw score, Platt's smoothed targets) by Newton's method from ``start``
    (the map fitted on all labelled rows): the replicate refits take a few numpy steps instead
    of a solver call each. None when it does not converge (the caller then uses the solver)."""
    from scipy import special

    from .calibration import CalibrationMap, _logit

    x = _logit(s) if kind == "probability" else s
    pos = y == 1
    n_pos, n_neg = float(w[pos].sum()), float(w[~pos].sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    if np.ptp(x) == 0 or not (np.isfinite(start.slope) and np.isfinite(start.intercept)):
        return None
    mean = float(np.average(x, weights=w))
    sd = float(np.sqrt(np.average((x - mean) ** 2, weights=w)))
    z = (x - mean) / sd
    b = start.slope * sd  # the start in standardised coordinates
    a = start.intercept + start.slope * mean
    for _ in range(max_iter):
        q = special.expit(a + b * z)
        r = w * (q - t)
        h = w * q * (1 - q)
        g0, g1 = r.sum(), (r * z).sum()
        h00, h01, h11 = h.sum(), (h * z).sum(), (h * z * z).sum()
        det = h00 * h11 - h01 * h01
        if not (det > 0):
            return None
        da, db = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        a, b = a - da, b - db
        if max(abs(da), abs(db)) < tol:
            slope = b / sd
            return CalibrationMap(
                method="platt",
                score_kind=kind,
                slope=float(slope),
                intercept=float(a - slope * mean),
                score_min=float(s.min()),
                score_max=float(s.max()),
                n=float(w.sum()),
            )
    return None


def _realised_point(part, models, table) -> dict:
    v, prev = table.vector(), table.prevalence
    w = part["weight"].to_numpy()
    lb = part["label"].to_numpy()
    out = {}
    for j, m in enumerate(models):
        act = part["act_a" if j == 0 else "act_b"].to_numpy() == 1
        pos = lb == 1
        out[m] = float(
            _ev_from_cells(w[act & pos].sum(), w[act & ~pos].sum(), w[~act & pos].sum(), w[~act & ~pos].sum(), v, prev)
        )
    return out
