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

import dataclasses
import glob as _glob
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalcore import InputError, Problem
from evalcore._errors import ProblemList
from evalcore.aggregate import (
    MAX_EXACT_SCORES,
    Aggregate,
    canonical_days,
    choose_resolution,
    deployed_thresholds,
    drift_fit_mismatch,
    drift_fit_of,
    grid_steps,
)
from evalcore.calibration import LOG_LOSS_EPS
from evalcore.data import MISSING_LEVEL, binary_label
from evalcore.drift import DriftConfig, exact_ks_applies

__all__ = [
    "ENGINES",
    "SOURCE_VIEW",
    "Query",
    "aggregate_source",
    "duckdb_connect",
    "duckdb_runner",
    "parquet_files",
    "spark_runner",
    "over_time_source",
]

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
    features: tuple = ()


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


def _base_sql(q: Query, src: str, quote, resolution: dict, feature_kinds: dict | None = None) -> str:
    """CTEs b0..b2: canonical columns s_j, y, w, g_i, grp, day, f_i and the bins bin_j."""
    # q.positive is the label's positive value exactly as the engine spells it (see _resolve_positive)
    y = f"CASE WHEN CAST({quote(q.label)} AS STRING) = {_lit(q.positive)} THEN 1 ELSE 0 END"
    cols = [f"{y} AS y", f"{'CAST(' + quote(q.weight) + ' AS DOUBLE)' if q.weight else '1.0'} AS w"]
    for j, col in enumerate(q.scores.values()):
        cols.append(f"CAST({quote(col)} AS DOUBLE) AS s{j}")
    for i, col in enumerate(q.segments):
        cols.append(f"COALESCE(CAST({quote(col)} AS STRING), {_lit(MISSING_LEVEL)}) AS g{i}")
    if q.group:
        cols.append(f"CAST({quote(q.group)} AS STRING) AS grp")
    if q.time:
        cols.append(f"CAST(try_cast({quote(q.time)} AS TIMESTAMP) AS DATE) AS day")
    for i, (col, kind) in enumerate((feature_kinds or {}).items()):
        cols.append(f"CAST({quote(col)} AS DOUBLE) AS f{i}" if kind == "ks" else f"CAST({quote(col)} AS STRING) AS f{i}")
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
    return (
        f"WITH b0 AS (SELECT {', '.join(c0)} FROM (SELECT {', '.join(cols)} FROM {src}) base), "
        f"b1 AS (SELECT {', '.join(c1)} FROM b0), b2 AS (SELECT {', '.join(c2)} FROM b1) "
    )


def stats_sql(q: Query, src: str, quote) -> str:
    parts = ["count(*) AS n", f"count({quote(q.label)}) AS n_label"]
    for j, col in enumerate(q.scores.values()):
        s = f"CAST({quote(col)} AS DOUBLE)"
        parts += [
            f"min({s}) AS min{j}",
            f"max({s}) AS max{j}",
            f"approx_count_distinct({s}) AS nd{j}",
            f"sum(CASE WHEN {s} > -1.0e308 AND {s} < 1.0e308 THEN 0 ELSE 1 END) AS bad{j}",
            f"sum(CASE WHEN {s} = 0 OR {s} = 1 THEN 0 ELSE 1 END) AS nonbin{j}",
        ]
    if q.weight:
        w = f"CAST({quote(q.weight)} AS DOUBLE)"
        parts.append(f"sum(CASE WHEN {w} >= 0 AND {w} < 1.0e308 THEN 0 ELSE 1 END) AS badw")
    if q.time:
        t = f"try_cast({quote(q.time)} AS TIMESTAMP)"
        parts += [f"count({t}) AS n_time", f"min(CAST({t} AS DATE)) AS day_min"]
    return f"SELECT {', '.join(parts)} FROM {src}"


# --------------------------------------------------------------------------------------
# drift: per-day tables (evalcore.drift.drift_from_days)
# --------------------------------------------------------------------------------------

_NUMERIC_TYPES = (
    "tinyint",
    "smallint",
    "int",
    "integer",
    "bigint",
    "hugeint",
    "utinyint",
    "usmallint",
    "uinteger",
    "ubigint",
    "uhugeint",
    "float",
    "double",
    "real",
    "decimal",
    "long",
    "short",
    "byte",
)
_TIME_TYPES = ("date", "time", "timestamp", "interval")
EXACT_REFERENCE_VALUES = 200_000  # distinct reference values up to which KS edges are the row path's exactly


