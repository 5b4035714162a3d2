"""The value table and the exact threshold–value curve (SPEC §2.2, §3.2, §3.3).

Sign convention, everywhere: value = money gained per event; a cost is negative.
Expected *loss* is only ever the negative of expected value.

The curve is priced from :class:`~evalcore.counts.ScoreCounts`, so changing the table
re-prices in O(#distinct scores) without touching the rows (:func:`price_curve`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import check_binary_scores
from ._errors import InputError, ProblemList
from .counts import Confusion, ScoreCounts, _score_counts, metrics_from_cells

__all__ = [
    "CELLS",
    "ValueTable",
    "ValueCurve",
    "SegmentCurves",
    "value_curve",
    "price_curve",
    "segment_curves",
    "bayes_threshold",
    "auc_from_counts",
]

CELLS = ("tp", "fp", "fn", "tn")
SCORE_KINDS = ("probability", "score", "decision")
# the sign a plausible amount has; the editor warns (never blocks) when it is the other one
_EXPECTED_SIGN = {"tp": +1, "fp": -1, "fn": -1, "tn": +1}
_CELL_WORDS = {
    "tp": "TP (acted, case positive)",
    "fp": "FP (acted, case negative)",
    "fn": "FN (did not act, case positive)",
    "tn": "TN (did not act, case negative)",
}


def _nan_none(x):
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ValueTable:
    """Money gained per event for each outcome of a binary decision (gains positive).

    Parameters
    ----------
    tp, fp, fn, tn : float
        Amount per event. A cost is negative (SPEC §2.2).
    confidence : dict, default=None
        Per-cell multiplier in (0, 1] for how well the amount is known (default 1).
        The effective amount is ``amount * confidence``.
    prevalence : float, default=None
        Production positive rate π in (0, 1). When given, positives are reweighted by
        π/p̂ and negatives by (1−π)/(1−p̂), p̂ being the validation positive rate.
    unit : str, default=""
        Currency or unit of the amounts, e.g. "EUR".
    descriptions, sources : dict, default=None
        Free text per cell (what the amount means, where it comes from).
    name : str, default=""
        The decision this table prices, e.g. "loan anti-fraud".

    Raises
    ------
    InputError
        Non-finite amounts, confidence outside (0, 1], prevalence outside (0, 1) — all at once.

    Examples
    --------
    >>> t = ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120, confidence={"fp": 0.5})
    >>> t.effective()
    {'tp': 18500.0, 'fp': -1600.0, 'fn': -22000.0, 'tn': 120.0}
    """

    tp: float
    fp: float
    fn: float
    tn: float
    confidence: dict = field(default_factory=dict)
    prevalence: float | None = None
    unit: str = ""
    descriptions: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    name: str = ""

    def __post_init__(self):
        problems = ProblemList()
        for cell in CELLS:
            v = getattr(self, cell)
            try:
                fv = float(v)
            except (TypeError, ValueError):
                problems.add("amount_not_numeric", f"Amount of {_CELL_WORDS[cell]} must be a number; got {v!r}.",
                             "Enter the money gained per event (a cost is negative).", column=cell)
                continue
            if not np.isfinite(fv):
                problems.add("amount_not_finite", f"Amount of {_CELL_WORDS[cell]} must be finite; got {v!r}.",
                             "Enter the money gained per event (a cost is negative).", column=cell)
            object.__setattr__(self, cell, fv)
        conf = dict(self.confidence or {})
        unknown = set(conf) - set(CELLS)
        if unknown:
            problems.add("confidence_unknown_cell", f"confidence has unknown cells {sorted(unknown)}; expected tp, fp, fn, tn.",
                         "Use the cell names tp, fp, fn, tn.", column="confidence")
        for cell in CELLS:
            c = conf.get(cell, 1.0)
            try:
                c = float(1.0 if c is None else c)
            except (TypeError, ValueError):
                c = float("nan")
            if not (np.isfinite(c) and 0.0 < c <= 1.0):
                problems.add("confidence_out_of_range", f"Confidence of {_CELL_WORDS[cell]} must be in (0, 1]; got {conf.get(cell)!r}.",
                             "Use 1 when the amount is known exactly, less when it is a rough estimate.", column=f"confidence.{cell}")
            conf[cell] = c
        object.__setattr__(self, "confidence", {k: conf[k] for k in CELLS})
        if self.prevalence is not None:
            try:
                p = float(self.prevalence)
            except (TypeError, ValueError):
                p = float("nan")
            if not (np.isfinite(p) and 0.0 < p < 1.0):
                problems.add("prevalence_out_of_range", f"Production prevalence must be in (0, 1) or empty; got {self.prevalence!r}.",
                             "Enter the share of positive cases in production, e.g. 0.02, or leave it empty.", column="prevalence")
            else:
                object.__setattr__(self, "prevalence", p)
        object.__setattr__(self, "descriptions", dict(self.descriptions or {}))
        object.__setattr__(self, "sources", dict(self.sources or {}))
        problems.raise_if_any()

    def effective(self) -> dict:
        """Effective amounts ``amount × confidence`` per cell."""
        return {c: float(getattr(self, c)) * self.confidence[c] for c in CELLS}

    def vector(self) -> np.ndarray:
        """Effective amounts as an array in the order tp, fp, fn, tn."""
        e = self.effective()
        return np.array([e[c] for c in CELLS])

    def sign_warnings(self) -> list[str]:
        """Plain-language warnings for amounts whose sign looks inverted (never an error)."""
        out = []
        for cell in CELLS:
            v = getattr(self, cell)
            if v != 0 and np.sign(v) != _EXPECTED_SIGN[cell]:
                usual = "a gain (positive)" if _EXPECTED_SIGN[cell] > 0 else "a cost (negative)"
                out.append(f"{_CELL_WORDS[cell]} is {v:+,.2f}: this is usually {usual}. "
                           "Values are money gained per event; enter costs as negative numbers.")
        if self.tp - self.fn <= 0:
            out.append("Acting on a positive case is worth no more than not acting (TP ≤ FN): "
                       "the best policy can only be to act on no one.")
        if self.tn - self.fp <= 0:
            out.append("Acting on a negative case costs nothing compared to not acting (FP ≥ TN): "
                       "the best policy can only be to act on everyone.")
        return out

    def with_amounts(self, **amounts) -> "ValueTable":
        """A copy with some amounts (tp/fp/fn/tn) or other fields replaced."""
        d = {c: getattr(self, c) for c in CELLS}
        d.update(confidence=dict(self.confidence), prevalence=self.prevalence, unit=self.unit,
                 descriptions=dict(self.descriptions), sources=dict(self.sources), name=self.name)
        d.update(amounts)
        return ValueTable(**d)

    def weights(self, base_rate: float) -> tuple[float, float]:
        """Reweighting (positives, negatives) to production prevalence; (1, 1) without it."""
        if self.prevalence is None or not (0.0 < base_rate < 1.0):
            return 1.0, 1.0
        return self.prevalence / base_rate, (1.0 - self.prevalence) / (1.0 - base_rate)

    def to_dict(self) -> dict:
        return {
            **{c: float(getattr(self, c)) for c in CELLS},
            "confidence": dict(self.confidence),
            "effective": self.effective(),
            "prevalence": self.prevalence,
            "unit": self.unit,
            "descriptions": dict(self.descriptions),
            "sources": dict(self.sources),
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "ValueTable":
        keys = set(CELLS) | {"confidence", "prevalence", "unit", "descriptions", "sources", "name"}
        missing = [c for c in CELLS if c not in d]
        if missing:
            raise InputError(f"The value table is missing amounts for {', '.join(missing)}.")
        return cls(**{k: v for k, v in d.items() if k in keys})


def bayes_threshold(table: ValueTable, *, base_rate: float | None = None) -> tuple[float, str]:
    """Closed-form Bayes threshold t* for calibrated probabilities, and why if undefined.

    Act iff p·α·(v_TP − v_FN) ≥ (1 − p)·β·(v_TN − v_FP); without a production
    prevalence α = β = 1 and t* = (v_TN − v_FP) / ((v_TN − v_FP) + (v_TP − v_FN)).

    Examples
    --------
    >>> t, why = bayes_threshold(ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120))
    >>> round(t, 6)  # 3320 / (3320 + 40500)
    0.075764
    """
    v = table.effective()
    alpha, beta = table.weights(base_rate if base_rate is not None else float("nan"))
    dp = alpha * (v["tp"] - v["fn"])
    dn = beta * (v["tn"] - v["fp"])
    if dp <= 0 and dn <= 0:
        return float("nan"), "acting never pays and never costs more than waiting: every threshold is optimal"
    if dp <= 0:
        return float("nan"), "acting on a positive gains nothing over not acting (TP ≤ FN): act on no one"
    if dn <= 0:
        return float("nan"), "acting on a negative costs nothing over not acting (FP ≥ TN): act on everyone"
    return float(dn / (dn + dp)), ""


def auc_from_counts(counts: ScoreCounts) -> float:
    """ROC AUC from per-score counts; tied scores contribute a diagonal (as scikit-learn).

    NaN when either class is absent.
    """
    n_pos, n_neg = counts.n_pos, counts.n_neg
    if n_pos <= 0 or n_neg <= 0:
        return float("nan")
    tp = np.r_[0.0, np.cumsum(counts.pos)]
    fp = np.r_[0.0, np.cumsum(counts.neg)]
    return float(np.sum(np.diff(fp) * (tp[1:] + tp[:-1]) / 2.0) / (n_pos * n_neg))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ValueCurve:
    """Expected value per decision at every distinct score used as threshold.

    Attributes
    ----------
    thresholds : ndarray of shape (k + 1,)
        ``+inf`` ("act on no one") followed by the distinct scores, descending.
        Point i stands for every threshold t in ``(thresholds[i+1], thresholds[i]]``.
    ev : ndarray of shape (k + 1,)
        EV(t) = (v_TP·TP + v_FP·FP + v_FN·FN + v_TN·TN) / N with effective amounts and
        prevalence-reweighted counts.
    tp, fp, fn, tn : ndarray of shape (k + 1,)
        Reweighted counts at each point.
    t_opt : float
        Midpoint of ``t_opt_interval`` (the lowest score when acting on everyone is
        optimal; ``+inf`` when acting on no one is). NaN for hard decisions.
    t_opt_interval : (float, float)
        ``(low, high]``: every threshold in it reaches ``ev_opt``.
    t_opt_intervals : tuple of (float, float)
        All disjoint maximising ranges. When there are several, ``t_opt_interval`` is the
        one with the highest thresholds (it acts on the fewest cases) — the documented rule.
    ev_opt, ev_all, ev_none : float
        EV at the optimum, acting on everyone, acting on no one.
    flatness : (float, float)
        Widest threshold range containing t_opt on which EV ≥ ev_opt − flat_tol·|ev_opt|
        (bounded by the lowest and highest score).
    sharpness : float
        max |EV(t) − ev_opt| / |ev_opt| over t within ±``sharp_window`` of t_opt;
        NaN when ev_opt is 0.
    sharp_window : float
        0.02 for probabilities, 2% of the score range for raw scores.
    bayes_threshold : float
        Closed-form t* (probabilities only; NaN with a reason otherwise).
    n, n_pos : float
        Total and positive weight (validation, before reweighting).
    undefined : dict
        Field name → reason for each NaN field.
    """

    thresholds: np.ndarray
    ev: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    t_opt: float
    t_opt_interval: tuple
    t_opt_intervals: tuple
    ev_opt: float
    ev_all: float
    ev_none: float
    flatness: tuple
    flat_tol: float
    sharpness: float
    sharp_window: float
    bayes_threshold: float
    score_kind: str
    n: float
    n_pos: float
    n_rows: int
    weights: tuple
    table: ValueTable
    resolution: float | None = None
    undefined: dict = field(default_factory=dict)

    def ev_at(self, threshold: float) -> float:
        """EV when acting on rows with score >= threshold (exact, any threshold)."""
        return float(self.ev[self._index_for(threshold)])

    def _index_for(self, threshold: float) -> int:
        if threshold == np.inf:
            return 0
        # number of distinct scores >= threshold = index of the point for that threshold
        return int(np.searchsorted(-self.thresholds[1:], -threshold, side="right"))

    def confusion_at(self, threshold: float) -> Confusion:
        """Reweighted counts and metrics at a threshold."""
        i = self._index_for(threshold)
        return metrics_from_cells(self.tp[i], self.fp[i], self.fn[i], self.tn[i], threshold)

    def attribution_at(self, threshold: float) -> dict:
        """The four terms v_c·count_c/N at a threshold; they sum to EV exactly."""
        i = self._index_for(threshold)
        v = self.table.effective()
        counts = {"tp": self.tp[i], "fp": self.fp[i], "fn": self.fn[i], "tn": self.tn[i]}
        return {c: float(v[c] * counts[c] / self.n) if self.n > 0 else float("nan") for c in CELLS}

    def to_dict(self) -> dict:
        return {
            "t_opt": _nan_none(self.t_opt),
            "t_opt_interval": [_nan_none(x) for x in self.t_opt_interval],
            "t_opt_intervals": [[_nan_none(x) for x in iv] for iv in self.t_opt_intervals],
            "ev_opt": _nan_none(self.ev_opt),
            "ev_all": _nan_none(self.ev_all),
            "ev_none": _nan_none(self.ev_none),
            "flatness": [_nan_none(x) for x in self.flatness],
            "flat_tol": self.flat_tol,
            "sharpness": _nan_none(self.sharpness),
            "sharp_window": _nan_none(self.sharp_window),
            "bayes_threshold": _nan_none(self.bayes_threshold),
            "score_kind": self.score_kind,
            "n_thresholds": int(len(self.thresholds) - 1),
            "resolution": self.resolution,
            "undefined": dict(self.undefined),
        }


def value_curve(y_true, y_score, table: ValueTable, *, sample_weight=None, resolution=None,
                score_kind: str = "probability", flat_tol: float = 0.01) -> ValueCurve:
    """The exact threshold–value curve over every distinct score.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    y_score : array-like of shape (n,)
        Scores; act iff ``score >= t``.
    table : ValueTable
    sample_weight : array-like of shape (n,), default=None
    resolution : float, default=None
        Optional score binning (stated in the result); None is exact.
    score_kind : {"probability", "score", "decision"}, default="probability"
        "score" sets the sharpness window to 2% of the score range and leaves t* undefined;
        "decision" (hard 0/1) gives a single operating point: the optimum fields are NaN.
    flat_tol : float, default=0.01
        Relative tolerance of the flatness band.

    Returns
    -------
    ValueCurve

    Examples
    --------
    >>> t = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
    >>> c = value_curve([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1], t)
    >>> c.thresholds.tolist()
    [inf, 0.9, 0.6, 0.4, 0.1]
    >>> c.ev.tolist()  # (10·TP − 2·FP − 10·FN) / 4
    [-5.0, 0.0, -0.5, 4.5, 4.0]
    >>> c.t_opt_interval, c.t_opt
    ((0.1, 0.4), 0.25)
    """
    y, s, w = check_binary_scores(y_true, y_score, sample_weight)
    if len(y) == 0:
        raise InputError("value_curve needs at least one row; got 0.")
    if score_kind not in SCORE_KINDS:
        raise InputError(f"score_kind must be one of {SCORE_KINDS}; got {score_kind!r}.")
    return price_curve(_score_counts(y, s, w, resolution), table, score_kind=score_kind, flat_tol=flat_tol)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index runs where mask is True."""
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.r_[idx[0], idx[breaks + 1]]
    ends = np.r_[idx[breaks], idx[-1]]
    return list(zip(starts.tolist(), ends.tolist()))


