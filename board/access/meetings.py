"""Read-only meeting links: one board (dataset, value table, thresholds) for the conference-room screen.

An admin or analyst (action ``share_board``) creates a link valid for 1 to 90 days (default 7).
Its token is ``secrets.token_urlsafe(32)`` (256 random bits), returned once and never stored:
the store keeps its SHA-256, so a copy of the database (or of the audit log) opens nothing.
Whoever holds the token sees that board in present mode as a pseudo-user with the role
``viewer`` (no export, no saving, no other page) until the link expires or is revoked by its
creator or an admin.

Opening refuses an unknown, expired or revoked token with one message
(:data:`INVALID_MESSAGE`), so a guesser learns nothing about which links exist. Every
successful open is audited (``meeting_link_used``) in the transaction that reads the link;
creating and revoking are audited in the transaction of the change. No Streamlit here:
``board.app.meeting`` calls these functions.

Examples
--------
>>> link, token = create_meeting_link(store, ana, dataset_id=1, table_name="loan anti-fraud",
...                                   thresholds={"A": 0.42})                # doctest: +SKIP
>>> open_meeting_link(store, token).id == link.id                          # doctest: +SKIP
True
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from board.access.auth import User
from board.access.governance import Forbidden, require
from board.store import MeetingLinkRecord, Store
from evalcore._errors import InputError

__all__ = [
    "DEFAULT_DAYS",
    "INVALID_MESSAGE",
    "MAX_DAYS",
    "MIN_DAYS",
    "MeetingLinkInvalid",
    "check_meeting_link",
    "create_meeting_link",
    "list_meeting_links",
    "meeting_user",
    "open_meeting_link",
    "revoke_meeting_link",
    "token_sha256",
]

MIN_DAYS, MAX_DAYS, DEFAULT_DAYS = 1, 90, 7
#: The one answer to a token that does not open (unknown, expired or revoked alike).
INVALID_MESSAGE = "This meeting link is not valid (expired, revoked or mistyped). Ask for a new one."
_MAX_TOKEN_CHARS = 200  # token_urlsafe(32) has 43; anything much longer is not one of ours
_ACTIONS = {"create": "create_meeting_link", "use": "meeting_link_used", "revoke": "revoke_meeting_link"}


class MeetingLinkInvalid(PermissionError):
    """The token does not open a board; the message never says why (see :data:`INVALID_MESSAGE`)."""

    def __init__(self) -> None:
        super().__init__(INVALID_MESSAGE)


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def token_sha256(token: str) -> str:
    """Hex SHA-256 of a token (what the store keeps and looks links up by)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _name(link: MeetingLinkRecord) -> str:
    return f"meeting link #{link.id}"


def meeting_user(link: MeetingLinkRecord) -> User:
    """The pseudo-user a meeting link shows its board to: role ``viewer``, named after the link."""
    return User(username=_name(link), role="viewer")


def _check_days(days) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or not MIN_DAYS <= days <= MAX_DAYS:
        raise InputError(f"days must be a whole number of days from {MIN_DAYS} to {MAX_DAYS}, got {days!r}.")
    return days


def _check_thresholds(thresholds) -> dict[str, float]:
    if not isinstance(thresholds, dict) or not thresholds:
        raise InputError(f"thresholds must be a non-empty dict of model -> threshold, got {thresholds!r}.")
    bad = [
        m
        for m, t in thresholds.items()
        if not isinstance(m, str) or isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t)
    ]
    if bad:
        raise InputError(f"thresholds must map model names to finite numbers; {len(bad)} entries do not: {bad[:5]!r}.")
    return {m: float(t) for m, t in thresholds.items()}


