"""Reference fit: a feature's reference distribution frozen once (:class:`Reference`, the
KS grid or PSI levels that current windows are coded on)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError
from .config import _problem
from .primitives import _psi_counts


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Reference:
    """A feature's reference distribution, frozen once; current windows are binned on it.

    Attributes
    ----------
    kind : {"ks", "psi"}
    edges : ndarray or None
        Numeric: distinct reference values at ``n_bins + 1`` evenly spaced order statistics
        (min and max included). Values are coded ``2i`` when strictly between edges i-1 and
        i (``2E`` above the last edge) and ``2i + 1`` when equal to edge i, so both ECDFs are
        known exactly at every edge and just below it.
    levels : tuple or None
        Categorical: the reference levels (sorted by their text), then ``"(missing)"`` and
        ``"(unseen)"``; codes are positions in this tuple.
    counts : ndarray of int64
        Reference counts per code (missing numeric values excluded).
    n : int
        Reference rows counted (non-missing for numeric).
    sorted_values : ndarray or None
        Numeric: the sorted reference sample (for the exact statistic).
    bin_error : float
        Numeric: the largest reference share strictly between two edges; the binned KS
        is never above the exact one and at most this much below it. 0 for categorical.
    """

    kind: str
    edges: np.ndarray | None
    levels: tuple | None
    counts: np.ndarray
    n: int
    sorted_values: np.ndarray | None
    bin_error: float

    @property
    def n_codes(self) -> int:
        return len(self.counts)

    def codes(self, values) -> np.ndarray:
        """Code per value; numeric NaN gets ``n_codes`` (excluded from every count)."""
        if self.kind == "ks":
            v = np.asarray(values, dtype=np.float64)
            e = self.edges
            i = left_positions(e, v)
            eq = e[np.minimum(i, e.size - 1)] == v
            code = 2 * i + eq
            code[np.isnan(v)] = self.n_codes
            return code
        if isinstance(values, pd.Series) and len(values) > 4096:
            # a column: its distinct values numbered once (missing ones -1), each looked up as the
            # object it becomes (what the rows path compares), then spread back to the rows
            number, distinct = pd.factorize(values)
            each = self.codes(pd.Series(pd.Index(distinct).to_numpy(dtype=object), dtype=object))
            return np.append(each, len(self.levels) - 2)[number]  # -1 (missing) takes the last
        vals = pd.Series(values, dtype=object) if not isinstance(values, pd.Series) else values
        code = np.asarray(pd.Index(list(self.levels[:-2]), dtype=object).get_indexer(vals), dtype=np.int64)
        miss = np.asarray(vals.isna())
        code[code < 0] = len(self.levels) - 1  # unseen
        code[miss] = len(self.levels) - 2  # missing
        return code

    def counts_of(self, values) -> np.ndarray:
        """Counts per code of a sample (numeric NaN left out)."""
        return np.bincount(self.codes(values), minlength=self.n_codes + 1)[: self.n_codes]

    def statistic(self, cur_counts, *, floor: float = 1e-4):
        """Binned KS (``kind="ks"``) or PSI of count vector(s) against the reference (last axis)."""
        c = np.asarray(cur_counts, dtype=np.float64)
        if self.kind == "psi":
            return _psi_counts(np.broadcast_to(self.counts.astype(np.float64), c.shape), c, floor)
        fr = np.cumsum(self.counts) / self.n if self.n else np.full(self.n_codes, np.nan)
        nc = c.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            fc = np.cumsum(c, axis=-1) / nc
            out = np.max(np.abs(fc - fr), axis=-1)
        return np.where((nc[..., 0] > 0) & (self.n > 0), out, np.nan)


def left_positions(edges: np.ndarray, values: np.ndarray, *, cells: int = 1 << 16, max_steps: int = 8) -> np.ndarray:
    """``np.searchsorted(edges, values, side="left")`` for sorted ``edges`` without NaN, equal to
    it element for element, about twice as fast on millions of values.

    A binary search per value mispredicts a branch at every step. Instead, values and edges are
    numbered by the same arithmetic into ``cells`` equal cells spanning the edges (monotone: a
    value's cell is at least that of any edge not above it), so every edge of a lower cell is
    below the value; it starts after those and steps over the edges of its own cell that are
    below it. When a cell holds more than ``max_steps`` edges (an outlier stretches the span),
    or for fewer than 65,536 values, it is numpy's own search."""
    e = np.asarray(edges, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    n = e.size
    lo, hi = (float(e[0]), float(e[-1])) if n else (0.0, 0.0)
    scale = cells / (hi - lo) if n > 1 and np.isfinite(lo) and np.isfinite(hi) and hi > lo else np.inf
    if v.size < 1 << 16 or not np.isfinite(scale):
        return np.searchsorted(e, v, side="left")

    def cell(x):  # NaN gets the extra cell ``cells``, after every edge (numpy sorts NaN last)
        c = np.subtract(x, lo)
        c *= scale
        np.clip(c, 0, cells - 1, out=c)
        np.nan_to_num(c, copy=False, nan=cells)
        return c.astype(np.int64)

    edge_cells = cell(e)
    if np.bincount(edge_cells).max() > max_steps:
        return np.searchsorted(e, v, side="left")
    first = np.searchsorted(edge_cells, np.arange(cells + 1), side="left")  # edges in lower cells
    j = first[cell(v)]
    upper = np.append(e, np.nan)  # upper[j] = edges[j]; NaN compares False: no step past the end
    ahead = np.flatnonzero(upper[j] < v)  # edge j below the value: step on
    while ahead.size:
        j[ahead] += 1
        ahead = ahead[upper[j[ahead]] < v[ahead]]
    return j


def fit_reference(values, *, kind: str, n_bins: int = 1000) -> Reference:
    """Freeze a feature's reference distribution (pure; the grid never moves afterwards).

    Parameters
    ----------
    values : array-like of shape (n,)
        The reference sample (numeric NaN are left out; categorical missing is a level).
    kind : {"ks", "psi"}
        Numeric (KS) or categorical (PSI).
    n_bins : int, default=1000
        Numeric: reference-quantile intervals of the grid.

    Examples
    --------
    >>> ref = fit_reference([1.0, 2.0, 2.0, 3.0], kind="ks", n_bins=1000)
    >>> ref.edges.tolist(), ref.bin_error
    ([1.0, 2.0, 3.0], 0.0)
    >>> cat = fit_reference(["a", "b", "a"], kind="psi")
    >>> cat.levels, cat.counts_of(["a", "z", None]).tolist()
    (('a', 'b', '(missing)', '(unseen)'), [1, 0, 1, 1])
    """
    if kind == "ks":
        v = np.asarray(values, dtype=np.float64)
        v = np.sort(v[~np.isnan(v)])
        n = v.size
        if n == 0:
            edges = np.array([0.0])
        else:
            pos = np.unique(np.round(np.linspace(0, n - 1, n_bins + 1)).astype(np.int64))
            edges = np.unique(v[pos])
        ref = Reference(
            kind="ks",
            edges=edges,
            levels=None,
            counts=np.zeros(2 * edges.size + 1, np.int64),
            n=n,
            sorted_values=v,
            bin_error=0.0,
        )
        counts = np.bincount(ref.codes(v), minlength=ref.n_codes + 1)[: ref.n_codes].astype(np.int64)
        open_share = counts[0::2].max() / n if n else 0.0
        return Reference(kind="ks", edges=edges, levels=None, counts=counts, n=n, sorted_values=v, bin_error=float(open_share))
    if kind == "psi":
        s = pd.Series(values, dtype=object) if not isinstance(values, pd.Series) else values
        present = pd.unique(s.dropna())
        levels = tuple(sorted(present.tolist(), key=lambda x: (str(type(x)), str(x)))) + ("(missing)", "(unseen)")
        ref = Reference(
            kind="psi",
            edges=None,
            levels=levels,
            counts=np.zeros(len(levels), np.int64),
            n=len(s),
            sorted_values=None,
            bin_error=0.0,
        )
        counts = ref.counts_of(s).astype(np.int64)
        return Reference(
            kind="psi", edges=None, levels=levels, counts=counts, n=int(counts.sum()), sorted_values=None, bin_error=0.0
        )
    raise InputError(
        [
            _problem(
                "kind_invalid",
                f"kind must be 'ks' or 'psi'; got {kind!r}.",
                "Pass kind='ks' for numeric, 'psi' for categorical.",
                "kind",
            )
        ]
    )
