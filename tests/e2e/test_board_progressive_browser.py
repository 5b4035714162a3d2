"""In Chromium: the Board shows its point estimates while the intervals are still computing, then
the whole board (issue 18 item 1). The whole board is held back by the test gate
(EVALBOARD_TEST_BOARD_GATE) until the point board has been read, so nothing here is timed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import new_tab, shot, wait_for_app
from tests.e2e.servers import running_server

pytestmark = pytest.mark.e2e


def test_the_board_shows_point_estimates_while_the_intervals_compute(browser, tmp_path, monkeypatch):
    gate = tmp_path / "release-the-board"
    monkeypatch.setenv("EVALBOARD_PROGRESSIVE", "1")
    monkeypatch.setenv("EVALBOARD_TEST_BOARD_GATE", str(gate))
    with running_server(tmp_path / "data", warm=False) as srv:  # a first start: nothing cached yet
        ctx, page = new_tab(browser)
        try:
            page.goto(srv.url)
            expect(page.get_by_text("Verdict: computing")).to_be_visible(timeout=120_000)
            expect(page.get_by_text("new: value per decision")).to_be_visible()
            expect(page.get_by_text("interval: computing …").first).to_be_visible()
            expect(page.get_by_text("Computing the intervals")).to_be_visible()
            expect(page.get_by_role("button", name="Snapshot")).to_have_count(0)
            expect(page.get_by_test_id("stPlotlyChart")).to_have_count(1, timeout=60_000)  # the waterfall (point)
            shot(page, "board-point-estimates")
            gate.touch()  # the whole board may finish now: the page fills in by itself
            expect(page.get_by_text("Verdict: computing")).to_have_count(0, timeout=180_000)
            expect(page.locator(".eb-verdict[data-kind='roll out']")).to_be_visible()  # Demo 1's verdict
            expect(page.get_by_role("button", name="Snapshot")).to_be_visible()
            wait_for_app(page)
            assert not page.errors, page.errors
        finally:
            ctx.close()
