"""AppTest of the read-only meeting link: ``?meeting=<token>`` shows only the board, in present mode."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from board import services
from board.access import meetings
from board.access.auth import User
from board.store import Store
from tests._board import tiles
from tests.app.conftest import APP

THRESHOLDS = {"old": 0.05, "new": 0.09}


@pytest.fixture
def data(tmp_path, monkeypatch):
    """An empty data directory for the app (as the ``app`` fixture sets it up), with the demo stored."""
    from board.access import auth

    d = tmp_path / "data"
    monkeypatch.setenv("EVALBOARD_DATA_DIR", str(d))
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    monkeypatch.delenv(auth.AUTOLOGIN_ENV, raising=False)
    with Store(data_dir=d) as s:
        services.ensure_demo(s)
    return d


def _link(data, **kw):
    with Store(data_dir=data) as s:
        demo = services.ensure_demo(s)
        args = dict(dataset_id=demo.id, table_name=services.DEFAULT_TABLE_NAME, thresholds=THRESHOLDS)
        args.update(kw)
        return meetings.create_meeting_link(s, User(username="ana", role="analyst"), **args)


def _other_dataset(data) -> int:
    """A second dataset (the demo without its last row) the URL might try to switch to."""
    with Store(data_dir=data) as s:
        demo = services.ensure_demo(s)
        raw = s.load_bytes(demo)
        raw = raw.rstrip(b"\n").rsplit(b"\n", 1)[0] + b"\n"
        return s.save_dataset(
            name="Other data", filename="other.csv", raw=raw, mapping=demo.mapping, report=demo.report, n_rows=demo.n_rows - 1
        ).id


def _open(query: dict, **state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _uses(data) -> int:
    with Store(data_dir=data) as s:
        return len(s.list_audit(action="meeting_link_used"))


def test_meeting_link_shows_only_the_board_read_only(data):
    link, token = _link(data)
    other = _other_dataset(data)
    at = _open({"meeting": token, "dataset": str(other), "t_new": "0.5"})
    page = " ".join(m.value for m in [*at.markdown, *at.html])
    assert "class='eb-word'" in page and "Other data" not in page  # ?dataset= does not switch the dataset
    labels = [t[0] for t in tiles(at)]
    assert labels[:2] == [
        "old at 0.05: value per decision",
        "new at 0.09: value per decision",
    ]  # the link's thresholds, not the URL's
    assert list(at.sidebar.selectbox) == [] and list(at.selectbox) == []  # no dataset or table selector
    assert list(at.button) == [] and list(at.get("download_button")) == []  # no export, no snapshot, no log-out
    assert list(at.text_input) == [] and not _share_panel(at)
    assert at.session_state["auth_user"]["role"] == "viewer"
    assert at.session_state["auth_user"]["username"] == f"meeting link #{link.id}"
    assert at.query_params["present"] in ("1", ["1"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("views/drift.py")
    assert _uses(data) == 1
    at.run()  # a rerun checks the link again but is not another opening
    assert not at.exception and _uses(data) == 1
    assert "class='eb-word'" in " ".join(h.value for h in at.html)  # the board's verdict is shown


def _only_the_message(at) -> None:
    assert [e.value for e in at.error] == [meetings.INVALID_MESSAGE]
    assert (
        list(at.title) == [] and list(at.text_input) == [] and list(at.button) == [] and list(at.metric) == [] and tiles(at) == []
    )
    assert list(at.markdown) == [] and list(at.html) == [] and list(at.sidebar.selectbox) == []


@pytest.mark.parametrize("token", ["mistyped", ""])
def test_a_bad_token_shows_the_message_and_nothing_else(data, token):
    at = _open({"meeting": token})
    _only_the_message(at)
    assert _uses(data) == 0


def test_a_revoked_link_stops_showing_at_the_next_rerun_and_the_tab_forgets_it(data):
    link, token = _link(data)
    at = _open({"meeting": token})
    assert "class='eb-word'" in " ".join(h.value for h in at.html)  # the board's verdict is shown
    with Store(data_dir=data) as s:
        meetings.revoke_meeting_link(s, User(username="ana", role="analyst"), link.id)
    at.run()
    assert not at.exception
    _only_the_message(at)
    assert "auth_user" not in at.session_state  # the pseudo-user is gone: leaving the link shows the login
    del at.query_params["meeting"]
    at.run()
    assert [t.value for t in at.title] == ["Create the admin account"]  # the login gate (this store has no account yet)


def test_analyst_creates_a_link_shown_once_and_revokes_it(app, data):
    at = app(user=("ana", "analyst"))
    assert _share_panel(at)  # the "Share" popover of the board's tool row
    at.number_input(key="meeting_days").set_value(3)
    at.button(key="meeting_create").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (code,) = at.code
    assert "?meeting=" in code.value
    token = code.value.split("?meeting=", 1)[1]
    with Store(data_dir=data) as s:
        link = meetings.check_meeting_link(s, token)
        assert (link.created_by, link.table_name) == ("ana", services.DEFAULT_TABLE_NAME)
        assert (link.expires_at - link.created_at).days == 3
        assert set(link.thresholds) == {"old", "new"}
    at.run()
    assert list(at.code) == []  # shown once: the token is not kept anywhere
    at.button(key=f"meeting_revoke_{link.id}").click().run()
    assert not at.exception
    with Store(data_dir=data) as s:
        assert s.get_meeting_link(link.id).revoked_by == "ana"
        assert [a.action for a in s.list_audit()][:2] == ["revoke_meeting_link", "create_meeting_link"]


@pytest.mark.parametrize("role", ["viewer", "business"])
def test_roles_that_may_not_share_see_no_share_panel(app, role):
    at = app(user=(f"u_{role}", role))
    assert not _share_panel(at)


def _share_panel(at) -> bool:
    """Whether the board shows the share popover (its create button; popovers hold their widgets)."""
    return any(b.key == "meeting_create" for b in at.button)
