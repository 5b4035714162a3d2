"""Audit log (admins): who did what, when — uploads, edits, sign-offs, exports, accounts."""

import pandas as pd
import streamlit as st

from board.access import governance
from board.app import state, ui
from board.words.audit import action_name
from board.words.i18n import t

L = state.current_locale()

user = state.current_user()
st.title(t("Audit log", L))
try:
    entries = governance.audit_log(state.store(), user, limit=2000)
    users = governance.list_users(state.store(), user)
except governance.Forbidden as err:  # defence in depth: the page is only in an admin's navigation
    st.error(ui.error_text(err, L))
    st.stop()
actions = sorted({e.action for e in entries})
chosen = ui.multiselect(
    st,
    t("Actions", L),
    actions,
    default=actions,
    format_func=(lambda a: a) if L == "en" else (lambda a: f"{action_name(a, L)}（{a}）"),
    key="audit_actions",
)
COLS = [t("When (UTC)", L), t("Who", L), t("Action", L), t("On", L), t("Details", L)]
rows = [
    dict(
        zip(
            COLS,
            (
                e.at.strftime("%Y-%m-%d %H:%M:%S"),
                e.username,
                e.action if L == "en" else f"{action_name(e.action, L)}（{e.action}）",
                e.target,
                "; ".join(f"{k.replace('_', ' ')}: {ui.cell(v)}" for k, v in e.detail.items() if k != "amounts"),
            ),
            strict=True,
        )
    )
    for e in entries
    if e.action in chosen
]
st.caption(t("{x} of {x2} entries, newest first.", L, x=ui.cell(len(rows)), x2=ui.cell(len(entries))))
st.dataframe(
    pd.DataFrame(rows, columns=COLS),  # the names also with no entry
    hide_index=True,
    width="stretch",
    key="audit_table",
    column_config={
        COLS[2]: st.column_config.TextColumn(t("Action", L), help=t("The audited action, as the system names it.", L))
    },
)
st.subheader(t("Accounts", L))
ui.accounts_table(users, key="audit_accounts")
st.caption(t("Manage accounts on the Accounts page (or `python -m board users add|list|disable|reset-password`).", L))
