"""``python -m board.export.render pdf|png IN.html OUT``: render a board HTML in headless Chromium.

Run as a subprocess by :mod:`board.export` so Playwright never shares an event loop with
the Streamlit server.
"""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from board.export import CHROMIUM, HEIGHT, WIDTH

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def main(kind: str, src: str, out: str) -> int:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(Path(src).resolve().as_uri())
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2", timeout=60_000)
        if kind == "pdf":
            page.emulate_media(media="print")
            page.pdf(path=out, width=f"{WIDTH}px", height=f"{HEIGHT}px", print_background=True, prefer_css_page_size=True)
        else:
            page.screenshot(path=out, full_page=False)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
