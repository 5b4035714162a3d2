"""Exports: the HTML opens offline in a headless browser without console errors, the PDF is one
page, and the numbers on the board page, in the JSON and in the HTML agree."""

import json
import re

import pytest
from playwright.sync_api import expect

from board.cli import main
from board.services import demo
from tests.e2e.conftest import shot, wait_for_app

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cli_outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("export")
    csv = d / "demo.csv"
    csv.write_bytes(demo.demo_csv_bytes())
    args = [
        "evaluate",
        "--predictions",
        str(csv),
        "--label",
        "is_fraud",
        "--score",
        "old=score_old",
        "--score",
        "new=score_new",
        "--segment",
        "customer_type",
        "--segment",
        "amount_band",
        "--segment",
        "night_application",
        "--time",
        "application_time",
        "--group",
        "customer_id",
        *sum((["--feature", f] for f in demo.DEMO_MAPPING["features"]), []),
        "--tp",
        "18500",
        "--fp",
        "-3200",
        "--fn",
        "-22000",
        "--tn",
        "120",
        "--unit",
        "EUR",
        "--json",
        str(d / "b.json"),
        "--html",
        str(d / "b.html"),
        "--pdf",
        str(d / "b.pdf"),
    ]
    assert main(args) == 0
    return d


def test_html_opens_offline_without_console_errors(browser, cli_outputs):
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080}, offline=True)
    page = ctx.new_page()
    messages = []
    page.on("console", lambda m: messages.append(m) if m.type == "error" else None)
    page.on("pageerror", lambda e: messages.append(e))
    page.goto((cli_outputs / "b.html").as_uri())
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3")
    assert not messages, messages
    assert page.evaluate("document.documentElement.scrollHeight") <= 1080
    page.screenshot(path=str(cli_outputs / "html.png"))
    ctx.close()


def test_pdf_has_exactly_one_page(cli_outputs):
    raw = (cli_outputs / "b.pdf").read_bytes()
    assert raw.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page(?![s\w])", raw)) == 1


def test_html_numbers_equal_json(cli_outputs):
    d = json.loads((cli_outputs / "b.json").read_text())
    html = (cli_outputs / "b.html").read_text()
    assert d["action"] and all(part in html for part in d["action"].replace("'", "&#x27;").split(". ")[:2])
    diff = d["comparison"]["diff_ev"]
    assert f"{diff:+,.2f} EUR" in html
    for fam in ("feature", "label", "calibration"):
        assert f"{fam.title()} drift: {d['drift'][fam]['light']}" in html


def test_board_page_shows_the_json_numbers(page, server, cli_outputs):
    """The app's board (cluster bootstrap, as the CLI with --group) shows the CLI's numbers."""
    d = json.loads((cli_outputs / "b.json").read_text())
    page.goto(server + "/?t_old=0.5&t_new=0.5")
    wait_for_app(page)
    page.wait_for_selector(".st-key-board_action", timeout=120_000)
    ev_new = d["models"]["new"]["at_threshold"]["ev"]
    expect(page.get_by_test_id("stMetricValue").filter(has_text=f"{ev_new:+,.2f} EUR")).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").filter(has_text=f"{d['comparison']['diff_ev']:+,.2f} EUR")).to_be_visible()
    expect(page.locator(".st-key-board_action")).to_contain_text(d["action"][:60])
    shot(page, "board-matches-json")
