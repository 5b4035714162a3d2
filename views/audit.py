"""Audit log (admins): who did what, when — uploads, edits, sign-offs, exports, accounts."""

import streamlit as st

from board.access import governance
from board.app import state

user = state.current_user()
st.title("Audit log")
try:
    entries = governance.audit_log(state.store(), user, limit=2000)
    users = governance.list_users(state.store(), user)
except governance.Forbidden as err:  # defence in depth: the page is only in an admin's navigation
    st.error(str(err))
    st.stop()
actions = sorted({e.action for e in entries})
chosen = st.multiselect("Actions", actions, default=actions, key="audit_actions")
rows = [
    {
        "when (UTC)": e.at.strftime("%Y-%m-%d %H:%M:%S"),
        "who": e.username,
        "what": e.action,
        "on": e.target,
        "detail": ", ".join(f"{k}={v}" for k, v in e.detail.items() if k != "amounts"),
    }
    for e in entries
    if e.action in chosen
]
st.caption(f"{len(rows)} of {len(entries)} entries, newest first.")
st.dataframe(rows, hide_index=True, width="stretch")
st.subheader("Accounts")
st.dataframe([u.to_dict() for u in users], hide_index=True, width="stretch")
st.caption("Manage accounts on the Accounts page (or `python -m board users add|list|disable|reset-password`).")