def price_curve(counts: ScoreCounts, table: ValueTable, *, score_kind: str = "probability",
                flat_tol: float = 0.01, base_rate: float | None = None) -> ValueCurve:
    """Price per-score counts with a value table: O(#distinct scores), no rows needed.

    ``base_rate`` is the validation positive rate used for prevalence reweighting; by
    default the counts' own (pass the overall rate when pricing one segment).
    """
    n_val, n_pos_val = counts.n, counts.n_pos
    if base_rate is None:
        base_rate = n_pos_val / n_val if n_val > 0 else float("nan")
    alpha, beta = table.weights(base_rate)
    pos = counts.pos * alpha
    neg = counts.neg * beta
    tp = np.r_[0.0, np.cumsum(pos)]
    fp = np.r_[0.0, np.cumsum(neg)]
    n_pos, n_neg = tp[-1], fp[-1]
    fn = n_pos - tp
    tn = n_neg - fp
    thresholds = np.r_[np.inf, counts.scores]
    v = table.effective()
    n = n_pos + n_neg
    undefined: dict[str, str] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        ev = (v["tp"] * tp + v["fp"] * fp + v["fn"] * fn + v["tn"] * tn) / n if n > 0 else np.full(len(tp), np.nan)
    k = len(counts.scores)
    nan = float("nan")
    if score_kind == "probability":
        bt, why = bayes_threshold(table, base_rate=base_rate)
        if why:
            undefined["bayes_threshold"] = why
    else:
        bt = nan
        undefined["bayes_threshold"] = ("t* needs calibrated probabilities; these are raw scores"
                                        if score_kind == "score" else "t* needs probabilities; these are hard 0/1 decisions")
    lo_s = float(counts.scores[-1]) if k else nan
    hi_s = float(counts.scores[0]) if k else nan
    sharp_window = 0.02 if score_kind != "score" else 0.02 * (hi_s - lo_s)

    def bounds(i0: int, i1: int) -> tuple[float, float]:
        # points i0..i1 cover (thresholds[i1+1], thresholds[i0]]; -inf below the lowest score
        low = float(thresholds[i1 + 1]) if i1 + 1 <= k else -np.inf
        return low, float(thresholds[i0])

    base = dict(thresholds=thresholds, ev=ev, tp=tp, fp=fp, fn=fn, tn=tn, ev_all=float(ev[-1]), ev_none=float(ev[0]),
                flat_tol=flat_tol, sharp_window=sharp_window, bayes_threshold=bt, score_kind=score_kind,
                n=n_val, n_pos=n_pos_val, n_rows=counts.n_rows, weights=(alpha, beta), table=table,
                resolution=counts.resolution)
    if score_kind == "decision" or k == 0 or not np.isfinite(ev).all():
        reason = ("hard 0/1 decisions give a single operating point, not a curve" if score_kind == "decision"
                  else "no rows with positive weight")
        for f in ("t_opt", "t_opt_interval", "ev_opt", "flatness", "sharpness"):
            undefined[f] = reason
        return ValueCurve(t_opt=nan, t_opt_interval=(nan, nan), t_opt_intervals=(), ev_opt=nan, flatness=(nan, nan),
                          sharpness=nan, undefined=undefined, **base)

    ev_opt = float(ev.max())
    # ties: equal up to float rounding of the sums that produced them
    tol = 1e-9 * max(1.0, float(np.abs(ev).max()))
    runs = _runs(ev >= ev_opt - tol)
    intervals = tuple(bounds(a, b) for a, b in runs)
    # documented rule: several disjoint maxima -> the highest thresholds (acts on the fewest)
    i0, i1 = runs[0]
    low, high = intervals[0]
    if high == np.inf:
        t_opt = np.inf  # act on no one
    elif low == -np.inf:
        t_opt = lo_s  # act on everyone: the lowest score acts on all rows
    else:
        t_opt = (low + high) / 2.0
    # flatness: grow the optimum's run while EV stays within flat_tol·|ev_opt|
    ok = ev >= ev_opt - flat_tol * abs(ev_opt) - tol
    a, b = i0, i1
    while a > 0 and ok[a - 1]:
        a -= 1
    while b < k and ok[b + 1]:
        b += 1
    f_low, f_high = bounds(a, b)
    flatness = (max(f_low, lo_s), min(f_high, hi_s))
    # sharpness: points whose threshold range meets [t_opt - w, t_opt + w]
    if ev_opt == 0:
        sharpness = nan
        undefined["sharpness"] = "EV at the optimum is 0, a relative change is undefined"
    elif not np.isfinite(t_opt):
        centre = hi_s if t_opt == np.inf else lo_s
        sharpness = _sharpness(thresholds, ev, centre, sharp_window, ev_opt)
    else:
        sharpness = _sharpness(thresholds, ev, t_opt, sharp_window, ev_opt)
    return ValueCurve(t_opt=float(t_opt), t_opt_interval=(low, high), t_opt_intervals=intervals, ev_opt=ev_opt,
                      flatness=flatness, sharpness=sharpness, undefined=undefined, **base)


