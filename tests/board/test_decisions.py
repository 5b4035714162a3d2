"""The meeting's decision, recorded (issue 16 item 5): the store part, its immutability in the
database (like approved versions: UPDATE, DELETE, INSERT OR REPLACE, upserts, TRUNCATE refused),
the audit entry in the same transaction, and governance's role check -- on SQLite and (when
EVALBOARD_TEST_PG_URL is set; required in CI) PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from board.access import governance as gov
from board.access.auth import ROLES, User
from board.store import DecisionRecord, NotFoundError, Store, migrations
from evalcore import InputError
from tests.board.test_governance import fresh_db_url

TABLE = {"name": "loan anti-fraud", "tp": 18500.0, "fp": -3200.0, "fn": -22000.0, "tn": 120.0, "unit": "EUR"}
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    for url in fresh_db_url(request.param, tmp_path):
        with Store(url=url, data_dir=tmp_path / "data") as s:
            yield s


def dataset(store: Store, raw: bytes = b"label,score\n1,0.9\n0,0.1\n") -> int:
    return store.save_dataset(name="Week 48", filename="w48.csv", raw=raw, mapping={"label": "label"}, report={}, n_rows=2).id


def snapshot_args(ev_gain: float = 216.7) -> dict:
    return {
        "models": ["old", "new"],
        "config": {"thresholds": {"old": 0.05, "new": 0.09}},
        "result": {"comparison": {"a": "old", "b": "new", "diff_ev": ev_gain}},
        "version": None,
        "export_html": "<html>the board</html>",
    }


def decision_args(**kw) -> dict:
    args = dict(
        table_name=TABLE["name"],
        table_version="v2026.Q4",
        kind="roll out",
        model="new",
        thresholds={"old": 0.05, "new": 0.5},
        rationale="Clear win; watch the small-loan segment.",
        present=["anna", " ben ", ""],
    )
    args.update(kw)
    return args


def record(store: Store, ds: int, **kw) -> DecisionRecord:
    ev = store.save_evaluation(ds, models=["old", "new"], config={}, result={})
    args = decision_args(**kw)
    args.setdefault("decided_by", "anna")
    return store.record_decision(dataset_id=ds, evaluation_id=ev, **args)


# --------------------------------------------------------------------------- store: record, list, last


def test_record_list_and_last(store):
    ds = dataset(store)
    assert store.last_decision() is None and store.list_decisions() == []
    first = record(store, ds, decided_at=NOW - timedelta(days=7), kind="keep", model="old")
    second = record(store, ds, decided_at=NOW)
    assert second.kind == "roll out" and second.model == "new" and second.threshold == 0.5
    assert second.present == ("anna", "ben")  # stripped, blanks dropped
    assert second.rationale == "Clear win; watch the small-loan segment."
    assert second.decided_at == NOW and second.decided_by == "anna"
    assert [d.id for d in store.list_decisions()] == [second.id, first.id]  # newest first
    assert store.last_decision().id == second.id
    assert store.last_decision(table_name="another table") is None
    assert store.last_decision(dataset_id=ds).to_dict()["thresholds"] == {"old": 0.05, "new": 0.5}
    other = dataset(store, raw=b"label,score\n1,0.8\n0,0.2\n")
    assert store.list_decisions(dataset_id=other) == []


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"kind": "ship it"}, "kind must be one of"),
        ({"rationale": "   "}, "rationale must not be empty"),
        ({"thresholds": {"old": 0.05}}, "no threshold for the decided model 'new'"),
        ({"thresholds": {"old": 0.05, "new": float("nan")}}, "finite numbers"),
        ({"present": "anna, ben"}, "present must be a list of names"),
        ({"decided_by": ""}, "decided_by must not be empty"),
    ],
)
def test_a_malformed_decision_is_refused_and_nothing_written(store, change, match):
    ds = dataset(store)
    with pytest.raises(InputError, match=match):
        record(store, ds, **change)
    assert store.list_decisions() == []
    assert store.list_audit(action="record_decision") == []


def test_the_snapshot_must_exist_and_be_of_the_same_dataset(store):
    ds = dataset(store)
    other = dataset(store, raw=b"label,score\n1,0.8\n0,0.2\n")
    ev_other = store.save_evaluation(other, models=["old"], config={}, result={})
    with pytest.raises(NotFoundError, match="evaluation"):
        store.record_decision(dataset_id=ds, evaluation_id=ev_other, decided_by="anna", **decision_args())
    with pytest.raises(NotFoundError, match="evaluation"):
        store.record_decision(dataset_id=ds, evaluation_id=ev_other + 100, decided_by="anna", **decision_args())
    assert store.list_decisions() == []


def test_the_audit_entry_is_written_in_the_same_transaction(store):
    ds = dataset(store)
    rec = record(store, ds, audit=lambda r: ("anna", "record_decision", TABLE["name"], {"decision_id": r.id}))
    (entry,) = store.list_audit(action="record_decision")
    assert entry.detail == {"decision_id": rec.id} and entry.username == "anna"
    # a failing audit entry (an action that is blank) takes the decision with it
    with pytest.raises(InputError, match="action"):
        record(store, ds, audit=("anna", ""))
    assert [d.id for d in store.list_decisions()] == [rec.id]


# --------------------------------------------------------------------------- immutability in the database


def refused(store: Store, sql: str, params: dict) -> None:
    with pytest.raises(sa.exc.DBAPIError) as info:
        with store.engine.begin() as conn:
            conn.execute(sa.text(sql), params)
    assert migrations.DECISIONS_IMMUTABLE in str(info.value), sql


def rows(store: Store) -> list:
    with store.engine.connect() as conn:
        return conn.execute(sa.text("SELECT * FROM decisions ORDER BY id")).all()


COLS = "(id, dataset_id, table_name, table_version, kind, model, thresholds, rationale, present, decided_by, decided_at, evaluation_id)"
VALUES = "VALUES (:id, :ds, 't', 'v', 'hold', 'old', '{\"old\": 0.9}', 'rewritten', '[]', 'mallory', :now, :ev)"


def test_a_recorded_decision_cannot_be_updated_deleted_replaced_or_upserted(store):
    ds = dataset(store)
    rec = record(store, ds)
    before = rows(store)
    row = {"id": rec.id, "ds": ds, "ev": rec.evaluation_id, "now": NOW}
    refused(store, "UPDATE decisions SET rationale = 'rewritten' WHERE id = :id", row)
    refused(store, "UPDATE decisions SET kind = 'hold'", row)
    refused(store, "DELETE FROM decisions WHERE id = :id", row)
    refused(store, "DELETE FROM decisions", row)
    if store.engine.dialect.name == "sqlite":
        # REPLACE deletes the conflicting row without firing DELETE triggers
        refused(store, f"INSERT OR REPLACE INTO decisions {COLS} {VALUES}", row)
        refused(store, f"REPLACE INTO decisions {COLS} {VALUES}", row)
        refused(store, "UPDATE OR REPLACE decisions SET rationale = 'rewritten' WHERE id = :id", row)
    else:
        refused(store, "TRUNCATE decisions", row)
        refused(store, "TRUNCATE decisions, evaluations, datasets CASCADE", row)
    refused(store, f"INSERT INTO decisions {COLS} {VALUES} ON CONFLICT (id) DO UPDATE SET rationale = 'rewritten'", row)
    assert rows(store) == before
    # a new decision is always possible: that is how a meeting changes its mind
    again = record(store, ds, kind="hold", model="old", thresholds={"old": 0.05})
    assert store.last_decision().id == again.id


def test_the_database_refuses_an_unknown_kind(store):
    ds = dataset(store)
    rec = record(store, ds)
    with pytest.raises(sa.exc.IntegrityError):
        with store.engine.begin() as conn:
            conn.execute(
                sa.text(f"INSERT INTO decisions {COLS} {VALUES.replace(chr(39) + 'hold' + chr(39), chr(39) + 'ship' + chr(39))}"),
                {"id": rec.id + 10, "ds": ds, "ev": rec.evaluation_id, "now": NOW},
            )


# --------------------------------------------------------------------------- governance


@pytest.mark.parametrize("role", ROLES)
def test_record_decision_needs_the_save_evaluation_permission(store, role):
    ds = dataset(store)
    actor = User(username=f"u_{role}", role=role)
    if role not in gov.PERMISSIONS["save_evaluation"]:
        with pytest.raises(gov.Forbidden, match="save evaluation is not allowed"):
            gov.record_decision(store, actor, ds, snapshot=snapshot_args(), **decision_args())
        assert store.list_decisions() == [] and store.list_evaluations() == []
        return
    rec = gov.record_decision(store, actor, ds, snapshot=snapshot_args(), **decision_args())
    assert rec.decided_by == actor.username
    (ev,) = store.list_evaluations()
    assert rec.evaluation_id == ev.id
    assert store.get_evaluation_html(ev.id) == "<html>the board</html>"  # the snapshot keeps its export
    audit = store.list_audit(limit=2)
    assert [a.action for a in audit] == ["record_decision", "save_evaluation"]
    assert audit[0].detail["decision_id"] == rec.id and audit[0].detail["evaluation_id"] == ev.id


def test_a_refused_decision_saves_no_snapshot(store):
    ds = dataset(store)
    with pytest.raises(InputError, match="rationale"):
        gov.record_decision(
            store, User(username="anna", role="analyst"), ds, snapshot=snapshot_args(), **decision_args(rationale="")
        )
    assert store.list_evaluations() == [] and store.list_decisions() == []


def test_the_snapshot_and_the_decision_land_together_or_not_at_all(store):
    ds = dataset(store)
    snap = {k: v for k, v in snapshot_args().items() if k != "version"}
    # the decision's audit entry fails after the snapshot was added: the snapshot goes with it
    with pytest.raises(InputError, match="action"):
        store.record_decision(dataset_id=ds, snapshot=snap, decided_by="anna", audit=("anna", ""), **decision_args())
    assert store.list_evaluations() == [] and store.list_decisions() == []
    rec = store.record_decision(dataset_id=ds, snapshot=snap, decided_by="anna", **decision_args())
    (ev,) = store.list_evaluations()
    assert rec.evaluation_id == ev.id and store.get_evaluation_html(ev.id) == "<html>the board</html>"
    with pytest.raises(TypeError, match="exactly one"):
        store.record_decision(dataset_id=ds, snapshot=snap, evaluation_id=ev.id, decided_by="anna", **decision_args())


def test_a_dataset_with_a_decision_is_not_deleted_and_says_why(store):
    from board.store import DatasetInUseError

    ds = dataset(store)
    record(store, ds)
    for with_evaluations in (False, True):
        with pytest.raises(DatasetInUseError, match="1 recorded decision"):
            store.delete_dataset(ds, with_evaluations=with_evaluations)
    assert store.get_dataset(ds).id == ds and len(store.list_decisions(dataset_id=ds)) == 1
    assert len(store.list_evaluations(ds)) == 1


# --------------------------------------------------------------------------- the line on the next board


def test_the_last_decision_line_says_what_changed_since():
    from types import SimpleNamespace

    from board.words.decision import last_decision_line
    from board.words.lens import Lens

    d = SimpleNamespace(
        kind="roll out", model="new", threshold=0.5, decided_at=NOW, decided_by="anna", rationale="Clear  win;\nwatch small loans"
    )
    head = "Last decision: ROLL OUT new at 0.5 on 2026-12-01 by anna — Clear win; watch small loans"
    kw = dict(verdict_kind="roll out", verdict_word="ROLL OUT new", verdict_then="ROLL OUT new", unit="EUR")
    assert (
        last_decision_line(d, **kw, then=216.7, now=180.04)
        == f"{head}. Since then: the gain per decision moved from +216.7 EUR to +180.0 EUR."
    )
    assert (
        last_decision_line(d, **kw, then=216.7, now=216.7)
        == f"{head}. Since then: the gain per decision is unchanged (+216.7 EUR)."
    )
    loss = last_decision_line(d, **kw, then=216.7, now=180.04, lens=Lens("loss"))
    assert loss.endswith("the change in loss per decision moved from -216.7 EUR to -180.0 EUR.")
    # the verdict changed since: said first, whatever the numbers
    now_keep = dict(kw, verdict_kind="keep", verdict_word="KEEP old")
    assert last_decision_line(d, **now_keep, then=216.7, now=3.0) == f"{head}. Since then: the board now says KEEP old."
    # a meeting that overruled its board (no verdict kept with the snapshot): compared with the decision
    assert last_decision_line(d, **dict(now_keep, verdict_then=None)).endswith("the board now says KEEP old.")
    # nothing to compare: the line alone; a long rationale is shortened
    long = SimpleNamespace(**{**vars(d), "rationale": "x" * 200, "kind": "hold", "model": "old", "threshold": None})
    line = last_decision_line(long, verdict_kind="hold", verdict_word="HOLD", unit="EUR")
    assert line.startswith("Last decision: HOLD on 2026-12-01 by anna — xxx") and line.endswith("x…") and len(line) < 160
