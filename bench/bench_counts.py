"""Benchmark: the counts primitive against one sort and scikit-learn, and the upload path.

Usage::

    .venv/bin/python bench/bench_counts.py                      # 100k, 1M, 10M; CSV at 100k and 1M
    .venv/bin/python bench/bench_counts.py --sizes 100000 1000000 --csv-sizes 100000
    .venv/bin/python bench/bench_counts.py --csv-10m            # also read+validate a 10M-row CSV (slow to write)

Times are the best of ``--repeat`` runs (default 3) with ``time.perf_counter``.
"""

from __future__ import annotations

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_curve

from evalcore import threshold_counts
from evalcore.data import ColumnMapping, read_table, validate


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def synthetic_scores(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(np.int8)
    s = np.clip(rng.normal(0.3 + 0.3 * y, 0.15), 0, 1)  # continuous: (almost) every score distinct
    return y, s


def synthetic_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """label, two scores, 3 segments, a date, a customer id, 4 numeric features."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(np.int8)
    return pd.DataFrame(
        {
            "is_fraud": y,
            "score_old": np.round(np.clip(rng.normal(0.3 + 0.2 * y, 0.15), 0, 1), 4),
            "score_new": np.round(np.clip(rng.normal(0.3 + 0.3 * y, 0.15), 0, 1), 4),
            "channel": rng.choice(["app", "web", "branch"], n),
            "new_user": rng.choice(["yes", "no"], n),
            "region": rng.choice(list("ABCDEFG"), n),
            "application_date": (pd.Timestamp("2025-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D")).strftime(
                "%Y-%m-%d"
            ),
            "customer_id": np.char.add("C", rng.integers(0, max(n // 4, 1), n).astype(str)),
            **{f"f{i}": np.round(rng.normal(size=n), 3) for i in range(4)},
        }
    )


MAPPING = ColumnMapping(
    label="is_fraud",
    scores={"A": "score_old", "B": "score_new"},
    segments=("channel", "new_user", "region"),
    time="application_date",
    group="customer_id",
    features=("f0", "f1", "f2", "f3"),
)


def bench_counts(sizes, repeat):
    print(f"{'rows':>12} {'threshold_counts':>17} {'argsort':>9} {'roc_curve':>10} {'tc/argsort':>11} {'tc/roc':>7}")
    for n in sizes:
        y, s = synthetic_scores(n)
        t_tc = best_of(lambda: threshold_counts(y, s), repeat)
        t_sort = best_of(lambda: np.argsort(s), repeat)
        t_roc = best_of(lambda: roc_curve(y, s, drop_intermediate=False), repeat)
        print(f"{n:>12,} {t_tc:>16.3f}s {t_sort:>8.3f}s {t_roc:>9.3f}s {t_tc / t_sort:>10.2f}x {t_tc / t_roc:>6.2f}x")


def bench_upload(sizes, repeat):
    print(f"\n{'rows':>12} {'CSV size':>9} {'read_table':>11} {'validate':>9} {'total':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"bench_{n}.csv"
            synthetic_frame(n).to_csv(path, index=False)  # untimed
            raw = path.read_bytes()
            frames = []
            t_read = best_of(lambda: frames.append(read_table(raw, path.name, max_bytes=2**40)), repeat)
            frame = frames[-1]
            t_val = best_of(lambda: validate(frame, MAPPING), repeat)
            t_total = best_of(lambda: validate(read_table(raw, path.name, max_bytes=2**40), MAPPING), repeat)
            print(f"{n:>12,} {len(raw) / 2**20:>7.1f}MB {t_read:>10.3f}s {t_val:>8.3f}s {t_total:>7.3f}s")
            raw = frames = frame = None  # free the largest size before the next


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[100_000, 1_000_000, 10_000_000],
        help="row counts for the threshold_counts / argsort / roc_curve comparison",
    )
    ap.add_argument("--csv-sizes", type=int, nargs="*", default=[100_000, 1_000_000], help="row counts for read_table + validate")
    ap.add_argument("--csv-10m", action="store_true", help="also read+validate a 10M-row CSV (~700 MB, slow to write)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    bench_counts(args.sizes, args.repeat)
    csv_sizes = list(args.csv_sizes) + ([10_000_000] if args.csv_10m else [])
    if csv_sizes:
        bench_upload(csv_sizes, args.repeat)


if __name__ == "__main__":
    main()
