"""AppTest in Simplified Chinese (issue 15): every page renders in zh-CN without an exception,
the language comes from ``?lang=``, the tab's switch, the account or EVALBOARD_LANG, and the
board's verdict, navigation and sidebar read in Chinese."""

import json

import pytest

from board.words.i18n import t

PAGES = [
    "views/board.py",
    "views/threshold_value.py",
    "views/uncertainty.py",
    "views/calibration.py",
    "views/drift.py",
    "views/stability.py",
    "views/data_conditions.py",
    "views/value_table.py",
    "views/value_tools.py",
    "views/upload.py",
    "views/datasets.py",
    "views/accounts.py",
    "views/audit.py",
]


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.error]
    parts += [x.value for x in at.warning] + [x.value for x in at.info] + [x.value for x in at.title]
    parts += [x.value for x in at.subheader] + [x.value for x in at.header]
    return "\n".join(str(p) for p in parts)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_in_chinese(app, page):
    at = app(page, locale="zh_CN")
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["locale"] == "zh_CN"
    for chart in at.get("plotly_chart"):  # plotly's own words (a time axis's dates, the modebar) too
        assert json.loads(chart.proto.config)["locale"] == "zh-CN", chart.proto.id


def test_board_reads_in_chinese(app):
    at = app("views/board.py", locale="zh_CN")
    assert not at.exception, [e.value for e in at.exception]
    html = "\n".join(h.proto.body for h in at.get("html"))
    assert t("Decision board", "zh_CN") == "决策看板"
    assert "决策看板" in _texts(at) + html
    # the verdict word is one of the Chinese verdicts (the demo week drifts: 暂缓)
    assert any(w in html for w in ("暂缓", "保留", "上线", "无结论"))
    assert at.selectbox(key="dataset").label == "数据集"
    assert at.selectbox(key="value_table_name").label == "价值表"
    assert at.button(key="auth_logout").label == "退出登录"


def test_english_stays_the_default(app, monkeypatch):
    monkeypatch.delenv("EVALBOARD_LANG", raising=False)
    at = app("views/board.py")
    assert at.session_state["locale"] == "en"
    assert at.selectbox(key="dataset").label == "Dataset"
    charts = at.get("plotly_chart")
    assert charts and all("locale" not in json.loads(c.proto.config) for c in charts)  # plotly's English


def test_deployment_default_from_evalboard_lang(app, monkeypatch):
    monkeypatch.setenv("EVALBOARD_LANG", "zh-CN")
    at = app("views/board.py")
    assert at.session_state["locale"] == "zh_CN"
    assert at.selectbox(key="dataset").label == "数据集"


def test_language_switch_is_kept_with_the_account(app, tmp_path):
    from board.store import Store

    at = app("views/board.py")
    at.segmented_control(key="lang_switch").set_value("zh_CN").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["locale"] == "zh_CN"
    assert at.selectbox(key="dataset").label == "数据集"
    assert at.query_params.get("lang") in ("zh-CN", ["zh-CN"])
    with Store(data_dir=tmp_path / "data") as s:
        assert s.get_user("test-admin").language == "zh_CN"
        assert any(e.action == "set_own_language" for e in s.list_audit())


def test_stored_language_applies_at_login(app, tmp_path):
    from board.access import auth
    from board.store import Store

    data = tmp_path / "data"
    with Store(data_dir=data) as s:
        s.create_user("li", auth.hash_password("a long password 1"), "viewer")
        s.set_user_language("li", "zh_CN")
    at = app("views/board.py", user=("li", "viewer"))
    assert at.session_state["locale"] == "zh_CN"


def test_the_empty_multiselect_asks_in_chinese(app):
    """Streamlit's own placeholder of an empty multiselect is the English "Choose options";
    ui.multiselect gives every one the reader's language. (The navigation's English "View 3 more"
    is gone too: app.py lists every page; the Chromium test of the zh pages no longer allows it.)"""
    at = app("views/drift.py", locale="zh_CN")
    assert not at.exception, [e.value for e in at.exception]
    boxes = at.get("multiselect")
    assert boxes and {b.proto.placeholder for b in boxes} == {"请选择"}
