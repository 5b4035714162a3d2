"""Value tables: drafts with optimistic locking, proposed versions, sign-offs, impact reports."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from board.store._common import (
    _amounts_named,
    _check_count,
    _check_json,
    _check_text,
    _dumps,
    _impact_record,
    _now,
    _version_record,
)
from board.store.audit import Audit, _add_audit
from board.store.errors import ConflictError, NotFoundError, StateError
from board.store.models import _ImpactReport, _Signoff, _ValueTable, _ValueTableVersion
from board.store.records import (
    APPROVED,
    DISPLAYS,
    DRAFT,
    PENDING,
    REJECTED,
    ImpactReportRecord,
    SignoffRecord,
    ValueTableVersionRecord,
)
from evalcore._errors import InputError, ProblemList

_NO_REASON = "reason must not be empty: write why the table changes (here, or with the saved draft)."


def content_hash(amounts: dict) -> str:
    """The SHA-256 (hex) of a version's amounts: its JSON with sorted keys, compact separators.

    What a signer saw and signs (``add_signoff(expected_hash=...)``): equal amounts give equal
    hashes whatever the key order they were saved in; any changed amount, confidence, unit or
    prevalence gives another hash.
    """
    text = json.dumps(amounts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _ValueTablesPart:
    """Value tables: drafts with optimistic locking, proposed versions, sign-offs, impact reports:
    a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- value tables

    def save_value_table_draft(
        self,
        name: str,
        amounts: dict,
        *,
        author: str = "",
        reason: str | None = None,
        expected_row_version: int | None = None,
        label: str | None = None,
        effective_date: date | None = None,
        audit: Audit = None,
    ) -> ValueTableVersionRecord:
        """Create or update the single open draft of the value table ``name``.

        Parameters
        ----------
        name : str
            The decision the table prices, e.g. ``"loan anti-fraud"``. The table is
            created if absent.
        amounts : dict
            The whole table (JSON values), replacing the stored one.
        author : str, default=""
            Who saves; replaces the stored author (the draft records its last editor).
        reason : str or None, default=None
            Why the table changes. None keeps the stored reason ("" for a new draft);
            a str (including "") replaces it.
        expected_row_version : int or None, default=None
            Optimistic lock. None: no check (last write wins). 0: the caller believes
            there is no open draft yet. n >= 1: the ``row_version`` the caller loaded.
            On a mismatch ``ConflictError`` is raised and nothing is written.
        label : str or None, default=None
            Version label. None keeps the stored label (``"draft"`` for a new draft).
        effective_date : datetime.date or None, default=None
            None keeps the stored date (none for a new draft).
        audit : entry or callable, optional
            Audit-log entry ``(username, action, target, detail)``, or a callable of the saved
            record returning one, written in the same transaction (see :mod:`board.store.audit`).

        Returns
        -------
        ValueTableVersionRecord
            The draft as stored, with ``row_version`` 1 when created, +1 per update.

        Raises
        ------
        evalcore.InputError
            Listing every invalid argument.
        ConflictError
            ``expected_row_version`` differs from the stored draft's; ``err.current``
            holds the stored draft (or None if there is none) and the message shows its
            amounts.
        """
        problems = ProblemList()
        _check_text(problems, "name", name, required=True)
        _check_json(problems, "amounts", amounts, want_dict=True)
        _check_text(problems, "author", author, required=False)
        if reason is not None:
            _check_text(problems, "reason", reason, required=False)
        if label is not None:
            _check_text(problems, "label", label, required=True)
        if effective_date is not None and (not isinstance(effective_date, date) or isinstance(effective_date, datetime)):
            problems.add(
                "invalid_type",
                f"effective_date must be a datetime.date, got {type(effective_date).__name__}.",
                column="effective_date",
            )
        if expected_row_version is not None:
            _check_count(problems, "expected_row_version", expected_row_version)
        problems.raise_if_any()

        now = _now()
        with self._write() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if table is None:
                table = _ValueTable(name=name, created_at=now)
                session.add(table)
                session.flush()
            draft = self._draft_row(session, table.id, for_update=True)
            stored = 0 if draft is None else draft.row_version
            if expected_row_version is not None and expected_row_version != stored:
                current = None if draft is None else _version_record(draft, table.name)
                raise ConflictError(
                    self._conflict_message(name, expected_row_version, current),
                    current=current,
                    expected_row_version=expected_row_version,
                )
            if draft is None:
                draft = _ValueTableVersion(
                    table_id=table.id,
                    label=label if label is not None else DRAFT,
                    status=DRAFT,
                    amounts=_dumps(amounts),
                    effective_date=effective_date,
                    reason=reason if reason is not None else "",
                    author=author,
                    created_at=now,
                    updated_at=now,
                    row_version=1,
                )
                session.add(draft)
                session.flush()
            else:
                # Compare-and-swap on row_version: the lock also holds where BEGIN IMMEDIATE
                # does not serialise writers (PostgreSQL).
                values: dict[str, Any] = {
                    "amounts": _dumps(amounts),
                    "author": author,
                    "updated_at": now,
                    "row_version": stored + 1,
                }
                if reason is not None:
                    values["reason"] = reason
                if label is not None:
                    values["label"] = label
                if effective_date is not None:
                    values["effective_date"] = effective_date
                result = session.execute(
                    sa.update(_ValueTableVersion)
                    .where(_ValueTableVersion.id == draft.id, _ValueTableVersion.row_version == stored)
                    .values(**values)
                    .execution_options(synchronize_session=False)
                )
                if result.rowcount != 1:
                    session.rollback()
                    current = self._fetch_draft_record(name)
                    raise ConflictError(
                        self._conflict_message(name, stored, current), current=current, expected_row_version=stored
                    )
                session.refresh(draft)
            record = _version_record(draft, table.name)
            _add_audit(session, audit, record)
            session.commit()
        return record

    @staticmethod
    def _conflict_message(name: str, expected: int, current: ValueTableVersionRecord | None) -> str:
        if current is None:
            return (
                f"Value table {name!r}: you edited draft row_version {expected}, but there is no open draft any "
                "more (it may have been proposed or approved). Nothing was saved; reload the table."
            )
        by = f" by {current.author!r}" if current.author else ""
        return (
            f"Value table {name!r}: the draft was changed{by} at {current.updated_at.isoformat()} "
            f"(stored row_version {current.row_version}, you expected {expected}). Nothing was saved. "
            f"Stored amounts: {_dumps(current.amounts)}. Reload, re-apply your edit, and save again."
        )

    @staticmethod
    def _draft_row(session: Session, table_id: int, *, for_update: bool = False) -> _ValueTableVersion | None:
        query = sa.select(_ValueTableVersion).where(_ValueTableVersion.table_id == table_id, _ValueTableVersion.status == DRAFT)
        if for_update:  # PostgreSQL: wait for a concurrent writer and read its committed row (no-op on SQLite)
            query = query.with_for_update()
        return session.scalars(query).one_or_none()

    def _fetch_draft_record(self, name: str) -> ValueTableVersionRecord | None:
        with self._reading() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if table is None:
                return None
            draft = self._draft_row(session, table.id)
            return None if draft is None else _version_record(draft, table.name)

    def get_value_table_draft(self, name: str) -> ValueTableVersionRecord | None:
        """The open draft of value table ``name``; None if the table or its draft is absent."""
        return self._fetch_draft_record(name)

    def get_value_table_version(self, version_id: int) -> ValueTableVersionRecord:
        """Any version by id (e.g. an evaluation's ``value_table_version_id``); ``NotFoundError`` if absent."""
        with self._reading() as session:
            row = session.get(_ValueTableVersion, version_id)
            if row is None:
                raise NotFoundError(f"No value-table version with id {version_id!r} in the store ({self._safe_url()}).")
            table = session.get_one(_ValueTable, row.table_id)
            return _version_record(row, table.name)

    def get_value_table_display(self, name: str) -> str | None:
        """How the boards of value table ``name`` are shown: "value", "loss", or None (not set)."""
        with self._reading() as session:
            return session.scalars(sa.select(_ValueTable.display).where(_ValueTable.name == name)).one_or_none()

    def set_value_table_display(self, name: str, display: str, *, audit: Audit = None) -> None:
        """Show the boards of value table ``name`` as "value" or "loss" (with ``audit``, one transaction)."""
        if display not in DISPLAYS:
            raise InputError(f"display must be one of {', '.join(DISPLAYS)}, got {display!r}.")
        with self._write() as session:
            row = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if row is None:
                raise NotFoundError(f"No value table named {name!r}: save it first.")
            row.display = display
            session.flush()
            _add_audit(session, audit)
            session.commit()

    def list_value_tables(self) -> list[str]:
        """Names of all value tables, sorted."""
        with self._reading() as session:
            return list(session.scalars(sa.select(_ValueTable.name).order_by(_ValueTable.name)))

    # ----------------------------------------------------------------- versions and sign-off

    def list_value_table_versions(self, name: str) -> list[ValueTableVersionRecord]:
        """Every version of value table ``name`` (drafts included), newest first; [] if absent."""
        with self._reading() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if table is None:
                return []
            rows = session.scalars(
                sa.select(_ValueTableVersion)
                .where(_ValueTableVersion.table_id == table.id)
                .order_by(_ValueTableVersion.id.desc())
            )
            return [_version_record(r, table.name) for r in rows]

    def latest_approved_version(self, name: str, *, before_id: int | None = None) -> ValueTableVersionRecord | None:
        """The most recently approved version of ``name`` (optionally: approved before version ``before_id``)."""
        for rec in sorted(
            (v for v in self.list_value_table_versions(name) if v.status == APPROVED),
            key=lambda v: (v.decided_at, v.id),
            reverse=True,
        ):
            if before_id is None or rec.id != before_id:
                return rec
        return None

    def _version_row(self, session: Session, version_id: int) -> tuple[_ValueTableVersion, _ValueTable]:
        row = session.get(_ValueTableVersion, version_id)
        if row is None:
            raise NotFoundError(f"No value-table version with id {version_id!r} in the store.")
        return row, session.get_one(_ValueTable, row.table_id)

    def submit_value_table_draft(
        self,
        name: str,
        *,
        label: str,
        effective_date: date,
        reason: str | None = None,
        author: str,
        expected_row_version: int,
        audit: Audit = None,
    ) -> ValueTableVersionRecord:
        """Propose the open draft of ``name`` for sign-off: it becomes ``pending`` under ``label``.

        ``reason``: None or blank carries the draft's own reason (typed when it was saved) into the
        proposal; a non-blank str replaces it. ``audit``: an entry, or a callable of the proposed
        record, written in the same transaction.

        Raises
        ------
        evalcore.InputError
            Blank label, no reason (neither given nor kept with the draft), no effective date, or
            the label is used by another version.
        ConflictError
            The draft changed since ``expected_row_version`` (or there is no open draft).
        """
        problems = ProblemList()
        _check_text(problems, "label", label, required=True)
        given = isinstance(reason, str) and bool(reason.strip())
        if reason is not None:
            _check_text(problems, "reason", reason, required=False)
        if not given and isinstance(reason, str | None):
            kept = self._fetch_draft_record(name)  # read again, locked, in the transaction
            if kept is None or not kept.reason.strip():
                problems.add("empty", _NO_REASON, "Give reason a non-blank value.", column="reason")
        if isinstance(label, str) and label.strip().lower() == DRAFT:
            problems.add("invalid_value", "label must name the version, e.g. 'v2026.Q4', not 'draft'.", column="label")
        if not isinstance(effective_date, date) or isinstance(effective_date, datetime):
            problems.add("invalid_type", "effective_date must be a datetime.date.", column="effective_date")
        problems.raise_if_any()
        now = _now()
        with self._write() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            draft = None if table is None else self._draft_row(session, table.id, for_update=True)
            stored = 0 if draft is None else draft.row_version
            if draft is None or stored != expected_row_version:
                current = None if draft is None else _version_record(draft, table.name)
                raise ConflictError(
                    self._conflict_message(name, expected_row_version, current),
                    current=current,
                    expected_row_version=expected_row_version,
                )
            if not given:
                reason = draft.reason
                if not reason.strip():
                    raise InputError(_NO_REASON)
            taken = session.scalar(
                sa.select(_ValueTableVersion.id).where(
                    _ValueTableVersion.table_id == table.id, _ValueTableVersion.label == label, _ValueTableVersion.id != draft.id
                )
            )
            if taken is not None:
                raise InputError(f"Value table {name!r} already has a version labelled {label!r}; choose another label.")
            result = session.execute(
                sa.update(_ValueTableVersion)
                .where(
                    _ValueTableVersion.id == draft.id,
                    _ValueTableVersion.row_version == stored,
                    _ValueTableVersion.status == DRAFT,
                )
                .values(
                    status=PENDING,
                    label=label,
                    effective_date=effective_date,
                    reason=reason,
                    author=author,
                    submitted_at=now,
                    updated_at=now,
                    decided_at=None,
                    decision_comment="",
                    row_version=stored + 1,
                )
                .execution_options(synchronize_session=False)
            )
            if result.rowcount != 1:
                session.rollback()
                current = self._fetch_draft_record(name)
                raise ConflictError(self._conflict_message(name, stored, current), current=current, expected_row_version=stored)
            session.execute(sa.delete(_Signoff).where(_Signoff.version_id == draft.id))  # a fresh round
            session.refresh(draft)
            record = _version_record(draft, table.name)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def add_signoff(
        self,
        version_id: int,
        *,
        role: str,
        username: str,
        comment: str = "",
        required_roles: tuple[str, ...],
        expected_hash: str | None = None,
        proposer_may_sign: bool = False,
        audit: Audit = None,
    ) -> tuple[ValueTableVersionRecord, list[SignoffRecord]]:
        """Sign a pending version for ``role``; the signature completing ``required_roles`` approves it.

        One transaction: the signature, the approval and the audit entries (``audit``: entries, or a
        callable of the version after signing -- approved or not -- returning them) land together
        or not at all. The checks below read the version row locked, inside that transaction.

        Parameters
        ----------
        expected_hash : str or None, default=None
            :func:`content_hash` of the amounts the signer was shown. When it differs from the
            stored amounts' hash (the version was rejected, changed and proposed again since the
            signer's page was drawn) nothing is written. None: no content check (callers that show
            the amounts to a person pass it; the Value table page does).
        proposer_may_sign : bool, default=False
            False (the four-eyes rule): the account that proposed the version (its ``author``)
            cannot sign it.

        Raises
        ------
        StateError
            The version is not pending, ``role`` has already signed it, ``username`` proposed it
            (unless ``proposer_may_sign``), or its amounts are not those of ``expected_hash``.
        NotFoundError
            No such version.
        """
        now = _now()
        with self._write() as session:
            row = session.scalars(
                sa.select(_ValueTableVersion).where(_ValueTableVersion.id == version_id).with_for_update()
            ).one_or_none()
            if row is None:
                raise NotFoundError(f"No value-table version with id {version_id!r} in the store.")
            table = session.get_one(_ValueTable, row.table_id)
            if row.status != PENDING:
                raise StateError(
                    f"Version {row.label!r} of {table.name!r} is {row.status}, not pending; only a pending version can be signed."
                )
            if expected_hash is not None and content_hash(_amounts_named(row.amounts, table.name)) != expected_hash:
                raise StateError(
                    f"Version {row.label!r} of {table.name!r} changed after your page showed it (it was proposed "
                    f"again at {row.submitted_at.isoformat() if row.submitted_at else 'an unknown time'} by "
                    f"{row.author!r}). Nothing was signed: reload the page, review the amounts now proposed and sign again."
                )
            if not proposer_may_sign and row.author == username:
                raise StateError(
                    f"{username!r} proposed version {row.label!r} of {table.name!r} and cannot also sign it "
                    "(four-eyes rule): another account of the role must sign."
                )
            exists = session.scalar(sa.select(_Signoff.id).where(_Signoff.version_id == version_id, _Signoff.role == role))
            if exists is not None:
                raise StateError(f"The {role} role has already signed version {row.label!r} of {table.name!r}.")
            session.add(_Signoff(version_id=version_id, role=role, username=username, signed_at=now, comment=comment))
            session.flush()
            signed = set(session.scalars(sa.select(_Signoff.role).where(_Signoff.version_id == version_id)))
            if set(required_roles) <= signed:
                session.execute(
                    sa.update(_ValueTableVersion)
                    .where(_ValueTableVersion.id == version_id, _ValueTableVersion.status == PENDING)
                    .values(status=APPROVED, decided_at=now, updated_at=now, row_version=row.row_version + 1)
                    .execution_options(synchronize_session=False)
                )
                session.refresh(row)
            record = _version_record(row, table.name)
            signoffs = self._signoffs(session, version_id)
            _add_audit(session, audit, record)
            session.commit()
        return record, signoffs

    def reject_version(self, version_id: int, *, comment: str, audit: Audit = None) -> ValueTableVersionRecord:
        """Reject a pending version with a (non-blank) comment; ``StateError`` unless pending.
        ``audit``: an entry, or a callable of the rejected record, written in the same transaction."""
        problems = ProblemList()
        _check_text(problems, "comment", comment, required=True)
        problems.raise_if_any()
        now = _now()
        with self._write() as session:
            row, table = self._version_row(session, version_id)
            if row.status != PENDING:
                raise StateError(
                    f"Version {row.label!r} of {table.name!r} is {row.status}; only a pending version can be rejected."
                )
            row.status, row.decided_at, row.decision_comment = REJECTED, now, comment
            row.updated_at, row.row_version = now, row.row_version + 1
            session.flush()
            record = _version_record(row, table.name)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def reopen_version(self, version_id: int, *, author: str, audit: Audit = None) -> ValueTableVersionRecord:
        """Turn a rejected version back into the open draft (to fix and re-submit it).

        ``audit``: an entry, or a callable of the reopened record, written in the same transaction.

        Raises
        ------
        StateError
            Not rejected, or the table already has another open draft.
        """
        now = _now()
        with self._write() as session:
            row, table = self._version_row(session, version_id)
            if row.status != REJECTED:
                raise StateError(
                    f"Version {row.label!r} of {table.name!r} is {row.status}; only a rejected version can be reopened."
                )
            if self._draft_row(session, table.id) is not None:
                raise StateError(f"Value table {table.name!r} already has an open draft; save or discard it first.")
            row.status, row.author, row.updated_at, row.row_version = DRAFT, author, now, row.row_version + 1
            session.execute(sa.delete(_Signoff).where(_Signoff.version_id == version_id))
            session.flush()
            record = _version_record(row, table.name)
            _add_audit(session, audit, record)
            session.commit()
        return record

    @staticmethod
    def _signoffs(session: Session, version_id: int) -> list[SignoffRecord]:
        rows = session.scalars(sa.select(_Signoff).where(_Signoff.version_id == version_id).order_by(_Signoff.id))
        return [
            SignoffRecord(
                id=r.id, version_id=r.version_id, role=r.role, username=r.username, signed_at=r.signed_at, comment=r.comment
            )
            for r in rows
        ]

    def list_signoffs(self, version_id: int) -> list[SignoffRecord]:
        """The signatures of a version, in signing order."""
        with self._reading() as session:
            return self._signoffs(session, version_id)

    def save_impact_report(
        self, *, table_id: int, from_version_id: int | None, to_version_id: int, report: dict, audit: Audit = None
    ) -> ImpactReportRecord:
        """Store an impact report (JSON dict); ``audit`` (an entry, or a callable of the record) in
        the same transaction. Reports are append-only (the database refuses changes)."""
        problems = ProblemList()
        _check_json(problems, "report", report, want_dict=True)
        problems.raise_if_any()
        with self._write() as session:
            row = _ImpactReport(
                table_id=table_id,
                from_version_id=from_version_id,
                to_version_id=to_version_id,
                created_at=_now(),
                report=_dumps(report),
            )
            session.add(row)
            session.flush()
            record = _impact_record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def list_impact_reports(self, name: str) -> list[ImpactReportRecord]:
        """Impact reports of value table ``name``, newest first."""
        with self._reading() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if table is None:
                return []
            rows = session.scalars(
                sa.select(_ImpactReport).where(_ImpactReport.table_id == table.id).order_by(_ImpactReport.id.desc())
            )
            return [_impact_record(r) for r in rows]

    # ----------------------------------------------------------------- several tables: create, archive

    def create_value_table(
        self, name: str, amounts: dict, *, author: str = "", reason: str = "", audit: Audit = None
    ) -> ValueTableVersionRecord:
        """Create value table ``name`` with ``amounts`` as its first (open) draft — never an
        approved version; ``audit`` (an entry, or a callable of the draft) in the same transaction.

        Raises
        ------
        evalcore.InputError
            Blank name, amounts not a JSON dict.
        board.store.StateError
            A table named ``name`` exists already (archived ones included: names are kept for history).
        """
        problems = ProblemList()
        _check_text(problems, "name", name, required=True)
        _check_json(problems, "amounts", amounts, want_dict=True)
        _check_text(problems, "author", author, required=False)
        _check_text(problems, "reason", reason, required=False)
        problems.raise_if_any()
        now = _now()
        with self._write() as session:
            if session.scalar(sa.select(_ValueTable.id).where(_ValueTable.name == name)) is not None:
                raise StateError(f"A value table named {name!r} exists already; choose another name.")
            table = _ValueTable(name=name, created_at=now)
            session.add(table)
            try:
                session.flush()
            except sa.exc.IntegrityError:  # created at the same moment by someone else (PostgreSQL)
                session.rollback()
                raise StateError(f"A value table named {name!r} exists already; choose another name.") from None
            draft = _ValueTableVersion(
                table_id=table.id,
                label=DRAFT,
                status=DRAFT,
                amounts=_dumps(amounts),
                effective_date=None,
                reason=reason,
                author=author,
                created_at=now,
                updated_at=now,
                row_version=1,
            )
            session.add(draft)
            session.flush()
            record = _version_record(draft, name)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def rename_value_table(self, name: str, new_name: str, *, bind_unbound: bool = False, audit: Audit = None) -> ValueTableInfo:
        """Rename value table ``name`` to ``new_name`` in one transaction, with everything keyed by
        the name: the datasets bound to it, the meeting links showing it, and -- with
        ``bind_unbound`` (the default table being renamed) -- the datasets never bound, which
        were priced with it by default. Versions, sign-offs and impact reports follow by id; an
        approved version's stored amounts keep the name they were signed under, and are read
        under the current name. Recorded decisions keep the name they were taken under.
        ``audit`` in the same transaction.

        Raises
        ------
        evalcore.InputError
            A blank new name.
        NotFoundError
            No table named ``name``.
        StateError
            A table named ``new_name`` exists already (archived ones included).
        """
        from board.store.models import _Dataset, _MeetingLink

        problems = ProblemList()
        _check_text(problems, "new_name", new_name, required=True)
        problems.raise_if_any()
        new_name = new_name.strip()
        taken = f"A value table named {new_name!r} exists already; choose another name."
        with self._write() as session:
            row = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name).with_for_update()).one_or_none()
            if row is None:
                raise NotFoundError(f"No value table named {name!r}.")
            if new_name == name or session.scalar(sa.select(_ValueTable.id).where(_ValueTable.name == new_name)) is not None:
                raise StateError(taken)
            row.name = new_name
            try:
                session.flush()
            except sa.exc.IntegrityError:  # renamed to the same name by someone else at the same moment
                session.rollback()
                raise StateError(taken) from None
            bound = _Dataset.value_table == name
            if bind_unbound:
                bound = sa.or_(bound, _Dataset.value_table.is_(None))
            session.execute(sa.update(_Dataset).where(bound).values(value_table=new_name))
            session.execute(sa.update(_MeetingLink).where(_MeetingLink.table_name == name).values(table_name=new_name))
            info = ValueTableInfo(name=row.name, created_at=row.created_at, archived_at=row.archived_at, display=row.display)
            _add_audit(session, audit, info)
            session.commit()
        return info

    def list_value_table_infos(self, *, include_archived: bool = True) -> list[ValueTableInfo]:
        """Every value table with when it was created and archived, sorted by name."""
        query = sa.select(_ValueTable).order_by(_ValueTable.name)
        if not include_archived:
            query = query.where(_ValueTable.archived_at.is_(None))
        with self._reading() as session:
            return [
                ValueTableInfo(name=r.name, created_at=r.created_at, archived_at=r.archived_at, display=r.display)
                for r in session.scalars(query)
            ]

    def set_value_table_archived(self, name: str, archived: bool = True, *, audit: Audit = None) -> ValueTableInfo:
        """Archive value table ``name`` (hidden from selectors; its versions, sign-offs and the
        boards priced with it are kept) or, with ``archived=False``, restore it; ``audit`` in the
        same transaction. ``NotFoundError`` if absent."""
        with self._write() as session:
            row = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if row is None:
                raise NotFoundError(f"No value table named {name!r}.")
            row.archived_at = (row.archived_at or _now()) if archived else None
            session.flush()
            info = ValueTableInfo(name=row.name, created_at=row.created_at, archived_at=row.archived_at, display=row.display)
            _add_audit(session, audit, info)
            session.commit()
        return info


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueTableInfo:
    """One value table (not a version): its name, when it was created, and when it was archived
    (None = in use: offered by the selectors)."""

    name: str
    created_at: datetime
    archived_at: datetime | None
    display: str | None

    @property
    def archived(self) -> bool:
        return self.archived_at is not None
