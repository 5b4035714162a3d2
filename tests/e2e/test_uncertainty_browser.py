"""The Uncertainty page in a real browser at 1920×1080: verdict, CI bars and histograms drawn, options form runs."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import open_from_sidebar, shot, wait_for_app

pytestmark = pytest.mark.e2e


def test_uncertainty_page_renders_and_reruns_with_new_options(page, server):
    open_from_sidebar(page, server, "Uncertainty")
    # the demo's new model beats the old one at the deployed thresholds (the AppTest checks the numbers)
    expect(page.get_by_text("new is better: the 95% CI of EV_new − EV_old excludes 0.").first).to_be_visible(timeout=90_000)
    expect(page.get_by_text("Resampling scheme: clustered by customer_id")).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
    # plotly draws: comparison, the two questions, two t_opt histograms, AUC, two metric charts
    expect(page.get_by_test_id("stPlotlyChart")).to_have_count(7, timeout=60_000)
    expect(page.get_by_text("Expected value per decision").first).to_be_visible()
    wait_for_app(page)
    shot(page, "uncertainty")
    page.get_by_role("heading", name="Where the best threshold lands (question 2)").scroll_into_view_if_needed()
    expect(page.get_by_text("new: Re-optimised threshold over 1,000 replicates")).to_be_visible()
    shot(page, "uncertainty-histograms")

    page.get_by_text("Bootstrap options").click()
    replicates = page.get_by_label("Replicates")
    replicates.fill("200")
    page.get_by_role("button", name="Run bootstrap").click()
    wait_for_app(page)
    expect(page.get_by_text("200 replicates, percentile intervals at 95%")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("new: Re-optimised threshold over 200 replicates")).to_be_attached()
    page.get_by_role("heading", name="Uncertainty", exact=True).scroll_into_view_if_needed()
    shot(page, "uncertainty-options")
    assert not page.errors, page.errors
