"""AppTest: value over time on the Board page (issue 19) — the sparkline module (EV per decision per
week for each model and the alert lines, the Drift page's numbers), its absence without a time
column, and the meta line of a dataset whose labels arrive late."""

from __future__ import annotations

import json
import math

import pytest

from board.services import demo
from board.store import Store
from evalcore.data import ColumnMapping, read_table, validate


def _store_dataset(data_dir, name, raw, mapping) -> int:
    preds = validate(read_table(raw, f"{name}.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=data_dir) as s:
        return s.save_dataset(
            name=name, filename=f"{name}.csv", raw=raw, mapping=mapping, report=preds.summary(), n_rows=preds.n_rows
        ).id


def _values(y):
    """A trace's y as floats (plotly may send numbers as a base64 typed array)."""
    if isinstance(y, dict) and "bdata" in y:
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=np.dtype(y["dtype"])).tolist()
    return list(y)


def _sparkline(at):
    return next((c for c in at.get("plotly_chart") if c.proto.id.endswith("board_vot_sparkline")), None)


@pytest.mark.slow
def test_board_sparkline_shows_weekly_value_per_model(app, tmp_path):
    at = app("views/board.py")  # Demo 2: a week of applications with a time column
    fig = _sparkline(at)
    assert fig is not None
    spec = json.loads(fig.proto.spec)
    names = [tr.get("name") for tr in spec["data"]]
    assert names == ["old", "new"]  # one line per model, no bands
    # the numbers are evalcore's weekly windows at the board's thresholds (as the Drift page's test)
    from board import services
    from evalcore.board import BoardConfig
    from evalcore.over_time import value_over_time

    rows = validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    with Store(data_dir=tmp_path / "data") as st:
        table, _ = services.load_value_table(st, services.DEFAULT_TABLE_NAME)
    cfg = BoardConfig(thresholds={m: 0.5 for m in rows.scores}, n_resamples=50, scheme="cluster")
    r = value_over_time(rows, table, cfg, window="week")
    for tr in spec["data"]:
        want = [w.ev[tr["name"]] for w in r.windows]
        got = _values(tr["y"])
        assert len(got) == len(want)
        assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(got, want))
    # readable at 80 px: a tick at each week's start, dated on one line, with room for the labels
    # (plotly's default minimum plot height, 64 px, left them 12 px: cut to their tops); no toolbar
    x = spec["layout"]["xaxis"]
    assert x["tickformat"] == "%b %-d" and [str(v)[:10] for v in x["tickvals"]] == [str(w.start)[:10] for w in r.windows]
    assert spec["layout"]["minreducedheight"] <= 40 and json.loads(fig.proto.config)["displayModeBar"] is False


@pytest.mark.slow
def test_the_sparkline_dates_its_weeks_in_chinese(app):
    at = app("views/board.py", locale="zh_CN")
    fig = _sparkline(at)
    assert json.loads(fig.proto.spec)["layout"]["xaxis"]["tickformat"] == "%-m月%-d日"  # 10月5日
    assert json.loads(fig.proto.config)["locale"] == "zh-CN"


@pytest.mark.slow
def test_no_sparkline_without_a_time_column_and_late_labels_on_the_meta_line(app, tmp_path):
    data = tmp_path / "data"
    app(None)  # the store and its demos
    frame = demo.demo_frame().drop(columns=["application_time"])
    mapping = {k: v for k, v in demo.DEMO_MAPPING.items() if k != "time"}
    ds = _store_dataset(data, "no time", frame.to_csv(index=False).encode(), mapping)
    at = app("views/board.py", dataset=ds)
    assert _sparkline(at) is None

    from tests.app.test_late_labels_app import _late_csv

    late = {
        "label": "defaulted",
        "scores": {"old": "score_old", "new": "score_new"},
        "time": "applied",
        "label_known": "matured",
    }
    ds = _store_dataset(data, "late", _late_csv(), late)
    at = app("views/board.py", dataset=ds)
    meta = " ".join(h.value for h in at.html)
    # 42 days × 60 rows, the last 10 days without labels (tests/app/test_late_labels_app.py)
    assert "labels complete until 2026-10-02; 600 recent rows estimated" in meta
    fig = _sparkline(at)
    assert fig is not None and "estimated (labels not arrived)" in fig.proto.spec


@pytest.mark.slow
def test_a_large_dataset_shows_only_what_the_drift_page_computed(app, monkeypatch):
    from board.app import over_time_view
    from board.app.lru import BoundedLRU

    monkeypatch.setattr(over_time_view, "SPARKLINE_ROWS", 1000)  # Demo 2's 50,000 rows count as large
    monkeypatch.setattr(over_time_view, "_DONE", BoundedLRU(8))  # nothing computed yet in this process
    at = app("views/board.py")
    assert _sparkline(at) is None
    assert any("is computed on the Drift page" in c.value for c in at.caption), [c.value for c in at.caption]
    at.switch_page("views/drift.py").run()  # weekly windows by default: the board's key
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("views/board.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _sparkline(at) is not None