def types_sql(columns, src: str, quote) -> str:
    return "SELECT " + ", ".join(f"typeof({quote(c)}) AS t{i}" for i, c in enumerate(columns)) + f" FROM {src} LIMIT 1"


def _dbl(x: float) -> str:
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def _code_expr(x: str, edges) -> str:
    """SQL for :meth:`evalcore.drift.Reference.codes` (KS): ``2i + (x == edges[i])`` with i the
    number of edges below x, by a balanced tree of comparisons; missing/NaN -> ``2E + 1``."""
    e = [float(v) for v in edges]
    E = len(e)

    def tree(lo, hi):
        if lo == hi:
            return f"CASE WHEN {x} = {_dbl(e[lo])} THEN {2 * lo + 1} ELSE {2 * lo} END" if lo < E else str(2 * E)
        mid = (lo + hi) // 2
        return f"CASE WHEN {x} <= {_dbl(e[mid])} THEN {tree(lo, mid)} ELSE {tree(mid + 1, hi)} END"

    return f"CASE WHEN {x} IS NULL OR isnan({x}) THEN {2 * E + 1} ELSE {tree(0, E)} END"


def _cal_bin_expr(p: str) -> str:
    """The reliability bin (10 uniform left-closed bins, 1.0 in the last) of a probability."""
    return "(" + " + ".join(f"CASE WHEN {p} >= {_dbl(i / 10)} THEN 1 ELSE 0 END" for i in range(1, 10)) + ")"


def _exact_edges(values: np.ndarray, counts: np.ndarray, n_bins: int) -> np.ndarray:
    """:func:`evalcore.drift.fit_reference`'s edges from distinct values and their counts."""
    order = np.argsort(values, kind="stable")
    v, c = values[order], np.cumsum(counts[order])
    n = int(c[-1])
    pos = np.unique(np.round(np.linspace(0, n - 1, n_bins + 1)).astype(np.int64))
    return np.unique(v[np.searchsorted(c, pos, side="right")])


