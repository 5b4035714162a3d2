"""A dataset registered by path, in a real browser at 1920×1080: the form, the board on the
stored aggregate, the Drift page's drill-down from per-day counts, and the Stability page
saying it needs rows."""

import pytest
from playwright.sync_api import expect

from board.services import demo
from board.words import fmt
from evalcore import ValueTable, price_curve, score_counts
from tests.e2e.conftest import new_tab, shot, wait_for_app
from tests.e2e.servers import running_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def lake_server(tmp_path_factory):
    """An app server whose default root <data dir>/lake holds the demo rows as Parquet."""
    data = tmp_path_factory.mktemp("e2e-lake")
    (data / "lake").mkdir()
    frame = demo.demo_frame(n=3000)
    frame.to_parquet(data / "lake" / "demo.parquet")
    with running_server(data) as srv:
        yield srv.url, data, frame


def test_register_a_path_and_read_the_board(browser, lake_server):
    url, data, frame = lake_server
    ctx, page = new_tab(browser)
    page.goto(url + "/upload")
    wait_for_app(page)
    page.get_by_text("Register a path on the server (large data)").click()
    wait_for_app(page)
    expect(page.get_by_text("Allowed roots:")).to_be_visible(timeout=30_000)
    box = page.locator(".st-key-register_path input")
    box.fill("demo.parquet")
    box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text("1 Parquet file")).to_be_visible(timeout=30_000)
    expect(page.get_by_role("button", name="Aggregate with DuckDB and save")).to_be_visible()
    page.wait_for_timeout(500)
    shot(page, "lake-register-form")
    page.get_by_role("button", name="Aggregate with DuckDB and save").click()
    expect(page.get_by_text("aggregate of 3,000 rows from", exact=False).first).to_be_visible(timeout=60_000)
    wait_for_app(page)

    # the same tab (session): the new dataset is selected in the sidebar for every page
    page.get_by_role("link", name="Board").click()
    wait_for_app(page)
    expect(page.get_by_text("Decision board")).to_be_visible(timeout=60_000)
    ev = price_curve(
        score_counts(frame.is_fraud.to_numpy(), frame.score_new.to_numpy()), ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
    ).ev_at(0.5)
    card = page.locator(".eb-tile").filter(has_text="score_new at 0.5: value per decision")
    expect(card).to_contain_text(fmt.money(ev, "EUR", compact=True), timeout=60_000)
    expect(page.get_by_text("aggregate of 3,000 rows from", exact=False).first).to_be_visible()
    page.wait_for_timeout(1000)
    shot(page, "lake-board")

    # Drift on the aggregate: the lights and the per-window distribution drill-down, no rows needed
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Drift", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_text("From the stored aggregate", exact=False)).to_be_visible(timeout=60_000)
    expect(page.locator(".st-key-drift_distribution .js-plotly-plot")).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1000)
    shot(page, "lake-drift")

    page.get_by_role("link", name="Stability").click()
    wait_for_app(page)
    expect(page.get_by_text("Stability needs rows", exact=False)).to_be_visible(timeout=60_000)
    shot(page, "lake-stability")
    assert not page.errors, page.errors
    ctx.close()
