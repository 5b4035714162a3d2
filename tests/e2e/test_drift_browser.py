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


def _shown(page, selector: str) -> list[bool]:
    """Whether each heatmap element matching ``selector`` is displayed (plotly draws them all)."""
    return page.locator(f".st-key-drift_heatmap {selector}").evaluate_all(
        "els => els.map(e => getComputedStyle(e).display !== 'none')"
    )


def test_heatmap_numbers_are_left_out_only_where_they_would_run_together(page, server):
    """At 820 px the cells are too narrow for numbers (they ran into one another): none is shown;
    at 1920 px every number is, the grey ones below their noise floor too; the hover has them all."""
    for width, numbers in ((820, False), (1920, True)):
        page.set_viewport_size({"width": width, "height": 1000})
        _open(page, server + "/drift")
        heatmap = page.locator(".st-key-drift_heatmap")
        expect(heatmap.locator(".heatmap-label").first).to_be_attached(timeout=60_000)
        labels, grey = _shown(page, ".heatmap-label"), _shown(page, ".textpoint")
        assert labels and grey, (len(labels), len(grey))  # the stable demo has numbers of both kinds
        assert set(labels) == {numbers} and set(grey) == {numbers}, (width, set(labels), set(grey))
    assert not page.errors, page.errors
