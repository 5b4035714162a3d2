"""The board as the weekly review sees it: one 1920×1080 screen, five modules, present mode, export."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import DRIFTING_DEMO, shot, wait_for_app

pytestmark = pytest.mark.e2e


def _scroll_height(page) -> int:
    # Streamlit scrolls inside its main section, not the document: measure both
    return page.evaluate("""() => Math.max(document.documentElement.scrollHeight,
        ...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')]
            .map(e => e.scrollHeight))""")


def _modules_visible(page):
    expect(page.locator(".st-key-board_headline")).to_be_visible()
    expect(page.locator(".st-key-board_heatmap")).to_be_visible()
    expect(page.locator(".st-key-board_waterfall")).to_be_visible()
    expect(page.get_by_text(re.compile(r"Feature drift: (red|yellow|green|grey)"))).to_be_visible()
    expect(page.locator(".st-key-board_verdict .eb-word")).to_be_visible()
    expect(page.locator(".st-key-board_tiles .eb-tile").first).to_be_visible()


def test_board_fits_one_screen(page, server):
    page.goto(server + f"/?dataset={DRIFTING_DEMO}")  # the drifting week: the board with its drift banner
    wait_for_app(page)
    page.wait_for_selector(".st-key-board_verdict .eb-word", timeout=120_000)
    wait_for_app(page)
    _modules_visible(page)
    expect(page.get_by_role("button", name="Snapshot")).to_be_visible()  # the control present mode hides
    shot(page, "board-1920x1080")
    assert _scroll_height(page) <= 1080, "the board needs vertical scrolling at 1920×1080"
    assert not page.errors, page.errors


def test_present_mode_hides_controls_and_keeps_state_in_url(page, server):
    page.goto(server + f"/?present=1&dataset={DRIFTING_DEMO}&t_new=0.09&t_old=0.05")
    wait_for_app(page)
    page.wait_for_selector(".st-key-board_verdict .eb-word", timeout=120_000)
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    expect(page.get_by_role("button", name="Snapshot")).to_have_count(0)
    expect(page.locator(".eb-label").filter(has_text="new at 0.09: value per decision")).to_be_visible()
    _modules_visible(page)
    shot(page, "board-present")
    assert _scroll_height(page) <= 1080
    assert "t_new=0.09" in page.url


def test_pdf_and_png_download_in_one_click(page, server, tmp_path):
    """The board's PDF and PNG: one click each, rendered on the server by the warm Chromium."""
    page.goto(server)
    wait_for_app(page)
    page.wait_for_selector(".st-key-board_verdict .eb-word", timeout=120_000)
    wait_for_app(page)
    for kind, magic in (("PDF", b"%PDF"), ("PNG", b"\x89PNG")):
        with page.expect_download(timeout=120_000) as info:
            page.get_by_role("button", name=kind, exact=True).click()
        path = tmp_path / f"board.{kind.lower()}"
        info.value.save_as(path)
        assert path.read_bytes()[:4] == magic