def _drift_tables(q: Query, base: str, run, kinds: dict, fkinds: dict, day_min, config) -> dict:

    day0 = pd.Timestamp(day_min).normalize()
    rs = day0 if config.reference_start is None else pd.Timestamp(config.reference_start).normalize()
    re_ = rs + pd.Timedelta(days=config.reference_days)
    ref = f"day >= DATE '{rs:%Y-%m-%d}' AND day < DATE '{re_:%Y-%m-%d}'"
    probs = [j for j, m in enumerate(q.scores) if kinds[m] == "probability"]
    cal_parts = []
    for j in probs:
        c = run(
            base + f"SELECT day AS date, {_cal_bin_expr(f's{j}')} AS bin, count(*) AS rows_, sum(y) AS pos, "
            f"sum(s{j}) AS prob_sum FROM b2 WHERE day IS NOT NULL GROUP BY 1, 2"
        )
        c.insert(0, "model", list(q.scores)[j])
        cal_parts.append(c)
    if cal_parts:
        first = cal_parts[0]
        days = first.groupby("date", as_index=False)[["rows_", "pos"]].sum()
    else:
        days = run(base + "SELECT day AS date, count(*) AS rows_, sum(y) AS pos FROM b2 WHERE day IS NOT NULL GROUP BY 1")
    days = canonical_days(days.rename(columns={"rows_": "rows"}), ["date"])[["date", "rows", "pos"]]
    refs, edges_of = {}, {}
    names = list(fkinds)
    numeric = [i for i, f in enumerate(names) if fkinds[f] == "ks"]
    if numeric:
        nd = run(
            base
            + "SELECT "
            + ", ".join(f"approx_count_distinct(CASE WHEN {ref} AND NOT isnan(f{i}) THEN f{i} END) AS nd{i}" for i in numeric)
            + " FROM b2"
        ).iloc[0]
    for i, f in enumerate(names):
        if fkinds[f] != "ks":
            continue
        keep = f"{ref} AND f{i} IS NOT NULL AND NOT isnan(f{i})"
        if int(nd[f"nd{i}"] or 0) <= EXACT_REFERENCE_VALUES:
            vc = run(base + f"SELECT f{i} AS v, count(*) AS c FROM b2 WHERE {keep} GROUP BY 1")
            edges = (
                _exact_edges(vc["v"].to_numpy(np.float64), vc["c"].to_numpy(np.int64), config.n_bins)
                if len(vc)
                else np.array([0.0])
            )
        else:  # too many distinct values to fetch: the order statistics by rank (exact, a sort of the reference)
            n_ref = int(run(base + f"SELECT count(*) AS n FROM b2 WHERE {keep}").iloc[0]["n"])
            pos = np.unique(np.round(np.linspace(0, n_ref - 1, config.n_bins + 1)).astype(np.int64))
            vals = run(
                base + f", r AS (SELECT f{i} AS v, row_number() OVER (ORDER BY f{i}) - 1 AS k FROM b2 "
                f"WHERE {keep}) SELECT v FROM r WHERE k IN ({', '.join(map(str, pos))})"
            )
            edges = np.unique(vals["v"].to_numpy(np.float64))
        refs[f] = {"kind": "ks", "edges": [float(v) for v in edges], "grid": "exact"}
        edges_of[i] = edges
    parts = []
    if numeric:
        sets = ", ".join(f"(day, c{i})" for i in numeric)
        which = "CASE " + " ".join(f"WHEN GROUPING(c{i}) = 0 THEN {i}" for i in numeric) + " END"
        code = f"COALESCE({', '.join(f'c{i}' for i in numeric)})"
        tail = f"SELECT {which} AS fi, day AS date, {code} AS code, count(*) AS rows_ FROM fc GROUP BY GROUPING SETS ({sets})"
        codes = getattr(run, "feature_codes", None)
        t = codes(base, {i: edges_of[i] for i in numeric}, tail) if codes else None
        if t is None:
            sel = ", ".join(f"{_code_expr(f'f{i}', edges_of[i])} AS c{i}" for i in numeric)
            t = run(base + f", fc AS (SELECT day, {sel} FROM b2 WHERE day IS NOT NULL) {tail}")
        t["feature"] = [names[int(i)] for i in t["fi"]]
        parts.append(t[["feature", "date", "code", "rows_"]])
    for i, f in enumerate(names):
        if fkinds[f] == "ks":
            continue
        vc = run(base + f"SELECT day AS date, f{i} AS v, count(*) AS rows_ FROM b2 WHERE day IS NOT NULL GROUP BY 1, 2")
        vc["date"] = pd.to_datetime(vc["date"])
        in_ref = (vc["date"] >= rs) & (vc["date"] < re_)
        levels = sorted(set(vc.loc[in_ref & vc["v"].notna(), "v"].astype(str)))
        index = {v: k for k, v in enumerate(levels)}
        code = np.array(
            [
                len(levels) if v is None or (isinstance(v, float) and np.isnan(v)) else index.get(str(v), len(levels) + 1)
                for v in vc["v"]
            ],
            dtype=np.int64,
        )
        refs[f] = {"kind": "psi", "levels": levels}
        parts.append(pd.DataFrame({"feature": f, "date": vc["date"], "code": code, "rows_": vc["rows_"]}))
    fcells = None
    if parts:
        fcells = pd.concat(parts, ignore_index=True).rename(columns={"rows_": "rows"})
        fcells = canonical_days(fcells, ["feature", "date", "code"], sums=("rows",))
    values = None
    if numeric and exact_ks_applies(days, config):  # small data: the row path's KS is exact, so keep the values
        vparts = []
        for i in numeric:
            v = run(
                base + f"SELECT day AS date, f{i} AS value, count(*) AS rows_ FROM b2 WHERE day IS NOT NULL "
                f"AND f{i} IS NOT NULL AND NOT isnan(f{i}) GROUP BY 1, 2"
            )
            v.insert(0, "feature", names[i])
            vparts.append(v.rename(columns={"rows_": "rows"}))
        values = canonical_days(pd.concat(vparts, ignore_index=True), ["feature", "date", "value"], sums=("rows",))
    cal = None
    if cal_parts:
        cal = pd.concat(cal_parts, ignore_index=True).rename(columns={"rows_": "rows"})
        cal = canonical_days(cal, ["model", "date", "bin"], sums=("rows", "pos", "prob_sum"))
    return {
        "day_cells": days,
        "calibration_day_cells": cal,
        "feature_day_cells": fcells,
        "feature_value_cells": values,
        "feature_refs": {f: refs[f] for f in names},
        "drift_fit": drift_fit_of(config, names),
    }


