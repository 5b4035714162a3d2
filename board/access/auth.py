"""Accounts and logins: bcrypt password hashes, login throttling, idle expiry (no Streamlit here).

Passwords are hashed with bcrypt (a maintained library; the salt and cost live inside the
hash) and are never stored, returned or logged in clear. Failed logins are counted per
username in the database (so a restart does not reset them): after
``EVALBOARD_LOGIN_FREE_ATTEMPTS`` (default 3) failures every further attempt is refused
until a lock-out that doubles with each failure (``base * 2**(failures - free)`` seconds,
base ``EVALBOARD_LOGIN_LOCK_SECONDS`` = 2, capped at 15 minutes) has passed. While locked the
password is not even checked. The same count runs per client (``client=``, e.g. the remote
address) across usernames, with ``EVALBOARD_LOGIN_CLIENT_FREE_ATTEMPTS`` (default 20) free
failures; a success does not reset it. Time comes from an injectable ``clock`` for tests.

Each attempt is counted as a failure *before* its password is checked, in one transaction
that holds the throttle rows locked (``Store.reserve_login_attempt``), and a success takes it
back -- so parallel attempts cannot all pass the check. Unknown and disabled accounts cost the
same bcrypt check as a wrong password (against a dummy hash of the configured cost), so the
answer time does not tell whether a username exists. Failed logins are audited (the name
tried, the reason, the client; never the password); a login is audited in the transaction
that clears its failures. Throttle rows older than the longest lock-out are pruned.

Sessions (``board.store.sessions``): a login starts a server-side session (:func:`start_session`,
audited ``session_created``). Its id is ``secrets.token_urlsafe(32)``, sent to the browser only as
an HttpOnly cookie (:data:`SESSION_COOKIE`) in exchange for a one-time grant that expires after
:data:`GRANT_SECONDS` (:func:`redeem_grant`); the store keeps only SHA-256 hashes of both. A reload
or a new tab finds the session by its cookie (:func:`resume_session`), a tab's rerun by its id
(:func:`check_session`), each with the account's role as stored now. A session ends after
:func:`idle_minutes` without activity, after :func:`session_hours` whatever the activity, at a
logout (:func:`end_session`, audited ``logout``), and when its account is disabled, its password
reset or its role changed (the store revokes them in that change's transaction).

Examples
--------
>>> h = hash_password("correct horse battery", rounds=4)
>>> h != "correct horse battery" and verify_password("correct horse battery", h)
True
>>> verify_password("wrong password!", h)
False
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import bcrypt

from evalcore._errors import InputError, Problem

__all__ = [
    "ROLES",
    "ROLE_LABELS",
    "LoginFailed",
    "LoginThrottled",
    "User",
    "authenticate",
    "bcrypt_rounds",
    "check_password_rules",
    "client_lock_seconds",
    "hash_password",
    "idle_expired",
    "idle_minutes",
    "lock_seconds",
    "verify_password",
    "SESSION_USER_KEY",
    "SESSION_ACTIVE_KEY",
    "SESSION_ID_KEY",
    "SESSION_GRANT_KEY",
    "SESSION_CLEAR_COOKIE_KEY",
    "SESSION_COOKIE",
    "GRANT_SECONDS",
    "AUTOLOGIN_ENV",
    "SessionState",
    "check_session",
    "end_session",
    "end_session_by_token",
    "redeem_grant",
    "resume_session",
    "session_hours",
    "start_session",
]

#: Roles, least to most privileged in administration (signing roles are peers).
ROLES = ("viewer", "analyst", "business", "risk", "model_owner", "admin")
ROLE_LABELS = {
    "viewer": "Viewer",
    "analyst": "Analyst",
    "business": "Business",
    "risk": "Risk",
    "model_owner": "Model owner",
    "admin": "Admin",
}
MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_BYTES = 72  # bcrypt uses only the first 72 bytes; refuse longer ones rather than truncate silently
MAX_LOCK_SECONDS = 15 * 60
_MAX_NAME_CHARS = 100  # users.username / login_throttle.username are VARCHAR(100): no longer name can exist
_MAX_CLIENT_CHARS = 200  # login_client_throttle.client; a longer key is replaced by its SHA-256


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def bcrypt_rounds() -> int:
    """The bcrypt cost: ``EVALBOARD_BCRYPT_ROUNDS`` (4..31), default 12. Tests lower it for speed."""
    return min(31, max(4, _env_int("EVALBOARD_BCRYPT_ROUNDS", 12)))


def idle_minutes() -> float:
    """Minutes of inactivity after which a session is logged out: ``EVALBOARD_IDLE_MINUTES``, default 60."""
    try:
        value = float(os.environ.get("EVALBOARD_IDLE_MINUTES", 60))
    except ValueError:
        value = 60.0
    return value if value > 0 else 60.0


def session_hours() -> float:
    """Hours after which a login session ends whatever its activity: ``EVALBOARD_SESSION_HOURS``, default 12."""
    try:
        value = float(os.environ.get("EVALBOARD_SESSION_HOURS", 12))
    except ValueError:
        value = 12.0
    return value if value > 0 else 12.0


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class User:
    """The acting user, as the service layer sees it."""

    username: str
    role: str

    def to_dict(self) -> dict:
        return {"username": self.username, "role": self.role}


class LoginFailed(Exception):
    """Unknown user, wrong password or disabled account (deliberately not saying which)."""


class LoginThrottled(LoginFailed):
    """Too many failed logins: refused without checking the password until ``retry_after``.

    Attributes
    ----------
    retry_after : datetime
    """

    def __init__(self, message: str, *, retry_after: datetime):
        super().__init__(message)
        self.retry_after = retry_after


def check_password_rules(password: object) -> list[str]:
    """Every rule a new password breaks ([] when acceptable)."""
    if not isinstance(password, str):
        return ["the password must be text"]
    out = []
    if len(password) < MIN_PASSWORD_CHARS:
        out.append(f"the password must have at least {MIN_PASSWORD_CHARS} characters")
    if len(password.encode("utf-8")) > MAX_PASSWORD_BYTES:
        out.append(f"the password must be at most {MAX_PASSWORD_BYTES} bytes long (bcrypt ignores the rest)")
    return out


def hash_password(password: str, *, rounds: int | None = None) -> str:
    """The bcrypt hash (text, salt included) of ``password``; ``InputError`` if it breaks a rule."""
    problems = check_password_rules(password)
    if problems:
        raise InputError([Problem(code="weak_password", message=p, column="password") for p in problems])
    salt = bcrypt.gensalt(rounds=rounds if rounds is not None else bcrypt_rounds())
    return bcrypt.hashpw(password.encode("utf-8"), salt).decode("ascii")


def verify_password(password: str, password_hash: str) -> bool:
    """True when ``password`` matches the bcrypt ``password_hash`` (constant time)."""
    try:
        return bcrypt.checkpw(password.encode("utf-8"), password_hash.encode("ascii"))
    except (ValueError, TypeError, UnicodeError):
        return False


@functools.lru_cache(maxsize=4)
def _dummy_hash(rounds: int) -> str:
    """A hash to check against when the user does not exist: computed once per cost, at the cost
    real hashes get, so an unknown name costs the same bcrypt work as a wrong password."""
    return bcrypt.hashpw(b"not a password of anyone", bcrypt.gensalt(rounds=rounds)).decode("ascii")


def _lock(failures: int, free: int) -> float:
    base = max(1, _env_int("EVALBOARD_LOGIN_LOCK_SECONDS", 2))
    if failures < free:
        return 0.0
    return float(min(MAX_LOCK_SECONDS, base * 2 ** min(failures - free, 30)))


def lock_seconds(failures: int) -> float:
    """Seconds a username stays locked after ``failures`` consecutive failed logins (0: not locked)."""
    return _lock(failures, max(1, _env_int("EVALBOARD_LOGIN_FREE_ATTEMPTS", 3)))


def client_lock_seconds(failures: int) -> float:
    """Seconds a client stays locked after ``failures`` failed logins across usernames (0: not locked)."""
    return _lock(failures, max(1, _env_int("EVALBOARD_LOGIN_CLIENT_FREE_ATTEMPTS", 20)))


def _client_key(client: object) -> str | None:
    key = str(client).strip() if client is not None else ""
    if not key:
        return None
    if len(key) > _MAX_CLIENT_CHARS:
        return "sha256:" + hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()
    return key


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def authenticate(
    store, username: str, password: str, *, client: str | None = None, clock: Callable[[], datetime] = _utcnow
) -> User:
    """Check a login against the store; count failures and throttle, per username and per client.

    Parameters
    ----------
    store : board.store.Store
    username, password : str
    client : str, optional
        Who is asking, e.g. the remote address (views/login.py passes ``st.context.ip_address``);
        failures are also counted per client across usernames. None: no per-client count.
    clock : callable, optional
        Returns the current aware datetime (injectable for tests).

    Returns
    -------
    User

    Raises
    ------
    LoginThrottled
        The username or the client is locked out (the password was not checked); see ``retry_after``.
    LoginFailed
        Wrong username or password, or a disabled account (audited as ``login_failed``).
    """
    username = (username or "").strip()
    key = username[:_MAX_NAME_CHARS]
    client = _client_key(client)
    now = clock()
    attempt = store.reserve_login_attempt(
        key,
        client=client,
        now=now,
        lock_seconds=lock_seconds,
        client_lock_seconds=client_lock_seconds,
        forget_before=now - timedelta(seconds=MAX_LOCK_SECONDS),
    )
    if not attempt.allowed:
        wait = (attempt.retry_after - now).total_seconds()
        what = "this account" if attempt.locked_by == "username" else "this address"
        raise LoginThrottled(f"Too many failed logins for {what}; try again in {wait:.0f} s.", retry_after=attempt.retry_after)
    user = store.get_user(username) if username and len(username) <= _MAX_NAME_CHARS else None
    ok = verify_password(password or "", user.password_hash if user is not None else _dummy_hash(bcrypt_rounds()))
    if user is None or not ok or not user.active:
        reason = "unknown_user" if user is None else "wrong_password" if not ok else "disabled"
        detail = {
            "reason": reason,
            "client": client,
            "failures": attempt.failures,
            "locked_until": None if attempt.locked_until is None else attempt.locked_until.isoformat(),
        }
        store.append_audit(key, "login_failed", key, detail)
        raise LoginFailed("Wrong username or password (or the account is disabled).")
    store.record_login_success(
        user.username,
        client=client,
        client_lock_seconds=client_lock_seconds,
        audit=(user.username, "login", user.username, {"client": client}),
    )
    return User(username=user.username, role=user.role)


def idle_expired(last_activity: datetime | None, now: datetime, minutes: float | None = None) -> bool:
    """True when more than ``minutes`` (default :func:`idle_minutes`) passed since ``last_activity``."""
    if last_activity is None:
        return True
    return (now - last_activity) > timedelta(minutes=idle_minutes() if minutes is None else minutes)


#: Session-state keys of a logged-in browser tab (read by app.py; AppTest fixtures seed them).
SESSION_USER_KEY = "auth_user"  # {"username": ..., "role": ...}
SESSION_ACTIVE_KEY = "auth_last_active"  # aware datetime of the last script run
SESSION_ID_KEY = "auth_session_id"  # id of the tab's login session (board.store.sessions); absent: tab-only login
SESSION_GRANT_KEY = "auth_session_grant"  # a one-time grant the tab's browser has yet to exchange for its cookie
SESSION_CLEAR_COOKIE_KEY = "auth_clear_cookie"  # set by a logout: the next page asks the server to drop the cookie
#: Test-only: when set, the app logs this existing, active account in without a password.
AUTOLOGIN_ENV = "EVALBOARD_TEST_AUTOLOGIN"


# --------------------------------------------------------------------------- sessions

#: The cookie holding a browser's session id (HttpOnly, SameSite=Strict; set by board.app.server).
SESSION_COOKIE = "evalboard_session"
#: Seconds a login's one-time grant can be exchanged for the cookie.
GRANT_SECONDS = 60
#: How long ended sessions stay in the store (revoked or expired; idle ones this long after
#: their idle limit) before :func:`start_session` prunes them.
SESSION_RETENTION = timedelta(days=1)
_MAX_TOKEN_CHARS = 200  # token_urlsafe(32) has 43 characters; anything much longer is not one of ours


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _token_hash(token: object) -> str | None:
    if not isinstance(token, str) or not token or len(token) > _MAX_TOKEN_CHARS:
        return None
    return _sha256(token)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SessionState:
    """A session lookup: the user it logs in (role as stored now) and the session's id, or why none.

    Attributes
    ----------
    user : User or None
    session_id : int or None
    ended : str or None
        ``unknown``, ``revoked``, ``expired``, ``idle`` or ``disabled`` when ``user`` is None.
    """

    user: User | None = None
    session_id: int | None = None
    ended: str | None = None


def _limits(now: datetime) -> dict:
    idle = timedelta(minutes=idle_minutes())
    # mark a session seen at most every minute (a rerun is then mostly a read): an idle session
    # ends at most that much early
    touch = min(timedelta(minutes=1), idle / 4)
    return {"now": now, "idle_before": now - idle, "touch_before": now - touch}


def _state(check, *, expect: str | None = None) -> SessionState:
    if check.session is None:
        return SessionState(ended=check.ended)
    if expect is not None and check.user.username != expect:
        return SessionState(ended="unknown")
    return SessionState(user=User(username=check.user.username, role=check.user.role), session_id=check.session.id)


def start_session(
    store, user: User, *, client: str | None = None, cookie: bool = True, clock: Callable[[], datetime] = _utcnow
) -> tuple[int, str | None]:
    """Start a login session of ``user`` (just authenticated); returns ``(session id, grant)``.

    With ``cookie`` (the server has the route that sets it, ``board.app.server``), ``grant`` is a
    one-time secret the browser exchanges within :data:`GRANT_SECONDS` for its cookie
    (:func:`redeem_grant`); without, None (the login then lasts as long as its tab). Audited as
    ``session_created`` (with the client) in the transaction of the session. Sessions that ended
    more than :data:`SESSION_RETENTION` ago are pruned first.
    """
    now = clock()
    client = _client_key(client)
    store.prune_sessions(
        ended_before=now - SESSION_RETENTION, idle_before=now - SESSION_RETENTION - timedelta(minutes=idle_minutes())
    )
    grant = secrets.token_urlsafe(32) if cookie else None
    rec = store.create_session(
        username=user.username,
        created_at=now,
        expires_at=now + timedelta(hours=session_hours()),
        grant_sha256=None if grant is None else _sha256(grant),
        grant_expires_at=None if grant is None else now + timedelta(seconds=GRANT_SECONDS),
        client=client,
        audit=lambda r: (
            user.username,
            "session_created",
            user.username,
            {"session_id": r.id, "client": client, "cookie": grant is not None, "expires_at": r.expires_at.isoformat()},
        ),
    )
    return rec.id, grant


def redeem_grant(store, grant: object, *, clock: Callable[[], datetime] = _utcnow) -> tuple[str, datetime] | None:
    """Exchange a login's one-time grant for a new session id (the cookie's value); returns
    ``(session id, expiry)``, or None when the grant is unknown, used, expired, or its session ended.

    The id is made here and only its SHA-256 is stored; the store forgets the grant in the same
    transaction, so a grant works once, even when sent twice at the same time.
    """
    digest = _token_hash(grant)
    if digest is None:
        return None
    token = secrets.token_urlsafe(32)
    rec = store.redeem_session_grant(digest, token_sha256=_sha256(token), now=clock())
    if rec is None or not hmac.compare_digest(rec.token_sha256 or "", _sha256(token)):
        return None
    return token, rec.expires_at


def resume_session(store, token: object, *, clock: Callable[[], datetime] = _utcnow) -> SessionState:
    """The user a browser's session cookie logs in (a reload, a new tab, a shared link), or why not:
    unknown, revoked, past its absolute lifetime, idle too long, or the account disabled."""
    digest = _token_hash(token)
    if digest is None:
        return SessionState(ended="unknown")
    return _state(store.session_by_token(digest, **_limits(clock())))


def check_session(
    store, session_id: int, *, username: str | None = None, clock: Callable[[], datetime] = _utcnow
) -> SessionState:
    """A tab's rerun: is its session (by id) still live, and as whom (the role as stored now)?
    ``username``: the user the tab believes it is (another user's session does not count)."""
    return _state(store.session_by_id(session_id, **_limits(clock())), expect=username)


def end_session(store, session_id: int, *, username: str, clock: Callable[[], datetime] = _utcnow) -> bool:
    """Log out: revoke the tab's session, audited as ``logout``; False when it had ended already."""
    rec = store.revoke_session(
        session_id, now=clock(), reason="logout", audit=lambda r: (username, "logout", username, {"session_id": r.id})
    )
    return rec is not None


def end_session_by_token(store, token: object, *, clock: Callable[[], datetime] = _utcnow) -> bool:
    """Log out by a browser's session cookie (the logout route): revoke that session, audited as
    ``logout``; False when there was no open session with this cookie."""
    digest = _token_hash(token)
    if digest is None:
        return False
    rec = store.revoke_session(
        token_sha256=digest,
        now=clock(),
        reason="logout",
        audit=lambda r: (r.username, "logout", r.username, {"session_id": r.id}),
    )
    return rec is not None
