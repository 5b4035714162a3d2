"""Issue 17, the last item: server-side login sessions, so a login survives a reload and a shared link.

Through the service layer (:mod:`board.access.auth`, :mod:`board.access.governance`) and the store
(``board.store.sessions``), on SQLite and PostgreSQL: a session is found by its cookie and by its
id with the role as stored now; it ends after the idle limit, after its absolute lifetime, at a
logout, and when its account is disabled, its password reset or its role changed (revoked in the
transaction of that change); the one-time grant works once, before it expires, even when sent in
parallel; only SHA-256 hashes are stored; ended sessions are pruned. The two HTTP routes
(``board.app.server``) are called as ASGI apps: cookie flags, the Origin check, single use.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from board.access import auth, governance
from board.store import Store
from evalcore._errors import InputError
from tests.security._parallel import run_parallel

PASSWORD = "a long enough password"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
ROOT = auth.User(username="root", role="admin")
N = {"threads": 6, "processes": 3}


class Clock:
    def __init__(self, now=T0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, **delta):
        self.now += timedelta(**delta)


@pytest.fixture
def store(db_url, data_dir):
    with Store(url=db_url, data_dir=data_dir) as s:
        for name, role in (("root", "admin"), ("bea", "business"), ("vic", "viewer")):
            s.create_user(name, auth.hash_password(PASSWORD), role)
        yield s


def _login(store, username, clock, *, client="203.0.113.7"):
    """A login as views/login.py does it, and the browser's exchange of its grant: (session id, cookie)."""
    role = store.get_user(username).role
    session_id, grant = auth.start_session(store, auth.User(username=username, role=role), client=client, clock=clock)
    token, _ = auth.redeem_grant(store, grant, clock=clock)
    return session_id, token


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------- create, look up, hashes


def test_a_session_is_found_by_its_cookie_and_its_id_with_the_role_as_stored_now(store):
    clock = Clock()
    session_id, grant = auth.start_session(store, auth.User(username="bea", role="business"), client="203.0.113.7", clock=clock)
    assert isinstance(grant, str) and len(grant) >= 43
    clock.advance(seconds=5)
    token, expires_at = auth.redeem_grant(store, grant, clock=clock)
    assert expires_at == T0 + timedelta(hours=auth.session_hours())
    found = auth.resume_session(store, token, clock=clock)
    assert (found.user.username, found.user.role, found.session_id) == ("bea", "business", session_id)
    same = auth.check_session(store, session_id, username="bea", clock=clock)
    assert (same.user.username, same.session_id) == ("bea", session_id)
    assert auth.check_session(store, session_id, username="vic", clock=clock).user is None  # not another user's tab
    for junk in (None, "", "x" * 500, 42, token + "x", grant):
        assert auth.resume_session(store, junk, clock=clock).ended == "unknown"
    (entry,) = store.list_audit(action="session_created")
    assert (entry.username, entry.target) == ("bea", "bea")
    assert entry.detail["session_id"] == session_id and entry.detail["client"] == "203.0.113.7" and entry.detail["cookie"]
    assert token not in str(entry.to_dict()) and grant not in str(entry.to_dict())


def test_only_hashes_of_the_cookie_and_the_grant_are_stored(store):
    clock = Clock()
    session_id, grant = auth.start_session(store, auth.User(username="bea", role="business"), clock=clock)
    with store.engine.connect() as conn:
        (row,) = conn.execute(sa.text("SELECT * FROM sessions")).mappings().all()
    assert row["grant_sha256"] == _sha(grant) and row["token_sha256"] is None
    assert grant not in str(dict(row))
    token, _ = auth.redeem_grant(store, grant, clock=clock)
    with store.engine.connect() as conn:
        (row,) = conn.execute(sa.text("SELECT * FROM sessions")).mappings().all()
    assert row["token_sha256"] == _sha(token) and row["grant_sha256"] is None and row["grant_expires_at"] is None
    assert token not in str(dict(row)) and grant not in str(dict(row))
    with store.engine.connect() as conn:  # nor anywhere else in the database (the audit log included)
        dump = str(conn.execute(sa.text("SELECT * FROM audit_log")).all())
    assert token not in dump and grant not in dump
    assert "token_sha256" not in store.get_session(session_id).to_dict()