def cells_sql(q: Query, j: int) -> str:
    eps = repr(LOG_LOSS_EPS)
    pc = f"GREATEST(LEAST(s{j}, 1 - {eps}), {eps})"
    segs = [f"g{i}" for i in range(len(q.segments))]
    sets = ", ".join([f"(bin{j}, y)"] + [f"({g}, bin{j}, y)" for g in segs])
    col = (
        "CASE " + " ".join(f"WHEN GROUPING({g}) = 0 THEN {_lit(c)}" for g, c in zip(segs, q.segments)) + " ELSE '' END"
        if segs
        else "''"
    )
    level = f"COALESCE({', '.join(segs)}, '')" if segs else "''"
    return (
        f"SELECT {col} AS seg_column, {level} AS seg_level, bin{j} AS score, y AS label, count(*) AS rows_, "
        f"sum(w) AS weight, sum(w * w) AS weight_sq, sum(w * s{j}) AS score_sum, sum(w * s{j} * s{j}) AS score_sq_sum, "
        f"sum(w * CASE WHEN y = 1 THEN LN({pc}) ELSE LN(1 - {pc}) END) AS log_sum, "
        f"min(s{j}) AS score_min, max(s{j}) AS score_max FROM b2 GROUP BY GROUPING SETS ({sets})"
    )


def group_sql(j: int) -> str:
    return (
        f"SELECT grp AS group_, bin{j} AS score, y AS label, count(*) AS rows_, sum(w) AS weight FROM b2 GROUP BY grp, bin{j}, y"
    )


def paired_sql(q: Query, ta: float, tb: float, strata_index: int | None, by_group: bool) -> str:
    st = f"g{strata_index}" if strata_index is not None else "''"
    gr = "grp" if by_group else "''"
    return (
        f"SELECT {st} AS stratum, {gr} AS group_, CASE WHEN bin0 >= {ta!r} THEN 1 ELSE 0 END AS act_a, "
        f"CASE WHEN bin1 >= {tb!r} THEN 1 ELSE 0 END AS act_b, y AS label, count(*) AS rows_, sum(w) AS weight "
        f"FROM b2 GROUP BY 1, 2, 3, 4, 5"
    )


# --------------------------------------------------------------------------------------
# runners: (source) -> (relation text, quote, run(sql) -> DataFrame)
# --------------------------------------------------------------------------------------


def _is_path(source: str) -> bool:
    return any(ch in source for ch in "/\\*?[") or source.endswith(".parquet")


SOURCE_VIEW = "evalboard_source"


def parquet_files(source: str) -> list[str]:
    """The Parquet files a path names (a file, a glob, or a folder: every ``*.parquet`` below
    it; hidden names included), resolved with ``realpath``. No root check: the CLI's operator
    may read any file; the app's paths are checked by :func:`board.engines.lake.resolve_source`."""
    path = source.rstrip("/") + "/**/*.parquet" if _is_dir(source) else source
    found = _glob.glob(path, recursive=True, include_hidden=True) if _glob.has_magic(path) else [path]
    return sorted({os.path.realpath(f) for f in found if os.path.isfile(f)})


