"""The board on the screens it is read on (issue 14 item 3): 820×1180 (a tablet), 1366×768 (the
meeting-room laptop) and 1920×1080, normal and present mode. Measured in the browser: the verdict
is on screen, no number or button label is cut, present mode is one slide with room-sized type."""

import pytest

from tests.e2e.conftest import DRIFTING_DEMO, shot, wait_for_app

pytestmark = pytest.mark.e2e

SCREENS = [(820, 1180), (1366, 768), (1920, 1080)]

# every visible leaf element in the main area whose text holds a digit or is a button label, and
# whose content is wider than its box (cut, or hidden behind an ellipsis)
CUT = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const out = [];
  for (const el of main.querySelectorAll('*')) {
    if (el.children.length || !el.offsetParent || el.clientWidth === 0) continue;
    const text = (el.textContent || '').trim();
    const isButton = !!el.closest('button, a[data-testid^="stPageLink"], [data-testid="stBaseLinkButton-secondary"]');
    if (!text || (!/\\d/.test(text) && !isButton)) continue;
    if (el.scrollWidth > el.clientWidth + 1) out.push(text.slice(0, 60) + ' [' + el.scrollWidth + '>' + el.clientWidth + ']');
  }
  return out;
}"""

HEIGHT = """() => Math.max(document.documentElement.scrollHeight,
  ...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')].map(e => e.scrollHeight))"""


def _px(page, selector: str) -> float:
    return page.evaluate(f"() => parseFloat(getComputedStyle(document.querySelector({selector!r})).fontSize)")


def _open(page, url: str):
    page.goto(url)
    wait_for_app(page, timeout=180_000)
    page.wait_for_selector(".st-key-board_verdict .eb-word", timeout=180_000)
    wait_for_app(page)
    page.wait_for_timeout(400)  # plotly lays out its SVG after the script run ends


@pytest.mark.parametrize("width,height", SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_board_verdict_first_and_nothing_cut(browser, server, width, height):
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        _open(page, server + f"/?dataset={DRIFTING_DEMO}")  # the drifting week: the board with its drift banner
        shot(page, f"board-layout-{width}x{height}")
        box = page.locator(".st-key-board_verdict .eb-word").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, f"the verdict is below the fold: {box}"
        assert page.evaluate(CUT) == []
        # the verdict word once on the page: the drift banner and the statistics do not repeat it
        assert page.locator(".eb-word").count() == 1
    finally:
        page.close()


@pytest.mark.parametrize("width,height", SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_present_mode_is_one_slide_with_room_sized_type(browser, server, width, height):
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        _open(page, server + f"/?present=1&dataset={DRIFTING_DEMO}")
        shot(page, f"present-layout-{width}x{height}")
        assert page.evaluate(CUT) == []
        assert _px(page, ".eb-word") >= 56
        assert _px(page, ".eb-sentence") >= 22
        assert _px(page, ".eb-because li") >= 22
        ticks = page.evaluate(
            "() => [...document.querySelectorAll('.xtick text, .ytick text')].map(t => parseFloat(getComputedStyle(t).fontSize))"
        )
        assert ticks and min(ticks) >= 16, ticks
        assert page.locator("[data-testid='stMain'] button:visible").count() == 0  # no controls
        assert page.locator("[data-testid='stMain'] a:visible").count() == 0  # no links
        if (width, height) != (820, 1180):  # a tablet in portrait may scroll; the slide screens may not
            assert page.evaluate(HEIGHT) <= height, "present mode needs scrolling"
    finally:
        page.close()
