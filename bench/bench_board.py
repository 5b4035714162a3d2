"""Board benchmarks (a script, not a test):

1. ``python -m board evaluate`` wall time and peak resident memory at 100k / 1M / 10M rows with
   B = 1000, rows and cluster bootstrap schemes, on a synthetic validation log with two models, a
   segment, a time column over 28 days, customers (about 3 rows each) and ten drift features —
   best of ``--repeat`` runs (other work on the machine only slows a run down); reading the CSV
   or (``--format parquet``) the same rows as Parquet.
2. The import cost of ``python -m board`` (``--help``: parsing arguments loads no numpy, pandas or
   SciPy) and of the full board pipeline's modules.
3. Time from opening the board in Chromium to all five modules rendered, on the demo data,
   cold (fresh server) and cached (a second visit).

Prints a Markdown table (the README's "Performance" section holds one).

    .venv/bin/python bench/bench_board.py [--rows 100000 1000000 10000000] [--scheme rows cluster]
        [--format csv parquet] [--repeat 3] [--dir /tmp/evalboard_bench] [--skip-browser]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FEATURES = [f"f{i}" for i in range(1, 11)]


def synthetic(n: int, seed: int = 0):
    """n rows: label (~3% positive), two probability models (B sharper than A), a segment of 3
    levels, 28 days, customers with ~3 rows each and ten features (numeric and categorical; f1
    shifts in the last week)."""
    import numpy as np
    import pandas as pd

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
            "customer": rng.integers(0, max(n // 3, 1), n),
            "f1": rng.normal(0, 1, n) + 0.3 * (day >= 21),
            "f2": rng.exponential(1, n),
            "f3": rng.integers(0, 10, n),
            "f4": rng.choice(["a", "b", "c"], n),
            "f5": np.round(rng.lognormal(3, 1, n), 2),
            "f6": rng.integers(18, 90, n),
            "f7": rng.choice(["web", "store", "phone", "partner"], n),
            "f8": rng.normal(0, 1, n),
            "f9": rng.uniform(0, 1, n),
            "f10": rng.poisson(3, n),
        }
    )


def data_file(folder: Path, n: int, fmt: str = "csv") -> Path:
    """The CSV (or Parquet, converted from it) of ``synthetic(n)``, written once (by a child process,
    so this one stays small and the children's peak memory is their own) and reused."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"log_{n}.csv"
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--write", str(n), str(path)], check=True)
    if fmt == "parquet":
        csv, path = path, path.with_suffix(".parquet")
        if not path.exists():
            subprocess.run([sys.executable, __file__, "--parquet", str(csv), str(path)], check=True)
    return path


def write_parquet(csv: Path, path: Path) -> None:
    """The same rows as Parquet (pyarrow's CSV reader, as the board reads them: the same values)."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    tmp = path.with_suffix(".tmp")
    pq.write_table(pacsv.read_csv(csv), tmp)
    tmp.rename(path)


def write_csv(n: int, path: Path) -> None:
    """Write ``synthetic`` rows in chunks of a million (customers do not repeat across chunks)."""
    tmp = path.with_suffix(".tmp")
    chunk = 1_000_000
    for i, start in enumerate(range(0, n, chunk)):
        part = synthetic(min(chunk, n - start), seed=i)
        part["customer"] += start // 3
        part.to_csv(tmp, mode="w" if i == 0 else "a", header=i == 0, index=False)
    tmp.rename(path)


def run(args: list) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MB of the child) of one command: its rusage by wait4
    (Linux counts the memory a child had before exec, so this process imports no numpy)."""
    with tempfile.TemporaryFile(mode="w+") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        dt = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(map(str, args[:4]))} … failed ({proc.returncode}):\n{err.read()}")
    return dt, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cli_args(csv: Path, scheme: str, out: Path) -> list:
    args = [sys.executable, "-m", "board", "evaluate", "--predictions", str(csv), "--label", "label"]
    args += ["--score", "A=score_a", "--score", "B=score_b", "--segment", "segment", "--time", "time"]
    args += ["--group", "customer"]
    for f in FEATURES:
        args += ["--feature", f]
    args += ["--tp", "18500", "--fp", "-3200", "--fn", "-22000", "--tn", "120", "--n-resamples", "1000"]
    args += ["--scheme", scheme, "--json", str(out), "--max-mb", "8192", "--max-rows", "20000000"]
    return args


