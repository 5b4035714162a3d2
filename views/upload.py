"""Upload: drop a CSV/Parquet of validation predictions, map columns, validate, save."""

import streamlit as st

from board import state, ui
from evalcore import InputError
from evalcore.data import SCORE_KINDS, ColumnMapping, guess_mapping, label_values, read_table, validate

MAX_MB = st.get_option("server.maxUploadSize")

st.title("Add validation predictions")
mode = st.segmented_control("How", ["upload", "path"], default="upload", required=True, key="upload_mode",
                            format_func={"upload": "Upload a file", "path": "Register a path on the server (large data)"}.get)
if mode == "path":
    from board import register_view

    register_view.render()
    st.stop()
st.caption(f"CSV (any of , ; tab | delimiters; UTF-8 or GBK/GB18030) or Parquet, one row per decision, up to {MAX_MB} MB. "
           "Nothing is stored until the file validates and you press Save.")

up = st.file_uploader("Predictions file", type=["csv", "txt", "tsv", "parquet", "pq"], key="upload_file")
if up is None:
    st.info("Drop a file to start. The demo dataset is already available in the sidebar.")
    st.stop()

raw = up.getvalue()
try:
    frame = read_table(raw, up.name, max_bytes=MAX_MB * 2**20)
except InputError as err:
    ui.show_problems(err)
    st.stop()

st.write(f"**{up.name}**: {len(frame):,} rows × {frame.shape[1]} columns.")
st.dataframe(frame.head(8), hide_index=True, width="stretch")

guess = guess_mapping(frame)
cols = list(frame.columns)
none = [None] + cols


def _idx(options, value):
    return options.index(value) if value in options else 0


st.subheader("Column roles")
c1, c2, c3 = st.columns(3)
label = c1.selectbox("Label (outcome)", none, index=_idx(none, guess.get("label")), key="upload_label")
score_cols = c2.multiselect("Model score columns (1 or 2)", cols, default=[c for c in guess.get("scores", []) if c in cols][:2],
                            max_selections=2, key="upload_scores")
positive = None
if label is not None:
    values = label_values(frame, label)
    default_pos = next((v for v in values if v.lower() in ("1", "true", "yes", "1.0")), None)
    positive = c3.selectbox("Positive value (the case you act on)", values, index=_idx(values, default_pos),
                            key="upload_positive", help="E.g. 1, fraud, default.")
names, kinds = {}, {}
for i, col in enumerate(score_cols):
    a, b = st.columns(2)
    names[col] = a.text_input(f"Model name for {col}", value=col, key=f"upload_name_{i}")
    kinds[col] = b.selectbox(f"{col} is a …", SCORE_KINDS, key=f"upload_kind_{i}",
                             help="auto: 0/1 → hard decision; within [0,1] → probability; else raw score.")
d1, d2, d3, d4 = st.columns(4)
time_col = d1.selectbox("Time column", none, index=_idx(none, guess.get("time")), key="upload_time")
group_col = d2.selectbox("Group id (e.g. customer)", none, index=_idx(none, guess.get("group")), key="upload_group")
weight_col = d3.selectbox("Sample weight", none, index=_idx(none, guess.get("weight")), key="upload_weight")
segments = d4.multiselect("Segments", cols, default=[c for c in guess.get("segments", []) if c in cols], key="upload_segments")
features = st.multiselect("Features (for drift)", cols, default=[c for c in guess.get("features", []) if c in cols],
                          key="upload_features")
drop_missing = st.checkbox("Drop rows whose label is missing (they are counted and reported)", key="upload_drop")

if label is None or not score_cols:
    st.warning("Choose the label column and at least one model score column.")
    st.stop()
if len(set(names.values())) != len(names):
    st.warning("Give the two models different names.")
    st.stop()

mapping = ColumnMapping(label=label, scores={names[c]: c for c in score_cols},
                        score_kinds={names[c]: kinds[c] for c in score_cols}, positive=positive,
                        segments=tuple(segments), time=time_col, group=group_col, features=tuple(features),
                        weight=weight_col, drop_missing_labels=drop_missing)
try:
    preds = validate(frame, mapping)
except InputError as err:
    ui.show_problems(err, title="Validation failed")
    st.stop()

summary = preds.summary()
st.success(f"Valid: {preds.n_rows:,} rows, positive rate {summary['positive_rate']:.2%}"
           + (f", {preds.dropped_rows:,} rows with a missing label dropped (you confirmed)" if preds.dropped_rows else "") + ".")
st.json(summary, expanded=1)

name = st.text_input("Dataset name", value=up.name.rsplit(".", 1)[0], key="upload_dsname")


def _save():
    from board import governance

    s = state.store()
    user = state.current_user()
    governance.require(user, "upload_dataset")  # the navigation hides this page from other roles; defence in depth
    rec = s.save_dataset(name=name, filename=up.name, raw=raw, mapping=mapping.to_dict(), report=summary,
                         n_rows=preds.n_rows, uploader=user.username)
    governance.record_upload(s, user, rec)
    st.session_state[state.DATASET_KEY] = rec.id  # switch the shared sidebar to it
    st.session_state["upload_saved"] = rec.id


st.button("Save and use this dataset", type="primary", on_click=_save, key="upload_save")
if st.session_state.get("upload_saved"):
    st.success(f"Saved as dataset #{st.session_state['upload_saved']}; it is now selected in the sidebar for every page.")
