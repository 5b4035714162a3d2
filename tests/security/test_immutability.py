"""Issue 17, F13: ``INSERT OR REPLACE`` rewrote an approved version; sign-offs were not protected.

The database itself refuses every path that rewrites a decision: UPDATE, DELETE, SQLite's
``INSERT OR REPLACE`` (which deletes the old row without firing DELETE triggers), upserts
(``ON CONFLICT DO UPDATE``) and PostgreSQL's TRUNCATE -- on approved value-table versions, the
sign-offs of approved versions, impact reports and audit-log entries (append-only).
"""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
import sqlalchemy as sa

from board.access import governance as gov
from board.access.auth import User
from board.services import signoff
from board.store import Store, migrations

TABLE = {"name": "loan anti-fraud", "tp": 18500.0, "fp": -3200.0, "fn": -22000.0, "tn": 120.0, "unit": "EUR"}
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def decided(db_url, data_dir):
    """A store with an approved version (its three sign-offs, an impact report, audit entries)."""
    with Store(url=db_url, data_dir=data_dir) as s:
        business = User(username="u_business", role="business")
        draft = gov.save_draft(s, business, TABLE["name"], dict(TABLE), expected_row_version=0)
        vid = gov.propose_version(
            s,
            User(username="u_analyst", role="analyst"),  # four eyes: the proposer does not sign
            TABLE["name"],
            label="v1",
            effective_date=date(2026, 10, 1),
            reason="r",
            expected_row_version=draft.row_version,
        ).id
        for role in gov.SIGNING_ROLES:
            signoff.sign_version(s, User(username=f"u_{role}", role=role), vid, reevaluate=lambda ev, a: {})
        yield s, vid


def refused(store, sql: str, params: dict, message: str) -> None:
    with pytest.raises(sa.exc.DBAPIError) as info:
        with store.engine.begin() as conn:
            conn.execute(sa.text(sql), params)
    assert message in str(info.value), sql


def snapshot(store) -> dict:
    with store.engine.connect() as conn:
        return {
            t: conn.execute(sa.text(f"SELECT * FROM {t} ORDER BY id")).all()
            for t in ("value_table_versions", "signoffs", "impact_reports", "audit_log")
        }


def test_an_approved_version_cannot_be_replaced_or_upserted(decided):
    s, vid = decided
    draft = gov.save_draft(s, User(username="u_business", role="business"), TABLE["name"], dict(TABLE), expected_row_version=0)
    before = snapshot(s)
    table_id = s.get_value_table_version(vid).table_id
    row = {"v": vid, "t": table_id, "now": NOW}
    cols = "(id, table_id, label, status, amounts, reason, author, created_at, updated_at, row_version, decision_comment)"
    values = "VALUES (:v, :t, 'v1', 'draft', '{}', '', 'mallory', :now, :now, 1, '')"
    msg = migrations.APPROVED_IMMUTABLE
    if s.engine.dialect.name == "sqlite":
        refused(s, f"INSERT OR REPLACE INTO value_table_versions {cols} {values}", row, msg)  # same id
        refused(s, f"REPLACE INTO value_table_versions {cols} {values}", row, msg)
        # same (table_id, label), a new id: REPLACE would delete the approved row for the new one
        refused(
            s,
            f"INSERT OR REPLACE INTO value_table_versions {cols} "
            "VALUES (:v + 100, :t, 'v1', 'draft', '{}', '', 'mallory', :now, :now, 1, '')",
            row,
            msg,
        )
        # an UPDATE taking the approved version's label (or id) would delete it the same way
        refused(s, "UPDATE OR REPLACE value_table_versions SET label = 'v1' WHERE id = :d", {"d": draft.id}, msg)
        refused(s, "UPDATE OR REPLACE value_table_versions SET id = :v WHERE id = :d", {"v": vid, "d": draft.id}, msg)
    refused(s, f"INSERT INTO value_table_versions {cols} {values} ON CONFLICT (id) DO UPDATE SET amounts = '{{}}'", row, msg)
    refused(
        s,
        f"INSERT INTO value_table_versions {cols} "
        "VALUES (:v + 100, :t, 'v1', 'draft', '{}', '', 'mallory', :now, :now, 1, '') "
        "ON CONFLICT (table_id, label) DO UPDATE SET amounts = '{}'",
        row,
        msg,
    )
    refused(s, "UPDATE value_table_versions SET amounts = '{}' WHERE id = :v", row, msg)
    refused(s, "DELETE FROM value_table_versions WHERE id = :v", row, msg)
    assert snapshot(s) == before