def create_meeting_link(
    store: Store,
    actor: User,
    *,
    dataset_id: int,
    table_name: str,
    thresholds: dict,
    days: int = DEFAULT_DAYS,
    clock: Callable[[], datetime] = _utcnow,
) -> tuple[MeetingLinkRecord, str]:
    """Create a link to one board; returns ``(record, token)``. The token is shown once, never stored.

    Raises
    ------
    Forbidden
        The actor's role may not share boards (only admin and analyst may); nothing stored.
    evalcore.InputError
        ``days`` outside 1..90, or thresholds that are not finite numbers by model.
    board.store.NotFoundError
        The dataset does not exist.
    """
    require(actor, "share_board")
    days = _check_days(days)
    thresholds = _check_thresholds(thresholds)
    token = secrets.token_urlsafe(32)
    now = clock()
    record = store.create_meeting_link(
        token_sha256=token_sha256(token),
        dataset_id=dataset_id,
        table_name=table_name,
        thresholds=thresholds,
        created_by=actor.username,
        created_at=now,
        expires_at=now + timedelta(days=days),
        audit=lambda rec: (
            actor.username,
            _ACTIONS["create"],
            _name(rec),
            {
                "link_id": rec.id,
                "dataset_id": dataset_id,
                "table_name": table_name,
                "days": days,
                "expires_at": rec.to_dict()["expires_at"],
            },
        ),
    )
    return record, token


def list_meeting_links(
    store: Store, actor: User, *, active_only: bool = True, clock: Callable[[], datetime] = _utcnow
) -> list[MeetingLinkRecord]:
    """The links the actor may revoke (an admin: all; an analyst: their own), newest first;
    only those that still open unless ``active_only`` is False."""
    require(actor, "share_board")
    return store.list_meeting_links(
        created_by=None if actor.role == "admin" else actor.username, active_at=clock() if active_only else None
    )


def revoke_meeting_link(store: Store, actor: User, link_id: int, *, clock: Callable[[], datetime] = _utcnow) -> MeetingLinkRecord:
    """Revoke a link: it never opens again (its creator or an admin).

    Raises
    ------
    Forbidden
        The actor may not share boards, or is neither the creator nor an admin.
    board.store.NotFoundError, board.store.StateError
        No such link; revoked already.
    """
    require(actor, "share_board")
    link = store.get_meeting_link(link_id)
    if actor.role != "admin" and link.created_by != actor.username:
        raise Forbidden(f"Only its creator ({link.created_by!r}) or an admin may revoke {_name(link)}.")
    return store.revoke_meeting_link(
        link_id,
        revoked_by=actor.username,
        now=clock(),
        audit=lambda rec: (actor.username, _ACTIONS["revoke"], _name(rec), {"link_id": rec.id, "created_by": rec.created_by}),
    )


def _hash_of(token) -> str:
    if not isinstance(token, str) or not token or len(token) > _MAX_TOKEN_CHARS:
        raise MeetingLinkInvalid()
    return token_sha256(token)


def _matches(link: MeetingLinkRecord | None, digest: str) -> MeetingLinkRecord:
    # the store found the row by this hash; compare again in constant time as a second check
    if link is None or not hmac.compare_digest(link.token_sha256, digest):
        raise MeetingLinkInvalid()
    return link


def open_meeting_link(
    store: Store, token: str, *, client: str | None = None, clock: Callable[[], datetime] = _utcnow
) -> MeetingLinkRecord:
    """The link this token opens, audited (``meeting_link_used``, with the client) in the same transaction.

    Raises
    ------
    MeetingLinkInvalid
        Unknown, expired or revoked -- one message for all three; nothing is written.
    """
    digest = _hash_of(token)

    def entry(link: MeetingLinkRecord) -> tuple:
        detail = {"link_id": link.id, "dataset_id": link.dataset_id, "created_by": link.created_by, "client": client}
        return (_name(link), _ACTIONS["use"], _name(link), detail)

    return _matches(store.use_meeting_link(digest, now=clock(), audit=entry), digest)


def check_meeting_link(store: Store, token: str, *, clock: Callable[[], datetime] = _utcnow) -> MeetingLinkRecord:
    """The link this token opens, without an audit entry: for the reruns of a screen that has
    opened it already (:func:`open_meeting_link`), so a revoked or expired link stops showing.

    Raises
    ------
    MeetingLinkInvalid
        Unknown, expired or revoked.
    """
    digest = _hash_of(token)
    return _matches(store.use_meeting_link(digest, now=clock()), digest)