def _sharpness(thresholds, ev, centre, window, ev_opt) -> float:
    upper = thresholds  # point i covers (thresholds[i+1], thresholds[i]]
    lower = np.r_[thresholds[1:], -np.inf]
    near = (upper >= centre - window) & (lower < centre + window)
    return float(np.max(np.abs(ev[near] - ev_opt)) / abs(ev_opt))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SegmentCurves:
    """EV per segment level on a common threshold grid, plus each level's exact optimum.

    Attributes
    ----------
    column : str
    levels : tuple of str
    n : ndarray of shape (L,)
        Weight per level.
    grid : ndarray of shape (G,)
        Thresholds at which ``ev`` is evaluated (exactly: the step function's value there).
    ev : ndarray of shape (L, G)
    t_opt, ev_opt, ev_deployed : ndarray of shape (L,)
        Each level's own exact optimum (midpoint rule of :class:`ValueCurve`), its EV, and
        EV at the deployed threshold (NaN where undefined).
    curves : tuple of ValueCurve
    """

    column: str
    levels: tuple
    n: np.ndarray
    grid: np.ndarray
    ev: np.ndarray
    t_opt: np.ndarray
    ev_opt: np.ndarray
    ev_deployed: np.ndarray
    deployed: float
    curves: tuple

    def to_dict(self) -> dict:
        return {
            str(level): {"n": float(self.n[i]), "ev": _nan_none(self.ev_deployed[i]), "t_opt": _nan_none(self.t_opt[i]),
                         "ev_opt": _nan_none(self.ev_opt[i])}
            for i, level in enumerate(self.levels)
        }


