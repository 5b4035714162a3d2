"""The append-only audit log."""

from __future__ import annotations

import sqlalchemy as sa

from board.store._common import _audit_record, _check_json, _check_text, _dumps, _now
from board.store.models import _Audit
from board.store.records import AuditRecord
from evalcore._errors import ProblemList


class _AuditPart:
    """The append-only audit log. (a part of :class:`board.store.Store`)."""

    # ----------------------------------------------------------------- audit log

    def append_audit(self, username: str, action: str, target: str = "", detail: dict | None = None) -> AuditRecord:
        """Append one entry (who, what, when) to the audit log. Entries are never changed."""
        problems = ProblemList()
        _check_text(problems, "action", action, required=True)
        _check_json(problems, "detail", detail or {}, want_dict=True)
        problems.raise_if_any()
        with self._write() as session:
            row = _Audit(at=_now(), username=username, action=action, target=target, detail=_dumps(detail or {}))
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
