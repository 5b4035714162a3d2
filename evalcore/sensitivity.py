"""How much the decision depends on the value table's amounts (SPEC §2.2, issue 8).

Every amount is perturbed by ±30% one at a time (8 tables) and all four jointly at random
(each × U(0.7, 1.3), independently, 200 tables by default). Each table re-prices every
model's cached :class:`~evalcore.counts.ScoreCounts` with :func:`~evalcore.value.price_curve`
(O(#distinct scores), no rows), and records the optimum (EV and t_opt), EV at the deployed
threshold, and the ranking of the models.

The table is **robust** when, over all these perturbations, (1) every model's optimal
threshold moves by less than 0.05 and (2) the ranking of the models by EV at their own
optimum never changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._checks import as_generator
from ._errors import InputError, Problem, ProblemList
from .counts import ScoreCounts
from .value import CELLS, SCORE_KINDS, ValueTable, price_curve

__all__ = ["ValueSensitivity", "value_sensitivity", "CELL_NAMES"]

CELL_NAMES = {"tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN"}


def _nan_none(x):
    x = float(x)
    return x if np.isfinite(x) else None


def _fmt_t(x: float) -> str:
    if np.isnan(x):
        return "—"
    if np.isinf(x):
        return "∞ (act on no one)" if x > 0 else "−∞"
    return f"{x:.3g}" if abs(x) >= 1000 else f"{x:.3f}"


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ValueSensitivity:
    """Optimum, deployed EV and ranking of each model under perturbed amounts.

    Index order everywhere: models as in ``models``; cells tp, fp, fn, tn; directions
    (−perturbation, +perturbation).

    Attributes
    ----------
    models : tuple of str
    score_kinds : dict
        Model → "probability", "score" or "decision".
    perturbation : float
        Relative size of the change (0.30 = ±30%).
    n_random : int
        Number of joint random draws.
    seed : int or None
        The integer seed of the draws, when one was given.
    table : ValueTable
        The unperturbed table.
    deployed : dict
        Model → deployed threshold (only the models given one).
    t_tol : ndarray of shape (m,)
        The limit on |Δt_opt| per model in the model's score units: ``t_tol`` for
        probabilities, ``t_tol × (highest − lowest score)`` for raw scores.
    base_ev_opt, base_t_opt, base_ev_deployed : ndarray of shape (m,)
        EV at the optimum, t_opt and EV at the deployed threshold with the table as is.
        For hard 0/1 decisions "EV at the optimum" is EV at their single operating point
        (act where the decision is 1) and t_opt is NaN.
    oat_factors : ndarray of shape (2,)
        (1 − perturbation, 1 + perturbation).
    oat_ev_opt, oat_t_opt, oat_ev_deployed : ndarray of shape (m, 4, 2)
        The same after multiplying one cell's amount by one factor (one at a time).
    oat_ranking_holds : ndarray of shape (4, 2), bool
    draw_factors : ndarray of shape (n_random, 4)
        The multipliers of tp, fp, fn, tn in each joint draw.
    draw_ev_opt, draw_t_opt, draw_ev_deployed : ndarray of shape (m, n_random)
    draw_ranking_holds : ndarray of shape (n_random,), bool
    max_t_shift : ndarray of shape (m,)
        max |t_opt(perturbed) − t_opt(base)| over all perturbations (0 when both are
        +inf, "act on no one"; inf when only one is). NaN for hard decisions.
    max_t_shift_at : tuple of str
        Where that maximum occurred, e.g. "FP +30%" or "random draw 17".
    t_opt_holds : ndarray of shape (m,), bool
        ``max_t_shift < t_tol`` (True for hard decisions, which have no threshold).
    ranking : tuple of str
        Models ordered by base EV at the optimum, best first.
    ranking_holds : bool
        No perturbation reverses a pair of models whose base EVs differ.
    n_ranking_changes : int
        How many of the 8 + n_random perturbations reversed a pair.
    first_ranking_change : str
        The first perturbation that did ("" when none).
    robust : bool
        ``all(t_opt_holds) and ranking_holds`` and every EV defined.
    reasons : tuple of str
        Why, in words (one sentence per criterion).
    notes : dict
        Anything the user should know (an amount of 0 cannot move, one model, decisions).

    Notes
    -----
    The ranking is by EV at each model's own optimum, not at the deployed thresholds:
    the question is whether the better model stays better when each is operated at its
    best threshold. A pair of models whose base EVs are equal (within 1e-9 × the largest
    |amount|) has no order to hold and is not checked. With one model the ranking holds
    trivially.
    """

    models: tuple
    score_kinds: dict
    perturbation: float
    n_random: int
    seed: int | None
    table: ValueTable
    deployed: dict
    t_tol: np.ndarray
    base_ev_opt: np.ndarray
    base_t_opt: np.ndarray
    base_ev_deployed: np.ndarray
    oat_factors: np.ndarray
    oat_ev_opt: np.ndarray
    oat_t_opt: np.ndarray
    oat_ev_deployed: np.ndarray
    oat_ranking_holds: np.ndarray
    draw_factors: np.ndarray
    draw_ev_opt: np.ndarray
    draw_t_opt: np.ndarray
    draw_ev_deployed: np.ndarray
    draw_ranking_holds: np.ndarray
    max_t_shift: np.ndarray
    max_t_shift_at: tuple
    t_opt_holds: np.ndarray
    ranking: tuple
    ranking_holds: bool
    n_ranking_changes: int
    first_ranking_change: str
    robust: bool
    reasons: tuple
    notes: dict = field(default_factory=dict)

    def oat_label(self, cell: int, direction: int) -> str:
        """E.g. "FP −30%" for cell index 1, direction 0."""
        pct = round(self.perturbation * 100)
        return f"{CELL_NAMES[CELLS[cell]]} {'−' if direction == 0 else '+'}{pct:g}%"

    def rows(self) -> list[dict]:
        """The one-at-a-time table: one row per model × cell × direction."""
        out = []
        amounts = {c: float(getattr(self.table, c)) for c in CELLS}
        for i, m in enumerate(self.models):
            for c, cell in enumerate(CELLS):
                for d, f in enumerate(self.oat_factors):
                    row = {
                        "model": m,
                        "perturbation": self.oat_label(c, d),
                        "amount": amounts[cell] * float(f),
                        "EV at optimum": float(self.oat_ev_opt[i, c, d]),
                        "ΔEV at optimum": float(self.oat_ev_opt[i, c, d] - self.base_ev_opt[i]),
                        "t_opt": float(self.oat_t_opt[i, c, d]),
                        "Δt_opt": float(_shift(self.base_t_opt[i], self.oat_t_opt[i, c, d])),
                    }
                    if m in self.deployed:
                        row["EV at deployed"] = float(self.oat_ev_deployed[i, c, d])
                    out.append(row)
        return out

    def to_dict(self) -> dict:
        def arr(x):
            return [_nan_none(v) for v in np.ravel(x)]

        return {
            "models": list(self.models),
            "score_kinds": dict(self.score_kinds),
            "perturbation": self.perturbation,
            "n_random": self.n_random,
            "seed": self.seed,
            "deployed": {m: float(t) for m, t in self.deployed.items()},
            "t_tol": dict(zip(self.models, arr(self.t_tol))),
            "base": {
                m: {
                    "ev_opt": _nan_none(self.base_ev_opt[i]),
                    "t_opt": _nan_none(self.base_t_opt[i]),
                    "ev_deployed": _nan_none(self.base_ev_deployed[i]),
                }
                for i, m in enumerate(self.models)
            },
            "one_at_a_time": [{k: (_nan_none(v) if isinstance(v, float) else v) for k, v in r.items()} for r in self.rows()],
            "draws": {
                "factors": self.draw_factors.tolist(),
                "t_opt": {m: arr(self.draw_t_opt[i]) for i, m in enumerate(self.models)},
                "ev_opt": {m: arr(self.draw_ev_opt[i]) for i, m in enumerate(self.models)},
                "ranking_holds": [bool(x) for x in self.draw_ranking_holds],
            },
            "max_t_shift": dict(zip(self.models, arr(self.max_t_shift))),
            "max_t_shift_at": dict(zip(self.models, self.max_t_shift_at)),
            "t_opt_holds": dict(zip(self.models, (bool(x) for x in self.t_opt_holds))),
            "ranking": list(self.ranking),
            "ranking_holds": bool(self.ranking_holds),
            "n_ranking_changes": int(self.n_ranking_changes),
            "robust": bool(self.robust),
            "reasons": list(self.reasons),
            "notes": dict(self.notes),
        }


def _shift(a, b):
    """|b − a| with equal values (also +inf = +inf) giving 0; NaN stays NaN."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        d = np.abs(b - a)
    return np.where(a == b, 0.0, d)


