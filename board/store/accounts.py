"""Accounts and the login throttle."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from board.store._common import _check_text, _now, _user_record
from board.store.errors import NotFoundError
from board.store.models import _LoginThrottle, _User
from board.store.records import LoginThrottleRecord, UserRecord
from evalcore._errors import InputError, ProblemList


class _AccountsPart:
    """Accounts and the login throttle. (a part of :class:`board.store.Store`)."""

    # ----------------------------------------------------------------- accounts
    # Low-level: no role checks here. board.access.governance checks the acting user's role
    # and board.access.auth hashes passwords before anything reaches these methods.

    def count_users(self) -> int:
        """Number of accounts (active or not); 0 on a first start."""
        with self._reading() as session:
            return int(session.scalar(sa.select(sa.func.count()).select_from(_User)))

    def create_user(self, username: str, password_hash: str, role: str) -> UserRecord:
        """Add an account. ``InputError`` if the username is taken or an argument is blank."""
        problems = ProblemList()
        _check_text(problems, "username", username, required=True)
        _check_text(problems, "password_hash", password_hash, required=True)
        _check_text(problems, "role", role, required=True)
        problems.raise_if_any()
        now = _now()
        try:
            with self._write() as session:
                row = _User(username=username, password_hash=password_hash, role=role, active=True,
                            created_at=now, password_changed_at=now)
                session.add(row)
                session.flush()
                record = _user_record(row)
                session.commit()
        except sa.exc.IntegrityError:
            raise InputError(f"An account named {username!r} already exists.") from None
        return record

    def get_user(self, username: str) -> UserRecord | None:
        """The account with this username, or None."""
        with self._reading() as session:
            row = session.scalars(sa.select(_User).where(_User.username == username)).one_or_none()
            return None if row is None else _user_record(row)

    def list_users(self) -> list[UserRecord]:
        """All accounts, by username."""
        with self._reading() as session:
            return [_user_record(r) for r in session.scalars(sa.select(_User).order_by(_User.username))]

    def update_user(self, username: str, *, active: bool | None = None, password_hash: str | None = None,
                    role: str | None = None) -> UserRecord:
        """Change an account's status, password hash or role; ``NotFoundError`` if absent."""
        with self._write() as session:
            row = session.scalars(sa.select(_User).where(_User.username == username)).one_or_none()
            if row is None:
                raise NotFoundError(f"No account named {username!r}.")
            if active is not None:
                row.active = bool(active)
            if password_hash is not None:
                row.password_hash = password_hash
                row.password_changed_at = _now()
            if role is not None:
                row.role = role
            session.flush()
            record = _user_record(row)
            session.commit()
        return record

    def get_login_throttle(self, username: str) -> LoginThrottleRecord | None:
        """Failed logins of ``username`` since its last success, or None."""
        with self._reading() as session:
            row = session.get(_LoginThrottle, username)
            return None if row is None else LoginThrottleRecord(
                username=row.username, failures=int(row.failures), last_failure_at=row.last_failure_at,
                locked_until=row.locked_until)

    def set_login_throttle(self, username: str, *, failures: int, last_failure_at: datetime,
                           locked_until: datetime | None) -> None:
        """Insert or replace the throttle row of ``username``."""
        with self._write() as session:
            row = session.get(_LoginThrottle, username)
            if row is None:
                session.add(_LoginThrottle(username=username, failures=failures, last_failure_at=last_failure_at,
                                           locked_until=locked_until))
            else:
                row.failures, row.last_failure_at, row.locked_until = failures, last_failure_at, locked_until
            session.commit()

    def clear_login_throttle(self, username: str) -> None:
        """Forget the failed logins of ``username`` (after a success or a password reset)."""
        with self._write() as session:
            session.execute(sa.delete(_LoginThrottle).where(_LoginThrottle.username == username))
            session.commit()
