"""The value table and the exact threshold–value curve (SPEC §2.2, §3.2, §3.3).

Sign convention, everywhere: value = money gained per event; a cost is negative.
Expected *loss* is only ever the negative of expected value.

The curve is priced from :class:`~evalcore.counts.ScoreCounts`, so changing the table
re-prices in O(#distinct scores) without touching the rows (:func:`price_curve`).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._errors import InputError, ProblemList
from ._json import json_float as _nan_none
from .counts import Confusion, ScoreCounts, _check_all, _check_resolution, _check_threshold, _score_counts, metrics_from_cells

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
                problems.add(
                    "amount_not_numeric",
                    f"Amount of {_CELL_WORDS[cell]} must be a number; got {v!r}.",
                    "Enter the money gained per event (a cost is negative).",
                    column=cell,
                )
                continue
            if not np.isfinite(fv):
                problems.add(
                    "amount_not_finite",
                    f"Amount of {_CELL_WORDS[cell]} must be finite; got {v!r}.",
                    "Enter the money gained per event (a cost is negative).",
                    column=cell,
                )
            object.__setattr__(self, cell, fv)
        if self.confidence is None:
            conf = {}
        elif isinstance(self.confidence, Mapping):
            conf = dict(self.confidence)
        else:
            conf = {}
            problems.add(
                "confidence_not_mapping",
                f"confidence must map cells to multipliers, e.g. {{'fp': 0.5}}; got {type(self.confidence).__name__}.",
                "Pass a dict keyed by tp, fp, fn, tn.",
                column="confidence",
            )
        unknown = set(conf) - set(CELLS)
        if unknown:
            problems.add(
                "confidence_unknown_cell",
                f"confidence has unknown cells {sorted(map(str, unknown))}; expected tp, fp, fn, tn.",
                "Use the cell names tp, fp, fn, tn.",
                column="confidence",
            )
        for cell in CELLS:
            c = conf.get(cell, 1.0)
            try:
                c = float(1.0 if c is None else c)
            except (TypeError, ValueError):
                c = float("nan")
            if not (np.isfinite(c) and 0.0 < c <= 1.0):
                problems.add(
                    "confidence_out_of_range",
                    f"Confidence of {_CELL_WORDS[cell]} must be in (0, 1]; got {conf.get(cell)!r}.",
                    "Use 1 when the amount is known exactly, less when it is a rough estimate.",
                    column=f"confidence.{cell}",
                )
            conf[cell] = c
        object.__setattr__(self, "confidence", {k: conf[k] for k in CELLS})
        if self.prevalence is not None:
            try:
                p = float(self.prevalence)
            except (TypeError, ValueError):
                p = float("nan")
            if not (np.isfinite(p) and 0.0 < p < 1.0):
                problems.add(
                    "prevalence_out_of_range",
                    f"Production prevalence must be in (0, 1) or empty; got {self.prevalence!r}.",
                    "Enter the share of positive cases in production, e.g. 0.02, or leave it empty.",
                    column="prevalence",
                )
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
                out.append(
                    f"{_CELL_WORDS[cell]} is {v:+,.2f}: this is usually {usual}. "
                    "Values are money gained per event; enter costs as negative numbers."
                )
        e = self.effective()
        dp, dn = e["tp"] - e["fn"], e["tn"] - e["fp"]  # gain of acting on a positive; cost of acting on a negative
        if dp <= 0 and dn <= 0:
            out.append(
                "Acting on a positive case gains nothing over not acting (TP ≤ FN) and acting on a negative "
                "case costs nothing (FP ≥ TN): the table rewards the wrong decisions; check the signs."
            )
        elif dp <= 0:
            out.append(
                "Acting on a positive case is worth no more than not acting (TP ≤ FN): "
                "acting on no one is optimal for every model."
            )
        elif dn <= 0:
            out.append(
                "Acting on a negative case costs nothing compared to not acting (FP ≥ TN): "
                "acting on everyone is optimal for every model."
            )
        return out

    def with_amounts(self, **amounts) -> "ValueTable":
        """A copy with some amounts (tp/fp/fn/tn) or other fields replaced."""
        d = {c: getattr(self, c) for c in CELLS}
        d.update(
            confidence=dict(self.confidence),
            prevalence=self.prevalence,
            unit=self.unit,
            descriptions=dict(self.descriptions),
            sources=dict(self.sources),
            name=self.name,
        )
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

    Parameters
    ----------
    table : ValueTable
    base_rate : float, default=None
        Validation positive rate p̂, needed only when ``table.prevalence`` is set.

    Returns
    -------
    t_star : float
        In [0, 1], or NaN when no threshold rule ``p >= t`` expresses the optimal policy.
    reason : str
        Empty when ``t_star`` is defined, otherwise why not (and what is optimal instead).

    Notes
    -----
    Acting on a case with probability p gains p·α·Δp − (1 − p)·β·Δn, with
    Δp = v_TP − v_FN (gain of acting on a positive), Δn = v_TN − v_FP (cost of acting on a
    negative) and α = π/p̂, β = (1−π)/(1−p̂) the prevalence weights (α = β = 1 without a
    production prevalence). Act iff p ≥ t* = β·Δn / (β·Δn + α·Δp), i.e. without
    prevalence t* = (v_TN − v_FP) / ((v_TN − v_FP) + (v_TP − v_FN)) (SPEC §3.3). It is
    defined when Δp ≥ 0, Δn ≥ 0 and not both are 0 (t* = 0: act on everyone; t* = 1:
    only on certain positives). Otherwise it is NaN with the reason:

    - Δp = Δn = 0: every decision is worth the same, every threshold is optimal;
    - Δp < 0 and Δn < 0: acting pays only on negatives, the table looks inverted;
    - Δp < 0 (Δn ≥ 0): act on no one; Δn < 0 (Δp ≥ 0): act on everyone;
    - a production prevalence with a validation base rate outside (0, 1).

    Examples
    --------
    >>> t, why = bayes_threshold(ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120))
    >>> round(t, 6)  # 3320 / (3320 + 40500)
    0.075764
    """
    nan = float("nan")
    v = table.effective()
    if table.prevalence is not None and not (base_rate is not None and 0.0 < base_rate < 1.0):
        return nan, (f"a production prevalence needs a validation base rate in (0, 1) to reweight; got {base_rate!r}")
    alpha, beta = table.weights(base_rate if base_rate is not None else nan)
    dp = alpha * (v["tp"] - v["fn"])
    dn = beta * (v["tn"] - v["fp"])
    if dp == 0 and dn == 0:
        return nan, "acting and not acting are worth the same for every case (TP = FN, FP = TN): every threshold is optimal"
    if dp < 0 and dn < 0:
        return nan, (
            "acting loses on positives (TP < FN) and gains on negatives (FP > TN): no threshold "
            "'act iff p ≥ t' is optimal; the table looks inverted"
        )
    if dp < 0:
        return nan, "acting on a positive loses against not acting (TP < FN): act on no one"
    if dn < 0:
        return nan, "acting on a negative gains against not acting (FP > TN): act on everyone"
    return float(dn / (dn + dp)), ""


