"""Reading the board's KPI tiles in AppTest (they are HTML boxes, not st.metric: a metric cuts a
long value to "-946.42…" on a narrow column)."""

import html
import re

_TILE = re.compile(r"<div class='eb-tile[^']*'.*?</div></div>")
_PART = re.compile(r"<div class='eb-(?:label|value|note)'>(.*?)</div>")


def tiles(at) -> list[tuple[str, str, list[str]]]:
    """(label, value, notes) of every tile on the page, in order."""
    out = []
    for h in at.html:
        for tile in _TILE.findall(h.value):
            parts = [html.unescape(x) for x in _PART.findall(tile)]
            out.append((parts[0], parts[1], parts[2:]))
    return out


def tile(at, label: str) -> tuple[str, list[str]]:
    """The value and notes of the tile labelled ``label``."""
    for lab, value, notes in tiles(at):
        if lab == label:
            return value, notes
    raise AssertionError(f"no tile {label!r} among {[t[0] for t in tiles(at)]}")
