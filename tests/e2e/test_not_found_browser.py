"""In Chromium: a mistyped address shows the board with the app's own note in the reader's
language, not Streamlit's English "Page not found" dialog (board/app/not_found.py)."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import shot, wait_for_app

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    "lang, note",
    [
        ("en", "There is no page at /board; the board is shown instead."),
        ("zh-CN", "没有地址为 /board 的页面；现在显示的是看板。"),
    ],
)
def test_a_mistyped_address_opens_the_board_with_a_note_in_the_readers_language(page, server, lang, note):
    page.goto(f"{server}/board?lang={lang}")
    wait_for_app(page)
    expect(page.get_by_text(note)).to_be_visible(timeout=90_000)
    expect(page.locator(".eb-verdict")).to_be_visible(timeout=90_000)  # the board, shown instead
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.get_by_role("dialog")).to_have_count(0)
    shot(page, f"not-found-{lang}")
    assert not page.errors, page.errors
