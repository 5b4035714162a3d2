"""Accounts and the login throttle (per username and per client)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from board.store._common import _check_text, _now, _user_record
from board.store.audit import Audit, _add_audit
from board.store.errors import NotFoundError, StateError
from board.store.models import _FirstAdmin, _LoginClientThrottle, _LoginThrottle, _User
from board.store.records import DISPLAYS, LANGUAGES, LoginAttemptRecord, LoginThrottleRecord, UserRecord
from board.store.sessions import _revoke_all
from evalcore._errors import InputError, ProblemList

LockSeconds = Callable[[int], float]  # failures -> seconds locked (0: not locked)


def _user_problems(username, password_hash, role) -> None:
    problems = ProblemList()
    _check_text(problems, "username", username, required=True)
    _check_text(problems, "password_hash", password_hash, required=True)
    _check_text(problems, "role", role, required=True)
    problems.raise_if_any()


def _insert_missing(session: Session, model, key_column: str, key: str, now: datetime) -> None:
    """Insert a zero-failure throttle row unless one exists (never fails on a concurrent insert)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(
        insert(model).values(**{key_column: key}, failures=0, last_failure_at=now, locked_until=None).on_conflict_do_nothing()
    )


class _AccountsPart:
    """Accounts and the login throttle: a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- accounts
    # Low-level: no role checks here. board.access.governance checks the acting user's role
    # and board.access.auth hashes passwords before anything reaches these methods.

    def count_users(self) -> int:
        """Number of accounts (active or not); 0 on a first start."""
        with self._reading() as session:
            return int(session.scalar(sa.select(sa.func.count()).select_from(_User)))

    def create_user(self, username: str, password_hash: str, role: str, *, audit: Audit = None) -> UserRecord:
        """Add an account. ``InputError`` if the username is taken or an argument is blank.

        ``audit``: an entry (or a callable of the new ``UserRecord``) written in the same transaction.
        """
        _user_problems(username, password_hash, role)
        with self._write() as session:
            record = self._add_user(session, username, password_hash, role)
            _add_audit(session, audit, record)
            session.commit()
        return record

    @staticmethod
    def _add_user(session: Session, username: str, password_hash: str, role: str) -> UserRecord:
        now = _now()
        row = _User(
            username=username, password_hash=password_hash, role=role, active=True, created_at=now, password_changed_at=now
        )
        session.add(row)
        try:
            session.flush()
        except sa.exc.IntegrityError:  # the caller's transaction is rolled back as this propagates
            raise InputError(f"An account named {username!r} already exists.") from None
        return _user_record(row)

    def create_first_admin(self, username: str, password_hash: str, *, audit: Audit = None) -> UserRecord:
        """Create the first account, an admin, unless any account exists -- atomically.

        The singleton ``first_admin`` row is inserted in the same transaction as the account:
        of parallel first starts (threads or processes, SQLite or PostgreSQL) exactly one commits.

        Raises
        ------
        StateError
            An account exists already (or another first start won); nothing was written.
        evalcore.InputError
            A blank argument.
        """
        _user_problems(username, password_hash, "admin")
        taken = StateError("An account exists already; the first-start admin can only be created on an empty store.")
        try:
            with self._write() as session:
                # first: the row only one transaction can insert (PostgreSQL makes the others wait, then fail)
                session.add(_FirstAdmin(id=1, username=username, created_at=_now()))
                session.flush()
                if session.scalar(sa.select(sa.func.count()).select_from(_User)):
                    raise taken
                record = self._add_user(session, username, password_hash, "admin")
                _add_audit(session, audit, record)
                session.commit()
        except sa.exc.IntegrityError as err:
            if "first_admin" not in str(err.orig) and "ck_first_admin" not in str(err.orig):
                raise
            raise taken from None
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

    def update_user(
        self,
        username: str,
        *,
        active: bool | None = None,
        password_hash: str | None = None,
        role: str | None = None,
        keep_an_admin: bool = False,
        audit: Audit = None,
    ) -> UserRecord:
        """Change an account's status, password hash or role; ``NotFoundError`` if absent.

        With ``keep_an_admin`` a change to an active admin is refused (``StateError``, nothing
        written) when it would leave no active admin: the active admins' rows are locked first (``FOR UPDATE``; SQLite
        writes one at a time), so two admins demoting or disabling each other at the same moment
        cannot both succeed.

        A new password hash also clears the username's failed logins (same transaction, as is
        ``audit``: an entry or a callable of the updated ``UserRecord``).

        Disabling the account, a new password hash or another role also revokes all its login
        sessions in the same transaction (``board.store.sessions``): every browser logged in as
        it must log in again. When any were open, an entry ``revoke_sessions`` (the reason and
        how many) is added to the log, by the user of the first ``audit`` entry.
        """
        with self._write() as session:
            if keep_an_admin:
                session.execute(sa.select(_User.id).where(_User.role == "admin", _User.active.is_(True)).with_for_update())
            row = session.scalars(sa.select(_User).where(_User.username == username)).one_or_none()
            if row is None:
                raise NotFoundError(f"No account named {username!r}.")
            was_admin = row.role == "admin" and bool(row.active)
            revoke = []
            if active is not None:
                if row.active and not active:
                    revoke.append("disabled")
                row.active = bool(active)
            if password_hash is not None:
                row.password_hash = password_hash
                row.password_changed_at = _now()
                session.execute(sa.delete(_LoginThrottle).where(_LoginThrottle.username == username))
                revoke.append("password_reset")
            if role is not None:
                if role != row.role:
                    revoke.append("role_changed")
                row.role = role
            session.flush()
            if keep_an_admin and was_admin:
                admins = session.scalar(
                    sa.select(sa.func.count()).select_from(_User).where(_User.role == "admin", _User.active.is_(True))
                )
                if not admins:
                    session.rollback()
                    raise StateError(f"{username!r} is the last active admin; make another account admin first.")
            record = _user_record(row)
            reason = ",".join(revoke)
            n = _revoke_all(session, username, now=_now(), reason=reason) if revoke else 0
            entries = _add_audit(session, audit, record)
            if n:
                actor = entries[0].username if entries else ""
                _add_audit(session, (actor, "revoke_sessions", username, {"reason": reason, "sessions": n}))
            session.commit()
        return record

    def set_user_display(self, username: str, display: str | None, *, audit: Audit = None) -> UserRecord:
        """A user's own loss/value choice over every value table's ("value", "loss"; None: follow
        the table). Not a security change: sessions stay."""
        if display is not None and display not in DISPLAYS:
            raise InputError(f"display must be one of {', '.join(DISPLAYS)} or None, got {display!r}.")
        with self._write() as session:
            row = session.scalars(sa.select(_User).where(_User.username == username)).one_or_none()
            if row is None:
                raise NotFoundError(f"No account named {username!r}.")
            row.display = display
            session.flush()
            record = _user_record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def set_user_language(self, username: str, language: str | None, *, audit: Audit = None) -> UserRecord:
        """A user's own language ("en", "zh_CN"; None: the deployment's default). Not a security
        change: sessions stay."""
        if language is not None and language not in LANGUAGES:
            raise InputError(f"language must be one of {', '.join(LANGUAGES)} or None, got {language!r}.")
        with self._write() as session:
            row = session.scalars(sa.select(_User).where(_User.username == username)).one_or_none()
            if row is None:
                raise NotFoundError(f"No account named {username!r}.")
            row.language = language
            session.flush()
            record = _user_record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    # ----------------------------------------------------------------- login throttle

    def get_login_throttle(self, username: str) -> LoginThrottleRecord | None:
        """Failed logins of ``username`` since its last success, or None."""
        with self._reading() as session:
            row = session.get(_LoginThrottle, username)
            return (
                None
                if row is None
                else LoginThrottleRecord(
                    username=row.username,
                    failures=int(row.failures),
                    last_failure_at=row.last_failure_at,
                    locked_until=row.locked_until,
                )
            )

    def get_login_client_throttle(self, client: str) -> LoginThrottleRecord | None:
        """Failed logins from ``client`` (its key in ``username``), or None."""
        with self._reading() as session:
            row = session.get(_LoginClientThrottle, client)
            return (
                None
                if row is None
                else LoginThrottleRecord(
                    username=row.client,
                    failures=int(row.failures),
                    last_failure_at=row.last_failure_at,
                    locked_until=row.locked_until,
                )
            )

    def set_login_throttle(
        self, username: str, *, failures: int, last_failure_at: datetime, locked_until: datetime | None
    ) -> None:
        """Insert or replace the throttle row of ``username`` (an administrative override; logins
        use :meth:`reserve_login_attempt`, which counts atomically)."""
        with self._write() as session:
            _insert_missing(session, _LoginThrottle, "username", username, last_failure_at)
            session.execute(
                sa.update(_LoginThrottle)
                .where(_LoginThrottle.username == username)
                .values(failures=failures, last_failure_at=last_failure_at, locked_until=locked_until)
            )
            session.commit()

    def clear_login_throttle(self, username: str) -> None:
        """Forget the failed logins of ``username`` (e.g. after a password reset)."""
        with self._write() as session:
            session.execute(sa.delete(_LoginThrottle).where(_LoginThrottle.username == username))
            session.commit()

    def reserve_login_attempt(
        self,
        username: str,
        *,
        client: str | None = None,
        now: datetime,
        lock_seconds: LockSeconds,
        client_lock_seconds: LockSeconds | None = None,
        forget_before: datetime | None = None,
    ) -> LoginAttemptRecord:
        """Check the lock-outs of ``username`` (and ``client``) and count this attempt, atomically.

        In one transaction holding the throttle rows locked (``BEGIN IMMEDIATE`` on SQLite,
        ``SELECT … FOR UPDATE`` on PostgreSQL): if either is locked at ``now`` nothing changes and
        the attempt is refused; otherwise both counts go up by one as if the attempt failed (the
        password is checked afterwards, outside the lock; a success undoes it with
        :meth:`record_login_success`). So parallel attempts can never all pass the check.

        Parameters
        ----------
        username : str
            The name tried (existing or not).
        client : str or None
            A key of the client (e.g. its address); None: no per-client count.
        now : datetime
        lock_seconds, client_lock_seconds : callable
            ``failures -> seconds`` locked after that many failures (0: none).
        forget_before : datetime, optional
            First delete the throttle rows whose lock-out (or last failure) ended before this.
        """
        if forget_before is not None:
            self.prune_login_throttle(forget_before)
        targets = [(_LoginThrottle, "username", username, lock_seconds)]
        if client is not None:
            targets.append((_LoginClientThrottle, "client", client, client_lock_seconds or lock_seconds))
        with self._write() as session:
            rows = []
            for model, column, key, policy in targets:
                _insert_missing(session, model, column, key, now)
                row = session.scalars(sa.select(model).where(getattr(model, column) == key).with_for_update()).one()
                rows.append((row, policy))
            for (row, _), (_, column, _, _) in zip(rows, targets):
                if row.locked_until is not None and now < row.locked_until:
                    session.commit()  # keeps the (zero-failure) rows just inserted, if any; pruned later
                    return LoginAttemptRecord(
                        allowed=False, locked_by=column, retry_after=row.locked_until, failures=int(rows[0][0].failures)
                    )
            for row, policy in rows:
                row.failures = int(row.failures) + 1
                row.last_failure_at = now
                wait = policy(row.failures)
                row.locked_until = now + timedelta(seconds=wait) if wait else None
            session.flush()
            user_row = rows[0][0]
            record = LoginAttemptRecord(allowed=True, failures=int(user_row.failures), locked_until=user_row.locked_until)
            session.commit()
        return record

    def record_login_success(
        self, username: str, *, client: str | None = None, client_lock_seconds: LockSeconds | None = None, audit: Audit = None
    ) -> None:
        """A reserved attempt succeeded: forget the username's failures and take back the
        client's reserved one (its earlier failures stay); ``audit`` in the same transaction."""
        with self._write() as session:
            session.execute(sa.delete(_LoginThrottle).where(_LoginThrottle.username == username))
            if client is not None:
                row = session.scalars(
                    sa.select(_LoginClientThrottle).where(_LoginClientThrottle.client == client).with_for_update()
                ).one_or_none()
                if row is not None:
                    row.failures = max(0, int(row.failures) - 1)
                    wait = client_lock_seconds(row.failures) if client_lock_seconds is not None else 0
                    row.locked_until = row.last_failure_at + timedelta(seconds=wait) if wait else None
            _add_audit(session, audit)
            session.commit()

    def prune_login_throttle(self, before: datetime) -> int:
        """Delete throttle rows (usernames and clients) whose lock-out, or else last failure, ended
        before ``before``; returns how many. Rows another transaction holds are left for later."""
        n = 0
        with self._write() as session:
            for model, key in ((_LoginThrottle, _LoginThrottle.username), (_LoginClientThrottle, _LoginClientThrottle.client)):
                stale = (
                    sa.select(key)
                    .where(sa.func.coalesce(model.locked_until, model.last_failure_at) < before)
                    .with_for_update(skip_locked=True)
                )
                n += session.execute(sa.delete(model).where(key.in_(stale)).execution_options(synchronize_session=False)).rowcount
            session.commit()
        return n
