"""Several value tables (issue 16 item 1): each dataset bound to one; tables created from a
template or by cloning, archived; the governance around it (editors only, audited). On SQLite
and, with EVALBOARD_TEST_PG_URL, on PostgreSQL (the ``store`` fixture of test_governance)."""

from __future__ import annotations

from datetime import date

import pytest

from board.access import governance as gov
from board.services import evaluation as ev
from board.services.demo import DEMO_VALUE_TABLE
from board.store import NotFoundError, StateError
from evalcore import InputError, ValueTable
from tests.board.test_governance import as_role, store  # noqa: F401 - the two-database fixture

CAR_LOAN = {"tp": 900.0, "fp": -150.0, "fn": -4000.0, "tn": 10.0, "unit": "CHF"}


def upload(s, raw: bytes = b"label,score\n1,0.9\n0,0.2\n", label: str = "label"):
    return s.save_dataset(
        name="car loans", filename="car.csv", raw=raw, mapping={"label": label}, report={}, n_rows=2, uploader="u"
    )


def test_a_dataset_is_bound_to_the_default_table_until_bound_to_another(store):  # noqa: F811
    ds = upload(store)
    assert store.get_dataset_value_table(ds.id) is None
    assert ev.bound_table_name(store, ds.id) == ev.DEFAULT_TABLE_NAME
    gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    gov.bind_table(store, as_role("analyst"), ds.id, "car-loan approval")
    assert store.get_dataset_value_table(ds.id) == "car-loan approval"
    assert ev.bound_table_name(store, ds.id) == "car-loan approval"
    assert store.dataset_value_tables() == {ds.id: "car-loan approval"}
    # the binding survives uploading the same bytes again (same dataset row)
    assert upload(store).id == ds.id and store.get_dataset_value_table(ds.id) == "car-loan approval"
    entry = store.list_audit(limit=1, action="bind_value_table")[0]
    assert (entry.username, entry.target, entry.detail) == ("u_analyst", str(ds.id), {"from": None, "to": "car-loan approval"})
    gov.bind_table(store, as_role("analyst"), ds.id, None)
    assert ev.bound_table_name(store, ds.id) == ev.DEFAULT_TABLE_NAME


def test_binding_is_refused_for_viewers_unknown_tables_and_datasets(store):  # noqa: F811
    ds = upload(store)
    gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    with pytest.raises(gov.Forbidden):
        gov.bind_table(store, as_role("viewer"), ds.id, "car-loan approval")
    with pytest.raises(NotFoundError, match="No value table named 'nope'"):
        store.set_dataset_value_table(ds.id, "nope")
    with pytest.raises(NotFoundError, match="No dataset with id 999"):
        store.set_dataset_value_table(999, "car-loan approval")
    assert store.get_dataset_value_table(ds.id) is None
    assert store.list_audit(limit=5, action="bind_value_table") == []


def test_new_table_from_a_template_is_a_draft_and_audited(store):  # noqa: F811
    rec = gov.create_table(store, as_role("business"), "card fraud", ev.template_amounts("all zeros", unit="USD"))
    assert (rec.table_name, rec.status, rec.row_version, rec.author) == ("card fraud", "draft", 1, "u_business")
    table = ValueTable.from_dict(store.get_value_table_draft("card fraud").amounts)
    assert (table.name, table.unit, table.effective()) == ("card fraud", "USD", {"tp": 0.0, "fp": 0.0, "fn": 0.0, "tn": 0.0})
    demo = gov.create_table(store, as_role("business"), "demo copy", ev.template_amounts("demo amounts"))
    assert {k: demo.amounts[k] for k in ("tp", "fp", "fn", "tn", "unit")} == {
        k: DEMO_VALUE_TABLE[k] for k in ("tp", "fp", "fn", "tn", "unit")
    }
    assert demo.amounts["name"] == "demo copy"
    assert store.latest_approved_version("card fraud") is None  # never approved by being created
    assert [e.target for e in store.list_audit(limit=5, action="create_table")] == ["demo copy", "card fraud"]