def auc_from_counts(counts: ScoreCounts) -> float:
    """ROC AUC from per-score counts; tied scores contribute a diagonal (as scikit-learn).

    The trapezoidal area under (FP/n_neg, TP/n_pos) over the distinct scores, which equals
    the probability that a random positive outscores a random negative, ties counting 1/2
    (the Mann–Whitney statistic). NaN when either class has zero weight.

    Examples
    --------
    >>> from evalcore.counts import score_counts
    >>> # pairs (pos, neg): (0.8, 0.4) wins, (0.8, 0.1) wins, (0.4, 0.4) ties, (0.4, 0.1) wins
    >>> auc_from_counts(score_counts([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1]))  # (3 + 0.5) / 4
    0.875
    """
    _, (tp, fp) = counts._cumulative()
    n_pos, n_neg = float(tp[-1]), float(fp[-1])
    if n_pos <= 0 or n_neg <= 0:
        return float("nan")
    return float(np.sum(np.diff(fp) * (tp[1:] + tp[:-1])) / (2.0 * n_pos * n_neg))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ValueCurve:
    """Expected value per decision at every distinct score used as threshold.

    Attributes
    ----------
    thresholds : ndarray of shape (k + 1,)
        ``+inf`` ("act on no one") followed by the distinct scores, descending.
        Point i stands for every threshold t in ``(thresholds[i+1], thresholds[i]]``
        (point k, "act on everyone", for every t <= the lowest score).
    ev : ndarray of shape (k + 1,)
        EV(t) = (v_TP·TP + v_FP·FP + v_FN·FN + v_TN·TN) / N with effective amounts and
        prevalence-reweighted counts (N their total). All NaN when undefined (no rows of
        positive weight; a production prevalence with a one-class validation set).
    tp, fp, fn, tn : ndarray of shape (k + 1,)
        Reweighted counts at each point (properties, derived on access from ``cum`` and
        ``weights``).
    cum : ndarray of shape (2, k + 1)
        Unweighted cumulative (positive, negative) counts at each point, shared read-only
        with the :class:`~evalcore.counts.ScoreCounts` the curve was priced from.
    t_opt : float
        The threshold to deploy: the midpoint of ``t_opt_interval`` when it is bounded
        (its upper end when the midpoint is not strictly above the lower one, e.g. between
        the neighbouring floats 0 and 5e-324: :func:`threshold_between`); the lowest score
        when the optimum includes acting on everyone (every t at or below it acts on all
        rows); ``+inf`` when it is acting on no one. NaN when undefined. Always
        ``ev_at(t_opt) == ev_opt``.
    t_opt_interval : (float, float)
        ``(low, high]``: every threshold in it reaches ``ev_opt``. ``low`` is ``-inf``
        when acting on everyone is optimal, ``high`` is ``+inf`` when acting on no one is.
    t_opt_intervals : tuple of (float, float)
        All disjoint maximising ranges, highest thresholds first. **Rule:** when the
        maximum is reached on several disjoint ranges, ``t_opt_interval`` (and ``t_opt``)
        is the one with the highest thresholds, which acts on the fewest cases. EVs equal
        within 1e-9 × the largest |amount| count as ties (float rounding of the sums).
    policy : str
        "threshold" (a bounded optimum), "act_on_everyone", "act_on_no_one",
        "any_threshold" (EV is the same everywhere) or "undefined".
    ev_opt, ev_all, ev_none : float
        EV at the optimum (at ``t_opt``: the maximum up to the tie tolerance), acting on
        everyone, acting on no one.
    flatness : (float, float)
        ``(low, high]``: the widest threshold range containing ``t_opt_interval`` on which
        EV ≥ ev_opt − flat_tol·|ev_opt| (SPEC §3.3: "within 1% of |EV(t_opt)|"), clipped to
        the score range [lowest score, highest score].
    flat_tol : float
        The relative tolerance of ``flatness`` (default 0.01).
    sharpness : float
        max |EV(t) − ev_opt| / |ev_opt| over every threshold t in
        [t_opt − sharp_window, t_opt + sharp_window] (for ``t_opt = +inf`` the window is
        centred on the highest score). NaN when ev_opt is 0 (up to float rounding).
    sharp_window : float
        0.02 for probabilities, 2% of the score range (highest − lowest score) for raw scores.
    bayes_threshold : float
        Closed-form t* (:func:`bayes_threshold`; probabilities only, NaN with a reason otherwise).
    score_kind : str
        "probability", "score" or "decision".
    n, n_pos : float
        Total and positive weight (validation, before reweighting).
    n_rows : int
        Rows of positive weight.
    n_weighted : float
        The EV denominator N: total weight after prevalence reweighting (equals ``n``
        unless the curve prices a segment with the overall base rate).
    weights : (float, float)
        Prevalence weights (positives, negatives); (1, 1) without a production prevalence.
    table : ValueTable
    resolution : float or None
        Score binning used (None: exact).
    undefined : dict
        Field name → reason for each NaN field.

    Examples
    --------
    Two disjoint maxima: EV = (2·TP − FP)/5 is 0.4 both when acting on the top two and
    on all five rows; the range with the highest thresholds is the primary one.

    >>> t = ValueTable(tp=2, fp=-1, fn=0, tn=0)
    >>> c = value_curve([1, 1, 0, 0, 1], [0.9, 0.8, 0.6, 0.5, 0.1], t)
    >>> c.ev.tolist()
    [0.0, 0.4, 0.8, 0.6, 0.4, 0.8]
    >>> c.t_opt_intervals, c.t_opt_interval, c.t_opt
    (((0.6, 0.8), (-inf, 0.1)), (0.6, 0.8), 0.7)
    """

    thresholds: np.ndarray
    ev: np.ndarray
    cum: np.ndarray
    t_opt: float
    t_opt_interval: tuple
    t_opt_intervals: tuple
    policy: str
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
    n_weighted: float
    weights: tuple
    table: ValueTable
    resolution: float | None = None
    undefined: dict = field(default_factory=dict)

    # the reweighted counts are derived on access from the (unweighted, shared) cumulative
    # counts, so that re-pricing allocates nothing but ``ev``
    @property
    def tp(self) -> np.ndarray:
        return self.cum[0] if self.weights[0] == 1.0 else self.cum[0] * self.weights[0]

    @property
    def fp(self) -> np.ndarray:
        return self.cum[1] if self.weights[1] == 1.0 else self.cum[1] * self.weights[1]

    @property
    def fn(self) -> np.ndarray:
        return self._cell(-1)[0] - self.tp

    @property
    def tn(self) -> np.ndarray:
        return self._cell(-1)[1] - self.fp

    def _cell(self, i: int) -> tuple[float, float]:
        """Reweighted (TP, FP) at point i."""
        return float(self.cum[0, i] * self.weights[0]), float(self.cum[1, i] * self.weights[1])

    def ev_at(self, threshold: float) -> float:
        """EV when acting on rows with score >= threshold (exact, any threshold)."""
        return float(self.ev[self._index_for(threshold)])

    def _index_for(self, threshold: float) -> int:
        _check_threshold(threshold).raise_if_any()
        return _point_index(self.thresholds, float(threshold))

    def confusion_at(self, threshold: float) -> Confusion:
        """Reweighted counts and metrics at a threshold."""
        i = self._index_for(threshold)
        (tp, fp), (n_pos, n_neg) = self._cell(i), self._cell(-1)
        return metrics_from_cells(tp, fp, n_pos - tp, n_neg - fp, float(threshold))

    def attribution_at(self, threshold: float) -> dict:
        """The four terms v_c·count_c/N at a threshold (the waterfall); they sum to EV."""
        i = self._index_for(threshold)
        v = self.table.effective()
        (tp, fp), (n_pos, n_neg) = self._cell(i), self._cell(-1)
        counts = {"tp": tp, "fp": fp, "fn": n_pos - tp, "tn": n_neg - fp}
        n = self.n_weighted
        return {c: float(v[c] * counts[c] / n) if n > 0 else float("nan") for c in CELLS}

    def to_dict(self) -> dict:
        return {
            "t_opt": _nan_none(self.t_opt),
            "t_opt_interval": [_nan_none(x) for x in self.t_opt_interval],
            "t_opt_intervals": [[_nan_none(x) for x in iv] for iv in self.t_opt_intervals],
            "policy": self.policy,
            "ev_opt": _nan_none(self.ev_opt),
            "ev_all": _nan_none(self.ev_all),
            "ev_none": _nan_none(self.ev_none),
            "flatness": [_nan_none(x) for x in self.flatness],
            "flat_tol": self.flat_tol,
            "sharpness": _nan_none(self.sharpness),
            "sharp_window": _nan_none(self.sharp_window),
            "bayes_threshold": _nan_none(self.bayes_threshold),
            "score_kind": self.score_kind,
            "n": float(self.n),
            "n_pos": float(self.n_pos),
            "n_rows": int(self.n_rows),
            "n_thresholds": int(len(self.thresholds) - 1),
            "weights": [float(x) for x in self.weights],
            "resolution": self.resolution,
            "undefined": dict(self.undefined),
        }


