"""Read-only meeting links (board.access.meetings) through the service layer, on SQLite and PostgreSQL.

Create, open, expire, revoke; refused for roles that may not share; the token is never stored;
every open is audited; one message for every token that does not open.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from board import services
from board.access import governance as gov
from board.access import meetings
from board.access.auth import ROLES, User
from board.store import NotFoundError, StateError, Store
from evalcore import InputError

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
TABLE = "loan anti-fraud"
ANA = User(username="ana", role="analyst")
ADMIN = User(username="root", role="admin")


class Clock:
    """A settable clock for the ``clock=`` argument."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def store(db_url, data_dir):
    with Store(url=db_url, data_dir=data_dir) as s:
        yield s


@pytest.fixture
def ds_id(store) -> int:
    return services.ensure_demo(store).id


def _create(store, ds_id, actor=ANA, clock=None, **kw):
    args = dict(dataset_id=ds_id, table_name=TABLE, thresholds={"A": 0.42, "B": 0.3}, clock=clock or Clock())
    args.update(kw)
    return meetings.create_meeting_link(store, actor, **args)


def _all_stored_text(store) -> str:
    """Every value of every row of every table, as one string (to look for a secret)."""
    out = []
    with store.engine.connect() as conn:
        for table in sa.inspect(store.engine).get_table_names():
            for row in conn.execute(sa.text(f"SELECT * FROM {table}")):
                out.extend(str(v) for v in row)
    return "\n".join(out)


def test_create_then_open_gives_the_board_and_audits_every_open(store, ds_id):
    clock = Clock()
    link, token = _create(store, ds_id, clock=clock)
    assert (link.dataset_id, link.table_name, link.thresholds, link.created_by) == (ds_id, TABLE, {"A": 0.42, "B": 0.3}, "ana")
    assert link.expires_at - link.created_at == timedelta(days=meetings.DEFAULT_DAYS)
    assert len(token) >= 43  # token_urlsafe(32): 256 random bits
    clock.now = T0 + timedelta(days=3)
    for client in ("10.0.0.7", None):
        assert meetings.open_meeting_link(store, token, client=client, clock=clock).id == link.id
    uses = store.list_audit(action="meeting_link_used")
    assert len(uses) == 2
    assert {u.username for u in uses} == {f"meeting link #{link.id}"}
    assert [u.detail["client"] for u in uses] == [None, "10.0.0.7"]
    assert all(u.detail["link_id"] == link.id and u.detail["dataset_id"] == ds_id for u in uses)
    (created,) = store.list_audit(action="create_meeting_link")
    assert created.username == "ana" and created.detail["days"] == 7
    # a rerun's check is not an open: not audited again
    assert meetings.check_meeting_link(store, token, clock=clock).id == link.id
    assert len(store.list_audit(action="meeting_link_used")) == 2
    user = meetings.meeting_user(link)
    assert (user.username, user.role) == (f"meeting link #{link.id}", "viewer")
    assert not gov.allowed(user, "export") and not gov.allowed(user, "save_evaluation")


def test_the_token_is_never_stored_only_its_sha256(store, ds_id):
    link, token = _create(store, ds_id)
    meetings.open_meeting_link(store, token, clock=Clock())
    stored = _all_stored_text(store)
    assert token not in stored
    assert hashlib.sha256(token.encode()).hexdigest() in stored  # the lookup key
    assert token not in repr(link) and token not in str(link.to_dict())


