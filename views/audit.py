"""Audit log (admins): who did what, when — uploads, edits, sign-offs, exports, accounts."""

import pandas as pd
import streamlit as st

from board.access import governance
from board.app import state, ui
from board.words.i18n import t

L = state.current_locale()

user = state.current_user()
st.title(t("Audit log", L))
try:
    entries = governance.audit_log(state.store(), user, limit=2000)
    users = governance.list_users(state.store(), user)
except governance.Forbidden as err:  # defence in depth: the page is only in an admin's navigation
    st.error(ui.md_text(err))
    st.stop()
actions = sorted({e.action for e in entries})
chosen = st.multiselect(t("Actions", L), actions, default=actions, key="audit_actions")
rows = [
    {
        "When (UTC)": e.at.strftime("%Y-%m-%d %H:%M:%S"),
        "Who": e.username,
        "Action": e.action,
        "On": e.target,
        "Details": "; ".join(f"{k.replace('_', ' ')}: {ui.cell(v)}" for k, v in e.detail.items() if k != "amounts"),
    }
    for e in entries
    if e.action in chosen
]
st.caption(t("{x} of {x2} entries, newest first.", L, x=ui.cell(len(rows)), x2=ui.cell(len(entries))))
st.dataframe(
    pd.DataFrame(rows, columns=["When (UTC)", "Who", "Action", "On", "Details"]),  # the names also with no entry
    hide_index=True,
    width="stretch",
    key="audit_table",
    column_config={
        "Action": st.column_config.TextColumn(t("Action", L), help=t("The audited action, as the system names it.", L))
    },
)
st.subheader(t("Accounts", L))
ui.accounts_table(users, key="audit_accounts")
st.caption(t("Manage accounts on the Accounts page (or `python -m board users add|list|disable|reset-password`).", L))
