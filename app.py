"""evalboard entry point: page config, login gate, shared sidebar, navigation per role. Pages stay thin."""

import os
from datetime import datetime, timezone
from pathlib import Path

import streamlit as st

from board.access import auth, governance
from board.app import drift_view, not_found, server, state, ui
from board.app.meeting import run_if_requested as meeting_board_if_requested
from board.app.ui import role_label
from board.words.i18n import t

# a local favicon: a ":material/…:" page icon makes every browser fetch it from fonts.gstatic.com (no internet on an intranet)
FAVICON = str(Path(__file__).resolve().parent / "board" / "app" / "favicon.png")
st.set_page_config(page_title="evalboard", page_icon=FAVICON, layout="wide", initial_sidebar_state="expanded")
not_found.install()  # an address that names no page: a note in the reader's language, not Streamlit's English dialog


def _session_ended(reason: str | None) -> None:
    """Forget this tab's login; say why when it was not the tab's own choice."""
    ss = st.session_state
    L = state.current_locale()
    for key in (auth.SESSION_USER_KEY, auth.SESSION_ID_KEY, auth.SESSION_GRANT_KEY):
        ss.pop(key, None)
    if reason == "idle":
        ss["auth_notice"] = t("You were logged out after {n} minutes without activity.", L, n=f"{auth.idle_minutes():g}")
    elif reason == "expired":
        ss["auth_notice"] = t("Your session ended after {n} hours; please log in again.", L, n=f"{auth.session_hours():g}")
    elif reason == "revoked":
        ss["auth_notice"] = t("Your session was ended (a logout, or a change of your account); please log in again.", L)


def current_user():
    """The logged-in user of this tab, or None (never logged in, idle too long, session ended, or
    account disabled).

    A tab logged in by the login form keeps its session's id (``board.store.sessions``) and checks
    it at every run: revoked, idle, past its lifetime or its account disabled ends the login. A new
    tab or a reload without a login in its state is logged in by the browser's session cookie
    (``st.context.cookies``, set by ``board.app.server`` after a login), if it is still live.
    """
    now = datetime.now(timezone.utc)
    ss = st.session_state
    s = state.store()
    auto = os.environ.get(auth.AUTOLOGIN_ENV)
    if auto and auth.SESSION_USER_KEY not in ss:  # test-only switch, see board/auth.py
        rec = s.get_user(auto)
        if rec is not None and rec.active:
            ss[auth.SESSION_USER_KEY] = {"username": rec.username, "role": rec.role}
            ss[auth.SESSION_ACTIVE_KEY] = now
    info = ss.get(auth.SESSION_USER_KEY)
    if not info:
        ss.pop(auth.SESSION_ID_KEY, None)
        token = st.context.cookies.get(auth.SESSION_COOKIE)
        if not token:
            return None
        found = auth.resume_session(s, token)  # a reload, a new tab, a shared link of this browser
        if found.user is None:
            return None
        ss[auth.SESSION_USER_KEY] = found.user.to_dict()
        ss[auth.SESSION_ID_KEY] = found.session_id
        ss[auth.SESSION_ACTIVE_KEY] = now
        return found.user
    session_id = ss.get(auth.SESSION_ID_KEY)
    if session_id is not None:  # the session in the store decides (shared by the browser's tabs)
        found = auth.check_session(s, session_id, username=info.get("username"))
        if found.user is None:
            _session_ended(found.ended)
            return None
        ss[auth.SESSION_USER_KEY] = found.user.to_dict()
        ss[auth.SESSION_ACTIVE_KEY] = now
        return found.user  # the role as stored now, not as at login
    if auth.idle_expired(ss.get(auth.SESSION_ACTIVE_KEY), now):
        _session_ended("idle")
        return None
    rec = s.get_user(info.get("username", ""))
    if rec is None or not rec.active:
        ss.pop(auth.SESSION_USER_KEY, None)
        return None
    ss[auth.SESSION_ACTIVE_KEY] = now
    return auth.User(username=rec.username, role=rec.role)  # the role as stored now, not as at login


