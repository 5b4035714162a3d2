"""Helpers shared by the store's parts: engine set-up, JSON and input checks, atomic file writes, row -> record."""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from board.store import migrations
from board.store.models import _Audit, _Dataset, _Evaluation, _ImpactReport, _User, _ValueTableVersion
from board.store.records import (
    SQLITE_BUSY_TIMEOUT_MS,
    AuditRecord,
    DatasetRecord,
    EvaluationRecord,
    ImpactReportRecord,
    UserRecord,
    ValueTableVersionRecord,
)
from evalcore._errors import ProblemList

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


def _amounts_named(raw: str, table_name: str) -> dict:
    """A version's stored amounts under the table's current name: a renamed table's older versions
    keep the name they were signed under in their (immutable) row; everything that reads them --
    the editor, the board, the signer's content hash -- sees the current name."""
    amounts = json.loads(raw)
    if isinstance(amounts, dict) and "name" in amounts and amounts["name"] != table_name:
        amounts["name"] = table_name
    return amounts


def _version_record(row: _ValueTableVersion, table_name: str) -> ValueTableVersionRecord:
    return ValueTableVersionRecord(
        id=row.id,
        table_id=row.table_id,
        table_name=table_name,
        label=row.label,
        status=row.status,
        amounts=_amounts_named(row.amounts, table_name),
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


def _user_record(row: _User) -> UserRecord:
    return UserRecord(
        id=row.id,
        username=row.username,
        password_hash=row.password_hash,
        role=row.role,
        active=bool(row.active),
        created_at=row.created_at,
        password_changed_at=row.password_changed_at,
        display=row.display,
        language=row.language,
    )


def _impact_record(row: _ImpactReport) -> ImpactReportRecord:
    return ImpactReportRecord(
        id=row.id,
        table_id=row.table_id,
        from_version_id=row.from_version_id,
        to_version_id=row.to_version_id,
        created_at=row.created_at,
        report=json.loads(row.report),
    )


def _audit_record(row: _Audit) -> AuditRecord:
    return AuditRecord(
        id=row.id, at=row.at, username=row.username, action=row.action, target=row.target, detail=json.loads(row.detail)
    )
