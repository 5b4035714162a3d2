"""Frozen records the store returns (never live ORM objects), and the version statuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

SQLITE_BUSY_TIMEOUT_MS = 30_000
DRAFT = "draft"
PENDING = "pending"
APPROVED = "approved"
REJECTED = "rejected"


# --------------------------------------------------------------------------- records


def _iso(value: datetime | date | None) -> str | None:
    return None if value is None else value.isoformat()


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DatasetRecord:
    """One stored dataset.

    Attributes
    ----------
    id : int
        Never reused, even after a delete.
    name : str
        Display name.
    filename : str
        The original file name as uploaded (metadata only, never used as a path).
    sha256 : str
        Hex SHA-256 of the file's bytes; unique in the store.
    size_bytes, n_rows : int
        File size and number of data rows.
    uploader : str
        Who first uploaded these bytes ("" when unknown).
    created_at : datetime
        When these bytes were first stored (timezone-aware, UTC).
    mapping, report : dict
        Column mapping and validation report, as last accepted. For an aggregate
        dataset the mapping is the query (label, scores, segments, …).
    kind : {"upload", "aggregate"}
        "upload": the stored file is the uploaded table. "aggregate": registered by
        path; the stored file is the serialized aggregate (``board.store.aggregate_io``).
    source_path : str or None
        The path (file, glob or folder) an aggregate was read from; None for uploads.
    options : dict or None
        The aggregation options of an aggregate (resolution, scheme, thresholds, …).
    """

    id: int
    name: str
    filename: str
    sha256: str
    size_bytes: int
    n_rows: int
    uploader: str
    created_at: datetime
    mapping: dict
    report: dict
    kind: str = "upload"
    source_path: str | None = None
    options: dict | None = None

    @property
    def is_aggregate(self) -> bool:
        return self.kind == "aggregate"

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "source_path": self.source_path,
            "options": self.options,
            "id": self.id,
            "name": self.name,
            "filename": self.filename,
            "sha256": self.sha256,
            "size_bytes": self.size_bytes,
            "n_rows": self.n_rows,
            "uploader": self.uploader,
            "created_at": _iso(self.created_at),
            "mapping": self.mapping,
            "report": self.report,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ValueTableVersionRecord:
    """One version (so far: the open draft) of a named value table.

    Attributes
    ----------
    id : int
        Version id (what an evaluation records as ``value_table_version_id``).
    table_id : int
    table_name : str
        The decision the table prices, e.g. ``"loan anti-fraud"``.
    label : str
        ``"draft"`` or a version label such as ``"v2026.Q4"``.
    status : str
        ``"draft"`` -> ``"pending"`` (proposed, collecting sign-offs) -> ``"approved"``
        (immutable, enforced by the database) or ``"rejected"`` (may be reopened as a draft).
    amounts : dict
        The whole table as the caller gave it (amounts, confidence, prevalence, unit ...).
    effective_date : date or None
    reason, author : str
        The written reason for the change, and who saved last.
    created_at, updated_at : datetime
        Timezone-aware, UTC.
    row_version : int
        Starts at 1, +1 on every save. Pass it back as ``expected_row_version``.
    submitted_at, decided_at : datetime or None
        When it was proposed for sign-off, and when it was approved or rejected.
    decision_comment : str
        The comment of a rejection ("" otherwise).
    """

    id: int
    table_id: int
    table_name: str
    label: str
    status: str
    amounts: dict
    effective_date: date | None
    reason: str
    author: str
    created_at: datetime
    updated_at: datetime
    row_version: int
    submitted_at: datetime | None = None
    decided_at: datetime | None = None
    decision_comment: str = ""

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "table_id": self.table_id,
            "table_name": self.table_name,
            "label": self.label,
            "status": self.status,
            "amounts": self.amounts,
            "effective_date": _iso(self.effective_date),
            "reason": self.reason,
            "author": self.author,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "row_version": self.row_version,
            "submitted_at": _iso(self.submitted_at),
            "decided_at": _iso(self.decided_at),
            "decision_comment": self.decision_comment,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class EvaluationRecord:
    """One stored evaluation (a board snapshot).

    Attributes
    ----------
    id, dataset_id : int
    value_table_version_id : int or None
    models, config, result : Any
        JSON values as given (``result`` is typically ``BoardResult.to_dict()``).
    created_at : datetime
        Timezone-aware, UTC.
    """

    id: int
    dataset_id: int
    value_table_version_id: int | None
    models: Any
    config: Any
    result: Any
    created_at: datetime

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "dataset_id": self.dataset_id,
            "value_table_version_id": self.value_table_version_id,
            "models": self.models,
            "config": self.config,
            "result": self.result,
            "created_at": _iso(self.created_at),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DatasetSettingsRecord:
    """Settings saved with a dataset under one key (e.g. ``"drift"``).

    Attributes
    ----------
    dataset_id : int
    key : str
    value : dict
        The settings as the caller saved them (JSON values).
    updated_at : datetime
        Timezone-aware, UTC.
    """

    dataset_id: int
    key: str
    value: dict
    updated_at: datetime

    def to_dict(self) -> dict:
        return {"dataset_id": self.dataset_id, "key": self.key, "value": self.value, "updated_at": _iso(self.updated_at)}


LANGUAGES = ("en", "zh_CN")  # the languages a user may choose (board.words.i18n.LOCALES)
DISPLAYS = ("value", "loss")  # how amounts are shown: expected value (gains positive) or expected loss


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class UserRecord:
    """One account. ``password_hash`` is a bcrypt hash, never the password."""

    id: int
    username: str
    password_hash: str = field(repr=False)
    role: str
    active: bool
    created_at: datetime
    password_changed_at: datetime
    display: str | None = None  # "value" | "loss" over every value table's setting; None: follow the table
    language: str | None = None  # "en" | "zh_CN"; None: the deployment's default (migration 14)

    def to_dict(self) -> dict:  # the hash is deliberately left out
        return {
            "id": self.id,
            "username": self.username,
            "role": self.role,
            "active": self.active,
            "created_at": _iso(self.created_at),
            "password_changed_at": _iso(self.password_changed_at),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class LoginThrottleRecord:
    """Failed logins of one username since its last successful login."""

    username: str
    failures: int
    last_failure_at: datetime
    locked_until: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class LoginAttemptRecord:
    """The answer of :meth:`board.store.Store.reserve_login_attempt`.

    Attributes
    ----------
    allowed : bool
        True: the attempt was counted as a failure (until a success undoes it) and the password
        may be checked. False: a lock-out is running; nothing was counted.
    locked_by : {"username", "client"} or None
        What is locked out when not allowed.
    retry_after : datetime or None
        When not allowed: the end of the lock-out.
    failures : int
        The username's failure count, this attempt included when allowed.
    locked_until : datetime or None
        When allowed: the lock-out this attempt starts if it fails (None: none).
    """

    allowed: bool
    locked_by: str | None = None
    retry_after: datetime | None = None
    failures: int = 0
    locked_until: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SignoffRecord:
    """One role's signature on a pending value-table version."""

    id: int
    version_id: int
    role: str
    username: str
    signed_at: datetime
    comment: str

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "version_id": self.version_id,
            "role": self.role,
            "username": self.username,
            "signed_at": _iso(self.signed_at),
            "comment": self.comment,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ImpactReportRecord:
    """A stored impact report (JSON) of approving ``to_version_id`` over ``from_version_id``."""

    id: int
    table_id: int
    from_version_id: int | None
    to_version_id: int
    created_at: datetime
    report: dict

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "table_id": self.table_id,
            "from_version_id": self.from_version_id,
            "to_version_id": self.to_version_id,
            "created_at": _iso(self.created_at),
            "report": self.report,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class AuditRecord:
    """One audit-log entry: who did what, when."""

    id: int
    at: datetime
    username: str
    action: str
    target: str
    detail: dict

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "at": _iso(self.at),
            "username": self.username,
            "action": self.action,
            "target": self.target,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MeetingLinkRecord:
    """A read-only meeting link: one board (dataset, value table, thresholds) in present mode.

    Attributes
    ----------
    id : int
        Never reused; the link is shown as ``meeting link #<id>``.
    token_sha256 : str
        Hex SHA-256 of the link's token (the token itself is never stored).
    dataset_id : int
    table_name : str
        The value table the board prices with.
    thresholds : dict
        Model -> deployed threshold, as the creator saw the board.
    created_by : str
    created_at, expires_at : datetime
        Timezone-aware, UTC. The link opens while ``now < expires_at``.
    revoked_at : datetime or None
    revoked_by : str or None
    """

    id: int
    token_sha256: str = field(repr=False)
    dataset_id: int
    table_name: str
    thresholds: dict
    created_by: str
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None = None
    revoked_by: str | None = None

    def active(self, now: datetime) -> bool:
        """Whether the link opens at ``now`` (not revoked, not expired)."""
        return self.revoked_at is None and now < self.expires_at

    def to_dict(self) -> dict:  # the token's hash is deliberately left out
        return {
            "id": self.id,
            "dataset_id": self.dataset_id,
            "table_name": self.table_name,
            "thresholds": self.thresholds,
            "created_by": self.created_by,
            "created_at": _iso(self.created_at),
            "expires_at": _iso(self.expires_at),
            "revoked_at": _iso(self.revoked_at),
            "revoked_by": self.revoked_by,
        }
