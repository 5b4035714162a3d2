"""Schema migrations for the evalboard store: an ordered list of explicit steps.

Each step is a function ``step(conn: sqlalchemy.Connection) -> None``. Step number
``k`` (1-based) is ``MIGRATIONS[k - 1]``; the ``schema_version`` table holds one row
per applied step (``version``, ``name``, ``applied_at``), so the current version is
its largest ``version`` and the table doubles as a history.

To change the schema, **append** one function to ``MIGRATIONS``. Never edit or
reorder a step that has shipped: databases in the field have already run it. Steps
spell out their own DDL with frozen table definitions (a local ``MetaData``) instead
of importing the ORM models of ``board.store``: the models describe the *latest*
schema, a step describes one change, and replaying old steps must still give the
same result after the models have moved on.

All pending steps run in one transaction together with their ``schema_version``
rows, so a failing step leaves the database exactly at its previous version. On
SQLite this relies on the engine emitting its own ``BEGIN`` (see
``board.store``), because the ``sqlite3`` driver's legacy mode would otherwise
auto-commit each DDL statement.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

__all__ = [
    "APPEND_ONLY",
    "APPROVED_IMMUTABLE",
    "DECISIONS_IMMUTABLE",
    "MIGRATIONS",
    "SIGNOFF_IMMUTABLE",
    "SQLITE_BEGIN_OPTION",
    "SchemaTooNewError",
    "current_version",
    "latest_version",
    "migrate",
]

#: Execution option read by the SQLite ``begin`` hook of ``board.store``: its value is
#: appended to ``BEGIN`` (``"IMMEDIATE"`` takes the write lock up front, so two writers
#: queue on the busy timeout instead of failing on a lock upgrade). Ignored elsewhere.
SQLITE_BEGIN_OPTION = "evalboard_sqlite_begin"

Migration = Callable[[Connection], None]


class SchemaTooNewError(RuntimeError):
    """The database was migrated by a newer evalboard than the code now running."""


_version_meta = sa.MetaData()
_schema_version = sa.Table(
    "schema_version",
    _version_meta,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
)


def _m0001_initial(conn: Connection) -> None:
    """Datasets, value tables with their versions, and evaluations."""
    meta = sa.MetaData()
    # sqlite_autoincrement: ids are never reused after a delete. Pages, URLs and caches
    # key on these ids; a reused id would silently show another dataset's results.
    sa.Table(
        "datasets",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("filename", sa.String, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        sa.Column("n_rows", sa.BigInteger, nullable=False),
        sa.Column("uploader", sa.String, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mapping", sa.Text, nullable=False),
        sa.Column("report", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    sa.Table(
        "value_tables",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String, nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,
    )
    versions = sa.Table(
        "value_table_versions",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("value_tables.id"), nullable=False, index=True),
        sa.Column("label", sa.String, nullable=False),
        sa.Column("status", sa.String, nullable=False, server_default="draft"),
        sa.Column("amounts", sa.Text, nullable=False),
        sa.Column("effective_date", sa.Date, nullable=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("author", sa.String, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("row_version", sa.Integer, nullable=False, server_default="1"),
        sa.UniqueConstraint("table_id", "label", name="uq_value_table_versions_label"),
        sqlite_autoincrement=True,
    )
    # At most one open draft per value table, enforced by the database itself.
    sa.Index(
        "uq_value_table_versions_one_draft",
        versions.c.table_id,
        unique=True,
        sqlite_where=sa.text("status = 'draft'"),
        postgresql_where=sa.text("status = 'draft'"),
    )
    sa.Table(
        "evaluations",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=False, index=True),
        sa.Column("value_table_version_id", sa.Integer, sa.ForeignKey("value_table_versions.id"), nullable=True, index=True),
        sa.Column("models", sa.Text, nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,
    )
    meta.create_all(conn)


def _m0002_dataset_settings(conn: Connection) -> None:
    """Settings saved with a dataset (e.g. the drift settings): one JSON value per (dataset, key)."""
    meta = sa.MetaData()
    # A stub of the existing table, only so the foreign key resolves; it is not created here.
    sa.Table("datasets", meta, sa.Column("id", sa.Integer, primary_key=True))
    settings = sa.Table(
        "dataset_settings",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=False),
        sa.Column("key", sa.String, nullable=False),
        sa.Column("value", sa.Text, nullable=False),  # JSON text, like every payload of the store
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("dataset_id", "key", name="uq_dataset_settings_key"),
        sqlite_autoincrement=True,
    )
    settings.create(conn)


def _add_column(
    conn: Connection, table: str, name: str, type_: sa.types.TypeEngine, *, nullable: bool = True, default_sql: str | None = None
) -> None:
    ddl = f"ALTER TABLE {table} ADD COLUMN {name} {type_.compile(dialect=conn.dialect)}"
    if default_sql is not None:
        ddl += f" DEFAULT {default_sql}"
    if not nullable:
        ddl += " NOT NULL"
    conn.exec_driver_sql(ddl)


#: Message of the database's refusal to change an approved value-table version.
APPROVED_IMMUTABLE = "approved value-table versions are immutable; save a new version instead"


def _m0003_governance(conn: Connection) -> None:
    """Accounts, login throttling, version sign-off, impact reports and the audit log.

    Value-table versions get ``submitted_at``/``decided_at``/``decision_comment``; an
    approved version is made immutable by the database itself (a trigger refuses any
    UPDATE or DELETE of a row whose status is ``approved``, on SQLite and PostgreSQL).
    """
    meta = sa.MetaData()
    sa.Table("value_tables", meta, sa.Column("id", sa.Integer, primary_key=True))
    sa.Table("value_table_versions", meta, sa.Column("id", sa.Integer, primary_key=True))
    sa.Table("evaluations", meta, sa.Column("id", sa.Integer, primary_key=True))
    ts = sa.DateTime(timezone=True)
    sa.Table(
        "users",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(100), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),  # bcrypt; never the password
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("password_changed_at", ts, nullable=False),
        sqlite_autoincrement=True,
    )
    sa.Table(
        "login_throttle",  # per username (existing or not), so guessing names is slowed down too
        meta,
        sa.Column("username", sa.String(100), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failure_at", ts, nullable=False),
        sa.Column("locked_until", ts, nullable=True),
    )
    sa.Table(
        "signoffs",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("value_table_versions.id"), nullable=False, index=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("username", sa.String(100), nullable=False),
        sa.Column("signed_at", ts, nullable=False),
        sa.Column("comment", sa.Text, nullable=False, server_default=""),
        sa.UniqueConstraint("version_id", "role", name="uq_signoffs_version_role"),
        sqlite_autoincrement=True,
    )
    sa.Table(
        "impact_reports",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("value_tables.id"), nullable=False, index=True),
        sa.Column("from_version_id", sa.Integer, sa.ForeignKey("value_table_versions.id"), nullable=True),
        sa.Column("to_version_id", sa.Integer, sa.ForeignKey("value_table_versions.id"), nullable=False),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("report", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    sa.Table(
        "audit_log",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", ts, nullable=False, index=True),
        sa.Column("username", sa.String(100), nullable=False),
        sa.Column("action", sa.String(50), nullable=False),
        sa.Column("target", sa.Text, nullable=False, server_default=""),
        sa.Column("detail", sa.Text, nullable=False, server_default="{}"),
        sqlite_autoincrement=True,
    )
    meta.create_all(conn)
    _add_column(conn, "value_table_versions", "submitted_at", ts)
    _add_column(conn, "value_table_versions", "decided_at", ts)
    _add_column(conn, "value_table_versions", "decision_comment", sa.Text(), nullable=False, default_sql="''")
    if conn.dialect.name == "sqlite":
        for op in ("UPDATE", "DELETE"):
            conn.exec_driver_sql(
                f"CREATE TRIGGER value_table_versions_approved_no_{op.lower()} BEFORE {op} ON value_table_versions "
                f"FOR EACH ROW WHEN OLD.status = 'approved' BEGIN SELECT RAISE(ABORT, '{APPROVED_IMMUTABLE}'); END"
            )
    elif conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            "CREATE FUNCTION evalboard_refuse_approved_change() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{APPROVED_IMMUTABLE}' USING ERRCODE = 'integrity_constraint_violation'; END $$"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER value_table_versions_approved_immutable BEFORE UPDATE OR DELETE ON value_table_versions "
            "FOR EACH ROW WHEN (OLD.status = 'approved') EXECUTE FUNCTION evalboard_refuse_approved_change()"
        )
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        raise RuntimeError(f"no immutability trigger for the {conn.dialect.name} database")


def _m0004_aggregate_datasets(conn: Connection) -> None:
    """Datasets registered by path: ``kind`` ("upload" or "aggregate"), the source path and
    the aggregation options (JSON). An aggregate dataset's stored file is its serialized
    aggregate (``board.store.aggregate_io``), never the rows; its ``mapping`` is the query.
    Existing rows are uploads."""
    _add_column(conn, "datasets", "kind", sa.String(20), nullable=False, default_sql="'upload'")
    _add_column(conn, "datasets", "source_path", sa.Text())
    _add_column(conn, "datasets", "options", sa.Text())


def _m0005_first_admin(conn: Connection) -> None:
    """The first-start admin as a singleton row (issue 17, F4).

    ``first_admin`` holds at most one row (primary key fixed to 1 by a CHECK); creating the first
    admin inserts it in the same transaction as the account, so of two parallel first starts the
    second fails on the primary key instead of creating a second admin. A store that already has
    accounts records its oldest admin (else its oldest account) as the first one.
    """
    meta = sa.MetaData()
    sa.Table(
        "first_admin",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("username", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("id = 1", name="ck_first_admin_singleton"),
    ).create(conn)
    conn.exec_driver_sql(
        "INSERT INTO first_admin (id, username, created_at) SELECT 1, username, created_at FROM users "
        "ORDER BY CASE WHEN role = 'admin' THEN 0 ELSE 1 END, id LIMIT 1"
    )


#: Message of the database's refusal to change a sign-off, or add/remove one of an approved version.
SIGNOFF_IMMUTABLE = "sign-offs are never changed, and those of an approved version are never added or removed"
#: Message of the database's refusal to change or delete an impact report or an audit-log entry.
APPEND_ONLY = "impact reports and audit-log entries are append-only; they are never changed or deleted"


def _m0006_append_only(conn: Connection) -> None:
    """Decisions cannot be rewritten by any path (issue 17, F13).

    Migration 3 refuses UPDATE and DELETE of an approved version. SQLite's REPLACE (``INSERT OR
    REPLACE``, ``REPLACE INTO``, ``UPDATE OR REPLACE``) deletes a conflicting row without firing
    DELETE triggers, so it could still swap an approved version for another row. Here:

    - value_table_versions: an INSERT or UPDATE whose id or (table, label) is that of an approved
      version is refused (SQLite); TRUNCATE is refused while an approved version exists (PostgreSQL);
    - signoffs: never updated; no signature is added to or removed from an approved version
      (removing those of a draft or rejected version -- signatures start over -- stays possible);
    - impact_reports, audit_log: append-only (no UPDATE, DELETE, REPLACE or TRUNCATE).

    Upserts (``ON CONFLICT DO UPDATE``) fire the INSERT and UPDATE triggers on both databases.
    """
    if conn.dialect.name == "sqlite":

        def trigger(name: str, when_on: str, condition: str, message: str) -> None:
            when = f" FOR EACH ROW WHEN {condition}" if condition else ""
            conn.exec_driver_sql(f"CREATE TRIGGER {name} BEFORE {when_on}{when} BEGIN SELECT RAISE(ABORT, '{message}'); END")

        approved_clash = (
            "EXISTS (SELECT 1 FROM value_table_versions v WHERE v.status = 'approved' AND {other}"
            "(v.id = NEW.id OR (v.table_id = NEW.table_id AND v.label = NEW.label)))"
        )
        trigger(
            "value_table_versions_approved_no_replace",
            "INSERT ON value_table_versions",
            approved_clash.format(other=""),
            APPROVED_IMMUTABLE,
        )
        trigger(
            "value_table_versions_approved_no_update_replace",
            "UPDATE ON value_table_versions",
            approved_clash.format(other="v.id <> OLD.id AND "),
            APPROVED_IMMUTABLE,
        )
        signed_approved = "(SELECT status FROM value_table_versions WHERE id = {row}.version_id) = 'approved'"
        trigger(
            "signoffs_approved_no_insert",
            "INSERT ON signoffs",
            f"{signed_approved.format(row='NEW')} OR EXISTS (SELECT 1 FROM signoffs s JOIN value_table_versions v "
            "ON v.id = s.version_id WHERE s.id = NEW.id AND v.status = 'approved')",
            SIGNOFF_IMMUTABLE,
        )
        trigger("signoffs_no_update", "UPDATE ON signoffs", "", SIGNOFF_IMMUTABLE)
        trigger("signoffs_approved_no_delete", "DELETE ON signoffs", signed_approved.format(row="OLD"), SIGNOFF_IMMUTABLE)
        for table in ("impact_reports", "audit_log"):
            trigger(f"{table}_no_update", f"UPDATE ON {table}", "", APPEND_ONLY)
            trigger(f"{table}_no_delete", f"DELETE ON {table}", "", APPEND_ONLY)
            trigger(f"{table}_no_replace", f"INSERT ON {table}", f"EXISTS (SELECT 1 FROM {table} WHERE id = NEW.id)", APPEND_ONLY)
    elif conn.dialect.name == "postgresql":

        def function(name: str, body: str) -> None:
            conn.exec_driver_sql(f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} END $$")

        def refuse(message: str) -> str:
            return f"RAISE EXCEPTION '{message}' USING ERRCODE = 'integrity_constraint_violation';"

        function(
            "evalboard_refuse_truncate_approved",
            "IF EXISTS (SELECT 1 FROM value_table_versions WHERE status = 'approved') THEN "
            f"{refuse(APPROVED_IMMUTABLE)} END IF; RETURN NULL;",
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER value_table_versions_approved_no_truncate BEFORE TRUNCATE ON "
            "value_table_versions FOR EACH STATEMENT EXECUTE FUNCTION evalboard_refuse_truncate_approved()"
        )
        function(
            "evalboard_refuse_signoff_change",
            f"IF TG_OP = 'UPDATE' THEN {refuse(SIGNOFF_IMMUTABLE)} END IF; "
            "IF TG_OP = 'TRUNCATE' THEN IF EXISTS (SELECT 1 FROM signoffs s JOIN value_table_versions v "
            f"ON v.id = s.version_id WHERE v.status = 'approved') THEN {refuse(SIGNOFF_IMMUTABLE)} END IF; "
            "RETURN NULL; END IF; "
            "IF TG_OP = 'DELETE' THEN IF EXISTS (SELECT 1 FROM value_table_versions WHERE id = OLD.version_id "
            f"AND status = 'approved') THEN {refuse(SIGNOFF_IMMUTABLE)} END IF; RETURN OLD; END IF; "
            "IF EXISTS (SELECT 1 FROM value_table_versions WHERE id = NEW.version_id AND status = 'approved') "
            f"THEN {refuse(SIGNOFF_IMMUTABLE)} END IF; RETURN NEW;",
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER signoffs_protected BEFORE INSERT OR UPDATE OR DELETE ON signoffs "
            "FOR EACH ROW EXECUTE FUNCTION evalboard_refuse_signoff_change()"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER signoffs_protected_truncate BEFORE TRUNCATE ON signoffs "
            "FOR EACH STATEMENT EXECUTE FUNCTION evalboard_refuse_signoff_change()"
        )
        function("evalboard_refuse_append_only_change", refuse(APPEND_ONLY))
        for table in ("impact_reports", "audit_log"):
            conn.exec_driver_sql(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION evalboard_refuse_append_only_change()"
            )
            conn.exec_driver_sql(
                f"CREATE TRIGGER {table}_append_only_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION evalboard_refuse_append_only_change()"
            )
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        raise RuntimeError(f"no append-only triggers for the {conn.dialect.name} database")


def _m0007_login_clients(conn: Connection) -> None:
    """Failed logins counted per client (e.g. the remote address) across usernames (issue 17, F16).

    Same shape as ``login_throttle`` (which counts per username); rows older than the longest
    lock-out are pruned by the login itself.
    """
    meta = sa.MetaData()
    ts = sa.DateTime(timezone=True)
    sa.Table(
        "login_client_throttle",
        meta,
        sa.Column("client", sa.String(200), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failure_at", ts, nullable=False),
        sa.Column("locked_until", ts, nullable=True),
    ).create(conn)


def _m0008_meeting_links(conn: Connection) -> None:
    """Read-only meeting links (issue 17): one board (dataset, value table, thresholds) shown in
    present mode to whoever holds the link's token, until it expires or is revoked.

    Only the token's SHA-256 is stored (unique: the lookup key), never the token itself, so a
    copy of the database does not open any board. ``thresholds`` is JSON text like every payload.
    """
    meta = sa.MetaData()
    sa.Table("datasets", meta, sa.Column("id", sa.Integer, primary_key=True))
    ts = sa.DateTime(timezone=True)
    sa.Table(
        "meeting_links",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=False, index=True),
        sa.Column("table_name", sa.String, nullable=False),
        sa.Column("thresholds", sa.Text, nullable=False),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("expires_at", ts, nullable=False),
        sa.Column("revoked_at", ts, nullable=True),
        sa.Column("revoked_by", sa.String(100), nullable=True),
        sqlite_autoincrement=True,
    ).create(conn)


def _m0009_sessions(conn: Connection) -> None:
    """Server-side login sessions (issue 17): a login survives a reload and a shared link.

    A row is created at each login. The browser's cookie holds a random session id; only its
    SHA-256 is stored (``token_sha256``, unique; NULL until the browser has exchanged the login's
    one-time grant for the cookie). The grant is stored the same way (``grant_sha256``), with its
    short expiry, and cleared when used. A session ends when revoked (logout; the account disabled,
    its password reset or its role changed), after ``expires_at`` (absolute lifetime) or when idle
    since ``last_seen_at``. Ended rows are pruned.
    """
    meta = sa.MetaData()
    ts = sa.DateTime(timezone=True)
    sa.Table(
        "sessions",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_sha256", sa.String(64), nullable=True, unique=True),
        sa.Column("grant_sha256", sa.String(64), nullable=True, unique=True),
        sa.Column("grant_expires_at", ts, nullable=True),
        sa.Column("username", sa.String(100), nullable=False, index=True),
        sa.Column("client", sa.String(200), nullable=True),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("last_seen_at", ts, nullable=False),
        sa.Column("expires_at", ts, nullable=False),
        sa.Column("revoked_at", ts, nullable=True),
        sa.Column("revoked_reason", sa.String(50), nullable=True),
        sqlite_autoincrement=True,
    ).create(conn)


def _m0010_evaluation_exports(conn: Connection) -> None:
    """A snapshot keeps its export (issue 14 item 6): ``evaluations.export_html_gz`` holds the
    board's self-contained HTML as it was when the snapshot was taken, gzip-compressed (plotly.js
    is inlined: about 1.5 MB a board). NULL for snapshots saved before, and for boards saved
    without one."""
    _add_column(conn, "evaluations", "export_html_gz", sa.LargeBinary(), nullable=True)


def _m0011_display(conn: Connection) -> None:
    """Loss or value, as the reader thinks (issue 14 item 8): ``value_tables.display`` is how a
    value table's boards are shown ("value" or "loss"; NULL = value), ``users.display`` a user's
    own choice over every table's (NULL = follow the table)."""
    _add_column(conn, "value_tables", "display", sa.String(10), nullable=True)
    _add_column(conn, "users", "display", sa.String(10), nullable=True)


