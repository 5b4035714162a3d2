"""How much evidence the board's intervals rest on (issue 14: small evidence is said).

A bootstrap interval is an approximation whose quality depends on how many independent
rows carry what it measures. With few positives (the rare, expensive class), or a value
difference carried by a handful of rows, resampling can only redraw what was seen: a 95%
percentile interval of EV_B − EV_A on 300 rows at 5% positives covers about 0.90–0.92, BCa
0.87–0.88 (``tests/evalcore/test_bootstrap_coverage.py``; ``method="bayes"`` keeps ≈ 0.95).
:func:`small_evidence_of_cells` measures
the two counts that decide it, from the aggregate's cells, so every engine finds the same;
the presentation layer words it.

positives
---------
The positives the resampling draws, in the unit of the board's scheme:

- ``rows``: positive rows, as a Kish effective count (Σw)² / Σw² — the number of rows
  without weights, fewer when a few heavy rows carry the total;
- ``strata`` (stratified scheme): the smallest such count among the strata — each stratum is
  resampled on its own, so its positive rate rests on its own positives only (a stratum
  with rows but no positive counts 0: its positive rate cannot vary);
- ``groups`` (cluster scheme): the groups holding a positive row — groups are what is drawn,
  so fifty positive rows of two customers are two draws, not fifty.

min_expected_cell
-----------------
The expected count of the cell an interval rests on, for the intervals at the deployed
thresholds: each model's EV (its four confusion cells) and, with two models, EV_B − EV_A
(the paired table's eight cells: A's decision × B's decision × label). A statistic that is
a weighted sum of cells is carried by the cells that hold its variance; its count is

    ν = (Σ_k n_k·c_k²)² / Σ_k n_k·c_k⁴,

with n_k the rows of cell k (Kish effective rows where cells carry squared weights) and c_k
the influence of one of its rows (its value, weighted, minus the estimate; with a
production prevalence the post-stratified influence of :func:`evalcore.analytic_ev_se`).
ν is the number of equally influential rows that would give the statistic its variance and
kurtosis. For a proportion p̂ of n rows it is n·p̂(1−p̂)/(p̂³ + (1−p̂)³) ≈ n·min(p̂, 1−p̂) — the
expected count of its smaller cell, the textbook rule. A cell that holds no share of the
variance (model A acting on 5 rows of 50,000: its TP cell holds 1 row) leaves ν large,
whereas a difference carried by five discordant positive rows gives ν ≈ 6, where the 95%
percentile interval covers 0.92 (ν ≈ 31: 0.944; ``test_bootstrap_coverage.py``; in a wider
trial of random cell tables, ν below 8 gave 0.90–0.93 and ν from 10 up 0.92–0.97 at a
Monte-Carlo SD of 0.009). A statistic with no variance at all on the data (every row in one
cell) has ν = 0: its interval is a point.

The smallest raw confusion cell (per model, at its threshold, in Kish effective rows) is
reported too (``min_confusion_cell``), as information: alone it flags boards whose
intervals are fine (a good model with three false positives).

The intervals are called approximate when ``positives < positive_limit`` (50) or
``min_expected_cell < cell_limit`` (10).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._json import json_float

__all__ = ["POSITIVE_LIMIT", "CELL_LIMIT", "SmallEvidence", "effective_count", "small_evidence_of_cells"]

POSITIVE_LIMIT = 50  # fewer positives (in the scheme's units) than this: intervals are approximate
CELL_LIMIT = 10  # an interval resting on fewer effective rows than this: approximate
_CELLS = ("tp", "fp", "fn", "tn")


@dataclass(frozen=True, slots=True, kw_only=True)
class SmallEvidence:
    """Whether the board's intervals rest on little evidence, with the counts that decide it.

    Attributes
    ----------
    positives : float
        Positives the resampling draws, in the unit of ``positives_basis``: Kish effective
        positive rows ("rows"), the smallest stratum's ("strata"), or groups holding a
        positive row ("groups").
    positives_basis : {"rows", "strata", "groups"}
    stratum : str or None
        With ``positives_basis == "strata"``: the stratum (segment level) with the fewest.
    min_expected_cell : float
        ν of the interval resting on the fewest rows (module docstring).
    interval : {"ev", "diff"}
        Which interval that is: a model's EV (``model``) or EV_B − EV_A (``model`` None).
    model : str or None
    min_confusion_cell : float
        Smallest confusion cell of any model at its threshold (Kish effective rows), and
        which (``confusion_cell`` of ``confusion_model``): information, not a trigger.
    confusion_cell : {"tp", "fp", "fn", "tn"}
    confusion_model : str
    positive_limit, cell_limit : int
        The limits (50 and 10).
    approximate : bool
        ``positives < positive_limit or min_expected_cell < cell_limit``.
    reasons : tuple of str
        Codes of the limits crossed: "few_positives", "small_cell".
    """

    positives: float
    positives_basis: str
    stratum: str | None = None
    min_expected_cell: float
    interval: str
    model: str | None = None
    min_confusion_cell: float
    confusion_cell: str
    confusion_model: str
    positive_limit: int = POSITIVE_LIMIT
    cell_limit: int = CELL_LIMIT
    approximate: bool
    reasons: tuple = ()

    @property
    def limits(self) -> tuple[int, int]:
        """``(positive_limit, cell_limit)``."""
        return (self.positive_limit, self.cell_limit)

    def to_dict(self) -> dict:
        return {
            "approximate": bool(self.approximate),
            "reasons": list(self.reasons),
            "positives": json_float(self.positives),
            "positives_basis": self.positives_basis,
            "stratum": self.stratum,
            "min_expected_cell": json_float(self.min_expected_cell),
            "interval": self.interval,
            "model": self.model,
            "min_confusion_cell": json_float(self.min_confusion_cell),
            "confusion_cell": self.confusion_cell,
            "confusion_model": self.confusion_model,
            "positive_limit": self.positive_limit,
            "cell_limit": self.cell_limit,
        }


def _kish(w: np.ndarray, w2: np.ndarray) -> float:
    """(Σw)² / Σw²: the effective number of rows behind a weighted total (0 when empty)."""
    total, total_sq = float(np.sum(w)), float(np.sum(w2))
    return total * total / total_sq if total > 0 and total_sq > 0 else 0.0


def effective_count(n, weight, value, positive, *, prevalence: float | None = None) -> float:
    """ν = (Σ n_k c_k²)² / Σ n_k c_k⁴ of a weighted mean of cell values (module docstring).

    Parameters
    ----------
    n : array-like of shape (K,)
        Rows of each cell (or Kish effective rows).
    weight : array-like of shape (K,)
        Total weight of each cell (= ``n`` without weights).
    value : array-like of shape (K,)
        The value of one row of each cell (e.g. its effective amount, or B's minus A's).
    positive : array-like of bool, shape (K,)
        Whether the cell's rows are positives (the production prevalence reweights classes).
    prevalence : float, default=None

    Returns
    -------
    float
        ν; 0 when the statistic has no variance on the data (or no rows).

    Examples
    --------
    >>> round(effective_count([30, 970], [30, 970], [1.0, 0.0], [True, False]), 2)  # p = 0.03 of n = 1000
    31.88

    (n·p(1−p) / (p³ + (1−p)³) = 29.1 / 0.912700 = 31.88: about the smaller cell's 30 rows.)
    """
    n, w, x = (np.asarray(a, dtype=np.float64) for a in (n, weight, value))
    pos = np.asarray(positive, dtype=bool)
    keep = (n > 0) & (w > 0)
    n, w, x, pos = n[keep], w[keep], x[keep], pos[keep]
    total = w.sum()
    if total <= 0:
        return 0.0
    wp, wn = w[pos].sum(), w[~pos].sum()
    if prevalence is not None and wp > 0 and wn > 0:
        base = wp / total
        mp, mn = (w[pos] * x[pos]).sum() / wp, (w[~pos] * x[~pos]).sum() / wn
        c = np.where(pos, prevalence / base * (x - mp), (1 - prevalence) / (1 - base) * (x - mn))
    else:
        c = x - (w * x).sum() / total
    c = np.where(np.abs(c) <= 1e-12 * float(np.max(np.abs(x))), 0.0, c)  # one value: rounding, not variance
    c = c * (w / n)  # one row's weighted influence: a cell's rows carry its mean weight
    s2, s4 = float(n @ c**2), float(n @ c**4)
    return s2 * s2 / s4 if s4 > 0 else 0.0


def _below(x: float, smallest: float) -> bool:
    """x is a new minimum: smaller beyond rounding (ties keep the first — e.g. the EV of a model
    acting on everyone and its difference to one acting on no one are one binary variable)."""
    return x < smallest and not np.isclose(x, smallest, rtol=1e-9, atol=0.0)


def _values(table) -> np.ndarray:
    return np.asarray(table.vector(), dtype=np.float64)


def small_evidence_of_cells(
    parts: dict,
    thresholds: dict,
    table,
    *,
    paired: pd.DataFrame | None = None,
    strata: pd.DataFrame | None = None,
    groups: pd.DataFrame | None = None,
    positive_limit: int = POSITIVE_LIMIT,
    cell_limit: int = CELL_LIMIT,
) -> SmallEvidence | None:
    """The small-evidence finding of a board, from its aggregate's cells.

    Parameters
    ----------
    parts : dict
        Model -> its cells over all rows (columns ``score``, ``label``, ``weight``,
        ``weight_sq``; :meth:`evalcore.aggregate.Aggregate.part`). The first model's cells
        count the positives (every model is scored on the same rows).
    thresholds : dict
        Model -> deployed threshold (act iff ``score >= threshold``).
    table : ValueTable
        The amounts (and production prevalence) the intervals price with.
    paired : DataFrame, default=None
        Two models: the paired table at ``thresholds`` (``act_a``, ``act_b``, ``label``,
        ``rows``, ``weight``), for the interval of EV_B − EV_A.
    strata : DataFrame, default=None
        Stratified scheme: the first model's cells by the strata column (``level``, ``label``,
        ``weight``, ``weight_sq``).
    groups : DataFrame, default=None
        Cluster scheme: the first model's per-group cells (``group``, ``label``, ``weight``).
    positive_limit, cell_limit : int, default=50, 10

    Returns
    -------
    SmallEvidence or None
        None when there are no rows of positive weight (nothing to count: the board's numbers
        are undefined and say so themselves).

    Examples
    --------
    >>> from evalcore.value import ValueTable
    >>> cells = pd.DataFrame({"score": [0.9, 0.9, 0.2, 0.2], "label": [1, 0, 1, 0],
    ...                       "weight": [12.0, 30.0, 3.0, 955.0], "weight_sq": [12.0, 30.0, 3.0, 955.0]})
    >>> e = small_evidence_of_cells({"m": cells}, {"m": 0.5}, ValueTable(tp=10, fp=-2, fn=-10, tn=0))
    >>> e.positives, e.min_confusion_cell, e.confusion_cell, e.approximate, e.reasons   # 12 + 3 positives
    (15.0, 3.0, 'fn', True, ('few_positives',))
    """
    names = list(parts)
    if not names:
        return None
    first = parts[names[0]]
    w = first["weight"].to_numpy(np.float64)
    if not (w > 0).any():
        return None
    v = _values(table)
    prev = table.prevalence
    stratum = None
    if groups is not None:
        g = groups[(groups["label"].to_numpy() == 1) & (groups["weight"].to_numpy() > 0)]
        positives, basis = float(pd.unique(g["group"].astype(str)).shape[0]), "groups"
    elif strata is not None:
        s = strata[strata["weight"].to_numpy() > 0]
        basis, positives = "strata", np.inf
        for level in sorted(set(s["level"].astype(str))):
            c = s[(s["level"].astype(str) == level).to_numpy() & (s["label"].to_numpy() == 1)]
            k = _kish(c["weight"].to_numpy(np.float64), c["weight_sq"].to_numpy(np.float64))
            if _below(k, positives):
                positives, stratum = k, level
        positives = float(positives)
    else:
        pos = (first["label"].to_numpy() == 1) & (w > 0)
        positives, basis = _kish(w[pos], first["weight_sq"].to_numpy(np.float64)[pos]), "rows"

    nu, interval, nu_model = np.inf, "", None
    raw, raw_cell, raw_model = np.inf, "", ""
    positive = np.array([True, False, True, False])
    for name in names:
        p = parts[name]
        p = p[p["weight"].to_numpy() > 0]
        act = p["score"].to_numpy() >= thresholds[name]
        lab = p["label"].to_numpy() == 1
        pw, pw2 = p["weight"].to_numpy(np.float64), p["weight_sq"].to_numpy(np.float64)
        n_k, w_k = np.zeros(4), np.zeros(4)
        for i, m in enumerate((act & lab, act & ~lab, ~act & lab, ~act & ~lab)):
            n_k[i], w_k[i] = _kish(pw[m], pw2[m]), pw[m].sum()
            if _below(n_k[i], raw):
                raw, raw_cell, raw_model = n_k[i], _CELLS[i], str(name)
        k = effective_count(n_k, w_k, v, positive, prevalence=prev)
        if _below(k, nu):
            nu, interval, nu_model = k, "ev", str(name)
    if paired is not None and len(names) == 2:
        p = paired[paired["weight"].to_numpy() > 0]
        key = (4 * (1 - p["act_a"].to_numpy()) + 2 * (1 - p["act_b"].to_numpy()) + (1 - p["label"].to_numpy())).astype(np.int64)
        n8 = np.bincount(key, weights=p["rows"].to_numpy(np.float64), minlength=8)
        w8 = np.bincount(key, weights=p["weight"].to_numpy(np.float64), minlength=8)
        k8 = np.arange(8)
        a_act, b_act, pos8 = k8 // 4 == 0, (k8 // 2) % 2 == 0, k8 % 2 == 0

        def value(acts):
            return np.where(acts, np.where(pos8, v[0], v[1]), np.where(pos8, v[2], v[3]))

        k = effective_count(n8, w8, value(b_act) - value(a_act), pos8, prevalence=prev)
        if _below(k, nu):
            nu, interval, nu_model = k, "diff", None
    reasons = tuple(
        code for code, crossed in (("few_positives", positives < positive_limit), ("small_cell", nu < cell_limit)) if crossed
    )
    return SmallEvidence(
        positives=positives,
        positives_basis=basis,
        stratum=stratum,
        min_expected_cell=float(nu),
        interval=interval,
        model=nu_model,
        min_confusion_cell=float(raw),
        confusion_cell=raw_cell,
        confusion_model=raw_model,
        positive_limit=int(positive_limit),
        cell_limit=int(cell_limit),
        approximate=bool(reasons),
        reasons=reasons,
    )
