"""Exports: the HTML opens offline in a headless browser without console errors and stacks on a
narrow screen; the PDF is one 16:9 page and the PNG one 1920×1080 sheet, both from one load; on
the sheet nothing is cut off (pdftotext finds every segment of the heatmap's column, its
threshold tick labels and the waterfall's categories); the numbers on the board page, in the
JSON and in the HTML agree."""

import html
import json
import os
import re
import shutil
import struct
import subprocess

import pytest
from playwright.sync_api import expect

from board import export
from board.cli import main
from board.services import demo
from board.words import fmt
from tests.e2e.conftest import ARTIFACTS, DRIFTING_DEMO, shot, wait_for_app

pytestmark = pytest.mark.e2e
PDFTOTEXT = shutil.which("pdftotext")


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
    assert main(args) == 0  # the PDF through the shared render worker
    yield d
    export.close_worker()


def _measure(browser, path) -> dict:
    """What the sheet shows, read from the HTML laid out as the renderer lays it out (print media,
    1920×1080): each module's box, and the tick labels of each chart."""
    ctx = browser.new_context(viewport={"width": export.WIDTH, "height": export.HEIGHT}, offline=True)
    page = ctx.new_page()
    page.emulate_media(media="print")
    page.goto(path.as_uri())
    page.wait_for_function("document.body.getAttribute('data-charts') === 'ready'")
    out = page.evaluate(
        """() => {
        const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
        const ids = ["meta", "verdict", "because", "tiles", "headline", "lights", "heatmap", "waterfall", "statistics"];
        const labels = (id, axis) => [...document.querySelectorAll(`#${id} .${axis}tick text`)].map(t => t.textContent);
        const texts = id => [...document.querySelectorAll(`#${id} svg text`)].filter(t => t.textContent.trim())
            .map(t => [t.textContent, ...box(t)]);
        return {
          boxes: Object.fromEntries(ids.map(id => [id, box(document.getElementById(id))])),
          heatmap_title: document.querySelector("#heatmap .gtitle").textContent,
          bullets: [...document.querySelectorAll("#because li")].map(li => li.textContent),
          heatmap_x: labels("heatmap", "x"), heatmap_y: labels("heatmap", "y"), waterfall_x: labels("waterfall", "x"),
          texts: Object.fromEntries(["headline", "heatmap", "waterfall"].map(id => [id, texts(id)])),
          statistics: document.getElementById("statistics").innerText,
          page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
        };
      }"""
    )
    ctx.close()
    return out


@pytest.fixture(scope="module")
def sheet(browser, cli_outputs):
    return _measure(browser, cli_outputs / "b.html")


@pytest.fixture(scope="module")
def rendered(cli_outputs):
    """PDF and PNG of the demo board from one click: one page load in the shared worker."""
    pdf, png = export.render_pdf_and_png((cli_outputs / "b.html").read_text(encoding="utf-8"))
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "export-sheet.png").write_bytes(png)  # to look at
    (ARTIFACTS / "export-sheet.pdf").write_bytes(pdf)
    return pdf, png


@pytest.fixture(scope="module")
def pdf_text(cli_outputs):
    if PDFTOTEXT is None:
        if os.environ.get("CI"):
            pytest.fail("pdftotext is missing; CI must install poppler-utils.")
        pytest.skip("no pdftotext (apt-get install poppler-utils)")
    out = subprocess.run([PDFTOTEXT, "-layout", str(cli_outputs / "b.pdf"), "-"], capture_output=True, text=True, check=True)
    return out.stdout


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
    page.set_viewport_size({"width": 800, "height": 1000})  # a narrow window: one column, nothing wider
    page.wait_for_timeout(300)
    xs = page.evaluate(
        "['headline', 'lights', 'heatmap', 'waterfall'].map(i => document.getElementById(i).getBoundingClientRect().left)"
    )
    assert max(xs) - min(xs) < 1, xs
    assert page.evaluate("document.documentElement.scrollWidth") <= 800
    ctx.close()


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))


def test_pdf_and_png_of_the_demo_in_one_render(cli_outputs, rendered):
    pdf, png = rendered
    for raw in (pdf, (cli_outputs / "b.pdf").read_bytes()):  # the click's and the CLI's
        assert raw.startswith(b"%PDF") and _pages(raw) == 1
        box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", raw)
        assert box and (float(box[1]), float(box[2])) == (1440.0, 810.0)  # 1920×1080 CSS px in points: 16:9
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1920, 1080)


def _assert_nothing_cut_off(sheet: dict) -> None:
    assert sheet["page"] == [1920, 1080]  # one sheet, no scrolling
    for module, (left, top, right, bottom) in sheet["boxes"].items():
        assert 0 <= left and right <= 1920 and 0 <= top and bottom <= 1080, (module, sheet["boxes"][module])
    for chart in ("headline", "heatmap", "waterfall"):
        left, top, right, bottom = sheet["boxes"][chart]
        assert bottom - top >= 250, (chart, "squeezed")
        for text, *b in sheet["texts"][chart]:  # every label of the chart inside its module
            assert left - 1 <= b[0] and b[2] <= right + 1 and top - 1 <= b[1] and b[3] <= bottom + 1, (chart, text, b)
    # modules do not overlap: each sits below the ones above it
    above = {
        "verdict": ["meta"],
        "because": ["verdict"],
        "tiles": ["because"],
        "lights": ["because"],
        "headline": ["tiles"],
        "heatmap": ["headline", "lights"],
        "waterfall": ["headline", "lights"],
        "statistics": ["heatmap", "waterfall"],
    }
    for lower, uppers in above.items():
        for upper in uppers:
            assert sheet["boxes"][upper][3] <= sheet["boxes"][lower][1] + 1, (upper, "overlaps", lower)