def test_new_table_is_checked_like_the_editor_and_names_are_unique(store):  # noqa: F811
    with pytest.raises(InputError, match="must be finite"):
        gov.create_table(store, as_role("analyst"), "bad", {**CAR_LOAN, "fp": float("inf")})
    gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    with pytest.raises(StateError, match="exists already"):
        gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    with pytest.raises(gov.Forbidden):
        gov.create_table(store, as_role("viewer"), "other", CAR_LOAN)
    assert store.list_value_tables() == ["car-loan approval"]


def test_clone_copies_the_current_amounts_under_a_new_name(store):  # noqa: F811
    gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    clone = gov.clone_table(store, as_role("risk"), "car-loan approval", "car-loan approval 2027")
    assert clone.status == "draft"
    a = ValueTable.from_dict(store.get_value_table_draft("car-loan approval").amounts).to_dict()
    b = ValueTable.from_dict(clone.amounts).to_dict()
    assert {**a, "name": None} == {**b, "name": None} and b["name"] == "car-loan approval 2027"
    entry = store.list_audit(limit=1, action="clone_table")[0]
    assert entry.detail["source"] == "car-loan approval"
    with pytest.raises(NotFoundError, match="nothing"):
        gov.clone_table(store, as_role("risk"), "nothing", "x")


def test_archived_table_leaves_the_selectors_but_keeps_its_history(store):  # noqa: F811
    ds = upload(store)
    gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    gov.create_table(store, as_role("analyst"), "old decision", CAR_LOAN)
    gov.bind_table(store, as_role("analyst"), ds.id, "old decision")
    info = gov.archive_table(store, as_role("analyst"), "old decision")
    assert info.archived
    assert ev.active_table_names(store) == ["car-loan approval"]
    assert [t.name for t in store.list_value_table_infos()] == ["car-loan approval", "old decision"]
    assert store.get_value_table_draft("old decision") is not None  # versions kept
    assert ev.bound_table_name(store, ds.id) == "old decision"  # its dataset keeps its prices
    other = upload(store, b"label,score\n0,0.3\n1,0.8\n")
    with pytest.raises(StateError, match="archived"):
        gov.bind_table(store, as_role("analyst"), other.id, "old decision")
    with pytest.raises(gov.Forbidden):
        gov.archive_table(store, as_role("viewer"), "car-loan approval")
    gov.archive_table(store, as_role("analyst"), "old decision", archived=False)
    assert ev.active_table_names(store) == ["car-loan approval", "old decision"]
    assert [e.action for e in store.list_audit(limit=2)] == ["restore_table", "archive_table"]


def test_a_new_upload_defaults_to_the_last_table_used_for_that_kind_of_data(store):  # noqa: F811
    assert ev.default_binding(store, label="label") == ev.DEFAULT_TABLE_NAME
    gov.create_table(store, as_role("analyst"), "car-loan approval", CAR_LOAN)
    gov.create_table(store, as_role("analyst"), "card fraud", CAR_LOAN)
    cars = upload(store, label="defaulted")
    gov.bind_table(store, as_role("analyst"), cars.id, "car-loan approval")
    cards = upload(store, b"label,score\n0,0.3\n1,0.8\n", label="is_fraud")
    gov.bind_table(store, as_role("analyst"), cards.id, "card fraud")
    assert ev.default_binding(store, label="defaulted") == "car-loan approval"
    assert ev.default_binding(store, label="is_fraud") == "card fraud"
    assert ev.default_binding(store, label="other") == "card fraud"  # else the last one used
    gov.archive_table(store, as_role("analyst"), "card fraud")
    assert ev.default_binding(store, label="is_fraud") == "car-loan approval"  # never an archived one


