"""Persistence for evalboard: datasets, value-table drafts and evaluations.

One :class:`Store` wraps one database (SQLAlchemy 2; a SQLite file under the data
directory by default, ``EVALBOARD_DB_URL`` for anything else, e.g. PostgreSQL) and one
upload directory where each uploaded file is kept once, content-addressed by its
SHA-256: ``<data_dir>/uploads/<sha256[:2]>/<sha256>``.

Every public method is one transaction in a fresh session, so one ``Store`` can be
shared by the threads Streamlit runs scripts in. Methods return frozen record
dataclasses, never live ORM objects. JSON payloads (mappings, reports, amounts,
results) are stored as text, ``json.dumps`` (insertion order kept: the first model is A, the current one), for portability.

Files and rows move together: an upload writes its file to a temporary file in the
target directory, fsyncs it and renames it into place *inside* the database
transaction; if anything fails before the commit succeeds, the file is removed again
-- but only if this call created it, so the file of an earlier identical upload stays.
A delete first renames the file aside and only unlinks it once the row is gone.

Examples
--------
>>> store = Store(data_dir=tmp)                                   # doctest: +SKIP
>>> rec = store.save_dataset(name="Oct", filename="oct.csv", raw=b"y,s\\n1,0.9\\n",
...                          mapping={"label": "y"}, report={}, n_rows=1)  # doctest: +SKIP
>>> store.load_bytes(rec.id)                                      # doctest: +SKIP
b'y,s\\n1,0.9\\n'
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from board.store import migrations
from evalcore._errors import InputError, ProblemList

__all__ = [
    "ConflictError",
    "CorruptFileError",
    "DatasetInUseError",
    "DatasetRecord",
    "DatasetSettingsRecord",
    "EvaluationRecord",
    "MissingFileError",
    "NotFoundError",
    "Store",
    "StoreError",
    "ValueTableVersionRecord",
    "UserRecord",
    "LoginThrottleRecord",
    "SignoffRecord",
    "ImpactReportRecord",
    "AuditRecord",
    "StateError",
    "APPROVED",
    "PENDING",
    "REJECTED",
    "default_data_dir",
    "default_url",
]

SQLITE_BUSY_TIMEOUT_MS = 30_000
DRAFT = "draft"
PENDING = "pending"
APPROVED = "approved"
REJECTED = "rejected"


# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Base class of the store's own errors (invalid input raises ``InputError``)."""


class NotFoundError(StoreError, KeyError):
    """No row with that id or name. A ``KeyError``, with a readable ``str()``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ConflictError(StoreError):
    """Someone saved the draft since the caller loaded it; nothing was written.

    Attributes
    ----------
    current : ValueTableVersionRecord or None
        The draft as stored now (its ``amounts``, ``author``, ``row_version``), or None
        when there is no open draft any more.
    expected_row_version : int
        What the caller believed the stored ``row_version`` was.
    """

    def __init__(self, message: str, *, current: ValueTableVersionRecord | None, expected_row_version: int):
        super().__init__(message)
        self.current = current
        self.expected_row_version = expected_row_version


class StateError(StoreError):
    """The value-table version is not in the status this step needs (e.g. signing a draft)."""


class MissingFileError(StoreError, FileNotFoundError):
    """The dataset's row exists but its uploaded file is gone from the upload directory."""


class CorruptFileError(StoreError):
    """The uploaded file no longer has the SHA-256 it was stored under."""


class DatasetInUseError(StoreError):
    """The dataset has stored evaluations; delete refuses unless asked to remove them too."""


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

    def to_dict(self) -> dict:  # the hash is deliberately left out
        return {"id": self.id, "username": self.username, "role": self.role, "active": self.active,
                "created_at": _iso(self.created_at), "password_changed_at": _iso(self.password_changed_at)}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class LoginThrottleRecord:
    """Failed logins of one username since its last successful login."""

    username: str
    failures: int
    last_failure_at: datetime
    locked_until: datetime | None


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
        return {"id": self.id, "version_id": self.version_id, "role": self.role, "username": self.username,
                "signed_at": _iso(self.signed_at), "comment": self.comment}


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
        return {"id": self.id, "table_id": self.table_id, "from_version_id": self.from_version_id,
                "to_version_id": self.to_version_id, "created_at": _iso(self.created_at), "report": self.report}


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
        return {"id": self.id, "at": _iso(self.at), "username": self.username, "action": self.action,
                "target": self.target, "detail": self.detail}


# --------------------------------------------------------------------------- ORM models
# The latest schema, as the migrations build it (tests/board/test_store.py checks the two
# agree). Never create tables from these models: schema changes go through migrations.


