"""board.access.governance through the service layer, on SQLite and (when EVALBOARD_TEST_PG_URL is set) PostgreSQL.

In CI (``CI`` set) the PostgreSQL variants must run: a missing server fails instead of skipping.
"""

from __future__ import annotations

import os
import uuid
from datetime import date

import pytest
import sqlalchemy as sa

from board import services
from board.access import auth
from board.access import governance as gov
from board.access.auth import ROLES, User
from board.services import drift_settings, signoff
from board.store import ConflictError, StateError, Store, migrations
from evalcore import InputError, ValueTable
from evalcore.board import BoardConfig, evaluate
from evalcore.drift import DriftConfig

PG_URL = os.environ.get("EVALBOARD_TEST_PG_URL")
TABLE = {"name": "loan anti-fraud", "tp": 18500.0, "fp": -3200.0, "fn": -22000.0, "tn": 120.0, "unit": "EUR"}


def fresh_db_url(backend: str, tmp_path):
    """A context yielding an empty database URL of ``backend`` (a new PostgreSQL database per test)."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'gov.sqlite'}"
        return
    if not PG_URL:
        if os.environ.get("CI"):
            pytest.fail("EVALBOARD_TEST_PG_URL is not set; CI must run the PostgreSQL variant (see scripts/test.sh).")
        pytest.skip("no PostgreSQL server (set EVALBOARD_TEST_PG_URL; scripts/test.sh starts one when available)")
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    name = f"evalboard_t_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield sa.engine.make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    for url in fresh_db_url(request.param, tmp_path):
        with Store(url=url, data_dir=tmp_path / "data") as s:
            yield s


def as_role(role: str) -> User:
    return User(username=f"u_{role}", role=role)


ADMIN = as_role("admin")


def proposed(store, label="v2026.Q4", amounts=TABLE) -> int:
    """A pending version proposed by an analyst (none of the signers: four-eyes rule)."""
    rec = store.save_value_table_draft(TABLE["name"], dict(amounts), author="u_analyst")
    return store.submit_value_table_draft(
        TABLE["name"],
        label=label,
        effective_date=date(2026, 10, 1),
        reason="new fraud costs",
        author="u_analyst",
        expected_row_version=rec.row_version,
    ).id


def approve(store, vid, reevaluate=None):
    out = None
    for role in gov.SIGNING_ROLES:
        out = signoff.sign_version(store, as_role(role), vid, reevaluate=reevaluate)
    return out


# --------------------------------------------------------------------------- role matrix


def _attempt(store, action: str, user: User):
    """Perform ``action`` as ``user`` on a store prepared for it; returns nothing, raises Forbidden."""
    name = TABLE["name"]
    if action == "edit_draft":
        gov.save_draft(store, user, name, dict(TABLE), expected_row_version=None)
    elif action == "propose_version":
        rec = store.save_value_table_draft(name, dict(TABLE))
        gov.propose_version(
            store, user, name, label="v1", effective_date=date(2026, 1, 1), reason="r", expected_row_version=rec.row_version
        )
    elif action == "reopen_version":
        vid = proposed(store)
        store.reject_version(vid, comment="no")
        gov.reopen_version(store, user, vid)
    elif action == "sign_version":
        signoff.sign_version(store, user, proposed(store), reevaluate=lambda ev, a: {})
    elif action == "reject_version":
        gov.reject_version(store, user, proposed(store), comment="amounts unsourced")
    elif action == "upload_dataset":
        gov.upload_dataset(store, user, name="f", filename="f.csv", raw=b"y,s\n1,0.5\n", mapping={}, report={}, n_rows=1)
    elif action == "save_evaluation":
        ds = services.ensure_demo(store)
        gov.record_evaluation(store, user, ds.id, table_name=name, models=[], config={}, result={})
    elif action == "export":
        gov.record_export(store, user, "board.html")
    elif action == "use_value_tools":
        gov.require(user, action)
    elif action == "edit_settings":
        drift_settings.save_config(store, user, services.ensure_demo(store).id, DriftConfig())
    elif action == "manage_users":
        gov.add_user(store, user, "newbie", "long enough pw", "viewer")
    elif action == "view_audit":
        gov.audit_log(store, user)
    elif action == "view_board":
        gov.require(user, action)
    elif action == "share_board":
        from board.access import meetings

        ds = services.ensure_demo(store)
        meetings.create_meeting_link(store, user, dataset_id=ds.id, table_name=name, thresholds={"A": 0.5})
    elif action == "mark_shadow":
        gov.mark_shadow(store, user, services.ensure_demo(store).id, name)
    else:  # pragma: no cover - a new action must be added here
        raise AssertionError(f"no attempt for {action}")


# Expected matrix written out independently of governance.PERMISSIONS (a typo there must fail here).
EXPECTED = {
    "edit_draft": {"analyst", "business", "risk", "model_owner", "admin"},
    "propose_version": {"analyst", "business", "risk", "model_owner", "admin"},
    "reopen_version": {"analyst", "business", "risk", "model_owner", "admin"},
    "sign_version": {"business", "risk", "model_owner"},
    "reject_version": {"business", "risk", "model_owner"},
    "upload_dataset": {"analyst", "model_owner", "admin"},
    "save_evaluation": {"analyst", "business", "risk", "model_owner", "admin"},
    "edit_settings": {"analyst", "business", "risk", "model_owner", "admin"},
    "export": {"analyst", "business", "risk", "model_owner", "admin"},
    "use_value_tools": {"analyst", "business", "risk", "model_owner", "admin"},
    "manage_users": {"admin"},
    "view_audit": {"admin"},
    "view_board": set(ROLES),
    "share_board": {"admin", "analyst"},
    "mark_shadow": {"model_owner", "risk", "admin"},
}


def test_matrix_covers_every_action():
    assert set(EXPECTED) == set(gov.ACTIONS)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", sorted(EXPECTED))
def test_role_matrix_through_the_service_layer(tmp_path, monkeypatch, action, role):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    with Store(url=f"sqlite:///{tmp_path / 'm.sqlite'}", data_dir=tmp_path / "d") as store:
        n_audit = len(store.list_audit())
        user = as_role(role)
        if role in EXPECTED[action]:
            _attempt(store, action, user)
        else:
            with pytest.raises(gov.Forbidden):
                _attempt(store, action, user)
            # refused before the service call wrote anything: no audit entry for it
            assert len(store.list_audit()) == n_audit


def test_nobody_logged_in_is_refused_everything():
    for action in gov.ACTIONS:
        assert not gov.allowed(None, action)
        with pytest.raises(gov.Forbidden):
            gov.require(None, action)


# --------------------------------------------------------------------------- immutability


def test_database_refuses_to_change_or_delete_an_approved_version(store):
    vid = approve_id = proposed(store)
    approve(store, vid, reevaluate=lambda ev, a: {})
    assert store.get_value_table_version(approve_id).status == "approved"
    for sql in (
        "UPDATE value_table_versions SET amounts = '{}' WHERE id = :v",
        "UPDATE value_table_versions SET status = 'draft' WHERE id = :v",
        "DELETE FROM value_table_versions WHERE id = :v",
    ):
        with pytest.raises(sa.exc.DBAPIError) as info:
            with store.engine.begin() as conn:
                conn.execute(sa.text(sql), {"v": vid})
        assert migrations.APPROVED_IMMUTABLE in str(info.value)
    assert store.get_value_table_version(vid).amounts == TABLE
    # other versions stay editable: the trigger is about approved rows only
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE value_table_versions SET reason = 'x' WHERE id <> :v"), {"v": vid})


def test_a_change_after_approval_is_a_new_version(store):
    vid = proposed(store)
    approve(store, vid, reevaluate=lambda ev, a: {})
    rec = gov.save_draft(store, as_role("business"), TABLE["name"], {**TABLE, "fn": -30000.0}, expected_row_version=0)
    assert rec.id != vid and rec.status == "draft"
    assert store.get_value_table_version(vid).amounts["fn"] == -22000.0
    assert gov.current_version(store, TABLE["name"]).id == vid  # the approved one until the new one is approved


# --------------------------------------------------------------------------- sign-off flow


def test_three_signatures_approve_and_each_role_signs_once(store):
    vid = proposed(store)
    r1 = signoff.sign_version(store, as_role("business"), vid)
    assert r1.version.status == "pending" and not r1.approved and r1.report is None
    with pytest.raises(StateError):
        signoff.sign_version(store, User(username="other_business", role="business"), vid)
    r2 = signoff.sign_version(store, as_role("risk"), vid)
    assert r2.version.status == "pending"
    r3 = signoff.sign_version(store, as_role("model_owner"), vid, reevaluate=lambda ev, a: {})
    assert r3.approved and r3.version.decided_at is not None
    assert [s.role for s in r3.signoffs] == ["business", "risk", "model_owner"]
    with pytest.raises(StateError):  # nothing more to sign
        signoff.sign_version(store, as_role("risk"), vid)
    actions = [a.action for a in store.list_audit()]
    assert actions[:2] == ["approve_version", "sign_version"] and actions.count("sign_version") == 3


def test_rejection_then_resubmission_starts_the_signatures_over(store):
    vid = proposed(store)
    signoff.sign_version(store, as_role("business"), vid)
    rec = gov.reject_version(store, as_role("risk"), vid, comment="FN amount has no source")
    assert rec.status == "rejected" and rec.decision_comment == "FN amount has no source"
    with pytest.raises(StateError):
        signoff.sign_version(store, as_role("model_owner"), vid)
    draft = gov.reopen_version(store, as_role("business"), vid)
    assert draft.status == "draft" and store.list_signoffs(vid) == []
    draft = gov.save_draft(
        store,
        as_role("business"),
        TABLE["name"],
        {**TABLE, "fn": -21000.0},
        expected_row_version=draft.row_version,
        reason="sourced from the 2026 loss report",
    )
    again = gov.propose_version(
        store,
        as_role("analyst"),
        TABLE["name"],
        label="v2026.Q4",
        effective_date=date(2026, 10, 1),
        reason="sourced",
        expected_row_version=draft.row_version,
    )
    assert again.id == vid and again.status == "pending"
    assert approve(store, vid, reevaluate=lambda ev, a: {}).approved
    assert store.get_value_table_version(vid).amounts["fn"] == -21000.0


def test_reject_needs_a_comment_and_a_pending_version(store):
    from evalcore import InputError

    vid = proposed(store)
    with pytest.raises(InputError):
        gov.reject_version(store, as_role("risk"), vid, comment="  ")
    approve(store, vid, reevaluate=lambda ev, a: {})
    with pytest.raises(StateError):
        gov.reject_version(store, as_role("risk"), vid, comment="too late")


def test_propose_needs_label_reason_date_and_a_fresh_row_version(store):
    from evalcore import InputError

    rec = store.save_value_table_draft(TABLE["name"], dict(TABLE))
    with pytest.raises(InputError) as info:
        gov.propose_version(
            store,
            as_role("business"),
            TABLE["name"],
            label="draft",
            effective_date="2026-10-01",
            reason="",
            expected_row_version=rec.row_version,
        )
    assert sorted(p.column for p in info.value.problems) == ["effective_date", "label", "reason"]
    with pytest.raises(ConflictError):
        gov.propose_version(
            store,
            as_role("business"),
            TABLE["name"],
            label="v1",
            effective_date=date(2026, 1, 1),
            reason="r",
            expected_row_version=rec.row_version + 1,
        )
    assert store.get_value_table_draft(TABLE["name"]).status == "draft"


# --------------------------------------------------------------------------- concurrency


def test_second_concurrent_save_gets_a_conflict_showing_the_first_change(store):
    name = TABLE["name"]
    base = store.save_value_table_draft(name, dict(TABLE))
    gov.save_draft(store, as_role("business"), name, {**TABLE, "fp": -4000.0}, expected_row_version=base.row_version)
    with pytest.raises(ConflictError) as info:
        gov.save_draft(store, as_role("risk"), name, {**TABLE, "tn": 150.0}, expected_row_version=base.row_version)
    assert info.value.current.amounts["fp"] == -4000.0 and info.value.current.author == "u_business"
    assert "-4000.0" in str(info.value) and "u_business" in str(info.value)
    # nothing lost: the first change is stored, and the second applies on top after a reload
    rec = gov.save_draft(
        store,
        as_role("risk"),
        name,
        {**info.value.current.amounts, "tn": 150.0},
        expected_row_version=info.value.current.row_version,
    )
    assert (rec.amounts["fp"], rec.amounts["tn"]) == (-4000.0, 150.0)


# --------------------------------------------------------------------------- impact report


def _stored_evaluation(store, ds, amounts, config):
    preds = services.load_predictions(store, ds.id)
    result = evaluate(preds, ValueTable.from_dict(amounts), config).to_dict()
    return ds, preds, result


def test_impact_report_equals_a_fresh_evaluation_with_the_new_table(store):
    config = BoardConfig(n_resamples=0)
    name = services.DEFAULT_TABLE_NAME
    ds = services.ensure_demo(store)  # the demo dataset and the demo table's draft
    v1_amounts = dict(store.get_value_table_draft(name).amounts)
    v1 = store.submit_value_table_draft(
        name,
        label="v2026.Q3",
        effective_date=date(2026, 7, 1),
        reason="first",
        author="b",
        expected_row_version=store.get_value_table_draft(name).row_version,
    )
    approve(store, v1.id)  # the first approval: no evaluation yet, an empty report
    ds, preds, before = _stored_evaluation(store, ds, v1_amounts, config)
    ev_id = gov.record_evaluation(
        store, as_role("analyst"), ds.id, table_name=name, models=list(before["models"]), config=config.to_dict(), result=before
    )
    assert store.get_evaluation(ev_id).value_table_version_id == v1.id
    assert store.get_evaluation(ev_id).result["table_version"] == "v2026.Q3"
    # FN four times as costly: acting becomes cheaper than missing, the optimum threshold drops
    v2_amounts = {**v1_amounts, "fn": v1_amounts["fn"] * 4}
    draft = store.save_value_table_draft(name, v2_amounts, expected_row_version=0)
    v2 = store.submit_value_table_draft(
        name,
        label="v2026.Q4",
        effective_date=date(2026, 10, 1),
        reason="fraud up",
        author="b",
        expected_row_version=draft.row_version,
    )
    out = approve(store, v2.id)
    report = out.report.report
    assert report["from_version"] == "v2026.Q3" and report["to_version"] == "v2026.Q4"
    (entry,) = report["evaluations"]
    assert entry["evaluation_id"] == ev_id
    fresh = evaluate(preds, ValueTable.from_dict(v2_amounts), config).to_dict()
    for m, row in entry["models"].items():
        assert row["ev_after"] == pytest.approx(fresh["models"][m]["at_threshold"]["ev"], rel=1e-12)
        assert row["ev_before"] == pytest.approx(before["models"][m]["at_threshold"]["ev"], rel=1e-12)
        assert row["t_opt_after"] == pytest.approx(fresh["models"][m]["curve"]["t_opt"], rel=1e-12)
        assert row["t_opt_moved"] == pytest.approx(
            fresh["models"][m]["curve"]["t_opt"] - before["models"][m]["curve"]["t_opt"], rel=1e-12
        )
        assert row["t_opt_moved"] < 0  # costlier misses -> act on more cases
    evs_after = {m: fresh["models"][m]["at_threshold"]["ev"] for m in fresh["models"]}
    best = max(evs_after, key=evs_after.get)
    assert entry["models"][best]["rank_after"] == 1
    assert entry["action_after"] == fresh["action"] and entry["action_before"] == before["action"]
    assert entry["action_changed"] == (fresh["action"] != before["action"])
    assert [r.id for r in store.list_impact_reports(name)][0] == out.report.id


def test_impact_report_ranks_and_moves_by_hand():
    # two models; before: A 10 > B 5; after: A 1 < B 7 -> both ranks swap; t_opt 0.5 -> 0.3 moves -0.2
    before = {
        "models": {
            "A": {"at_threshold": {"ev": 10.0}, "curve": {"t_opt": 0.5}},
            "B": {"at_threshold": {"ev": 5.0}, "curve": {"t_opt": 0.4}},
        },
        "action": "Ship A",
    }
    after = {
        "models": {
            "A": {"at_threshold": {"ev": 1.0}, "curve": {"t_opt": 0.3}},
            "B": {"at_threshold": {"ev": 7.0}, "curve": {"t_opt": 0.4}},
        },
        "action": "Ship B",
    }
    rep = signoff.impact_report(before, after)
    assert (rep["models"]["A"]["rank_before"], rep["models"]["A"]["rank_after"]) == (1, 2)
    assert (rep["models"]["B"]["rank_before"], rep["models"]["B"]["rank_after"]) == (2, 1)
    assert rep["models"]["A"]["ev_change"] == pytest.approx(-9.0)
    assert rep["models"]["A"]["t_opt_moved"] == pytest.approx(-0.2)
    assert rep["models"]["B"]["t_opt_moved"] == 0.0
    assert rep["rank_changed"] and rep["action_changed"]


# --------------------------------------------------------------------------- accounts and audit


def test_admin_manages_users_and_everything_is_audited(store):
    gov.create_first_admin(store, "root", "a long admin password")
    with pytest.raises(gov.Forbidden):
        gov.create_first_admin(store, "second", "a long admin password")
    root = User(username="root", role="admin")
    gov.add_user(store, root, "bea", "business pass 1", "business")
    with pytest.raises(InputError, match="An account named 'bea' already exists"):
        gov.add_user(store, root, "bea", "business pass 2", "business")
    with pytest.raises(InputError, match="unknown role 'superuser'"):
        gov.add_user(store, root, "x", "long enough pw", "superuser")
    assert [u.username for u in gov.list_users(store, root)] == ["bea", "root"]
    gov.disable_user(store, root, "bea")
    with pytest.raises(auth.LoginFailed):
        auth.authenticate(store, "bea", "business pass 1")
    gov.disable_user(store, root, "bea", active=True)
    gov.reset_password(store, root, "bea", "a brand new password")
    assert auth.authenticate(store, "bea", "a brand new password").role == "business"
    with pytest.raises(gov.Forbidden):
        gov.disable_user(store, root, "root")
    log = gov.audit_log(store, root)[::-1]
    assert [(a.username, a.action) for a in log] == [
        ("root", "create_first_admin"),
        ("root", "add_user"),
        ("root", "disable_user"),
        ("bea", "login_failed"),  # the disabled account's attempt (issue 17, F16)
        ("root", "enable_user"),
        ("root", "reset_password"),
        ("bea", "login"),
    ]
    assert log[3].detail["reason"] == "disabled" and all(a.at is not None for a in log)
    assert "business pass" not in str([a.to_dict() for a in log]) and "brand new" not in str([a.to_dict() for a in log])