def test_a_login_without_the_session_routes_is_a_session_of_its_tab(store):
    """cookie=False (plain app.py): no grant, the tab checks its session by id; no cookie can be had."""
    clock = Clock()
    session_id, grant = auth.start_session(store, auth.User(username="bea", role="business"), cookie=False, clock=clock)
    assert grant is None
    assert auth.check_session(store, session_id, username="bea", clock=clock).user.username == "bea"
    assert store.get_session(session_id).token_sha256 is None
    auth.end_session(store, session_id, username="bea", clock=clock)
    assert auth.check_session(store, session_id, username="bea", clock=clock).ended == "revoked"


def test_the_store_refuses_malformed_sessions(store):
    with pytest.raises(InputError, match="grant_sha256 must be 64 lower-case hex"):
        store.create_session(username="bea", expires_at=T0 + timedelta(hours=1), grant_sha256="not-a-hash", created_at=T0)
    with pytest.raises(InputError, match="expires_at .* must be after created_at"):
        store.create_session(username="bea", expires_at=T0, created_at=T0)
    with pytest.raises(InputError, match="username must not be empty"):
        store.create_session(username=" ", expires_at=T0 + timedelta(hours=1), created_at=T0)
    assert store.list_sessions() == []


# --------------------------------------------------------------------------- the one-time grant


def test_the_grant_works_once(store):
    clock = Clock()
    session_id, grant = auth.start_session(store, auth.User(username="bea", role="business"), clock=clock)
    first = auth.redeem_grant(store, grant, clock=clock)
    assert first is not None
    assert auth.redeem_grant(store, grant, clock=clock) is None
    assert auth.resume_session(store, first[0], clock=clock).session_id == session_id  # the first cookie still works


def test_the_grant_expires(store):
    clock = Clock()
    assert auth.GRANT_SECONDS <= 60
    _, grant = auth.start_session(store, auth.User(username="bea", role="business"), clock=clock)
    clock.advance(seconds=auth.GRANT_SECONDS)
    assert auth.redeem_grant(store, grant, clock=clock) is None
    clock.now = T0  # and it is gone: not even "in time" afterwards
    assert auth.redeem_grant(store, grant, clock=clock) is None


def test_no_cookie_for_a_grant_whose_session_ended(store):
    clock = Clock()
    session_id, grant = auth.start_session(store, auth.User(username="bea", role="business"), clock=clock)
    auth.end_session(store, session_id, username="bea", clock=clock)
    assert auth.redeem_grant(store, grant, clock=clock) is None
    _, grant = auth.start_session(store, auth.User(username="bea", role="business"), clock=clock)
    governance.disable_user(store, ROOT, "bea")
    assert auth.redeem_grant(store, grant, clock=clock) is None


def _redeem(store, barrier, i, grant):
    """Worker of the parallel exchange: "ok" when this attempt got the cookie."""
    barrier.wait()
    return "ok" if auth.redeem_grant(store, grant) is not None else "refused"


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_grant_sent_in_parallel_gives_one_cookie(db_url, data_dir, mode):
    with Store(url=db_url, data_dir=data_dir) as s:
        s.create_user("bea", auth.hash_password(PASSWORD), "business")
        session_id, grant = auth.start_session(s, auth.User(username="bea", role="business"))
    n = N[mode]
    outcomes = run_parallel(mode, _redeem, n, db_url, data_dir, [(grant,)] * n)
    assert sorted(outcomes) == ["ok"] + ["refused"] * (n - 1), outcomes
    with Store(url=db_url, data_dir=data_dir) as s:
        rec = s.get_session(session_id)
        assert rec.token_sha256 is not None and rec.grant_sha256 is None


# --------------------------------------------------------------------------- idle, lifetime


def test_a_session_ends_when_idle_and_activity_keeps_it(store, monkeypatch):
    monkeypatch.setenv("EVALBOARD_IDLE_MINUTES", "30")
    clock = Clock()
    session_id, token = _login(store, "bea", clock)
    for _ in range(6):  # a click every 20 minutes, for two hours: still logged in
        clock.advance(minutes=20)
        assert auth.check_session(store, session_id, username="bea", clock=clock).user is not None
    assert store.get_session(session_id).last_seen_at == clock.now
    clock.advance(minutes=29)
    assert auth.resume_session(store, token, clock=clock).user is not None  # a reload counts as activity too
    clock.advance(minutes=30, seconds=1)
    assert auth.resume_session(store, token, clock=clock).ended == "idle"
    assert auth.check_session(store, session_id, username="bea", clock=clock).ended == "idle"