def _number(x) -> float:
    if isinstance(x, bool):
        return float("nan")
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def value_sensitivity(
    counts: Mapping,
    table: ValueTable,
    *,
    score_kinds: Mapping | str = "probability",
    deployed: Mapping | None = None,
    perturbation: float = 0.30,
    n_random: int = 200,
    t_tol: float = 0.05,
    rng=0,
) -> ValueSensitivity:
    """Perturb every amount by ±``perturbation`` and see whether the decision holds.

    Cost: ``8 + n_random`` re-pricings of each model's curve, each linear in its distinct
    scores — about 10 ms per million distinct scores, so ~2 s per model at a million distinct
    scores with the default 200 draws (counts binned with ``score_counts(..., resolution=)``
    cost less).

    Parameters
    ----------
    counts : mapping of str to ScoreCounts
        Per-model counts (from :func:`~evalcore.counts.score_counts`), one or more models.
    table : ValueTable
        The table to test.
    score_kinds : str or mapping of str to str, default="probability"
        One kind for every model, or per model ("probability", "score", "decision").
    deployed : mapping of str to float, default=None
        Deployed threshold per model; EV there is reported (not used for the verdict).
    perturbation : float, default=0.30
        Relative change of each amount, in (0, 1).
    n_random : int, default=200
        Joint random draws (each amount × U(1 − p, 1 + p) independently); 0 for none.
    t_tol : float, default=0.05
        Limit on the movement of t_opt, in probability units; for raw scores it is
        ``t_tol × (highest − lowest score)`` of that model.
    rng : int, numpy.random.Generator or None, default=0
        Seed of the joint draws (a fixed default, so a page shows the same draws on every run).

    Returns
    -------
    ValueSensitivity

    Raises
    ------
    InputError
        No models, counts that are not ScoreCounts or have no scores, an unknown score
        kind, deployed thresholds of unknown models or not finite, a perturbation outside
        (0, 1), a negative n_random, t_tol ≤ 0, a bad rng — all at once.

    Notes
    -----
    The raw amounts are perturbed (confidence multipliers and prevalence stay), so the
    effective amounts change by the same factor. An amount of 0 stays 0 under a relative
    change; the result's notes say so. Each table re-prices the cached counts with
    :func:`~evalcore.value.price_curve`, so t_opt follows its rules (ties → midpoint of
    the highest-threshold interval; +inf when acting on no one is optimal).

    Examples
    --------
    Scores only at 0.9 (both positives) and 0.1 (both negatives): every threshold in
    (0.1, 0.9] is optimal, so t_opt is the midpoint 0.5 whatever the amounts' sizes.

    >>> from evalcore.counts import score_counts
    >>> c = {"m": score_counts([1, 1, 0, 0], [0.9, 0.9, 0.1, 0.1])}
    >>> s = value_sensitivity(c, ValueTable(tp=100, fp=-10, fn=-100, tn=1), n_random=20)
    >>> s.base_t_opt.tolist(), s.max_t_shift.tolist(), s.robust
    ([0.5], [0.0], True)
    """
    problems = ProblemList()
    if not isinstance(counts, Mapping) or len(counts) == 0:
        problems.add(
            "counts_invalid",
            "counts must map each model name to its ScoreCounts (at least one model); got "
            f"{type(counts).__name__ if not isinstance(counts, Mapping) else 'an empty mapping'}.",
            'Pass e.g. {"new": score_counts(y_true, y_score)}.',
            column="counts",
        )
        counts = {}
    models = tuple(str(m) for m in counts)
    for m, c in counts.items():
        if not isinstance(c, ScoreCounts):
            problems.add(
                "counts_type",
                f"counts of model {m!r} must be a ScoreCounts; got {type(c).__name__}.",
                "Build it with evalcore.score_counts(y_true, y_score).",
                column="counts",
            )
        elif len(c.scores) == 0:
            problems.add(
                "counts_empty", f"counts of model {m!r} hold no scores.", "Pass the validation predictions.", column="counts"
            )
    if not isinstance(table, ValueTable):
        problems.add(
            "table_type",
            f"table must be a ValueTable; got {type(table).__name__}.",
            "Build it with ValueTable(tp=…, fp=…, fn=…, tn=…).",
            column="table",
        )
    if isinstance(score_kinds, str):
        kinds = {m: score_kinds for m in models}
    elif isinstance(score_kinds, Mapping):
        kinds = {m: score_kinds.get(m) for m in models}
        missing = [m for m in models if m not in score_kinds]
        if missing:
            problems.add(
                "score_kinds_missing",
                f"score_kinds has no entry for model(s) {missing}.",
                "Give every model its kind, or one string for all.",
                column="score_kinds",
            )
    else:
        kinds = {}
        problems.add(
            "score_kinds_invalid",
            f"score_kinds must be a string or a mapping; got {type(score_kinds).__name__}.",
            'Use e.g. "probability".',
            column="score_kinds",
        )
    bad_kinds = sorted({str(k) for m, k in kinds.items() if k is not None and k not in SCORE_KINDS})
    if bad_kinds:
        problems.add(
            "score_kind_invalid",
            f"score kinds must be one of {', '.join(SCORE_KINDS)}; got {bad_kinds}.",
            '"probability" for probabilities, "score" for raw scores, "decision" for hard 0/1.',
            column="score_kinds",
        )
    dep = {}
    if deployed is not None:
        if not isinstance(deployed, Mapping):
            problems.add(
                "deployed_invalid",
                f"deployed must map model names to thresholds; got {type(deployed).__name__}.",
                'Pass e.g. {"new": 0.5}.',
                column="deployed",
            )
        else:
            unknown = sorted(str(m) for m in deployed if str(m) not in models)
            if unknown:
                problems.add(
                    "deployed_unknown_model",
                    f"deployed names unknown model(s) {unknown}; models are {list(models)}.",
                    "Give thresholds only for the models in counts.",
                    column="deployed",
                )
            for m, t in deployed.items():
                ft = _number(t)
                if not np.isfinite(ft):
                    problems.add(
                        "deployed_not_finite",
                        f"deployed threshold of {m!r} must be a finite number; got {t!r}.",
                        "Enter the threshold in use.",
                        column="deployed",
                    )
                elif str(m) in models:
                    dep[str(m)] = ft
    p = _number(perturbation)
    if not (0.0 < p < 1.0):
        problems.add(
            "perturbation_invalid",
            f"perturbation must be in (0, 1); got {perturbation!r}.",
            "Use e.g. 0.30 for ±30%.",
            column="perturbation",
        )
    if isinstance(n_random, bool) or not isinstance(n_random, (int, np.integer)) or n_random < 0:
        problems.add(
            "n_random_invalid", f"n_random must be an integer >= 0; got {n_random!r}.", "Use e.g. 200.", column="n_random"
        )
    tt = _number(t_tol)
    if not (np.isfinite(tt) and tt > 0):
        problems.add("t_tol_invalid", f"t_tol must be a positive finite number; got {t_tol!r}.", "Use e.g. 0.05.", column="t_tol")
    gen = as_generator(rng, problems)
    seed = int(rng) if isinstance(rng, (int, np.integer)) and gen is not None else None
    problems.raise_if_any()

    base = _price_all(counts, models, kinds, table, dep, problems)
    problems.raise_if_any()
    m = len(models)
    amounts = np.array([getattr(table, c) for c in CELLS], dtype=float)
    t_lim = np.array([tt * (float(counts[k].scores[0] - counts[k].scores[-1]) if kinds[k] == "score" else 1.0) for k in models])
    tie = 1e-9 * max(1.0, float(np.max(np.abs(table.vector()))) * (1.0 + p))

    oat_factors = np.array([1.0 - p, 1.0 + p])
    oat = np.full((3, m, 4, 2), np.nan)
    oat_rank = np.ones((4, 2), dtype=bool)
    for c in range(4):
        for d, f in enumerate(oat_factors):
            mult = np.ones(4)
            mult[c] = f
            res = _price_all(counts, models, kinds, _scaled(table, amounts, mult), dep)
            oat[:, :, c, d] = res
            oat_rank[c, d] = _ranking_holds(base[0], res[0][:, None], tie)[0]

    draw_factors = gen.uniform(1.0 - p, 1.0 + p, size=(int(n_random), 4))
    draws = np.full((3, m, int(n_random)), np.nan)
    for k, mult in enumerate(draw_factors):
        draws[:, :, k] = _price_all(counts, models, kinds, _scaled(table, amounts, mult), dep)
    draw_rank = _ranking_holds(base[0], draws[0], tie)

    # the largest move of t_opt per model, and where it happened
    labels = [f"{CELL_NAMES[CELLS[c]]} {'−' if d == 0 else '+'}{round(p * 100):g}%" for c in range(4) for d in range(2)]
    labels += [f"random draw {k + 1}" for k in range(int(n_random))]
    shifts = np.concatenate([_shift(base[1][:, None], oat[1].reshape(m, 8)), _shift(base[1][:, None], draws[1])], axis=1)
    max_shift = np.full(m, np.nan)
    at = []
    for i in range(m):
        row = shifts[i]
        if np.isnan(row).all():
            at.append("")
            continue
        j = int(np.nanargmax(row))
        max_shift[i] = float(row[j])
        at.append(labels[j])
    t_holds = np.array([kinds[k] == "decision" or bool(max_shift[i] < t_lim[i]) for i, k in enumerate(models)])

    order = sorted(range(m), key=lambda i: -base[0][i])
    ranking = tuple(models[i] for i in order)
    all_rank = np.concatenate([oat_rank.ravel(), draw_rank])
    n_changes = int((~all_rank).sum())
    first = labels[int(np.argmax(~all_rank))] if n_changes else ""
    undefined = [k for i, k in enumerate(models) if not np.isfinite(base[0][i])]
    robust = bool(t_holds.all() and n_changes == 0 and not undefined)

    n_pert = 8 + int(n_random)
    reasons, notes = [], {}
    for i, k in enumerate(models):
        if kinds[k] == "decision":
            reasons.append(f"{k} is a hard 0/1 decision: it has no threshold to move; only its EV enters the ranking.")
            continue
        score = kinds[k] == "score"
        verb = "moved at most" if t_holds[i] else "moved by up to"
        where = f", at {at[i]}" if max_shift[i] > 0 else ""
        reasons.append(
            f"The optimal threshold of {k} {verb} {_fmt_t(max_shift[i])}{' score units' if score else ''} "
            f"(limit {_fmt_t(t_lim[i])}{f' = {tt:.0%} of its score range' if score else ''}; "
            f"base {_fmt_t(base[1][i])}{where})."
        )
    if m == 1:
        reasons.append("Only one model: the ranking holds trivially.")
        notes["ranking"] = "one model: there is no ranking to change"
    elif n_changes == 0:
        reasons.append(f"The ranking {' > '.join(ranking)} (by EV at each model's optimum) held in all {n_pert} perturbations.")
    else:
        reasons.append(
            f"The ranking {' > '.join(ranking)} (by EV at each model's optimum) changed in {n_changes} of "
            f"{n_pert} perturbations (first at {first})."
        )
    if undefined:
        reasons.append(f"EV is undefined for {', '.join(undefined)}: the table cannot be judged robust.")
    zero = [CELL_NAMES[c] for c, a in zip(CELLS, amounts) if a == 0]
    if zero:
        notes["zero_amounts"] = f"{', '.join(zero)} is 0: a relative change of ±{p:.0%} leaves it at 0"
    if any(kinds[k] == "score" for k in models):
        notes["t_tol"] = (
            f"for raw scores the limit on t_opt's move is {tt:g} × the model's score range "
            "(highest − lowest score), in score units"
        )
    return ValueSensitivity(
        models=models,
        score_kinds=dict(kinds),
        perturbation=p,
        n_random=int(n_random),
        seed=seed,
        table=table,
        deployed=dep,
        t_tol=t_lim,
        base_ev_opt=base[0],
        base_t_opt=base[1],
        base_ev_deployed=base[2],
        oat_factors=oat_factors,
        oat_ev_opt=oat[0],
        oat_t_opt=oat[1],
        oat_ev_deployed=oat[2],
        oat_ranking_holds=oat_rank,
        draw_factors=draw_factors,
        draw_ev_opt=draws[0],
        draw_t_opt=draws[1],
        draw_ev_deployed=draws[2],
        draw_ranking_holds=draw_rank,
        max_t_shift=max_shift,
        max_t_shift_at=tuple(at),
        t_opt_holds=t_holds,
        ranking=ranking,
        ranking_holds=n_changes == 0,
        n_ranking_changes=n_changes,
        first_ranking_change=first,
        robust=robust,
        reasons=tuple(reasons),
        notes=notes,
    )