def test_expired_revoked_unknown_and_malformed_tokens_get_one_message(store, ds_id):
    clock = Clock()
    link, token = _create(store, ds_id, clock=clock, days=1)
    other, other_token = _create(store, ds_id, clock=clock)
    meetings.revoke_meeting_link(store, ANA, other.id, clock=clock)
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    clock.now = T0 + timedelta(days=1)  # the first link's last moment has passed
    messages = set()
    for bad in (token, other_token, tampered, "", "x" * 5000, None, token.upper()):
        with pytest.raises(meetings.MeetingLinkInvalid) as err:
            meetings.open_meeting_link(store, bad, clock=clock)
        messages.add(str(err.value))
        with pytest.raises(meetings.MeetingLinkInvalid):
            meetings.check_meeting_link(store, bad, clock=clock)
    assert messages == {meetings.INVALID_MESSAGE}
    assert store.list_audit(action="meeting_link_used") == []
    clock.now = T0 + timedelta(days=1) - timedelta(seconds=1)  # just before expiry it still opens
    assert meetings.open_meeting_link(store, token, clock=clock).id == link.id


def test_revoke_by_creator_or_admin_only_and_audited(store, ds_id):
    clock = Clock()
    link, token = _create(store, ds_id, clock=clock)
    other_analyst = User(username="bob", role="analyst")
    with pytest.raises(gov.Forbidden, match="Only its creator"):
        meetings.revoke_meeting_link(store, other_analyst, link.id, clock=clock)
    assert meetings.list_meeting_links(store, other_analyst, clock=clock) == []  # not theirs to see
    assert [r.id for r in meetings.list_meeting_links(store, ADMIN, clock=clock)] == [link.id]
    revoked = meetings.revoke_meeting_link(store, ADMIN, link.id, clock=clock)
    assert revoked.revoked_by == "root"
    with pytest.raises(meetings.MeetingLinkInvalid):
        meetings.open_meeting_link(store, token, clock=clock)
    with pytest.raises(StateError):
        meetings.revoke_meeting_link(store, ADMIN, link.id, clock=clock)
    with pytest.raises(NotFoundError):
        meetings.revoke_meeting_link(store, ADMIN, 9999, clock=clock)
    assert meetings.list_meeting_links(store, ANA, clock=clock) == []
    assert [r.id for r in meetings.list_meeting_links(store, ANA, active_only=False, clock=clock)] == [link.id]
    (entry,) = store.list_audit(action="revoke_meeting_link")
    assert (entry.username, entry.target) == ("root", f"meeting link #{link.id}")
    own, _ = _create(store, ds_id, clock=clock)
    assert meetings.revoke_meeting_link(store, ANA, own.id, clock=clock).revoked_by == "ana"


@pytest.mark.parametrize("role", sorted(set(ROLES) - {"admin", "analyst"}))
def test_roles_that_may_not_share_are_refused_before_anything_is_written(store, ds_id, role):
    link, token = _create(store, ds_id)
    user = User(username=f"u_{role}", role=role)
    n_audit = len(store.list_audit())
    with pytest.raises(gov.Forbidden):
        _create(store, ds_id, actor=user)
    with pytest.raises(gov.Forbidden):
        meetings.list_meeting_links(store, user)
    with pytest.raises(gov.Forbidden):
        meetings.revoke_meeting_link(store, user, link.id)
    with pytest.raises(gov.Forbidden):
        _create(store, ds_id, actor=None)
    assert len(store.list_audit()) == n_audit
    assert len(store.list_meeting_links()) == 1
    assert store.get_meeting_link(link.id).revoked_at is None


@pytest.mark.parametrize("days", [0, 91, -1, 7.0, True, "7"])
def test_validity_is_1_to_90_whole_days(store, ds_id, days):
    with pytest.raises(InputError, match="days must be a whole number of days from 1 to 90"):
        _create(store, ds_id, days=days)
    assert store.list_meeting_links() == []


def test_bounds_of_validity_and_bad_inputs(store, ds_id):
    for days in (1, 90):
        link, _ = _create(store, ds_id, days=days)
        assert link.expires_at - link.created_at == timedelta(days=days)
    with pytest.raises(InputError, match="finite numbers"):
        _create(store, ds_id, thresholds={"A": float("nan")})
    with pytest.raises(InputError, match="non-empty dict"):
        _create(store, ds_id, thresholds={})
    with pytest.raises(NotFoundError):
        _create(store, ds_id=9999)
    assert len(store.list_meeting_links()) == 2
