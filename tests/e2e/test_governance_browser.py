"""Browser: real logins (no autologin): an analyst proposes a version, risk, model owner and business
sign it (four eyes: not the proposer), it is approved with its impact report; a viewer has no way to the editor."""

import re

import pytest

from tests.e2e.conftest import new_tab, shot, wait_for_app
from tests.e2e.servers import create_account, running_server

pytestmark = pytest.mark.e2e

PW = "e2e long password"


@pytest.fixture(scope="module")
def gov_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("gov-data")
    for user, role in (("ana", "analyst"), ("bea", "business"), ("rita", "risk"), ("otto", "model_owner"), ("vera", "viewer")):
        create_account(data, user, PW, role)
    with running_server(data, autologin=None) as srv:
        yield srv.url


def login(browser, url, username):
    ctx, page = new_tab(browser)
    page.goto(url)
    wait_for_app(page)
    # plotly's JavaScript is loaded while the password is typed (issue 18): an empty chart drawn out of sight
    preload = page.locator(".st-key-eb_preload_charts .js-plotly-plot")
    preload.wait_for(state="attached", timeout=60_000)
    box = preload.bounding_box()
    assert box is None or box["x"] + box["width"] <= 0, box
    page.locator(".st-key-login_username").locator("input").fill(username)
    page.locator(".st-key-login_password").locator("input").fill(PW)
    page.get_by_role("button", name="Log in").click()
    wait_for_app(page)
    page.get_by_text(f"Signed in as {username}").wait_for(timeout=60_000)
    return ctx, page


def close(ctx, page):
    """Each login's tab ends without uncaught JS errors."""
    assert not page.errors, page.errors
    ctx.close()


def open_value_table(page):
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Value table").click()
    wait_for_app(page)
    # the editor's page, or a signer's review while a version is pending (issue 16 item 3)
    page.get_by_text(re.compile("Versions and sign-off|A version is waiting for signatures")).first.wait_for(timeout=60_000)


def test_propose_sign_approve_and_viewer_has_no_editor(browser, gov_server):
    ctx, page = login(browser, gov_server, "ana")  # an analyst proposes: four eyes, signers do not sign their own
    open_value_table(page)
    form = page.locator(".st-key-vt_prop_label")
    form.locator("input").fill("v2026.Q4")
    page.locator("[class*='st-key-vt_prop_reason']").locator("input").fill("fraud costs rose")
    page.get_by_role("button", name="Propose version").click()
    wait_for_app(page)
    page.get_by_text("Version v2026.Q4 proposed").wait_for(timeout=60_000)
    close(ctx, page)
    for user, role in (("rita", "Risk"), ("otto", "Model owner")):
        ctx, page = login(browser, gov_server, user)
        open_value_table(page)
        page.get_by_role("button", name=f"Sign v2026.Q4 as {role}").click()
        wait_for_app(page)
        page.get_by_text("Signed v2026.Q4").wait_for(timeout=120_000)
        close(ctx, page)
    ctx, page = login(browser, gov_server, "bea")
    open_value_table(page)
    page.get_by_role("button", name="Sign v2026.Q4 as Business").click()
    wait_for_app(page)
    page.get_by_text("Impact report: unversioned → v2026.Q4").wait_for(timeout=120_000)
    shot(page, "governance-impact-report")
    close(ctx, page)
    ctx, page = login(browser, gov_server, "vera")
    links = page.get_by_test_id("stSidebarNavLink")
    assert links.filter(has_text="Board").count() == 1
    assert links.filter(has_text="Value table").count() == 0
    close(ctx, page)