def _point_index(thresholds: np.ndarray, t):
    """Index of the curve point that threshold(s) ``t`` select: the number of distinct
    scores >= t (0 for +inf: act on no one; k for -inf: act on everyone)."""
    if np.ndim(t) == 0:
        # a scalar: binary search on the descending scores without copying them (O(log k))
        return bisect.bisect_right(thresholds, -float(t), lo=1, key=_negate) - 1
    # thresholds[1:] is strictly descending; search its negation, which ascends
    return np.searchsorted(-thresholds[1:], -np.asarray(t, dtype=float), side="right")


def _negate(x):
    return -x


def _check_options(score_kind, flat_tol, problems: ProblemList | None = None) -> ProblemList:
    problems = ProblemList() if problems is None else problems
    if not isinstance(score_kind, str) or score_kind not in SCORE_KINDS:
        problems.add(
            "score_kind_invalid",
            f"score_kind must be one of {', '.join(SCORE_KINDS)}; got {score_kind!r}.",
            'Use "probability" for probabilities in [0, 1], "score" for raw scores, "decision" for hard 0/1.',
            column="score_kind",
        )
    try:
        ft = float(flat_tol)
    except (TypeError, ValueError):
        ft = float("nan")
    if isinstance(flat_tol, bool) or not (np.isfinite(ft) and ft >= 0):
        problems.add(
            "flat_tol_invalid",
            f"flat_tol must be a finite number >= 0; got {flat_tol!r}.",
            "Use e.g. 0.01 for a band of 1% of |EV(t_opt)|.",
            column="flat_tol",
        )
    return problems


