"""The append-only audit log.

Store methods that change something take an optional ``audit`` argument and write the entry in
the *same transaction* as the change, so a crash (or a failing audit insert) leaves either both or
neither. ``audit`` is an entry ``(username, action, target, detail)`` (target and detail optional),
or a callable that receives what the method returns and gives one entry or a list of entries --
for details only known after the write (a new id, whether a signature approved the version).
The database refuses to change or delete entries (migration 6).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Union

import sqlalchemy as sa
from sqlalchemy.orm import Session

from board.store._common import _audit_record, _check_json, _check_text, _dumps, _now
from board.store.models import _Audit
from board.store.records import AuditRecord
from evalcore._errors import ProblemList

__all__ = ["Audit", "AuditEntry"]

#: ``(username, action, target="", detail=None)``
AuditEntry = tuple
#: What the ``audit`` argument of a store method accepts.
Audit = Union[AuditEntry, Callable[[Any], Union[AuditEntry, Sequence[AuditEntry]]], None]

_NAME_CHARS = 100  # audit_log.username is VARCHAR(100): a longer name tried at the login is cut, not refused


def _entries(audit: Audit, result: Any = None) -> list[AuditEntry]:
    if audit is None:
        return []
    value = audit(result) if callable(audit) else audit
    if value is None:
        return []
    if isinstance(value, tuple):
        return [value]
    return list(value)


def _audit_row(entry: AuditEntry) -> _Audit:
    """Check one entry and build its row (``InputError`` naming what is wrong)."""
    if not isinstance(entry, tuple) or not 2 <= len(entry) <= 4:
        raise TypeError(f"an audit entry is (username, action, target, detail), got {entry!r}")
    username, action, target, detail = (*entry, "", None)[:4]
    problems = ProblemList()
    _check_text(problems, "username", username, required=False)
    _check_text(problems, "action", action, required=True)
    _check_text(problems, "target", target, required=False)
    _check_json(problems, "detail", detail or {}, want_dict=True)
    problems.raise_if_any()
    return _Audit(at=_now(), username=username[:_NAME_CHARS], action=action, target=target, detail=_dumps(detail or {}))


def _add_audit(session: Session, audit: Audit, result: Any = None) -> list[AuditRecord]:
    """Write the entries of ``audit`` in ``session``'s transaction (before its commit)."""
    rows = [_audit_row(e) for e in _entries(audit, result)]
    if not rows:
        return []
    session.add_all(rows)
    session.flush()
    return [_audit_record(r) for r in rows]


class _AuditPart:
    """The append-only audit log: a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- audit log

    def append_audit(self, username: str, action: str, target: str = "", detail: dict | None = None) -> AuditRecord:
        """Append one entry (who, what, when) to the audit log, in a transaction of its own.

        For an entry that belongs to a change, pass ``audit=`` to the store method making the
        change instead: both are then written in one transaction.
        """
        row = _audit_row((username, action, target, detail))
        with self._write() as session:
            session.add(row)
            session.flush()
            record = _audit_record(row)
            session.commit()
        return record

    def list_audit(self, *, limit: int = 1000, action: str | None = None) -> list[AuditRecord]:
        """Audit entries, newest first (at most ``limit``; only ``action`` when given)."""
        query = sa.select(_Audit).order_by(_Audit.id.desc()).limit(limit)
        if action is not None:
            query = query.where(_Audit.action == action)
        with self._reading() as session:
            return [_audit_record(r) for r in session.scalars(query)]
