"""The Calibration page in a real browser at 1920×1080: diagrams drawn, cards readable, no JS errors."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import open_from_sidebar, shot, wait_for_app

pytestmark = pytest.mark.e2e


def test_calibration_page_renders(page, server):
    open_from_sidebar(page, server, "Calibration")
    # the reliability diagrams are drawn by plotly (AppTest cannot see them): axis title and diagonal legend
    expect(page.get_by_text("observed positive rate").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("perfectly calibrated").first).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    wait_for_app(page)
    shot(page, "calibration")
    page.get_by_role("heading", name="Recalibration (cross-fitted)").scroll_into_view_if_needed()
    expect(page.get_by_text("after: Platt (cross-fitted)")).to_have_count(0)  # not fitted on opening the page
    page.get_by_role("button", name="Cross-fit the recalibration").click()
    expect(page.get_by_text("after: Platt (cross-fitted)").first).to_be_visible(timeout=60_000)
    shot(page, "calibration-recalibration")
    assert not page.errors, page.errors
