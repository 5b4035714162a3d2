"""The slow, obviously-correct bootstrap the cell engine of evalcore.bootstrap is tested
against: resample row indices (or whole groups) in batches and call any statistic, like
:func:`scipy.stats.bootstrap`. Test code only — no board number goes through it.

It shares with the engine only the option checks, the strata/group codes and the interval
from a distribution (``_summarise``), so the draws themselves are independent of it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from evalcore._checks import as_generator
from evalcore._errors import ProblemList
from evalcore.bootstrap import (
    _MAX_CELLS_PER_BATCH,
    BootstrapResult,
    _check_options,
    _codes,
    _group_strata,
    _scheme_name,
    _summarise,
)


def bootstrap_statistic(
    statistic: Callable,
    *arrays,
    n_resamples: int = 1000,
    level: float = 0.95,
    method: str = "percentile",
    strata=None,
    groups=None,
    batch: int | None = None,
    vectorized: bool = True,
    rng=None,
    progress=None,
) -> BootstrapResult:
    """Bootstrap any statistic by resampling row indices (like :func:`scipy.stats.bootstrap`).

    Parameters
    ----------
    statistic : callable
        ``statistic(*arrays, axis=-1)``. With ``vectorized=True`` it receives arrays of shape
        (batch, n) and returns shape (batch,); otherwise 1-D arrays and a scalar. The cluster
        scheme draws replicates of varying length, so it always calls it one replicate at a time.
    *arrays : array-like of shape (n,)
        Paired samples (resampled with the same indices).
    n_resamples, level, method, strata, groups, rng
        As :func:`ev_interval`. BCa uses the leave-one-row-out (or leave-one-group-out) jackknife.
    batch : int, default=None
        Replicates per batch; results do not depend on it.
    vectorized : bool, default=True
    progress : callable(done, total), default=None

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> x = np.arange(10.0)
    >>> r = bootstrap_statistic(np.mean, x, n_resamples=500, rng=0)
    >>> r.estimate, r.low < 4.5 < r.high
    (4.5, True)
    """
    problems = ProblemList()
    data = [np.asarray(a) for a in arrays]
    if not data:
        problems.add("no_data", "bootstrap_statistic needs at least one array.", "Pass the sample(s).")
    elif any(a.ndim != 1 or len(a) != len(data[0]) for a in data):
        problems.add(
            "shape",
            f"arrays must be 1-D of equal length; got shapes {[a.shape for a in data]}.",
            "Pass one value per row in each array.",
        )
    n = len(data[0]) if data and data[0].ndim == 1 else 0
    if data and n == 0:
        problems.add("empty", "bootstrap_statistic needs at least one row; got 0.", "Pass the sample(s).")
    _check_options(problems, n_resamples, level, method, batch)
    st = _codes(strata, "strata", n, problems) if strata is not None and n else None
    gr = _codes(groups, "groups", n, problems) if groups is not None and n else None
    problems.raise_if_any()
    scheme = _scheme_name(st, gr)
    s = st if st is not None else np.zeros(n, np.int64)
    estimate = float(statistic(*data, axis=-1))

    def call(idx_rows):
        if vectorized and gr is None:
            return np.asarray(statistic(*[a[idx_rows] for a in data], axis=-1), dtype=float)
        return np.array([float(statistic(*[a[ix] for a in data], axis=-1)) for ix in idx_rows])

    if gr is None:
        members = [np.flatnonzero(s == j) for j in range(int(s.max()) + 1)]
    else:
        g_stratum = _group_strata(gr, s, check=st is not None)
        group_rows = pd.Series(np.arange(n)).groupby(gr).apply(lambda r: r.to_numpy()).to_list()
        members = [np.flatnonzero(g_stratum == j) for j in range(int(s.max()) + 1)]
    members = [m for m in members if len(m)]
    gens = as_generator(rng).spawn(len(members))
    if batch is None:
        batch = max(1, min(n_resamples, _MAX_CELLS_PER_BATCH // max(n, 1)))
    out = []
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        picks = [m[g.integers(0, len(m), size=(b, len(m)))] for m, g in zip(members, gens)]
        if gr is None:
            out.append(call(np.concatenate(picks, axis=1)))
        else:
            chosen = np.concatenate(picks, axis=1)
            out.append(call([np.concatenate([group_rows[j] for j in row]) for row in chosen]))
        done += b
        if progress is not None:
            progress(done, n_resamples)
    dist = np.concatenate(out)
    jack = None
    if method == "bca":
        if gr is None:
            theta = []
            jb = max(1, _MAX_CELLS_PER_BATCH // max(n, 1))
            for a in range(0, n, jb):
                rows = np.arange(a, min(n, a + jb))
                idx = np.array([np.r_[0:i, i + 1 : n] for i in rows])
                theta.append(call(idx))
            jack = (np.concatenate(theta), np.ones(n, np.int64))
        else:
            theta = [
                float(
                    statistic(
                        *[a[np.concatenate([group_rows[j] for j in range(len(group_rows)) if j != g])] for a in data], axis=-1
                    )
                )
                for g in range(len(group_rows))
            ]
            jack = (np.array(theta), np.ones(len(group_rows), np.int64))
    return _summarise(dist, estimate, level=level, method=method, scheme=scheme, n_resamples=n_resamples, jack=jack)


# --------------------------------------------------------------------------------------
# small evidence from rows (evalcore.evidence computes it from an aggregate's cells)
# --------------------------------------------------------------------------------------


def _kish(w) -> float:
    w = np.asarray(w, dtype=float)
    return float(w.sum() ** 2 / (w**2).sum()) if len(w) and w.sum() > 0 else 0.0


def _nu(frame: pd.DataFrame, prevalence) -> float:
    """ν of a weighted mean over rows grouped in cells (columns key, x, pos, w): each cell's
    rows counted as its effective rows ``n`` carrying the cell's mean weight, by pandas."""
    c = frame.groupby("key").agg(n=("n", "first"), W=("w", "sum"), x=("x", "first"), pos=("pos", "first"))
    c = c[c.W > 0]
    total = c.W.sum()
    wp, wn = c.W[c.pos].sum(), c.W[~c.pos].sum()
    if prevalence is not None and wp > 0 and wn > 0:
        mp, mn = (c.W * c.x)[c.pos].sum() / wp, (c.W * c.x)[~c.pos].sum() / wn
        base = wp / total
        infl = np.where(c.pos, prevalence / base * (c.x - mp), (1 - prevalence) / (1 - base) * (c.x - mn))
    else:
        infl = c.x - (c.W * c.x).sum() / total
    infl = np.where(np.abs(infl) <= 1e-12 * np.abs(c.x).max(), 0.0, infl) * c.W / c.n
    s4 = float((c.n * infl**4).sum())
    return float((c.n * infl**2).sum() ** 2 / s4) if s4 > 0 else 0.0


