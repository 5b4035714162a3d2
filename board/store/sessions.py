"""Server-side login sessions (migration 9): what lets a login survive a reload and a shared link.

Low-level: no random ids, hashing or policy here. ``board.access.auth`` makes the session id and
the one-time grant, hashes them, picks the idle and absolute limits and builds the audit entries;
the store keeps only SHA-256 hashes (a copy of the database logs nobody in) and checks and changes
each row in one transaction.

A row's life: created at a login (``create_session``, audited) with the hash of a one-time grant;
the browser exchanges the grant once, before it expires, for its cookie (``redeem_session_grant``
stores the cookie's hash and forgets the grant); each new tab or reload looks the session up by the
cookie's hash (``session_by_token``), each rerun of a tab by the row's id (``session_by_id``). It
ends when revoked (``revoke_session``; ``revoke_user_sessions``, which :meth:`update_user
<board.store.accounts._AccountsPart.update_user>` runs in its own transaction when an account is
disabled, its password reset or its role changed), after its absolute lifetime, or when idle.
Ended rows are deleted by ``prune_sessions``.

The ORM model and the records live here with the part that uses them (the model is declared on
the store's one ORM base, so the schema check of ``tests/board/test_store.py`` covers it).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, Session, mapped_column

from board.store._common import _check_text, _now, _user_record
from board.store.audit import Audit, _add_audit
from board.store.models import UTCDateTime, _Base, _User
from board.store.records import UserRecord, _iso
from evalcore._errors import ProblemList

__all__ = ["SessionCheck", "SessionRecord"]

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_CLIENT_CHARS = 200  # sessions.client is VARCHAR(200)
_REASON_CHARS = 50  # sessions.revoked_reason is VARCHAR(50)


class _Session(_Base):
    """A login session (migration 9): only hashes of its cookie and of its one-time grant are stored."""

    __tablename__ = "sessions"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    token_sha256: Mapped[str | None] = mapped_column(sa.String(64), unique=True)
    grant_sha256: Mapped[str | None] = mapped_column(sa.String(64), unique=True)
    grant_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    username: Mapped[str] = mapped_column(sa.String(100), index=True)
    client: Mapped[str | None] = mapped_column(sa.String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_reason: Mapped[str | None] = mapped_column(sa.String(50))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SessionRecord:
    """One login session.

    Attributes
    ----------
    id : int
        Never reused. A tab keeps it to check its session at every rerun.
    username : str
    token_sha256 : str or None
        Hex SHA-256 of the browser's cookie (the id itself is never stored); None until the
        login's grant has been exchanged for the cookie (a session of one tab only, so far).
    grant_sha256 : str or None
        Hex SHA-256 of the unused one-time grant; None once used or when there was none.
    grant_expires_at : datetime or None
    client : str or None
        The client address at the login (None from localhost).
    created_at, last_seen_at, expires_at : datetime
        Timezone-aware, UTC. ``expires_at`` ends the session whatever its activity.
    revoked_at : datetime or None
    revoked_reason : str or None
        ``logout``, ``disabled``, ``password_reset``, ``role_changed``, …
    """

    id: int
    username: str
    token_sha256: str | None = field(default=None, repr=False)
    grant_sha256: str | None = field(default=None, repr=False)
    grant_expires_at: datetime | None = None
    client: str | None = None
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime
    revoked_at: datetime | None = None
    revoked_reason: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready, without the hashes."""
        return {
            "id": self.id,
            "username": self.username,
            "has_cookie": self.token_sha256 is not None,
            "client": self.client,
            "created_at": _iso(self.created_at),
            "last_seen_at": _iso(self.last_seen_at),
            "expires_at": _iso(self.expires_at),
            "revoked_at": _iso(self.revoked_at),
            "revoked_reason": self.revoked_reason,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SessionCheck:
    """The answer to a session lookup: the live session and its account, or why there is none.

    Attributes
    ----------
    session : SessionRecord or None
        None when the session does not (or no longer) log anybody in.
    user : UserRecord or None
        The account as stored now (its role now, not at the login); None with ``session``.
    ended : str or None
        Why there is no session: ``unknown``, ``revoked``, ``expired`` (absolute lifetime),
        ``idle`` or ``disabled`` (the account is disabled or gone). None when live.
    """

    session: SessionRecord | None = None
    user: UserRecord | None = None
    ended: str | None = None


def _record(row: _Session) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        username=row.username,
        token_sha256=row.token_sha256,
        grant_sha256=row.grant_sha256,
        grant_expires_at=row.grant_expires_at,
        client=row.client,
        created_at=row.created_at,
        last_seen_at=row.last_seen_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        revoked_reason=row.revoked_reason,
    )


def _check_hash(problems: ProblemList, param: str, value, *, required: bool) -> None:
    if value is None and not required:
        return
    if not isinstance(value, str) or not _SHA256_HEX.fullmatch(value):
        problems.add("invalid_value", f"{param} must be 64 lower-case hex digits (a SHA-256).", column=param)