def _m0012_value_table_binding(conn: Connection) -> None:
    """Several value tables, each dataset bound to one (issue 16 item 1): ``datasets.value_table``
    names the table a dataset's board is priced with (NULL = the default table, as before);
    ``value_tables.archived_at`` hides an archived table from the selectors (NULL = in use), its
    versions and the boards priced with it are kept."""
    _add_column(conn, "datasets", "value_table", sa.String(), nullable=True)
    _add_column(conn, "value_tables", "archived_at", sa.DateTime(timezone=True), nullable=True)


#: Message of the database's refusal to change or delete a recorded decision.
DECISIONS_IMMUTABLE = "recorded decisions are immutable; record a new decision instead"


def _m0013_decisions(conn: Connection) -> None:
    """The meeting's decision, recorded (issue 16 item 5): ``decisions`` holds what was decided
    (roll out / keep / hold), for which model at which thresholds (JSON), why (free text), who was
    present (a JSON list of names), who recorded it and when, on which dataset and value-table
    version, and the snapshot of the board saved with it (``evaluation_id``).

    Like approved versions, a decision is never changed: UPDATE, DELETE, SQLite's REPLACE
    (``INSERT OR REPLACE`` deletes the old row without firing DELETE triggers: refused by an INSERT
    trigger when the id exists), upserts (they fire the UPDATE trigger) and PostgreSQL's TRUNCATE
    are refused by the database.
    """
    meta = sa.MetaData()
    sa.Table("datasets", meta, sa.Column("id", sa.Integer, primary_key=True))
    sa.Table("evaluations", meta, sa.Column("id", sa.Integer, primary_key=True))
    ts = sa.DateTime(timezone=True)
    sa.Table(
        "decisions",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("dataset_id", sa.Integer, sa.ForeignKey("datasets.id"), nullable=False, index=True),
        sa.Column("table_name", sa.String, nullable=False),
        sa.Column("table_version", sa.String, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("model", sa.String, nullable=False),
        sa.Column("thresholds", sa.Text, nullable=False),
        sa.Column("rationale", sa.Text, nullable=False),
        sa.Column("present", sa.Text, nullable=False),
        sa.Column("decided_by", sa.String(100), nullable=False),
        sa.Column("decided_at", ts, nullable=False),
        sa.Column("evaluation_id", sa.Integer, sa.ForeignKey("evaluations.id"), nullable=False),
        sa.CheckConstraint("kind IN ('roll out', 'keep', 'hold')", name="ck_decisions_kind"),
        sqlite_autoincrement=True,
    ).create(conn)
    if conn.dialect.name == "sqlite":
        for name, when_on, condition in (
            ("decisions_no_update", "UPDATE ON decisions", ""),
            ("decisions_no_delete", "DELETE ON decisions", ""),
            (
                "decisions_no_replace",
                "INSERT ON decisions",
                " FOR EACH ROW WHEN EXISTS (SELECT 1 FROM decisions WHERE id = NEW.id)",
            ),
        ):
            conn.exec_driver_sql(
                f"CREATE TRIGGER {name} BEFORE {when_on}{condition} BEGIN SELECT RAISE(ABORT, '{DECISIONS_IMMUTABLE}'); END"
            )
    elif conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            "CREATE FUNCTION evalboard_refuse_decision_change() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{DECISIONS_IMMUTABLE}' USING ERRCODE = 'integrity_constraint_violation'; END $$"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER decisions_immutable BEFORE UPDATE OR DELETE ON decisions "
            "FOR EACH ROW EXECUTE FUNCTION evalboard_refuse_decision_change()"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER decisions_immutable_truncate BEFORE TRUNCATE ON decisions "
            "FOR EACH STATEMENT EXECUTE FUNCTION evalboard_refuse_decision_change()"
        )
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        raise RuntimeError(f"no immutability triggers for the {conn.dialect.name} database")