class UTCDateTime(sa.TypeDecorator[datetime]):
    """Aware datetimes in, aware UTC datetimes out (SQLite drops the offset)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use an aware datetime (UTC)")
        return value.astimezone(timezone.utc)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


class _Base(DeclarativeBase):
    pass


class _Dataset(_Base):
    __tablename__ = "datasets"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String)
    filename: Mapped[str] = mapped_column(sa.String)
    sha256: Mapped[str] = mapped_column(sa.String(64), unique=True)
    size_bytes: Mapped[int] = mapped_column(sa.BigInteger)
    n_rows: Mapped[int] = mapped_column(sa.BigInteger)
    uploader: Mapped[str] = mapped_column(sa.String)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    mapping: Mapped[str] = mapped_column(sa.Text)
    report: Mapped[str] = mapped_column(sa.Text)
    kind: Mapped[str] = mapped_column(sa.String(20), default="upload")
    source_path: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    options: Mapped[str | None] = mapped_column(sa.Text, nullable=True)


class _ValueTable(_Base):
    __tablename__ = "value_tables"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String, unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class _ValueTableVersion(_Base):
    __tablename__ = "value_table_versions"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("value_tables.id"))
    label: Mapped[str] = mapped_column(sa.String)
    status: Mapped[str] = mapped_column(sa.String, default=DRAFT)
    amounts: Mapped[str] = mapped_column(sa.Text)
    effective_date: Mapped[date | None] = mapped_column(sa.Date)
    reason: Mapped[str] = mapped_column(sa.Text)
    author: Mapped[str] = mapped_column(sa.String)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    row_version: Mapped[int] = mapped_column(sa.Integer)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    decision_comment: Mapped[str] = mapped_column(sa.Text, default="")


class _Evaluation(_Base):
    __tablename__ = "evaluations"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(sa.ForeignKey("datasets.id"))
    value_table_version_id: Mapped[int | None] = mapped_column(sa.ForeignKey("value_table_versions.id"))
    models: Mapped[str] = mapped_column(sa.Text)
    config: Mapped[str] = mapped_column(sa.Text)
    result: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class _DatasetSetting(_Base):
    __tablename__ = "dataset_settings"
    __table_args__ = (sa.UniqueConstraint("dataset_id", "key", name="uq_dataset_settings_key"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(sa.ForeignKey("datasets.id"))
    key: Mapped[str] = mapped_column(sa.String)
    value: Mapped[str] = mapped_column(sa.Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class _User(_Base):
    __tablename__ = "users"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    username: Mapped[str] = mapped_column(sa.String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(sa.String(200))
    role: Mapped[str] = mapped_column(sa.String(20))
    active: Mapped[bool] = mapped_column(sa.Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    password_changed_at: Mapped[datetime] = mapped_column(UTCDateTime)


class _LoginThrottle(_Base):
    __tablename__ = "login_throttle"

    username: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    failures: Mapped[int] = mapped_column(sa.Integer)
    last_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)


class _Signoff(_Base):
    __tablename__ = "signoffs"
    __table_args__ = (sa.UniqueConstraint("version_id", "role", name="uq_signoffs_version_role"),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    version_id: Mapped[int] = mapped_column(sa.ForeignKey("value_table_versions.id"))
    role: Mapped[str] = mapped_column(sa.String(20))
    username: Mapped[str] = mapped_column(sa.String(100))
    signed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    comment: Mapped[str] = mapped_column(sa.Text, default="")


class _ImpactReport(_Base):
    __tablename__ = "impact_reports"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(sa.ForeignKey("value_tables.id"))
    from_version_id: Mapped[int | None] = mapped_column(sa.ForeignKey("value_table_versions.id"))
    to_version_id: Mapped[int] = mapped_column(sa.ForeignKey("value_table_versions.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    report: Mapped[str] = mapped_column(sa.Text)


class _Audit(_Base):
    __tablename__ = "audit_log"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    username: Mapped[str] = mapped_column(sa.String(100))
    action: Mapped[str] = mapped_column(sa.String(50))
    target: Mapped[str] = mapped_column(sa.Text, default="")
    detail: Mapped[str] = mapped_column(sa.Text, default="{}")


# --------------------------------------------------------------------------- helpers


def default_data_dir() -> Path:
    """``$EVALBOARD_DATA_DIR``, or ``data`` (relative to the working directory)."""
    return Path(os.environ.get("EVALBOARD_DATA_DIR", "data"))


def default_url(data_dir: Path | None = None) -> str:
    """``$EVALBOARD_DB_URL``, or a SQLite file ``evalboard.sqlite`` in the data directory."""
    env = os.environ.get("EVALBOARD_DB_URL")
    if env:
        return env
    path = (Path(data_dir) if data_dir is not None else default_data_dir()) / "evalboard.sqlite"
    return f"sqlite:///{path.resolve()}"


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=False, ensure_ascii=False)  # key order kept: model A before B


def _check_json(problems: ProblemList, param: str, value: Any, *, want_dict: bool) -> None:
    if want_dict and not isinstance(value, dict):
        problems.add(
            "invalid_type",
            f"{param} must be a dict, got {type(value).__name__}.",
            f"Pass {param} as a dict of JSON values.",
            column=param,
        )
        return
    try:
        _dumps(value)
    except (TypeError, ValueError) as exc:
        problems.add(
            "not_json",
            f"{param} cannot be stored as JSON: {exc}.",
            "Use str/int/float/bool/None, lists and dicts with string keys; NaN and infinity must be None "
            "(to_dict() output already is).",
            column=param,
        )


def _dataset_problems(name, uploader, raw, report, n_rows, empty_fix: str) -> ProblemList:
    """The checks every stored dataset shares (name, uploader, bytes, report, row count)."""
    problems = ProblemList()
    _check_text(problems, "name", name, required=True)
    _check_text(problems, "uploader", uploader, required=False)
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        problems.add("invalid_type", f"raw must be bytes, got {type(raw).__name__}.", column="raw")
    elif len(raw) == 0:
        problems.add("empty", "raw is empty (0 bytes).", empty_fix, column="raw")
    _check_json(problems, "report", report, want_dict=True)
    _check_count(problems, "n_rows", n_rows)
    return problems


def _check_text(problems: ProblemList, param: str, value: Any, *, required: bool) -> None:
    if not isinstance(value, str):
        problems.add("invalid_type", f"{param} must be a str, got {type(value).__name__}.", column=param)
    elif required and not value.strip():
        problems.add("empty", f"{param} must not be empty.", f"Give {param} a non-blank value.", column=param)


def _check_count(problems: ProblemList, param: str, value: Any, *, positive: bool = False) -> None:
    ok = isinstance(value, int) and not isinstance(value, bool) and (value > 0 if positive else value >= 0)
    if not ok:
        rule = "a positive int" if positive else "an int >= 0"
        problems.add("invalid_value", f"{param} must be {rule}, got {value!r}.", column=param)


def _sqlite_on_connect(dbapi_connection: Any, connection_record: Any) -> None:
    # Let SQLAlchemy emit BEGIN itself (see _sqlite_on_begin): the sqlite3 driver's legacy
    # mode never begins before DDL, which would make migrations non-atomic.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def _sqlite_on_begin(conn: sa.Connection) -> None:
    mode = conn.get_execution_options().get(migrations.SQLITE_BEGIN_OPTION, "")
    conn.exec_driver_sql(f"BEGIN {mode}".strip())


def _create_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return sa.create_engine(parsed, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(parsed, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _fsync_dir(directory: Path) -> None:
    # Makes the rename durable on POSIX; directories cannot be opened this way elsewhere.
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomically(path: Path, raw: bytes) -> None:
    """Write ``raw`` to ``path`` via a fsynced temporary file and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _dataset_record(row: _Dataset) -> DatasetRecord:
    return DatasetRecord(
        id=row.id,
        name=row.name,
        filename=row.filename,
        sha256=row.sha256,
        size_bytes=int(row.size_bytes),
        n_rows=int(row.n_rows),
        uploader=row.uploader,
        created_at=row.created_at,
        mapping=json.loads(row.mapping),
        report=json.loads(row.report),
        kind=row.kind or "upload",
        source_path=row.source_path,
        options=None if row.options is None else json.loads(row.options),
    )


