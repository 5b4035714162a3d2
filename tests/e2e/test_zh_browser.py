"""Every page in Simplified Chinese, in Chromium (issue 15): opened with ``?lang=zh-CN``, the text a
person reads (page, sidebar, charts, tables) holds no untranslated English word apart from a short
allow-list (abbreviations, units) and the user's own data (dataset, model, column, segment and
value-table names, usernames). The screenshots of these pages at 1366×768 are kept in
test-artifacts/zh-<page>.png."""

import re
from pathlib import Path

import pandas as pd
import pytest

from tests.e2e.conftest import shot, wait_for_app

PAGES = {
    "board": "决策看板",
    "threshold": "阈值–价值曲线",
    "uncertainty": None,
    "calibration": None,
    "drift": "漂移",
    "stability": None,
    "data-conditions": "数据状况",
    "value-table": None,
    "value-tools": None,
    "upload": "添加验证集预测结果",
    "datasets": "数据集",
    "accounts": None,
    "audit": None,
}

#: Words that stay as they are in Chinese text: abbreviations of the trade, units and formats, and
#: the names of the two languages on the switch.
ALLOWED = set(
    "EV TP FP FN TN AUC KS PSI CI CSV PDF HTML PNG ECE ECDF NMI SEM SNR AHP CR MAD ACIR OE UTC MB GB dB "
    "EUR CNY GBK GB18030 UTF Parquet DuckDB Chromium Bootstrap BCa Platt Brier Wilson Wald Saaty "
    "SPEC Language English t n k d r g m p q f N K R df ddof std log logit sigmoid min max ln vs".split()
)
WORD = re.compile(r"[A-Za-z][A-Za-z]+")
#: Streamlit's own chrome, which the app cannot translate (the skip link), and the file uploader's
#: texts and list of file types, which stay in the DOM under the Chinese ones drawn over them
#: (ui.file_uploader; checked on the Upload page). The navigation lists every page (app.py: expanded=True), so its
#: English "View n more" button never shows, and multiselects get a Chinese placeholder (ui.multiselect).
CHROME = re.compile(
    r"Skip to main content|Drag and drop files? here|Browse files|Limit [\d.]+ ?[KMG]B per file"
    r"|\bUpload\b|[\d.]+ ?[KMG]B per file|(?:\b(?:CSV|TXT|TSV|PARQUET|PQ)\b,? ?)+"
)


def _user_data_words(data_dir) -> set:
    """Every word of what users (and the demo) named: datasets, files, columns, models, segment
    levels, value tables and their versions, usernames."""
    from board.services import demo
    from board.store import Store

    text = []
    with Store(data_dir=data_dir) as s:
        for r in s.list_datasets():
            text += [r.name, r.filename or "", r.uploader or "", r.source_path or "", str(r.mapping), str(r.report)]
        text += s.list_value_tables()
        text += [u.username for u in s.list_users()]
    # the bundled training table of the Stability and Data conditions pages names its target column
    # (data) in its name; only that column, so its feature names ("mean", "error") stay checked
    example = pd.read_csv(Path(__file__).resolve().parents[2] / "board" / "data" / "example_training.csv", nrows=1)
    text.append(str(example.columns[-1]))
    for frame in (demo.demo_frame(n=2000),):
        text += [str(c) for c in frame.columns]
        for c in frame.columns:
            if frame[c].dtype == object or str(frame[c].dtype).startswith(("str", "category")):
                text += [str(v) for v in frame[c].unique()[:50]]
    return set(WORD.findall(" ".join(text)))


def _visible_text(page) -> str:
    """What a person reads: the app's text without the icon ligatures (Material icons are drawn
    from words such as "dashboard" in a symbol font)."""
    # an expander's icon is the same ligature under its own test id
    # (an alert's icon is one too, under its own test id)
    page.add_style_tag(
        content="[data-testid='stIconMaterial'],[data-testid='stExpanderIcon'],[data-testid='stAlertDynamicIcon'],"
        "code{display:none !important}"
    )
    text = page.evaluate("() => document.querySelector(\"[data-testid='stAppViewContainer']\").innerText")
    return CHROME.sub(" ", text)


@pytest.fixture(scope="module")
def zh_server(tmp_path_factory):
    from tests.e2e.servers import running_server

    data = tmp_path_factory.mktemp("e2e-zh")
    with running_server(data) as srv:
        yield srv.url, data


#: Pages whose charts and some statistical sentences are still English (the chart builders of
#: board/charts/{uncertainty,calibration,drift,stability}.py take no locale yet, the bundled
#: scikit-learn example is named in English): strict xfail, so this test fails as soon as one is done.
NOT_YET: set[str] = set()


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason="charts not localised yet")) if p in NOT_YET else p
        for p in PAGES
    ],
)
def test_page_in_chinese_has_no_untranslated_words(browser, zh_server, path):
    url, data = zh_server
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/{'' if path == 'board' else path}?lang=zh-CN")  # the board's address is /
        wait_for_app(page)
        page.wait_for_timeout(800)  # the charts draw after the script run
        text = _visible_text(page)
        shot(page, f"zh-{path}")
        heading = PAGES[path]
        if heading:
            assert heading in text, text[:400]
        left = sorted(set(WORD.findall(text)) - ALLOWED - _user_data_words(data))
        assert not left, f"untranslated on /{path}: {left}"
        if path == "upload":  # Streamlit's own uploader words (kept in the DOM) are drawn over in Chinese
            drawn = page.evaluate(
                """() => [...document.querySelectorAll("[data-testid='stFileUploaderDropzone'] button p,"
                    + "[data-testid='stFileUploaderDropzoneInstructions'] span")]
                    .map(e => [getComputedStyle(e).fontSize, getComputedStyle(e, '::after').content])"""
            )
            limit = "也可将文件拖到此处 · 每个文件最大 200 MB · CSV, TXT, TSV, PARQUET, PQ"
            assert drawn == [["0px", '"选择文件"'], ["0px", f'"{limit}"']], drawn
        assert not errors, errors
    finally:
        ctx.close()


def test_browser_language_is_the_default(browser, zh_server):
    from board.store import Store
    from tests.e2e.servers import E2E_ADMIN

    url, data = zh_server
    with Store(data_dir=data) as s:  # an account that never chose: the browser's language decides
        s.set_user_language(E2E_ADMIN, None)
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")  # Accept-Language: zh-CN
    try:
        page = ctx.new_page()
        page.goto(url)  # the board: its address is /
        wait_for_app(page)
        assert "决策看板" in _visible_text(page)
    finally:
        ctx.close()
