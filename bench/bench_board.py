"""Board benchmarks (a script, not a test):

1. ``python -m board evaluate`` wall time at N rows with B = 1000 (target at 1M rows: < 10 s),
   on a synthetic validation log with two models, a segment, a time column, customers and
   four features.
2. Time from opening the board in Chromium to all five modules rendered, on the demo data,
   cold (fresh server) and cached (a second visit).

    .venv/bin/python bench/bench_board.py [--rows 1000000] [--skip-browser]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    eta = rng.normal(-4.0, 1.2, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(np.int8)
    day = rng.integers(0, 28, n)
    return pd.DataFrame(
        {
            "label": y,
            "score_a": np.round(1 / (1 + np.exp(-(eta + rng.normal(0, 1.0, n)))), 6),
            "score_b": np.round(1 / (1 + np.exp(-(eta + rng.normal(0, 0.6, n)))), 6),
            "segment": rng.choice(["new", "returning", "vip"], n, p=[0.3, 0.6, 0.1]),
            "time": pd.Timestamp("2026-10-01") + pd.to_timedelta(day, unit="D"),
            "customer": rng.integers(0, n // 3, n),
            "f1": rng.normal(0, 1, n) + 0.3 * (day >= 21),
            "f2": rng.exponential(1, n),
            "f3": rng.integers(0, 10, n),
            "f4": rng.choice(["a", "b", "c"], n),
        }
    )


def bench_cli(n: int, scheme: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "log.csv"
        synthetic(n).to_csv(csv, index=False)
        args = [
            sys.executable,
            "-m",
            "board",
            "evaluate",
            "--predictions",
            str(csv),
            "--label",
            "label",
            "--score",
            "A=score_a",
            "--score",
            "B=score_b",
            "--segment",
            "segment",
            "--time",
            "time",
            "--group",
            "customer",
            "--feature",
            "f1",
            "--feature",
            "f2",
            "--feature",
            "f3",
            "--feature",
            "f4",
            "--tp",
            "18500",
            "--fp",
            "-3200",
            "--fn",
            "-22000",
            "--tn",
            "120",
            "--n-resamples",
            "1000",
            "--scheme",
            scheme,
            "--json",
            str(Path(d) / "out.json"),
            "--max-mb",
            "4096",
        ]
        t = time.perf_counter()
        r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode:
            print(r.stderr)
            raise SystemExit(r.returncode)
        print(
            f"python -m board evaluate: {n:,} rows, B=1000, {scheme} bootstrap, drift, 2 models: {dt:.1f} s "
            f"(CSV {csv.stat().st_size / 2**20:.0f} MB)"
        )


def bench_browser() -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, start_server, stop_server

    with tempfile.TemporaryDirectory() as d:
        proc, url = start_server(Path(d))
        try:
            with sync_playwright() as p:
                b = p.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
                )
                for label in ("cold (first visit: demo stored, bootstrap, drift)", "cached (second visit)"):
                    page = b.new_page(viewport={"width": 1920, "height": 1080})
                    t = time.perf_counter()
                    page.goto(url)
                    page.wait_for_selector(".st-key-board_action", timeout=300_000)
                    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3")
                    print(f"board, all five modules rendered, {label}: {time.perf_counter() - t:.1f} s")
                    page.close()
                b.close()
        finally:
            stop_server(proc)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--skip-browser", action="store_true")
    ap.add_argument(
        "--scheme",
        action="append",
        choices=["rows", "stratified", "cluster"],
        help="bootstrap scheme(s) to time (default: rows and cluster)",
    )
    a = ap.parse_args()
    for scheme in a.scheme or ["rows", "cluster"]:
        bench_cli(a.rows, scheme)
    if not a.skip_browser:
        bench_browser()
