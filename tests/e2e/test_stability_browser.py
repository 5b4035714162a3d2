"""The Stability and Data conditions pages in a real browser at 1920×1080: the background run
finishes through the polling fragment (which AppTest cannot exercise), charts render."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import shot, wait_for_app

pytestmark = pytest.mark.e2e


def test_stability_page_background_run_and_cancel(page, server):
    page.goto(server + "/stability")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Stability", exact=True)).to_be_visible(timeout=30_000)
    # nothing runs until asked: then the run on the example table completes via the run_every fragment
    expect(page.get_by_text("Press Run cross-validation to start", exact=False)).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="Run cross-validation").click()
    expect(page.get_by_text("Mean Accuracy")).to_be_visible(timeout=120_000)
    wait_for_app(page)
    expect(page.get_by_test_id("stPlotlyChart")).to_have_count(3)
    page.wait_for_timeout(800)
    shot(page, "stability")
    # a long run shows progress and can be cancelled; the page stays usable
    page.locator(".st-key-stab_r input").fill("100")
    page.locator(".st-key-stab_r input").press("Enter")
    page.get_by_role("button", name="Run cross-validation").click()
    expect(page.get_by_role("button", name="Cancel")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stProgress")).to_be_visible()
    shot(page, "stability-running")
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_text("Cancelled", exact=False).first).to_be_visible(timeout=60_000)
    assert not page.errors, page.errors


def test_data_conditions_page(page, server):
    page.goto(server + "/data-conditions")
    wait_for_app(page)
    expect(page.get_by_text("= Normalized")).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Run learning-curve experiment").click()
    expect(page.get_by_text(re.compile(r"^On this data, the normalized"))).to_be_visible(timeout=120_000)
    wait_for_app(page)
    page.wait_for_timeout(800)
    shot(page, "data-conditions")
    assert not page.errors, page.errors
