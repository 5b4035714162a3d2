"""Upload: drop a CSV/Parquet of validation predictions, map columns, validate, save."""

import datetime

import streamlit as st

from board import services
from board.app import state, ui
from board.services.limits import upload_limits
from board.words import fmt
from board.words.i18n import t
from evalcore import InputError
from evalcore.data import NOTE_MESSAGES, ColumnMapping, guess_mapping, label_values, read_table, validate

MAX_MB = st.get_option("server.maxUploadSize")
L = state.current_locale()

st.title(t("Add validation predictions", L))
mode = st.segmented_control(
    t("How", L),
    ["upload", "path"],
    default="upload",
    required=True,
    key="upload_mode",
    format_func={"upload": t("Upload a file", L), "path": t("Register a path on the server (large data)", L)}.get,
)
if mode == "path":
    from board.app import register_view

    register_view.render()
    st.stop()
st.caption(
    t(
        "CSV (any of , ; tab | delimiters; UTF-8 or GBK/GB18030) or Parquet, one row per decision, up to {mb} MB. "
        "Nothing is stored until the file validates and you press Save.",
        L,
        mb=MAX_MB,
    )
)

up = ui.file_uploader(st, t("Predictions file", L), type=["csv", "txt", "tsv", "parquet", "pq"], key="upload_file")
if up is None:
    st.info(t("Drop a file to start. The demo dataset is already available in the sidebar.", L))
    st.stop()

raw = up.getvalue()
try:  # parsed once per file (by its hash) in this session, within the configured row and column limits
    frame = state.session_memo(
        "upload_parsed",
        (services.sha256(raw), up.name),
        lambda: read_table(raw, up.name, max_bytes=MAX_MB * 2**20, **upload_limits()),
    )
except InputError as err:
    ui.show_problems(err)
    st.stop()

st.markdown(
    t(
        "**{name}**: {rows} rows × {columns} columns.",
        L,
        name=ui.md_text(up.name),
        rows=fmt.count(len(frame)),
        columns=fmt.count(frame.shape[1]),
    )
)
st.container(key="upload_preview").dataframe(frame.head(8), hide_index=True, width="stretch")  # the file as it is

guess = guess_mapping(frame)
cols = list(frame.columns)
roles = ui.column_roles(cols, guess, prefix="upload", label_values=lambda c: label_values(frame, c))
if roles is None:
    st.stop()
label, score_cols, names, kinds = roles["label"], roles["score_cols"], roles["names"], roles["kinds"]
drop_missing = st.checkbox(t("Drop rows whose label is missing (they are counted and reported)", L), key="upload_drop")
late_rule = st.radio(
    t("Labels that arrive late", L),
    ["none", "column", "date"],
    horizontal=True,
    key="upload_late",
    format_func={
        "none": t("Every row's label is known", L),
        "column": t("A column says whose label is known", L),
        "date": t("Labels are complete up to a date", L),
    }.get,
    help=t(
        "Recent rows may have no label yet (chargebacks, defaults). The board then uses the rows whose label is "
        "known; value over time estimates the recent windows from the scores. Other rows with an empty label "
        "are still listed as problems.",
        L,
    ),
)
label_known, complete_until = None, None
if late_rule == "column":
    label_known = st.selectbox(
        t("Label-known column (true/false, 1/0, yes/no; empty = not yet)", L),
        [c for c in cols if c != label],
        index=None,
        key="upload_label_known",
    )
elif late_rule == "date":
    if roles["time"] is None:
        st.warning(t("Map the time column first: the date applies to it.", L))
    else:
        day = st.date_input(t("Labels are complete up to (inclusive)", L), value=None, key="upload_complete_until")
        complete_until = None if day is None else day.isoformat()
if late_rule != "none" and label_known is None and complete_until is None:
    st.warning(t("Complete the label-known rule, or choose that every row's label is known.", L))
    st.stop()

if label is None or not score_cols:
    st.warning(t("Choose the label column and at least one model score column.", L))
    st.stop()
if len(set(names.values())) != len(names):
    st.warning(t("Give the two models different names.", L))
    st.stop()

mapping = ColumnMapping(
    label=label,
    scores={names[c]: c for c in score_cols},
    score_kinds={names[c]: kinds[c] for c in score_cols},
    positive=roles["positive"],
    segments=tuple(roles["segments"]),
    time=roles["time"],
    group=roles["group"],
    features=tuple(roles["features"]),
    weight=roles["weight"],
    drop_missing_labels=drop_missing,
    label_known=label_known,
    labels_complete_until=complete_until,
)
try:
    preds = validate(frame, mapping)
except InputError as err:
    ui.show_problems(err, title=t("Validation failed", L))
    st.stop()

summary = preds.summary()
st.success(
    t(
        "Valid: {n} rows, positive rate {rate}, {dropped} rows with a missing label dropped (you confirmed).",
        L,
        n=fmt.count(preds.n_rows),
        rate=ui.percent(summary["positive_rate"], 2),
        dropped=fmt.count(preds.dropped_rows),
    )
    if preds.dropped_rows
    else t("Valid: {n} rows, positive rate {rate}.", L, n=fmt.count(preds.n_rows), rate=ui.percent(summary["positive_rate"], 2))
)
if preds.pending_rows:  # labels that arrive late: what the board uses, what is estimated
    st.info(
        t(
            "Labels complete until {date}; {n} recent rows have no label yet: the board uses the {k} labelled rows, "
            "value over time estimates the recent windows.",
            L,
            date=fmt.date(
                datetime.date.fromisoformat(preds.labels_complete_until) if preds.labels_complete_until else None, locale=L
            ),
            n=fmt.count(preds.pending_rows),
            k=fmt.count(preds.n_rows),
        )
    )
ui.show_validation(summary)
for note in summary["notes"]:  # the positive class and the time's granularity, said in words
    st.caption(t(NOTE_MESSAGES[note["code"]], L, **{k: ui.md_text(str(v)) for k, v in note["params"].items()}))

name = st.text_input(t("Dataset name", L), value=up.name.rsplit(".", 1)[0], key="upload_dsname")
tables = services.evaluation.active_table_names(state.store())
default_table = services.evaluation.default_binding(state.store(), label=label)
value_table = st.selectbox(
    t("Price its boards with the value table", L),
    tables,
    index=tables.index(default_table) if default_table in tables else 0,
    key="upload_value_table",
    help=t(
        "The decision whose outcomes are priced (default: the last one used for data with this label column). "
        "Create a new one on the Value table page; change it later on the Datasets page.",
        L,
    ),
)


def _save():
    from board.access import governance

    s = state.store()
    user = state.current_user()
    # the role is checked again (the navigation hides this page from other roles); file, row and audit entry
    # are stored in one transaction
    rec = governance.upload_dataset(
        s, user, name=name, filename=up.name, raw=raw, mapping=mapping.to_dict(), report=summary, n_rows=preds.n_rows
    )
    governance.bind_table(s, user, rec.id, value_table)
    services.warm.precompute(s, rec.id)  # the first board starts now, in the background (issue 18)
    st.session_state[state.DATASET_KEY] = rec.id  # switch the shared sidebar to it
    st.session_state[state.BOUND_FOR_KEY] = None  # and to the value table it is bound to
    st.session_state["upload_saved"] = rec.id


st.button(t("Save and use this dataset", L), type="primary", on_click=_save, key="upload_save")
if st.session_state.get("upload_saved"):
    st.success(
        t(
            "Saved as dataset #{id}, priced with “{table}”; it is now selected in the sidebar for every page.",
            L,
            id=st.session_state["upload_saved"],
            table=ui.md_text(value_table),
        )
    )
