"""Small rendering helpers shared by pages (Streamlit, no math)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from board.app.text import WORD_JOINER, file_stem, html_text, md_text  # noqa: F401 - re-exported for pages
from board.export.onepager import plotly_safe
from evalcore import InputError
from evalcore.data import default_positive


def undefined(x) -> bool:
    """Whether a value to display is undefined (None, NaN or ±inf): it shows as an em dash."""
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def fmt(x, digits: int = 4, *, unit: str = "", signed: bool = False) -> str:
    """A number for display; undefined (None/NaN) is an em dash, never 0."""
    if undefined(x):
        return "—"
    if unit:
        return f"{x:+,.2f} {unit}" if signed else f"{x:,.2f} {unit}"
    return f"{x:+.{digits}g}" if signed else f"{x:.{digits}g}"


def percent(p, digits: int = 1) -> str:
    """A share as a percentage; undefined (None/NaN) is an em dash."""
    if undefined(p):
        return "—"
    return f"{p:.{digits}%}"


def cell(x) -> str:
    """A table cell as text, ``str(x)`` unchanged, but undefined is an em dash (never "nan" or a blank)."""
    return "—" if undefined(x) else str(x)


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
        st.caption(f"{prefix}{field.replace('_', ' ')} is undefined (—): {md_text(reason)}.")


def _idx(options, value):
    return options.index(value) if value in options else 0


def column_roles(cols: list, guess: dict, *, prefix: str, label_values) -> dict | None:
    """The column-role widgets of Upload and Register-a-path (widget keys ``{prefix}_…``).

    ``label_values(column)`` lists a label column's values (it may raise InputError: shown,
    and None is returned). Returns label, positive, score columns with model names and kinds,
    time, group, weight, segments and features.
    """
    from evalcore.data import SCORE_KINDS

    none = [None] + cols
    st.subheader("Column roles")
    c1, c2, c3 = st.columns(3)
    label = c1.selectbox("Label (outcome)", none, index=_idx(none, guess.get("label")), key=f"{prefix}_label")
    score_cols = c2.multiselect(
        "Model score columns (1 or 2)",
        cols,
        max_selections=2,
        key=f"{prefix}_scores",
        default=[c for c in guess.get("scores", []) if c in cols][:2],
    )
    positive = None
    if label is not None:
        try:
            values = label_values(label)
        except InputError as err:
            show_problems(err, title="The label column cannot be read")
            return None
        default_pos = default_positive(values)
        positive = c3.selectbox(
            "Positive value (the case you act on)",
            values,
            index=_idx(values, default_pos),
            key=f"{prefix}_positive",
            help="E.g. 1, fraud, default.",
        )
    names, kinds = {}, {}
    for i, col in enumerate(score_cols):
        a, b = st.columns(2)
        names[col] = a.text_input(f"Model name for {md_text(col)}", value=col, key=f"{prefix}_name_{i}")
        kinds[col] = b.selectbox(
            f"{md_text(col)} is a …",
            SCORE_KINDS,
            key=f"{prefix}_kind_{i}",
            help="auto: 0/1 → hard decision; within [0,1] → probability; else raw score.",
        )
    d1, d2, d3, d4 = st.columns(4)
    return {
        "label": label,
        "positive": positive,
        "score_cols": score_cols,
        "names": names,
        "kinds": kinds,
        "time": d1.selectbox("Time column", none, index=_idx(none, guess.get("time")), key=f"{prefix}_time"),
        "group": d2.selectbox("Group id (e.g. customer)", none, index=_idx(none, guess.get("group")), key=f"{prefix}_group"),
        "weight": d3.selectbox("Sample weight", none, index=_idx(none, guess.get("weight")), key=f"{prefix}_weight"),
        "segments": d4.multiselect(
            "Segments", cols, default=[c for c in guess.get("segments", []) if c in cols], key=f"{prefix}_segments"
        ),
        "features": st.multiselect(
            "Features (for drift)", cols, key=f"{prefix}_features", default=[c for c in guess.get("features", []) if c in cols]
        ),
    }


NO_EXPORT = "Downloads need the export permission (analyst, business, risk, model owner or admin); your role is {role}."


def export_button(where, label: str, data, *, file_name: str, mime: str, key: str, what: str, detail: dict, **kw) -> None:
    """A download of board data: only for roles with the "export" permission (others see why, and
    no file is handed to their browser: a disabled button would still serve it at its media URL);
    each click is audited (``governance.record_export`` in the button's callback)."""
    from board.access import auth, governance
    from board.app import state

    user = state.current_user()
    if not governance.allowed(user, "export"):
        role = "none" if user is None else auth.ROLE_LABELS.get(user.role, user.role)
        where.caption(f"{label}: " + NO_EXPORT.format(role=role))
        return
    where.download_button(
        label, data, file_name=file_name, mime=mime, key=key, on_click=state.record_export, args=(what, detail), **kw
    )


def plotly_chart(where, fig, **kwargs):
    """``where.plotly_chart(fig, **kwargs)`` with user text in the figure shown as text (issue 17 F9):
    plotly renders a subset of HTML in titles, legends, ticks and hover text, so a model, segment or
    feature name could otherwise become a link or an image (:func:`board.export.onepager.plotly_safe`)."""
    return where.plotly_chart(plotly_safe(fig), **kwargs)