def _check_aware(problems: ProblemList, param: str, value) -> None:
    if not isinstance(value, datetime) or value.tzinfo is None:
        problems.add("invalid_type", f"{param} must be an aware datetime (UTC), got {value!r}.", column=param)


def _valid_hash(value) -> bool:
    return isinstance(value, str) and _SHA256_HEX.fullmatch(value) is not None


def _state(session: Session, row: _Session | None, *, now: datetime, idle_before: datetime) -> SessionCheck:
    """Whether ``row`` logs its user in at ``now`` (read in ``session``'s transaction)."""
    if row is None:
        return SessionCheck(ended="unknown")
    if row.revoked_at is not None:
        return SessionCheck(ended="revoked")
    if now >= row.expires_at:
        return SessionCheck(ended="expired")
    if row.last_seen_at < idle_before:
        return SessionCheck(ended="idle")
    user = session.scalars(sa.select(_User).where(_User.username == row.username)).one_or_none()
    if user is None or not user.active:
        return SessionCheck(ended="disabled")
    return SessionCheck(session=_record(row), user=_user_record(user))


def _revoke_all(session: Session, username: str, *, now: datetime, reason: str) -> int:
    """Revoke every open session of ``username`` in ``session``'s transaction; how many were open."""
    result = session.execute(
        sa.update(_Session)
        .where(_Session.username == username, _Session.revoked_at.is_(None))
        .values(revoked_at=now, revoked_reason=reason[:_REASON_CHARS], grant_sha256=None, grant_expires_at=None)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


class _SessionsPart:
    """Login sessions: a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- sessions

    def create_session(
        self,
        *,
        username: str,
        expires_at: datetime,
        grant_sha256: str | None = None,
        grant_expires_at: datetime | None = None,
        client: str | None = None,
        created_at: datetime | None = None,
        audit: Audit = None,
    ) -> SessionRecord:
        """Start a session of ``username`` (one login); returns its record.

        ``grant_sha256``: the hash of a one-time grant the browser may exchange for its cookie
        until ``grant_expires_at`` (None: a session of one tab, without a cookie). ``audit``: an
        entry, or a callable of the new record, written in the same transaction.

        Raises
        ------
        evalcore.InputError
            A blank username, a malformed hash, naive datetimes, or an expiry not after the start.
        """
        created_at = created_at or _now()
        problems = ProblemList()
        _check_text(problems, "username", username, required=True)
        _check_hash(problems, "grant_sha256", grant_sha256, required=False)
        _check_aware(problems, "created_at", created_at)
        _check_aware(problems, "expires_at", expires_at)
        if grant_sha256 is not None:
            _check_aware(problems, "grant_expires_at", grant_expires_at)
        if client is not None and not isinstance(client, str):
            problems.add("invalid_type", f"client must be a str or None, got {type(client).__name__}.", column="client")
        if not problems and expires_at <= created_at:
            problems.add(
                "invalid_value", f"expires_at ({expires_at}) must be after created_at ({created_at}).", column="expires_at"
            )
        problems.raise_if_any()
        with self._write() as session:
            row = _Session(
                username=username,
                grant_sha256=grant_sha256,
                grant_expires_at=grant_expires_at if grant_sha256 is not None else None,
                client=None if client is None else client[:_CLIENT_CHARS],
                created_at=created_at,
                last_seen_at=created_at,
                expires_at=expires_at,
            )
            session.add(row)
            session.flush()
            record = _record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def redeem_session_grant(self, grant_sha256: str, *, token_sha256: str, now: datetime) -> SessionRecord | None:
        """Exchange a one-time grant for the session's cookie, atomically; the session, or None.

        In one transaction holding the row locked: the grant is found by its hash and forgotten
        whatever happens next (it is never used twice, even by parallel requests); if it had not
        expired, its session is live and has no cookie yet, ``token_sha256`` (the cookie's hash)
        is stored. Otherwise nothing else changes and None is returned.
        """
        if not _valid_hash(grant_sha256):
            return None
        problems = ProblemList()
        _check_hash(problems, "token_sha256", token_sha256, required=True)
        _check_aware(problems, "now", now)
        problems.raise_if_any()
        with self._write() as session:
            row = session.scalars(
                sa.select(_Session).where(_Session.grant_sha256 == grant_sha256).with_for_update()
            ).one_or_none()
            if row is None:
                return None
            fresh = row.grant_expires_at is not None and now < row.grant_expires_at and row.token_sha256 is None
            check = _state(session, row, now=now, idle_before=row.created_at)
            row.grant_sha256 = None
            row.grant_expires_at = None
            if fresh and check.session is not None:
                row.token_sha256 = token_sha256
                row.last_seen_at = max(row.last_seen_at, now)
            session.flush()
            record = _record(row) if fresh and check.session is not None else None
            session.commit()
        return record

    def _session_check(self, where, *, now: datetime, idle_before: datetime, touch_before: datetime | None) -> SessionCheck:
        """Look a session up; if live and last seen before ``touch_before``, record ``now`` as seen."""
        query = sa.select(_Session).where(where)
        with self._reading() as session:
            check = _state(session, session.scalars(query).one_or_none(), now=now, idle_before=idle_before)
        if check.session is None or touch_before is None or check.session.last_seen_at >= touch_before:
            return check  # most reruns: a read only
        with self._write() as session:  # again, with the row locked: a revocation in between wins
            row = session.scalars(query.with_for_update()).one_or_none()
            check = _state(session, row, now=now, idle_before=idle_before)
            if check.session is not None and row.last_seen_at < now:
                row.last_seen_at = now
                session.flush()
                check = dataclasses.replace(check, session=_record(row))
            session.commit()
        return check

    def session_by_token(
        self, token_sha256: str, *, now: datetime, idle_before: datetime, touch_before: datetime | None = None
    ) -> SessionCheck:
        """The session whose cookie has this SHA-256, if it is live at ``now``: not revoked, before
        its absolute expiry, seen at or after ``idle_before``, its account active. A live session
        last seen before ``touch_before`` is marked seen at ``now`` (in a transaction of its own)."""
        if not _valid_hash(token_sha256):
            return SessionCheck(ended="unknown")
        return self._session_check(
            _Session.token_sha256 == token_sha256, now=now, idle_before=idle_before, touch_before=touch_before
        )

    def session_by_id(
        self, session_id: int, *, now: datetime, idle_before: datetime, touch_before: datetime | None = None
    ) -> SessionCheck:
        """As :meth:`session_by_token`, by the session's id (a tab's own session, cookie or not)."""
        if isinstance(session_id, bool) or not isinstance(session_id, int):
            return SessionCheck(ended="unknown")
        return self._session_check(_Session.id == session_id, now=now, idle_before=idle_before, touch_before=touch_before)

    def get_session(self, session_id: int) -> SessionRecord | None:
        """The session with this id, live or ended (until pruned), or None."""
        with self._reading() as session:
            row = session.get(_Session, session_id)
            return None if row is None else _record(row)

    def list_sessions(self, *, username: str | None = None) -> list[SessionRecord]:
        """Stored sessions (live and ended but not yet pruned), newest first; only ``username``'s when given."""
        query = sa.select(_Session).order_by(_Session.id.desc())
        if username is not None:
            query = query.where(_Session.username == username)
        with self._reading() as session:
            return [_record(r) for r in session.scalars(query)]

    def revoke_session(
        self,
        session_id: int | None = None,
        *,
        token_sha256: str | None = None,
        now: datetime | None = None,
        reason: str = "logout",
        audit: Audit = None,
    ) -> SessionRecord | None:
        """Revoke one session, found by its id or its cookie's hash; returns it, or None when there
        was no such open session (nothing written then). ``audit`` (an entry, or a callable of the
        revoked record) is written in the same transaction, only when a session was revoked."""
        if session_id is not None:
            where = _Session.id == session_id
        elif _valid_hash(token_sha256):
            where = _Session.token_sha256 == token_sha256
        else:
            return None
        with self._write() as session:
            row = session.scalars(sa.select(_Session).where(where).with_for_update()).one_or_none()
            if row is None or row.revoked_at is not None:
                return None
            row.revoked_at = now or _now()
            row.revoked_reason = reason[:_REASON_CHARS]
            row.grant_sha256 = None
            row.grant_expires_at = None
            session.flush()
            record = _record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def revoke_user_sessions(self, username: str, *, reason: str, now: datetime | None = None, audit: Audit = None) -> int:
        """Revoke every open session of ``username``; returns how many. ``audit`` (an entry, or a
        callable of the count) is written in the same transaction, only when there were any."""
        with self._write() as session:
            n = _revoke_all(session, username, now=now or _now(), reason=reason)
            if n:
                _add_audit(session, audit, n)
            session.commit()
        return n

    def prune_sessions(self, *, ended_before: datetime, idle_before: datetime) -> int:
        """Delete the sessions that ended for good: revoked or past their absolute expiry before
        ``ended_before``, or last seen before ``idle_before``; returns how many. Rows another
        transaction holds are left for later."""
        with self._write() as session:
            stale = (
                sa.select(_Session.id)
                .where(
                    sa.or_(
                        _Session.revoked_at < ended_before,
                        _Session.expires_at < ended_before,
                        _Session.last_seen_at < idle_before,
                    )
                )
                .with_for_update(skip_locked=True)
            )
            n = session.execute(
                sa.delete(_Session).where(_Session.id.in_(stale)).execution_options(synchronize_session=False)
            ).rowcount
            session.commit()
        return int(n or 0)
