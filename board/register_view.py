"""Streamlit side of "register a dataset by path" (the Upload page's second mode).

A path under an allowed root → the Parquet schema (DuckDB ``DESCRIBE``) → a column mapping →
DuckDB aggregates behind a spinner → only the aggregate is stored (:func:`board.lake.register`).
Every problem is listed at once; widget values stay (nothing is reset on failure).
"""

from __future__ import annotations

import streamlit as st

from evalcore import InputError
from evalcore.data import SCORE_KINDS

from . import lake, state, ui

PENDING_SELECT = "register_select"  # read by state.sidebar() before it draws the dataset choice
FLASH = "register_flash"


def _idx(options, value):
    return options.index(value) if value in options else 0


@st.cache_data(max_entries=16, show_spinner="Reading the Parquet schema …")
def _schema(path: str, files: tuple, mtimes: tuple) -> tuple[dict, object]:
    """(columns → DuckDB type, a 200-row sample) of a checked source; keyed by its files' mtimes."""
    import duckdb

    src = lake.Source(path=path, files=files, entered=path)
    cols = lake.parquet_columns(src)
    con = duckdb.connect()
    try:
        lit = "'" + src.parquet_glob.replace("'", "''") + "'"
        sample = con.execute(f"SELECT * FROM read_parquet({lit}) LIMIT 200").df()
    finally:
        con.close()
    return cols, sample


def render() -> None:
    """The registration form (the page has checked the role)."""
    import os

    from evalcore.data import guess_mapping

    roots = lake.path_roots()
    st.caption("For data too large to upload: a Parquet file, a glob such as `logs/2026-11-*.parquet`, or a folder "
               "**on the server**. DuckDB aggregates it out of memory; only the aggregate (counts by segment, score "
               "and label) is stored, never the rows. Relative paths start at the first root.")
    st.markdown("Allowed roots: " + ", ".join(f"`{r}`" for r in roots)
                + f" (set `{lake.ROOTS_ENV}` to change them).")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    path = st.text_input("Path (Parquet file, glob or folder)", key="register_path",
                         placeholder=f"{roots[0]}{os.sep}logs{os.sep}2026-11-*.parquet")
    if not path.strip():
        st.info("Enter a path to read its columns.")
        return
    try:
        src = lake.resolve_source(path, roots)
        mtimes = tuple(os.path.getmtime(f) for f in src.files)
        columns, sample = _schema(src.path, src.files, mtimes)
    except InputError as err:
        ui.show_problems(err, title="The path cannot be used")
        return
    st.write(f"**{len(src.files):,} Parquet file{'s' if len(src.files) != 1 else ''}** matched under `{src.path}` · "
             f"{len(columns)} columns: " + ", ".join(f"`{c}` ({t})" for c, t in columns.items()))
    with st.expander("First rows (a preview; nothing is stored)"):
        st.dataframe(sample.head(8), hide_index=True, width="stretch")
    guess = guess_mapping(sample)
    cols = list(columns)
    none = [None] + cols

    st.subheader("Column roles")
    c1, c2, c3 = st.columns(3)
    label = c1.selectbox("Label (outcome)", none, index=_idx(none, guess.get("label")), key="register_label")
    score_cols = c2.multiselect("Model score columns (1 or 2)", cols, max_selections=2, key="register_scores",
                                default=[c for c in guess.get("scores", []) if c in cols][:2])
    positive = None
    if label is not None:
        try:
            values = lake.label_values(src, label)
        except InputError as err:
            ui.show_problems(err, title="The label column cannot be read")
            return
        default_pos = next((v for v in values if v.lower() in ("1", "true", "yes", "1.0")), None)
        positive = c3.selectbox("Positive value (the case you act on)", values, index=_idx(values, default_pos),
                                key="register_positive", help="E.g. 1, fraud, default.")
    names, kinds = {}, {}
    for i, col in enumerate(score_cols):
        a, b = st.columns(2)
        names[col] = a.text_input(f"Model name for {col}", value=col, key=f"register_name_{i}")
        kinds[col] = b.selectbox(f"{col} is a …", SCORE_KINDS, key=f"register_kind_{i}",
                                 help="auto: 0/1 → hard decision; within [0,1] → probability; else raw score.")
    d1, d2, d3, d4 = st.columns(4)
    time_col = d1.selectbox("Time column", none, index=_idx(none, guess.get("time")), key="register_time")
    group_col = d2.selectbox("Group id (e.g. customer)", none, index=_idx(none, guess.get("group")), key="register_group")
    weight_col = d3.selectbox("Sample weight", none, index=_idx(none, guess.get("weight")), key="register_weight")
    segments = d4.multiselect("Segments", cols, default=[c for c in guess.get("segments", []) if c in cols],
                              key="register_segments")
    features = []
    if lake.supports("features"):
        features = st.multiselect("Features (for drift)", cols, key="register_features",
                                  default=[c for c in guess.get("features", []) if c in cols])
    name = st.text_input("Dataset name", value=os.path.basename(src.path.rstrip(os.sep)).split(".")[0] or "lake",
                         key="register_dsname")
    query = {"label": label, "scores": {names[c]: c for c in score_cols},
             "score_kinds": {names[c]: kinds[c] for c in score_cols}, "positive": positive, "segments": list(segments),
             "group": group_col, "weight": weight_col, "time": time_col}
    if lake.supports("features"):
        query["features"] = list(features)
    if len(set(names.values())) != len(names):
        st.warning("Give the two models different names.")
        return
    if st.button("Aggregate with DuckDB and save", type="primary", key="register_save", icon=":material/database:"):
        try:
            with st.spinner(f"Aggregating {len(src.files):,} file(s) with DuckDB …"):
                rec = lake.register(state.store(), state.current_user(), name=name, path=path, query=query, roots=roots)
        except InputError as err:
            ui.show_problems(err, title="Nothing was saved")
            return
        st.session_state[PENDING_SELECT] = rec.id
        st.session_state[FLASH] = (f"Saved as dataset #{rec.id}: {lake.describe(rec)}. It is now selected in the "
                                   "sidebar for every page.")
        st.rerun()
