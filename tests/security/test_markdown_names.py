"""F9 (issue 17): Markdown in dataset, model and version names loaded external images and rendered
phishing links for other users.

Every user-supplied text is shown as text: on every page (the bodies Streamlit renders as Markdown
escape it), in the board's HTML export and in the audit log.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from board.access import auth
from board.app.ui import WORD_JOINER, md_text
from board.services import demo
from board.store import Store
from evalcore.data import ColumnMapping, read_table, validate
from tests.app.conftest import ADMIN, app  # noqa: F401 - the AppTest fixture

EVIL = "![x](http://evil.example/p.png) [click](http://evil.example) <img src=x onerror=alert(1)> **bold** :red[red]"
EVIL_MODEL = 'm ![i](http://evil.example/m.png) <a href="http://evil.example/m">m</a>'
EVIL_LEVEL = "[seg](http://evil.example/s) <img src=x>"
PAGES = [
    "views/board.py",
    "views/threshold_value.py",
    "views/uncertainty.py",
    "views/calibration.py",
    "views/drift.py",
    "views/value_table.py",
    "views/datasets.py",
    "views/audit.py",
]
_MD = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")


def _rendered_unsafely(body: str) -> list[str]:
    """What a Markdown renderer would make of ``body`` that is not text: images, links, HTML tags."""
    out = _MD.render(body)
    found = re.findall(r"<(?:img|a)\b[^>]*>", out)
    found += re.findall(r"(?:href|src)=\"?http://evil\.example[^\" >]*", out)
    if body.startswith("<") and "\n\n" not in body:
        return found  # an HTML block: Markdown, directives and autolinks are not read inside it
    if re.search(r"(?<!\\):red\[", body):
        found.append(":red[ directive")
    if re.search(r"(?<![\\/])http://evil\.example", body):
        found.append("bare URL (GitHub autolink)")
    return found


def _bodies(at) -> dict[str, str]:
    """Every string of the page Streamlit renders as Markdown (bodies and labels)."""
    out = {}
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "header", "subheader", "toast"):
        for i, el in enumerate(getattr(at, kind)):
            out[f"{kind}[{i}]"] = el.value
    for kind in ("metric", "button", "expander", "tabs", "text_input", "selectbox", "number_input", "slider", "checkbox"):
        for i, el in enumerate(getattr(at, kind)):
            out[f"{kind}[{i}].label"] = el.label
    for i, el in enumerate(at.radio):
        out[f"radio[{i}].label"] = el.label
        for j, o in enumerate(el.options):
            out[f"radio[{i}].option[{j}]"] = o
    return out


@pytest.fixture
def evil_dataset(tmp_path):
    """A dataset, a model, a segment level, a value table and a version label written to deceive."""
    rng = np.random.default_rng(17)
    n = 400
    x = rng.normal(size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-2 * x))).astype(int)
    f = pd.DataFrame(
        {
            "fraud": y,
            "s": np.round(1 / (1 + np.exp(-x)), 4),
            "seg": np.where(rng.uniform(size=n) < 0.5, EVIL_LEVEL, "plain"),
        }
    )
    raw = f.to_csv(index=False).encode()
    mapping = {"label": "fraud", "scores": {EVIL_MODEL: "s"}, "score_kinds": {EVIL_MODEL: "probability"}, "segments": ["seg"]}
    preds = validate(read_table(raw, "e.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=tmp_path / "data") as s:
        from board.services import ensure_demo

        ensure_demo(s)
        if s.get_user(ADMIN) is None:
            s.create_user(ADMIN, auth.hash_password("test admin password"), "admin")
        rec = s.save_dataset(
            name=EVIL,
            filename=EVIL + ".csv",
            raw=raw,
            mapping=mapping,
            report=preds.summary(),
            n_rows=preds.n_rows,
            uploader=EVIL,
        )
        s.append_audit(ADMIN, "upload_dataset", EVIL, {"name": EVIL})
    return rec.id


@pytest.mark.parametrize("page", PAGES)
def test_every_page_shows_user_names_as_text(app, evil_dataset, page):  # noqa: F811
    at = app(page, dataset=evil_dataset)
    assert not at.exception, [e.value for e in at.exception]
    bodies = _bodies(at)
    bad = {where: found for where, body in bodies.items() if (found := _rendered_unsafely(body))}
    assert not bad, {w: (bodies[w][:300], f) for w, f in bad.items()}


def test_the_name_is_still_shown_readably(app, evil_dataset):  # noqa: F811
    at = app("views/datasets.py", dataset=evil_dataset)
    assert any(md_text(EVIL) in b for b in _bodies(at).values())


def test_board_html_export_has_no_live_markup_from_names(evil_dataset, tmp_path):
    from board import export
    from board.services import evaluation
    from evalcore import ValueTable
    from evalcore.aggregate import evaluate_aggregate
    from evalcore.board import BoardConfig

    with Store(data_dir=tmp_path / "data") as s:
        data = evaluation.load_data(s, evil_dataset)

    table = ValueTable.from_dict({**demo.DEMO_VALUE_TABLE, "name": EVIL})
    result = evaluate_aggregate(data, table, BoardConfig(n_resamples=0))
    page = export.board_html(result, dataset_name=EVIL, table_version=EVIL)
    assert "<img src=x" not in page
    assert not re.search(r"(?:href|src)\s*=\s*\\?[\"']?http://evil\.example", page), re.findall(r".{80}evil\.example.{20}", page)
    # plotly renders <a href>, <b>, <br> … in titles, legends, ticks and hovers: the figures carry names escaped
    figures = page.split("</script>", 1)[1]  # after the inlined plotly.js
    assert "evil.example/m" in figures  # the model name is in the figures …
    assert not re.search(r"(?:\\u003c|<)a href", figures)  # … but never as a live link
    assert not re.search(r"(?:\\u003c|<)img", figures)


def test_md_text_leaves_nothing_for_markdown():
    assert _rendered_unsafely(md_text(EVIL)) == []
    shown = _MD.render(md_text(EVIL)).strip().replace(WORD_JOINER, "")  # the joiner is invisible
    assert shown == "<p>" + EVIL.replace("<", "&lt;").replace(">", "&gt;") + "</p>"
    assert "http://" not in md_text(EVIL) and "www." not in md_text("www.evil.example")  # no autolink
    assert md_text("a\n\n# b") == "a # b" and md_text("# b") == "\\# b" and md_text("1. b") == "1\\. b"


CHART_PAGES = ["views/threshold_value.py", "views/uncertainty.py", "views/calibration.py"]


@pytest.mark.parametrize("page", CHART_PAGES)
def test_page_charts_carry_names_as_text(app, evil_dataset, page):  # noqa: F811
    """Every page's plotly figures (not only the board's) get names with their tags escaped: plotly
    would render <a href>/<img> in a title, legend, tick or hover text."""
    at = app(page, dataset=evil_dataset)
    assert not at.exception, [e.value for e in at.exception]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert specs, "the page draws charts"
    assert any("evil.example" in spec and "&lt;a href" in spec for spec in specs)  # the name is drawn, tag as text …
    for spec in specs:
        assert not re.search(r"(?:\\u003c|<)a href", spec)  # … but never as a live link
        assert not re.search(r"(?:\\u003c|<)img", spec)
