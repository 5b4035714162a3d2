"""Chinese data conventions on upload (issue 15 item 5): Chinese column names are guessed into their
roles, a two-valued label's positive class is the value naming the event, a time column may be a
year, a year-month or a date (stated as such, with drift windows of whole periods), and the guess
never fails validation for being a guess."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore import InputError, ValueTable
from evalcore.board import BoardConfig, evaluate
from evalcore.data import (
    NOTE_MESSAGES,
    ColumnMapping,
    default_positive,
    guess_mapping,
    label_values,
    read_table,
    validate,
)
from evalcore.drift import DriftConfig, windows

ISSUE_COLUMNS = ["是否违约", "现行模型分数", "候选模型分数", "收入区间", "申请时间"]


def _issue_frame(n=300, seed=0, time=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 90, n), unit="D")
    return pd.DataFrame(
        {
            "是否违约": np.where(y, "是", "否"),
            "现行模型分数": np.round(np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1), 4),
            "候选模型分数": np.round(np.clip(0.5 * y + rng.random(n) * 0.5, 0, 1), 4),
            "收入区间": rng.choice(["5千以下", "5千至1万", "1万以上"], n),
            "申请时间": days.strftime("%Y-%m-%d") if time is None else time(rng, n),
        }
    )


def _mapping(g: dict, **kw) -> ColumnMapping:
    return ColumnMapping(
        label=g["label"],
        scores={f"m{i}": c for i, c in enumerate(g["scores"])},
        segments=g["segments"],
        time=g["time"],
        group=g["group"],
        features=g["features"],
        weight=g["weight"],
        **kw,
    )


# --------------------------------------------------------------------------- the issue's file


def test_the_issues_gbk_file_is_mapped_with_no_manual_fix():
    frame = _issue_frame()
    raw = frame.to_csv(index=False).encode("gbk")
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")  # truly GBK, not UTF-8 that happens to decode
    read = read_table(raw, "申请.csv")
    assert list(read.columns) == ISSUE_COLUMNS
    g = guess_mapping(read)
    assert g["label"] == "是否违约"  # before: guessed as a segment, then rejected as label + segment
    assert g["scores"] == ["现行模型分数", "候选模型分数"]
    assert g["segments"] == ["收入区间"] and g["time"] == "申请时间"
    # the positive-class picker's default and the reader's rule agree: 是 (before: 否)
    assert default_positive(label_values(read, "是否违约")) == "是"
    pred = validate(read, _mapping(g))  # positive=None: the rule decides
    assert pred.positive_label == "是"
    assert pred.y_true.tolist() == (frame["是否违约"] == "是").astype(int).tolist()
    s = pred.summary()
    assert s["positive_rule"] == "family" and s["time_granularity"] == "day"
    note = s["notes"][0]
    assert note == {"code": "positive_family", "params": {"positive": "是", "negative": "否", "word": "是"}}
    text = NOTE_MESSAGES[note["code"]].format(**note["params"])
    assert text == "是 is the positive class (the event to act on): of the label values 是 and 否, it is the one that means yes."


def test_chinese_names_of_every_role():
    n = 40
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "申请编号": np.arange(n),
            "客户编号": [f"C{i % 7}" for i in range(n)],
            "是否新客": rng.choice(["是", "否"], n),  # a yes/no flag: the label only when nothing names the event
            "逾期标志": rng.choice(["逾期", "未逾期"], n),
            "评分": rng.random(n),
            "违约概率": rng.random(n),
            "月份": rng.choice([202401, 202402, 202403], n),
            "渠道": rng.choice([1, 2, 3], n),  # a coded channel: a segment, not a feature
            "地区": rng.choice(["华东", "华南"], n),
            "年收入": rng.normal(5e4, 1e4, n),
            "权重": rng.random(n) + 0.5,
        }
    )
    g = guess_mapping(frame)
    assert g == {
        "label": "逾期标志",
        "scores": ["评分", "违约概率"],
        "segments": ["是否新客", "渠道", "地区"],
        "time": "月份",
        "group": "客户编号",
        "features": ["年收入"],
        "weight": "权重",
    }
    pred = validate(frame, _mapping(g))
    assert pred.positive_label == "逾期" and pred.summary()["positive_rule"] == "event"
    assert pred.time_granularity == "month"


# --------------------------------------------------------------------------- the positive class


@pytest.mark.parametrize(
    "values, positive, rule",
    [
        (["否", "是"], "是", "family"),
        (["0", "1"], "1", "family"),
        (["False", "True"], "True", "family"),
        (["no", "YES"], "YES", "family"),
        (["正常", "违约"], "违约", "event"),
        (["未逾期", "已逾期"], "已逾期", "event"),
        (["不逾期", "逾期"], "逾期", "event"),
        (["非欺诈", "欺诈"], "欺诈", "event"),
        (["好", "坏"], "坏", "event"),
        (["好客户", "坏客户"], "坏客户", "event"),
        (["good", "Bad"], "Bad", "event"),
        (["nope", "Yes"], "Yes", "event"),
        # nothing names the event, or both do: the user picks
        (["ok", "fraud"], None, None),
        (["A", "B"], None, None),
        (["违约", "严重违约"], None, None),
        (["1", "2"], None, None),
        (["yes", "1"], None, None),
    ],
)
def test_the_positive_class_defaults_to_the_event(values, positive, rule):
    labels = [values[0], values[1], values[1], values[0], values[0]]
    frame = pd.DataFrame({"y": labels, "p": [0.1, 0.9, 0.8, 0.3, 0.2]})
    assert default_positive(label_values(frame, "y")) == positive
    m = ColumnMapping(label="y", scores={"A": "p"})
    if positive is None:
        with pytest.raises(InputError, match="which one is the positive class") as err:
            validate(frame, m)
        assert [p.code for p in err.value.problems] == ["positive_not_chosen"]
        # the user's pick is said as such
        pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, positive=values[1]))
        assert pred.summary()["notes"][0]["code"] == "positive_chosen"
        return
    pred = validate(frame, m)
    assert pred.positive_label == positive and pred.y_true.tolist() == [0, 1, 1, 0, 0]
    assert pred.summary()["positive_rule"] == rule
    # a user who picks the other value gets it, said as their choice
    other = values[0]
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, positive=other))
    assert pred.positive_label == other and pred.y_true.tolist() == [1, 0, 0, 1, 1]
    note = pred.summary()["notes"][0]
    assert note == {"code": "positive_chosen", "params": {"positive": other, "negative": positive}}


# --------------------------------------------------------------------------- time forms


def _time_frame(values) -> pd.DataFrame:
    n = len(values)
    return pd.DataFrame({"y": [i % 2 for i in range(n)], "p": np.linspace(0.1, 0.9, n), "t": values})


@pytest.mark.parametrize(
    "csv_values, dtype_kind, first, last, granularity",
    [
        (["2015", "2017", "2016"], "i", "2015", "2017", "year"),
        (["2015", "2015", "2015"], "i", "2015", "2015", "year"),  # one year is still a year
        (["2024-03", "2024-03", "2024-03"], "O", "2024-03", "2024-03", "month"),
        (["202401", "202312", "202402"], "i", "2023-12", "2024-02", "month"),
        (["2024-01", "2023-12", "2024-02"], "O", "2023-12", "2024-02", "month"),
        (["2024/1", "2024/12", "2024/2"], "O", "2024-01", "2024-12", "month"),
        (["2024年1月", "2024年3月", "2024年2月"], "O", "2024-01", "2024-03", "month"),
        (["20240105", "20240301", "20240229"], "i", "2024-01-05", "2024-03-01", "day"),
        (["2024-01-05", "2024-03-01", "2024-02-29"], "M", "2024-01-05", "2024-03-01", "day"),
        (["2024年1月5日", "2024年3月1日", "2024年2月29日"], "O", "2024-01-05", "2024-03-01", "day"),
        (
            ["2024-01-05 08:30", "2024-03-01 00:00", "2024-02-29 23:59"],
            "M",
            "2024-01-05 08:30:00",
            "2024-03-01 00:00:00",
            "timestamp",
        ),
    ],
)
def test_time_forms_read_from_a_file_and_stated(csv_values, dtype_kind, first, last, granularity):
    text = "y,p,t\n" + "".join(f"{i % 2},0.{i + 1},{v}\n" for i, v in enumerate(csv_values))
    frame = read_table(text.encode("gbk"), "t.csv")
    kind = frame["t"].dtype.kind if frame["t"].dtype.kind in "iM" else "O"
    assert kind == dtype_kind  # the three forms arrive as numbers, text or dates: each is read
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, time="t"))
    s = pred.summary()
    assert s["time_granularity"] == granularity == pred.time_granularity
    assert s["notes"][-1] == {"code": f"time_{granularity}", "params": {"column": "t", "first": first, "last": last}}
    NOTE_MESSAGES[s["notes"][-1]["code"]].format(**s["notes"][-1]["params"])  # every note has its sentence


@pytest.mark.parametrize(
    "values, fragment",
    [
        (["2024-13", "2024-01", "2024-02"], r"1 value\(s\) .*year-months \(yyyy-mm\).*'2024-13'"),
        (["2015", "2016", "sometime"], r"1 value\(s\) .*years \(yyyy\).*'sometime'"),
        ([2015, 202401, 202402], r"neither epoch seconds .* nor yyyymmdd dates, years \(yyyy\) or year-months"),
        ([202413, 202401, 202402], r"1 value\(s\) .*year-months \(yyyymm\)"),
        ([2024.01, 2024.02, 2024.03], r"neither epoch seconds"),
    ],
)
def test_other_time_forms_are_a_clear_problem(values, fragment):
    with pytest.raises(InputError, match=fragment) as err:
        validate(_time_frame(values), ColumnMapping(label="y", scores={"A": "p"}, time="t"))
    (problem,) = err.value.problems
    assert problem.code == "time_unparseable" and "a year (2015), a year-month (202401 or 2024-01)" in problem.fix


def test_years_and_months_get_drift_windows_of_whole_periods():
    # 2023-01 .. 2024-06, a row per month and 3 more in 2023-01: the reference is January 2023
    # (7 days read as one month), the current windows each one later month (DriftConfig's 7-day
    # window and 1-day step read as one month), oldest first
    months = [f"2023-{m:02d}" for m in range(1, 13)] + [f"2024-{m:02d}" for m in range(1, 7)]
    pred = validate(_time_frame(months + ["2023-01"] * 3), ColumnMapping(label="y", scores={"A": "p"}, time="t"))
    ws = windows(pred.time)
    assert [w.label for w in ws] == months
    assert [w.n for w in ws] == [4] + [1] * 17
    # a quarter of reference, two-month windows stepping by a month: whole months, never split
    ws = windows(pred.time, DriftConfig(reference_days=90, window_days=60, step_days=30))
    assert ws[0].label == "2023-01 – 2023-03" and ws[1].label == "2023-04 – 2023-05" and ws[-1].label == "2024-05 – 2024-06"
    assert len(ws) == 1 + 14  # current windows end in 2023-05 .. 2024-06
    years = validate(_time_frame([2015, 2016, 2017, 2018]), ColumnMapping(label="y", scores={"A": "p"}, time="t"))
    assert [w.label for w in windows(years.time)] == ["2015", "2016", "2017", "2018"]


def test_monthly_data_end_to_end_upload_to_the_boards_drift():
    # 12 months × 200 rows: the board's drift (aggregated per day, as every upload is) has the
    # reference month and 11 monthly windows, and the label light reads them
    rng = np.random.default_rng(3)
    n = 2400
    month = np.repeat(np.arange(12), n // 12)
    frame = pd.DataFrame(
        {
            "是否违约": np.where(rng.random(n) < 0.1 + 0.02 * month, "是", "否"),
            "模型分数": np.round(rng.random(n), 4),
            "年月": [f"2024-{m + 1:02d}" for m in month],
        }
    )
    raw = frame.to_csv(index=False).encode("gbk")
    read = read_table(raw, "monthly.csv")
    g = guess_mapping(read)
    assert (g["label"], g["scores"], g["time"]) == ("是否违约", ["模型分数"], "年月")
    pred = validate(read, _mapping(g))
    table = ValueTable(tp=100.0, fp=-10.0, fn=-100.0, tn=0.0)
    result = evaluate(pred, table, BoardConfig(n_resamples=20, seed=0))
    label = result.drift.report.label
    assert label.reference.label == "2024-01" and [w.label for w in label.windows] == [f"2024-{m:02d}" for m in range(2, 13)]
    assert [w.n for w in label.windows] == [200] * 11
    # the positive rate rises 2 points a month (10% -> 32%): the label light is red
    assert result.drift.lights["label"].color == "red"


# --------------------------------------------------------------------------- the guess never fails its own validation

# problems that would be the guess's fault: a role it named that the mapping cannot hold
GUESS_FAULTS = {"mapping_invalid", "missing_column", "column_in_two_roles", "score_kind_invalid", "too_many_scores"}
NAMES = [
    "是否违约", "是否新客", "逾期", "欺诈标签", "坏", "label", "is_fraud", "target",
    "现行模型分数", "候选模型评分", "违约概率", "score", "model_b",
    "申请时间", "日期", "月份", "年份", "date", "month",
    "客户编号", "用户ID", "customer_id", "编号",
    "渠道", "地区", "收入区间", "channel", "权重", "weight", "年收入", "age", "x",
]  # fmt: skip


LABEL_NAMES = NAMES[:7]
SCORE_NAMES = NAMES[7:12]
KINDS = {
    "yesno": st.sampled_from(["是", "否"]),
    "binary": st.sampled_from([0, 1]),
    "prob": st.floats(0, 1),
    "num": st.floats(-1e6, 1e6),
    "text": st.sampled_from(["a", "b", "c", "线上", ""]),
    "year": st.sampled_from([2015, 2016, 2017]),
    "ym": st.sampled_from(["2024-01", "2024-02", "2024-13"]),
    "date": st.sampled_from(["2024-01-05", "2024-02-30", "x"]),
    "nan": st.sampled_from([float("nan"), 1.0]),
}


@st.composite
def frames(draw):
    """Frames whose names invite a guess: usually a label-like and a score-like column first, then
    any names (repeats give duplicated headers) holding any kind of values."""
    n = draw(st.integers(1, 12))
    names = [draw(st.sampled_from(LABEL_NAMES)), draw(st.sampled_from(SCORE_NAMES))]
    names = names[: draw(st.sampled_from([0, 1, 2, 2, 2]))] + draw(st.lists(st.sampled_from(NAMES), max_size=6))
    kinds = [draw(st.sampled_from(["yesno", "binary", "text"])), draw(st.sampled_from(["prob", "num", "text"]))]
    data = {}
    for i, _ in enumerate(names):
        kind = kinds[i] if i < 2 and draw(st.integers(0, 3)) else draw(st.sampled_from(list(KINDS)))
        data[i] = draw(st.lists(KINDS[kind], min_size=n, max_size=n))
    frame = pd.DataFrame(data, index=range(n))
    frame.columns = names
    return frame


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_the_guess_never_fails_validation_for_being_a_guess(frame):
    g = guess_mapping(frame)
    if g["label"] is None or not g["scores"]:
        return  # nothing to validate: the user must choose the label or a score
    roles = [g["label"], *g["scores"], g["time"], g["group"], g["weight"]]
    roles = [c for c in roles if c is not None]
    assert len(roles) == len(set(roles)) and not set(roles) & set(g["segments"] + g["features"])
    assert set(roles) | set(g["segments"]) | set(g["features"]) <= set(map(str, frame.columns))
    try:
        validate(frame, _mapping(g))
    except InputError as err:
        faults = {p.code for p in err.problems} & GUESS_FAULTS
        assert not faults, [str(p) for p in err.problems]
