"""Typing into Streamlit's data editor in Chromium (a glide-data-grid canvas, not DOM cells): the
browser tests and bench/bench_app.py share this recipe."""

from __future__ import annotations


def open_cell_editor(page, keys: list[str], *, attempts: int = 3):
    """Click the editor's first data cell, walk with ``keys`` (e.g. ArrowRight, ArrowDown, then
    Enter to open the cell) and return the cell editor's input. On a loaded machine the canvas may
    take the click before it handles keys: then press Escape and try again (nothing changes until a
    value is typed and Enter pressed)."""
    editor = page.get_by_test_id("stDataFrame").first
    inp = page.get_by_test_id("portal").locator(".gdg-clip-region").locator("input, textarea").first
    for _attempt in range(attempts):
        editor.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        editor.click(position={"x": 30, "y": 35 + 17})
        for key in keys:
            page.keyboard.press(key)
        try:
            inp.wait_for(state="visible", timeout=10_000)
            break
        except Exception:  # noqa: BLE001 - the overlay did not open: try again
            page.keyboard.press("Escape")
    return inp


#: From the Value table editor's first cell (TP, outcome) to FN's amount, opened.
TO_FN_AMOUNT = ["ArrowRight", "ArrowRight", "ArrowDown", "ArrowDown", "Enter"]
