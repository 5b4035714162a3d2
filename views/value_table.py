"""Value table: price the four outcomes of the decision (money gained per event)."""

import streamlit as st

from board import state
from board.store import ConflictError
from board.valuetable_form import frame_from_table, table_from_frame

name = st.session_state.get(state.TABLE_KEY)
table, row_version = state.committed_table()
st.title(f"Value table · {table.name or name}")
st.markdown(
    "**Each amount is the money GAINED per event; enter a cost as a negative number.** "
    "Example (loan anti-fraud): TP **+18,500** (fraud loss avoided), FP **−3,200** (complaint cost, lost customer "
    "value), FN **−22,000** (fraud loss), TN **+120** (review cost saved). The effective amount is amount × "
    "confidence; confidence in (0, 1] says how well the amount can be measured.")

epoch = st.session_state.setdefault("vt_epoch", 0)
c1, c2 = st.columns([1, 1])
unit = c1.text_input("Currency / unit", value=table.unit, key=f"vt_unit_{epoch}")
use_prev = c2.checkbox("Production prevalence differs from the validation set", value=table.prevalence is not None,
                       key=f"vt_use_prev_{epoch}")
prevalence = None
if use_prev:
    prevalence = c2.number_input("Production prevalence π (share of positives in production)", min_value=0.0, max_value=1.0,
                                 value=float(table.prevalence or 0.02), step=0.001, format="%.4f", key=f"vt_prev_{epoch}")

edited = st.data_editor(
    frame_from_table(table), key=f"vt_editor_{epoch}", num_rows="fixed", hide_index=True, width="stretch",
    disabled=["outcome", "meaning"],
    column_config={
        "amount": st.column_config.NumberColumn("amount per event (gain +, cost −)", format="%.2f", required=True),
        "confidence": st.column_config.NumberColumn("confidence (0–1]", min_value=0.0, max_value=1.0, step=0.05, format="%.2f"),
        "description": st.column_config.TextColumn("description", width="large"),
        "source": st.column_config.TextColumn("data source", width="medium"),
    })

new_table, problems = table_from_frame(edited, unit=unit, prevalence=prevalence, name=table.name or name)
if problems:
    st.error("**Not applied — fix these first:**\n\n" + "\n".join(f"- {p}" for p in problems))
else:
    if new_table.to_dict() != table.to_dict():
        state.set_committed_table(new_table, row_version)  # every page re-prices from this, without re-reading rows
        table = new_table
    for w in table.sign_warnings():
        st.warning(w)
    eff = table.effective()
    st.caption("Effective amounts (amount × confidence): " + ", ".join(f"{c.upper()} {v:+,.2f}" for c, v in eff.items())
               + (f" {table.unit}" if table.unit else "") + ".")

    saved = state.store().get_value_table_draft(name)
    dirty = saved is None or saved.amounts != table.to_dict()
    reason = st.text_input("Reason for this change (kept with the draft)", key=f"vt_reason_{epoch}")

    def _save():
        try:
            rec = state.store().save_value_table_draft(name, table.to_dict(), reason=reason, author="app",
                                                       expected_row_version=row_version)
            state.set_committed_table(table, rec.row_version)
            st.session_state["vt_flash"] = f"Draft saved (revision {rec.row_version})."
        except ConflictError as err:
            st.session_state["vt_flash"] = f"CONFLICT: {err}"

    st.button("Save draft", type="primary", disabled=not dirty, on_click=_save, key="vt_save")
    st.caption("Unsaved changes: they already re-price every page in this session; save to keep them."
               if dirty else "All changes saved.")
flash = st.session_state.pop("vt_flash", None)
if flash:
    (st.error if flash.startswith("CONFLICT") else st.success)(flash)
