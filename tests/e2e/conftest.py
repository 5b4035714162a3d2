"""Browser tests: the app started as a user starts it, driven by Playwright in Debian's Chromium.

Chromium comes from `apt-get install chromium` (never a download at test time). Without it the
tests skip locally, but fail in CI (CI is set), so they cannot silently not run there.

Servers come from tests/e2e/servers.py (:func:`running_server`), the only way the suite starts
one. Every test in this folder is marked ``e2e``.
"""

import os
from pathlib import Path

import pytest

from tests.e2e.servers import SPAWNED, assert_reaped, running_server

CHROMIUM = os.environ.get("EVALBOARD_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ARTIFACTS = ROOT / "test-artifacts"
# The app opens Demo 1 (the stable weeks, verdict "roll out"). Tests about drift, the banner and the
# tallest board open Demo 2, the drifting week: ensure_demo stores it first, so on the server's
# fresh store it is dataset 1 (board.services.demo.DEMOS); the drift test checks the sidebar names it.
DRIFTING_DEMO = 1


def pytest_collection_modifyitems(config, items):
    """Every test under tests/e2e is an ``e2e`` test (this hook sees the whole session's items)."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}; CI must install it (apt-get install -y chromium).")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        yield b
        b.close()


@pytest.fixture(scope="session", autouse=True)
def _no_server_left_behind():
    """At the end of the session every server process ever spawned has been reaped."""
    yield
    for proc in SPAWNED:
        assert_reaped(proc)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One app server for the browser tests, on its own empty data folder."""
    with running_server(tmp_path_factory.mktemp("e2e-data")) as srv:
        yield srv.url


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