def _check_score_kind_values(scores: np.ndarray, score_kind: str, problems: ProblemList, *, rows=True) -> None:
    """Scores must fit their declared kind: probabilities in [0, 1], decisions 0/1.

    ``rows=False`` for distinct scores (counts), where row numbers do not exist.
    """
    if len(scores) == 0:
        return
    if score_kind == "probability":
        if scores.min() >= 0 and scores.max() <= 1:  # the common case: two fast reductions
            return
        bad = (scores < 0) | (scores > 1)
        rule, fix = "probabilities must lie in [0, 1]", 'Pass score_kind="score" for raw scores (e.g. 0–100).'
    elif score_kind == "decision":
        bad = (scores != 0) & (scores != 1)
        rule, fix = "hard decisions must be 0 or 1", 'Pass score_kind="score" or "probability" for graded scores.'
    else:
        return
    n_bad = int(bad.sum())
    if n_bad:
        what = f"{n_bad} values are not" if rows else "some scores are not"
        problems.add(
            f"y_score_not_{score_kind}",
            f"y_score was declared as {score_kind}, but {rule}; {what} (e.g. {scores[bad][:3].tolist()}).",
            fix,
            column="y_score",
            rows=(np.flatnonzero(bad)[:5] + 2).tolist() if rows else (),
            n_rows=n_bad if rows else 0,
        )