def duckdb_connect(files, *, memory_limit: str | None = None, threads: int | None = None):
    """A DuckDB connection that can read exactly ``files`` and nothing else.

    The files are the view ``evalboard_source`` (``read_parquet`` of the explicit list, never a
    glob DuckDB would expand itself); then they are the only ``allowed_paths``, external access
    is off and the configuration is locked. No query on the connection can read another file
    (``read_csv('/etc/hostname')``, a second Parquet file), list a folder, write (``COPY``),
    attach a database or install an extension, and no ``SET`` can undo that.
    """
    import duckdb

    files = [str(f) for f in files]
    con = duckdb.connect()
    try:
        if memory_limit:
            try:
                con.execute(f"SET memory_limit = {_lit(memory_limit)}")
            except duckdb.Error:
                raise InputError(f"--memory-limit {memory_limit!r}: DuckDB needs a size such as 4GB or 500MB.") from None
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        con.execute("SET TimeZone = 'UTC'")  # days are UTC calendar days, as the row path's
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        if files:
            con.execute(f"CREATE TEMP VIEW {SOURCE_VIEW} AS SELECT * FROM read_parquet([{', '.join(map(_lit, files))}])")
        con.execute(f"SET allowed_paths = [{', '.join(map(_lit, files))}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def duckdb_runner(source: str, *, files=None, memory_limit: str | None = None, threads: int | None = None, con=None):
    """Relation text, quoting and a runner for DuckDB over Parquet (file, glob or folder).

    Parameters
    ----------
    source : str
        A path (file, glob, folder) or, with ``con``, a relation of that connection.
    files : sequence of str, default=None
        The checked, resolved files to read (:func:`board.engines.lake.resolve_source`).
        None: a path ``source`` is expanded here (:func:`parquet_files`).
    con : duckdb connection, default=None
        Used as given (the caller's tables; not locked). None: a connection that reads only
        the files (:func:`duckdb_connect`).
    """
    import duckdb

    if con is None:
        if files is None and _is_path(source):
            files = parquet_files(source)
            if not files:
                raise InputError(f"--predictions {source}: no Parquet file matches.")
        con = duckdb_connect(files or [], memory_limit=memory_limit, threads=threads)
        src = SOURCE_VIEW if files else source
    elif files is not None or _is_path(source):
        files = list(files) if files is not None else parquet_files(source)
        if not files:
            raise InputError(f"--predictions {source}: no Parquet file matches.")
        src = f"read_parquet([{', '.join(map(_lit, files))}])"
    else:
        src = source

    def run(sql):
        try:
            return con.execute(sql).df()
        except duckdb.Error as err:
            raise InputError(f"DuckDB could not aggregate {source}: {str(err).splitlines()[0]}") from None

    def feature_codes(base: str, edges: dict, tail: str):
        """The codes of ``_code_expr`` with DuckDB's ``histogram(x, boundaries)`` (a binary
        search per row, ~10× faster than the CASE tree): boundary prev(e_i) counts the open
        interval below e_i (code 2i), e_i the point itself (2i + 1), the overflow bucket code
        2E; NaN and NULL are counted apart as missing (2E + 1). None: use the SQL tree."""
        parts = []
        bounds = {}
        for i, e in edges.items():
            e = np.asarray(e, dtype=np.float64)
            b = np.empty(2 * e.size)
            b[0::2], b[1::2] = np.nextafter(e, -np.inf), e
            if not (np.isfinite(b).all() and np.all(np.diff(b) > 0)):
                return None
            bounds[i] = b
            x = f"CASE WHEN isnan(f{i}) THEN NULL ELSE f{i} END"
            lst = "[" + ", ".join(_dbl(v) for v in b) + "]"
            parts.append(f"histogram({x}, {lst}) AS h{i}, count(*) - count({x}) AS m{i}")
        t = run(base + f"SELECT day AS date, {', '.join(parts)} FROM b2 WHERE day IS NOT NULL GROUP BY 1")
        out = []
        for i, b in bounds.items():
            code_of = {float(v): k for k, v in enumerate(b)}
            for date, h, miss in zip(t["date"], t[f"h{i}"], t[f"m{i}"]):
                keys, vals = (h["key"], h["value"]) if isinstance(h, dict) and "key" in h else (list(h), list(h.values()))
                codes = [code_of.get(float(k), 2 * len(edges[i])) for k in keys]  # the overflow key: above the top edge
                out.append(
                    pd.DataFrame(
                        {"fi": i, "date": date, "code": codes + [2 * len(edges[i]) + 1], "rows_": list(vals) + [int(miss)]}
                    )
                )
        f = pd.concat(out, ignore_index=True)
        return f[f["rows_"] > 0]

    run.feature_codes = feature_codes

    return src, (lambda c: '"' + c.replace('"', '""') + '"'), run


def _is_dir(path: str) -> bool:
    from pathlib import Path

    return Path(path).is_dir()


def spark_runner(source: str, *, spark=None):
    """Relation text, quoting and a runner for Spark SQL over Parquet or a table name."""
    try:
        from pyspark.errors import PySparkException
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError(
            "--engine spark needs pyspark (pip install pyspark, and Java 17+); "
            "or run it with spark-submit scripts/spark_evaluate.py."
        ) from None

    spark = spark or SparkSession.builder.getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", "UTC")  # days are UTC calendar days, as the row path's
    try:
        df = spark.read.parquet(source) if _is_path(source) else spark.table(source)
    except PySparkException as err:
        raise InputError(f"Spark could not read {source}: {str(err).splitlines()[0]}") from None
    view = "evalboard_source"
    df.createOrReplaceTempView(view)

    def feature_codes(base: str, edges: dict, tail: str):
        """The codes of ``_code_expr`` with MLlib's Bucketizer (a binary search per row): a CASE
        tree of 2000 branches defeats Spark's code generation. None: use the SQL tree."""
        from pyspark.ml.feature import Bucketizer
        from pyspark.sql import functions as F

        frame = spark.sql(base + "SELECT day, " + ", ".join(f"f{i}" for i in edges) + " FROM b2 WHERE day IS NOT NULL")
        for i, e in edges.items():
            splits = [float("-inf")]
            for v in e:
                splits += [float(v), float(np.nextafter(v, np.inf))]
            splits.append(float("inf"))
            if not np.all(np.diff(splits) > 0):
                return None  # adjacent doubles or infinite edges: the SQL tree handles them
            frame = frame.withColumn(f"x{i}", F.coalesce(F.col(f"f{i}"), F.lit(float("nan"))))
            frame = Bucketizer(splits=splits, inputCol=f"x{i}", outputCol=f"b{i}", handleInvalid="keep").transform(frame)
            frame = frame.withColumn(f"c{i}", F.col(f"b{i}").cast("bigint"))  # NaN/null -> bucket 2E+1, as the tree
        frame.createOrReplaceTempView("fc")
        return run(tail)

    def run(sql):
        try:
            res = spark.sql(sql)
            # collect, not toPandas: the aggregate is small, and this avoids pyspark's pandas-3 gaps
            return pd.DataFrame([tuple(r) for r in res.collect()], columns=res.columns)
        except PySparkException as err:
            raise InputError(f"Spark could not aggregate {source}: {str(err).splitlines()[0]}") from None

    run.feature_codes = feature_codes
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


def aggregate_source(
    source: str,
    query: Query,
    *,
    engine: str = "duckdb",
    resolution="auto",
    thresholds=None,
    scheme: str = "rows",
    strata_column: str | None = None,
    spark=None,
    max_exact_scores: int = MAX_EXACT_SCORES,
    runner=None,
    drift=None,
    update: Aggregate | None = None,
    memory_limit: str | None = None,
    files=None,
) -> Aggregate:
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
    drift : evalcore.drift.DriftConfig, default=None
        With a time column, per-day tables for the drift lights are aggregated too; the
        feature references are fitted on this config's reference window (default settings
        when None).
    update : Aggregate, default=None
        An aggregate of the same source and query (e.g. the one an app stored) to update
        rather than rebuild: its cells, score kinds and resolution are kept, per-group cells
        and drift tables too when they serve these options; only the rest is queried (for a
        moved threshold, just the paired table — seconds instead of a full pass).
    memory_limit : str, default=None
        DuckDB's memory limit (e.g. "4GB"); past it DuckDB spills to disk.
    files : sequence of str, default=None
        DuckDB: the checked, resolved files to read instead of expanding ``source``
        (:func:`board.engines.lake.resolve_source`); the connection can read nothing else.
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
        runner = (
            duckdb_runner(source, files=files, memory_limit=memory_limit)
            if engine == "duckdb"
            else spark_runner(source, spark=spark)
        )
    src, quote, run = runner
    drift = drift or DriftConfig()
    problems = []
    fkinds = {}
    if query.time and query.features:
        types = run(types_sql(query.features, src, quote))
        for i, col in enumerate(query.features):
            t = str(types.iloc[0][f"t{i}"]).lower() if len(types) else ""
            if t.startswith(_TIME_TYPES):
                problems.append(
                    f"feature {col!r} has type {t}; drift needs numeric or categorical values: convert it or leave it out."
                )
            fkinds[col] = "psi" if col in drift.categorical or not t.startswith(_NUMERIC_TYPES) else "ks"
    stats = run(stats_sql(query, src, quote)).iloc[0]
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
    if query.time and n and int(stats["n_time"]) != n:
        problems.append(
            f"time column {query.time!r} has {n - int(stats['n_time'])} missing or unparseable values; fix or remove those rows."
        )
    label_problems = ProblemList()
    if n and int(stats["n_label"]):
        query = _resolve_positive(query, src, quote, run, label_problems)
    if problems or label_problems:
        raise InputError([Problem(code="source", message=p) for p in problems] + label_problems.problems)
    kinds = {m: _kind(stats, j, query.score_kinds.get(m, "auto")) for j, m in enumerate(models)}
    res = {}
    for j, m in enumerate(models):
        r = resolution.get(m, "auto") if isinstance(resolution, dict) else resolution
        if r == "auto":
            r = choose_resolution(
                int(stats[f"nd{j}"]),
                kinds[m],
                float(stats[f"min{j}"]),
                float(stats[f"max{j}"]),
                max_exact_scores=max_exact_scores,
            )
        res[m] = None if r is None else float(r)
    if update is not None:
        if list(update.models) != models:
            raise InputError(f"update: the stored aggregate has models {update.models}, the query {models}.")
        kinds, res = dict(update.score_kinds), dict(update.resolution)  # the paired table must use the stored bins
    base = _base_sql(query, src, quote, res, fkinds)
    if update is not None:
        n_stored = update.totals()[2]
        if int(stats["n"]) != n_stored:
            raise InputError(
                f"{source} now has {int(stats['n']):,} rows; the aggregate being updated was made from "
                f"{n_stored:,}: the source changed, so aggregate it afresh."
            )
        agg = dataclasses.replace(
            update, source={"engine": engine, "source": source}, group_cells=update.group_cells if scheme == "cluster" else None
        )
        if scheme == "cluster" and update.group_cells is None:
            agg = dataclasses.replace(agg, group_cells=_group_cells(base, run, models))
        if query.time and (update.day_cells is None or drift_fit_mismatch(update, drift)):
            agg = dataclasses.replace(agg, **_drift_tables(query, base, run, kinds, fkinds, stats["day_min"], drift))
        return _with_paired(agg, query, base, run, thresholds, scheme, strata_column)
    parts = []
    for j, m in enumerate(models):
        f = run(base + cells_sql(query, j)).rename(columns={"seg_column": "column", "seg_level": "level", "rows_": "rows"})
        f.insert(0, "model", m)
        parts.append(f)
    agg = Aggregate.from_frame(
        pd.concat(parts, ignore_index=True),
        score_kinds=kinds,
        resolution=res,
        weighted=bool(query.weight),
        time_column=query.time,
        group_cells=_group_cells(base, run, models) if scheme == "cluster" else None,
        source={"engine": engine, "source": source},
    )
    if query.time:
        agg = dataclasses.replace(agg, **_drift_tables(query, base, run, kinds, fkinds, stats["day_min"], drift))
    return _with_paired(agg, query, base, run, thresholds, scheme, strata_column)


