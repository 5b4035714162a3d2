"""Issue 17, logins: F2 (the throttle under concurrency), F3 (unknown users cost the same bcrypt
work), F16 (failed logins audited, a limit per client across usernames, old throttle rows pruned).

Through the service layer (:func:`board.access.auth.authenticate`) on SQLite and PostgreSQL;
concurrency with threads sharing one Store (as Streamlit runs) and with spawned processes that
each open their own Store on the same database.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import bcrypt
import pytest
import sqlalchemy as sa

from board.access import auth
from board.store import Store
from tests.security import _workers
from tests.security._parallel import run_parallel

RIGHT = "business password"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
N = {"threads": 10, "processes": 4}


class Clock:
    def __init__(self, now=T0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += timedelta(seconds=seconds)


def with_user(url, data_dir, *, active=True):
    with Store(url=url, data_dir=data_dir) as s:
        s.create_user("bea", auth.hash_password(RIGHT), "business")
        if not active:
            s.update_user("bea", active=False)


# --------------------------------------------------------------------------- F2: the throttle under concurrency


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_parallel_wrong_passwords_are_each_counted_and_then_lock(db_url, data_dir, monkeypatch, mode):
    n = N[mode]
    monkeypatch.setenv("EVALBOARD_LOGIN_FREE_ATTEMPTS", str(n))  # no lock before the n-th failure
    monkeypatch.setenv("EVALBOARD_LOGIN_LOCK_SECONDS", "600")  # the n-th failure locks for 10 minutes
    with_user(db_url, data_dir)
    outcomes = run_parallel(mode, _workers.login, n, db_url, data_dir, [("bea", f"wrong guess {i}", True) for i in range(n)])
    assert outcomes == ["failed"] * n
    with Store(url=db_url, data_dir=data_dir) as s:
        assert s.get_login_throttle("bea").failures == n  # no lost update
        with pytest.raises(auth.LoginThrottled):
            auth.authenticate(s, "bea", RIGHT)  # the right password during the lock-out is refused
        assert s.get_login_throttle("bea").failures == n


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_parallel_guesses_cannot_all_pass_the_check(db_url, data_dir, monkeypatch, mode):
    # the finding: 9 parallel wrong passwords were all checked, then the right one logged in
    n = N[mode]
    monkeypatch.delenv("EVALBOARD_LOGIN_FREE_ATTEMPTS", raising=False)  # 3 free attempts
    monkeypatch.setenv("EVALBOARD_LOGIN_LOCK_SECONDS", "600")
    with_user(db_url, data_dir)
    outcomes = run_parallel(mode, _workers.login, n, db_url, data_dir, [("bea", f"wrong guess {i}", True) for i in range(n)])
    assert sorted(outcomes) == ["failed"] * 3 + ["throttled"] * (n - 3)  # only 3 passwords were checked
    with Store(url=db_url, data_dir=data_dir) as s:
        assert s.get_login_throttle("bea").failures == 3
        with pytest.raises(auth.LoginThrottled):
            auth.authenticate(s, "bea", RIGHT)


# --------------------------------------------------------------------------- F3: same bcrypt work for unknown users


def test_unknown_and_disabled_users_cost_one_bcrypt_check_of_the_configured_cost(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "5")
    monkeypatch.setenv("EVALBOARD_LOGIN_FREE_ATTEMPTS", "100")
    url = f"sqlite:///{tmp_path / 'a.sqlite'}"
    with Store(url=url, data_dir=tmp_path / "d") as s:
        s.create_user("bea", auth.hash_password(RIGHT), "business")
        s.create_user("old", auth.hash_password(RIGHT), "viewer")
        s.update_user("old", active=False)
        checked, hashed = [], []
        real_check, real_hash = bcrypt.checkpw, bcrypt.hashpw
        monkeypatch.setattr(bcrypt, "checkpw", lambda pw, h: checked.append(h) or real_check(pw, h))
        monkeypatch.setattr(bcrypt, "hashpw", lambda pw, salt: hashed.append(salt) or real_hash(pw, salt))
        for name, password in [
            ("bea", "wrong password"),
            ("nobody", "some guess"),
            ("old", RIGHT),
            ("nobody", "another guess"),
            ("", "a guess"),
        ]:
            checked.clear()
            with pytest.raises(auth.LoginFailed) as info:
                auth.authenticate(s, name, password)
            assert not isinstance(info.value, auth.LoginThrottled)
            assert len(checked) == 1, name  # exactly one bcrypt check, known user or not
            assert checked[0].startswith(b"$2b$05$"), name  # at the cost real hashes have
        assert len(hashed) <= 1  # the dummy hash is computed once, not per attempt


# --------------------------------------------------------------------------- F16: audit, per-client limit, pruning


def test_failed_logins_are_audited_with_the_name_tried_and_never_the_password(db_url, data_dir):
    with_user(db_url, data_dir)
    clock = Clock()
    with Store(url=db_url, data_dir=data_dir) as s:
        s.create_user("old", auth.hash_password(RIGHT), "viewer")
        s.update_user("old", active=False)
        for name, password in [("bea", "wrong secret 1"), ("ghost", "wrong secret 2"), ("old", RIGHT)]:
            with pytest.raises(auth.LoginFailed):
                auth.authenticate(s, name, password, client="203.0.113.7", clock=clock)
        assert auth.authenticate(s, "bea", RIGHT, client="203.0.113.7", clock=clock).username == "bea"
        log = s.list_audit()[::-1]
    assert [(a.action, a.username, a.target) for a in log] == [
        ("login_failed", "bea", "bea"),
        ("login_failed", "ghost", "ghost"),
        ("login_failed", "old", "old"),
        ("login", "bea", "bea"),
    ]
    assert [a.detail.get("reason") for a in log[:3]] == ["wrong_password", "unknown_user", "disabled"]
    assert all(a.detail["client"] == "203.0.113.7" for a in log)
    text = str([a.to_dict() for a in log])
    assert "secret" not in text and RIGHT not in text and "$2b$" not in text


def test_one_client_is_limited_across_usernames(db_url, data_dir, monkeypatch):
    monkeypatch.setenv("EVALBOARD_LOGIN_CLIENT_FREE_ATTEMPTS", "4")
    monkeypatch.setenv("EVALBOARD_LOGIN_LOCK_SECONDS", "600")
    with_user(db_url, data_dir)
    clock = Clock()
    bad, good = "203.0.113.7", "198.51.100.2"
    with Store(url=db_url, data_dir=data_dir) as s:
        for name in ["alice", "bob", "carol"]:  # one guess each: below every per-username limit
            with pytest.raises(auth.LoginFailed) as info:
                auth.authenticate(s, name, "password123!", client=bad, clock=clock)
            assert not isinstance(info.value, auth.LoginThrottled)
        # a success from that client does not wipe its failures (nor count as one)
        assert auth.authenticate(s, "bea", RIGHT, client=bad, clock=clock).username == "bea"
        with pytest.raises(auth.LoginFailed):
            auth.authenticate(s, "dave", "password123!", client=bad, clock=clock)  # the 4th failure locks
        with pytest.raises(auth.LoginThrottled, match="address") as info:
            auth.authenticate(s, "bea", RIGHT, client=bad, clock=clock)
        assert info.value.retry_after == T0 + timedelta(seconds=600)
        assert auth.authenticate(s, "bea", RIGHT, client=good, clock=clock).username == "bea"  # others can log in
        clock.advance(600)
        assert auth.authenticate(s, "bea", RIGHT, client=bad, clock=clock).username == "bea"


def _throttle_keys(s) -> set[str]:
    with s.engine.connect() as conn:
        users = set(conn.execute(sa.text("SELECT username FROM login_throttle")).scalars())
        clients = set(conn.execute(sa.text("SELECT client FROM login_client_throttle")).scalars())
    return users | clients


def test_throttle_rows_older_than_the_longest_lock_window_are_pruned(db_url, data_dir, monkeypatch):
    monkeypatch.setenv("EVALBOARD_LOGIN_LOCK_SECONDS", str(auth.MAX_LOCK_SECONDS))  # the 3rd failure locks 15 min
    with_user(db_url, data_dir)
    clock = Clock()
    with Store(url=db_url, data_dir=data_dir) as s:
        with pytest.raises(auth.LoginFailed):
            auth.authenticate(s, "once", "a wrong guess", client="192.0.2.1", clock=clock)
        for _ in range(3):
            with pytest.raises(auth.LoginFailed):
                auth.authenticate(s, "locked", "a wrong guess", clock=clock)
        assert _throttle_keys(s) == {"once", "192.0.2.1", "locked"}
        clock.advance(auth.MAX_LOCK_SECONDS + 1)  # "once" is older than the longest lock; "locked" just unlocked
        with pytest.raises(auth.LoginFailed):
            auth.authenticate(s, "later", "a wrong guess", clock=clock)
        assert _throttle_keys(s) == {"locked", "later"}
        assert s.get_login_throttle("locked").failures == 3  # kept: its lock ended less than 15 min ago
        clock.advance(auth.MAX_LOCK_SECONDS)
        assert auth.authenticate(s, "bea", RIGHT, clock=clock).username == "bea"
        assert _throttle_keys(s) == {"later"}
