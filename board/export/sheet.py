"""What the one-pager's HTML and its renderer share: the 16:9 sheet, the Chromium that prints it,
and the error an export raises. No plotly here, so the render worker starts without it."""

from __future__ import annotations

import os

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "HEIGHT", "WIDTH", "ExportError", "chromium_missing"]

#: Debian's Chromium (``apt-get install chromium``); Playwright never downloads its own here.
CHROMIUM = os.environ.get("EVALBOARD_CHROMIUM", "/usr/bin/chromium")

#: The PDF page and the PNG, in CSS pixels: one 16:9 screen.
WIDTH, HEIGHT = 1920, 1080

CHROMIUM_ARGS = [
    "--no-sandbox",  # the renderer runs as root in containers
    "--disable-gpu",
    "--disable-background-networking",  # the export is offline: no update, sync or safe-browsing calls
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


class ExportError(RuntimeError):
    """An export could not be produced (e.g. no Chromium); the message says what to do."""


def chromium_missing(path: str = CHROMIUM) -> ExportError | None:
    """The error to raise when there is no Chromium at ``path``, else None."""
    if os.path.exists(path):
        return None
    return ExportError(
        f"PDF/PNG export needs Chromium at {path} (sudo apt-get install chromium); the HTML export works without it."
    )
