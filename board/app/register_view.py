"""Streamlit side of "register a dataset by path" (the Upload page's second mode).

A path under an allowed root → the Parquet schema (DuckDB ``DESCRIBE``) → a column mapping →
DuckDB aggregates behind a spinner → only the aggregate is stored (:func:`board.services.datasets.register`).
Every problem is listed at once; widget values stay (nothing is reset on failure).
"""

from __future__ import annotations

import streamlit as st

from board.app import state, ui
from board.engines import lake
from board.services import datasets
from board.words import fmt
from evalcore import InputError

PENDING_SELECT = "register_select"  # read by state.sidebar() before it draws the dataset choice
FLASH = "register_flash"


@st.cache_data(max_entries=16, show_spinner="Reading the Parquet schema …")
def _schema(path: str, files: tuple, mtimes: tuple) -> tuple[dict, object]:
    """(columns → DuckDB type, a 200-row sample) of a checked source; keyed by its files' mtimes.
    Both come through the lake's locked-down DuckDB (only the checked files are readable)."""
    src = lake.resolve_source(path)
    return lake.parquet_columns(src), lake.preview(src, 200)


def render() -> None:
    """The registration form (the page has checked the role)."""
    import os

    from evalcore.data import guess_mapping

    roots = lake.path_roots()
    st.caption(
        "For data too large to upload: a Parquet file, a glob such as `logs/2026-11-*.parquet`, or a folder "
        "**on the server**. DuckDB aggregates it out of memory; only the aggregate (counts by segment, score "
        "and label) is stored, never the rows. Relative paths start at the first root."
    )
    st.markdown("Allowed roots: " + ", ".join(f"`{r}`" for r in roots) + f" (set `{lake.ROOTS_ENV}` to change them).")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    path = st.text_input(
        "Path (Parquet file, glob or folder)", key="register_path", placeholder=f"{roots[0]}{os.sep}logs{os.sep}2026-11-*.parquet"
    )
    if not path.strip():
        st.info("Enter a path to read its columns.")
        return
    try:
        src = lake.resolve_source(path, roots)
        mtimes = tuple(os.path.getmtime(f) for f in src.files)
        columns, sample = _schema(path, src.files, mtimes)
    except InputError as err:
        ui.show_problems(err, title="The path cannot be used")
        return
    st.write(
        f"**{fmt.count(len(src.files))} Parquet file{'s' if len(src.files) != 1 else ''}** matched under {ui.md_text(src.path)} · "
        f"{fmt.count(len(columns))} columns: " + ", ".join(f"{ui.md_text(c)} ({ui.md_text(t)})" for c, t in columns.items())
    )
    with st.expander("First rows (a preview; nothing is stored)"):
        st.container(key="register_preview").dataframe(sample.head(8), hide_index=True, width="stretch")  # the file as it is
    guess = guess_mapping(sample)
    roles = ui.column_roles(list(columns), guess, prefix="register", label_values=lambda c: lake.label_values(src, c))
    if roles is None:
        return
    names = roles["names"]
    name = st.text_input(
        "Dataset name", value=os.path.basename(src.path.rstrip(os.sep)).split(".")[0] or "lake", key="register_dsname"
    )
    query = {
        "label": roles["label"],
        "scores": {names[c]: c for c in roles["score_cols"]},
        "score_kinds": {names[c]: roles["kinds"][c] for c in roles["score_cols"]},
        "positive": roles["positive"],
        "segments": list(roles["segments"]),
        "group": roles["group"],
        "weight": roles["weight"],
        "time": roles["time"],
        "features": list(roles["features"]),
    }
    if len(set(names.values())) != len(names):
        st.warning("Give the two models different names.")
        return
    if st.button("Aggregate with DuckDB and save", type="primary", key="register_save", icon=":material/database:"):
        try:
            with st.spinner(f"Aggregating {fmt.count(len(src.files))} file(s) with DuckDB …"):
                rec = datasets.register(state.store(), state.current_user(), name=name, path=path, query=query, roots=roots)
        except InputError as err:
            ui.show_problems(err, title="Nothing was saved")
            return
        st.session_state[PENDING_SELECT] = rec.id
        st.session_state[FLASH] = (
            f"Saved as dataset #{rec.id}: {lake.describe(rec)}. It is now selected in the sidebar for every page."
        )
        st.rerun()