def _resolve_positive(query: Query, src: str, quote, run, problems: ProblemList) -> Query:
    """The query with ``positive`` the label's positive value as the engine spells it, by the
    reader's rule (:func:`evalcore.data.binary_label`: exactly two values; 1/0, true/false,
    yes/no, … decide it, else the user's choice matched as text, ignoring case or as a number)."""
    lab = quote(query.label)
    f = run(
        f"SELECT CAST({lab} AS STRING) AS v, count(*) AS n FROM {src} WHERE {lab} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 11"
    )
    levels, counts = [str(v) for v in f["v"]], f["n"].to_numpy().astype(np.int64)
    i = binary_label(levels, counts, query.positive, query.label, problems)
    return query if i is None else dataclasses.replace(query, positive=levels[i])


def _group_cells(base: str, run, models) -> pd.DataFrame:
    gparts = []
    for j, m in enumerate(models):
        g = run(base + group_sql(j)).rename(columns={"group_": "group", "rows_": "rows"})
        g.insert(0, "model", m)
        gparts.append(g.sort_values(["group", "score", "label"], kind="stable"))
    return pd.concat(gparts, ignore_index=True)


def _with_paired(agg: Aggregate, query: Query, base: str, run, thresholds, scheme, strata_column) -> Aggregate:
    """The paired 8-cell table of two models at the deployed thresholds (one model: unchanged)."""
    models = list(query.scores)
    if len(models) != 2:
        return agg
    t = deployed_thresholds(agg, thresholds or {})
    si = query.segments.index(strata_column) if scheme == "stratified" else None
    p = run(base + paired_sql(query, t[models[0]], t[models[1]], si, scheme == "cluster"))
    p = p.rename(columns={"group_": "group", "rows_": "rows"})
    p = p.sort_values(["stratum", "group", "act_a", "act_b", "label"], kind="stable").reset_index(drop=True)
    for c in ("act_a", "act_b", "label", "rows"):
        p[c] = p[c].astype(np.int64)
    return dataclasses.replace(
        agg, paired=p, paired_thresholds=t, strata_column=strata_column if scheme == "stratified" else None
    )


