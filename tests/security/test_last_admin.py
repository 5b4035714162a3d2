"""Issue 17: the store always keeps an active admin. Two admins demoting each other at the same
moment both passed the last-admin check (each still saw two admins) and left none; the check is
now made again inside the write transaction, with the admins' rows locked."""

from __future__ import annotations

import pytest

from board.access import auth, governance
from board.store import StateError, Store
from tests.security import _workers
from tests.security._parallel import run_parallel


def _two_admins(url, data_dir):
    with Store(url=url, data_dir=data_dir) as s:
        for name in ("admin0", "admin1"):
            s.create_user(name, auth.hash_password("a long admin password", rounds=4), "admin")


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_two_admins_demoting_each_other_leave_one_admin(db_url, data_dir, mode):
    _two_admins(db_url, data_dir)
    outcomes = run_parallel(
        mode, _workers.demote_the_other_admin, 2, db_url, data_dir, [("admin0", "admin1", "role"), ("admin1", "admin0", "role")]
    )
    assert sorted(outcomes) == ["forbidden", "ok"]
    with Store(url=db_url, data_dir=data_dir) as s:
        admins = [u.username for u in s.list_users() if u.role == "admin" and u.active]
        assert len(admins) == 1
        assert [a.action for a in s.list_audit()].count("change_role") == 1  # the refused change left no entry


def test_the_store_refuses_to_remove_the_last_active_admin(db_url, data_dir):
    _two_admins(db_url, data_dir)
    with Store(url=db_url, data_dir=data_dir) as s:
        s.update_user("admin1", role="viewer", keep_an_admin=True)
        with pytest.raises(StateError, match="last active admin"):
            s.update_user("admin0", active=False, keep_an_admin=True)
        with pytest.raises(StateError, match="last active admin"):
            s.update_user("admin0", role="analyst", keep_an_admin=True)
        assert (s.get_user("admin0").role, s.get_user("admin0").active) == ("admin", True)  # nothing written
        with pytest.raises(governance.Forbidden, match="last active admin"):
            governance.change_role(s, auth.User(username="admin1", role="admin"), "admin0", "viewer")  # a stale session
