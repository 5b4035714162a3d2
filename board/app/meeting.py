"""The read-only meeting link in the app: the conference-room screen, and where links are made.

``?meeting=<token>`` in the URL (checked by app.py before its login gate, :func:`run_if_requested`)
shows the board of that link -- its dataset, value table and thresholds -- in present mode, and
nothing else: one hidden-navigation page, no sidebar, a pseudo-user with the role ``viewer``
(so no export and no saving; ``board.access.meetings``). The first run of a tab opens the link
(audited); later reruns only check it is still valid, so a revoked or expired link stops showing
at the next rerun or reload. A token that does not open shows one plain message.

On the board page an admin or analyst gets :func:`share_panel`: create a link (shown once) and
revoke the active ones.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from board import services
from board.access import auth, governance, meetings
from board.app import state
from board.store import NotFoundError, StateError
from board.words import fmt
from board.words.i18n import N_, t
from evalcore import InputError

# meetings.INVALID_MESSAGE, said in the reader's language
_INVALID = N_("This meeting link is not valid (expired, revoked or mistyped). Ask for a new one.")

PARAM = "meeting"
OPENED_KEY = "meeting_opened"  # (token SHA-256, link id) of the link this tab opened (and audited)


def active() -> bool:
    """Whether this run shows a meeting link's board (the board then links to no other page)."""
    return st.session_state.get(OPENED_KEY) is not None and st.query_params.get(PARAM) is not None


def _leave() -> None:
    """Forget a meeting link's board in this tab: its pseudo-user, dataset, table and thresholds."""
    ss = st.session_state
    info = ss.get(auth.SESSION_USER_KEY)
    if isinstance(info, dict) and "meeting_link" in info:
        ss.pop(auth.SESSION_USER_KEY, None)
    if ss.pop(OPENED_KEY, None) is None:
        return
    for key in [k for k in ss if isinstance(k, str) and k.startswith(("committed_threshold_", "committed_table::"))]:
        del ss[key]
    ss.pop(state.DATASET_KEY, None)
    ss.pop(state.TABLE_KEY, None)


def _invalid_page() -> None:
    L = state.current_locale()
    st.error(t(_INVALID, L) if meetings.INVALID_MESSAGE == _INVALID else meetings.INVALID_MESSAGE, icon=":material/link_off:")


def run_if_requested() -> None:
    """With ``?meeting=<token>``: show that link's board read-only, or the invalid-link message, then stop.

    Without it, return at once (after forgetting a meeting board this tab showed before).
    """
    token = st.query_params.get(PARAM)
    if token is None:
        _leave()
        return
    ss = st.session_state
    s = state.store()
    opened = ss.get(OPENED_KEY)
    try:
        if opened is not None and opened[0] == meetings.token_sha256(token):
            link = meetings.check_meeting_link(s, token)  # a rerun: still valid? (opened and audited already)
        else:
            _leave()  # another link, or a logged-in tab: start from the stored board, not this tab's edits
            client = st.context.ip_address  # None from localhost (and not a str outside a server, e.g. AppTest)
            link = meetings.open_meeting_link(s, token, client=client if isinstance(client, str) else None)
    except meetings.MeetingLinkInvalid:
        _leave()
        st.navigation(
            [st.Page(_invalid_page, title=t("Meeting link", state.current_locale()), url_path="meeting", default=True)],
            position="hidden",
        ).run()
        st.stop()
    user = meetings.meeting_user(link)
    ss[OPENED_KEY] = (link.token_sha256, link.id)
    ss[auth.SESSION_USER_KEY] = {"username": user.username, "role": user.role, "meeting_link": link.id}
    ss[state.DATASET_KEY] = link.dataset_id  # set on every run: the URL cannot switch it (no sidebar either)
    ss[state.TABLE_KEY] = link.table_name
    for model, threshold in link.thresholds.items():
        ss[f"committed_{state.threshold_key(model)}"] = float(threshold)  # before the URL's t_<model> is read
    st.query_params.pop("dataset", None)
    if st.query_params.get("present") != "1":
        st.query_params["present"] = "1"
    board = st.Page(
        "views/board.py", title=t("Board", state.current_locale()), icon=":material/dashboard:", url_path="board", default=True
    )
    st.navigation([board], position="hidden").run()
    st.stop()


def meeting_url(token: str) -> str:
    """The full address of a meeting link (relative when the browser's address is unknown)."""
    query = urlencode({PARAM: token})
    base = st.context.url
    return f"{base.rstrip('/')}/?{query}" if isinstance(base, str) and base else f"?{query}"


def share_panel(where, rec, thresholds: dict) -> None:
    """For admins and analysts: a "Share" popover in ``where`` (the board's tool row, so the board
    still fits one screen) to create a read-only link to this board (shown once), list and revoke links."""
    user = state.current_user()
    if active() or not governance.allowed(user, "share_board"):
        return
    s = state.store()
    L = state.current_locale()
    with where.popover(t("Share", L), icon=":material/co_present:", help=t("A read-only link for the meeting-room screen", L)):
        st.caption(
            t(
                "Whoever has the link sees this board (this dataset, value table and thresholds) full-screen and "
                "read-only, without logging in, until it expires or is revoked. Every opening is logged.",
                L,
            )
        )
        days = st.number_input(
            t("Valid for (days)", L),
            min_value=meetings.MIN_DAYS,
            max_value=meetings.MAX_DAYS,
            value=meetings.DEFAULT_DAYS,
            step=1,
            key="meeting_days",
        )
        if st.button(t("Create link", L), key="meeting_create", icon=":material/add_link:"):
            table_name = st.session_state.get(state.TABLE_KEY, services.DEFAULT_TABLE_NAME)
            try:
                link, token = meetings.create_meeting_link(
                    s, user, dataset_id=rec.id, table_name=table_name, thresholds=thresholds, days=int(days)
                )
            except (InputError, governance.Forbidden) as err:
                st.error(t("The link was not created:", L))
                st.text(str(err))
            else:  # the token exists only in this run: it is never stored, so it cannot be shown again
                st.success(
                    t(
                        "Meeting link #{id} is valid until {when} UTC. Copy it now: it is shown only this once.",
                        L,
                        id=link.id,
                        when=fmt.when(link.expires_at, L),
                    )
                )
                st.code(meeting_url(token), language=None)
        links = meetings.list_meeting_links(s, user)
        if links:
            st.caption(t("Active links", L) if user.role == "admin" else t("Active links you created", L))
        names = {d.id: d.name for d in s.list_datasets()} if links else {}
        for link in links:
            left, right = st.columns([5, 1], vertical_alignment="center")
            left.text(
                f"#{link.id} · {names.get(link.dataset_id, link.dataset_id)} · {link.table_name} · "
                + t("by {who} · until {when} UTC", L, who=link.created_by, when=fmt.when(link.expires_at, L))
            )
            if right.button(t("Revoke", L), key=f"meeting_revoke_{link.id}", icon=":material/link_off:"):
                try:
                    meetings.revoke_meeting_link(s, user, link.id)
                except (governance.Forbidden, NotFoundError, StateError) as err:
                    st.text(str(err))
                else:
                    st.toast(t("Meeting link #{id} revoked.", L, id=link.id))
                    st.rerun()