# --------------------------------------------------------------------------------------
# value over time: the per-day decision and score tables (evalcore.over_time.TimeTables)
# --------------------------------------------------------------------------------------


def over_time_sql(q: Query, thresholds: tuple, strata_index: int | None, by_group: bool) -> tuple[str, list[str]]:
    """(decisions, [scores per model]) SELECTs over ``b2``: the decisions at the deployed
    thresholds per (day, stratum, group, act_a, act_b, label), and per model the rows per
    (day, score bin, label) — the tables of :func:`evalcore.over_time.time_tables`."""
    st = f"g{strata_index}" if strata_index is not None else "''"
    gr = "grp" if by_group else "''"
    act_b = f"CASE WHEN bin1 >= {thresholds[1]!r} THEN 1 ELSE 0 END" if len(thresholds) > 1 else "0"
    dec = (
        f"SELECT day AS date, {st} AS stratum, {gr} AS group_, CASE WHEN bin0 >= {thresholds[0]!r} THEN 1 ELSE 0 END AS act_a, "
        f"{act_b} AS act_b, y AS label, count(*) AS rows_, sum(w) AS weight FROM b2 GROUP BY 1, 2, 3, 4, 5, 6"
    )
    scores = [
        f"SELECT day AS date, bin{j} AS score, y AS label, count(*) AS rows_, sum(w) AS weight FROM b2 GROUP BY 1, 2, 3"
        for j in range(len(thresholds))
    ]
    return dec, scores


