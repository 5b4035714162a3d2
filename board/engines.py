"""Push the counts down: the aggregate of DESIGN §2 as one SQL query for DuckDB or Spark.

The same query text runs on both engines (only identifier quoting differs); each returns a
small pandas frame that :meth:`evalcore.aggregate.Aggregate.from_frame` turns into the
aggregate every board number is computed from. DuckDB reads Parquet files, globs or folders
larger than memory on one machine (it streams and spills); Spark reads Parquet or a table
name on a cluster (or ``local[*]``).

Queries (per model): a stats pass (rows, min, max, approximate distinct scores, bad values),
then ``GROUP BY GROUPING SETS ((bin, label), (segment_i, bin, label)…)`` with counts and
the calibration sums, per-group cells for the cluster scheme, and the paired 8-cell table
of two models at the deployed thresholds. Binning reproduces
:func:`evalcore.counts._bin_scores` in IEEE double arithmetic, so every engine puts every
score in the same bin as numpy does.
"""

from __future__ import annotations

import glob as _glob
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalcore import InputError
from evalcore.aggregate import MAX_EXACT_SCORES, Aggregate, choose_resolution, deployed_thresholds, grid_steps
from evalcore.calibration import LOG_LOSS_EPS
from evalcore.data import MISSING_LEVEL

__all__ = ["ENGINES", "Query", "aggregate_source", "duckdb_runner", "spark_runner"]

ENGINES = ("duckdb", "spark")


@dataclass(frozen=True, slots=True, kw_only=True)
class Query:
    """What to aggregate: column names of the source and the board's options."""

    label: str
    scores: dict  # model -> column
    score_kinds: dict = field(default_factory=dict)  # model -> kind ("auto" when missing)
    positive: str | None = None
    segments: tuple = ()
    group: str | None = None
    weight: str | None = None
    time: str | None = None


def _lit(x: str) -> str:
    return "'" + str(x).replace("'", "''") + "'"


def _bin_expr(s: str, k: str, resolution) -> tuple[str, str, str]:
    """(k0, k1, rep) SQL expressions flooring ``s`` to the grid as ``_bin_scores`` does."""
    m, r = grid_steps(resolution)
    if m is not None:
        k0 = f"CAST(FLOOR({s} * {m}) AS BIGINT)"

        def g(x):
            return f"(CAST({x} AS DOUBLE) / {m})"
    else:
        k0 = f"CAST(FLOOR({s} / {r!r}) AS BIGINT)"

        def g(x):
            return f"(CAST({x} AS DOUBLE) * {r!r})"
    k1 = f"({k}0 - CASE WHEN {g(k + '0')} > {s} THEN 1 ELSE 0 END)"
    rep = g(f"({k}1 + CASE WHEN {g(k + '1 + 1')} <= {s} THEN 1 ELSE 0 END)")
    return k0, k1, rep


def _base_sql(q: Query, src: str, quote, resolution: dict) -> str:
    """CTEs b0..b2: canonical columns s_j, y, w, g_i, grp and the bins bin_j."""
    if q.positive is not None:
        y = f"CASE WHEN CAST({quote(q.label)} AS STRING) = {_lit(q.positive)} THEN 1 ELSE 0 END"
    else:
        y = f"CASE WHEN lower(CAST({quote(q.label)} AS STRING)) IN ('1', '1.0', 'true', 'yes') THEN 1 ELSE 0 END"
    cols = [f"{y} AS y", f"{'CAST(' + quote(q.weight) + ' AS DOUBLE)' if q.weight else '1.0'} AS w"]
    for j, col in enumerate(q.scores.values()):
        cols.append(f"CAST({quote(col)} AS DOUBLE) AS s{j}")
    for i, col in enumerate(q.segments):
        cols.append(f"COALESCE(CAST({quote(col)} AS STRING), {_lit(MISSING_LEVEL)}) AS g{i}")
    if q.group:
        cols.append(f"CAST({quote(q.group)} AS STRING) AS grp")
    c0, c1, c2 = ["*"], ["*"], ["*"]
    for j, m in enumerate(q.scores):
        r = resolution.get(m)
        if r is None:
            c2.append(f"s{j} AS bin{j}")
            continue
        k0, k1, rep = _bin_expr(f"s{j}", f"k{j}_", r)
        c0.append(f"{k0} AS k{j}_0")
        c1.append(f"{k1} AS k{j}_1")
        c2.append(f"{rep} AS bin{j}")
    return (f"WITH b0 AS (SELECT {', '.join(c0)} FROM (SELECT {', '.join(cols)} FROM {src}) base), "
            f"b1 AS (SELECT {', '.join(c1)} FROM b0), b2 AS (SELECT {', '.join(c2)} FROM b1) ")


