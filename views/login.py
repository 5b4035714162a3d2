"""Log in, or (first start, no account yet) create the admin account. The only routable page without a login."""

from datetime import datetime, timezone

import streamlit as st

from board.access import auth, governance
from board.app import server, state, ui
from evalcore import InputError


def _client() -> str | None:
    client = st.context.ip_address  # None from localhost (and not a str outside a server, e.g. AppTest)
    return client if isinstance(client, str) else None


def _enter(user: auth.User) -> None:
    """Log this tab in: a server-side session (audited), and, when this server has the session
    routes, a one-time grant the next page trades for the browser's cookie (app.py's sidebar)."""
    session_id, grant = auth.start_session(state.store(), user, client=_client(), cookie=server.routes_active())
    ss = st.session_state
    ss[auth.SESSION_USER_KEY] = user.to_dict()
    ss[auth.SESSION_ID_KEY] = session_id
    ss[auth.SESSION_ACTIVE_KEY] = datetime.now(timezone.utc)
    ss.pop(auth.SESSION_CLEAR_COOKIE_KEY, None)
    if grant is not None:
        ss[auth.SESSION_GRANT_KEY] = grant
    st.rerun()


s = state.store()
state.remember_link()  # a shared link's ?dataset=… etc. survive the login
notice = st.session_state.pop("auth_notice", None)
if notice:
    st.info(notice)

if s.count_users() == 0:
    st.title("Create the admin account")
    st.markdown(
        "Welcome. You are installing evalboard, so you create its **admin account** first. The admin "
        "manages accounts and reads the audit log; the admin does not sign value-table versions.\n\n"
        "Until you add others on the **Accounts** page, this is the only account: keep its password safe. "
        "Until the deployment says otherwise, the app listens on this computer only (127.0.0.1)."
    )
    with st.form("first_admin"):
        username = st.text_input("Admin username", key="first_admin_username")
        pw1 = st.text_input(
            "Password",
            type="password",
            key="first_admin_pw1",
            help=f"At least {auth.MIN_PASSWORD_CHARS} characters, at most {auth.MAX_PASSWORD_BYTES} bytes.",
        )
        pw2 = st.text_input("Repeat the password", type="password", key="first_admin_pw2")
        st.caption(
            f"Password: at least {auth.MIN_PASSWORD_CHARS} characters and at most {auth.MAX_PASSWORD_BYTES} bytes; "
            "a passphrase of a few words is good."
        )
        create = st.form_submit_button("Create the admin account", type="primary")
    if create:
        problems = auth.check_password_rules(pw1)
        if not username.strip():
            problems.insert(0, "the username must not be empty")
        if pw1 != pw2:
            problems.append("the two passwords differ")
        if problems:
            st.error("**Not created:**\n\n" + "\n".join(f"- {ui.md_text(p)}" for p in problems))
        else:
            try:
                _enter(governance.create_first_admin(s, username, pw1))
            except (InputError, governance.Forbidden) as err:
                st.error(ui.md_text(err))
else:
    st.title("Log in")
    with st.form("login"):
        username = st.text_input("Username", key="login_username")
        password = st.text_input("Password", type="password", key="login_password")
        go = st.form_submit_button("Log in", type="primary")
    if go:
        try:
            # per-client throttle key: the remote address (None from localhost, e.g. a proxy on the same host:
            # then only the per-username count applies, rather than one count shared by every visitor)
            user = auth.authenticate(s, username, password, client=_client())
        except (auth.LoginThrottled, auth.LoginFailed) as err:
            st.error(str(err))
        else:  # authenticate audited the login
            _enter(user)
    st.caption(
        f"Sessions end after {auth.idle_minutes():g} minutes without activity, after {auth.session_hours():g} hours "
        "in any case, and at a logout. Ask an admin for an account."
    )

if st.session_state.pop(auth.SESSION_CLEAR_COOKIE_KEY, False) and server.routes_active():
    # after a logout (revoked in the store already): the server also drops the browser's cookie (last: no gap shows)
    st.html(server.clear_cookie_script(), width="content", unsafe_allow_javascript=True)
