"""Browser tests: the app started as a user starts it, driven by Playwright in Debian's Chromium.

Chromium comes from `apt-get install chromium` (never a download at test time). Without it the
tests skip locally, but fail in CI (CI is set), so they cannot silently not run there.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("EVALBOARD_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}; CI must install it (apt-get install -y chromium).")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-quic"])
        yield b
        b.close()


E2E_ADMIN = "e2e-admin"


def create_account(data, username: str, password: str, role: str) -> None:
    """An account in the server's store (created before the server starts, or while it runs)."""
    from board import auth
    from board.store import Store

    with Store(data_dir=data) as s:
        if s.get_user(username) is None:
            s.create_user(username, auth.hash_password(password, rounds=4), role)


def start_server(data, *, autologin: str | None = E2E_ADMIN):
    """`streamlit run app.py` on a free port with its own data folder; returns (process, url).

    By default an admin account exists and every new tab is logged in as it (the test-only
    EVALBOARD_TEST_AUTOLOGIN switch), so page tests need no login; pass ``autologin=None`` to
    test the real login form (tests/e2e/test_governance_browser.py).
    """
    port = _free_port()
    env = {**os.environ, "EVALBOARD_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "EVALBOARD_BCRYPT_ROUNDS": "4"}
    env.pop("EVALBOARD_DB_URL", None)
    env.pop("EVALBOARD_TEST_AUTOLOGIN", None)
    if autologin:
        create_account(data, autologin, "e2e admin password", "admin")
        env["EVALBOARD_TEST_AUTOLOGIN"] = autologin
    log = open(data / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
         "--global.developmentMode", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    proc.log = log
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.3)
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited: {(data / 'server.log').read_text()}")
    proc.kill()
    raise RuntimeError("streamlit did not become healthy in 90 s")


def stop_server(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    proc.log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One app server for the browser tests, on its own empty data folder."""
    proc, url = start_server(tmp_path_factory.mktemp("e2e-data"))
    yield url
    stop_server(proc)


def wait_for_app(page, timeout=90_000):
    """Streamlit's own readiness recipe: connected, script not running, no skeleton."""
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=timeout)
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0", timeout=timeout)


def open_from_sidebar(page, server, name: str) -> None:
    """Open the app's home and go to page ``name`` through the sidebar, as a person does, until
    its heading shows (the first run reads the demo, hence the long wait)."""
    from playwright.sync_api import expect

    page.goto(server)
    wait_for_app(page)
    page.get_by_test_id("stSidebarNavLink").filter(has_text=name).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name=name, exact=True)).to_be_visible(timeout=90_000)


def new_tab(browser):
    """A fresh browser context at 1920×1080 and its page; ``page.errors`` collects uncaught JS errors.
    Returns (context, page): close the context when done."""
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    return ctx, pg


@pytest.fixture
def page(browser, server):
    ctx, pg = new_tab(browser)
    yield pg
    ctx.close()


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