def over_time_source(
    source: str,
    query: Query,
    *,
    engine: str = "duckdb",
    thresholds: dict,
    score_kinds: dict,
    resolution: dict | None = None,
    strata_column: str | None = None,
    groups: bool = False,
    spark=None,
    runner=None,
    memory_limit: str | None = None,
    files=None,
):
    """The :class:`evalcore.over_time.TimeTables` of a Parquet source (or Spark table), for
    :func:`evalcore.over_time.value_over_time_of` — equal to the rows' ``time_tables``.

    ``thresholds``, ``score_kinds`` and ``resolution`` are the board's (e.g. from the
    aggregate the board was evaluated from), so scores fall in the same bins. Every label
    must be present here (labels that arrive late need the pandas path for now).
    """
    from evalcore.over_time import TimeTables

    if engine not in ENGINES:
        raise InputError(f"engine must be one of {ENGINES}; got {engine!r}.")
    if not query.time:
        raise InputError("value over time needs a time column (--time).")
    if groups and not query.group:
        raise InputError("the cluster bootstrap needs a group id column (--group).")
    if strata_column is not None and strata_column not in query.segments:
        raise InputError(f"stratified bootstrap by {strata_column!r}: pass it as a --segment column too.")
    if runner is None:
        runner = (
            duckdb_runner(source, files=files, memory_limit=memory_limit)
            if engine == "duckdb"
            else spark_runner(source, spark=spark)
        )
    src, quote, run = runner
    problems = ProblemList()
    query = _resolve_positive(query, src, quote, run, problems)
    problems.raise_if_any()
    models = list(query.scores)
    res = {m: (resolution or {}).get(m) for m in models}
    base = _base_sql(query, src, quote, res)
    si = query.segments.index(strata_column) if strata_column is not None else None
    dec_sql, score_sqls = over_time_sql(query, tuple(float(thresholds[m]) for m in models), si, groups)
    dec = run(base + dec_sql).rename(columns={"group_": "group", "rows_": "rows"})
    parts = []
    for j, m in enumerate(models):
        f = run(base + score_sqls[j]).rename(columns={"rows_": "rows"})
        f.insert(0, "model", m)
        parts.append(f)
    return TimeTables.from_frames(
        dec,
        pd.concat(parts, ignore_index=True),
        models=tuple(models),
        thresholds={m: float(thresholds[m]) for m in models},
        score_kinds=dict(score_kinds),
        resolution=res,
        strata_column=strata_column,
        groups=bool(groups),
        weighted=bool(query.weight),
    )