def stats_sql(q: Query, src: str, quote) -> str:
    parts = [f"count(*) AS n", f"count({quote(q.label)}) AS n_label"]
    for j, col in enumerate(q.scores.values()):
        s = f"CAST({quote(col)} AS DOUBLE)"
        parts += [f"min({s}) AS min{j}", f"max({s}) AS max{j}", f"approx_count_distinct({s}) AS nd{j}",
                  f"sum(CASE WHEN {s} > -1.0e308 AND {s} < 1.0e308 THEN 0 ELSE 1 END) AS bad{j}",
                  f"sum(CASE WHEN {s} = 0 OR {s} = 1 THEN 0 ELSE 1 END) AS nonbin{j}"]
    if q.weight:
        w = f"CAST({quote(q.weight)} AS DOUBLE)"
        parts.append(f"sum(CASE WHEN {w} >= 0 AND {w} < 1.0e308 THEN 0 ELSE 1 END) AS badw")
    return f"SELECT {', '.join(parts)} FROM {src}"


def cells_sql(q: Query, j: int) -> str:
    eps = repr(LOG_LOSS_EPS)
    pc = f"GREATEST(LEAST(s{j}, 1 - {eps}), {eps})"
    segs = [f"g{i}" for i in range(len(q.segments))]
    sets = ", ".join([f"(bin{j}, y)"] + [f"({g}, bin{j}, y)" for g in segs])
    col = "CASE " + " ".join(f"WHEN GROUPING({g}) = 0 THEN {_lit(c)}" for g, c in zip(segs, q.segments)) + " ELSE '' END" \
        if segs else "''"
    level = f"COALESCE({', '.join(segs)}, '')" if segs else "''"
    return (f"SELECT {col} AS seg_column, {level} AS seg_level, bin{j} AS score, y AS label, count(*) AS rows_, "
            f"sum(w) AS weight, sum(w * w) AS weight_sq, sum(w * s{j}) AS score_sum, sum(w * s{j} * s{j}) AS score_sq_sum, "
            f"sum(w * CASE WHEN y = 1 THEN LN({pc}) ELSE LN(1 - {pc}) END) AS log_sum, "
            f"min(s{j}) AS score_min, max(s{j}) AS score_max FROM b2 GROUP BY GROUPING SETS ({sets})")


def group_sql(j: int) -> str:
    return f"SELECT grp AS group_, bin{j} AS score, y AS label, count(*) AS rows_, sum(w) AS weight FROM b2 GROUP BY grp, bin{j}, y"


def paired_sql(q: Query, ta: float, tb: float, strata_index: int | None, by_group: bool) -> str:
    st = f"g{strata_index}" if strata_index is not None else "''"
    gr = "grp" if by_group else "''"
    return (f"SELECT {st} AS stratum, {gr} AS group_, CASE WHEN bin0 >= {ta!r} THEN 1 ELSE 0 END AS act_a, "
            f"CASE WHEN bin1 >= {tb!r} THEN 1 ELSE 0 END AS act_b, y AS label, count(*) AS rows_, sum(w) AS weight "
            f"FROM b2 GROUP BY 1, 2, 3, 4, 5")


# --------------------------------------------------------------------------------------
# runners: (source) -> (relation text, quote, run(sql) -> DataFrame)
# --------------------------------------------------------------------------------------


def _is_path(source: str) -> bool:
    return any(ch in source for ch in "/\\*?[") or source.endswith(".parquet")


def duckdb_runner(source: str, *, memory_limit: str | None = None, threads: int | None = None, con=None):
    """Relation text, quoting and a runner for DuckDB over Parquet (file, glob or folder)."""
    import duckdb

    if con is None:
        con = duckdb.connect()
        if memory_limit:
            con.execute(f"SET memory_limit = {_lit(memory_limit)}")
        if threads:
            con.execute(f"SET threads = {int(threads)}")
    if _is_path(source):
        path = source.rstrip("/") + "/**/*.parquet" if _is_dir(source) else source
        if not _glob.glob(path, recursive=True):
            raise InputError(f"--predictions {source}: no Parquet file matches.")
        src = f"read_parquet({_lit(path)})"
    else:
        src = source

    def run(sql):
        try:
            return con.execute(sql).df()
        except duckdb.Error as err:
            raise InputError(f"DuckDB could not aggregate {source}: {str(err).splitlines()[0]}") from None

    return src, (lambda c: '"' + c.replace('"', '""') + '"'), run


def _is_dir(path: str) -> bool:
    from pathlib import Path

    return Path(path).is_dir()


def spark_runner(source: str, *, spark=None):
    """Relation text, quoting and a runner for Spark SQL over Parquet or a table name."""
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession

    spark = spark or SparkSession.builder.getOrCreate()
    try:
        df = spark.read.parquet(source) if _is_path(source) else spark.table(source)
    except PySparkException as err:
        raise InputError(f"Spark could not read {source}: {str(err).splitlines()[0]}") from None
    view = "evalboard_source"
    df.createOrReplaceTempView(view)

    def run(sql):
        try:
            res = spark.sql(sql)
            # collect, not toPandas: the aggregate is small, and this avoids pyspark's pandas-3 gaps
            return pd.DataFrame([tuple(r) for r in res.collect()], columns=res.columns)
        except PySparkException as err:
            raise InputError(f"Spark could not aggregate {source}: {str(err).splitlines()[0]}") from None

    return view, (lambda c: "`" + c.replace("`", "``") + "`"), run


