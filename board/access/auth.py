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
import os
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
    "AUTOLOGIN_ENV",
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
#: Test-only: when set, the app logs this existing, active account in without a password.
AUTOLOGIN_ENV = "EVALBOARD_TEST_AUTOLOGIN"