def test_rename_moves_bindings_links_and_history_in_one_step(store):  # noqa: F811
    from datetime import datetime, timedelta, timezone

    from board.services import signoff
    from tests.board.test_governance import approve

    ds, other = upload(store), upload(store, b"label,score\n0,0.3\n1,0.8\n")
    gov.create_table(store, as_role("analyst"), "car loans", CAR_LOAN)
    gov.create_table(store, as_role("analyst"), "card fraud", CAR_LOAN)
    gov.bind_table(store, as_role("analyst"), ds.id, "car loans")
    gov.bind_table(store, as_role("analyst"), other.id, "card fraud")
    draft = store.get_value_table_draft("car loans")
    v1 = gov.propose_version(
        store,
        as_role("analyst"),
        "car loans",
        label="v1",
        effective_date=date(2026, 12, 1),
        reason="r",
        expected_row_version=draft.row_version,
    )
    approve(store, v1.id, reevaluate=lambda ev, a: {})
    now = datetime.now(timezone.utc)
    link = store.create_meeting_link(
        token_sha256="ab" * 32,
        dataset_id=ds.id,
        table_name="car loans",
        thresholds={},
        created_by="u_admin",
        expires_at=now + timedelta(days=1),
    )
    gov.save_draft(
        store, as_role("analyst"), "car loans", {**CAR_LOAN, "name": "car loans", "fn": -5000.0}, expected_row_version=None
    )
    vid = gov.propose_version(
        store,
        as_role("analyst"),
        "car loans",
        label="v2",
        effective_date=date(2026, 12, 1),
        reason="r2",
        expected_row_version=store.get_value_table_draft("car loans").row_version,
    ).id

    info = gov.rename_table(store, as_role("risk"), "car loans", "car-loan approval")

    assert info.name == "car-loan approval"
    assert store.list_value_tables() == ["car-loan approval", "card fraud"]
    assert store.get_dataset_value_table(ds.id) == "car-loan approval"
    assert store.get_dataset_value_table(other.id) == "card fraud"  # another table's binding is untouched
    assert store.get_meeting_link(link.id).table_name == "car-loan approval"
    approved = store.latest_approved_version("car-loan approval")
    assert approved.id == v1.id  # the history follows the table
    assert ValueTable.from_dict(approved.amounts).name == "car-loan approval"  # read under the current name
    # the pending version is signed against what the signer sees now: the current name
    seen = store.get_value_table_version(vid)
    for role in gov.SIGNING_ROLES:
        signoff.sign_version(store, as_role(role), vid, expected_hash=gov.content_hash(seen.amounts), reevaluate=lambda ev, a: {})
    assert store.latest_approved_version("car-loan approval").id == vid
    assert store.list_value_table_versions("car loans") == []
    entry = store.list_audit(limit=1, action="rename_table")[0]
    assert (entry.username, entry.target, entry.detail) == (
        "u_risk",
        "car-loan approval",
        {"from": "car loans", "to": "car-loan approval"},
    )


def test_rename_is_refused_for_viewers_taken_and_blank_names_and_writes_nothing(store):  # noqa: F811
    ds = upload(store)
    gov.create_table(store, as_role("analyst"), "car loans", CAR_LOAN)
    gov.create_table(store, as_role("analyst"), "card fraud", CAR_LOAN)
    gov.bind_table(store, as_role("analyst"), ds.id, "car loans")
    with pytest.raises(gov.Forbidden):
        gov.rename_table(store, as_role("viewer"), "car loans", "x")
    with pytest.raises(StateError, match="exists already"):
        gov.rename_table(store, as_role("analyst"), "car loans", "card fraud")
    with pytest.raises(InputError, match="new_name"):
        gov.rename_table(store, as_role("analyst"), "car loans", "  ")
    with pytest.raises(NotFoundError, match="nothing"):
        gov.rename_table(store, as_role("analyst"), "nothing", "y")
    assert store.list_value_tables() == ["car loans", "card fraud"]
    assert store.get_dataset_value_table(ds.id) == "car loans"
    assert store.list_audit(limit=5, action="rename_table") == []


def test_renaming_the_default_table_keeps_unbound_datasets_priced_with_it(store):  # noqa: F811
    demo_ds = ev.ensure_demo(store)
    assert store.get_dataset_value_table(demo_ds.id) is None  # priced with the default table, unbound
    gov.rename_table(store, as_role("analyst"), ev.DEFAULT_TABLE_NAME, "anti-fraud (EU)", default=True)
    assert ev.bound_table_name(store, demo_ds.id) == "anti-fraud (EU)"
    ev.ensure_demo(store)  # the next start does not bring the old default table back
    assert ev.DEFAULT_TABLE_NAME not in store.list_value_tables() and "anti-fraud (EU)" in store.list_value_tables()
