"""Exports render Chinese (issue 15 item 6): a board whose model and segment names are Chinese
exports to a PDF that embeds a CJK font (pdffonts) and whose text holds the names (pdftotext), and
to a PNG whose pixels around the names are not blank. Needs Debian Chromium and fonts-noto-cjk
(.ci/run installs both); the HTML's font stacks name a CJK font on any machine."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from board import export
from board.export import onepager
from board.services import demo
from evalcore import ValueTable
from evalcore.board import BoardConfig, evaluate
from evalcore.data import ColumnMapping, read_table, validate

CHROMIUM = os.environ.get("EVALBOARD_CHROMIUM", "/usr/bin/chromium")
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")  # Debian fonts-noto-cjk
CHANNELS = {"线上", "线下", "代理"}
MODELS = ("现行模型", "候选模型")


def test_the_html_and_the_charts_name_a_cjk_font_stack():
    from board.charts import _style

    css = re.search(r"font-family:([^;]+);", onepager._CSS).group(1)
    assert css.index('"Noto Sans CJK SC"') > css.index("Arial")  # after the Latin fonts
    assert css.strip().endswith("sans-serif")
    assert '"Noto Sans CJK SC"' in _style.FONT_FAMILY and '"Microsoft YaHei"' in _style.FONT_FAMILY


def test_the_html_export_gives_its_charts_the_readers_locale(chinese_board):
    """The exported charts carry plotly's words (dates, modebar) in the page's language."""
    zh = export.board_html(chinese_board, dataset_name="中文演示.csv", table_version="草稿", locale="zh_CN")
    charts = zh.count("Plotly.newPlot(")
    assert charts >= 3 and zh.count('"locale": "zh-CN"') == charts
    assert zh.count(f'"dayMonth": {json.dumps("%-m月%-d日")}') == charts  # plotly writes its JSON ASCII-escaped
    en = export.board_html(chinese_board, dataset_name="中文演示.csv", table_version="草稿")
    assert '"locale": "' not in en  # plotly's own English (its bundle names "locale" itself)


@pytest.fixture(scope="module")
def chinese_board():
    """The Chinese demo (a 6,000-row slice of its seeded generator), one segment column: 渠道."""
    raw = demo.demo_frame_zh(n=6_000).to_csv(index=False).encode("gbk")
    mapping = dict(demo.ZH_MAPPING, segments=["渠道"], features=[])
    preds = validate(read_table(raw, "中文.csv"), ColumnMapping.from_dict(mapping))
    table = ValueTable.from_dict(dict(demo.ZH_VALUE_TABLE))
    return evaluate(preds, table, BoardConfig(n_resamples=30, seed=0))


@pytest.mark.slow
@pytest.mark.e2e
def test_a_chinese_board_exports_to_pdf_and_png_with_the_characters(chinese_board, tmp_path):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}; CI must install it (apt-get install -y chromium).")
        pytest.skip(f"no Chromium at {CHROMIUM}")
    if not (shutil.which("pdffonts") and shutil.which("pdftotext")):
        pytest.skip("no poppler-utils (pdffonts, pdftotext)")
    if not CJK_FONT.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CJK_FONT} is missing; CI must install fonts-noto-cjk (.ci/run).")
        pytest.skip("no CJK font (apt-get install fonts-noto-cjk)")
    page = export.board_html(chinese_board, dataset_name="中文演示.csv", table_version="草稿")
    assert all(name in page for name in MODELS)  # the segment names are in the heatmap's (escaped) figure JSON
    try:
        pdf, png = export.render_pdf_and_png(page)
    finally:
        export.close_worker()
    path = tmp_path / "board.pdf"
    path.write_bytes(pdf)
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
    # Chromium's PDF backend embeds an OpenType/CFF font such as Noto Sans CJK as Type 3 fonts, which
    # pdffonts lists without a name ("[none] Type 3 … emb yes … uni yes"); their descriptors name the
    # face. Without a CJK font there is no such face: the names would be drawn as empty boxes.
    type3 = [line.split() for line in fonts.splitlines() if " Type 3 " in line]
    assert type3 and all(cols[-5:-2] == ["yes", "no", "yes"] for cols in type3), fonts  # embedded, with Unicode
    assert re.search(rb"/FontName /[A-Z]{6}\+NotoSansCJKsc-Regular", pdf)
    assert re.search(rb"/FontFamily \(Noto Sans CJK SC\)", pdf)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert CHANNELS <= set(re.findall(r"线上|线下|代理", text)), text  # every segment name of the heatmap
    assert all(name in text for name in MODELS), text
    # the PNG: the sheet is not blank, and its dark pixels are more than the Latin text alone would give
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("L")
    assert img.size == (export.WIDTH, export.HEIGHT)
    dark = sum(img.histogram()[:128])
    assert dark > 0.005 * img.size[0] * img.size[1]