def segment_curves(y_true, y_score, segments, table: ValueTable, *, column: str = "segment", deployed: float = 0.5,
                   grid=None, n_grid: int = 101, sample_weight=None, score_kind: str = "probability") -> SegmentCurves:
    """Per-segment value curves on a shared threshold grid (the threshold × segment heatmap).

    Prevalence reweighting uses the overall validation positive rate, not each segment's own.
    ``grid`` defaults to ``n_grid`` evenly spaced thresholds over the score range.
    """
    y, s, w = check_binary_scores(y_true, y_score, sample_weight)
    seg = np.asarray(segments).astype(str)
    if seg.shape != y.shape:
        raise InputError(f"segments must have one value per row ({len(y)}); got shape {seg.shape}.")
    if len(y) == 0:
        raise InputError("segment_curves needs at least one row; got 0.")
    base_rate = float(w[y == 1].sum() / w.sum()) if w.sum() > 0 else float("nan")
    if grid is None:
        grid = np.linspace(float(s.min()), float(s.max()), n_grid)
    grid = np.asarray(grid, dtype=float)
    levels, inverse = np.unique(seg, return_inverse=True)
    curves, evs, n = [], [], []
    for j in range(len(levels)):
        m = inverse == j
        c = price_curve(_score_counts(y[m], s[m], w[m]), table, score_kind=score_kind, base_rate=base_rate)
        curves.append(c)
        evs.append([c.ev_at(t) for t in grid])
        n.append(float(w[m].sum()))
    return SegmentCurves(
        column=column, levels=tuple(levels.tolist()), n=np.array(n), grid=grid, ev=np.array(evs),
        t_opt=np.array([c.t_opt for c in curves]), ev_opt=np.array([c.ev_opt for c in curves]),
        ev_deployed=np.array([c.ev_at(deployed) for c in curves]), deployed=float(deployed), curves=tuple(curves))
