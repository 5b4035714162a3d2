"""The one-pager as self-contained HTML (:mod:`board.export.onepager`), and as PDF and PNG from
one long-lived headless Chromium (:mod:`board.export.worker`, which runs
:mod:`board.export.render` as a subprocess).

The names load on first use (PEP 562), so the render worker, which imports this package, starts
without plotly.
"""

from __future__ import annotations

import importlib

__all__ = [
    "CHROMIUM",
    "ExportError",
    "HEIGHT",
    "WIDTH",
    "board_figures",
    "board_html",
    "close_worker",
    "plotly_safe",
    "render_bytes",
    "render_pdf_and_png",
    "write_html",
    "write_pdf",
]

_WHERE = {
    "CHROMIUM": "sheet",
    "ExportError": "sheet",
    "HEIGHT": "sheet",
    "WIDTH": "sheet",
    "board_figures": "onepager",
    "board_html": "onepager",
    "plotly_safe": "onepager",
    "write_html": "onepager",
    "close_worker": "worker",
    "render_bytes": "worker",
    "render_pdf_and_png": "worker",
    "write_pdf": "worker",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'board.export' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"board.export.{_WHERE[name]}"), name)
    globals()[name] = value  # once: later lookups (and monkeypatching) see a plain attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