def test_a_session_ends_after_its_absolute_lifetime_whatever_the_activity(store, monkeypatch):
    monkeypatch.setenv("EVALBOARD_SESSION_HOURS", "2")
    assert auth.session_hours() == 2
    clock = Clock()
    session_id, token = _login(store, "bea", clock)
    while clock.now < T0 + timedelta(hours=2) - timedelta(minutes=10):
        clock.advance(minutes=10)
        assert auth.resume_session(store, token, clock=clock).user is not None
    clock.advance(minutes=10)
    assert auth.resume_session(store, token, clock=clock).ended == "expired"
    assert auth.check_session(store, session_id, username="bea", clock=clock).ended == "expired"


def test_the_limits_come_from_the_environment(monkeypatch):
    monkeypatch.delenv("EVALBOARD_SESSION_HOURS", raising=False)
    assert auth.session_hours() == 12
    for bad in ("0", "-3", "soon"):
        monkeypatch.setenv("EVALBOARD_SESSION_HOURS", bad)
        assert auth.session_hours() == 12
    monkeypatch.setenv("EVALBOARD_SESSION_HOURS", "0.5")
    assert auth.session_hours() == 0.5


# --------------------------------------------------------------------------- revocation


def test_a_logout_revokes_the_session_for_every_tab_of_the_browser(store):
    clock = Clock()
    session_id, token = _login(store, "bea", clock)
    assert auth.end_session(store, session_id, username="bea", clock=clock) is True
    assert auth.resume_session(store, token, clock=clock).ended == "revoked"
    assert auth.check_session(store, session_id, username="bea", clock=clock).ended == "revoked"
    assert auth.end_session(store, session_id, username="bea", clock=clock) is False  # once
    assert store.get_session(session_id).revoked_reason == "logout"
    (entry,) = store.list_audit(action="logout")
    assert (entry.username, entry.target, entry.detail) == ("bea", "bea", {"session_id": session_id})
    # the logout route: by the cookie
    other_id, other = _login(store, "bea", clock)
    assert auth.end_session_by_token(store, other, clock=clock) is True
    assert auth.end_session_by_token(store, other, clock=clock) is False
    assert auth.end_session_by_token(store, "no such cookie", clock=clock) is False
    assert auth.resume_session(store, other, clock=clock).ended == "revoked"
    assert len(store.list_audit(action="logout")) == 2


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda s: governance.disable_user(s, ROOT, "bea"), "disabled"),
        (lambda s: governance.reset_password(s, ROOT, "bea", "another long password"), "password_reset"),
        (lambda s: governance.change_role(s, ROOT, "bea", "risk"), "role_changed"),
    ],
    ids=["disable", "reset-password", "change-role"],
)
def test_account_changes_revoke_all_its_sessions(store, change, reason):
    clock = Clock(datetime.now(timezone.utc))
    sessions = [_login(store, "bea", clock) for _ in range(3)]
    vic_id, vic_token = _login(store, "vic", clock)
    change(store)
    for session_id, token in sessions:
        assert auth.resume_session(store, token, clock=clock).user is None
        assert auth.check_session(store, session_id, username="bea", clock=clock).user is None
        assert store.get_session(session_id).revoked_reason == reason
    assert auth.resume_session(store, vic_token, clock=clock).session_id == vic_id  # another account's session stays
    (entry,) = store.list_audit(action="revoke_sessions")
    assert (entry.username, entry.target, entry.detail) == ("root", "bea", {"reason": reason, "sessions": 3})
    if reason != "disabled":  # the account still logs in: with a new session
        new_id, new_token = _login(store, "bea", clock)
        assert auth.resume_session(store, new_token, clock=clock).session_id == new_id


def test_enabling_an_account_again_does_not_revive_its_sessions(store):
    clock = Clock(datetime.now(timezone.utc))
    session_id, token = _login(store, "bea", clock)
    governance.disable_user(store, ROOT, "bea")
    governance.disable_user(store, ROOT, "bea", active=True)
    assert auth.resume_session(store, token, clock=clock).ended == "revoked"
    assert [a.action for a in store.list_audit()][:3] == ["enable_user", "revoke_sessions", "disable_user"]


def test_the_revocation_is_in_the_transaction_of_the_change(store):
    """A change whose audit entry cannot be written changes nothing: the sessions stay live too."""
    clock = Clock(datetime.now(timezone.utc))
    session_id, token = _login(store, "bea", clock)
    with pytest.raises(InputError):
        store.update_user("bea", active=False, audit=("root", "", "bea"))  # blank action: refused
    assert store.get_user("bea").active
    assert auth.resume_session(store, token, clock=clock).session_id == session_id
    assert store.list_audit(action="revoke_sessions") == []