def _m0014_user_language(conn: Connection) -> None:
    """A user's language (issue 15 item 1): ``users.language`` is the language the board is shown
    in for that account ("en" or "zh_CN"; NULL = the deployment's default, ``EVALBOARD_LANG``, else
    the browser's)."""
    _add_column(conn, "users", "language", sa.String(10), nullable=True)


#: The ordered migration steps. Append only.
MIGRATIONS: list[Migration] = [
    _m0001_initial,
    _m0002_dataset_settings,
    _m0003_governance,
    _m0004_aggregate_datasets,
    _m0005_first_admin,
    _m0006_append_only,
    _m0007_login_clients,
    _m0008_meeting_links,
    _m0009_sessions,
    _m0010_evaluation_exports,
    _m0011_display,
    _m0012_value_table_binding,
    _m0013_decisions,
    _m0014_user_language,
]


def latest_version() -> int:
    """The version a fully migrated database has: the number of steps."""
    return len(MIGRATIONS)


def current_version(conn: Connection) -> int:
    """The version of the database behind ``conn`` (0 when never migrated)."""
    if not sa.inspect(conn).has_table(_schema_version.name):
        return 0
    return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(_schema_version.c.version), 0))).scalar_one())


def migrate(engine: Engine) -> list[int]:
    """Apply every pending step, in order, in one transaction.

    Parameters
    ----------
    engine : sqlalchemy.Engine
        The database to bring up to date.

    Returns
    -------
    list of int
        The versions applied by this call (empty when the database was current).

    Raises
    ------
    SchemaTooNewError
        The database is at a version above ``latest_version()``: it was written by a
        newer evalboard, and this code must not touch it.
    """
    steps = list(MIGRATIONS)  # read at call time, so an appended step is picked up
    with engine.connect() as conn:
        conn.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        with conn.begin():
            _version_meta.create_all(conn, checkfirst=True)
            have = current_version(conn)
            if have > len(steps):
                raise SchemaTooNewError(
                    f"The database is at schema version {have}, but this evalboard only knows versions "
                    f"up to {len(steps)}. Upgrade evalboard (or point EVALBOARD_DB_URL at another database); "
                    "nothing was changed."
                )
            applied = []
            for version, step in enumerate(steps[have:], start=have + 1):
                step(conn)
                conn.execute(
                    _schema_version.insert().values(version=version, name=step.__name__, applied_at=datetime.now(timezone.utc))
                )
                applied.append(version)
    return applied
