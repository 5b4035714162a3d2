"""Benchmark of the Value table page's live what-if (issue 16 item 2; a script, not a test).

At N rows (default 100k; synthetic, two models, continuous probability scores, ~2% positives) the
counts by score are built once (the app caches them per dataset). One edit then costs:

(a) re-pricing   ``board.app.whatif_view.curves_of`` for the edited table and the version in
                 force, and ``compare`` (EV at deployed / at optimum, the optimum threshold,
                 changes) — the numbers of the panel;
(b) + figure     (a) and ``board.charts.value_curve_figure`` of the four curves (the chart the
                 panel draws; not its transfer to the browser).

Every time is the best of ``--repeats`` runs (default 5) with ``time.perf_counter``; each run
prices a table that differs from the previous one (a new edit). Target: the page's rerun after an
edit < 1 s at 100k rows.

Usage::

    python bench/bench_whatif.py               # 100k rows
    python bench/bench_whatif.py --rows 1000000
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from board.app.whatif_view import compare, curves_of  # noqa: E402
from board.charts import value_curve_figure  # noqa: E402
from evalcore.counts import score_counts  # noqa: E402
from evalcore.value import ValueTable  # noqa: E402

IN_FORCE = ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120, unit="EUR")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    y = (rng.random(args.rows) < 0.02).astype(int)
    scores = {
        "old": np.clip(0.3 * y + rng.beta(1, 8, args.rows), 0, 1),
        "new": np.clip(0.45 * y + rng.beta(1, 9, args.rows), 0, 1),
    }
    t0 = time.perf_counter()
    counts = {m: score_counts(y, s) for m, s in scores.items()}
    build = time.perf_counter() - t0
    kinds = {m: "probability" for m in counts}
    deployed = {m: 0.5 for m in counts}
    curves_of(counts, kinds, IN_FORCE)  # the counts' cumulative sums, as after the page's first run
    pricing, whole = [], []
    for i in range(args.repeats):
        edited = IN_FORCE.with_amounts(fn=-22000.0 - 1000.0 * (i + 1))
        t0 = time.perf_counter()
        new, old = curves_of(counts, kinds, edited), curves_of(counts, kinds, IN_FORCE)
        compare(new, old, deployed)
        t1 = time.perf_counter()
        shown = {f"{m} · edited": c for m, c in new.items()} | {f"{m} · in force": c for m, c in old.items()}
        value_curve_figure(shown, {f"{m} · edited": deployed[m] for m in new}, unit="EUR", height=360)
        t2 = time.perf_counter()
        pricing.append(t1 - t0)
        whole.append(t2 - t0)
    distinct = {m: len(c.scores) if hasattr(c, "scores") else "?" for m, c in counts.items()}
    print(f"python {platform.python_version()}, {os.cpu_count()} cores; {args.rows:,} rows, 2 models, distinct scores {distinct}")
    print(f"counts by score, built once (cached by the app): {build * 1000:8.1f} ms")
    print(f"(a) re-pricing, edited + in force, 2 models:     {min(pricing) * 1000:8.1f} ms (best of {args.repeats})")
    print(f"(b) re-pricing + curve figure:                   {min(whole) * 1000:8.1f} ms (best of {args.repeats})")


if __name__ == "__main__":
    main()