def test_a_disabled_account_is_refused_even_with_an_unrevoked_session(store):
    """Defence in depth: a lookup checks the account itself, not only the session row."""
    clock = Clock(datetime.now(timezone.utc))
    session_id, token = _login(store, "bea", clock)
    with store.engine.begin() as conn:  # behind the store's back, e.g. by hand in the database
        conn.execute(sa.text("UPDATE users SET active = :no WHERE username = 'bea'"), {"no": False})
    assert auth.resume_session(store, token, clock=clock).ended == "disabled"
    assert auth.check_session(store, session_id, username="bea", clock=clock).ended == "disabled"


def test_role_as_stored_now_without_a_change_of_role(store):
    """The role comes from the account at every lookup (a changed role would also revoke the session)."""
    clock = Clock(datetime.now(timezone.utc))
    session_id, token = _login(store, "bea", clock)
    store.update_user("bea", role="business")  # the same role: nothing to revoke
    assert auth.resume_session(store, token, clock=clock).user.role == "business"
    assert store.list_audit(action="revoke_sessions") == []


# --------------------------------------------------------------------------- pruning


def test_ended_sessions_are_pruned(store, monkeypatch):
    """A login prunes the sessions that ended more than a day ago: revoked, idle (a day after
    their idle limit) or past their lifetime; live ones stay."""
    monkeypatch.setenv("EVALBOARD_IDLE_MINUTES", "600")
    monkeypatch.setenv("EVALBOARD_SESSION_HOURS", "48")
    clock = Clock()
    live_id, _ = _login(store, "bea", clock)
    revoked_id, _ = _login(store, "bea", clock)
    store.revoke_session(revoked_id, now=clock.now, reason="logout")
    idle_id, _ = _login(store, "vic", clock)
    root = auth.User(username="root", role="admin")

    def later(**delta):
        clock.advance(**delta)
        assert auth.check_session(store, live_id, username="bea", clock=clock).user is not None  # kept in use
        auth.start_session(store, root, clock=clock)  # a login prunes

    for _ in range(4):
        later(hours=6)
    assert store.get_session(revoked_id) is not None  # revoked exactly a day ago: kept so far
    later(minutes=1)
    assert store.get_session(revoked_id) is None
    assert store.get_session(idle_id) is not None  # idle since T0 + 10 h: kept until a day after that
    later(hours=6)
    later(hours=4)
    assert store.get_session(idle_id) is None
    assert store.get_session(live_id) is not None
    assert store.prune_sessions(ended_before=T0 + timedelta(hours=48), idle_before=T0) == 0  # not yet past its lifetime
    assert store.prune_sessions(ended_before=T0 + timedelta(hours=48, minutes=1), idle_before=T0) >= 1
    assert store.get_session(live_id) is None


# --------------------------------------------------------------------------- the HTTP routes


def _asgi(routes, path, *, headers=(), body=b""):
    """Call the routes as an ASGI app: (status, headers as a list of (name, value))."""
    from starlette.applications import Starlette

    app = Starlette(routes=routes)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8501),
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    # a thread of its own: after the browser tests the main thread may hold a running event loop
    # (Playwright's sync API), and asyncio.run() cannot start inside one
    errors = []

    def call():
        try:
            asyncio.run(app(scope, receive, send))
        except BaseException as err:  # noqa: BLE001 - re-raised in the test's thread below
            errors.append(err)

    worker = threading.Thread(target=call)
    worker.start()
    worker.join(60)
    if errors:
        raise errors[0]
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], [(k.decode().lower(), v.decode()) for k, v in start["headers"]]


@pytest.fixture
def routes(db_url, data_dir, store, monkeypatch):
    from board.app import server

    monkeypatch.setenv("EVALBOARD_DATA_DIR", data_dir)
    monkeypatch.setenv("EVALBOARD_DB_URL", db_url)
    monkeypatch.setattr(server, "_store", None)
    monkeypatch.setattr(server, "_active", False)  # restored after the test: other tests' app runs have no routes
    made = server.session_routes()
    assert server.routes_active()
    yield made
    if server._store is not None:
        server._store.close()


SAME = (("Host", "127.0.0.1:8501"), ("Origin", "http://127.0.0.1:8501"), ("Sec-Fetch-Site", "same-origin"))


def _cookie(headers) -> str:
    (value,) = [v for k, v in headers if k == "set-cookie"]
    return value


