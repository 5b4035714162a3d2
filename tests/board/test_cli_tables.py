"""``python -m board tables list|show|export|import`` (issue 16 item 1): value tables as code.
An import is checked like the editor's table and saved as a draft, never as an approved version."""

from __future__ import annotations

import json

import pytest

from board import cli
from board.services import evaluation as ev
from board.store import Store
from evalcore import ValueTable


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    monkeypatch.setenv("EVALBOARD_DATA_DIR", str(tmp_path / "data"))
    with Store() as s:
        ev.ensure_demo(s)
    return tmp_path


def test_export_then_import_round_trips_as_a_draft(data_dir, capsys):
    assert cli.main(["tables", "export", ev.DEFAULT_TABLE_NAME]) == 0
    exported = json.loads(capsys.readouterr().out)
    path = data_dir / "t.json"
    path.write_text(json.dumps({**exported, "name": "car-loan approval"}), encoding="utf-8")
    assert cli.main(["tables", "import", str(path)]) == 0
    assert "draft r1 (not approved" in capsys.readouterr().out
    with Store() as s:
        draft = s.get_value_table_draft("car-loan approval")
        assert s.latest_approved_version("car-loan approval") is None
        a, b = ValueTable.from_dict(draft.amounts).to_dict(), ValueTable.from_dict(exported).to_dict()
        assert {**a, "name": ""} == {**b, "name": ""}
        assert s.list_audit(limit=1, action="create_table")[0].username == "cli"
    # importing into an existing table replaces its open draft (again a draft)
    path.write_text(json.dumps({**exported, "tp": 1.0}), encoding="utf-8")
    assert cli.main(["tables", "import", str(path), "--name", "car-loan approval"]) == 0
    with Store() as s:
        assert s.get_value_table_draft("car-loan approval").amounts["tp"] == 1.0
    assert cli.main(["tables", "list"]) == 0
    out = capsys.readouterr().out
    assert "car-loan approval\tno approved version\tdraft r2\tin use" in out
    assert cli.main(["tables", "show", "car-loan approval"]) == 0
    assert "draft r2 (not approved)" in capsys.readouterr().out


def test_import_is_checked_like_the_editor(data_dir, capsys):
    path = data_dir / "bad.json"
    path.write_text(json.dumps({"name": "x", "tp": "lots", "fp": -1, "fn": -2, "tn": 0, "confidence": {"fp": 2}}))
    assert cli.main(["tables", "import", str(path)]) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "2 problems found" in err and "must be a number" in err
    with Store() as s:
        assert "x" not in s.list_value_tables()
    assert cli.main(["tables", "export", "nope"]) == cli.EXIT_BAD_INPUT


def test_evaluate_with_a_stored_table_names_its_version_and_whether_it_is_approved(data_dir, capsys):
    from board.services import demo
    from tests.board.test_governance import approve, as_role

    csv = data_dir / "demo.csv"
    csv.write_bytes(demo.demo_csv_bytes())
    run = ["evaluate", "--predictions", str(csv), "--label", "is_fraud", "--score", "new=score_new", "--n-resamples", "0"]

    def board(*extra):
        out = data_dir / "b.json"
        assert cli.main([*run, *extra, "--json", str(out)]) == 0
        capsys.readouterr()
        return json.loads(out.read_text(encoding="utf-8"))["value_table"]

    # the demo table is an open draft: priced with it, the JSON says so
    vt = board("--table", ev.DEFAULT_TABLE_NAME)
    assert (vt["name"], vt["version"], vt["approved"]) == (ev.DEFAULT_TABLE_NAME, "draft r1 (not approved)", False)
    assert vt["fn"] == demo.DEMO_VALUE_TABLE["fn"]
    with Store() as s:  # propose and sign it: the same command now prices with the approved version
        from datetime import date

        from board.access import governance as gov

        draft = s.get_value_table_draft(ev.DEFAULT_TABLE_NAME)
        v = gov.propose_version(
            s,
            as_role("analyst"),
            ev.DEFAULT_TABLE_NAME,
            label="v1",
            effective_date=date(2026, 12, 1),
            reason="r",
            expected_row_version=draft.row_version,
        )
        approve(s, v.id, reevaluate=lambda e, a: {})
    vt = board("--table", ev.DEFAULT_TABLE_NAME)
    assert (vt["version"], vt["approved"]) == ("v1 (approved)", True)
    # amounts from a file or the command line are never an approved version
    path = data_dir / "t.json"
    path.write_text(json.dumps(demo.DEMO_VALUE_TABLE), encoding="utf-8")
    assert board("--value-table", str(path))["approved"] is False
    assert board("--tp", "1", "--fp", "-1", "--fn", "-1", "--tn", "0")["version"] == "command-line amounts"
    assert cli.main([*run, "--table", "nope"]) == cli.EXIT_BAD_INPUT
    assert "no value table named 'nope'" in capsys.readouterr().err
    assert cli.main([*run, "--table", ev.DEFAULT_TABLE_NAME, "--tp", "1"]) == cli.EXIT_BAD_INPUT
    assert "give one of --table" in capsys.readouterr().err
