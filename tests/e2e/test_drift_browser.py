"""The Drift page in a real browser: three lights, the drill-down charts, the banner."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import DRIFTING_DEMO, shot, wait_for_app

pytestmark = pytest.mark.e2e


def _open(page, url):
    """Open a deep link directly, as a shared link would (pages live in views/, not pages/,
    so Streamlit never serves them as legacy pages without the entry point)."""
    page.goto(url)
    wait_for_app(page)


def test_drift_page_shows_three_lights(page, server):
    _open(page, server + f"/drift?dataset={DRIFTING_DEMO}")
    expect(page.get_by_role("heading", name="Drift", exact=True)).to_be_visible(timeout=30_000)
    dataset = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Dataset")
    expect(dataset).to_have_value(re.compile(r"^Demo 2: drifting last week"))  # DRIFTING_DEMO is that demo
    for family in ("feature", "label", "calibration"):
        light = page.locator(f".st-key-drift_light_{family}")
        expect(light).to_be_visible()
        expect(light.get_by_text("red — drift")).to_be_visible()  # the demo drifts in all three families
    expect(page.locator(".st-key-drift_light_feature")).to_contain_text("device_risk: KS")
    expect(page.locator(".st-key-drift_banner")).to_contain_text("may no longer represent production")
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible()  # the features × windows heatmap
    shot(page, "drift")
    page.get_by_role("tab", name="Calibration").click()
    expect(page.get_by_text("Calibration drift — O/E band")).to_be_visible()
    page.get_by_text("Settings — saved with this dataset").click()
    expect(page.get_by_role("button", name="Save settings")).to_be_visible()
    page.wait_for_timeout(500)  # the expander animates open
    shot(page, "drift-settings")
    assert not page.errors, page.errors


def test_banner_links_to_drift_page(page, server):
    _open(page, server + f"/threshold?dataset={DRIFTING_DEMO}")
    banner = page.locator(".st-key-drift_banner")
    expect(banner).to_contain_text("may no longer represent production")
    banner.get_by_text("See what drifted").click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Drift", exact=True)).to_be_visible()
    assert page.url.endswith("/drift")
    assert not page.errors, page.errors
