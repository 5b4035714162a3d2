"""Regenerate the screenshot gallery in docs/gallery/: the board (normal and present mode) at the
three screens the product is used on, on the demo data, in a real server and Debian's Chromium.

    .venv/bin/python scripts/gallery.py [--out docs/gallery] [--pages board,present]

Uses the test suite's server helper (tests/e2e/servers.py), so the server is always reaped.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import CHROMIUM, wait_for_app  # noqa: E402
from tests.e2e.servers import running_server  # noqa: E402

SCREENS = {"820x1180": (820, 1180), "1366x768": (1366, 768), "1920x1080": (1920, 1080)}
VIEWS = {"board": "/", "present": "/?present=1"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "gallery"))
    ap.add_argument("--views", default=",".join(VIEWS))
    ap.add_argument("--screens", default=",".join(SCREENS))
    ap.add_argument("--query", default="", help="extra query string, e.g. dataset=2")
    ap.add_argument("--display", choices=["value", "loss"], default=None, help="show amounts as value or loss")
    ap.add_argument("--settle", type=float, default=0, help="seconds to wait for the whole board (bootstrap) first")
    ap.add_argument("--lang", default=None, help="the board's language, e.g. zh-CN (files get a -zh-CN suffix)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data, running_server(Path(data)) as srv, sync_playwright() as p:
        if args.display:
            from board.store import Store
            from tests.e2e.servers import E2E_ADMIN

            with Store(data_dir=Path(data)) as s:
                s.set_user_display(E2E_ADMIN, args.display)
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            for screen in args.screens.split(","):
                w, h = SCREENS[screen]
                for view in args.views.split(","):
                    page = browser.new_page(viewport={"width": w, "height": h})
                    url = srv.url + VIEWS[view]
                    if args.query:
                        url += ("&" if "?" in url else "?") + args.query
                    if args.lang:
                        url += ("&" if "?" in url else "?") + f"lang={args.lang}"
                    page.goto(url)
                    wait_for_app(page, timeout=180_000)
                    page.wait_for_selector(".st-key-board_verdict", timeout=180_000)
                    if args.settle:  # the first run shows the point estimates; the page reruns when the board is done
                        page.wait_for_timeout(args.settle * 1000)
                    wait_for_app(page)
                    page.wait_for_timeout(500)
                    suffix = ("-" + args.display if args.display else "") + ("-" + args.lang if args.lang else "")
                    path = out / f"{view}-{screen}{suffix}.png"
                    page.screenshot(path=str(path), full_page=False)
                    print(path)
                    page.close()
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