def _scaled(table: ValueTable, amounts: np.ndarray, mult: np.ndarray) -> ValueTable:
    return table.with_amounts(**{c: float(a * f) for c, a, f in zip(CELLS, amounts, mult)})


def _price_all(counts, models, kinds, table, deployed, problems: ProblemList | None = None) -> np.ndarray:
    """(3, m): EV at the optimum (operating point for decisions), t_opt, EV at deployed."""
    out = np.full((3, len(models)), np.nan)
    for i, m in enumerate(models):
        try:
            curve = price_curve(counts[m], table, score_kind=kinds[m])
        except InputError as err:
            if problems is None:
                raise
            problems.problems.extend(
                Problem(code=p.code, message=f"model {m!r}: {p.message}", fix=p.fix, column=p.column) for p in err.problems
            )
            continue
        if kinds[m] == "decision":
            out[0, i] = curve.ev_at(1.0)  # the single operating point: act where the decision is 1
        else:
            out[0, i], out[1, i] = curve.ev_opt, curve.t_opt
        if m in deployed:
            out[2, i] = curve.ev_at(deployed[m])
    return out


def _ranking_holds(base: np.ndarray, pert: np.ndarray, tie: float) -> np.ndarray:
    """(D,) bool: no pair with base_i > base_j (beyond ``tie``) has pert_i < pert_j (beyond ``tie``)."""
    ok = np.ones(pert.shape[1], dtype=bool)
    m = len(base)
    for i in range(m):
        for j in range(m):
            if base[i] > base[j] + tie:
                ok &= ~(pert[i] < pert[j] - tie)
    return ok
