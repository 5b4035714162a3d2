"""Weights from pairwise judgement: the analytic hierarchy process (AHP, SPEC §2.2).

When the amounts of a value table are only known qualitatively, the user answers for each
pair of outcomes "which matters more, and by how much" on Saaty's 1–9 scale. The answers
form a positive reciprocal matrix A (a_ij = how many times more item i matters than item j,
a_ji = 1/a_ij, a_ii = 1). The weights are its principal (Perron) eigenvector, normalised to
sum 1; the consistency ratio CR says how far the answers are from a consistent set
(a_ij·a_jk = a_ik). CR > 0.1 is Saaty's rule of thumb for "revise the judgements".

Weights are relative importance, not money: :func:`ahp_amounts` turns them into amounts
with a sign (gain or cost) and a scale (money per unit of weight, or one anchored amount).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._checks import positive_number
from ._errors import ProblemList

__all__ = ["RANDOM_INDEX", "CR_LIMIT", "SAATY_SCALE", "AHPWeights", "pairwise_matrix", "ahp_weights", "ahp_amounts"]

# Saaty's random indices RI(n): the mean CI of random reciprocal matrices of order n (Saaty 1980)
RANDOM_INDEX = {1: 0.0, 2: 0.0, 3: 0.58, 4: 0.90, 5: 1.12, 6: 1.24, 7: 1.32, 8: 1.41, 9: 1.45, 10: 1.49}
CR_LIMIT = 0.1
# the judgements the scale allows, from "i extremely more" (9) to "j extremely more" (1/9)
SAATY_SCALE = tuple([float(k) for k in range(9, 1, -1)] + [1.0] + [1.0 / k for k in range(2, 10)])
_RECIPROCAL_RTOL = 1e-6
_SCALE_LOW, _SCALE_HIGH = 1.0 / 9.0 * (1 - 1e-9), 9.0 * (1 + 1e-9)


def _nan_none(x):
    x = float(x)
    return x if np.isfinite(x) else None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class AHPWeights:
    """Priority weights of a pairwise comparison matrix and how consistent it is.

    Attributes
    ----------
    items : tuple of str
        The compared items, in matrix order.
    matrix : ndarray of shape (n, n)
        The reciprocal judgement matrix (a_ij: how many times more item i matters than j).
    weights : ndarray of shape (n,)
        Normalised principal eigenvector: positive, sums to 1.
    lambda_max : float
        The principal eigenvalue (≥ n; = n exactly when the judgements are consistent).
    ci : float
        Consistency index (λmax − n) / (n − 1).
    ri : float
        Saaty's random index RI(n); NaN for n > 10 (no standard value).
    cr : float
        Consistency ratio CI / RI(n). For n = 2 it is 0 by construction: every 2×2
        reciprocal matrix is consistent (λmax = 2, CI = 0), although RI(2) = 0 makes the
        ratio itself 0/0 — ``notes["cr"]`` says so. NaN for n > 10.
    inconsistent : bool
        CR > ``CR_LIMIT`` (0.1): revise the judgements. False when CR is NaN.
    worst_pair : (str, str) or None
        The judgement furthest from what the weights imply, i.e. the pair (i, j), i before j,
        maximising |log(a_ij · w_j / w_i)|; the first one to revisit when CR is high.
        None when the matrix is consistent up to rounding.
    worst_pair_implied : float
        w_i / w_j for ``worst_pair`` (what a consistent answer would be); NaN when none.
    notes : dict
        Field name → plain-language explanation (n = 2, n > 10).
    """

    items: tuple
    matrix: np.ndarray
    weights: np.ndarray
    lambda_max: float
    ci: float
    ri: float
    cr: float
    inconsistent: bool
    worst_pair: tuple | None = None
    worst_pair_implied: float = float("nan")
    notes: dict = field(default_factory=dict)

    def weight_of(self) -> dict:
        """Weights keyed by item."""
        return {it: float(w) for it, w in zip(self.items, self.weights)}

    def to_dict(self) -> dict:
        return {
            "items": list(self.items),
            "matrix": self.matrix.tolist(),
            "weights": self.weight_of(),
            "lambda_max": _nan_none(self.lambda_max),
            "ci": _nan_none(self.ci),
            "ri": _nan_none(self.ri),
            "cr": _nan_none(self.cr),
            "cr_limit": CR_LIMIT,
            "inconsistent": bool(self.inconsistent),
            "worst_pair": list(self.worst_pair) if self.worst_pair else None,
            "worst_pair_implied": _nan_none(self.worst_pair_implied),
            "notes": dict(self.notes),
        }


def _check_items(items, problems: ProblemList) -> tuple:
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        problems.add(
            "items_invalid",
            f"items must be a list of names; got {type(items).__name__}.",
            'Pass e.g. ["TP", "FP", "FN", "TN"].',
            column="items",
        )
        return ()
    names = tuple(str(i) for i in items)
    if len(names) < 2:
        problems.add(
            "items_too_few",
            f"AHP needs at least 2 items to compare; got {len(names)}.",
            "Compare two or more outcomes.",
            column="items",
        )
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        problems.add(
            "items_duplicate", f"items must be distinct; repeated: {dup}.", "Give every item its own name.", column="items"
        )
    return names


def _judgement_problem(v) -> str:
    """Why a judgement is not usable ('' when it is)."""
    if isinstance(v, bool):
        return "a bool"
    try:
        fv = float(v)
    except (TypeError, ValueError):
        return f"not a number ({v!r})"
    if not np.isfinite(fv) or fv <= 0:
        return f"not a positive finite number ({v!r})"
    if not (_SCALE_LOW <= fv <= _SCALE_HIGH):
        return f"outside Saaty's scale 1/9 … 9 ({fv:g})"
    return ""


def pairwise_matrix(judgements: Mapping, items: Sequence) -> np.ndarray:
    """The reciprocal matrix from the upper-triangle judgements.

    Parameters
    ----------
    judgements : mapping of (str, str) to float
        For every pair (a, b) with a listed before b in ``items``: how many times more a
        matters than b, on Saaty's scale — 1 (equal), 3 (moderately), 5 (strongly),
        7 (very strongly), 9 (extremely), 2/4/6/8 between; b mattering more is the
        reciprocal (1/3 … 1/9). A pair may be given the other way round, (b, a), with the
        value meaning "how many times more b matters than a".
    items : sequence of str
        The items, n ≥ 2.

    Returns
    -------
    ndarray of shape (n, n)
        a_ij as judged, a_ji = 1/a_ij, a_ii = 1.

    Raises
    ------
    InputError
        Missing pairs, pairs given twice (both ways), unknown items, values off the
        1/9 … 9 scale or not positive — all at once.

    Examples
    --------
    >>> pairwise_matrix({("TP", "FP"): 3, ("TP", "FN"): 1 / 2, ("FN", "FP"): 5}, ["TP", "FP", "FN"]).round(3).tolist()
    [[1.0, 3.0, 0.5], [0.333, 1.0, 0.2], [2.0, 5.0, 1.0]]
    """
    problems = ProblemList()
    names = _check_items(items, problems)
    if not isinstance(judgements, Mapping):
        problems.add(
            "judgements_not_mapping",
            f"judgements must map (item, item) pairs to numbers; got {type(judgements).__name__}.",
            'Pass e.g. {("TP", "FP"): 3}.',
            column="judgements",
        )
        problems.raise_if_any()
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    a = np.eye(n)
    seen = np.eye(n, dtype=bool)
    for key, v in judgements.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            problems.add(
                "judgement_key_invalid",
                f"judgement keys must be (item, item) pairs; got {key!r}.",
                'Use keys like ("TP", "FP").',
                column="judgements",
            )
            continue
        ka, kb = str(key[0]), str(key[1])
        unknown = [k for k in (ka, kb) if k not in index]
        if unknown:
            problems.add(
                "judgement_unknown_item",
                f"judgement {key!r} names unknown items {unknown}; items are {list(names)}.",
                "Compare only the listed items.",
                column="judgements",
            )
            continue
        i, j = index[ka], index[kb]
        if i == j:
            problems.add(
                "judgement_self",
                f"judgement {key!r} compares an item with itself (always 1).",
                "Leave the diagonal out.",
                column="judgements",
            )
            continue
        why = _judgement_problem(v)
        if why:
            problems.add(
                "judgement_off_scale",
                f"judgement {ka} vs {kb} must be on Saaty's scale 1/9 … 9; it is {why}.",
                "Use 1 (equal) … 9 (extremely more), or 1/2 … 1/9 when the second matters more.",
                column="judgements",
            )
            continue
        if seen[i, j]:
            problems.add(
                "judgement_twice",
                f"the pair {ka}/{kb} is judged twice (both ways round).",
                "Give each pair once; the reverse is its reciprocal.",
                column="judgements",
            )
            continue
        a[i, j], a[j, i] = float(v), 1.0 / float(v)
        seen[i, j] = seen[j, i] = True
    missing = [f"{names[i]}/{names[j]}" for i in range(n) for j in range(i + 1, n) if not seen[i, j]]
    if missing:
        problems.add(
            "judgement_missing",
            f"{len(missing)} pair(s) are not judged: {', '.join(missing)}.",
            "Judge every pair (1 when they matter equally).",
            column="judgements",
        )
    problems.raise_if_any()
    return a


def _check_matrix(matrix, items, problems: ProblemList) -> tuple[np.ndarray, tuple]:
    try:
        a = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        problems.add(
            "matrix_not_numeric",
            f"matrix must be a square array of numbers; got {type(matrix).__name__}.",
            "Pass an n×n list of lists or numpy array.",
            column="matrix",
        )
        return np.empty((0, 0)), ()
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        problems.add(
            "matrix_not_square",
            f"matrix must be square (n×n); got shape {a.shape}.",
            "Pass one row and one column per item.",
            column="matrix",
        )
        return a, ()
    n = a.shape[0]
    if n < 2:
        problems.add(
            "matrix_too_small",
            f"AHP needs at least 2 items; got a {n}×{n} matrix.",
            "Compare two or more items.",
            column="matrix",
        )
    if items is None:
        names = tuple(f"item {i + 1}" for i in range(n))
    else:
        names = _check_items(items, problems)
        if names and len(names) != n:
            problems.add(
                "items_length",
                f"items must name each of the {n} rows; got {len(names)} names.",
                "Pass one name per row of the matrix.",
                column="items",
            )
    finite = np.isfinite(a)
    if not finite.all():
        problems.add(
            "matrix_not_finite",
            f"matrix must be finite; {int((~finite).sum())} entries are NaN or infinite.",
            "Fill every judgement.",
            column="matrix",
        )
    pos = finite & (a > 0)
    if not (pos | ~finite).all():
        problems.add(
            "matrix_not_positive",
            f"judgements must be positive; {int((finite & (a <= 0)).sum())} entries are ≤ 0.",
            "Use 1 … 9 or their reciprocals 1/2 … 1/9.",
            column="matrix",
        )
    diag = np.diag(a)
    if not np.allclose(diag[np.isfinite(diag)], 1.0, rtol=0, atol=1e-9):
        problems.add(
            "matrix_diagonal",
            f"the diagonal must be 1 (an item matters as much as itself); got {np.round(diag, 4).tolist()}.",
            "Set a_ii = 1.",
            column="matrix",
        )
    off = ~np.eye(n, dtype=bool) & pos
    bad_scale = off & ((a < _SCALE_LOW) | (a > _SCALE_HIGH))
    if bad_scale.any():
        problems.add(
            "matrix_off_scale",
            f"{int(bad_scale.sum())} judgements lie outside Saaty's scale 1/9 … 9 (e.g. {a[bad_scale][:3].round(4).tolist()}).",
            "Use 1 … 9 or their reciprocals.",
            column="matrix",
        )
    both = pos & pos.T
    with np.errstate(invalid="ignore", divide="ignore"):
        recip = both & ~np.isclose(a * a.T, 1.0, rtol=_RECIPROCAL_RTOL, atol=0)
    iu = np.triu(recip, 1)
    if iu.any():
        pairs = [f"({r + 1},{c + 1})" for r, c in zip(*np.nonzero(iu))]
        problems.add(
            "matrix_not_reciprocal",
            f"matrix must be reciprocal (a_ji = 1/a_ij); {len(pairs)} pair(s) are not: "
            f"{', '.join(pairs[:5])}{' …' if len(pairs) > 5 else ''}.",
            "Enter only the upper triangle (pairwise_matrix builds the reciprocals).",
            column="matrix",
        )
    return a, names


def ahp_weights(matrix, *, items: Sequence | None = None) -> AHPWeights:
    """Principal-eigenvector weights, λmax, CI and CR of a pairwise comparison matrix.

    Parameters
    ----------
    matrix : array-like of shape (n, n)
        Positive reciprocal judgement matrix, n ≥ 2 (see :func:`pairwise_matrix`).
    items : sequence of str, default=None
        Names of the rows; "item 1", "item 2", … by default.

    Returns
    -------
    AHPWeights

    Raises
    ------
    InputError
        Not square, n < 2, non-finite or non-positive entries, a diagonal other than 1,
        entries off the 1/9 … 9 scale, not reciprocal, wrong number of names — all at once.

    Notes
    -----
    A positive matrix has a simple largest eigenvalue λmax with a positive eigenvector
    (Perron–Frobenius); ``numpy.linalg.eig`` finds it, and its sign is fixed so that it is
    positive, then it is scaled to sum 1. CI = (λmax − n)/(n − 1); CR = CI / RI(n) with
    Saaty's random indices RI = 0, 0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49 for
    n = 1 … 10. CR > 0.1 flags judgements to revise.

    Examples
    --------
    A consistent matrix (a_ij = w_i / w_j) returns its weights and CR 0:

    >>> r = ahp_weights([[1, 2, 4], [1 / 2, 1, 2], [1 / 4, 1 / 2, 1]], items=["a", "b", "c"])
    >>> r.weights.round(4).tolist(), round(r.lambda_max, 6), round(r.cr, 6)
    ([0.5714, 0.2857, 0.1429], 3.0, 0.0)
    """
    problems = ProblemList()
    a, names = _check_matrix(matrix, items, problems)
    problems.raise_if_any()
    n = a.shape[0]
    values, vectors = np.linalg.eig(a)
    k = int(np.argmax(values.real))
    lam = float(values[k].real)
    v = vectors[:, k].real
    v = v if v.sum() > 0 else -v  # the Perron vector is one-signed; eig may return it negated
    w = v / v.sum()
    lam = max(lam, float(n))  # λmax ≥ n for a positive reciprocal matrix; below it only by rounding
    ci = (lam - n) / (n - 1)
    notes = {}
    if n == 2:
        ri, cr = 0.0, 0.0
        ci = 0.0
        notes["cr"] = (
            "with 2 items every reciprocal matrix is consistent (λmax = 2, CI = 0): the inconsistency "
            "is 0 by construction, although CI/RI is 0/0 since RI(2) = 0"
        )
    elif n in RANDOM_INDEX:
        ri = RANDOM_INDEX[n]
        cr = ci / ri
    else:
        ri = cr = float("nan")
        notes["cr"] = f"Saaty's random index is tabulated for n ≤ 10 only; with {n} items CR is undefined (CI is shown)"
    # which answer disagrees most with the weights: log(a_ij / (w_i / w_j)), i < j
    dev = np.abs(np.log(a) - np.log(w)[:, None] + np.log(w)[None, :])
    iu = np.triu_indices(n, 1)
    j = int(np.argmax(dev[iu]))
    worst, implied = None, float("nan")
    if dev[iu][j] > 1e-6:
        r, c = int(iu[0][j]), int(iu[1][j])
        worst, implied = (names[r], names[c]), float(w[r] / w[c])
    return AHPWeights(
        items=names,
        matrix=a,
        weights=w,
        lambda_max=lam,
        ci=float(ci),
        ri=float(ri),
        cr=float(cr),
        inconsistent=bool(np.isfinite(cr) and cr > CR_LIMIT),
        worst_pair=worst,
        worst_pair_implied=implied,
        notes=notes,
    )


def ahp_amounts(weights: AHPWeights, *, gains: Sequence, scale: float | None = None, anchor: tuple | None = None) -> dict:
    """Relative amounts from AHP weights: sign × weight × scale.

    Parameters
    ----------
    weights : AHPWeights
    gains : sequence of str
        The items that are gains (positive amounts); every other item is a cost
        (negative), per the sign convention of SPEC §2.2. For a value table's outcomes
        the usual choice is ``["TP", "TN"]``.
    scale : float, default=None
        Money per unit of weight (> 0): the amounts are ``±weight × scale``.
    anchor : (str, float), default=None
        Alternatively, one item's known amount, e.g. ``("FN", -22000)``: the scale is
        ``|amount| / weight[item]``, so that item gets exactly that amount. Its sign must
        agree with ``gains``. Give exactly one of ``scale`` and ``anchor``.

    Returns
    -------
    dict
        Item → amount (money gained per event; costs negative).

    Raises
    ------
    InputError
        Unknown items in ``gains`` or ``anchor``, neither or both of ``scale`` and
        ``anchor``, a scale that is not a positive finite number, an anchor amount of 0 or
        of the wrong sign — all at once.

    Examples
    --------
    >>> r = ahp_weights([[1, 4], [1 / 4, 1]], items=["FN", "FP"])
    >>> ahp_amounts(r, gains=[], anchor=("FN", -20000))
    {'FN': -20000.0, 'FP': -5000.0}
    """
    problems = ProblemList()
    if not isinstance(weights, AHPWeights):
        problems.add(
            "weights_type",
            f"weights must be an AHPWeights (from ahp_weights); got {type(weights).__name__}.",
            "Call ahp_weights(matrix, items=…) first.",
            column="weights",
        )
        problems.raise_if_any()
    items = weights.items
    if isinstance(gains, (str, bytes)) or not isinstance(gains, Sequence | set | frozenset):
        problems.add(
            "gains_invalid",
            f"gains must be a list of item names; got {type(gains).__name__}.",
            'Pass e.g. ["TP", "TN"].',
            column="gains",
        )
        gains = ()
    unknown = sorted({str(g) for g in gains} - set(items))
    if unknown:
        problems.add(
            "gains_unknown_item",
            f"gains names unknown items {unknown}; items are {list(items)}.",
            "Name only compared items.",
            column="gains",
        )
    sign = {it: (1.0 if it in {str(g) for g in gains} else -1.0) for it in items}
    w = weights.weight_of()
    s = float("nan")
    if (scale is None) == (anchor is None):
        problems.add(
            "scale_or_anchor",
            "give exactly one of scale (money per unit of weight) and anchor "
            f"((item, amount)); got {'both' if scale is not None else 'neither'}.",
            'E.g. scale=10000, or anchor=("FN", -22000).',
            column="scale",
        )
    elif scale is not None:
        s = positive_number(scale)
        if np.isnan(s):
            problems.add(
                "scale_invalid",
                f"scale must be a positive finite number (money per unit of weight); got {scale!r}.",
                "E.g. 10000.",
                column="scale",
            )
    else:
        if not (isinstance(anchor, tuple | list) and len(anchor) == 2):
            problems.add(
                "anchor_invalid",
                f"anchor must be an (item, amount) pair; got {anchor!r}.",
                'E.g. ("FN", -22000).',
                column="anchor",
            )
        else:
            it, amount = str(anchor[0]), anchor[1]
            try:
                amt = float(amount)
            except (TypeError, ValueError):
                amt = float("nan")
            if it not in w:
                problems.add(
                    "anchor_unknown_item",
                    f"anchor item {it!r} is not compared; items are {list(items)}.",
                    "Anchor one of the compared items.",
                    column="anchor",
                )
            elif isinstance(amount, bool) or not np.isfinite(amt) or amt == 0:
                problems.add(
                    "anchor_amount_invalid",
                    f"anchor amount must be a non-zero finite number; got {amount!r}.",
                    "Enter the known money per event of that outcome.",
                    column="anchor",
                )
            elif np.sign(amt) != sign[it]:
                kind = "a gain" if sign[it] > 0 else "a cost"
                problems.add(
                    "anchor_sign",
                    f"anchor {it} = {amt:+,.2f} contradicts its role: {it} is marked as {kind}.",
                    f"Enter {it} as {'a positive' if sign[it] > 0 else 'a negative'} amount, or change which outcomes are gains.",
                    column="anchor",
                )
            else:
                s = abs(amt) / w[it]
    problems.raise_if_any()
    out = {it: sign[it] * w[it] * s for it in items}
    if anchor is not None:
        out[str(anchor[0])] = float(anchor[1])  # exactly as entered, not w·(|a|/w) after rounding
    return out
