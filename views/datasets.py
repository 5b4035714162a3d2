"""Datasets: every stored dataset, the one in use, and switching between them."""

import pandas as pd
import streamlit as st

from board import services
from board.access import governance
from board.app import state, ui
from board.engines import lake
from evalcore import InputError

st.title("Datasets")
s = state.store()
records = s.list_datasets()
current = state.current_dataset_id()
bindings = s.dataset_value_tables()
st.caption(
    "The dataset chosen here (or in the sidebar) is used by every page. Files are stored by content: "
    "uploading the same file again reuses it. A dataset registered by path keeps only its aggregate; pages that "
    "need rows say so."
)
rows = [
    {
        "id": r.id,
        "in use": "●" if r.id == current else "",
        "name": r.name,
        "kind": lake.describe(r),
        "priced with": bindings.get(r.id) or f"{services.DEFAULT_TABLE_NAME} (default)",
        "file": "(aggregate only)" if r.is_aggregate else r.filename,
        "rows": r.n_rows,
        "positive rate": r.report.get("positive_rate"),
        "models": ", ".join(r.mapping.get("scores", {})),
        "uploaded": r.created_at.strftime("%Y-%m-%d %H:%M UTC") if r.created_at else "",
        "by": r.uploader,
        "sha256": r.sha256[:12],
    }
    for r in records
]
st.dataframe(
    pd.DataFrame(rows),
    hide_index=True,
    width="stretch",
    column_config={"positive rate": st.column_config.NumberColumn(format="percent")},
)


def _use(ds_id):
    st.session_state[state.DATASET_KEY] = ds_id


for r in records:
    if r.id != current:
        st.button(f"Use “{ui.md_text(r.name)}”", key=f"datasets_use_{r.id}", on_click=_use, args=(r.id,))
if current is not None:
    rec = s.get_dataset(current)
    bound = services.evaluation.bound_table_name(s, current)
    choices = services.evaluation.active_table_names(s)
    choices = choices if bound in choices else [bound, *choices]

    def _bind():
        try:
            governance.bind_table(s, state.current_user(), current, st.session_state["datasets_priced_with"])
            services.board_cache.precompute(s, current)  # its board with the new table, in the background
            st.session_state[state.BOUND_FOR_KEY] = None  # the sidebar selects the new binding
            st.session_state["datasets_flash"] = "The dataset's boards are now priced with this table."
        except (governance.Forbidden, KeyError, InputError) as err:
            st.session_state["datasets_flash"] = f"Not changed: {ui.md_text(err)}"

    with st.container(horizontal=True, vertical_alignment="bottom", key="datasets_binding"):
        st.selectbox(
            f"“{ui.md_text(rec.name)}” is priced with",
            choices,
            index=choices.index(bound),
            key="datasets_priced_with",
            disabled=not governance.allowed(state.current_user(), "edit_settings"),
            help="The value table every board of this dataset uses (for everyone; audited).",
        )
        st.button(
            "Change the binding",
            key="datasets_bind",
            on_click=_bind,
            disabled=not governance.allowed(state.current_user(), "edit_settings"),
        )
    flash = st.session_state.pop("datasets_flash", None)
    if flash:
        (st.error if flash.startswith("Not changed") else st.success)(flash)
    with st.expander(f"Validation report of “{ui.md_text(rec.name)}”"):
        st.json(rec.report)
    with st.expander("Column mapping" if not rec.is_aggregate else "Query (column mapping) and aggregation options"):
        st.json(rec.mapping)
        if rec.is_aggregate:
            st.markdown(f"Source: {ui.md_text(rec.source_path)}")
            st.json(rec.options or {})
    snapshots = s.list_evaluations(current)
    if snapshots:  # boards kept with the Snapshot button; each can be downloaded as it was shown
        kept = s.evaluations_with_html(current)
        with st.expander(f"Snapshots of “{ui.md_text(rec.name)}” ({len(snapshots)})"):
            for ev in snapshots[:20]:
                left, right = st.columns([5, 1], vertical_alignment="center")
                left.markdown(
                    f"#{ev.id} · {ev.created_at:%Y-%m-%d %H:%M} UTC · models {ui.md_text(', '.join(map(str, ev.models)))}"
                    f" · value table {ui.md_text(str(ev.result.get('table_version') or '—'))}"
                )
                if ev.id in kept:  # read from the store only when clicked
                    ui.export_button(
                        right,
                        "HTML",
                        lambda i=ev.id: s.get_evaluation_html(i),
                        file_name=f"evalboard-snapshot-{ev.id}.html",
                        mime="text/html",
                        key=f"datasets_snapshot_{ev.id}",
                        what="snapshot HTML",
                        detail={"evaluation_id": ev.id, "dataset_id": current},
                        icon=":material/download:",
                    )
                else:
                    right.caption("no export kept")
