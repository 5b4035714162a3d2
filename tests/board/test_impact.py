"""An impact report that is always useful (issue 16 item 4): for every dataset bound to the table,
computed from the dataset itself (no saved snapshot), previewed before approval and stored at
approval; the verdict-level change first, with units. Numbers checked against a direct
``evalcore.board.evaluate`` of each dataset under each table."""

from __future__ import annotations

from datetime import date

import pytest

from board import services
from board.access import governance as gov
from board.access.auth import User
from board.services import demo, signoff
from board.store import Store
from board.words import impact as impact_words
from board.words.verdict import plain_verdict
from evalcore import ValueTable
from evalcore.board import BoardConfig, evaluate
from evalcore.data import ColumnMapping, read_table, validate
from evalcore.drift import DriftConfig

NAME = services.DEFAULT_TABLE_NAME
V1 = {k: v for k, v in demo.DEMO_VALUE_TABLE.items() if k != "name"}  # FN -22,000 EUR
V2 = {**V1, "fn": -30000.0}
ADMIN = User(username="adam", role="admin")
ANALYST = User(username="ana", role="analyst")
SIGNERS = [User(username=f"s_{r}", role=r) for r in gov.SIGNING_ROLES]


def _upload(store, *, seed: int, drift: bool, name: str):
    raw = demo.demo_frame(seed, drift=drift, n=3000).to_csv(index=False).encode()
    preds = validate(read_table(raw, f"{name}.csv"), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    rec = store.save_dataset(
        name=name, filename=f"{name}.csv", raw=raw, mapping=demo.DEMO_MAPPING, report=preds.summary(), n_rows=preds.n_rows
    )
    return rec, preds


def _propose(store, amounts, label):
    draft = gov.save_draft(store, ANALYST, NAME, dict(amounts), expected_row_version=None, reason="FN cost up")
    return gov.propose_version(
        store, ANALYST, NAME, label=label, effective_date=date(2026, 10, 1), expected_row_version=draft.row_version
    )


def _approve(store, version):
    out = None
    for u in SIGNERS:
        out = signoff.sign_version(store, u, version.id)
    assert out.approved
    return out.report.report


@pytest.fixture
def world(tmp_path, monkeypatch):
    """Two datasets priced with the default table (one unbound, one bound to it), one bound to
    another table; v2026.Q3 (FN -22,000) in force and v2026.Q4 (FN -30,000) proposed; no evaluation saved."""
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    with Store(url=f"sqlite:///{tmp_path / 'i.sqlite'}", data_dir=tmp_path / "data") as s:
        unbound, p1 = _upload(s, seed=1, drift=True, name="week drifting")
        bound, p2 = _upload(s, seed=2, drift=False, name="weeks stable")
        other, _ = _upload(s, seed=3, drift=False, name="priced elsewhere")
        v1 = _propose(s, V1, "v2026.Q3")
        _approve(s, v1)
        gov.bind_table(s, ADMIN, bound.id, NAME)
        gov.create_table(s, ADMIN, "card fraud", dict(V1))
        gov.bind_table(s, ADMIN, other.id, "card fraud")
        v2 = _propose(s, V2, "v2026.Q4")
        assert s.list_evaluations() == []  # nothing saved: the report must not need a snapshot
        yield s, v2, {unbound.id: p1, bound.id: p2}, other.id


def _direct(preds, amounts):
    """The board as evalcore computes it: default thresholds (0.5 for probabilities), the
    customer-clustered bootstrap with IMPACT_RESAMPLES replicates, default drift settings."""
    config = BoardConfig(
        thresholds={"old": 0.5, "new": 0.5},
        n_resamples=signoff.IMPACT_RESAMPLES,
        seed=0,
        scheme="cluster",
        drift=DriftConfig().to_dict(),
    )
    return evaluate(preds, ValueTable.from_dict(amounts), config)


def _check_entry(entry, preds):
    before, after = _direct(preds, V1), _direct(preds, V2)
    assert entry["verdict_before"] == plain_verdict(before).word
    assert entry["verdict_after"] == plain_verdict(after).word
    assert entry["verdict_changed"] == (plain_verdict(before).word != plain_verdict(after).word)
    a, b = entry["model_a"], entry["model_b"]
    assert (a, b) == ("old", "new")
    assert entry["uplift_before"] == pytest.approx(before.models[b].ev - before.models[a].ev, rel=1e-12)
    assert entry["uplift_after"] == pytest.approx(after.models[b].ev - after.models[a].ev, rel=1e-12)
    for m in ("old", "new"):
        row = entry["models"][m]
        assert row["threshold"] == 0.5
        assert row["ev_before"] == pytest.approx(before.models[m].ev, rel=1e-12)
        assert row["ev_after"] == pytest.approx(after.models[m].ev, rel=1e-12)
        assert row["t_opt_before"] == pytest.approx(before.models[m].curve.t_opt, rel=1e-12)
        assert row["t_opt_after"] == pytest.approx(after.models[m].curve.t_opt, rel=1e-12)
        # costlier misses: acting pays on more cases, so the optimum cannot rise; EV at 0.5 falls
        assert row["t_opt_after"] <= row["t_opt_before"] and row["ev_after"] < row["ev_before"]
    assert entry["unit_before"] == entry["unit_after"] == "EUR"
    s = entry["summary"]
    assert s.startswith(f"{plain_verdict(before).word} → {plain_verdict(after).word}; uplift (new − old) ")
    assert s.count(" EUR per decision") == 1 and "optimum threshold old " in s and ", new " in s


def test_preview_lists_every_bound_dataset_with_numbers_of_a_direct_evaluation(world):
    store, v2, preds, other_id = world
    in_force = store.latest_approved_version(NAME)
    entries = signoff.dataset_impacts(store, NAME, in_force.amounts, v2.amounts)
    assert sorted(e["dataset_id"] for e in entries) == sorted(preds)  # both, not the one priced elsewhere
    assert other_id not in {e["dataset_id"] for e in entries}
    for e in entries:
        assert "error" not in e
        _check_entry(e, preds[e["dataset_id"]])


def test_approval_stores_the_same_report_without_any_snapshot(world):
    store, v2, preds, _ = world
    preview = signoff.dataset_impacts(store, NAME, store.latest_approved_version(NAME).amounts, v2.amounts)
    report = _approve(store, v2)
    assert report["evaluations"] == []  # no snapshot existed ...
    assert report["datasets"] == preview  # ... and the report is still there, equal to the preview
    assert (report["unit_before"], report["unit_after"]) == ("EUR", "EUR")
    assert store.list_impact_reports(NAME)[0].report["datasets"] == preview


def _entry(before, after):
    return {
        "verdict_before": before,
        "verdict_after": after,
        "verdict_changed": before != after,
        "model_a": "A",
        "model_b": "B",
        "uplift_before": 36.0,
        "uplift_after": 45.0,
        "unit_before": "EUR",
        "unit_after": "EUR",
        "models": {"B": {"t_opt_before": 0.086, "t_opt_after": 0.068}},
    }


def test_summary_says_the_verdict_first_with_units_and_bolds_only_a_change():
    same = _entry("HOLD", "HOLD")
    assert (
        impact_words.summary(same)
        == "HOLD → HOLD; uplift (B − A) +36.00 → +45.00 EUR per decision; optimum threshold 0.086 → 0.068"
    )
    assert "**" not in impact_words.summary_markdown(same)
    changed = _entry("HOLD", "ROLL OUT B")
    assert impact_words.summary(changed).startswith("HOLD → ROLL OUT B; ")
    assert impact_words.summary_markdown(changed) == f"**{impact_words.summary(changed)}**"
    # a unit change shows each side with its own unit; no version in force: "—" before
    moved = {**same, "unit_before": "USD", "verdict_before": None, "verdict_changed": True}
    assert "+36.00 USD → +45.00 EUR per decision" in impact_words.summary(moved)
    assert impact_words.summary(moved).startswith("— → HOLD")
