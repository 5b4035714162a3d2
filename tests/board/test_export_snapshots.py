"""A snapshot keeps its export: the board's HTML stored with the evaluation (migration 10, gzip),
read back byte for byte, listed without loading it, and offered for download on the Datasets
page. On SQLite, and on PostgreSQL when EVALBOARD_TEST_PG_URL is set."""

import gzip

import pytest
import sqlalchemy as sa

from board.store import NotFoundError, Store, migrations
from evalcore._errors import InputError
from tests.app.conftest import app  # noqa: F401 - the AppTest fixture
from tests.board.test_governance import fresh_db_url

# a board export is megabytes of mostly plotly.js; any text (names included) comes back as it went in
HTML = "<!DOCTYPE html><html><body>Decision board · “müller” <b>HOLD</b></body></html>" + "x" * 200_000


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    for url in fresh_db_url(request.param, tmp_path):
        with Store(url=url, data_dir=tmp_path / "data") as s:
            yield s


def _dataset(store: Store, raw: bytes = b"label\n1\n0\n"):
    return store.save_dataset(
        name="October", filename="oct.csv", raw=raw, mapping={"label": "label"}, report={"ok": True}, n_rows=2
    )


def test_migration_adds_a_nullable_export_column(store):
    assert migrations.MIGRATIONS[9].__name__ == "_m0010_evaluation_exports"  # step 10
    cols = {c["name"]: c for c in sa.inspect(store.engine).get_columns("evaluations")}
    assert "export_html_gz" in cols and cols["export_html_gz"]["nullable"]


def test_a_snapshot_keeps_its_html(store):
    rec = _dataset(store)
    with_html = store.save_evaluation(rec.id, models=["old", "new"], config={}, result={"ev": 1.0}, export_html=HTML)
    without = store.save_evaluation(rec.id, models=["old"], config={}, result={"ev": 2.0})
    assert store.get_evaluation_html(with_html) == HTML
    assert store.get_evaluation_html(without) is None
    assert store.evaluations_with_html(rec.id) == {with_html}
    assert store.evaluations_with_html() == {with_html}
    assert [e.id for e in store.list_evaluations(rec.id)] == [without, with_html]  # listing unchanged
    with store.engine.connect() as conn:
        packed = conn.execute(sa.text("SELECT export_html_gz FROM evaluations WHERE id = :i"), {"i": with_html}).scalar_one()
    assert len(packed) < len(HTML.encode()) / 10 and gzip.decompress(packed).decode() == HTML  # stored compressed


def test_export_html_errors(store):
    rec = _dataset(store)
    with pytest.raises(InputError, match="export_html must be a str .* got bytes"):
        store.save_evaluation(rec.id, models=[], config={}, result={}, export_html=b"<html>")
    assert store.list_evaluations() == []  # nothing half-written
    with pytest.raises(NotFoundError, match="No evaluation with id 99"):
        store.get_evaluation_html(99)


def test_deleting_the_dataset_deletes_its_snapshots_exports(store):
    rec = _dataset(store)
    store.save_evaluation(rec.id, models=["A"], config={}, result={}, export_html=HTML)
    store.delete_dataset(rec.id, with_evaluations=True)
    assert store.evaluations_with_html() == set()


def test_snapshots_from_before_the_migration_have_no_export(tmp_path, monkeypatch):
    data = tmp_path / "data"
    full = list(migrations.MIGRATIONS)
    monkeypatch.setattr(migrations, "MIGRATIONS", full[:-1])
    with Store(data_dir=data) as s:
        rec = _dataset(s)
        with s.engine.begin() as conn:  # written as the code before step 10 wrote it (no such column)
            conn.execute(
                sa.text(
                    "INSERT INTO evaluations (dataset_id, models, config, result, created_at) "
                    "VALUES (:d, '[]', '{}', '{}', CURRENT_TIMESTAMP)"
                ),
                {"d": rec.id},
            )
    monkeypatch.setattr(migrations, "MIGRATIONS", full)
    with Store(data_dir=data) as s:
        assert s.schema_version == len(full)
        (old,) = s.list_evaluations()
        assert s.get_evaluation_html(old.id) is None and s.evaluations_with_html() == set()
        new = s.save_evaluation(rec.id, models=[], config={}, result={}, export_html=HTML)
        assert s.get_evaluation_html(new) == HTML


def test_the_datasets_page_offers_each_kept_export(app, tmp_path):  # noqa: F811
    at = app("views/datasets.py")
    ds = at.session_state["dataset"]
    with Store(data_dir=tmp_path / "data") as s:
        kept = s.save_evaluation(ds, models=["old", "new"], config={}, result={"table_version": "v1"}, export_html=HTML)
        old = s.save_evaluation(ds, models=["old", "new"], config={}, result={"table_version": "v1"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    buttons = {b.key: b for b in at.get("download_button")}
    assert f"datasets_snapshot_{kept}" in buttons and f"datasets_snapshot_{old}" not in buttons
    assert any(c.value == "no export kept" for c in at.caption)
    assert any(e.label.startswith("Snapshots of") and "(2)" in e.label for e in at.expander)
