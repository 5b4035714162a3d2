"""Export benchmark (a script, not a test): PDF + PNG of the demo board, cold and warm.

- HTML: ``board.export.board_html`` of the demo board (plotly.js inlined).
- cold: a new render worker (Python + Playwright + Chromium started) and its first render.
- warm: further renders through the same worker and browser (what a click on a running server
  costs once the worker is up).
- ``--compare``: the former design, a fresh Python + Chromium per output (one for the PDF, one
  for the PNG), through ``python -m board.export.render IN --pdf|--png OUT``.

    .venv/bin/python bench/bench_export.py [--warm 5] [--resamples 1000] [--compare]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def demo_result(n_resamples: int):
    from board.services import demo
    from evalcore import ValueTable
    from evalcore.board import BoardConfig, evaluate
    from evalcore.data import ColumnMapping, read_table, validate

    preds = validate(read_table(demo.demo_csv_bytes(), demo.DEMO_FILENAME), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    table = ValueTable.from_dict(dict(demo.DEMO_VALUE_TABLE))
    return evaluate(preds, table, BoardConfig(n_resamples=n_resamples, seed=0, scheme="cluster"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warm", type=int, default=5, help="warm renders to time (default 5)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap replicates of the demo board")
    ap.add_argument("--out", type=Path, help="folder to keep the last PDF and PNG in")
    ap.add_argument("--compare", action="store_true", help="also time a fresh Chromium per output (the former design)")
    args = ap.parse_args()

    from board.export import board_html
    from board.export.worker import RenderWorker

    result = demo_result(args.resamples)
    t = time.perf_counter()
    page = board_html(result, dataset_name="demo", table_version="v1")
    html_s = time.perf_counter() - t
    print(f"HTML: {html_s:.2f} s ({len(page) / 1e6:.1f} MB)")

    worker = RenderWorker()
    try:
        t = time.perf_counter()
        out = worker.render(page)
        cold = time.perf_counter() - t
        print(f"cold (worker + Chromium start, then PDF + PNG): {cold:.2f} s")
        warm = []
        for _ in range(args.warm):
            t = time.perf_counter()
            out = worker.render(page)
            warm.append(time.perf_counter() - t)
        if warm:
            print(
                f"warm PDF + PNG, {len(warm)} renders: median {statistics.median(warm):.2f} s, "
                f"min {min(warm):.2f} s, max {max(warm):.2f} s"
            )
            print(f"one click on a warm server (HTML + PDF + PNG): about {html_s + statistics.median(warm):.2f} s")
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            for kind, data in out.items():
                (args.out / f"board.{kind}").write_bytes(data)
            print(f"kept {', '.join(str(args.out / f'board.{k}') for k in out)}")
    finally:
        worker.close()
    if args.compare:
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "board.html"
            src.write_text(page, encoding="utf-8")
            t = time.perf_counter()
            for kind in ("pdf", "png"):
                cmd = [sys.executable, "-m", "board.export.render", str(src), f"--{kind}", str(Path(d) / f"b.{kind}")]
                subprocess.run(cmd, check=True, cwd=ROOT)
            print(f"former design (a fresh Python + Chromium for the PDF, another for the PNG): {time.perf_counter() - t:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