def test_nothing_is_cut_off_the_sheet(sheet):
    _assert_nothing_cut_off(sheet)


def test_the_longest_words_still_fit_the_sheet(browser, tmp_path, monkeypatch):
    """Statistics of the longest printed length, three long bullets and a caveat: every module
    still on the sheet, no chart squeezed (the rule of onepager.STATS_PRINT_CHARS)."""
    import dataclasses

    from board.export import onepager
    from board.words.verdict import Because, plain_verdict
    from evalcore import ValueTable
    from evalcore.board import BoardConfig, evaluate
    from evalcore.data import ColumnMapping, read_table, validate

    preds = validate(read_table(demo.demo_csv_bytes(), demo.DEMO_FILENAME), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    result = evaluate(preds, ValueTable.from_dict(dict(demo.DEMO_VALUE_TABLE)), BoardConfig(n_resamples=20))
    v = plain_verdict(result)
    words = "The gain of the new model could be anywhere in its interval, so chance alone could explain it "
    longest = dataclasses.replace(
        v,
        because=tuple(Because((words * 2)[:150], "uncertainty") for _ in range(3)),
        caveat=(words * 2)[:140],
        statistics=(words * 20)[: onepager.STATS_PRINT_CHARS],
    )
    monkeypatch.setattr(onepager, "plain_verdict", lambda r, locale="en", lens=None: longest)
    monkeypatch.setattr(onepager, "action_text", lambda action, L, result: longest.statistics)  # the printed rules
    path = tmp_path / "longest.html"
    path.write_text(export.board_html(result, dataset_name="demo"), encoding="utf-8")
    sheet = _measure(browser, path)
    _assert_nothing_cut_off(sheet)
    assert sheet["statistics"].startswith("Statistics") and len(sheet["statistics"]) > onepager.STATS_PRINT_CHARS  # shown whole


def test_pdf_text_has_the_heatmap_segments_its_ticks_and_the_waterfall(cli_outputs, sheet, pdf_text):
    d = json.loads((cli_outputs / "b.json").read_text())
    # the heatmap shows the segment column the verdict's bullets name (night_application in the demo)
    col, model = re.search(r" by (.+?)(?: × threshold)? — model (.+)", sheet["heatmap_title"]).groups()
    assert any(f"{col} = " in b for b in sheet["bullets"]), (col, sheet["bullets"])
    levels = list(d["models"][model]["segments"][col])  # level -> its numbers
    assert len(levels) >= 2 and len(sheet["heatmap_y"]) == len(levels)
    for level in levels:
        assert any(y.startswith(f"{level} (n=") for y in sheet["heatmap_y"]), (level, sheet["heatmap_y"])
    for label in sheet["heatmap_y"]:  # the segment names as the heatmap draws them
        assert label in pdf_text, label
    assert len(sheet["heatmap_x"]) >= 3
    for tick in sheet["heatmap_x"]:
        assert re.search(rf"(?<![\w.]){re.escape(tick)}(?![\w])", pdf_text), tick
    assert sheet["waterfall_x"] == ["EV old", "ΔTP", "ΔFP", "ΔFN", "ΔTN", "EV new"]
    for cat in sheet["waterfall_x"]:
        assert cat in pdf_text, cat
    assert "Statistics." in pdf_text  # the demo's statistics fit: printed in small print
    assert pdf_text.count("HOLD") == 1


def test_html_numbers_equal_json(cli_outputs):
    d = json.loads((cli_outputs / "b.json").read_text())
    body = re.sub(r"<script\b.*?</script>", "", (cli_outputs / "b.html").read_text(), flags=re.S)
    assert d["action"] and all(html.escape(part) in body for part in d["action"].split(". ")[:2])
    assert body.count("HOLD") == 1  # the verdict word, once
    diff = d["comparison"]["diff_ev"]
    assert f'<div class="tile-value">{fmt.money(diff, "EUR", signed=True, compact=True)}</div>' in body
    for name in ("old", "new"):
        ev = d["models"][name]["at_threshold"]["ev"]
        assert f'<div class="tile-value">{fmt.money(ev, "EUR", compact=True)}</div>' in body
    assert len(re.findall(r'<div class="tile(?: muted)?"', body)) == 3
    for fam in ("feature", "label", "calibration"):
        assert f"{fam.title()} drift: {d['drift'][fam]['light']}" in body


def test_board_page_shows_the_exports_verdict_and_tiles(page, server, cli_outputs):
    """The app's board (cluster bootstrap, as the CLI with --group) shows the export's verdict word
    and tile values: one board, two renderings."""
    exported = (cli_outputs / "b.html").read_text()
    word = html.unescape(re.search(r'<span class="verdict-word">(.*?)</span>', exported)[1])
    values = [html.unescape(x) for x in re.findall(r'<div class="tile-value">(.*?)</div>', exported)]
    assert len(values) == 3
    page.goto(server + f"/?dataset={DRIFTING_DEMO}&t_old=0.5&t_new=0.5")  # the CLI's file: the drifting week
    wait_for_app(page)
    page.wait_for_selector(".st-key-board_verdict .eb-word", timeout=120_000)
    expect(page.locator(".st-key-board_verdict .eb-word")).to_have_text(word)
    expect(page.locator(".st-key-board_tiles .eb-value")).to_have_text(values)
    shot(page, "board-matches-export")
