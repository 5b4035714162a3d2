"""AppTest: the issue's GBK file on the Upload page is mapped with no manual fix (positive = 是), the
page says why 是 is the positive class and how finely the time is dated, and the Chinese demo is in
the sidebar's dataset picker and opens as a board priced in 元 (issue 15 items 5 and 7)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from board.services import demo
from board.services import evaluation as ev
from board.store import Store


def _issue_csv(n=400, seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    frame = pd.DataFrame(
        {
            "是否违约": np.where(y, "是", "否"),
            "现行模型分数": np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), 4),
            "候选模型分数": np.round(np.clip(0.5 * y + 0.5 * rng.random(n), 0, 1), 4),
            "收入区间": rng.choice(["5千以下", "5千至1万", "1万以上"], n),
            "申请时间": [f"2024{m:02d}" for m in rng.integers(1, 7, n)],  # year-months, as numbers
        }
    )
    return frame.to_csv(index=False).encode("gbk")


def test_the_issues_gbk_file_needs_no_manual_fix(app):
    at = app("views/upload.py")
    at.file_uploader(key="upload_file").set_value(("申请.csv", _issue_csv(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="upload_label").value == "是否违约"
    assert at.multiselect(key="upload_scores").value == ["现行模型分数", "候选模型分数"]
    assert at.selectbox(key="upload_positive").value == "是"
    assert at.selectbox(key="upload_time").value == "申请时间"
    assert at.multiselect(key="upload_segments").value == ["收入区间"]
    assert not at.error, [e.value for e in at.error]  # validation accepts the page's own guess
    assert any(s.value.startswith("Valid:") for s in at.success), [s.value for s in at.success]
    captions = [c.value for c in at.caption]
    assert any(c.startswith("是 is the positive class") and "it is the one that means yes" in c for c in captions), captions
    assert any(c.startswith("申请时间 holds year-months (2024-01 to 2024-06)") for c in captions), captions
    at.button(key="upload_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        rec = next(r for r in s.list_datasets() if r.filename == "申请.csv")
        assert rec.mapping["positive"] == "是" and rec.mapping["label"] == "是否违约"
        assert rec.report["time_granularity"] == "month" and rec.report["positive_rule"] == "family"


def test_the_chinese_demo_is_in_the_sidebar_and_opens_priced_in_yuan(app):
    at = app("views/board.py", dataset=None)  # the app's own choice: Demo 1
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        zh = next(r for r in s.list_datasets() if r.uploader == demo.ZH_UPLOADER)
        assert at.session_state["dataset"] == ev.ensure_demo(s).id  # the app still opens Demo 1
    box = at.sidebar.selectbox(key="dataset")
    assert f"{demo.CHINESE.name} · 50,000 rows" in box.options  # the picker lists it by its name
    box.set_value(zh.id).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["value_table_name"] == "贷款反欺诈"  # its own table, bound to it
    page = " ".join(h.value for h in at.html) + " ".join(m.value for m in at.markdown)
    assert "候选模型" in page and "元" in page
