"""The demo in Chinese (issue 15 item 7): Demo 1's rows with Chinese column and segment names, in
GBK, stored by ensure_demo next to Demo 1 and Demo 2 (whose bytes and numbers stay as they were),
bound to its own value table in 元, and evaluated by the real engine."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from board import services
from board.services import demo
from board.store import Store
from evalcore import ColumnMapping, ValueTable, guess_mapping, read_table, validate
from evalcore.board import BoardConfig

# a short bootstrap: the verdict and the amounts are what is checked here (test_demo.py runs the app's 1000)
CONFIG = BoardConfig(n_resamples=200, seed=0, scheme="cluster")


@pytest.fixture
def store(tmp_path):
    with Store(data_dir=tmp_path / "data") as s:
        yield s


def test_the_chinese_demo_is_demo_1_with_chinese_names():
    en, zh = demo.demo_frame(drift=False), demo.demo_frame_zh()
    assert list(zh.columns) == [demo.ZH_COLUMNS[c] for c in en.columns]
    # the same rows and scores: the Chinese names change no number
    assert np.array_equal(zh["现行模型"], en["score_old"]) and np.array_equal(zh["候选模型"], en["score_new"])
    assert (zh["是否欺诈"] == "是").to_numpy().sum() == int(en["is_fraud"].sum())
    assert set(zh["渠道"]) == {"线上", "线下", "代理"} and set(zh["客户类型"]) == {"新客户", "老客户"}
    # the file is GBK, as Chinese lenders' files arrive, and reads back to the same table
    raw = demo.demo_zh_csv_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    frame = read_table(raw, demo.CHINESE.filename)
    assert list(frame.columns) == list(zh.columns) and len(frame) == len(zh) == 50_000
    assert demo.demo_zh_csv_bytes.__wrapped__(0) == raw  # seeded: the same bytes again


def test_the_guess_maps_the_chinese_demo_as_its_mapping_does():
    frame = read_table(demo.demo_zh_csv_bytes(), demo.CHINESE.filename)
    g = guess_mapping(frame)
    m = demo.ZH_MAPPING
    assert g["label"] == m["label"] and g["scores"] == list(m["scores"].values())
    assert g["time"] == m["time"] and g["group"] == m["group"]
    assert set(m["segments"]) <= set(g["segments"])  # 地区 is guessed a segment too (a text column of 4 values)
    pred = validate(frame, ColumnMapping(label=g["label"], scores=dict(zip("AB", g["scores"])), time=g["time"]))
    assert pred.positive_label == "是" and pred.summary()["positive_rule"] == "family"


def test_ensure_demo_stores_it_once_bound_to_its_table_in_yuan(store):
    stable = services.ensure_demo(store)
    assert stable.name == demo.STABLE.name  # the app still opens Demo 1
    zh = [r for r in store.list_datasets() if r.uploader == demo.ZH_UPLOADER]
    assert [r.name for r in zh] == [demo.CHINESE.name]
    rec = zh[0]
    assert rec.sha256 == hashlib.sha256(demo.demo_zh_csv_bytes()).hexdigest() and rec.mapping == demo.ZH_MAPPING
    assert services.evaluation.bound_table_name(store, rec.id) == "贷款反欺诈"
    assert services.evaluation.bound_table_name(store, stable.id) == services.DEFAULT_TABLE_NAME  # Demo 1 as before
    amounts = store.get_value_table_draft("贷款反欺诈").amounts
    assert amounts["unit"] == "元"
    # Demo 1's amounts at 7 yuan per euro: 18,500 × 7 = 129,500; −3,200 × 7 = −22,400; −22,000 × 7 = −154,000; 120 × 7 = 840
    assert (amounts["tp"], amounts["fp"], amounts["fn"], amounts["tn"]) == (129_500, -22_400, -154_000, 840)
    again = services.ensure_demo(store)
    assert again.id == stable.id and demo.ensure_chinese(store).id == rec.id
    assert len([r for r in store.list_datasets() if r.uploader == demo.ZH_UPLOADER]) == 1
    assert len(store.list_value_table_versions("贷款反欺诈")) == 1
    # an upload with another label is not priced in 元 by default just because the demo is bound to it
    assert services.evaluation.default_binding(store, label="is_fraud") == services.DEFAULT_TABLE_NAME
    assert services.evaluation.default_binding(store, label="是否欺诈") == "贷款反欺诈"


@pytest.mark.slow
def test_the_chinese_demo_evaluates_as_demo_1_in_yuan(store):
    zh = demo.ensure_chinese(store)
    stable = services.ensure_demo(store)
    table_zh = ValueTable.from_dict(store.get_value_table_draft("贷款反欺诈").amounts)
    result = services.evaluate_stored(store, zh.id, table_zh, CONFIG)
    en = services.evaluate_stored(store, stable.id, ValueTable.from_dict(demo.DEMO_VALUE_TABLE), CONFIG)
    assert (result.comparison.a, result.comparison.b) == ("现行模型", "候选模型")
    # EV is linear in the value table (SPEC §3.2): every amount × 7, so EV × 7 on the same rows
    for zh_name, en_name in (("现行模型", "old"), ("候选模型", "new")):
        assert result.models[zh_name].ev == pytest.approx(7 * en.models[en_name].ev, rel=1e-12)
    assert result.action.verdict == en.action.verdict == "roll out"
    segs = result.models["候选模型"].segments
    assert set(segs["渠道"].levels) == {"线上", "线下", "代理"}
    assert not any(light.color == "red" for light in result.drift.lights.values())