def best(args: list, repeat: int) -> tuple[float, float, float]:
    """The fastest of ``repeat`` runs: (wall, CPU, peak MB) — CPU time (both cores added up) is
    what a busy machine inflates least."""
    return min((run(args) for _ in range(repeat)), key=lambda r: r[0])


def bench_imports(repeat: int) -> list:
    rows = []
    for label, args in (
        ("python -m board --help", [sys.executable, "-m", "board", "--help"]),
        (
            "import the board pipeline (evalcore.board, SciPy stats, scikit-learn)",
            [sys.executable, "-c", "import evalcore.board, evalcore.calibration, scipy.stats, sklearn.linear_model"],
        ),
        ("python -c pass (the interpreter alone)", [sys.executable, "-c", "pass"]),
    ):
        dt, cpu, mb = best(args, repeat)
        rows.append((label, f"{dt:.2f} s", f"{cpu:.2f} s", f"{mb:.0f} MB"))
    return rows


def bench_cli(folder: Path, sizes: list, schemes: list, repeat: int, formats=("csv",)) -> list:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            for fmt in formats:
                path = data_file(folder, n, fmt)
                for scheme in schemes:
                    dt, cpu, mb = best(cli_args(path, scheme, Path(d) / "out.json"), repeat)
                    size = f"{path.stat().st_size / 2**20:,.0f} MB {'CSV' if fmt == 'csv' else 'Parquet'}"
                    rows.append(
                        (
                            f"python -m board evaluate, {n:,} rows ({size}), {scheme}",
                            f"{dt:.1f} s",
                            f"{cpu:.1f} s",
                            f"{mb:,.0f} MB",
                        )
                    )
                    print(*rows[-1], sep=" | ", flush=True)
    return rows


def table(rows: list) -> str:
    out = ["| what | wall time (best run) | CPU time (that run) | peak memory |", "| --- | ---: | ---: | ---: |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def bench_browser() -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM
    from tests.e2e.servers import running_server

    with tempfile.TemporaryDirectory() as d, running_server(Path(d) / "data", warm=False) as srv:
        with sync_playwright() as p:
            b = p.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            for label in ("cold (first visit: demo stored, bootstrap, drift)", "cached (second visit)"):
                page = b.new_page(viewport={"width": 1920, "height": 1080})
                t = time.perf_counter()
                page.goto(srv.url)
                page.wait_for_selector(".eb-verdict", timeout=300_000)  # the verdict, then the whole board:
                page.wait_for_function(
                    "!document.body.innerText.includes('Verdict: computing')"
                    " && document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3",
                    timeout=300_000,
                )
                print(f"board, all five modules rendered, {label}: {time.perf_counter() - t:.1f} s")
                page.close()
            b.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write_csv(int(sys.argv[2]), Path(sys.argv[3]))
        raise SystemExit(0)
    if sys.argv[1:2] == ["--parquet"]:
        write_parquet(Path(sys.argv[2]), Path(sys.argv[3]))
        raise SystemExit(0)
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    ap.add_argument("--scheme", nargs="+", choices=["rows", "stratified", "cluster"], default=["rows", "cluster"])
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is reported")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "evalboard_bench", help="where the CSVs are kept")
    ap.add_argument("--format", nargs="+", choices=["csv", "parquet"], default=["csv"], help="the file the CLI reads")
    ap.add_argument("--skip-browser", action="store_true")
    a = ap.parse_args()
    print(
        f"{os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GB, Python {sys.version.split()[0]}"
    )
    results = bench_imports(a.repeat) + bench_cli(a.dir, a.rows, a.scheme, a.repeat, a.format)
    print()
    print(table(results))
    if not a.skip_browser:
        bench_browser()
