"""Small rendering helpers shared by pages (Streamlit, no math)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from evalcore import InputError


def fmt(x, digits: int = 4, *, unit: str = "", signed: bool = False) -> str:
    """A number for display; undefined (None/NaN) is an em dash, never 0."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if unit:
        return f"{x:+,.2f} {unit}" if signed else f"{x:,.2f} {unit}"
    return f"{x:+.{digits}g}" if signed else f"{x:.{digits}g}"


def percent(p, digits: int = 1) -> str:
    """A share as a percentage; undefined (None/NaN) is an em dash."""
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "—"
    return f"{p:.{digits}%}"


def problems_table(err: InputError) -> pd.DataFrame:
    rows = []
    for p in err.problems:
        examples = ", ".join(str(r) for r in p.rows)
        if p.n_rows > len(p.rows) and p.rows:
            examples += f" … ({p.n_rows:,} rows in all)"
        rows.append({"problem": p.message, "column": p.column or "", "rows (file line numbers)": examples, "how to fix": p.fix})
    return pd.DataFrame(rows)


def show_problems(err: InputError, *, title: str = "The file cannot be used yet") -> None:
    n = len(err.problems)
    st.error(f"**{title}: {n} problem{'s' if n != 1 else ''} found.** All are listed; fix them and upload again.")
    st.dataframe(problems_table(err), hide_index=True, width="stretch")


def undefined_notes(undefined: dict, *, prefix: str = "") -> None:
    """Say why numbers show as —, since a browser shows no Python warnings."""
    for field, reason in undefined.items():
        st.caption(f"{prefix}{field.replace('_', ' ')} is undefined (—): {reason}.")