def _version_record(row: _ValueTableVersion, table_name: str) -> ValueTableVersionRecord:
    return ValueTableVersionRecord(
        id=row.id,
        table_id=row.table_id,
        table_name=table_name,
        label=row.label,
        status=row.status,
        amounts=json.loads(row.amounts),
        effective_date=row.effective_date,
        reason=row.reason,
        author=row.author,
        created_at=row.created_at,
        updated_at=row.updated_at,
        row_version=int(row.row_version),
        submitted_at=row.submitted_at,
        decided_at=row.decided_at,
        decision_comment=row.decision_comment or "",
    )


def _evaluation_record(row: _Evaluation) -> EvaluationRecord:
    return EvaluationRecord(
        id=row.id,
        dataset_id=row.dataset_id,
        value_table_version_id=row.value_table_version_id,
        models=json.loads(row.models),
        config=json.loads(row.config),
        result=json.loads(row.result),
        created_at=row.created_at,
    )


# --------------------------------------------------------------------------- the store


class Store:
    """The evalboard database plus its content-addressed upload directory.

    Parameters
    ----------
    url : str, optional
        SQLAlchemy URL. Default: ``$EVALBOARD_DB_URL``, else
        ``sqlite:///<data_dir>/evalboard.sqlite``.
    data_dir : str or Path, optional
        Directory for the SQLite file and ``uploads/``. Default: ``$EVALBOARD_DATA_DIR``,
        else ``data``. Created if missing.

    Notes
    -----
    Opening runs every pending migration (one transaction; see ``board.store.migrations``).
    SQLite connections get ``foreign_keys=ON``, WAL journaling and a 30 s busy timeout;
    writes start with ``BEGIN IMMEDIATE`` so concurrent writers queue rather than fail.
    Use as a context manager, or call :meth:`close`, to release the connections.
    """

    ConflictError = ConflictError
    NotFoundError = NotFoundError
    MissingFileError = MissingFileError
    CorruptFileError = CorruptFileError
    DatasetInUseError = DatasetInUseError

    def __init__(self, url: str | None = None, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.uploads_dir = self.data_dir / "uploads"
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        self.url = url if url is not None else default_url(self.data_dir)
        self.engine = _create_engine(self.url)
        try:
            #: versions applied when this store was opened (empty if it was current)
            self.applied_migrations: list[int] = migrations.migrate(self.engine)
        except BaseException:
            self.engine.dispose()
            raise
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(**{migrations.SQLITE_BEGIN_OPTION: "IMMEDIATE"}),
            expire_on_commit=False,
        )

    @classmethod
    def open(cls, url: str | None = None, data_dir: str | os.PathLike[str] | None = None) -> Store:
        """Same as ``Store(url, data_dir)``."""
        return cls(url, data_dir)

    def close(self) -> None:
        """Close all pooled connections. The store can still be used (it reconnects)."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store(url={self._safe_url()!r}, data_dir={str(self.data_dir)!r})"

    def _safe_url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def schema_version(self) -> int:
        """The database's current schema version."""
        with self.engine.connect() as conn:
            return migrations.current_version(conn)

    def upload_path(self, sha256: str) -> Path:
        """Where the file with this SHA-256 lives (whether or not it exists)."""
        return self.uploads_dir / sha256[:2] / sha256

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session

    # ----------------------------------------------------------------- datasets

    def save_dataset(
        self,
        *,
        name: str,
        filename: str,
        raw: bytes,
        mapping: dict,
        report: dict,
        n_rows: int,
        uploader: str = "",
    ) -> DatasetRecord:
        """Store an uploaded file with its mapping and validation report.

        Parameters
        ----------
        name : str
            Display name (non-blank).
        filename : str
            Original file name (non-blank); kept as metadata only.
        raw : bytes
            The file's bytes (non-empty).
        mapping, report : dict
            Column mapping and validation report; JSON values only (NaN -> None).
        n_rows : int
            Number of data rows (>= 0).
        uploader : str, default=""
            Who uploads.

        Returns
        -------
        DatasetRecord
            The new record; or, when the same bytes are already stored, the existing
            record with ``name``, ``filename``, ``mapping``, ``report`` and ``n_rows``
            replaced by the values given (the latest accepted mapping wins; ``id``,
            ``uploader`` and ``created_at`` stay). No second row, no second file.

        Raises
        ------
        evalcore.InputError
            Listing every invalid argument. Nothing is written.

        Notes
        -----
        All or nothing: if the database write, the file write or the commit fails, no
        row is left and the file is removed if this call created it.
        """
        problems = _dataset_problems(name, uploader, raw, report, n_rows, "Upload a file with data in it.")
        _check_text(problems, "filename", filename, required=True)
        _check_json(problems, "mapping", mapping, want_dict=True)
        problems.raise_if_any()
        return self._put_dataset(name=name, filename=filename, raw=raw, mapping=mapping, report=report, n_rows=n_rows,
                                 uploader=uploader, kind="upload", source_path=None, options=None)

    def save_aggregate_dataset(
        self,
        *,
        name: str,
        source_path: str,
        query: dict,
        options: dict,
        raw: bytes,
        report: dict,
        n_rows: int,
        uploader: str = "",
    ) -> DatasetRecord:
        """Store a dataset registered by path: only its serialized aggregate, never the rows.

        Parameters
        ----------
        name : str
            Display name (non-blank).
        source_path : str
            The Parquet file, glob or folder it was aggregated from (non-blank); recorded so
            the app can aggregate again with other options.
        query : dict
            The column mapping of the aggregation (``board.engines.Query`` as a mapping);
            stored as the dataset's ``mapping``.
        options : dict
            Aggregation options (resolution, scheme, strata column, thresholds, drift).
        raw : bytes
            ``board.store.aggregate_io.to_bytes(aggregate)`` (non-empty); content-addressed like
            an upload, so the same aggregate is stored once.
        report : dict
            Summary shown on the Datasets page (JSON values only).
        n_rows : int
            Rows the aggregate stands for (>= 0).
        uploader : str, default=""

        Returns
        -------
        DatasetRecord
            ``kind == "aggregate"``. Same bytes already stored: that record, updated.

        Raises
        ------
        evalcore.InputError
            Listing every invalid argument. Nothing is written.
        """
        problems = _dataset_problems(name, uploader, raw, report, n_rows, "Pass the serialized aggregate.")
        _check_text(problems, "source_path", source_path, required=True)
        _check_json(problems, "query", query, want_dict=True)
        _check_json(problems, "options", options, want_dict=True)
        problems.raise_if_any()
        return self._put_dataset(name=name, filename=source_path, raw=raw, mapping=query, report=report, n_rows=n_rows,
                                 uploader=uploader, kind="aggregate", source_path=source_path, options=options)

    def _put_dataset(self, *, name, filename, raw, mapping, report, n_rows, uploader, kind, source_path,
                     options) -> DatasetRecord:
        raw = bytes(raw)
        sha = hashlib.sha256(raw).hexdigest()
        path = self.upload_path(sha)
        created_file = False
        try:
            with self._write() as session:
                row = session.scalars(sa.select(_Dataset).where(_Dataset.sha256 == sha)).one_or_none()
                if row is None:
                    row = _Dataset(
                        name=name,
                        filename=filename,
                        sha256=sha,
                        size_bytes=len(raw),
                        n_rows=n_rows,
                        uploader=uploader,
                        created_at=_now(),
                        mapping=_dumps(mapping),
                        report=_dumps(report),
                        kind=kind,
                        source_path=source_path,
                        options=None if options is None else _dumps(options),
                    )
                    session.add(row)
                else:
                    row.name = name
                    row.filename = filename
                    row.n_rows = n_rows
                    row.mapping = _dumps(mapping)
                    row.report = _dumps(report)
                    row.kind = kind
                    row.source_path = source_path
                    row.options = None if options is None else _dumps(options)
                session.flush()
                if not path.exists():
                    _write_atomically(path, raw)
                    created_file = True
                record = _dataset_record(row)
                session.commit()
        except BaseException:
            if created_file:
                self._discard_orphan_file(sha)
            raise
        return record

    def _discard_orphan_file(self, sha: str) -> None:
        """Remove the upload file unless a committed row refers to it.

        The extra check covers a concurrent identical upload (possible on PostgreSQL)
        that committed its row while this call was failing.
        """
        try:
            with self._reading() as session:
                referenced = session.scalar(sa.select(_Dataset.id).where(_Dataset.sha256 == sha)) is not None
        except Exception:
            referenced = False  # cannot tell: an unreferenced file is the worse leak than none
        if not referenced:
            self.upload_path(sha).unlink(missing_ok=True)

    def list_datasets(self) -> list[DatasetRecord]:
        """All datasets, newest first."""
        with self._reading() as session:
            rows = session.scalars(sa.select(_Dataset).order_by(_Dataset.created_at.desc(), _Dataset.id.desc()))
            return [_dataset_record(r) for r in rows]

    def _get_dataset_row(self, session: Session, dataset_id: int) -> _Dataset:
        row = session.get(_Dataset, dataset_id)
        if row is None:
            raise NotFoundError(
                f"No dataset with id {dataset_id!r} in the store ({self._safe_url()}); "
                "it may have been deleted. Pick one from list_datasets()."
            )
        return row

    def get_dataset(self, dataset_id: int) -> DatasetRecord:
        """The dataset with this id; ``NotFoundError`` (a ``KeyError``) if absent."""
        with self._reading() as session:
            return _dataset_record(self._get_dataset_row(session, dataset_id))

    def find_dataset_by_sha(self, sha256: str) -> DatasetRecord | None:
        """The dataset whose bytes have this hex SHA-256, or None."""
        with self._reading() as session:
            row = session.scalars(sa.select(_Dataset).where(_Dataset.sha256 == sha256.lower())).one_or_none()
            return None if row is None else _dataset_record(row)

    def load_bytes(self, dataset: DatasetRecord | int) -> bytes:
        """The stored file's bytes, checked against the dataset's SHA-256.

        Parameters
        ----------
        dataset : DatasetRecord or int
            A record or a dataset id (the id is looked up, so a deleted dataset raises).

        Raises
        ------
        NotFoundError
            No such dataset id.
        MissingFileError
            The row exists but the file is gone (a ``FileNotFoundError``).
        CorruptFileError
            The file's bytes no longer hash to the stored SHA-256.
        """
        rec = dataset if isinstance(dataset, DatasetRecord) else self.get_dataset(dataset)
        path = self.upload_path(rec.sha256)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise MissingFileError(
                f"The file of dataset {rec.id} ({rec.name!r}, uploaded as {rec.filename!r}) is missing from "
                f"{path}. Upload the same file again to restore it, or delete the dataset."
            ) from None
        actual = hashlib.sha256(raw).hexdigest()
        if actual != rec.sha256:
            raise CorruptFileError(
                f"The file of dataset {rec.id} ({rec.name!r}) at {path} is corrupt: its SHA-256 is {actual}, "
                f"expected {rec.sha256}. Upload the original file again, or delete the dataset."
            )
        return raw

    def delete_dataset(self, dataset_id: int, *, with_evaluations: bool = False) -> None:
        """Delete a dataset's row and its file, all or nothing.

        Parameters
        ----------
        dataset_id : int
        with_evaluations : bool, default=False
            Also delete the evaluations stored for this dataset. Without it, a dataset
            that has evaluations is kept and ``DatasetInUseError`` is raised.

        Raises
        ------
        NotFoundError
            No such dataset.
        DatasetInUseError
            Evaluations refer to it and ``with_evaluations`` is False.
        """
        aside: Path | None = None
        path: Path | None = None
        try:
            with self._write() as session:
                row = self._get_dataset_row(session, dataset_id)
                n_eval = session.scalar(
                    sa.select(sa.func.count()).select_from(_Evaluation).where(_Evaluation.dataset_id == dataset_id)
                )
                if n_eval and not with_evaluations:
                    raise DatasetInUseError(
                        f"Dataset {dataset_id} ({row.name!r}) has {n_eval} stored evaluation(s); nothing was "
                        "deleted. Pass with_evaluations=True to delete them as well."
                    )
                session.execute(sa.delete(_Evaluation).where(_Evaluation.dataset_id == dataset_id))
                # settings belong to the dataset: they go with it (a later re-upload starts from defaults)
                session.execute(sa.delete(_DatasetSetting).where(_DatasetSetting.dataset_id == dataset_id))
                path = self.upload_path(row.sha256)
                session.delete(row)
                session.flush()
                if path.exists():
                    # Rename aside rather than unlink: a rename can be undone if the commit fails.
                    aside = path.with_name(f".{path.name}.{uuid.uuid4().hex}.deleting")
                    os.replace(path, aside)
                session.commit()
        except BaseException:
            if aside is not None and path is not None:
                os.replace(aside, path)
            raise
        if aside is not None:
            aside.unlink(missing_ok=True)

    # ----------------------------------------------------------------- dataset settings

    def get_dataset_settings(self, dataset_id: int, key: str) -> dict | None:
        """The settings saved with a dataset under ``key``; None when none were saved
        (or the dataset does not exist)."""
        rec = self.get_dataset_settings_record(dataset_id, key)
        return None if rec is None else rec.value

    def get_dataset_settings_record(self, dataset_id: int, key: str) -> DatasetSettingsRecord | None:
        """Like :meth:`get_dataset_settings`, with the time of the last save."""
        with self._reading() as session:
            row = session.scalars(
                sa.select(_DatasetSetting).where(_DatasetSetting.dataset_id == dataset_id, _DatasetSetting.key == key)
            ).one_or_none()
            if row is None:
                return None
            return DatasetSettingsRecord(dataset_id=row.dataset_id, key=row.key, value=json.loads(row.value),
                                         updated_at=row.updated_at)

    def save_dataset_settings(self, dataset_id: int, key: str, value: dict) -> DatasetSettingsRecord:
        """Save (insert or replace) the settings of a dataset under ``key``.

        Parameters
        ----------
        dataset_id : int
        key : str
            What the settings are for, e.g. ``"drift"`` (non-blank).
        value : dict
            JSON values only (NaN must be None); replaces what was saved under ``key``.

        Returns
        -------
        DatasetSettingsRecord

        Raises
        ------
        evalcore.InputError
            ``key`` blank or ``value`` not a JSON dict (every problem listed). Nothing is written.
        NotFoundError
            No such dataset.
        """
        problems = ProblemList()
        _check_text(problems, "key", key, required=True)
        _check_json(problems, "value", value, want_dict=True)
        problems.raise_if_any()
        text = _dumps(value)
        for attempt in (1, 2):
            try:
                with self._write() as session:
                    self._get_dataset_row(session, dataset_id)
                    now = _now()
                    row = session.scalars(
                        sa.select(_DatasetSetting).where(_DatasetSetting.dataset_id == dataset_id,
                                                         _DatasetSetting.key == key)
                    ).one_or_none()
                    if row is None:
                        row = _DatasetSetting(dataset_id=dataset_id, key=key, value=text, updated_at=now)
                        session.add(row)
                    else:
                        row.value = text
                        row.updated_at = now
                    session.flush()
                    record = DatasetSettingsRecord(dataset_id=dataset_id, key=key, value=json.loads(text), updated_at=now)
                    session.commit()
                return record
            except sa.exc.IntegrityError:
                # A concurrent first save of the same key (possible where BEGIN IMMEDIATE does
                # not serialise writers): the row exists now, so the second attempt updates it.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

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
                raise ConflictError(self._conflict_message(name, expected_row_version, current),
                                    current=current, expected_row_version=expected_row_version)
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
        query = sa.select(_ValueTableVersion).where(
            _ValueTableVersion.table_id == table_id, _ValueTableVersion.status == DRAFT
        )
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

    def list_value_tables(self) -> list[str]:
        """Names of all value tables, sorted."""
        with self._reading() as session:
            return list(session.scalars(sa.select(_ValueTable.name).order_by(_ValueTable.name)))

    # ----------------------------------------------------------------- evaluations

    def save_evaluation(
        self,
        dataset_id: int,
        *,
        models: Any,
        config: Any,
        result: Any,
        value_table_version_id: int | None = None,
    ) -> int:
        """Store an evaluation (JSON values) of a dataset; returns its id.

        Raises
        ------
        evalcore.InputError
            A payload is not JSON (e.g. contains NaN: pass ``to_dict()`` output).
        NotFoundError
            The dataset or the value-table version does not exist.
        """
        problems = ProblemList()
        _check_json(problems, "models", models, want_dict=False)
        _check_json(problems, "config", config, want_dict=False)
        _check_json(problems, "result", result, want_dict=False)
        problems.raise_if_any()
        with self._write() as session:
            self._get_dataset_row(session, dataset_id)
            if value_table_version_id is not None and session.get(_ValueTableVersion, value_table_version_id) is None:
                raise NotFoundError(f"No value-table version with id {value_table_version_id!r} in the store.")
            row = _Evaluation(
                dataset_id=dataset_id,
                value_table_version_id=value_table_version_id,
                models=_dumps(models),
                config=_dumps(config),
                result=_dumps(result),
                created_at=_now(),
            )
            session.add(row)
            session.flush()
            new_id = row.id
            session.commit()
        return new_id

    def list_evaluations(self, dataset_id: int | None = None) -> list[EvaluationRecord]:
        """Evaluations, newest first; only those of ``dataset_id`` when given."""
        query = sa.select(_Evaluation).order_by(_Evaluation.created_at.desc(), _Evaluation.id.desc())
        if dataset_id is not None:
            query = query.where(_Evaluation.dataset_id == dataset_id)
        with self._reading() as session:
            return [_evaluation_record(r) for r in session.scalars(query)]

    def get_evaluation(self, evaluation_id: int) -> EvaluationRecord:
        """The evaluation with this id; ``NotFoundError`` (a ``KeyError``) if absent."""
        with self._reading() as session:
            row = session.get(_Evaluation, evaluation_id)
            if row is None:
                raise NotFoundError(f"No evaluation with id {evaluation_id!r} in the store ({self._safe_url()}).")
            return _evaluation_record(row)

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

    # ----------------------------------------------------------------- versions and sign-off

    def list_value_table_versions(self, name: str) -> list[ValueTableVersionRecord]:
        """Every version of value table ``name`` (drafts included), newest first; [] if absent."""
        with self._reading() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if table is None:
                return []
            rows = session.scalars(sa.select(_ValueTableVersion).where(_ValueTableVersion.table_id == table.id)
                                   .order_by(_ValueTableVersion.id.desc()))
            return [_version_record(r, table.name) for r in rows]

    def latest_approved_version(self, name: str, *, before_id: int | None = None) -> ValueTableVersionRecord | None:
        """The most recently approved version of ``name`` (optionally: approved before version ``before_id``)."""
        for rec in sorted((v for v in self.list_value_table_versions(name) if v.status == APPROVED),
                          key=lambda v: (v.decided_at, v.id), reverse=True):
            if before_id is None or rec.id != before_id:
                return rec
        return None

    def _version_row(self, session: Session, version_id: int) -> tuple[_ValueTableVersion, _ValueTable]:
        row = session.get(_ValueTableVersion, version_id)
        if row is None:
            raise NotFoundError(f"No value-table version with id {version_id!r} in the store.")
        return row, session.get_one(_ValueTable, row.table_id)

    def submit_value_table_draft(self, name: str, *, label: str, effective_date: date, reason: str, author: str,
                                 expected_row_version: int) -> ValueTableVersionRecord:
        """Propose the open draft of ``name`` for sign-off: it becomes ``pending`` under ``label``.

        Raises
        ------
        evalcore.InputError
            Blank label or reason, no effective date, or the label is used by another version.
        ConflictError
            The draft changed since ``expected_row_version`` (or there is no open draft).
        """
        problems = ProblemList()
        _check_text(problems, "label", label, required=True)
        _check_text(problems, "reason", reason, required=True)
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
                raise ConflictError(self._conflict_message(name, expected_row_version, current),
                                    current=current, expected_row_version=expected_row_version)
            taken = session.scalar(sa.select(_ValueTableVersion.id).where(
                _ValueTableVersion.table_id == table.id, _ValueTableVersion.label == label,
                _ValueTableVersion.id != draft.id))
            if taken is not None:
                raise InputError(f"Value table {name!r} already has a version labelled {label!r}; choose another label.")
            result = session.execute(
                sa.update(_ValueTableVersion)
                .where(_ValueTableVersion.id == draft.id, _ValueTableVersion.row_version == stored,
                       _ValueTableVersion.status == DRAFT)
                .values(status=PENDING, label=label, effective_date=effective_date, reason=reason, author=author,
                        submitted_at=now, updated_at=now, decided_at=None, decision_comment="",
                        row_version=stored + 1)
                .execution_options(synchronize_session=False))
            if result.rowcount != 1:
                session.rollback()
                current = self._fetch_draft_record(name)
                raise ConflictError(self._conflict_message(name, stored, current), current=current,
                                    expected_row_version=stored)
            session.execute(sa.delete(_Signoff).where(_Signoff.version_id == draft.id))  # a fresh round
            session.refresh(draft)
            record = _version_record(draft, table.name)
            session.commit()
        return record

    def add_signoff(self, version_id: int, *, role: str, username: str, comment: str = "",
                    required_roles: tuple[str, ...]) -> tuple[ValueTableVersionRecord, list[SignoffRecord]]:
        """Sign a pending version for ``role``; the signature completing ``required_roles`` approves it.

        One transaction: the signature and the approval land together or not at all.

        Raises
        ------
        StateError
            The version is not pending, or ``role`` has already signed it.
        NotFoundError
            No such version.
        """
        now = _now()
        with self._write() as session:
            row, table = self._version_row(session, version_id)
            if row.status != PENDING:
                raise StateError(f"Version {row.label!r} of {table.name!r} is {row.status}, not pending; "
                                 "only a pending version can be signed.")
            exists = session.scalar(sa.select(_Signoff.id).where(_Signoff.version_id == version_id,
                                                                 _Signoff.role == role))
            if exists is not None:
                raise StateError(f"The {role} role has already signed version {row.label!r} of {table.name!r}.")
            session.add(_Signoff(version_id=version_id, role=role, username=username, signed_at=now, comment=comment))
            session.flush()
            signed = set(session.scalars(sa.select(_Signoff.role).where(_Signoff.version_id == version_id)))
            if set(required_roles) <= signed:
                session.execute(sa.update(_ValueTableVersion).where(_ValueTableVersion.id == version_id,
                                                                    _ValueTableVersion.status == PENDING)
                                .values(status=APPROVED, decided_at=now, updated_at=now,
                                        row_version=row.row_version + 1)
                                .execution_options(synchronize_session=False))
                session.refresh(row)
            record = _version_record(row, table.name)
            signoffs = self._signoffs(session, version_id)
            session.commit()
        return record, signoffs

    def reject_version(self, version_id: int, *, comment: str) -> ValueTableVersionRecord:
        """Reject a pending version with a (non-blank) comment; ``StateError`` unless pending."""
        problems = ProblemList()
        _check_text(problems, "comment", comment, required=True)
        problems.raise_if_any()
        now = _now()
        with self._write() as session:
            row, table = self._version_row(session, version_id)
            if row.status != PENDING:
                raise StateError(f"Version {row.label!r} of {table.name!r} is {row.status}; only a pending version "
                                 "can be rejected.")
            row.status, row.decided_at, row.decision_comment = REJECTED, now, comment
            row.updated_at, row.row_version = now, row.row_version + 1
            session.flush()
            record = _version_record(row, table.name)
            session.commit()
        return record

    def reopen_version(self, version_id: int, *, author: str) -> ValueTableVersionRecord:
        """Turn a rejected version back into the open draft (to fix and re-submit it).

        Raises
        ------
        StateError
            Not rejected, or the table already has another open draft.
        """
        now = _now()
        with self._write() as session:
            row, table = self._version_row(session, version_id)
            if row.status != REJECTED:
                raise StateError(f"Version {row.label!r} of {table.name!r} is {row.status}; only a rejected version "
                                 "can be reopened.")
            if self._draft_row(session, table.id) is not None:
                raise StateError(f"Value table {table.name!r} already has an open draft; save or discard it first.")
            row.status, row.author, row.updated_at, row.row_version = DRAFT, author, now, row.row_version + 1
            session.execute(sa.delete(_Signoff).where(_Signoff.version_id == version_id))
            session.flush()
            record = _version_record(row, table.name)
            session.commit()
        return record

    @staticmethod
    def _signoffs(session: Session, version_id: int) -> list[SignoffRecord]:
        rows = session.scalars(sa.select(_Signoff).where(_Signoff.version_id == version_id).order_by(_Signoff.id))
        return [SignoffRecord(id=r.id, version_id=r.version_id, role=r.role, username=r.username,
                              signed_at=r.signed_at, comment=r.comment) for r in rows]

    def list_signoffs(self, version_id: int) -> list[SignoffRecord]:
        """The signatures of a version, in signing order."""
        with self._reading() as session:
            return self._signoffs(session, version_id)

    def save_impact_report(self, *, table_id: int, from_version_id: int | None, to_version_id: int,
                           report: dict) -> ImpactReportRecord:
        """Store an impact report (JSON dict)."""
        problems = ProblemList()
        _check_json(problems, "report", report, want_dict=True)
        problems.raise_if_any()
        with self._write() as session:
            row = _ImpactReport(table_id=table_id, from_version_id=from_version_id, to_version_id=to_version_id,
                                created_at=_now(), report=_dumps(report))
            session.add(row)
            session.flush()
            record = _impact_record(row)
            session.commit()
        return record

    def list_impact_reports(self, name: str) -> list[ImpactReportRecord]:
        """Impact reports of value table ``name``, newest first."""
        with self._reading() as session:
            table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
            if table is None:
                return []
            rows = session.scalars(sa.select(_ImpactReport).where(_ImpactReport.table_id == table.id)
                                   .order_by(_ImpactReport.id.desc()))
            return [_impact_record(r) for r in rows]

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


def _user_record(row: _User) -> UserRecord:
    return UserRecord(id=row.id, username=row.username, password_hash=row.password_hash, role=row.role,
                      active=bool(row.active), created_at=row.created_at, password_changed_at=row.password_changed_at)


def _impact_record(row: _ImpactReport) -> ImpactReportRecord:
    return ImpactReportRecord(id=row.id, table_id=row.table_id, from_version_id=row.from_version_id,
                              to_version_id=row.to_version_id, created_at=row.created_at, report=json.loads(row.report))


def _audit_record(row: _Audit) -> AuditRecord:
    return AuditRecord(id=row.id, at=row.at, username=row.username, action=row.action, target=row.target,
                       detail=json.loads(row.detail))
