"""Read-only meeting links (migration 8): a board shown to whoever holds a token, until it expires or is revoked.

Low-level: no role checks and no token handling here. ``board.access.meetings`` makes the token,
hashes it, checks the actor's role and builds the audit entries; the store keeps only the
token's SHA-256 and writes each change (and each use) with its audit entry in one transaction.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

import sqlalchemy as sa

from board.store._common import _check_json, _check_text, _dumps, _now
from board.store.audit import Audit, _add_audit
from board.store.errors import NotFoundError, StateError
from board.store.models import _MeetingLink
from board.store.records import MeetingLinkRecord
from evalcore._errors import ProblemList

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _meeting_record(row: _MeetingLink) -> MeetingLinkRecord:
    return MeetingLinkRecord(
        id=row.id,
        token_sha256=row.token_sha256,
        dataset_id=row.dataset_id,
        table_name=row.table_name,
        thresholds=json.loads(row.thresholds),
        created_by=row.created_by,
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        revoked_by=row.revoked_by,
    )


def _check_aware(problems: ProblemList, param: str, value) -> None:
    if not isinstance(value, datetime) or value.tzinfo is None:
        problems.add("invalid_type", f"{param} must be an aware datetime (UTC), got {value!r}.", column=param)


class _MeetingsPart:
    """Read-only meeting links: a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- meeting links

    def create_meeting_link(
        self,
        *,
        token_sha256: str,
        dataset_id: int,
        table_name: str,
        thresholds: dict,
        created_by: str,
        expires_at: datetime,
        created_at: datetime | None = None,
        audit: Audit = None,
    ) -> MeetingLinkRecord:
        """Store a meeting link by its token's SHA-256 (lower-case hex); returns its record.

        ``audit``: an entry, or a callable of the new record, written in the same transaction.

        Raises
        ------
        evalcore.InputError
            A malformed hash, a blank table name or creator, thresholds that are not a JSON
            dict, or an expiry not after the creation time.
        NotFoundError
            The dataset does not exist.
        """
        created_at = created_at or _now()
        problems = ProblemList()
        if not isinstance(token_sha256, str) or not _SHA256_HEX.fullmatch(token_sha256):
            problems.add("invalid_value", "token_sha256 must be 64 lower-case hex digits (a SHA-256).", column="token_sha256")
        _check_text(problems, "table_name", table_name, required=True)
        _check_text(problems, "created_by", created_by, required=True)
        _check_json(problems, "thresholds", thresholds, want_dict=True)
        _check_aware(problems, "created_at", created_at)
        _check_aware(problems, "expires_at", expires_at)
        if not problems and expires_at <= created_at:
            problems.add(
                "invalid_value", f"expires_at ({expires_at}) must be after created_at ({created_at}).", column="expires_at"
            )
        problems.raise_if_any()
        with self._write() as session:
            self._get_dataset_row(session, dataset_id)
            row = _MeetingLink(
                token_sha256=token_sha256,
                dataset_id=dataset_id,
                table_name=table_name,
                thresholds=_dumps(thresholds),
                created_by=created_by,
                created_at=created_at,
                expires_at=expires_at,
            )
            session.add(row)
            session.flush()
            record = _meeting_record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def get_meeting_link(self, link_id: int) -> MeetingLinkRecord:
        """The meeting link with this id; ``NotFoundError`` (a ``KeyError``) if absent."""
        with self._reading() as session:
            row = session.get(_MeetingLink, link_id)
            if row is None:
                raise NotFoundError(f"No meeting link with id {link_id!r} in the store.")
            return _meeting_record(row)

    def list_meeting_links(self, *, created_by: str | None = None, active_at: datetime | None = None) -> list[MeetingLinkRecord]:
        """Meeting links, newest first; only those of ``created_by``, and only those open at ``active_at``, when given."""
        query = sa.select(_MeetingLink).order_by(_MeetingLink.id.desc())
        if created_by is not None:
            query = query.where(_MeetingLink.created_by == created_by)
        if active_at is not None:
            query = query.where(_MeetingLink.revoked_at.is_(None), _MeetingLink.expires_at > active_at)
        with self._reading() as session:
            return [_meeting_record(r) for r in session.scalars(query)]

    def use_meeting_link(self, token_sha256: str, *, now: datetime, audit: Audit = None) -> MeetingLinkRecord | None:
        """The link with this token hash if it opens at ``now`` (else None, and nothing written).

        ``audit`` (an entry, or a callable of the record) is written in the same transaction as the
        read, only when the link opens: every successful use is logged, a refused one is not.
        """
        with self._write() as session:
            row = session.scalars(sa.select(_MeetingLink).where(_MeetingLink.token_sha256 == token_sha256)).one_or_none()
            if row is None:
                return None
            record = _meeting_record(row)
            if not record.active(now):
                return None
            _add_audit(session, audit, record)
            session.commit()
        return record

    def revoke_meeting_link(
        self, link_id: int, *, revoked_by: str, now: datetime | None = None, audit: Audit = None
    ) -> MeetingLinkRecord:
        """Revoke a link (it never opens again); returns the revoked record.

        Raises
        ------
        NotFoundError
            No such link.
        StateError
            It was revoked already (nothing written).
        """
        problems = ProblemList()
        _check_text(problems, "revoked_by", revoked_by, required=True)
        problems.raise_if_any()
        with self._write() as session:
            row = session.get(_MeetingLink, link_id)
            if row is None:
                raise NotFoundError(f"No meeting link with id {link_id!r} in the store.")
            if row.revoked_at is not None:
                raise StateError(f"Meeting link #{link_id} was revoked already ({row.revoked_at:%Y-%m-%d %H:%M} UTC).")
            row.revoked_at = now or _now()
            row.revoked_by = revoked_by
            session.flush()
            record = _meeting_record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record
