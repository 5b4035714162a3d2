"""board.store against a real SQLite file in tmp_path (never the repo's data/), and the same tests
through the ``store`` fixture against a fresh PostgreSQL database when EVALBOARD_TEST_PG_URL is set
(required in CI). Migration tests that inspect the SQLite file directly stay SQLite-only."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from datetime import date, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from board.store import (
    SQLITE_BUSY_TIMEOUT_MS,
    ConflictError,
    CorruptFileError,
    DatasetInUseError,
    DatasetRecord,
    MissingFileError,
    NotFoundError,
    StateError,
    Store,
    migrations,
)
from board.store import _common as store_mod
from board.store import models as store_models
from evalcore._errors import InputError

RAW_A = b"label,score\n1,0.9\n0,0.2\n"
RAW_B = b"label,score\n0,0.4\n1,0.7\n1,0.8\n"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    monkeypatch.delenv("EVALBOARD_DATA_DIR", raising=False)
    return tmp_path / "data"


_ACTIVE: dict = {}


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, data_dir, tmp_path):
    from tests.board.test_governance import fresh_db_url

    if request.param == "sqlite":
        with Store(data_dir=data_dir) as s:
            yield s
        return
    for url in fresh_db_url("postgresql", tmp_path):
        with Store(url=url, data_dir=data_dir) as s:
            _ACTIVE["store"] = s
            try:
                yield s
            finally:
                _ACTIVE.pop("store", None)


def save(store: Store, raw: bytes = RAW_A, **kw) -> DatasetRecord:
    args = dict(name="October", filename="oct.csv", raw=raw, mapping={"label": "label"}, report={"ok": True}, n_rows=2)
    args.update(kw)
    return store.save_dataset(**args)


def legacy_save(store: Store, raw: bytes = RAW_A) -> DatasetRecord:
    """An upload written by the code of a database before step 4 (the ORM models describe the
    latest schema, so an older schema is written with its own columns)."""
    from datetime import datetime

    sha = hashlib.sha256(raw).hexdigest()
    path = store.upload_path(sha)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO datasets (name, filename, sha256, size_bytes, n_rows, uploader, created_at, "
                "mapping, report) VALUES ('October', 'oct.csv', :sha, :size, 2, '', :at, :m, '{}')"
            ),
            {"sha": sha, "size": len(raw), "at": datetime.now(timezone.utc), "m": json.dumps({"label": "label"})},
        )
        ds_id = conn.execute(sa.text("SELECT id FROM datasets WHERE sha256 = :sha"), {"sha": sha}).scalar_one()
    return DatasetRecord(
        id=ds_id,
        name="October",
        filename="oct.csv",
        sha256=sha,
        size_bytes=len(raw),
        n_rows=2,
        uploader="",
        created_at=None,
        mapping={"label": "label"},
        report={},
    )


def upload_files(data_dir) -> list[str]:
    """Every file under uploads/ (temporary and set-aside files included)."""
    root = data_dir / "uploads"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def sqlite_rows(data_dir, sql: str) -> list[tuple]:
    """The rows of ``sql`` read straight from the SQLite file, past the Store."""
    con = sqlite3.connect(data_dir / "evalboard.sqlite")
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# schema_version after every migration has run
ALL_MIGRATIONS = [
    (1, "_m0001_initial"),
    (2, "_m0002_dataset_settings"),
    (3, "_m0003_governance"),
    (4, "_m0004_aggregate_datasets"),
    (5, "_m0005_first_admin"),
    (6, "_m0006_append_only"),
    (7, "_m0007_login_clients"),
    (8, "_m0008_meeting_links"),
    (9, "_m0009_sessions"),
    (10, "_m0010_evaluation_exports"),
    (11, "_m0011_display"),
    (12, "_m0012_value_table_binding"),
    (13, "_m0013_decisions"),
    (14, "_m0014_user_language"),
]
SCHEMA_VERSIONS = "SELECT version, name FROM schema_version ORDER BY version"


def count_rows(data_dir, table: str) -> int:
    active = _ACTIVE.get("store")
    if active is not None:  # the PostgreSQL variant of the store fixture
        with active.engine.connect() as conn:
            return conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
    return sqlite_rows(data_dir, f"SELECT count(*) FROM {table}")[0][0]


# --------------------------------------------------------------------------- migrations


def test_fresh_database_gets_latest_version(data_dir):
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
        assert s.schema_version == migrations.latest_version() == 14
    assert (data_dir / "evalboard.sqlite").is_file()
    assert (data_dir / "uploads").is_dir()
    assert sqlite_rows(data_dir, SCHEMA_VERSIONS) == ALL_MIGRATIONS


def test_reopening_does_not_rerun_migrations(data_dir, monkeypatch):
    calls = []
    real = migrations.MIGRATIONS[0]

    def spy(conn):
        calls.append(1)
        real(conn)

    monkeypatch.setattr(migrations, "MIGRATIONS", [spy, *migrations.MIGRATIONS[1:]])
    with Store(data_dir=data_dir) as s:
        save(s)
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == []
        assert s.schema_version == migrations.latest_version()
        assert len(s.list_datasets()) == 1
    assert calls == [1]


def test_database_at_latest_version_is_upgraded_by_an_appended_step(data_dir, monkeypatch):
    with Store(data_dir=data_dir) as s:
        rec = save(s)
    calls = []
    latest = migrations.latest_version()

    def _m9999_add_note(conn):
        calls.append(1)
        conn.execute(sa.text("ALTER TABLE datasets ADD COLUMN note TEXT"))

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, _m9999_add_note])
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == [latest + 1]
        assert s.schema_version == latest + 1
        assert s.get_dataset(rec.id).to_dict() == rec.to_dict()  # data survives the upgrade
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == []
    assert calls == [1]
    assert "note" in [r[1] for r in sqlite_rows(data_dir, "PRAGMA table_info(datasets)")]
    assert sqlite_rows(data_dir, SCHEMA_VERSIONS)[-1] == (latest + 1, "_m9999_add_note")


def test_failing_step_rolls_back_all_its_ddl(data_dir, monkeypatch):
    with Store(data_dir=data_dir):
        pass

    def _m9999_broken(conn):
        conn.execute(sa.text("CREATE TABLE scratch (x INTEGER)"))
        conn.execute(sa.text("ALTER TABLE datasets ADD COLUMN note TEXT"))
        raise RuntimeError("step failed half-way")

    latest = migrations.latest_version()
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, _m9999_broken])
    with pytest.raises(RuntimeError, match="half-way"):
        Store(data_dir=data_dir)
    tables = {r[0] for r in sqlite_rows(data_dir, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "scratch" not in tables
    assert "note" not in [r[1] for r in sqlite_rows(data_dir, "PRAGMA table_info(datasets)")]
    assert sqlite_rows(data_dir, "SELECT max(version) FROM schema_version") == [(latest,)]


def test_failing_first_migration_leaves_an_empty_database(data_dir, monkeypatch):
    real = migrations.MIGRATIONS[0]

    def _m0001_broken(conn):
        real(conn)
        raise RuntimeError("boom")

    monkeypatch.setattr(migrations, "MIGRATIONS", [_m0001_broken])
    with pytest.raises(RuntimeError, match="boom"):
        Store(data_dir=data_dir)
    assert sqlite_rows(data_dir, "SELECT name FROM sqlite_master WHERE type = 'table'") == []


def test_database_newer_than_the_code_is_refused(data_dir, monkeypatch):
    original = list(migrations.MIGRATIONS)

    def _m9999_future(conn):
        conn.execute(sa.text("CREATE TABLE future (x INTEGER)"))

    monkeypatch.setattr(migrations, "MIGRATIONS", [*original, _m9999_future])
    with Store(data_dir=data_dir):
        pass
    monkeypatch.setattr(migrations, "MIGRATIONS", original)
    with pytest.raises(migrations.SchemaTooNewError, match="schema version 15, but this evalboard only knows versions up to 14"):
        Store(data_dir=data_dir)


def test_migrated_schema_matches_the_orm_models(store):
    inspector = sa.inspect(store.engine)
    models = store_models._Base.metadata
    assert set(inspector.get_table_names()) == set(models.tables) | {"schema_version"}
    for name, table in models.tables.items():
        db_cols = {c["name"]: c for c in inspector.get_columns(name)}
        assert set(db_cols) == {c.name for c in table.columns}, name
        for col in table.columns:
            assert db_cols[col.name]["nullable"] == col.nullable, f"{name}.{col.name}"
        db_fks = {(fk["constrained_columns"][0], fk["referred_table"]) for fk in inspector.get_foreign_keys(name)}
        assert db_fks == {(fk.parent.name, fk.column.table.name) for fk in table.foreign_keys}, name


def test_sqlite_pragmas(store):
    if store.engine.dialect.name != "sqlite":
        pytest.skip("SQLite pragmas")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == SQLITE_BUSY_TIMEOUT_MS


# --------------------------------------------------------------------------- configuration


def test_env_db_url_is_honoured(tmp_path, monkeypatch):
    other = tmp_path / "elsewhere" / "other.sqlite"
    monkeypatch.setenv("EVALBOARD_DB_URL", f"sqlite:///{other}")
    data_dir = tmp_path / "data"
    with Store(data_dir=data_dir) as s:
        assert s.url == f"sqlite:///{other}"
        rec = save(s)
    assert other.is_file()
    assert not (data_dir / "evalboard.sqlite").exists()
    assert (data_dir / "uploads" / rec.sha256[:2] / rec.sha256).is_file()  # files stay under data_dir
    con = sqlite3.connect(other)
    try:
        assert con.execute("SELECT sha256 FROM datasets").fetchall() == [(rec.sha256,)]
    finally:
        con.close()


def test_explicit_url_beats_env(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_DB_URL", f"sqlite:///{tmp_path / 'env.sqlite'}")
    with Store(url=f"sqlite:///{tmp_path / 'arg.sqlite'}", data_dir=tmp_path / "d"):
        pass
    assert (tmp_path / "arg.sqlite").is_file()
    assert not (tmp_path / "env.sqlite").exists()


def test_env_data_dir_is_the_default(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    monkeypatch.setenv("EVALBOARD_DATA_DIR", str(tmp_path / "dd"))
    with Store() as s:
        assert s.data_dir == tmp_path / "dd"
    assert (tmp_path / "dd" / "evalboard.sqlite").is_file()


# --------------------------------------------------------------------------- datasets


def test_save_and_read_back_a_dataset(store, data_dir):
    rec = save(store, uploader="ana", mapping={"label": "label", "scores": {"A": "score"}}, report={"n_dropped": 0})
    sha = hashlib.sha256(RAW_A).hexdigest()
    assert rec.sha256 == sha
    assert rec.size_bytes == len(RAW_A) == 24
    assert (rec.name, rec.filename, rec.n_rows, rec.uploader) == ("October", "oct.csv", 2, "ana")
    assert rec.mapping == {"label": "label", "scores": {"A": "score"}}
    assert rec.report == {"n_dropped": 0}
    assert rec.created_at.tzinfo is not None and rec.created_at.utcoffset().total_seconds() == 0
    assert (data_dir / "uploads" / sha[:2] / sha).read_bytes() == RAW_A
    assert upload_files(data_dir) == [f"{sha[:2]}/{sha}"]
    assert store.get_dataset(rec.id).to_dict() == rec.to_dict()
    assert store.find_dataset_by_sha(sha).id == rec.id
    assert store.find_dataset_by_sha("0" * 64) is None
    assert store.load_bytes(rec) == RAW_A
    assert store.load_bytes(rec.id) == RAW_A
    d = rec.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["created_at"].endswith("+00:00")


def test_same_bytes_twice_updates_the_existing_record(store, data_dir):
    first = save(store, uploader="ana")
    second = save(store, name="October v2", filename="copy.csv", mapping={"label": "y"}, report={"ok": False}, uploader="bob")
    assert second.id == first.id
    assert (second.name, second.filename, second.mapping, second.report) == (
        "October v2",
        "copy.csv",
        {"label": "y"},
        {"ok": False},
    )
    assert second.uploader == "ana" and second.created_at == first.created_at
    assert count_rows(data_dir, "datasets") == 1
    assert upload_files(data_dir) == [f"{first.sha256[:2]}/{first.sha256}"]
    assert store.get_dataset(first.id).mapping == {"label": "y"}


def test_list_is_newest_first_and_ids_are_never_reused(store):
    a = save(store, RAW_A, name="a")
    b = save(store, RAW_B, name="b")
    assert [r.name for r in store.list_datasets()] == ["b", "a"]
    store.delete_dataset(b.id)
    c = save(store, RAW_B, name="c")
    assert c.id > b.id > a.id
    assert [r.name for r in store.list_datasets()] == ["c", "a"]


def test_missing_dataset_is_a_clear_key_error(store):
    with pytest.raises(KeyError, match="No dataset with id 42 in the store") as info:
        store.get_dataset(42)
    assert isinstance(info.value, NotFoundError)
    with pytest.raises(KeyError, match="No dataset with id 42"):
        store.load_bytes(42)
    with pytest.raises(KeyError, match="No dataset with id 42"):
        store.delete_dataset(42)


def test_load_bytes_detects_a_missing_or_corrupt_file(store):
    rec = save(store)
    path = store.upload_path(rec.sha256)
    path.write_bytes(RAW_A.replace(b"0.9", b"0.8"))
    with pytest.raises(CorruptFileError, match=f"is corrupt: its SHA-256 is .*, expected {rec.sha256}"):
        store.load_bytes(rec.id)
    path.unlink()
    with pytest.raises(MissingFileError, match="is missing from .*Upload the same file again") as info:
        store.load_bytes(rec)
    assert isinstance(info.value, FileNotFoundError)


def test_reuploading_restores_a_missing_file(store, data_dir):
    rec = save(store)
    store.upload_path(rec.sha256).unlink()
    again = save(store)
    assert again.id == rec.id
    assert store.load_bytes(rec.id) == RAW_A


def test_restart_lists_and_loads_identical_bytes(data_dir):
    with Store(data_dir=data_dir) as s:
        rec = save(s, uploader="ana")
        draft = s.save_value_table_draft("loan anti-fraud", {"tp": 18500, "fp": -3200, "fn": -22000, "tn": 120})
    with Store(data_dir=data_dir) as s:
        assert [r.to_dict() for r in s.list_datasets()] == [rec.to_dict()]
        assert s.load_bytes(rec.id) == RAW_A
        assert s.get_value_table_draft("loan anti-fraud").to_dict() == draft.to_dict()


def test_delete_removes_row_and_file(store, data_dir):
    keep = save(store, RAW_B, name="keep")
    rec = save(store)
    store.delete_dataset(rec.id)
    assert [r.id for r in store.list_datasets()] == [keep.id]
    assert upload_files(data_dir) == [f"{keep.sha256[:2]}/{keep.sha256}"]
    with pytest.raises(KeyError):
        store.get_dataset(rec.id)


def test_delete_refuses_a_dataset_with_evaluations_unless_asked(store, data_dir):
    rec = save(store)
    store.save_evaluation(rec.id, models=["A"], config={}, result={"ev": 1.0})
    with pytest.raises(DatasetInUseError, match="has 1 stored evaluation"):
        store.delete_dataset(rec.id)
    assert store.load_bytes(rec.id) == RAW_A
    assert len(store.list_evaluations(rec.id)) == 1
    store.delete_dataset(rec.id, with_evaluations=True)
    assert store.list_datasets() == [] and store.list_evaluations() == []
    assert upload_files(data_dir) == []


def test_save_dataset_lists_every_invalid_argument(store, data_dir):
    with pytest.raises(InputError) as info:
        store.save_dataset(name=" ", filename="f.csv", raw=b"", mapping={"x": float("nan")}, report=[], n_rows=-1)
    codes = sorted((p.column, p.code) for p in info.value.problems)
    assert codes == [
        ("mapping", "not_json"),
        ("n_rows", "invalid_value"),
        ("name", "empty"),
        ("raw", "empty"),
        ("report", "invalid_type"),
    ]
    assert "n_rows must be an int >= 0, got -1" in str(info.value)
    assert store.list_datasets() == [] and upload_files(data_dir) == []


# --------------------------------------------------------------------------- failures leave nothing half-written


def _boom(*args, **kwargs):
    raise OSError("simulated failure")


def test_failed_commit_leaves_no_row_and_no_file(store, data_dir, monkeypatch):
    monkeypatch.setattr(Session, "commit", _boom)
    with pytest.raises(OSError, match="simulated"):
        save(store)
    monkeypatch.undo()
    assert count_rows(data_dir, "datasets") == 0
    assert upload_files(data_dir) == []


def test_failed_flush_leaves_no_row_and_no_file(store, data_dir, monkeypatch):
    real_flush = Session.flush

    def flush(self, *args, **kwargs):
        if self.new:
            raise OSError("simulated failure")
        return real_flush(self, *args, **kwargs)

    monkeypatch.setattr(Session, "flush", flush)
    with pytest.raises(OSError, match="simulated"):
        save(store)
    monkeypatch.undo()
    assert count_rows(data_dir, "datasets") == 0
    assert upload_files(data_dir) == []


@pytest.mark.parametrize("step", ["fsync", "replace"])
def test_failed_file_write_leaves_no_row_and_no_file(store, data_dir, monkeypatch, step):
    monkeypatch.setattr(store_mod.os, step, _boom)
    with pytest.raises(OSError, match="simulated"):
        save(store)
    monkeypatch.undo()
    assert count_rows(data_dir, "datasets") == 0
    assert upload_files(data_dir) == []  # the temporary file is gone too


def test_failed_reupload_keeps_the_existing_file_and_row(store, data_dir, monkeypatch):
    rec = save(store)
    monkeypatch.setattr(Session, "commit", _boom)
    with pytest.raises(OSError, match="simulated"):
        save(store, name="renamed", mapping={"label": "other"})
    monkeypatch.undo()
    assert store.get_dataset(rec.id).to_dict() == rec.to_dict()
    assert store.load_bytes(rec.id) == RAW_A


def test_failed_new_upload_leaves_existing_datasets_untouched(store, data_dir, monkeypatch):
    rec = save(store)
    monkeypatch.setattr(Session, "commit", _boom)
    with pytest.raises(OSError, match="simulated"):
        save(store, RAW_B, name="other")
    monkeypatch.undo()
    assert [r.to_dict() for r in store.list_datasets()] == [rec.to_dict()]
    assert upload_files(data_dir) == [f"{rec.sha256[:2]}/{rec.sha256}"]
    assert store.load_bytes(rec.id) == RAW_A


def test_failed_commit_of_a_delete_keeps_row_and_file(store, data_dir, monkeypatch):
    rec = save(store)
    monkeypatch.setattr(Session, "commit", _boom)
    with pytest.raises(OSError, match="simulated"):
        store.delete_dataset(rec.id)
    monkeypatch.undo()
    assert store.get_dataset(rec.id).to_dict() == rec.to_dict()
    assert upload_files(data_dir) == [f"{rec.sha256[:2]}/{rec.sha256}"]
    assert store.load_bytes(rec.id) == RAW_A


# --------------------------------------------------------------------------- value tables

TABLE = {"tp": 18500.0, "fp": -3200.0, "fn": -22000.0, "tn": 120.0, "unit": "CNY", "confidence": {"tp": 0.8}}


def test_draft_is_created_then_updated_in_place(store):
    assert store.get_value_table_draft("loan anti-fraud") is None
    first = store.save_value_table_draft("loan anti-fraud", TABLE, author="ana", reason="first cut")
    assert (first.label, first.status, first.row_version, first.table_name) == ("draft", "draft", 1, "loan anti-fraud")
    assert first.amounts == TABLE and first.reason == "first cut" and first.author == "ana"
    assert first.created_at == first.updated_at and first.created_at.tzinfo == timezone.utc
    second = store.save_value_table_draft("loan anti-fraud", {**TABLE, "fp": -3000.0}, author="bob", expected_row_version=1)
    assert second.id == first.id and second.row_version == 2
    assert second.amounts["fp"] == -3000.0 and second.author == "bob"
    assert second.reason == "first cut"  # reason=None keeps it
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    assert store.get_value_table_draft("loan anti-fraud").to_dict() == second.to_dict()
    assert store.list_value_tables() == ["loan anti-fraud"]


def test_draft_label_reason_and_effective_date(store):
    store.save_value_table_draft("t", TABLE, label="v2026.Q4", effective_date=date(2026, 10, 1), reason="Q4")
    rec = store.save_value_table_draft("t", TABLE, reason="")
    assert (rec.label, rec.effective_date, rec.reason) == ("v2026.Q4", date(2026, 10, 1), "")
    assert rec.to_dict()["effective_date"] == "2026-10-01"


def test_stale_row_version_is_a_conflict_and_writes_nothing(store):
    store.save_value_table_draft("loan anti-fraud", TABLE, author="ana")
    stored = store.save_value_table_draft("loan anti-fraud", {**TABLE, "tn": 100.0}, author="ana", expected_row_version=1)
    with pytest.raises(
        ConflictError,
        match=r"changed by 'ana' .*stored row_version 2, you expected 1\)\. "
        r"Nothing was saved\. Stored amounts: .*\"tn\": 100\.0",
    ) as info:
        store.save_value_table_draft("loan anti-fraud", {**TABLE, "tn": 0.0}, author="bob", expected_row_version=1)
    assert info.value.current.to_dict() == stored.to_dict()
    assert info.value.expected_row_version == 1
    assert store.get_value_table_draft("loan anti-fraud").to_dict() == stored.to_dict()
    assert isinstance(info.value, Store.ConflictError)


def test_expected_row_version_zero_means_no_draft_yet(store):
    created = store.save_value_table_draft("t", TABLE, expected_row_version=0)
    assert created.row_version == 1
    with pytest.raises(ConflictError, match="stored row_version 1, you expected 0"):
        store.save_value_table_draft("t", TABLE, expected_row_version=0)
    with pytest.raises(ConflictError, match="there is no open draft") as info:
        store.save_value_table_draft("new table", TABLE, expected_row_version=3)
    assert info.value.current is None
    assert store.list_value_tables() == ["t"]  # the failed call did not create "new table"


def test_tables_are_independent_and_listed_by_name(store):
    store.save_value_table_draft("b decision", {"tp": 1})
    store.save_value_table_draft("a decision", {"tp": 2})
    store.save_value_table_draft("b decision", {"tp": 3})
    assert store.list_value_tables() == ["a decision", "b decision"]
    assert store.get_value_table_draft("a decision").amounts == {"tp": 2}
    assert store.get_value_table_draft("b decision").row_version == 2


def test_database_allows_one_open_draft_per_table(store):
    rec = store.save_value_table_draft("t", TABLE)
    with pytest.raises(sa.exc.IntegrityError):
        with store.engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO value_table_versions (table_id, label, status, amounts, created_at, updated_at) "
                    "VALUES (:t, 'other', 'draft', '{}', '2026-01-01', '2026-01-01')"
                ),
                {"t": rec.table_id},
            )


def test_value_table_invalid_arguments(store):
    with pytest.raises(InputError) as info:
        store.save_value_table_draft("", ["tp"], expected_row_version=-1, effective_date="2026-10-01")
    assert sorted(p.column for p in info.value.problems) == ["amounts", "effective_date", "expected_row_version", "name"]
    assert store.list_value_tables() == []


def test_concurrent_draft_saves_from_threads_all_land(store):
    store.save_value_table_draft("t", {"n": 0})
    errors = []

    def worker(k):
        try:
            for i in range(5):
                store.save_value_table_draft("t", {"n": k * 10 + i}, author=f"w{k}")
        except Exception as exc:  # surfaced by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.get_value_table_draft("t").row_version == 1 + 4 * 5


# --------------------------------------------------------------------------- evaluations


def test_evaluations_save_list_get(store):
    a = save(store, RAW_A)
    b = save(store, RAW_B)
    v = store.save_value_table_draft("t", TABLE)
    e1 = store.save_evaluation(a.id, models={"A": "score"}, config={"n_resamples": 1000}, result={"ev": None})
    e2 = store.save_evaluation(b.id, models=["A", "B"], config={}, result={"ev": 2.5}, value_table_version_id=v.id)
    e3 = store.save_evaluation(a.id, models=["A"], config={}, result={"ev": 1.5})
    assert [e.id for e in store.list_evaluations()] == [e3, e2, e1]
    assert [e.id for e in store.list_evaluations(a.id)] == [e3, e1]
    got = store.get_evaluation(e2)
    assert (got.dataset_id, got.value_table_version_id, got.models, got.result) == (b.id, v.id, ["A", "B"], {"ev": 2.5})
    assert store.get_evaluation(e1).result == {"ev": None}
    assert store.get_value_table_version(got.value_table_version_id).amounts == TABLE
    d = got.to_dict()
    assert json.loads(json.dumps(d)) == d


def test_evaluation_errors(store):
    rec = save(store)
    with pytest.raises(KeyError, match="No dataset with id 99"):
        store.save_evaluation(99, models=[], config={}, result={})
    with pytest.raises(KeyError, match="No value-table version with id 7"):
        store.save_evaluation(rec.id, models=[], config={}, result={}, value_table_version_id=7)
    with pytest.raises(InputError, match="result cannot be stored as JSON"):
        store.save_evaluation(rec.id, models=[], config={}, result={"ev": float("nan")})
    with pytest.raises(KeyError, match="No evaluation with id 5"):
        store.get_evaluation(5)
    assert store.list_evaluations() == []


def test_default_url_points_into_the_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    assert store_mod.default_url(tmp_path) == f"sqlite:///{(tmp_path / 'evalboard.sqlite').resolve()}"
    monkeypatch.setenv("EVALBOARD_DB_URL", "postgresql://u:p@h/db")
    assert store_mod.default_url(tmp_path) == "postgresql://u:p@h/db"


# --------------------------------------------------------------------------- dataset settings

DRIFT = {"ks_threshold": 0.5, "features": ["amount", "channel"], "reference_start": None, "oe_band": [0.8, 1.25]}


def test_dataset_settings_save_get_replace(store):
    rec = save(store)
    other = save(store, RAW_B)
    assert store.get_dataset_settings(rec.id, "drift") is None
    first = store.save_dataset_settings(rec.id, "drift", DRIFT)
    assert first.value == DRIFT and first.updated_at.tzinfo is not None
    assert store.get_dataset_settings(rec.id, "drift") == DRIFT
    assert store.get_dataset_settings(rec.id, "other") is None  # keys are separate
    assert store.get_dataset_settings(other.id, "drift") is None  # datasets are separate
    second = store.save_dataset_settings(rec.id, "drift", {"ks_threshold": 0.2})
    assert store.get_dataset_settings(rec.id, "drift") == {"ks_threshold": 0.2}  # replaced, not merged
    assert second.updated_at >= first.updated_at
    assert store.get_dataset_settings_record(rec.id, "drift").to_dict()["value"] == {"ks_threshold": 0.2}
    with store.engine.connect() as conn:  # one row per (dataset, key)
        assert conn.execute(sa.text("SELECT count(*) FROM dataset_settings")).scalar_one() == 1


def test_dataset_settings_survive_a_restart(data_dir):
    with Store(data_dir=data_dir) as s:
        rec = save(s)
        s.save_dataset_settings(rec.id, "drift", DRIFT)
    with Store(data_dir=data_dir) as s:
        assert s.get_dataset_settings(rec.id, "drift") == DRIFT


def test_dataset_settings_errors(store):
    rec = save(store)
    with pytest.raises(KeyError, match="No dataset with id 99"):
        store.save_dataset_settings(99, "drift", {})
    with pytest.raises(InputError) as info:
        store.save_dataset_settings(rec.id, " ", {"x": float("nan")})
    assert sorted((p.column, p.code) for p in info.value.problems) == [("key", "empty"), ("value", "not_json")]
    with pytest.raises(InputError, match="value must be a dict, got list"):
        store.save_dataset_settings(rec.id, "drift", [1, 2])
    assert store.get_dataset_settings(rec.id, "drift") is None


def test_database_enforces_one_settings_row_per_key(store):
    rec = save(store)
    store.save_dataset_settings(rec.id, "drift", {})
    with pytest.raises(sa.exc.IntegrityError):
        with store.engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO dataset_settings (dataset_id, key, value, updated_at) VALUES (:d, 'drift', '{}', '2026-01-01')"
                ),
                {"d": rec.id},
            )


def test_deleting_a_dataset_deletes_its_settings(store, data_dir):
    rec = save(store)
    keep = save(store, RAW_B)
    store.save_dataset_settings(rec.id, "drift", DRIFT)
    store.save_dataset_settings(keep.id, "drift", {"ks_threshold": 0.3})
    store.delete_dataset(rec.id)
    assert count_rows(data_dir, "dataset_settings") == 1
    assert store.get_dataset_settings(keep.id, "drift") == {"ks_threshold": 0.3}
    again = save(store)  # the same bytes again: a new id, default settings
    assert again.id != rec.id and store.get_dataset_settings(again.id, "drift") is None


def test_database_at_version_1_gets_the_settings_table(data_dir, monkeypatch):
    """A database written before settings existed (version 1) is migrated in place."""
    first_only = migrations.MIGRATIONS[:1]
    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", first_only)
        with Store(data_dir=data_dir) as s:
            assert s.schema_version == 1
            rec = legacy_save(s)
            with s.engine.begin() as conn:  # as the version-1 code wrote it
                from datetime import datetime

                conn.execute(
                    sa.text(
                        "INSERT INTO evaluations (dataset_id, models, config, result, created_at) "
                        "VALUES (:d, '[\"A\"]', '{}', '{\"ev\": 1.0}', :at)"
                    ),
                    {"d": rec.id, "at": datetime.now(timezone.utc)},
                )
        assert "dataset_settings" not in {r[0] for r in sqlite_rows(data_dir, "SELECT name FROM sqlite_master")}
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
        assert s.schema_version == 14
        back = s.get_dataset(rec.id).to_dict()  # data survives
        assert {k: v for k, v in back.items() if k != "created_at"} == {
            k: v for k, v in rec.to_dict().items() if k != "created_at"
        }
        assert len(s.list_evaluations(rec.id)) == 1
        assert s.get_dataset_settings(rec.id, "drift") is None
        s.save_dataset_settings(rec.id, "drift", DRIFT)
        assert s.get_dataset_settings(rec.id, "drift") == DRIFT
        cols = {c["name"]: c for c in sa.inspect(s.engine).get_columns("dataset_settings")}
        assert set(cols) == {"id", "dataset_id", "key", "value", "updated_at"}
        uniques = sa.inspect(s.engine).get_unique_constraints("dataset_settings")
        assert [u["column_names"] for u in uniques] == [["dataset_id", "key"]]
    assert sqlite_rows(data_dir, SCHEMA_VERSIONS) == ALL_MIGRATIONS


# --------------------------------------------------------------------------- datasets registered by path (aggregates)

QUERY = {"label": "y", "scores": {"A": "s"}, "segments": ["region"], "time": None}
OPTIONS = {"resolution": "auto", "scheme": "rows", "thresholds": {"A": 0.5}}


def save_aggregate(store: Store, raw: bytes = b"PK-aggregate-bytes", **kw) -> DatasetRecord:
    args = dict(
        name="Lake Nov",
        source_path="/lake/2026-11-*.parquet",
        query=QUERY,
        options=OPTIONS,
        raw=raw,
        report={"n_rows": 1_000_000},
        n_rows=1_000_000,
        uploader="ana",
    )
    args.update(kw)
    return store.save_aggregate_dataset(**args)


def test_aggregate_dataset_stores_only_its_bytes_with_path_query_and_options(store, data_dir):
    up = save(store)
    rec = save_aggregate(store)
    sha = hashlib.sha256(b"PK-aggregate-bytes").hexdigest()
    assert (rec.kind, rec.is_aggregate, rec.source_path) == ("aggregate", True, "/lake/2026-11-*.parquet")
    assert rec.mapping == QUERY and rec.options == OPTIONS and rec.n_rows == 1_000_000
    assert rec.sha256 == sha and rec.size_bytes == len(b"PK-aggregate-bytes")
    assert store.load_bytes(rec) == b"PK-aggregate-bytes"
    assert sorted(upload_files(data_dir)) == sorted([f"{sha[:2]}/{sha}", f"{up.sha256[:2]}/{up.sha256}"])
    assert store.get_dataset(rec.id).to_dict() == rec.to_dict()
    assert json.loads(json.dumps(rec.to_dict())) == rec.to_dict()
    # uploads are unchanged: kind "upload", no path, no options
    again = store.get_dataset(up.id)
    assert (again.kind, again.source_path, again.options, again.is_aggregate) == ("upload", None, None, False)
    assert [r.kind for r in store.list_datasets()] == ["aggregate", "upload"]


def test_same_aggregate_twice_is_one_record_updated(store, data_dir):
    first = save_aggregate(store)
    second = save_aggregate(store, name="Renamed", options={**OPTIONS, "scheme": "cluster"})
    assert second.id == first.id and second.name == "Renamed" and second.options["scheme"] == "cluster"
    assert count_rows(data_dir, "datasets") == 1 and len(upload_files(data_dir)) == 1


def test_aggregate_dataset_lists_every_invalid_argument(store, data_dir):
    with pytest.raises(InputError) as err:
        save_aggregate(store, name=" ", source_path="", raw=b"", query=[], options={"x": float("nan")}, n_rows=-1)
    assert {p.column for p in err.value.problems} == {"name", "source_path", "raw", "query", "options", "n_rows"}
    assert count_rows(data_dir, "datasets") == 0 and upload_files(data_dir) == []


def test_database_at_version_3_keeps_uploads_as_uploads(data_dir, monkeypatch):
    """A database from before path registration (version 3) gains the columns; its rows are uploads."""
    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:3])
        with Store(data_dir=data_dir) as s:
            assert s.schema_version == 3
            rec = legacy_save(s)
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
        old = s.get_dataset(rec.id)
        assert (old.kind, old.source_path, old.options) == ("upload", None, None)
        assert s.load_bytes(old) == RAW_A
        agg = save_aggregate(s)
        assert s.get_dataset(agg.id).kind == "aggregate"


# --------------------------------------------------------------------------- meeting links (migration 8)

MEETING_COLUMNS = {
    "id",
    "token_sha256",
    "dataset_id",
    "table_name",
    "thresholds",
    "created_by",
    "created_at",
    "expires_at",
    "revoked_at",
    "revoked_by",
}


def test_database_at_version_7_gains_the_meeting_links_table(data_dir, monkeypatch):
    """A database from before meeting links (version 7) gets the table; its data is untouched."""
    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:7])
        with Store(data_dir=data_dir) as s:
            assert s.schema_version == 7
            rec = legacy_save(s)
        assert "meeting_links" not in {r[0] for r in sqlite_rows(data_dir, "SELECT name FROM sqlite_master")}
    with Store(data_dir=data_dir) as s:
        assert s.applied_migrations == [8, 9, 10, 11, 12, 13, 14]
        assert s.load_bytes(s.get_dataset(rec.id)) == RAW_A
        inspector = sa.inspect(s.engine)
        assert {c["name"] for c in inspector.get_columns("meeting_links")} == MEETING_COLUMNS
        uniques = [u["column_names"] for u in inspector.get_unique_constraints("meeting_links")]
        unique_indexes = [i["column_names"] for i in inspector.get_indexes("meeting_links") if i["unique"]]
        assert ["token_sha256"] in uniques + unique_indexes
        assert [(fk["constrained_columns"], fk["referred_table"]) for fk in inspector.get_foreign_keys("meeting_links")] == [
            (["dataset_id"], "datasets")
        ]
    assert sqlite_rows(data_dir, SCHEMA_VERSIONS) == ALL_MIGRATIONS


def _meeting(store, ds_id, *, token_sha256="a" * 64, days=7, audit=None):
    from datetime import datetime, timedelta

    now = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
    return store.create_meeting_link(
        token_sha256=token_sha256,
        dataset_id=ds_id,
        table_name="loan anti-fraud",
        thresholds={"A": 0.5, "B": 0.25},
        created_by="ana",
        created_at=now,
        expires_at=now + timedelta(days=days),
        audit=audit,
    )


def test_meeting_link_create_use_revoke_each_with_its_audit_entry(store):
    from datetime import timedelta

    ds = save(store)
    link = _meeting(store, ds.id, audit=lambda r: ("ana", "create_meeting_link", f"meeting link #{r.id}"))
    assert (link.dataset_id, link.table_name, link.thresholds, link.created_by) == (
        ds.id,
        "loan anti-fraud",
        {"A": 0.5, "B": 0.25},
        "ana",
    )
    assert "token_sha256" not in link.to_dict() and "a" * 64 not in repr(link)
    assert store.get_meeting_link(link.id).to_dict() == link.to_dict()
    inside = link.created_at + timedelta(days=1)
    used = store.use_meeting_link("a" * 64, now=inside, audit=("meeting link #1", "meeting_link_used", "x"))
    assert used.id == link.id
    assert store.use_meeting_link("b" * 64, now=inside, audit=("?", "meeting_link_used")) is None  # unknown
    assert store.use_meeting_link("a" * 64, now=link.expires_at, audit=("?", "meeting_link_used")) is None  # expired
    assert [a.action for a in store.list_audit()] == ["meeting_link_used", "create_meeting_link"]
    assert [r.id for r in store.list_meeting_links(active_at=inside)] == [link.id]
    revoked = store.revoke_meeting_link(link.id, revoked_by="boss", now=inside, audit=("boss", "revoke_meeting_link"))
    assert (revoked.revoked_by, revoked.revoked_at) == ("boss", inside)
    assert store.use_meeting_link("a" * 64, now=inside) is None
    assert store.list_meeting_links(active_at=inside) == [] and len(store.list_meeting_links()) == 1
    with pytest.raises(StateError, match="revoked already"):
        store.revoke_meeting_link(link.id, revoked_by="boss")
    with pytest.raises(NotFoundError):
        store.get_meeting_link(9999)
    assert [a.action for a in store.list_audit()][0] == "revoke_meeting_link"


def test_meeting_link_and_its_audit_entry_commit_together(store, data_dir):
    ds = save(store)
    with pytest.raises(InputError):  # a bad audit entry: no link either
        _meeting(store, ds.id, audit=("", ""))
    assert count_rows(data_dir, "meeting_links") == 0
    link = _meeting(store, ds.id)
    with pytest.raises(InputError):
        store.revoke_meeting_link(link.id, revoked_by="boss", audit=("", ""))
    assert store.get_meeting_link(link.id).revoked_at is None
    with pytest.raises(InputError):
        store.use_meeting_link("a" * 64, now=link.created_at, audit=("", ""))
    assert count_rows(data_dir, "audit_log") == 0


def test_meeting_link_arguments_and_unique_token_hash(store, data_dir):
    from datetime import datetime

    ds = save(store)
    with pytest.raises(InputError) as err:
        store.create_meeting_link(
            token_sha256="not a hash",
            dataset_id=ds.id,
            table_name=" ",
            thresholds=[0.5],
            created_by="",
            expires_at=datetime(2026, 1, 1),
        )
    assert {p.column for p in err.value.problems} == {"token_sha256", "table_name", "thresholds", "created_by", "expires_at"}
    with pytest.raises(InputError, match="must be after created_at"):
        _meeting(store, ds.id, days=0)
    with pytest.raises(NotFoundError):
        _meeting(store, 9999)
    _meeting(store, ds.id)
    with pytest.raises(sa.exc.IntegrityError):  # the database itself keeps token hashes unique
        _meeting(store, ds.id)
    assert count_rows(data_dir, "meeting_links") == 1


def test_deleting_a_dataset_deletes_its_meeting_links(store, data_dir):
    ds = save(store)
    _meeting(store, ds.id)
    store.delete_dataset(ds.id)
    assert count_rows(data_dir, "meeting_links") == 0


def test_display_of_a_value_table_and_a_users_own_choice(store):
    """Loss or value (issue 14 item 8): a value table's display, a user's override; bad values refused."""
    store.save_value_table_draft("t", {"tp": 1.0, "fp": -1.0, "fn": -1.0, "tn": 0.0}, author="a", expected_row_version=0)
    assert store.get_value_table_display("t") is None
    store.set_value_table_display("t", "loss", audit=("a", "set_display", "t", {"display": "loss"}))
    assert store.get_value_table_display("t") == "loss"
    assert store.list_audit(limit=1)[0].action == "set_display"
    with pytest.raises(InputError):
        store.set_value_table_display("t", "profit")
    with pytest.raises(NotFoundError):
        store.set_value_table_display("nope", "loss")
    store.create_user("u", "x" * 60, "viewer")
    assert store.get_user("u").display is None
    assert store.set_user_display("u", "value").display == "value"
    assert store.get_user("u").display == "value"
    assert store.set_user_display("u", None).display is None