def small_evidence_from_rows(y, scores: dict, thresholds: dict, table, *, sample_weight=None, strata=None, groups=None):
    """``(positives, basis, stratum, nu, interval, model, min_confusion_cell, cell, cell_model)``
    counted from the rows with pandas (the rule of :mod:`evalcore.evidence`)."""
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    keep = w > 0
    v = table.vector()
    pos = (y == 1) & keep
    stratum = None
    if groups is not None:
        positives, basis = float(pd.Series(np.asarray(groups)[pos]).astype(str).nunique()), "groups"
    elif strata is not None:
        lv = pd.Series(np.asarray(strata)).astype(str)
        per = {level: _kish(w[pos & (lv == level).to_numpy()]) for level in sorted(lv[keep].unique())}
        stratum = min(per, key=lambda k: (round(per[k], 6), k))
        positives, basis = per[stratum], "strata"
    else:
        positives, basis = _kish(w[pos]), "rows"
    best = (np.inf, "", None)
    raw = (np.inf, "", "")
    acts = {}
    for name, s in scores.items():
        act = np.asarray(s) >= thresholds[name]
        acts[name] = act
        cell = np.where(act, np.where(y == 1, 0, 1), np.where(y == 1, 2, 3))[keep]
        f = pd.DataFrame({"key": cell, "w": w[keep], "pos": (y == 1)[keep], "x": v[cell]})
        n_eff = f.groupby("key")["w"].apply(_kish)
        for k, name_k in enumerate(("tp", "fp", "fn", "tn")):
            nk = float(n_eff.get(k, 0.0))
            if nk < raw[0] and not np.isclose(nk, raw[0], rtol=1e-9, atol=0):
                raw = (nk, name_k, name)
        f["n"] = f["key"].map(n_eff)
        nu = _nu(f, table.prevalence)
        if nu < best[0] and not np.isclose(nu, best[0], rtol=1e-9, atol=0):  # ties keep the first
            best = (nu, "ev", name)
    if len(scores) == 2:
        a, b = list(scores)

        def x(act):
            return np.where(act, np.where(y == 1, v[0], v[1]), np.where(y == 1, v[2], v[3]))

        key = (4 * ~acts[a] + 2 * ~acts[b] + (y != 1))[keep]
        f = pd.DataFrame({"key": key, "w": w[keep], "pos": (y == 1)[keep], "x": (x(acts[b]) - x(acts[a]))[keep]})
        f["n"] = f["key"].map(f.groupby("key").size()).astype(float)
        nu = _nu(f, table.prevalence)
        if nu < best[0] and not np.isclose(nu, best[0], rtol=1e-9, atol=0):
            best = (nu, "diff", None)
    return (positives, basis, stratum, *best, *raw)
