"""Issue 17, crashes: F14 (a partial ``.tmp`` upload left forever) and F15 (an action without its
audit entry).

F15: every audited action writes its audit entry in the same transaction as the action, so when
the audit insert fails (here: the database refuses it) the action did not happen either.
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import date

import pytest
import sqlalchemy as sa

from board.access import auth
from board.access import governance as gov
from board.access.auth import User
from board.services import datasets, demo, drift_settings, signoff
from board.store import Store
from evalcore.drift import DriftConfig

TABLE = {"name": "loan anti-fraud", "tp": 18500.0, "fp": -3200.0, "fn": -22000.0, "tn": 120.0, "unit": "EUR"}
ADMIN = User(username="root", role="admin")
BUSINESS = User(username="u_business", role="business")
ANALYST = User(username="u_analyst", role="analyst")  # proposes: signers may not sign their own proposal
RAW = b"label,score\n1,0.9\n0,0.2\n"

# --------------------------------------------------------------------------- F14: stale temporary files


def _aged(path, hours: float) -> None:
    t = time.time() - hours * 3600
    os.utime(path, (t, t))


def test_stale_temporary_upload_files_are_removed_when_the_store_opens(tmp_path):
    data = tmp_path / "data"
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    with Store(url=url, data_dir=data) as s:
        rec = s.save_dataset(name="d", filename="d.csv", raw=RAW, mapping={"label": "label"}, report={}, n_rows=2)
        kept_file = s.upload_path(rec.sha256)
    folder = kept_file.parent
    sha = folder.name + "0" * 62  # a temporary file sits next to its target, in <sha[:2]>/
    crashed = folder / f".{sha}.{uuid.uuid4().hex}.tmp"  # a writer that died an hour ago
    crashed.write_bytes(b"partial upl")
    _aged(crashed, 2)
    other = tmp_path / "data" / "uploads" / "cd" / f".{'cd' + '1' * 62}.{uuid.uuid4().hex}.tmp"
    other.parent.mkdir()
    other.write_bytes(b"partial")
    _aged(other, 30)
    writing = folder / f".{sha}.{uuid.uuid4().hex}.tmp"  # another process is writing it right now
    writing.write_bytes(b"in progress")
    foreign = folder / "notes.tmp"  # not a name the store writes: not its to remove
    foreign.write_bytes(b"x")
    _aged(foreign, 48)
    _aged(kept_file, 48)
    with Store(url=url, data_dir=data) as s:
        assert sorted(s.removed_temp_files) == sorted([crashed, other])
        assert not crashed.exists() and not other.exists()
        assert writing.exists() and foreign.exists()
        assert s.load_bytes(rec.id) == RAW


def test_a_delete_interrupted_before_its_commit_is_rolled_back_when_the_store_opens(tmp_path):
    data = tmp_path / "data"
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    with Store(url=url, data_dir=data) as s:
        kept = s.save_dataset(name="d", filename="d.csv", raw=RAW, mapping={"label": "label"}, report={}, n_rows=2)
        gone = s.save_dataset(name="e", filename="e.csv", raw=RAW + b"1,0.5\n", mapping={"label": "label"}, report={}, n_rows=3)
        path_kept, path_gone = s.upload_path(kept.sha256), s.upload_path(gone.sha256)
        s.delete_dataset(gone.id)
    # a crash between "rename aside" and the commit (row kept) / after the commit (row gone)
    aside_kept = path_kept.with_name(f".{kept.sha256}.{uuid.uuid4().hex}.deleting")
    os.replace(path_kept, aside_kept)
    aside_gone = path_gone.with_name(f".{gone.sha256}.{uuid.uuid4().hex}.deleting")
    aside_gone.parent.mkdir(parents=True, exist_ok=True)
    aside_gone.write_bytes(RAW + b"1,0.5\n")
    for p in (aside_kept, aside_gone):
        _aged(p, 2)
    with Store(url=url, data_dir=data) as s:
        assert s.load_bytes(kept.id) == RAW  # the file of a row that still exists is put back
        assert not aside_kept.exists() and not aside_gone.exists()


# --------------------------------------------------------------------------- F15: action and audit in one transaction


def break_audit(store) -> None:
    """From now on the database refuses audit-log inserts (a full disk, a lost connection, ...)."""
    with store.engine.begin() as conn:
        if store.engine.dialect.name == "sqlite":
            conn.exec_driver_sql(
                "CREATE TRIGGER test_audit_down BEFORE INSERT ON audit_log "
                "BEGIN SELECT RAISE(ABORT, 'audit log unavailable'); END"
            )
        else:
            conn.exec_driver_sql(
                "CREATE FUNCTION test_audit_down() RETURNS trigger LANGUAGE plpgsql AS $$ "
                "BEGIN RAISE EXCEPTION 'audit log unavailable'; END $$"
            )
            conn.exec_driver_sql(
                "CREATE TRIGGER test_audit_down BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION test_audit_down()"
            )


def _pending(s, label="v1") -> int:
    draft = gov.save_draft(s, BUSINESS, TABLE["name"], dict(TABLE), expected_row_version=None)
    return gov.propose_version(
        s,
        ANALYST,  # four eyes: the proposer does not sign
        TABLE["name"],
        label=label,
        effective_date=date(2026, 10, 1),
        reason="r",
        expected_row_version=draft.row_version,
    ).id


def _signed_twice(s) -> int:
    vid = _pending(s)
    for role in ("business", "risk"):
        signoff.sign_version(s, User(username=f"u_{role}", role=role), vid)
    return vid


def _users(s):
    return [(u.username, u.role, u.active, u.password_hash) for u in s.list_users()]


def _lake(tmp_path):
    root = tmp_path / "lake"
    root.mkdir()
    demo.demo_frame(n=300).to_parquet(root / "demo.parquet")
    m = demo.DEMO_MAPPING
    query = {
        "label": m["label"],
        "scores": {"old": "score_old", "new": "score_new"},
        "score_kinds": m["score_kinds"],
        "positive": "1",
        "segments": [],
        "group": None,
        "weight": None,
        "time": None,
        "features": [],
    }
    return root, query


# name -> (prepare(store, tmp_path) -> context, act(store, context), state(store, context) -> comparable)
CASES = {
    "create_first_admin": (
        lambda s, tmp: None,
        lambda s, c: gov.create_first_admin(s, "root", "a long admin password"),
        lambda s, c: _users(s),
    ),
    "add_user": (
        lambda s, tmp: None,
        lambda s, c: gov.add_user(s, ADMIN, "bea", "business pass 1", "business"),
        lambda s, c: _users(s),
    ),
    "disable_user": (
        lambda s, tmp: gov.add_user(s, ADMIN, "bea", "business pass 1", "business"),
        lambda s, c: gov.disable_user(s, ADMIN, "bea"),
        lambda s, c: _users(s),
    ),
    "reset_password": (
        lambda s, tmp: gov.add_user(s, ADMIN, "bea", "business pass 1", "business"),
        lambda s, c: gov.reset_password(s, ADMIN, "bea", "a brand new password"),
        lambda s, c: _users(s),
    ),
    "save_draft": (
        lambda s, tmp: None,
        lambda s, c: gov.save_draft(s, BUSINESS, TABLE["name"], dict(TABLE), expected_row_version=0),
        lambda s, c: s.list_value_table_versions(TABLE["name"]),
    ),
    "propose_version": (
        lambda s, tmp: gov.save_draft(s, BUSINESS, TABLE["name"], dict(TABLE), expected_row_version=0),
        lambda s, c: gov.propose_version(
            s,
            ANALYST,
            TABLE["name"],
            label="v1",
            effective_date=date(2026, 10, 1),
            reason="r",
            expected_row_version=c.row_version,
        ),
        lambda s, c: [(v.status, v.label, v.row_version) for v in s.list_value_table_versions(TABLE["name"])],
    ),
    "sign_version": (
        lambda s, tmp: _pending(s),
        lambda s, c: signoff.sign_version(s, User(username="u_risk", role="risk"), c),
        lambda s, c: (s.get_value_table_version(c).status, [x.role for x in s.list_signoffs(c)]),
    ),
    "approve_version": (
        lambda s, tmp: _signed_twice(s),
        lambda s, c: signoff.sign_version(s, User(username="u_model_owner", role="model_owner"), c, reevaluate=lambda ev, a: {}),
        lambda s, c: (
            s.get_value_table_version(c).status,
            [x.role for x in s.list_signoffs(c)],
            s.list_impact_reports(TABLE["name"]),
        ),
    ),
    "reject_version": (
        lambda s, tmp: _pending(s),
        lambda s, c: gov.reject_version(s, User(username="u_risk", role="risk"), c, comment="unsourced"),
        lambda s, c: s.get_value_table_version(c).status,
    ),
    "reopen_version": (
        lambda s, tmp: gov.reject_version(s, User(username="u_risk", role="risk"), _pending(s), comment="no").id,
        lambda s, c: gov.reopen_version(s, BUSINESS, c),
        lambda s, c: s.get_value_table_version(c).status,
    ),
    "record_evaluation": (
        lambda s, tmp: s.save_dataset(name="d", filename="d.csv", raw=RAW, mapping={}, report={}, n_rows=2).id,
        lambda s, c: gov.record_evaluation(s, BUSINESS, c, table_name=TABLE["name"], models=[], config={}, result={}),
        lambda s, c: s.list_evaluations(),
    ),
    "upload_dataset": (
        lambda s, tmp: None,
        lambda s, c: gov.upload_dataset(
            s, ADMIN, name="d", filename="d.csv", raw=RAW, mapping={"label": "label"}, report={}, n_rows=2
        ),
        lambda s, c: (s.list_datasets(), sorted(p.name for p in s.uploads_dir.rglob("*") if p.is_file())),
    ),
    "register_dataset": (
        lambda s, tmp: _lake(tmp),
        lambda s, c: datasets.register(s, ADMIN, name="lake", path="demo.parquet", query=c[1], roots=[c[0]]),
        lambda s, c: (s.list_datasets(), sorted(p.name for p in s.uploads_dir.rglob("*") if p.is_file())),
    ),
    "save_drift_settings": (
        lambda s, tmp: s.save_dataset(name="d", filename="d.csv", raw=RAW, mapping={}, report={}, n_rows=2).id,
        lambda s, c: drift_settings.save_config(s, BUSINESS, c, DriftConfig(ks_threshold=0.4)),
        lambda s, c: s.get_dataset_settings(c, drift_settings.SETTINGS_KEY),
    ),
}


def _comparable(value):
    """Records compare by identity (eq=False): compare their dicts."""
    if isinstance(value, (list, tuple)):
        return [_comparable(v) for v in value]
    return value.to_dict() if hasattr(value, "to_dict") else value


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_action_whose_audit_entry_fails_does_not_happen(db_url, data_dir, tmp_path, case):
    prepare, act, state = CASES[case]
    with Store(url=db_url, data_dir=data_dir) as s:
        context = prepare(s, tmp_path)
        before, n_audit = _comparable(state(s, context)), len(s.list_audit())
        break_audit(s)
        with pytest.raises(sa.exc.DBAPIError, match="audit log unavailable"):
            act(s, context)
        assert _comparable(state(s, context)) == before
        assert len(s.list_audit()) == n_audit


def test_a_failed_login_still_counts_when_its_audit_entry_fails(db_url, data_dir):
    # the failure is counted before the password is checked: a broken audit log is no way around the throttle
    with Store(url=db_url, data_dir=data_dir) as s:
        s.create_user("bea", auth.hash_password("business password"), "business")
        break_audit(s)
        with pytest.raises(sa.exc.DBAPIError, match="audit log unavailable"):
            auth.authenticate(s, "bea", "a wrong guess")
        assert s.get_login_throttle("bea").failures == 1
        with pytest.raises(sa.exc.DBAPIError, match="audit log unavailable"):
            auth.authenticate(s, "bea", "business password")  # a login without its audit entry does not happen
        assert s.get_login_throttle("bea").failures == 2
