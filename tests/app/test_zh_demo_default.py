"""A Chinese newcomer's first board is the Chinese demo (issue 15 item 7): with the tab in zh_CN
and no dataset chosen, the sidebar opens 演示 3 (Chinese columns and segments, priced in 元);
in English it opens Demo 1 as before."""

from __future__ import annotations

import os

from board.services import demo
from board.store import Store


def _opened(at):
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        return s.get_dataset(at.session_state["dataset"])


def test_a_chinese_tab_opens_the_chinese_demo(app, monkeypatch):
    monkeypatch.setenv("EVALBOARD_LANG", "zh-CN")
    at = app(dataset=None)
    assert not at.exception, [e.value for e in at.exception]
    rec = _opened(at)
    assert rec.uploader == demo.ZH_UPLOADER
    assert at.session_state["value_table_name"] == "贷款反欺诈"


def test_an_english_tab_opens_demo_1(app):
    at = app(dataset=None)
    rec = _opened(at)
    assert rec.uploader == "evalboard demo" and rec.name.startswith("Demo 1")
