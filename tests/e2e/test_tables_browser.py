"""Tables in a real browser (issue 14 item 5): the grid shows plain column names and the
formatter's numbers (AppTest sees only the data, not what the grid draws). The grid is a canvas;
its accessible table carries the header and cell texts."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import shot, wait_for_app

pytestmark = pytest.mark.e2e

SCIENTIFIC = re.compile(r"\d(?:\.\d+)?[eE][+-]?\d+")


def _grids(page, timeout=60_000):
    grids = page.get_by_test_id("stDataFrame")
    expect(grids.first).to_be_visible(timeout=timeout)
    return [grids.nth(i) for i in range(grids.count())]


def _headers(grid) -> list[str]:
    grid.scroll_into_view_if_needed()
    expect(grid.locator("[role=columnheader]").first).to_have_text(re.compile(r"\S"), timeout=30_000)  # drawn
    return [h.strip() for h in grid.locator("[role=columnheader]").all_text_contents()]


def _cells(grid) -> list[str]:
    return [c.strip() for c in grid.locator("[role=gridcell]").all_text_contents()]


def _plain(headers):
    bad = [h for h in headers if "_" in h or h.lower() == "undefined"]
    assert not bad, bad


def test_threshold_table_in_words(page, server):
    page.goto(server + "/threshold")
    wait_for_app(page)
    (grid,) = _grids(page)
    assert _headers(grid) == ["Measure", "old", "new"]
    cells = _cells(grid)
    for row in ("Deployed threshold", "True positives (TP)", "EV per decision at the deployed threshold", "Best threshold"):
        assert row in cells, cells[:12]
    assert any(c.endswith(" EUR") for c in cells) and any(c.endswith("%") for c in cells)
    assert not [c for c in cells if SCIENTIFIC.search(c)]
    shot(page, "tables-threshold")
    assert not page.errors, page.errors


def test_calibration_and_uncertainty_tables_in_words(page, server):
    page.goto(server + "/calibration")
    wait_for_app(page)
    grids = _grids(page)
    assert _headers(grids[0])[:3] == ["Segment", "Rows", "Positives"]
    assert "Observed ÷ expected" in _headers(grids[0]) and "Why undefined" in _headers(grids[0])
    for g in grids:
        _plain(_headers(g))
    grids[0].scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    shot(page, "tables-calibration-segments")

    page.goto(server + "/uncertainty")
    wait_for_app(page)
    page.get_by_text("All intervals as numbers").click()
    (grid,) = _grids(page, timeout=90_000)
    assert _headers(grid) == [
        "Quantity",
        "Estimate",
        "Low",
        "High",
        "Bootstrap standard error",
        "Analytic standard error",
        "Interval",
    ]
    cells = _cells(grid)
    assert any(c.endswith(" EUR") for c in cells) and not [c for c in cells if SCIENTIFIC.search(c)]
    page.wait_for_timeout(500)
    shot(page, "tables-uncertainty")
    assert not page.errors, page.errors


def test_drift_value_tools_and_value_table_in_words(page, server):
    page.goto(server + "/drift")
    wait_for_app(page)
    (grid,) = _grids(page, timeout=90_000)
    assert _headers(grid) == ["Feature", "Light", "Reason"]

    page.goto(server + "/value-tools")
    wait_for_app(page)
    page.get_by_role("button", name=re.compile("Run the sensitivity check")).click()
    wait_for_app(page)
    page.get_by_text("One amount at a time: every number").click()
    amounts, sens = _grids(page)
    # no money scale set yet: weights only, no proposed amounts (issue 16 item 6)
    assert _headers(amounts) == ["Outcome", "Weight", "Role", "Current amount"]
    _plain(_headers(sens))
    assert "Amount after the change" in _headers(sens)

    page.goto(server + "/value-table")
    wait_for_app(page)
    editor, *others = _grids(page)  # the editor, then the what-if and versions tables
    assert _headers(editor)[:2] == ["Outcome", "Meaning"] and "EUR" in _headers(editor)[2]
    for grid in others:
        _plain(_headers(grid))
    expect(page.get_by_text(re.compile(r"Effective amounts \(amount × confidence\): TP \+18,500 EUR"))).to_be_visible()
    assert not page.errors, page.errors
