"""The one-pager as self-contained HTML, PDF and PNG (charts below it)."""

from board.export.onepager import (  # noqa: F401 - the package's API
    CHROMIUM,
    HEIGHT,
    WIDTH,
    ExportError,
    board_figures,
    board_html,
    render_bytes,
    write_html,
    write_pdf,
)

__all__ = [
    "CHROMIUM",
    "ExportError",
    "HEIGHT",
    "WIDTH",
    "board_figures",
    "board_html",
    "render_bytes",
    "write_html",
    "write_pdf",
]
