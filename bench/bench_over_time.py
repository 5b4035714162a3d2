"""Value over time benchmarks (a script, not a test): wall time of
:func:`evalcore.over_time.value_over_time` on N rows of two models over 90 days, B = 1000,
for daily and weekly windows (rows and cluster schemes), and with the labels of the last
17 days not arrived (the estimates: map refits, row and label draws, the quality check).

    .venv/bin/python bench/bench_over_time.py [--rows 1000000]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore import ValueTable  # noqa: E402
from evalcore.data import ColumnMapping, validate  # noqa: E402
from evalcore.over_time import label_known_until, value_over_time  # noqa: E402
from evalcore.results import BoardConfig  # noqa: E402


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    return pd.DataFrame(
        {
            "t": pd.Timestamp("2026-08-01") + pd.to_timedelta(rng.integers(0, 90 * 86400, n), unit="s"),
            "a": p,
            "b": np.clip(p + rng.normal(0, 0.05, n), 0.001, 0.999),
            "y": (rng.random(n) < p).astype(int),
            "cust": rng.integers(0, n // 5, n).astype(str),
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    f = synthetic(args.rows)
    rows = validate(f, ColumnMapping(label="y", scores={"A": "a", "B": "b"}, time="t", group="cust"))
    table = ValueTable(tp=100, fp=-20, fn=-50, tn=0)
    for window in ("day", "week"):
        for scheme in ("rows", "cluster"):
            t0 = time.perf_counter()
            value_over_time(rows, table, BoardConfig(n_resamples=1000, scheme=scheme), window=window)
            print(f"{args.rows:>9,} rows  {window:<4} {scheme:<7} realised  {time.perf_counter() - t0:6.1f} s")
    known = label_known_until(rows.time, "2026-10-13")
    t0 = time.perf_counter()
    value_over_time(rows, table, BoardConfig(n_resamples=1000), window="day", label_known=known)
    print(f"{args.rows:>9,} rows  day  rows    estimated {time.perf_counter() - t0:6.1f} s (last 17 days without labels)")


if __name__ == "__main__":
    main()
