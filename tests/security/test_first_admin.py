"""Issue 17, F4: two visitors both created an admin on a first start.

Creating the first admin is atomic: of N parallel creators (threads sharing a Store, or spawned
processes each with its own) exactly one wins and the others get ``Forbidden``, on SQLite and
PostgreSQL, even when every creator saw an empty store first.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import sqlalchemy as sa

from board.access import auth, governance
from board.store import Store, migrations
from tests.security import _workers
from tests.security._parallel import run_parallel

PASSWORD = "a long admin password"
N = {"threads": 6, "processes": 4}


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_exactly_one_of_parallel_first_admins_wins(db_url, data_dir, mode):
    n = N[mode]
    Store(url=db_url, data_dir=data_dir).close()  # migrated before the race
    outcomes = run_parallel(mode, _workers.first_admin, n, db_url, data_dir, [(PASSWORD,)] * n)
    assert sorted(outcomes) == ["forbidden"] * (n - 1) + ["ok"]
    winner = f"admin{outcomes.index('ok')}"
    with Store(url=db_url, data_dir=data_dir) as s:
        assert [(u.username, u.role) for u in s.list_users()] == [(winner, "admin")]
        assert [(a.username, a.action) for a in s.list_audit()] == [(winner, "create_first_admin")]
        assert auth.authenticate(s, winner, PASSWORD).role == "admin"


def test_first_admin_is_refused_once_any_account_exists(db_url, data_dir):
    with Store(url=db_url, data_dir=data_dir) as s:
        s.create_user("cli_admin", auth.hash_password(PASSWORD), "admin")  # e.g. `python -m board users add`
        with pytest.raises(governance.Forbidden, match="An account exists already"):
            governance.create_first_admin(s, "late", PASSWORD)
        assert [u.username for u in s.list_users()] == ["cli_admin"]
        assert s.list_audit() == []


def test_a_store_with_accounts_from_before_the_migration_has_its_first_admin(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:4])  # a store written before issue 17
        with Store(url=url, data_dir=tmp_path / "d") as s, s.engine.begin() as conn:
            # the row as that version wrote it (today's ORM knows columns later migrations add)
            now = datetime.now(timezone.utc)
            conn.execute(
                sa.text(
                    "INSERT INTO users (username, password_hash, role, active, created_at, password_changed_at) "
                    "VALUES ('root', :h, 'admin', 1, :t, :t)"
                ),
                {"h": auth.hash_password(PASSWORD), "t": now},
            )
    with Store(url=url, data_dir=tmp_path / "d") as s:
        assert 5 in s.applied_migrations
        with s.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT id, username FROM first_admin").all() == [(1, "root")]
        with pytest.raises(governance.Forbidden):
            governance.create_first_admin(s, "second", PASSWORD)
