"""Benchmark of where people wait in the app (issue 18 item 1; a script, not a test).

A real server (``serve.py``, as ``scripts/run.sh`` starts it, through the test suite's
``running_server``) on its own data folder holding an N-row dataset (default 100k rows: the demo's
generator, two models, segments, days and customers), driven by Playwright in Debian's Chromium
at 1920×1080. "Rendered" means Streamlit's own readiness recipe (connected, script not running, no
skeleton) and the element named below visible. Times are wall-clock seconds from the navigation.

1. login → board, cold      a fresh server, nothing cached: the board is computed (point
                            estimates first, then the whole board; both times are printed)
2. login → board, warm      a second tab of the same server: the board is in memory (the tab
                            loads Streamlit's and plotly's JavaScript too: a new tab's cost)
2b. login form → board      a tab at the login form (its JavaScript loaded), from the "Log in"
                            click (bcrypt at the product's cost, 12 rounds) to the whole board:
                            after a restart (the disk cache) and on the warm server
3. after a restart          a new server on the same data folder: the board comes from the disk
                            cache (``board.services.board_cache``)
4. upload → next viewer     a dataset stored (as an upload does) and its background job run: a
                            fresh server's first viewer finds the board ready
5. page switch              Board → Threshold–value, then back to the Board, in one tab
6. Calibration page         opened from the board (cross-fitted recalibration on the rows)
7. value-table edit → curve the what-if curve and table after an amount is edited, then the
                            verdict of the edited amounts (a whole board) below them
8. memory                   peak RSS of the server after 20 tabs opened the same board

Usage::

    python bench/bench_app.py               # 100k rows
    python bench/bench_app.py --rows 1000000
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("EVALBOARD_PRECOMPUTE", "1")
os.environ.setdefault("EVALBOARD_PROGRESSIVE", "1")

from tests.e2e.servers import running_server  # noqa: E402

CHROMIUM = os.environ.get("EVALBOARD_CHROMIUM", "/usr/bin/chromium")
VERDICT = ".eb-verdict:not([data-kind='pending'])"
POINT = ".eb-verdict"


def make_dataset(data: Path, n: int) -> int:
    """Store an n-row dataset as an upload does (file, row, mapping), without computing anything."""
    from board import services
    from board.services import demo
    from board.store import Store
    from evalcore.data import ColumnMapping, read_table, validate

    frame = demo.demo_frame(n=n, drift=False)
    raw = frame.to_csv(index=False).encode("utf-8")
    preds = validate(read_table(raw, "bench.csv"), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    with Store(data_dir=data) as s:
        services.ensure_demo(s)
        rec = s.save_dataset(
            name=f"bench {n:,} rows",
            filename="bench.csv",
            raw=raw,
            mapping=demo.DEMO_MAPPING,
            report=preds.summary(),
            n_rows=preds.n_rows,
            uploader="bench",
        )
        return rec.id


def ready(page, timeout=600_000):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=timeout)
    page.wait_for_timeout(200)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)


def open_board(ctx, url: str, ds: int) -> tuple[float, float]:
    """(seconds to the first board on screen — point estimates or whole —, seconds to the whole board)."""
    page = ctx.new_page()
    t0 = time.perf_counter()
    page.goto(f"{url}/?dataset={ds}")
    page.wait_for_selector(POINT, timeout=600_000)
    first = time.perf_counter() - t0
    page.wait_for_selector(VERDICT, timeout=600_000)
    ready(page)
    whole = time.perf_counter() - t0
    page.close()
    return first, whole


PASSWORD = "bench login password"


def login_to_board(browser, url: str, ds: int) -> float:
    """A fresh tab at the login form: seconds from the "Log in" click to the whole board."""
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = ctx.new_page()
        page.goto(f"{url}/?dataset={ds}")
        page.locator(".st-key-login_password").wait_for(timeout=120_000)
        ready(page)
        page.locator(".st-key-login_username").locator("input").fill("bench-login")
        page.locator(".st-key-login_password").locator("input").fill(PASSWORD)
        t0 = time.perf_counter()
        page.get_by_role("button", name="Log in").click()
        page.wait_for_selector(VERDICT, timeout=600_000)
        ready(page)
        return time.perf_counter() - t0
    finally:
        ctx.close()


def rss_mb(pid: int) -> float:
    """Resident memory of the server process and its children (MB)."""
    total = 0
    for p in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if int((p / "stat").read_text().split()[3]) == pid:
                    out.append(int(p.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


class _Rows(list):
    """The results, each printed as soon as it is measured (a long run shows progress)."""

    def append(self, row) -> None:
        super().append(row)
        print(f"{row[0]}: {row[1]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=20)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    rows = _Rows()
    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
        data = Path(tmp) / "data"
        ds = make_dataset(data, args.rows)
        os.environ["EVALBOARD_PRECOMPUTE"] = "0"  # 1-3: nothing computed before the first viewer
        with running_server(data) as srv:
            first, whole = open_board(ctx, srv.url, ds)
            rows.append(("login → board, cold (point estimates / whole board)", f"{first:.1f} / {whole:.1f}"))
            first, whole = open_board(ctx, srv.url, ds)
            rows.append(("login → board, warm (second tab)", f"{whole:.1f}"))
            page = ctx.new_page()
            page.goto(f"{srv.url}/?dataset={ds}")
            page.wait_for_selector(VERDICT, timeout=600_000)
            ready(page)
            t0 = time.perf_counter()
            page.get_by_role("link", name="Threshold–value").click()
            page.wait_for_timeout(300)
            ready(page)
            rows.append(("page switch Board → Threshold–value", f"{time.perf_counter() - t0:.1f}"))
            t0 = time.perf_counter()
            page.get_by_role("link", name="Board").first.click()
            page.wait_for_selector(VERDICT, timeout=600_000)
            ready(page)
            rows.append(("page switch Threshold–value → Board", f"{time.perf_counter() - t0:.1f}"))
            t0 = time.perf_counter()
            page.get_by_role("link", name="Calibration").click()
            page.wait_for_timeout(300)
            ready(page)
            rows.append(("Calibration page", f"{time.perf_counter() - t0:.1f}"))
            page.get_by_role("link", name="Value table").click()
            page.wait_for_timeout(300)
            ready(page)
            page.locator(".st-key-vt_whatif").wait_for(timeout=600_000)
            try:
                from tests.e2e.grid import TO_FN_AMOUNT, open_cell_editor

                priced = "[data-testid=stCaptionContainer]"
                before = [e.inner_text() for e in page.locator(priced).all() if "re-priced on" in e.inner_text()]
                inp = open_cell_editor(page, TO_FN_AMOUNT)
                inp.fill("-60000")
                t0 = time.perf_counter()
                inp.press("Enter")
                # the page's caption repeats the edit ("FN -60,000 EUR") in the run that re-priced the what-if
                page.get_by_text("FN -60,000 EUR", exact=False).first.wait_for(timeout=120_000)
                # the what-if's own caption ("… re-priced on the dataset's counts in 2.31 ms") follows its
                # curve and table: when it changes, the new curve and table have been drawn
                page.wait_for_function(
                    """([sel, old]) => [...document.querySelectorAll(sel)].some(
                        e => e.innerText.includes("re-priced on") && !old.includes(e.innerText))""",
                    arg=[priced, before],
                    timeout=120_000,
                )
                rows.append(("value-table edit → what-if curve and table updated", f"{time.perf_counter() - t0:.1f}"))
                ready(page)  # the verdict of the edited amounts (a whole board, bootstrap included) comes last
                rows.append(("value-table edit → … and the verdict of the edited amounts", f"{time.perf_counter() - t0:.1f}"))
            except Exception as err:  # noqa: BLE001 - a canvas that did not take the edit: say so, go on
                rows.append(("value-table edit → what-if updated", f"not measured ({type(err).__name__})"))
            page.close()
            for _ in range(args.sessions):
                pg = ctx.new_page()
                pg.goto(f"{srv.url}/?dataset={ds}")
                pg.wait_for_selector(VERDICT, timeout=600_000)
            rows.append((f"server RSS with {args.sessions} tabs on the board (MB)", f"{rss_mb(srv.proc.pid):.0f}"))
            for pg in ctx.pages:
                pg.close()
        with running_server(data) as srv:
            first, whole = open_board(ctx, srv.url, ds)
            rows.append(("after a restart: board from the disk cache", f"{whole:.1f}"))
        # the login form, as a person uses it (a bcrypt hash of the product's cost, not the tests' 4 rounds)
        from board.access import auth
        from board.store import Store

        with Store(data_dir=data) as s:
            s.create_user("bench-login", auth.hash_password(PASSWORD, rounds=12), "admin")
        with running_server(data, autologin=None) as srv:
            for label in ("login form → board, first login after a restart", "login form → board, warm server"):
                seconds = login_to_board(browser, srv.url, ds)
                rows.append((label, f"{seconds:.1f}"))
        data2 = Path(tmp) / "data2"
        ds2 = make_dataset(data2, args.rows)
        os.environ["EVALBOARD_PRECOMPUTE"] = "1"
        from board.services import warm

        with Store(data_dir=data2) as s:
            t0 = time.perf_counter()
            warm.precompute(s, ds2).result()
            job = time.perf_counter() - t0
        with running_server(data2) as srv:
            first, whole = open_board(ctx, srv.url, ds2)
            rows.append(("upload → background board → first viewer of a fresh server", f"{whole:.1f} (job {job:.1f} s before)"))
        browser.close()
    print(
        f"\n{args.rows:,} rows · {platform.processor() or platform.machine()} · {os.cpu_count()} cores · Python {platform.python_version()}\n"
    )
    print("| step | seconds |\n| --- | --- |")
    for step, secs in rows:
        print(f"| {step} | {secs} |")


if __name__ == "__main__":
    main()