def value_curve(
    y_true,
    y_score,
    table: ValueTable,
    *,
    sample_weight=None,
    resolution=None,
    score_kind: str = "probability",
    flat_tol: float = 0.01,
) -> ValueCurve:
    """The exact threshold–value curve over every distinct score.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    y_score : array-like of shape (n,)
        Scores; act iff ``score >= t``.
    table : ValueTable
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; a zero weight is the same as no row.
    resolution : float, default=None
        Optional score binning (floor to the grid, stated in the result); None is exact.
    score_kind : {"probability", "score", "decision"}, default="probability"
        "probability" requires scores in [0, 1]; "score" sets the sharpness window to 2%
        of the score range and leaves t* undefined; "decision" (hard 0/1) gives a single
        operating point: the optimum fields are NaN.
    flat_tol : float, default=0.01
        Relative tolerance of the flatness band.

    Returns
    -------
    ValueCurve

    Raises
    ------
    InputError
        Invalid labels, scores, weights, table or options — every problem at once.

    Notes
    -----
    One stable sort and cumulative sums (:func:`~evalcore.counts.score_counts`), then
    :func:`price_curve`. No grid: every distinct score is a threshold.

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
    problems = _check_options(score_kind, flat_tol, _check_resolution(resolution))
    if not isinstance(table, ValueTable):
        problems.add(
            "table_type",
            f"table must be a ValueTable; got {type(table).__name__}.",
            "Build it with ValueTable(tp=…, fp=…, fn=…, tn=…).",
            column="table",
        )
    y, s, w = _check_all(problems, y_true, y_score, sample_weight)
    if len(y) == 0:
        problems.add("no_rows", "value_curve needs at least one row; got 0.", "Pass the validation predictions.", column="y_true")
    _check_score_kind_values(s, score_kind, problems)
    problems.raise_if_any()
    counts = _score_counts(y, s, w, None if resolution is None else float(resolution))
    return _price(counts, table, score_kind, float(flat_tol), None)


def price_curve(
    counts: ScoreCounts,
    table: ValueTable,
    *,
    score_kind: str = "probability",
    flat_tol: float = 0.01,
    base_rate: float | None = None,
) -> ValueCurve:
    """Price per-score counts with a value table: O(#distinct scores), no rows needed.

    Parameters
    ----------
    counts : ScoreCounts
        From :func:`~evalcore.counts.score_counts` (or a ``GROUP BY`` elsewhere). Its
        cumulative sums are cached on it, so re-pricing after a table edit is a few
        vector operations.
    table : ValueTable
    score_kind, flat_tol
        As in :func:`value_curve`.
    base_rate : float, default=None
        Validation positive rate p̂ used for prevalence reweighting; by default the
        counts' own. Pass the overall rate when pricing one segment.

    Returns
    -------
    ValueCurve
        Identical to ``value_curve`` on the rows the counts came from.
    """
    problems = _check_options(score_kind, flat_tol)
    if not isinstance(counts, ScoreCounts):
        problems.add(
            "counts_type",
            f"counts must be a ScoreCounts; got {type(counts).__name__}.",
            "Build it with evalcore.score_counts(y_true, y_score).",
            column="counts",
        )
    if not isinstance(table, ValueTable):
        problems.add(
            "table_type",
            f"table must be a ValueTable; got {type(table).__name__}.",
            "Build it with ValueTable(tp=…, fp=…, fn=…, tn=…).",
            column="table",
        )
    if base_rate is not None:
        try:
            br = float(base_rate)
        except (TypeError, ValueError):
            br = float("nan")
        if not (np.isfinite(br) and 0.0 <= br <= 1.0):
            problems.add(
                "base_rate_invalid",
                f"base_rate must be in [0, 1] or None; got {base_rate!r}.",
                "Pass the validation positive rate, or None to use the counts' own.",
                column="base_rate",
            )
    problems.raise_if_any()
    k = len(counts.scores)
    if k and score_kind in ("probability", "decision"):
        ends = counts.scores[[0, -1]] if score_kind == "probability" else counts.scores
        _check_score_kind_values(ends, score_kind, problems, rows=False)
        problems.raise_if_any()
    return _price(counts, table, score_kind, float(flat_tol), None if base_rate is None else float(base_rate))


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index runs where mask is True."""
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.r_[idx[0], idx[breaks + 1]]
    ends = np.r_[idx[breaks], idx[-1]]
    return list(zip(starts.tolist(), ends.tolist()))


def _price(counts: ScoreCounts, table: ValueTable, score_kind: str, flat_tol: float, base_rate) -> ValueCurve:
    thresholds, cum = counts._cumulative()
    k = len(thresholds) - 1
    n_pos_val, n_neg_val = float(cum[0, -1]), float(cum[1, -1])
    n_val = n_pos_val + n_neg_val
    own_rate = n_pos_val / n_val if n_val > 0 else float("nan")
    rate = own_rate if base_rate is None else base_rate
    nan = float("nan")
    undefined: dict[str, str] = {}
    reason = ""
    if k == 0 or n_val <= 0:
        reason = "no rows with positive weight"
    elif table.prevalence is not None and not (0.0 < rate < 1.0):
        reason = (
            f"a production prevalence ({table.prevalence:g}) cannot be applied: the validation set has "
            f"{'no positive' if rate == 0 else 'no negative'} cases to reweight"
        )
    alpha, beta = table.weights(rate) if not reason else (1.0, 1.0)
    n_pos, n_neg = n_pos_val * alpha, n_neg_val * beta
    n = n_pos + n_neg
    v = table.effective()
    if reason:
        ev = np.full(k + 1, nan)
    else:
        # EV = (v_tp·TP + v_fp·FP + v_fn·(n_pos − TP) + v_tn·(n_neg − FP)) / n with TP = α·cum_pos,
        # FP = β·cum_neg: one matrix–vector product over the cached counts, one in-place add
        coef = np.array([alpha * (v["tp"] - v["fn"]) / n, beta * (v["fp"] - v["tn"]) / n])
        ev = coef @ cum
        ev += (v["fn"] * n_pos + v["tn"] * n_neg) / n
    if score_kind == "probability":
        bt, why = bayes_threshold(table, base_rate=rate if np.isfinite(rate) else None)
        if why:
            undefined["bayes_threshold"] = why
    else:
        bt = nan
        undefined["bayes_threshold"] = (
            "t* needs calibrated probabilities; these are raw scores"
            if score_kind == "score"
            else "t* needs probabilities; these are hard 0/1 decisions"
        )
    lo_s = float(thresholds[-1]) if k else nan
    hi_s = float(thresholds[1]) if k else nan
    sharp_window = 0.02 if score_kind != "score" else 0.02 * (hi_s - lo_s)

    base = dict(
        thresholds=thresholds,
        ev=ev,
        cum=cum,
        ev_all=float(ev[-1]),
        ev_none=float(ev[0]),
        flat_tol=flat_tol,
        sharp_window=sharp_window,
        bayes_threshold=bt,
        score_kind=score_kind,
        n=n_val,
        n_pos=n_pos_val,
        n_rows=counts.n_rows,
        n_weighted=n,
        weights=(alpha, beta),
        table=table,
        resolution=counts.resolution,
    )
    if reason or score_kind == "decision":
        reason = reason or "hard 0/1 decisions give a single operating point, not a curve"
        fields = ("t_opt", "t_opt_interval", "ev_opt", "flatness", "sharpness")
        if np.isnan(ev).all():
            fields += ("ev", "ev_all", "ev_none")
        for f in fields:
            undefined[f] = reason
        return ValueCurve(
            t_opt=nan,
            t_opt_interval=(nan, nan),
            t_opt_intervals=(),
            policy="undefined",
            ev_opt=nan,
            flatness=(nan, nan),
            sharpness=nan,
            undefined=undefined,
            **base,
        )

    def bounds(i0: int, i1: int) -> tuple[float, float]:
        # points i0..i1 cover (thresholds[i1+1], thresholds[i0]]; -inf below the lowest score
        low = float(thresholds[i1 + 1]) if i1 + 1 <= k else -np.inf
        return low, float(thresholds[i0])

    i_max = int(np.argmax(ev))
    ev_opt = float(ev[i_max])
    # ties: equal up to float rounding of the sums; |EV| never exceeds the largest |amount|
    tol = 1e-9 * max(1.0, *(abs(x) for x in v.values()))
    runs = _runs(ev >= ev_opt - tol)
    intervals = tuple(bounds(a, b) for a, b in runs)
    # documented rule: several disjoint maxima -> the highest thresholds (acts on the fewest)
    i0, i1 = runs[0]
    low, high = intervals[0]
    if i0 == 0 and i1 == k:
        policy, t_opt = "any_threshold", np.inf
    elif high == np.inf:
        policy, t_opt = "act_on_no_one", np.inf
    elif low == -np.inf:
        policy, t_opt = "act_on_everyone", lo_s  # the lowest score acts on all rows
    else:
        policy, t_opt = "threshold", float(threshold_between(low, high))
    # the EV that acting at t_opt earns: equal to the maximum up to the tie tolerance, and
    # exactly what ev_at(t_opt) returns
    ev_opt = float(ev[_point_index(thresholds, t_opt)])
    # flatness: grow the optimum's run while EV stays within flat_tol·|ev_opt|
    floor = ev_opt - flat_tol * abs(ev_opt) - tol
    a = i0 - _run_length(ev[i0 - 1 :: -1] if i0 > 0 else ev[:0], floor)
    b = i1 + _run_length(ev[i1 + 1 :], floor)
    f_low, f_high = bounds(a, b)
    flatness = (max(f_low, lo_s), min(f_high, hi_s))
    # sharpness: every point whose threshold range meets [centre - w, centre + w]
    if abs(ev_opt) <= tol:  # 0 up to the rounding of the sums: a relative change would explode
        sharpness = nan
        undefined["sharpness"] = "EV at the optimum is 0, a relative change is undefined"
    elif score_kind == "score" and sharp_window == 0:
        sharpness = nan
        undefined["sharpness"] = "all scores are equal: a window of 2% of the score range is empty"
    else:
        centre = hi_s if t_opt == np.inf else t_opt
        sharpness = _sharpness(thresholds, ev, centre, sharp_window, ev_opt)
    return ValueCurve(
        t_opt=float(t_opt),
        t_opt_interval=(low, high),
        t_opt_intervals=intervals,
        policy=policy,
        ev_opt=ev_opt,
        flatness=flatness,
        sharpness=sharpness,
        undefined=undefined,
        **base,
    )


def threshold_between(low, high):
    """The threshold deployed for an optimum ``(low, high]``: its midpoint, or ``high`` when
    the midpoint is not strictly above ``low``.

    Acting is ``score >= t``, so every t in ``(low, high]`` acts on the same rows, ``high``
    included. Between two neighbouring floats (0 and the subnormal 5e-324, 1 − 2⁻⁵³ and 1)
    the midpoint rounds onto ``low`` — which would act on the rows at ``low`` as well — and
    beyond ~9e307 the sum overflows; ``high`` is then the threshold. Scalars or arrays.

    Examples
    --------
    >>> threshold_between(0.1, 0.4), threshold_between(0.0, 5e-324)
    (0.25, 5e-324)
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        mid = (low + high) / 2.0
    out = np.where((mid > low) & (mid <= high), mid, high)
    return float(out) if out.ndim == 0 else out


def _run_length(values: np.ndarray, floor: float) -> int:
    """How many leading ``values`` are >= floor. Looks at growing chunks, so a short flat
    band costs a short scan, not a pass over the whole curve."""
    done, size = 0, 1024
    while done < len(values):
        below = values[done : done + size] < floor
        j = int(np.argmax(below))
        if below[j]:
            return done + j
        done += len(below)
        size *= 4
    return done


def _sharpness(thresholds, ev, centre, window, ev_opt) -> float:
    # point i covers (thresholds[i+1], thresholds[i]]: it meets [c - w, c + w] iff
    # thresholds[i] >= c - w and thresholds[i+1] < c + w; those points are one index range
    first = _point_index(thresholds, centre + window)  # first point with lower bound < c + w
    last = _point_index(thresholds, centre - window)  # last point with upper bound >= c - w
    return float(np.max(np.abs(ev[first : last + 1] - ev_opt)) / abs(ev_opt))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SegmentCurves:
    """EV per segment level on a common threshold grid, plus each level's exact optimum.

    Attributes
    ----------
    column : str
        The segment column's name.
    levels : tuple of str
        Distinct segment values (as strings), sorted.
    n : ndarray of shape (L,)
        Weight per level (validation, before reweighting).
    grid : ndarray of shape (G,)
        Thresholds at which ``ev`` is evaluated (exactly: the step function's value there).
    ev : ndarray of shape (L, G)
        EV per decision of each level at each grid threshold.
    t_opt, ev_opt, ev_deployed : ndarray of shape (L,)
        Each level's own exact optimum (midpoint rule of :class:`ValueCurve`), its EV, and
        EV at the deployed threshold (NaN where undefined).
    deployed : float
        The deployed threshold.
    base_rate : float
        The overall validation positive rate every level is reweighted with.
    curves : tuple of ValueCurve
        Each level's full exact curve.
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
    base_rate: float = float("nan")

    def to_dict(self) -> dict:
        return {
            str(level): {
                "n": float(self.n[i]),
                "ev": _nan_none(self.ev_deployed[i]),
                "t_opt": _nan_none(self.t_opt[i]),
                "ev_opt": _nan_none(self.ev_opt[i]),
            }
            for i, level in enumerate(self.levels)
        }


def segment_curves(
    y_true,
    y_score,
    segments,
    table: ValueTable,
    *,
    column: str = "segment",
    deployed: float = 0.5,
    grid=None,
    n_grid: int = 101,
    sample_weight=None,
    score_kind: str = "probability",
) -> SegmentCurves:
    """Per-segment value curves on a shared threshold grid (the threshold × segment heatmap).

    Parameters
    ----------
    y_true, y_score, sample_weight
        As in :func:`value_curve`.
    segments : array-like of shape (n,)
        Segment level of each row (compared as strings).
    table : ValueTable
    column : str, default="segment"
        Name of the segment column (for display).
    deployed : float, default=0.5
        The deployed threshold; ``ev_deployed`` is each level's EV there.
    grid : array-like of shape (G,), default=None
        Thresholds of the heatmap; by default ``n_grid`` evenly spaced over the score range.
        Each level's own optimum is exact, never read off the grid.
    n_grid : int, default=101
    score_kind : str, default="probability"

    Returns
    -------
    SegmentCurves

    Notes
    -----
    Each level's curve is :func:`price_curve` of that level's counts with ``base_rate``
    set to the overall validation positive rate, so prevalence reweighting uses the
    overall rate, not each segment's own, and EV is per decision within the level.
    """
    problems = _check_options(score_kind, 0.01, _check_threshold(deployed))
    if not isinstance(table, ValueTable):
        problems.add(
            "table_type",
            f"table must be a ValueTable; got {type(table).__name__}.",
            "Build it with ValueTable(tp=…, fp=…, fn=…, tn=…).",
            column="table",
        )
    if grid is not None:
        g = np.asarray(grid)
        if g.ndim != 1 or g.dtype.kind not in "iuf" or not np.isfinite(g).all() or len(g) == 0:
            problems.add(
                "grid_invalid",
                f"grid must be a non-empty 1-D array of finite thresholds; got shape {g.shape}, dtype {g.dtype}.",
                "Pass e.g. numpy.linspace(0, 1, 101), or None for the default.",
                column="grid",
            )
    elif isinstance(n_grid, bool) or not isinstance(n_grid, (int, np.integer)) or n_grid < 1:
        problems.add("n_grid_invalid", f"n_grid must be an integer >= 1; got {n_grid!r}.", "Use e.g. 101.", column="n_grid")
    seg = np.asarray(segments)
    n_rows = np.shape(y_true)
    if seg.ndim != 1 or seg.shape != n_rows:
        problems.add(
            "segments_shape",
            f"segments must have one value per row ({n_rows[0] if n_rows else 0}); got shape {seg.shape}.",
            "Pass the segment column of the same rows.",
            column="segments",
        )
    y, s, w = _check_all(problems, y_true, y_score, sample_weight)
    if len(y) == 0:
        problems.add(
            "no_rows", "segment_curves needs at least one row; got 0.", "Pass the validation predictions.", column="y_true"
        )
    _check_score_kind_values(s, score_kind, problems)
    problems.raise_if_any()
    seg = seg.astype(str)
    base_rate = float(w[y == 1].sum() / w.sum()) if w.sum() > 0 else float("nan")
    if grid is None:
        grid = np.linspace(float(s.min()), float(s.max()), int(n_grid))
    grid = np.asarray(grid, dtype=float)
    levels, inverse = np.unique(seg, return_inverse=True)
    curves, evs, n = [], [], []
    for j in range(len(levels)):
        m = inverse == j
        c = _price(_score_counts(y[m], s[m], w[m]), table, score_kind, 0.01, base_rate if np.isfinite(base_rate) else None)
        curves.append(c)
        evs.append(c.ev[_point_index(c.thresholds, grid)])
        n.append(float(w[m].sum()))
    dep = np.float64(deployed)
    return SegmentCurves(
        column=column,
        levels=tuple(levels.tolist()),
        n=np.array(n),
        grid=grid,
        ev=np.array(evs).reshape(len(levels), len(grid)),
        t_opt=np.array([c.t_opt for c in curves]),
        ev_opt=np.array([c.ev_opt for c in curves]),
        ev_deployed=np.array([c.ev[_point_index(c.thresholds, float(dep))] for c in curves]),
        deployed=float(deployed),
        curves=tuple(curves),
        base_rate=base_rate,
    )
