"""Scale-out benchmark: DuckDB on a 100M-row Parquet dataset, Spark local[2] on 10M rows.

    .venv/bin/python bench/bench_engines.py [--rows 100_000_000] [--files 20] [--spark-rows 10_000_000]
        [--dir /tmp/evalboard_bench] [--no-spark]

Prints wall time per phase and per query, and the peak resident memory of this process (DuckDB
runs in it; Spark's JVM is measured separately as the children's peak). Data: one probability
model with continuous scores (auto resolution 1e-4), two segment columns, 2% positives, a
timestamp over 28 days and two drift features (a continuous amount whose last week shifts, and
the channel), so the drift lights are aggregated too.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board.engines import Query, aggregate_source  # noqa: E402
from evalcore import ValueTable  # noqa: E402
from evalcore.aggregate import evaluate_aggregate  # noqa: E402
from evalcore.board import BoardConfig  # noqa: E402


def peak_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def jvm_peak_mb() -> float:
    """Peak resident memory (VmHWM) of this process's java children: the Spark driver JVM,
    still running when measured, so RUSAGE_CHILDREN cannot see it."""
    import os

    peak = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read().split()
            if int(stat[3]) != os.getpid() or "java" not in stat[1]:
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) / 1024)
        except OSError:
            continue
    return peak


def generate(folder: Path, rows: int, files: int, seed: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if len(list(folder.glob("*.parquet"))) == files:
        return
    per = rows // files
    for i in range(files):
        rng = np.random.default_rng([seed, i])
        x = rng.normal(size=per)
        start = pd.Timestamp("2026-10-05") + pd.Timedelta(days=28) * i / files  # files in time order
        t = start + pd.to_timedelta(np.sort(rng.integers(0, int(28 * 86_400 / files), per)), unit="s")
        f = pd.DataFrame(
            {
                "t": t.astype("datetime64[us]"),
                "amount": rng.lognormal(3.0 + 0.5 * (t >= pd.Timestamp("2026-10-26")), 1.0, per),
                "y": (rng.random(per) < 1 / (1 + np.exp(-(1.2 * x - 4.3)))).astype(np.int8),
                "p": (1 / (1 + np.exp(-(x - 4.0 + rng.normal(0, 0.6, per))))).astype(np.float64),
                "region": rng.choice(np.array(["north", "south", "east", "west"]), per),
                "channel": rng.choice(np.array(["app", "web", "branch"]), per),
            }
        )
        f.to_parquet(folder / f"part-{i:03d}.parquet", row_group_size=1_000_000)


def timed(runner, log: list):
    """The runner, with each query's wall time logged under its first words."""
    src, quote, run = runner

    def timed_run(sql):
        t = time.perf_counter()
        out = run(sql)
        tail = sql.split(") SELECT ", 1)[-1] if ") SELECT " in sql else sql
        log.append((time.perf_counter() - t, tail[:70].replace("\n", " ")))
        return out

    if hasattr(run, "feature_codes"):

        def codes(base, edges, tail):
            t = time.perf_counter()
            out = run.feature_codes(base, edges, tail)
            log.append((time.perf_counter() - t, "feature codes (histogram / Bucketizer)"))
            return out

        timed_run.feature_codes = codes
    return src, quote, timed_run


def run(engine: str, glob: str, spark=None) -> dict:
    from board.engines import duckdb_runner, spark_runner

    q = Query(label="y", scores={"m": "p"}, segments=("region", "channel"), time="t", features=("amount", "channel"))
    log = []
    t0 = time.perf_counter()
    runner = timed(duckdb_runner(glob) if engine == "duckdb" else spark_runner(glob, spark=spark), log)
    agg = aggregate_source(glob, q, engine=engine, runner=runner)
    t1 = time.perf_counter()
    res = evaluate_aggregate(agg, ValueTable(tp=500, fp=-20, fn=-500, tn=0), BoardConfig(n_resamples=1000))
    t2 = time.perf_counter()
    for sec, what in log:
        print(f"    {sec:6.1f} s  {what}", flush=True)
    lights = {k: v.color for k, v in res.drift.lights.items()} if res.drift else res.drift_undefined
    return {
        "aggregate_s": t1 - t0,
        "evaluate_s": t2 - t1,
        "cells": len(agg.cells),
        "n": res.n,
        "resolution": agg.resolution["m"],
        "t_opt": res.models["m"].curve.t_opt,
        "lights": lights,
    }


def bench_update(glob: str) -> None:
    """A two-model board whose threshold moves (what the app does for a path-registered
    dataset): a full aggregation against an update of the stored aggregate (paired table only)."""
    q = Query(label="y", scores={"a": "p", "b": "p"}, segments=("region", "channel"))
    t = time.perf_counter()
    stored = aggregate_source(glob, q, engine="duckdb")
    first = time.perf_counter() - t
    moved = {"a": 0.1, "b": 0.05}
    t = time.perf_counter()
    full = aggregate_source(glob, q, engine="duckdb", thresholds=moved)
    t_full = time.perf_counter() - t
    t = time.perf_counter()
    upd = aggregate_source(glob, q, engine="duckdb", thresholds=moved, update=stored)
    t_upd = time.perf_counter() - t
    pd.testing.assert_frame_equal(full.paired, upd.paired)
    print(f"two models: first aggregation {first:.1f} s; threshold moved: full {t_full:.1f} s, update {t_upd:.1f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--spark-rows", type=int, default=10_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/evalboard_bench_drift"))
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--no-duckdb", action="store_true")
    a = ap.parse_args()
    if not a.no_duckdb:
        t = time.perf_counter()
        generate(a.dir / "big", a.rows, a.files)
        print(
            f"generated {a.rows:,} rows in {a.files} files: {time.perf_counter() - t:.1f} s "
            f"({sum(p.stat().st_size for p in (a.dir / 'big').glob('*.parquet')) / 2**30:.2f} GiB)",
            flush=True,
        )
        base = peak_mb()
        r = run("duckdb", str(a.dir / "big" / "*.parquet"))
        print(
            f"duckdb {a.rows:,} rows: aggregate {r['aggregate_s']:.1f} s, evaluate {r['evaluate_s']:.1f} s, "
            f"total {r['aggregate_s'] + r['evaluate_s']:.1f} s; {r['cells']} cells, resolution {r['resolution']}, "
            f"t_opt {r['t_opt']:.4f}, drift {r['lights']}; peak RSS {peak_mb():.0f} MB "
            f"(after generation {base:.0f} MB)",
            flush=True,
        )
        bench_update(str(a.dir / "big" / "*.parquet"))
    if a.no_spark:
        return
    generate(a.dir / "spark", a.spark_rows, max(1, a.files // 10))
    from pyspark.sql import SparkSession

    t = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    up = time.perf_counter() - t
    r = run("spark", str(a.dir / "spark"), spark=spark)
    print(
        f"spark local[2] {a.spark_rows:,} rows: start {up:.1f} s, aggregate {r['aggregate_s']:.1f} s, "
        f"evaluate {r['evaluate_s']:.1f} s; {r['cells']} cells, drift {r['lights']}; JVM peak RSS "
        f"{jvm_peak_mb():.0f} MB",
        flush=True,
    )
    spark.stop()


if __name__ == "__main__":
    main()
