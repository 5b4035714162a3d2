"""board.access.auth: bcrypt hashes, login throttling with an injected clock, idle expiry."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from board.access import auth
from board.store import Store
from evalcore import InputError

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self, now=T0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    monkeypatch.delenv("EVALBOARD_LOGIN_FREE_ATTEMPTS", raising=False)
    monkeypatch.delenv("EVALBOARD_LOGIN_LOCK_SECONDS", raising=False)
    with Store(url=f"sqlite:///{tmp_path / 'a.sqlite'}", data_dir=tmp_path / "d") as s:
        s.create_user("bea", auth.hash_password("business password"), "business")
        yield s


def test_hash_is_never_the_password_and_is_salted():
    pw = "correct horse battery"
    h1, h2 = auth.hash_password(pw, rounds=4), auth.hash_password(pw, rounds=4)
    assert pw not in h1 and h1 != h2 and h1.startswith("$2b$04$")
    assert auth.verify_password(pw, h1) and auth.verify_password(pw, h2)
    assert not auth.verify_password(pw + "!", h1)
    assert not auth.verify_password(pw, "not a bcrypt hash")


def test_stored_hash_and_record_never_contain_the_password(store):
    rec = store.get_user("bea")
    assert rec.password_hash != "business password" and "business password" not in rec.password_hash
    assert "password_hash" not in rec.to_dict() and "business password" not in repr(rec)
    assert "$2b$" not in repr(rec)


def test_password_rules_list_every_problem():
    with pytest.raises(InputError) as info:
        auth.hash_password("short")
    assert [p.code for p in info.value.problems] == ["weak_password"]
    # 40 characters but 80 bytes in UTF-8 > bcrypt's 72
    assert auth.check_password_rules("é" * 40) == ["the password must be at most 72 bytes long (bcrypt ignores the rest)"]
    assert auth.check_password_rules("x" * 10) == []


def test_login_succeeds_and_clears_earlier_failures(store):
    clock = Clock()
    with pytest.raises(auth.LoginFailed):
        auth.authenticate(store, "bea", "wrong", clock=clock)
    assert store.get_login_throttle("bea").failures == 1
    user = auth.authenticate(store, "bea", "business password", clock=clock)
    assert (user.username, user.role) == ("bea", "business")
    assert store.get_login_throttle("bea") is None


def test_repeated_failures_lock_with_doubling_delays(store):
    # defaults: 3 free attempts, then 2 s, 4 s, 8 s ... (2 * 2**(failures - 3))
    assert [auth.lock_seconds(k) for k in range(1, 7)] == [0, 0, 2, 4, 8, 16]
    assert auth.lock_seconds(100) == auth.MAX_LOCK_SECONDS
    clock = Clock()
    for _ in range(3):
        with pytest.raises(auth.LoginFailed) as info:
            auth.authenticate(store, "bea", "wrong", clock=clock)
        assert not isinstance(info.value, auth.LoginThrottled)
    # now locked for 2 s: even the right password is refused without being checked
    with pytest.raises(auth.LoginThrottled) as info:
        auth.authenticate(store, "bea", "business password", clock=clock)
    assert info.value.retry_after == T0 + timedelta(seconds=2)
    clock.advance(2)
    with pytest.raises(auth.LoginFailed):
        auth.authenticate(store, "bea", "wrong again", clock=clock)  # 4th failure -> 4 s
    clock.advance(3)
    with pytest.raises(auth.LoginThrottled):
        auth.authenticate(store, "bea", "business password", clock=clock)
    clock.advance(1)
    assert auth.authenticate(store, "bea", "business password", clock=clock).role == "business"


def test_throttle_survives_a_restart_and_covers_unknown_names(store, tmp_path):
    clock = Clock()
    for _ in range(3):
        with pytest.raises(auth.LoginFailed):
            auth.authenticate(store, "nobody", "guess", clock=clock)
    url = store.url
    store.close()
    with Store(url=url, data_dir=tmp_path / "d") as again:
        with pytest.raises(auth.LoginThrottled):
            auth.authenticate(again, "nobody", "guess", clock=clock)


def test_disabled_account_cannot_log_in(store):
    store.update_user("bea", active=False)
    with pytest.raises(auth.LoginFailed):
        auth.authenticate(store, "bea", "business password", clock=Clock())


def test_idle_expiry(monkeypatch):
    assert not auth.idle_expired(T0, T0 + timedelta(minutes=59), 60)
    assert auth.idle_expired(T0, T0 + timedelta(minutes=61), 60)
    assert auth.idle_expired(None, T0, 60)
    monkeypatch.setenv("EVALBOARD_IDLE_MINUTES", "5")
    assert auth.idle_minutes() == 5
    assert auth.idle_expired(T0, T0 + timedelta(minutes=6))


def test_cli_users_add_list_disable_reset(tmp_path, monkeypatch, capsys):
    import io

    from board import cli

    monkeypatch.setenv("EVALBOARD_DATA_DIR", str(tmp_path / "cli"))
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    monkeypatch.setattr("sys.stdin", io.StringIO("a long cli password\n"))
    assert cli.main(["users", "add", "bea", "--role", "business", "--password-stdin"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert cli.main(["users", "add", "bob", "--role", "risk", "--password-stdin"]) == 2
    assert cli.main(["users", "disable", "bea"]) == 0
    assert cli.main(["users", "disable", "ghost"]) == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("another long password\n"))
    assert cli.main(["users", "reset-password", "bea", "--password-stdin"]) == 0
    capsys.readouterr()
    assert cli.main(["users", "list"]) == 0
    out = capsys.readouterr().out
    assert "bea\tbusiness\tdisabled" in out and "password" not in out and "$2b$" not in out
    with Store(data_dir=tmp_path / "cli") as s:
        assert auth.verify_password("another long password", s.get_user("bea").password_hash)
        assert [a.action for a in s.list_audit()][::-1] == ["add_user", "disable_user", "reset_password"]