def test_the_session_route_sets_an_httponly_strict_cookie_once(routes, store):
    _, grant = auth.start_session(store, auth.User(username="bea", role="business"))
    status, headers = _asgi(routes, "/_evalboard/session", headers=SAME, body=grant.encode())
    assert status == 204
    cookie = _cookie(headers)
    parts = [p.strip().lower() for p in cookie.split(";")]
    name, value = cookie.split(";")[0].split("=", 1)
    assert name == auth.SESSION_COOKIE
    assert "httponly" in parts and "samesite=strict" in parts and "path=/" in parts and "secure" not in parts
    assert 0 < int(next(p for p in parts if p.startswith("max-age=")).split("=")[1]) <= auth.session_hours() * 3600
    assert auth.resume_session(store, value).user.username == "bea"
    status, headers = _asgi(routes, "/_evalboard/session", headers=SAME, body=grant.encode())
    assert status == 403 and not [h for h in headers if h[0] == "set-cookie"]  # a grant works once


def test_the_cookie_is_secure_over_https(routes, store):
    _, grant = auth.start_session(store, auth.User(username="bea", role="business"))
    proxied = (("Host", "board.example"), ("Origin", "https://board.example"), ("X-Forwarded-Proto", "https"))
    status, headers = _asgi(routes, "/_evalboard/session", headers=proxied, body=grant.encode())
    assert status == 204
    assert "secure" in [p.strip().lower() for p in _cookie(headers).split(";")]


@pytest.mark.parametrize(
    "headers",
    [
        (("Host", "127.0.0.1:8501"),),  # no Origin
        (("Host", "127.0.0.1:8501"), ("Origin", "null")),
        (("Host", "127.0.0.1:8501"), ("Origin", "http://evil.example")),
        (("Host", "127.0.0.1:8501"), ("Origin", "http://127.0.0.1:8502")),  # another port is another origin
        (("Host", "127.0.0.1:8501"), ("Origin", "http://127.0.0.1:8501"), ("Sec-Fetch-Site", "same-site")),
        (("Host", "127.0.0.1:8501"), ("Origin", "ftp://127.0.0.1:8501")),
    ],
    ids=["no-origin", "null", "other-host", "other-port", "same-site-only", "other-scheme"],
)
def test_the_routes_refuse_other_origins(routes, store, headers):
    session_id, grant = auth.start_session(store, auth.User(username="bea", role="business"))
    status, answer = _asgi(routes, "/_evalboard/session", headers=headers, body=grant.encode())
    assert status == 403 and not [h for h in answer if h[0] == "set-cookie"]
    assert store.get_session(session_id).grant_sha256 is not None  # not even spent
    token, _ = auth.redeem_grant(store, grant)
    status, _ = _asgi(routes, "/_evalboard/logout", headers=(*headers, ("Cookie", f"{auth.SESSION_COOKIE}={token}")))
    assert status == 403
    assert auth.resume_session(store, token).session_id == session_id  # a cross-site logout does nothing


def test_the_logout_route_revokes_and_clears_the_cookie(routes, store):
    session_id, token = _login(store, "bea", Clock(datetime.now(timezone.utc)))
    status, headers = _asgi(routes, "/_evalboard/logout", headers=(*SAME, ("Cookie", f"{auth.SESSION_COOKIE}={token}")))
    assert status == 204
    cookie = _cookie(headers).lower()
    assert cookie.startswith(f"{auth.SESSION_COOKIE}=") and "max-age=0" in cookie
    assert auth.resume_session(store, token).ended == "revoked"
    assert store.get_session(session_id).revoked_reason == "logout"


def test_same_origin_rules():
    from board.app.server import same_origin

    assert same_origin({"host": "board.example", "origin": "https://board.example"})
    assert same_origin({"host": "board.example:443", "origin": "https://board.example"})  # the default port
    assert same_origin({"host": "BOARD.example", "origin": "https://board.EXAMPLE", "sec-fetch-site": "same-origin"})
    assert same_origin({"host": "127.0.0.1:8501", "x-forwarded-host": "board.example", "origin": "https://board.example"})
    assert not same_origin({"host": "board.example", "origin": "https://board.example.evil.example"})
    assert not same_origin({"host": "board.example", "origin": "https://board.example/path"})
    assert not same_origin({"host": "board.example", "origin": "https://board.example", "sec-fetch-site": "cross-site"})
    assert not same_origin({"origin": "https://board.example"})
