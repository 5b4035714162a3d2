"""The ORM models: the latest schema (migrations in :mod:`board.store.migrations` create it)."""

from __future__ import annotations

from datetime import date, datetime, timezone

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from board.store.records import DRAFT

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
    value_table: Mapped[str | None] = mapped_column(sa.String, nullable=True)  # the table it is priced with (migration 12)


class _ValueTable(_Base):
    __tablename__ = "value_tables"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String, unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    display: Mapped[str | None] = mapped_column(sa.String(10), nullable=True)  # "value" | "loss" (migration 11)
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)  # hidden from selectors (migration 12)


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
    # the board's HTML export at snapshot time, gzip (migration 10); deferred: a list never loads it
    export_html_gz: Mapped[bytes | None] = mapped_column(sa.LargeBinary, nullable=True, deferred=True)


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
    display: Mapped[str | None] = mapped_column(sa.String(10), nullable=True)  # own loss/value choice (migration 11)
    language: Mapped[str | None] = mapped_column(sa.String(10), nullable=True)  # "en" | "zh_CN" (migration 14)


class _LoginThrottle(_Base):
    __tablename__ = "login_throttle"

    username: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    failures: Mapped[int] = mapped_column(sa.Integer)
    last_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)


class _LoginClientThrottle(_Base):
    __tablename__ = "login_client_throttle"

    client: Mapped[str] = mapped_column(sa.String(200), primary_key=True)
    failures: Mapped[int] = mapped_column(sa.Integer)
    last_failure_at: Mapped[datetime] = mapped_column(UTCDateTime)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)


class _FirstAdmin(_Base):
    """At most one row (id 1): the account created on the first start (migration 5)."""

    __tablename__ = "first_admin"
    __table_args__ = (sa.CheckConstraint("id = 1", name="ck_first_admin_singleton"),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    username: Mapped[str] = mapped_column(sa.String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class _Signoff(_Base):
    __tablename__ = "signoffs"
    __table_args__ = (sa.UniqueConstraint("version_id", "role", name="uq_signoffs_version_role"), {"sqlite_autoincrement": True})

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


class _MeetingLink(_Base):
    """A read-only meeting link (migration 8): only the token's SHA-256 is stored."""

    __tablename__ = "meeting_links"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    token_sha256: Mapped[str] = mapped_column(sa.String(64), unique=True)
    dataset_id: Mapped[int] = mapped_column(sa.ForeignKey("datasets.id"))
    table_name: Mapped[str] = mapped_column(sa.String)
    thresholds: Mapped[str] = mapped_column(sa.Text)
    created_by: Mapped[str] = mapped_column(sa.String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_by: Mapped[str | None] = mapped_column(sa.String(100))
