"""The Drift, Stability and Data conditions charts in Simplified Chinese (issue 15): with
``locale="zh_CN"`` every title, axis, legend name, hover label and annotation is Chinese apart from
the trade's abbreviations; the English default is what it was."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from board.charts import drift as cd
from board.charts import stability as cs
from evalcore.stability import summarize
from tests.board.test_charts_drift import report  # noqa: F401 - the module's fixture

ALLOWED = {"KS", "PSI", "ECE", "ECDF", "SEM", "MAD", "Wilson", "Nadeau", "Bengio", "O", "E", "OE", "p", "x", "t", "N", "d"}
WORD = re.compile(r"[A-Za-z][A-Za-z]+|\b[A-Za-z]\b")


def _texts(fig: go.Figure) -> list[str]:
    """Every text a reader sees on the figure (without plotly's %{…} placeholders and markup)."""
    lay = fig.layout
    out = [lay.title.text or ""]
    out += [lay[k].title.text or "" for k in lay if k.startswith(("xaxis", "yaxis"))]
    out += [a.text or "" for a in lay.annotations]
    for tr in fig.data:
        out += [tr.name or "", getattr(tr, "hovertemplate", None) or ""]
        ht = getattr(tr, "hovertext", None)
        if ht is not None:
            out += [str(v) for row in ht for v in (row if isinstance(row, (list, tuple)) else [row])]
        cb = getattr(getattr(tr, "colorbar", None), "title", None)
        out.append((cb.text if cb is not None else "") or "")
    return [re.sub(r"%\{[^}]*\}|<[^>]+>|\d{4}-\d{2}-\d{2}", " ", s) for s in out]


def _english(fig: go.Figure, data_words: set = frozenset()) -> set:
    return {w for s in _texts(fig) for w in WORD.findall(s)} - ALLOWED - set(data_words)


def test_drift_charts_in_chinese(report):  # noqa: F811
    fd, ld = report.feature, report.label
    features = {w for f in fd.features for w in WORD.findall(f)}
    figs = [
        cd.drift_lights_figure(report, locale="zh_CN"),
        cd.feature_heatmap_figure(fd, locale="zh_CN"),
        cd.feature_distribution_figure(fd, "shifted", locale="zh_CN"),
        cd.feature_distribution_figure(fd, "channel", locale="zh_CN"),
        cd.label_rate_figure(ld, locale="zh_CN"),
        cd.calibration_drift_figure(report.calibration, locale="zh_CN"),
    ]
    for fig in figs:
        assert not _english(fig, features | {"app", "web"}), _texts(fig)
    assert "特征漂移" in figs[1].layout.title.text and figs[1].layout.xaxis.title.text == "窗口截止日期"
    assert cd.feature_heatmap_figure(fd).layout.xaxis.title.text == "window ending on"  # English stays the default


def test_stability_charts_in_chinese():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.90, 0.01, 20), rng.normal(0.88, 0.02, 20)
    runs = {"A": (a, summarize(a)), "B": (b, summarize(b))}
    figs = [
        cs.score_histogram(runs, metric="准确率", locale="zh_CN"),
        cs.score_box(runs, metric="准确率", locale="zh_CN"),
        cs.mean_ci_figure({n: s for n, (_, s) in runs.items()}, metric="准确率", locale="zh_CN"),
    ]
    for fig in figs:
        assert not _english(fig, {"A", "B"}), _texts(fig)
    assert figs[0].data[0].name == "A（20 次运行）"  # 20 runs of model A, said in Chinese
    assert cs.score_histogram(runs, metric="accuracy").data[0].name == "A (20 runs)"


def test_plotly_writes_dates_and_its_modebar_in_chinese():
    """plotly.js names the months on a time axis and its modebar tooltips itself: the config of a
    Chinese chart carries a locale of its own (CLDR's month and day names, Chinese date patterns)."""
    from board.charts._style import PLOTLY_DATE_FORMATS, PLOTLY_WORDS, plotly_config

    config = plotly_config("zh-CN", displaylogo=False)
    assert config["displaylogo"] is False and config["locale"] == "zh-CN"
    zh = config["locales"]["zh-CN"]
    formats = zh["format"]
    assert formats["shortMonths"] == [f"{m}月" for m in range(1, 13)]
    assert formats["months"][0] == "一月" and formats["months"][11] == "十二月"
    assert formats["days"][0] == "星期日" and formats["days"][1] == "星期一"  # plotly's week starts on Sunday
    assert formats["shortDays"][6] == "周六"
    # 2026-10-18 on a day axis: "10月18日", with "2026年" under the first tick; hover "2026年10月18日"
    assert formats["dayMonth"] == "%-m月%-d日" and formats["year"] == "%Y年"
    assert formats["dayMonthYear"] == "%Y年%-m月%-d日"
    assert set(formats) >= set(PLOTLY_DATE_FORMATS)
    assert set(zh["dictionary"]) == set(PLOTLY_WORDS)
    assert not {w for v in zh["dictionary"].values() for w in WORD.findall(v)} - {"PNG"}
    assert zh["dictionary"]["Download plot as a png"] == "下载图表（PNG）"


def test_plotly_stays_english_without_a_locale():
    from board.charts._style import plotly_config

    assert plotly_config("en", responsive=True) == {"responsive": True}
    assert plotly_config("fr") == {}  # a language the board does not offer: plotly's English, like the rest
