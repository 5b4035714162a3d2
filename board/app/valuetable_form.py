"""Convert between a ValueTable and the editor's frame, re-validating on the server.

The data editor's min/max/required checks run only in the browser, so every edited frame
goes through :func:`table_from_frame`, which returns the problems next to their field.
"""

from __future__ import annotations

import math

import pandas as pd

from board.words.i18n import N_, t
from evalcore import CELLS, InputError, ValueTable

MEANING = {
    "tp": N_("acted, and the case was positive"),
    "fp": N_("acted, the case was negative"),
    "fn": N_("did not act, the case was positive"),
    "tn": N_("did not act, the case was negative"),
}


def frame_from_table(table: ValueTable, locale: str = "en") -> pd.DataFrame:
    """The editor's rows: one per outcome, its meaning in ``locale`` (display only)."""
    return pd.DataFrame(
        {
            "outcome": [c.upper() for c in CELLS],
            "meaning": [t(MEANING[c], locale) for c in CELLS],
            "amount": [float(getattr(table, c)) for c in CELLS],
            "confidence": [float(table.confidence[c]) for c in CELLS],
            "description": [str(table.descriptions.get(c, "")) for c in CELLS],
            "source": [str(table.sources.get(c, "")) for c in CELLS],
        }
    )


def _num(x):
    if x is None:
        return None
    if isinstance(x, str):
        x = x.strip().replace(",", "")
        if not x:
            return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "not a number"
    return v if math.isfinite(v) else "not a number"


def _entered(x) -> str:
    """An entry as the user typed it (numpy scalars read ``np.float64(1.7)`` under ``repr``)."""
    if isinstance(x, str):
        return repr(x)
    try:
        return f"{float(x):,g}"
    except (TypeError, ValueError):
        return repr(x)


def table_from_frame(frame: pd.DataFrame, *, unit: str, prevalence, name: str) -> tuple[ValueTable | None, list[str]]:
    """Validate an edited frame; returns (table, []) or (None, problems with the field named)."""
    problems = []
    amounts, conf, desc, src = {}, {}, {}, {}
    for i, cell in enumerate(CELLS):
        row = frame.iloc[i]
        a = _num(row["amount"])
        if a is None:
            problems.append(f"{cell.upper()} amount is blank: enter the money gained per event (a cost is negative).")
        elif isinstance(a, str):
            problems.append(f"{cell.upper()} amount {_entered(row['amount'])} is not a number.")
        else:
            amounts[cell] = a
        c = _num(row["confidence"])
        if c is None:
            c = 1.0
        if isinstance(c, str) or not (0 < c <= 1):
            problems.append(
                f"{cell.upper()} confidence {_entered(row['confidence'])} must be in (0, 1] (1 = amount known exactly)."
            )
        else:
            conf[cell] = c
        desc[cell] = "" if pd.isna(row["description"]) else str(row["description"])
        src[cell] = "" if pd.isna(row["source"]) else str(row["source"])
    if problems:
        return None, problems
    try:
        return ValueTable(
            **amounts, confidence=conf, prevalence=prevalence, unit=unit, descriptions=desc, sources=src, name=name
        ), []
    except InputError as err:
        return None, [str(p) for p in err.problems]


def reapply_edits(base: dict | None, mine: dict, theirs: dict) -> dict:
    """``theirs`` (a table saved by someone else) with every field ``mine`` changed against
    ``base`` (what this tab's edits started from) put back on top; without a base, all of mine.

    Amounts, unit and prevalence are compared field by field, confidence, descriptions and
    sources outcome by outcome, so a change of theirs to a field this tab left alone survives.
    """
    if base is None:
        return dict(mine)
    base, theirs = ValueTable.from_dict(base).to_dict(), ValueTable.from_dict(theirs).to_dict()  # defaults filled in
    out = dict(theirs)
    for k in (*CELLS, "unit", "prevalence"):
        if mine.get(k) != base.get(k):
            out[k] = mine.get(k)
    for k in ("confidence", "descriptions", "sources"):
        m, b, t = mine.get(k) or {}, base.get(k) or {}, dict(theirs.get(k) or {})
        for c in CELLS:
            if m.get(c) != b.get(c) and c in m:
                t[c] = m[c]
        out[k] = t
    out.pop("effective", None)
    return out
