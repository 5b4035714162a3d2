"""Accounts (admins): add an account, disable or enable it, reset its password, change its role.

Every action goes through board.access.governance, which checks the role and audits it.
"""

import streamlit as st

from board.access import auth, governance
from board.app import state, ui
from board.store import StoreError
from board.words.i18n import t
from evalcore import InputError

L = state.current_locale()

FLASH = "accounts_flash"
POLICY = t(
    "Passwords: at least {min_password_chars} characters, at most {max_password_bytes} bytes (a "
    "passphrase of a few words is good). Pass the password on in person or by phone, never by "
    "e-mail.",
    L,
    min_password_chars=auth.MIN_PASSWORD_CHARS,
    max_password_bytes=auth.MAX_PASSWORD_BYTES,
)

user = state.current_user()
s = state.store()
st.title(t("Accounts", L))
try:
    users = governance.list_users(s, user)
except governance.Forbidden as err:  # defence in depth: the page is only in an admin's navigation
    st.error(ui.error_text(err, L))
    st.stop()


def _act(fn, ok: str) -> None:
    try:
        fn()
    except (governance.Forbidden, StoreError, InputError) as err:
        st.session_state[FLASH] = ("error", ui.error_text(err, L))
    else:
        st.session_state[FLASH] = ("success", ok)


def _password_problems(pw1: str, pw2: str) -> list[str]:
    return auth.check_password_rules(pw1) + ([t("the two passwords differ", L)] if pw1 != pw2 else [])


flash = st.session_state.pop(FLASH, None)
if flash:
    getattr(st, flash[0])(flash[1])

ui.accounts_table(users, key="accounts_table")

st.subheader(t("Add an account", L))
with st.form("accounts_add", clear_on_submit=True):
    a, b = st.columns(2)
    name = a.text_input(t("Username", L), key="accounts_add_name")
    role = b.selectbox(t("Role", L), auth.ROLES, format_func=lambda r: ui.role_label(r, L), key="accounts_add_role")
    pw1 = a.text_input(t("Password", L), type="password", key="accounts_add_pw1")
    pw2 = b.text_input(t("Repeat the password", L), type="password", key="accounts_add_pw2")
    st.caption(POLICY)
    if st.form_submit_button(t("Add the account", L), type="primary"):
        problems = _password_problems(pw1, pw2) + ([] if name.strip() else [t("the username must not be empty", L)])
        if problems:
            st.session_state[FLASH] = ("error", t("Not added: ", L) + "; ".join(problems) + ".")
        else:
            _act(
                lambda: governance.add_user(s, user, name, pw1, role),
                t("Added {name} ({role_labels}).", L, name=ui.md_text(name.strip()), role_labels=ui.role_label(role, L)),
            )
        st.rerun()

if users:
    st.subheader(t("Change an account", L))
    names = [u.username for u in users]
    who = st.selectbox(t("Account", L), names, key="accounts_who")  # options show as plain text
    rec = next(u for u in users if u.username == who)
    shown = ui.md_text(who)
    c1, c2 = st.columns(2)
    with c1.container(border=True):
        st.markdown(t("**{shown}** is {x}.", L, shown=shown, x=t("active", L) if rec.active else t("disabled", L)))
        if st.button(t("Disable", L) if rec.active else t("Enable", L), key="accounts_toggle"):
            _act(
                lambda: governance.disable_user(s, user, who, active=not rec.active),
                t("{name} disabled.", L, name=shown) if rec.active else t("{name} enabled.", L, name=shown),
            )
            st.rerun()
        new_role = st.selectbox(
            t("Role", L),
            auth.ROLES,
            index=auth.ROLES.index(rec.role),
            format_func=lambda r: ui.role_label(r, L),
            key="accounts_role",
        )
        if st.button(t("Change the role", L), key="accounts_change_role", disabled=new_role == rec.role):
            _act(
                lambda: governance.change_role(s, user, who, new_role),
                t("{shown} is now {role_labels}.", L, shown=shown, role_labels=ui.role_label(new_role, L)),
            )
            st.rerun()
    with c2.form("accounts_reset", clear_on_submit=True, border=True):
        st.markdown(t("**New password for {shown}** (its failed-login count is cleared)", L, shown=shown))
        r1 = st.text_input(t("New password", L), type="password", key="accounts_reset_pw1")
        r2 = st.text_input(t("Repeat the new password", L), type="password", key="accounts_reset_pw2")
        st.caption(POLICY)
        if st.form_submit_button(t("Reset the password", L)):
            problems = _password_problems(r1, r2)
            if problems:
                st.session_state[FLASH] = ("error", t("Not changed: ", L) + "; ".join(problems) + ".")
            else:
                _act(lambda: governance.reset_password(s, user, who, r1), t("Password of {shown} reset.", L, shown=shown))
            st.rerun()
st.caption(t("Every change here is in the Audit log. The command line does the same: `python -m board users …`.", L))