def test_signoffs_of_an_approved_version_cannot_be_changed_removed_or_added(decided):
    s, vid = decided
    before = snapshot(s)
    (first, *_) = s.list_signoffs(vid)
    row = {"id": first.id, "v": vid, "now": NOW}
    cols = "(id, version_id, role, username, signed_at, comment)"
    msg = migrations.SIGNOFF_IMMUTABLE
    if s.engine.dialect.name == "sqlite":
        refused(s, f"INSERT OR REPLACE INTO signoffs {cols} VALUES (:id, :v, 'business', 'mallory', :now, '')", row, msg)
        refused(s, f"INSERT OR REPLACE INTO signoffs {cols} VALUES (:id + 100, :v, 'business', 'mallory', :now, '')", row, msg)
    refused(
        s,
        f"INSERT INTO signoffs {cols} VALUES (:id, :v, 'business', 'mallory', :now, '') "
        "ON CONFLICT (id) DO UPDATE SET username = 'mallory'",
        row,
        msg,
    )
    refused(
        s,
        f"INSERT INTO signoffs {cols} VALUES (:id + 100, :v, 'business', 'mallory', :now, '') "
        "ON CONFLICT (version_id, role) DO UPDATE SET username = 'mallory'",
        row,
        msg,
    )
    refused(s, f"INSERT INTO signoffs {cols} VALUES (:id + 100, :v, 'admin', 'mallory', :now, '')", row, msg)
    refused(s, "UPDATE signoffs SET username = 'mallory' WHERE id = :id", row, msg)
    refused(s, "DELETE FROM signoffs WHERE version_id = :v", row, msg)
    if s.engine.dialect.name == "postgresql":
        refused(s, "TRUNCATE signoffs", {}, msg)
    assert snapshot(s) == before


@pytest.mark.parametrize("table", ["impact_reports", "audit_log"])
def test_decision_records_are_append_only(decided, table):
    s, vid = decided
    before = snapshot(s)
    with s.engine.connect() as conn:
        rid = conn.execute(sa.text(f"SELECT min(id) FROM {table}")).scalar_one()
    assert rid is not None
    if table == "impact_reports":
        cols = "(id, table_id, from_version_id, to_version_id, created_at, report)"
        table_id = s.get_value_table_version(vid).table_id
        values = f"VALUES (:id, {table_id}, NULL, {vid}, :now, '{{}}')"
        change = "report = '{}'"
    else:
        cols = "(id, at, username, action, target, detail)"
        values = "VALUES (:id, :now, 'mallory', 'nothing', '', '{}')"
        change = "username = 'mallory'"
    row = {"id": rid, "now": NOW}
    msg = migrations.APPEND_ONLY
    if s.engine.dialect.name == "sqlite":
        refused(s, f"INSERT OR REPLACE INTO {table} {cols} {values}", row, msg)
        refused(s, f"REPLACE INTO {table} {cols} {values}", row, msg)
    refused(s, f"INSERT INTO {table} {cols} {values} ON CONFLICT (id) DO UPDATE SET {change}", row, msg)
    refused(s, f"UPDATE {table} SET {change} WHERE id = :id", row, msg)
    refused(s, f"DELETE FROM {table} WHERE id = :id", row, msg)
    refused(s, f"DELETE FROM {table}", row, msg)
    if s.engine.dialect.name == "postgresql":
        refused(s, f"TRUNCATE {table}", {}, msg)
    assert snapshot(s) == before
    # appending stays possible
    s.append_audit("someone", "export", "board.html")
    assert s.list_audit(limit=1)[0].action == "export"


def test_signatures_of_a_rejected_version_still_start_over(decided):
    s, _ = decided
    business = User(username="u_business", role="business")
    draft = gov.save_draft(s, business, TABLE["name"], {**TABLE, "fn": -30000.0}, expected_row_version=0)
    vid = gov.propose_version(
        s,
        User(username="u_analyst", role="analyst"),  # four eyes: the proposer does not sign
        TABLE["name"],
        label="v2",
        effective_date=date(2026, 12, 1),
        reason="r",
        expected_row_version=draft.row_version,
    ).id
    signoff.sign_version(s, business, vid)
    gov.reject_version(s, User(username="u_risk", role="risk"), vid, comment="unsourced")
    gov.reopen_version(s, business, vid)
    assert s.list_signoffs(vid) == []