# --------------------------------------------------------------------------------------
# the aggregate
# --------------------------------------------------------------------------------------


def _kind(stats, j: int, given: str) -> str:
    if given and given != "auto":
        return given
    lo, hi = float(stats[f"min{j}"]), float(stats[f"max{j}"])
    if int(stats[f"nonbin{j}"]) == 0:
        return "decision"
    return "probability" if lo >= 0.0 and hi <= 1.0 else "score"


def aggregate_source(source: str, query: Query, *, engine: str = "duckdb", resolution="auto", thresholds=None,
                     scheme: str = "rows", strata_column: str | None = None, spark=None,
                     max_exact_scores: int = MAX_EXACT_SCORES, runner=None) -> Aggregate:
    """Aggregate a Parquet source (or a Spark table) with DuckDB or Spark into an Aggregate.

    Parameters
    ----------
    source : str
        Parquet file, glob (``logs/2026-11-*.parquet``), folder, or (Spark) a table name.
    query : Query
    engine : {"duckdb", "spark"}
    resolution : "auto", float, None or dict
        Score grid per model: "auto" is exact up to ``max_exact_scores`` distinct scores
        (approximate count), else 1e-4 (probabilities) or 1e-4 of the range (raw scores).
    thresholds : dict, default=None
        Deployed thresholds (the paired table of two models is cut at them).
    scheme, strata_column
        The bootstrap scheme the aggregate must serve (cluster adds per-group cells).
    """
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {ENGINES}; got {engine!r}.")
    if len(query.scores) not in (1, 2):
        raise InputError(f"one or two models; got {len(query.scores)}.")
    if scheme == "cluster" and not query.group:
        raise InputError("the cluster bootstrap needs a group id column (--group).")
    if scheme == "stratified" and strata_column not in query.segments:
        raise InputError(f"stratified bootstrap by {strata_column!r}: pass it as a --segment column too.")
    if runner is None:
        runner = duckdb_runner(source) if engine == "duckdb" else spark_runner(source, spark=spark)
    src, quote, run = runner
    stats = run(stats_sql(query, src, quote)).iloc[0]
    problems = []
    n = int(stats["n"])
    if n == 0:
        problems.append(f"{source}: no rows.")
    if int(stats["n_label"]) != n:
        problems.append(f"label column {query.label!r} has {n - int(stats['n_label'])} missing values.")
    models = list(query.scores)
    for j, m in enumerate(models):
        if int(stats[f"bad{j}"] or 0):
            problems.append(f"score column {query.scores[m]!r} ({m}) has {int(stats[f'bad{j}'])} missing or non-finite values.")
    if query.weight and int(stats["badw"] or 0):
        problems.append(f"weight column {query.weight!r} has {int(stats['badw'])} missing, negative or non-finite values.")
    if problems:
        raise InputError("\n".join(problems))
    kinds = {m: _kind(stats, j, query.score_kinds.get(m, "auto")) for j, m in enumerate(models)}
    res = {}
    for j, m in enumerate(models):
        r = resolution.get(m, "auto") if isinstance(resolution, dict) else resolution
        if r == "auto":
            r = choose_resolution(int(stats[f"nd{j}"]), kinds[m], float(stats[f"min{j}"]), float(stats[f"max{j}"]),
                                  max_exact_scores=max_exact_scores)
        res[m] = None if r is None else float(r)
    base = _base_sql(query, src, quote, res)
    parts = []
    for j, m in enumerate(models):
        f = run(base + cells_sql(query, j)).rename(columns={"seg_column": "column", "seg_level": "level", "rows_": "rows"})
        f.insert(0, "model", m)
        parts.append(f)
    group_cells = None
    if scheme == "cluster":
        gparts = []
        for j, m in enumerate(models):
            g = run(base + group_sql(j)).rename(columns={"group_": "group", "rows_": "rows"})
            g.insert(0, "model", m)
            gparts.append(g.sort_values(["group", "score", "label"], kind="stable"))
        group_cells = pd.concat(gparts, ignore_index=True)
    agg = Aggregate.from_frame(pd.concat(parts, ignore_index=True), score_kinds=kinds, resolution=res,
                               weighted=bool(query.weight), group_cells=group_cells, time_column=query.time,
                               source={"engine": engine, "source": source})
    if len(models) == 2:
        t = deployed_thresholds(agg, thresholds or {})
        si = query.segments.index(strata_column) if scheme == "stratified" else None
        p = run(base + paired_sql(query, t[models[0]], t[models[1]], si, scheme == "cluster"))
        p = p.rename(columns={"group_": "group", "rows_": "rows"})
        p = p.sort_values(["stratum", "group", "act_a", "act_b", "label"], kind="stable").reset_index(drop=True)
        for c in ("act_a", "act_b", "label", "rows"):
            p[c] = p[c].astype(np.int64)
        import dataclasses

        agg = dataclasses.replace(agg, paired=p, paired_thresholds=t,
                                  strata_column=strata_column if scheme == "stratified" else None)
    return agg
