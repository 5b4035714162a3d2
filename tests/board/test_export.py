"""The one-pager's HTML (no browser): the board's modules in the board's order, the verdict's
own words exactly once, every number from board.words.fmt, names escaped, the statistics on
the sheet only when they fit. Rendering is in test_export_worker.py and tests/e2e/test_export.py."""

import dataclasses
import html
import re

import pytest

from board import export
from board.export import onepager
from board.services import demo
from board.words import fmt
from board.words.verdict import Because, Tile, plain_verdict
from evalcore import ValueTable
from evalcore.board import BoardConfig, evaluate
from evalcore.data import ColumnMapping, read_table, validate


@pytest.fixture(scope="module")
def result():
    """The demo board: two models, segments, red drift lights (HOLD)."""
    preds = validate(read_table(demo.demo_csv_bytes(), demo.DEMO_FILENAME), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    table = ValueTable.from_dict(dict(demo.DEMO_VALUE_TABLE))
    return evaluate(preds, table, BoardConfig(n_resamples=50, seed=0, scheme="cluster"))


@pytest.fixture(scope="module")
def page(result):
    return export.board_html(result, dataset_name="demo.csv", table_version="v3")


def _body(page: str) -> str:
    """The page without its scripts (plotly.js and the figures)."""
    return re.sub(r"<script\b.*?</script>", "", page, flags=re.S)


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", _body(page)))


def test_the_verdict_word_is_there_exactly_once(result, page):
    v = plain_verdict(result)
    assert v.kind == "hold" and v.word == "HOLD"  # the demo's drift lights are red
    assert _body(page).count(html.escape(v.word)) == 1
    assert re.search(r"HOLD\W+Hold", _text(page)) is None  # the former "HOLD Hold:"
    assert 'data-kind="hold"' in page


def test_modules_in_the_boards_order(result, page):
    body = _body(page)
    order = ['id="meta"', 'id="verdict"', 'id="because"', 'id="tiles"', 'id="headline"', 'id="lights"']
    order += ['id="heatmap"', 'id="waterfall"', 'id="statistics"']
    at = [body.index(x) for x in order]
    assert at == sorted(at)


def test_sentence_bullets_and_tiles_are_the_verdicts(result, page):
    v = plain_verdict(result)
    body = _body(page)
    assert html.escape(v.sentence) in body
    assert 2 <= len(v.because) <= 3
    for b in v.because:
        assert f">{html.escape(b.text)}</li>" in body
    assert len(re.findall(r'class="tile(?: muted)?"', body)) == len(v.tiles) == 3
    for t in v.tiles:
        assert html.escape(t.label) in body and html.escape(t.value) in body and html.escape(t.note) in body
    assert body.count('class="tile muted"') == sum(t.muted for t in v.tiles) == 1  # the uplift, not actionable


def test_meta_line_numbers_come_from_fmt(result, page):
    meta = re.search(r'<div class="meta">(.*?)</div>', page).group(1)
    assert "demo.csv" in meta and f"value table “{result.table.name}” v3" in meta
    assert f"{fmt.count(result.n_rows)} decisions" in meta
    assert f"{fmt.share(result.config.level, 0)} percentile bootstrap, cluster scheme, {fmt.count(50)} replicates" in meta
    assert re.search(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", meta)


def test_a_value_table_without_a_name_is_not_shown_as_empty_quotes(result):
    bare = dataclasses.replace(result, table=dataclasses.replace(result.table, name=""))
    meta = re.search(r'<div class="meta">(.*?)</div>', export.board_html(bare, table_version="CLI amounts")).group(1)
    assert "value table CLI amounts" in meta and "“”" not in meta


def test_the_heatmap_shows_the_segment_the_bullets_name(result):
    v = plain_verdict(result)
    assert v.segment_column is not None
    assert any(v.segment_column in b.text for b in v.because)
    figs = export.board_figures(result, segment_column=v.segment_column)
    focus = list(result.models)[0]  # under HOLD the board looks at the deployed model
    assert figs["heatmap"].layout.title.text == f"Value per decision by {v.segment_column} — model {focus}"
    levels = result.models[focus].segments[v.segment_column].levels
    assert sorted(str(y).split(" (n=")[0] for y in figs["heatmap"].data[0].y) == sorted(map(str, levels))


def test_every_axis_takes_the_margin_it_needs(result):
    for name, fig in export.board_figures(result).items():
        assert fig.layout.xaxis.automargin and fig.layout.yaxis.automargin, name
    assert all(t.cliponaxis is False for t in export.board_figures(result)["waterfall"].data)


def test_statistics_in_small_print_when_they_fit(result, page, monkeypatch):
    v = plain_verdict(result)
    footer = re.search(r'<footer id="statistics"(.*?)</footer>', page, flags=re.S)
    assert footer.group(1).startswith(">")  # no class: printed on the sheet
    assert f"<details><summary>Statistics</summary><p>{html.escape(v.statistics)}</p></details>" in footer.group(0)
    assert len(v.statistics) <= onepager.STATS_PRINT_CHARS

    monkeypatch.setattr(onepager, "STATS_PRINT_CHARS", len(v.statistics) - 1)
    long = export.board_html(result)
    footer = re.search(r'<footer id="statistics"(.*?)</footer>', long, flags=re.S).group(0)
    assert "no-print-stats" in footer  # the sheet drops them …
    assert "Statistics: in the HTML export" in footer  # … and says where they are
    assert html.escape(v.statistics) in footer  # the HTML keeps them behind the toggle


def test_user_text_is_escaped_everywhere(result, monkeypatch):
    evil = '<img src=x onerror=alert(1)><a href="http://evil.example">x</a>'
    v = plain_verdict(result)
    hostile = dataclasses.replace(
        v,
        word=evil,
        at=evil,
        sentence=evil,
        caveat=evil,
        statistics=evil,
        because=(Because(evil, "drift", evil),),
        tiles=(Tile(label=evil, value=evil, note=evil, muted=True, help=evil),),
    )
    monkeypatch.setattr(onepager, "plain_verdict", lambda r, locale="en", lens=None: hostile)
    page = export.board_html(result, dataset_name=evil, table_version=evil)
    body = _body(page)
    assert "<img" not in body and "<a href" not in body
    assert body.count(html.escape(evil)) >= 9


def test_no_segments_no_heatmap(result):
    bare = dataclasses.replace(result, models={n: dataclasses.replace(m, segments={}) for n, m in result.models.items()})
    page = export.board_html(bare)
    assert "No segment columns mapped" in page and 'id="fig-heatmap"' not in page


def test_missing_chromium_is_a_clear_export_error():
    from board.export.worker import RenderWorker

    with pytest.raises(export.ExportError, match=r"needs Chromium at /nonexistent/chromium \(sudo apt-get install chromium\)"):
        RenderWorker(chromium="/nonexistent/chromium").render("<html></html>")


def test_render_kinds_are_checked():
    with pytest.raises(ValueError, match="kind: 'pdf' or 'png', got 'svg'"):
        export.render_bytes("<html></html>", "svg")


def test_the_export_follows_the_readers_loss_view(result):
    """Loss or value (issue 14 item 8): the HTML of a reader who sees losses shows the same board
    as expected loss — tiles, chart titles — and never a value-sign amount under a loss label."""
    from board.words import fmt
    from board.words.lens import Lens

    page = export.board_html(result, dataset_name="d", table_version="v1", lens=Lens("loss"))
    m = result.models["old"]
    assert "old at 0.5: expected loss per decision" in page
    assert html.escape(fmt.money(-m.ev, "EUR", compact=True)) in page
    assert "Expected loss per decision by" in page
    assert "Where the loss moves from old to new" in page
