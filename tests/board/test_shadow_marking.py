"""Marking a dataset as the shadow validation set of a value table (issue 19 item 3): the role
check, the audit entry with the old marking, the stored setting, unmarking — on SQLite and (with
EVALBOARD_TEST_PG_URL) PostgreSQL, through tests/board/test_governance.py's store fixture."""

from __future__ import annotations

from datetime import date

import pytest

from board import services
from board.access import governance as gov
from evalcore import InputError
from tests.board.test_governance import as_role, store  # noqa: F401 - the fixture on both backends


def test_mark_and_unmark_are_stored_and_audited(store):  # noqa: F811
    ds = services.ensure_demo(store)
    table = services.DEFAULT_TABLE_NAME
    assert gov.shadow_sets(store, table) == []
    v = gov.mark_shadow(store, as_role("risk"), ds.id, table, name="2026-Q3", marked_on=date(2026, 9, 30))
    assert v == {
        "active": True,
        "table": table,
        "name": "2026-Q3",
        "marked_on": "2026-09-30",
        "review_days": 92,
        "marked_by": "u_risk",
    }
    (got,) = gov.shadow_sets(store, table)
    assert got[0].id == ds.id and got[1] == v
    assert gov.shadow_sets(store, "another table") == []
    entry = store.list_audit(limit=1, action="mark_shadow")[0]
    assert entry.username == "u_risk" and entry.target == str(ds.id) and entry.detail == {"from": None, "to": v}
    # a new review period: the old marking is in the audit entry
    v2 = gov.mark_shadow(store, as_role("model_owner"), ds.id, table, name="2026-Q3", review_days=30, marked_on=date(2026, 9, 30))
    assert store.list_audit(limit=1, action="mark_shadow")[0].detail == {"from": v, "to": v2}
    gov.unmark_shadow(store, as_role("admin"), ds.id)
    assert gov.shadow_sets(store, table) == []
    assert store.list_audit(limit=1, action="unmark_shadow")[0].detail == {"from": v2}


@pytest.mark.parametrize("role", ["viewer", "analyst", "business"])
def test_other_roles_are_refused_and_nothing_is_written(store, role):  # noqa: F811
    ds = services.ensure_demo(store)
    n = len(store.list_audit())
    with pytest.raises(gov.Forbidden):
        gov.mark_shadow(store, as_role(role), ds.id, services.DEFAULT_TABLE_NAME)
    with pytest.raises(gov.Forbidden):
        gov.unmark_shadow(store, as_role(role), ds.id)
    assert len(store.list_audit()) == n and store.get_dataset_settings(ds.id, gov.SHADOW_KEY) is None


def test_bad_marking_lists_every_problem(store):  # noqa: F811
    ds = services.ensure_demo(store)
    with pytest.raises(InputError) as err:
        gov.mark_shadow(store, as_role("risk"), ds.id, " ", review_days=0)
    assert "name the value table" in str(err.value) and "review period 0" in str(err.value)
