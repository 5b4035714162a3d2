"""Datasets: every stored dataset, the one in use, and switching between them."""

import pandas as pd
import streamlit as st

from board import services
from board.access import governance
from board.app import state, ui
from board.engines import lake
from board.words import fmt
from board.words.i18n import t
from evalcore import InputError

L = state.current_locale()
st.title(t("Datasets", L))
s = state.store()
records = s.list_datasets()
current = state.current_dataset_id()
bindings = s.dataset_value_tables()
st.caption(
    t(
        "The dataset chosen here (or in the sidebar) is used by every page. Files are stored by content: "
        "uploading the same file again reuses it. A dataset registered by path keeps only its aggregate; pages that "
        "need rows say so.",
        L,
    )
)
rows = [
    {
        "id": r.id,
        t("in use", L): "●" if r.id == current else "",
        t("name", L): r.name,
        t("kind", L): lake.describe(r),
        t("priced with", L): bindings.get(r.id) or t("{table} (default)", L, table=services.DEFAULT_TABLE_NAME),
        t("file", L): t("(aggregate only)", L) if r.is_aggregate else r.filename,
        t("rows", L): r.n_rows,
        t("positive rate", L): r.report.get("positive_rate"),
        t("models", L): ", ".join(r.mapping.get("scores", {})),
        t("uploaded", L): (fmt.when(r.created_at, L) + " UTC") if r.created_at else "",
        t("by", L): r.uploader,
        "sha256": r.sha256[:12],
    }
    for r in records
]
st.dataframe(
    pd.DataFrame(rows),
    hide_index=True,
    width="stretch",
    column_config={t("positive rate", L): st.column_config.NumberColumn(format="percent")},
)


def _use(ds_id):
    st.session_state[state.DATASET_KEY] = ds_id


for r in records:
    if r.id != current:
        st.button(t("Use “{name}”", L, name=ui.md_text(r.name)), key=f"datasets_use_{r.id}", on_click=_use, args=(r.id,))
if current is not None:
    rec = s.get_dataset(current)
    bound = services.evaluation.bound_table_name(s, current)
    choices = services.evaluation.active_table_names(s)
    choices = choices if bound in choices else [bound, *choices]

    def _bind():
        try:
            governance.bind_table(s, state.current_user(), current, st.session_state["datasets_priced_with"])
            services.warm.precompute(s, current)  # its board with the new table, in the background
            st.session_state[state.BOUND_FOR_KEY] = None  # the sidebar selects the new binding
            st.session_state["datasets_flash"] = (True, t("The dataset's boards are now priced with this table.", L))
        except (governance.Forbidden, KeyError, InputError) as err:
            st.session_state["datasets_flash"] = (False, t("Not changed: {error}", L, error=ui.error_text(err, L)))

    with st.container(horizontal=True, vertical_alignment="bottom", key="datasets_binding"):
        st.selectbox(
            t("“{name}” is priced with", L, name=ui.md_text(rec.name)),
            choices,
            index=choices.index(bound),
            key="datasets_priced_with",
            disabled=not governance.allowed(state.current_user(), "edit_settings"),
            help=t("The value table every board of this dataset uses (for everyone; audited).", L),
        )
        st.button(
            t("Change the binding", L),
            key="datasets_bind",
            on_click=_bind,
            disabled=not governance.allowed(state.current_user(), "edit_settings"),
        )
    flash = st.session_state.pop("datasets_flash", None)
    if flash:
        (st.success if flash[0] else st.error)(flash[1])
    from board.app import shadow_view  # the shadow validation set of a value table (issue 19 item 3)

    shadow_view.datasets_section(s, rec, bound)
    with st.expander(t("Validation report of “{name}”", L, name=ui.md_text(rec.name))):
        st.json(rec.report)
    with st.expander(t("Column mapping", L) if not rec.is_aggregate else t("Query (column mapping) and aggregation options", L)):
        st.json(rec.mapping)
        if rec.is_aggregate:
            st.markdown(t("Source: {path}", L, path=ui.md_text(rec.source_path)))
            st.json(rec.options or {})
    snapshots = s.list_evaluations(current)
    if snapshots:  # boards kept with the Snapshot button; each can be downloaded as it was shown
        kept = s.evaluations_with_html(current)
        with st.expander(t("Snapshots of “{name}” ({n})", L, name=ui.md_text(rec.name), n=len(snapshots))):
            for ev in snapshots[:20]:
                left, right = st.columns([5, 1], vertical_alignment="center")
                left.markdown(
                    f"#{ev.id} · {fmt.when(ev.created_at, L)} UTC · "
                    + t(
                        "models {models} · value table {version}",
                        L,
                        models=ui.md_text(", ".join(map(str, ev.models))),
                        version=ui.md_text(str(ev.result.get("table_version") or "—")),
                    )
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
                    right.caption(t("no export kept", L))
