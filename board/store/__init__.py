"""Persistence: SQLAlchemy store (SQLite by default, PostgreSQL by URL), migrations, aggregate serialisation.

One :class:`Store` (``database.py``) is assembled from parts split by concern: ``datasets``, ``value_tables``
(drafts, versions, sign-offs, impact reports), ``evaluations``, ``accounts``, ``audit``, ``meetings`` (read-only meeting links),
``decisions`` (the meeting's recorded decisions); ``records`` are the
frozen results it returns, ``models`` the ORM schema, ``errors`` what it raises.
"""

from board.store._common import default_data_dir, default_url
from board.store.audit import Audit, AuditEntry
from board.store.database import Store
from board.store.decisions import DECISION_KINDS, DecisionRecord
from board.store.errors import (
    ConflictError,
    CorruptFileError,
    DatasetInUseError,
    MissingFileError,
    NotFoundError,
    StateError,
    StoreError,
)
from board.store.models import UTCDateTime
from board.store.records import (
    APPROVED,
    DRAFT,
    PENDING,
    REJECTED,
    SQLITE_BUSY_TIMEOUT_MS,
    AuditRecord,
    DatasetRecord,
    DatasetSettingsRecord,
    EvaluationRecord,
    ImpactReportRecord,
    LoginAttemptRecord,
    LoginThrottleRecord,
    MeetingLinkRecord,
    SignoffRecord,
    UserRecord,
    ValueTableVersionRecord,
)

__all__ = [
    "APPROVED",
    "Audit",
    "AuditEntry",
    "AuditRecord",
    "ConflictError",
    "CorruptFileError",
    "DRAFT",
    "DatasetInUseError",
    "DatasetRecord",
    "DatasetSettingsRecord",
    "DECISION_KINDS",
    "DecisionRecord",
    "EvaluationRecord",
    "ImpactReportRecord",
    "LoginAttemptRecord",
    "LoginThrottleRecord",
    "MeetingLinkRecord",
    "MissingFileError",
    "NotFoundError",
    "PENDING",
    "REJECTED",
    "SQLITE_BUSY_TIMEOUT_MS",
    "SignoffRecord",
    "StateError",
    "Store",
    "StoreError",
    "UTCDateTime",
    "UserRecord",
    "ValueTableVersionRecord",
    "default_data_dir",
    "default_url",
]
