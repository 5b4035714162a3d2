"""Log in, or (first start, no account yet) create the admin account. The only routable page without a login."""

from datetime import datetime, timezone

import streamlit as st

from board.access import auth, governance
from board.app import server, state, ui
from board.words.i18n import N_, t
from board.words.patterns import Templates
from evalcore import InputError

# board.access.auth's English messages, said again in the reader's language
AUTH_WORDS = Templates(
    [
        N_("Wrong username or password (or the account is disabled)."),
        N_("Too many failed logins for {what}; try again in {seconds} s."),
        N_("the password must be text"),
        N_("the password must have at least {n} characters"),
        N_("the password must be at most {n} bytes long (bcrypt ignores the rest)"),
        N_("this account"),
        N_("this address"),
    ],
    values=lambda name, value, locale: (
        t(value, locale) if name == "what" and value in ("this account", "this address") else value
    ),
)


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
L = state.current_locale()
state.language_switch()  # 简体中文 / English before the login too
state.remember_link()  # a shared link's ?dataset=… etc. survive the login
notice = st.session_state.pop("auth_notice", None)
if notice:
    st.info(notice)

if s.count_users() == 0:
    st.title(t("Create the admin account", L))
    st.markdown(
        t(
            "Welcome. You are installing evalboard, so you create its **admin account** first. The admin "
            "manages accounts and reads the audit log; the admin does not sign value-table versions.",
            L,
        )
        + "\n\n"
        + t(
            "Until you add others on the **Accounts** page, this is the only account: keep its password safe. "
            "Until the deployment says otherwise, the app listens on this computer only (127.0.0.1).",
            L,
        )
    )
    with st.form("first_admin"):
        username = st.text_input(t("Admin username", L), key="first_admin_username")
        pw1 = st.text_input(
            t("Password", L),
            type="password",
            key="first_admin_pw1",
            help=t(
                "At least {chars} characters, at most {bytes} bytes.",
                L,
                chars=auth.MIN_PASSWORD_CHARS,
                bytes=auth.MAX_PASSWORD_BYTES,
            ),
        )
        pw2 = st.text_input(t("Repeat the password", L), type="password", key="first_admin_pw2")
        st.caption(
            t(
                "Password: at least {chars} characters and at most {bytes} bytes; a passphrase of a few words is good.",
                L,
                chars=auth.MIN_PASSWORD_CHARS,
                bytes=auth.MAX_PASSWORD_BYTES,
            )
        )
        create = st.form_submit_button(t("Create the admin account", L), type="primary")
    if create:
        problems = [AUTH_WORDS.say(p, L) for p in auth.check_password_rules(pw1)]
        if not username.strip():
            problems.insert(0, t("the username must not be empty", L))
        if pw1 != pw2:
            problems.append(t("the two passwords differ", L))
        if problems:
            st.error(t("**Not created:**", L) + "\n\n" + "\n".join(f"- {ui.md_text(p)}" for p in problems))
        else:
            try:
                _enter(governance.create_first_admin(s, username, pw1))
            except (InputError, governance.Forbidden) as err:
                st.error(ui.error_text(err, L))
else:
    st.title(t("Log in", L))
    with st.form("login"):
        username = st.text_input(t("Username", L), key="login_username")
        password = st.text_input(t("Password", L), type="password", key="login_password")
        go = st.form_submit_button(t("Log in", L), type="primary")
    if go:
        try:
            # per-client throttle key: the remote address (None from localhost, e.g. a proxy on the same host:
            # then only the per-username count applies, rather than one count shared by every visitor)
            user = auth.authenticate(s, username, password, client=_client())
        except (auth.LoginThrottled, auth.LoginFailed) as err:
            st.error(AUTH_WORDS.say(str(err), L))
        else:  # authenticate audited the login
            _enter(user)
    st.caption(
        t(
            "Sessions end after {minutes} minutes without activity, after {hours} hours in any case, and at a "
            "logout. Ask an admin for an account.",
            L,
            minutes=f"{auth.idle_minutes():g}",
            hours=f"{auth.session_hours():g}",
        )
    )

# The board's charts need plotly's JavaScript (4.7 MB, loaded by the first chart a tab draws): an
# empty chart out of sight loads it while the password is typed, not after "Log in" (issue 18)
ui.preload_charts()

if st.session_state.pop(auth.SESSION_CLEAR_COOKIE_KEY, False) and server.routes_active():
    # after a logout (revoked in the store already): the server also drops the browser's cookie (last: no gap shows)
    st.html(server.clear_cookie_script(), width="content", unsafe_allow_javascript=True)
