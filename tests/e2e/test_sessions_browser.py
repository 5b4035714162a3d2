"""Browser: a login survives a reload and a shared link of the same browser (issue 17), through an
HttpOnly, SameSite=Strict session cookie that page scripts cannot read; a logout or disabling the
account ends it at the next reload. Served as scripts/run.sh serves it (serve.py: app.py plus the
session routes); the plain app.py still logs each tab in on its own, without an error."""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from board.access import auth
from board.services import ensure_demo
from board.store import Store
from evalcore.data import ColumnMapping, read_table, validate
from tests.e2e.conftest import new_tab, wait_for_app
from tests.e2e.servers import create_account, running_server

pytestmark = pytest.mark.e2e

PW = "e2e long password"
LINKED = "the linked one"


def _second_dataset(data) -> int:
    """A dataset other than the demo, for the shared link (seeded: the same rows every run)."""
    rng = np.random.default_rng(17)
    x = rng.normal(size=300)
    frame = pd.DataFrame(
        {"y": (rng.uniform(size=300) < 1 / (1 + np.exp(-2 * x))).astype(int), "p": np.round(1 / (1 + np.exp(-x)), 4)}
    )
    raw = frame.to_csv(index=False).encode()
    mapping = {"label": "y", "scores": {"linked": "p"}, "score_kinds": {"linked": "probability"}}
    preds = validate(read_table(raw, "linked.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=data) as s:
        demo = ensure_demo(s)
        rec = s.save_dataset(
            name=LINKED, filename="linked.csv", raw=raw, mapping=mapping, report=preds.summary(), n_rows=preds.n_rows
        )
    assert rec.id != demo.id
    return rec.id


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    data = tmp_path_factory.mktemp("sessions-data")
    dataset_id = _second_dataset(data)
    for user, role in (("sam", "analyst"), ("dora", "viewer")):
        create_account(data, user, PW, role)
    with running_server(data, autologin=None) as srv:
        yield srv, dataset_id


def _login_form(page) -> None:
    expect(page.get_by_role("heading", name="Log in", exact=True)).to_be_visible(timeout=60_000)


def _log_in(page, url: str, username: str) -> None:
    page.goto(url)
    wait_for_app(page)
    _login_form(page)
    page.locator(".st-key-login_username").locator("input").fill(username)
    page.locator(".st-key-login_password").locator("input").fill(PW)
    page.get_by_role("button", name="Log in").click()
    wait_for_app(page)
    page.get_by_text(f"Signed in as {username}").wait_for(timeout=60_000)


def _session_cookie(ctx, timeout: float = 20.0) -> dict | None:
    """The context's session cookie, once the page has traded its grant for it (None if it never comes)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [c for c in ctx.cookies() if c["name"] == auth.SESSION_COOKIE]
        if found or time.monotonic() > deadline:
            return found[0] if found else None
        time.sleep(0.2)


def _reload(page) -> None:
    page.reload()
    wait_for_app(page)


def test_a_login_survives_a_reload_and_a_shared_link(browser, site):
    srv, dataset_id = site
    ctx, page = new_tab(browser)
    try:
        _log_in(page, srv.url, "sam")
        cookie = _session_cookie(ctx)
        assert cookie is not None, "the page never got its session cookie"
        assert cookie["httpOnly"] is True
        assert cookie["sameSite"] == "Strict"
        assert cookie["path"] == "/"
        assert cookie["secure"] is False  # plain HTTP here; Secure over HTTPS (tests/security/test_sessions.py)
        assert auth.SESSION_COOKIE not in page.evaluate("document.cookie")  # no script of the page can read it
        with Store(data_dir=srv.data) as s:
            (session,) = [x for x in s.list_sessions(username="sam") if x.revoked_at is None]
            assert session.token_sha256 == auth._sha256(cookie["value"])  # only its hash is stored
            assert session.grant_sha256 is None  # the grant was used up

        _reload(page)
        page.get_by_text("Signed in as sam").wait_for(timeout=60_000)
        assert page.get_by_role("heading", name="Log in", exact=True).count() == 0

        shared = ctx.new_page()  # a shared link opened in another tab of the same browser
        shared.errors = []
        shared.on("pageerror", lambda e: shared.errors.append(str(e)))
        shared.goto(f"{srv.url}/?dataset={dataset_id}")
        wait_for_app(shared)
        shared.get_by_text("Signed in as sam").wait_for(timeout=60_000)
        # that dataset's board, not the demo the app shows by default
        expect(shared.get_by_role("combobox", name="Dataset")).to_have_value(re.compile(re.escape(LINKED)), timeout=60_000)
        shared.get_by_test_id("stMain").get_by_text(LINKED).first.wait_for(timeout=120_000)
        assert not shared.errors and not page.errors, (shared.errors, page.errors)
        shared.close()

        page.get_by_role("button", name="Log out").click()
        wait_for_app(page)
        _login_form(page)
        deadline = time.monotonic() + 20
        while _session_cookie(ctx, timeout=0) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _session_cookie(ctx, timeout=0) is None  # the logout route cleared it
        with Store(data_dir=srv.data) as s:
            assert s.get_session(session.id).revoked_reason == "logout"  # what matters: revoked in the store
            assert any(a.action == "logout" and a.username == "sam" for a in s.list_audit(action="logout"))
        _reload(page)
        _login_form(page)
        assert page.get_by_text("Signed in as sam").count() == 0
        assert not page.errors, page.errors
    finally:
        ctx.close()


def test_disabling_the_account_ends_its_browser_session(browser, site):
    srv, _ = site
    ctx, page = new_tab(browser)
    try:
        _log_in(page, srv.url, "dora")
        assert _session_cookie(ctx) is not None
        _reload(page)
        page.get_by_text("Signed in as dora").wait_for(timeout=60_000)
        with Store(data_dir=srv.data) as s:
            s.update_user("dora", active=False, audit=("admin", "disable_user", "dora"))
        _reload(page)
        _login_form(page)
        assert page.get_by_text("Signed in as dora").count() == 0
        with Store(data_dir=srv.data) as s:
            assert all(x.revoked_reason == "disabled" for x in s.list_sessions(username="dora"))
            (entry,) = s.list_audit(action="revoke_sessions")
            assert (entry.username, entry.target, entry.detail) == ("admin", "dora", {"reason": "disabled", "sessions": 1})
        assert not page.errors, page.errors
    finally:
        ctx.close()


def test_the_session_routes_refuse_other_origins(site):
    srv, _ = site
    for path, origin in (("_evalboard/session", "http://evil.example"), ("_evalboard/logout", None)):
        headers = {"Content-Type": "text/plain"} | ({"Origin": origin} if origin else {})
        request = urllib.request.Request(f"{srv.url}/{path}", data=b"x" * 43, headers=headers, method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        with info.value:  # closes the response
            assert info.value.code == 403
            assert "set-cookie" not in {k.lower() for k in info.value.headers}


def test_the_plain_app_still_logs_in_per_tab(browser, tmp_path):
    """Started without the routes (streamlit run app.py): the login works as before, no cookie, no error."""
    create_account(tmp_path, "sam", PW, "analyst")
    with running_server(tmp_path, autologin=None, script="app.py") as srv:
        ctx, page = new_tab(browser)
        try:
            _log_in(page, srv.url, "sam")
            assert _session_cookie(ctx, timeout=3) is None
            assert page.get_by_test_id("stException").count() == 0
            _reload(page)
            _login_form(page)  # a login per tab, as before
            assert not page.errors, page.errors
        finally:
            ctx.close()