state.init_locale()  # ?lang=zh-CN, the tab's choice, EVALBOARD_LANG or the browser's language
meeting_board_if_requested()  # ?meeting=<token>: only that link's board, read-only, and stop (board/app/meeting.py)
user = current_user()
L = state.current_locale()
if user is None:
    first = state.store().count_users() == 0
    login = st.navigation(
        [
            st.Page(
                "views/login.py",
                title=t("Create the admin account", L) if first else t("Log in", L),
                icon=":material/login:",
                url_path="login",
                default=True,
            )
        ],
        position="hidden",
    )
    st.session_state.pop(not_found.NOT_FOUND_KEY, None)  # before a login every address opens the login form
    login.run()
    st.stop()

state.restore_link()  # the address the tab was opened with, before its login
state.apply_user_locale(user.username)  # the account's stored language, unless the address names one
L = state.current_locale()
state.sidebar()
with st.sidebar:
    state.language_switch()
    st.caption(t("Signed in as **{user}** · {role}", L, user=ui.md_text(user.username), role=role_label(user.role, L)))
    if st.button(t("Log out", L), key="auth_logout", icon=":material/logout:"):
        session_id = st.session_state.pop(auth.SESSION_ID_KEY, None)
        if session_id is not None:  # revoked in the store: no tab or reload of this browser is logged in by it
            auth.end_session(state.store(), session_id, username=user.username)
        else:
            state.store().append_audit(user.username, "logout", user.username, {})
        # every per-user key goes (unsaved value-table edits, committed tables, thresholds, what-ifs,
        # caches of this tab): the next account logging in on this tab starts clean (issue 16 item 6)
        st.session_state.clear()
        st.session_state[auth.SESSION_CLEAR_COOKIE_KEY] = True  # the login page asks the server to drop the cookie
        st.rerun()
    grant = st.session_state.pop(auth.SESSION_GRANT_KEY, None)
    if grant and server.routes_active():  # just logged in: the browser trades the grant for its session cookie
        st.html(server.grant_script(grant), width="content", unsafe_allow_javascript=True)  # last: no gap shows


def can(action: str) -> bool:
    return governance.allowed(user, action)


inputs = []
if can("edit_draft"):
    inputs.append(st.Page("views/value_table.py", title=t("Value table", L), icon=":material/payments:", url_path="value-table"))
if can("use_value_tools"):
    inputs.append(st.Page("views/value_tools.py", title=t("Value tools", L), icon=":material/balance:", url_path="value-tools"))
if can("upload_dataset"):
    inputs.append(st.Page("views/upload.py", title=t("Upload", L), icon=":material/upload_file:", url_path="upload"))
if can("save_evaluation"):
    inputs.append(st.Page("views/datasets.py", title=t("Datasets", L), icon=":material/folder_open:", url_path="datasets"))
pages = {
    t("Decide", L): [
        st.Page("views/board.py", title=t("Board", L), icon=":material/dashboard:", default=True, url_path="board"),
        st.Page("views/threshold_value.py", title=t("Threshold–value", L), icon=":material/show_chart:", url_path="threshold"),
        st.Page("views/uncertainty.py", title=t("Uncertainty", L), icon=":material/error_med:", url_path="uncertainty"),
        st.Page("views/calibration.py", title=t("Calibration", L), icon=":material/tune:", url_path="calibration"),
        st.Page("views/drift.py", title=t("Drift", L), icon=":material/traffic:", url_path="drift"),
        st.Page("views/stability.py", title=t("Stability", L), icon=":material/stacked_line_chart:", url_path="stability"),
        st.Page("views/data_conditions.py", title=t("Data conditions", L), icon=":material/dataset:", url_path="data-conditions"),
    ],
}
if inputs:
    pages[t("Inputs", L)] = inputs
admin = []
if can("manage_users"):
    admin.append(st.Page("views/accounts.py", title=t("Accounts", L), icon=":material/manage_accounts:", url_path="accounts"))
if can("view_audit"):
    admin.append(st.Page("views/audit.py", title=t("Audit log", L), icon=":material/history_edu:", url_path="audit"))
if admin:
    pages[t("Admin", L)] = admin
# every page listed: collapsed, Streamlit adds its own English "View 3 more" button, which a
# Chinese reader cannot read (the app cannot translate Streamlit's chrome)
page = st.navigation(pages, expanded=True)
not_found.notice(L, role_pages=not (inputs and admin))  # an address that named no page (or none of this role's)
drift_view.banner()  # on every page while a drift light is red (after navigation, so it can link the Drift page)
page.run()
