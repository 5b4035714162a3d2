"""AppTest: the shadow anchor in the app (issue 19 item 3) — marking a dataset as the shadow set of a
value table on the Datasets page (refused for an analyst, audited for risk), the Drift page's gold
standard, factor and the rescaling statement, and the same statement on the board's meta line."""

from __future__ import annotations

import pytest

from board import services
from board.services import demo
from board.store import Store


def _shadow_dataset(data_dir) -> int:
    """Demo 2's own rows without their time column, stored as a dataset: with no time, the shadow
    set covers every window, and as the rows are the same the gold standard equals the row-weighted
    mean of the windows' EV (the pooled EV), so the factor is exactly 1."""
    frame = demo.demo_frame().drop(columns=["application_time"])
    raw = frame.to_csv(index=False).encode()
    mapping = {k: v for k, v in demo.DEMO_MAPPING.items() if k not in ("time",)}
    from evalcore.data import ColumnMapping, read_table, validate

    preds = validate(read_table(raw, "shadow.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=data_dir) as s:
        rec = s.save_dataset(
            name="2026-Q3 holdout",
            filename="shadow.csv",
            raw=raw,
            mapping=mapping,
            report=preds.summary(),
            n_rows=preds.n_rows,
            uploader="test",
        )
    return rec.id


@pytest.mark.slow
def test_mark_on_datasets_then_drift_and_board_state_the_rescaling(app, tmp_path):
    data = tmp_path / "data"
    at = app("views/datasets.py", user=("ana", "analyst"))
    shadow_id = _shadow_dataset(data)
    at = app("views/datasets.py", user=("ana", "analyst"), dataset=shadow_id)
    assert at.button(key="datasets_shadow_mark").disabled
    assert any("Only the model owner, risk or an admin" in c.value for c in at.caption)

    at = app("views/datasets.py", user=("rita", "risk"), dataset=shadow_id)
    at.text_input(key="datasets_shadow_name").set_value("2026-Q3")
    at.button(key="datasets_shadow_mark").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(s.value.startswith("Marked:") for s in at.success), [s.value for s in at.success]
    with Store(data_dir=data) as s:
        entry = s.list_audit(limit=1, action="mark_shadow")[0]
        assert entry.username == "rita" and entry.target == str(shadow_id)
        assert entry.detail["to"]["name"] == "2026-Q3" and entry.detail["to"]["review_days"] == 92
        assert entry.detail["to"]["table"] == services.DEFAULT_TABLE_NAME

    at = app("views/drift.py")  # Demo 2, priced with the default table: its shadow set is 2026-Q3
    assert not at.exception, [e.value for e in at.exception]
    md = [m.value for m in at.markdown]
    assert any("Shadow anchor" in m and "2026-Q3" in m for m in md), md
    assert any("gold standard" in m and "factor ×1.00 (" in m for m in md), [m for m in md if "gold" in m]
    at.toggle(key="drift_vot_shadow_apply").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    said = [i.value for i in at.info if i.value.startswith("old: scaled ×1.00 by the shadow set of 2026-Q3 (CI ")]
    assert said, [i.value for i in at.info]
    at.switch_page("views/board.py").run()
    assert not at.exception, [e.value for e in at.exception]
    meta = " ".join(h.value for h in at.html)
    assert "old: scaled ×1.00 by the shadow set of 2026-Q3 (CI " in meta, meta[:500]
    # a snapshot's stored HTML says it as well (it is what a later reader downloads)
    at.button(key="board_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with Store(data_dir=data) as s:
        snap = s.list_evaluations()[0]  # newest first
        html = s.get_evaluation_html(snap.id)
    assert "old: scaled ×1.00 by the shadow set of 2026-Q3 (CI " in html


@pytest.mark.slow
def test_a_shadow_set_older_than_its_review_period_is_flagged(app, tmp_path):
    import datetime

    from board.access import governance
    from board.access.auth import User

    data = tmp_path / "data"
    app(None)  # the store and its demos
    shadow_id = _shadow_dataset(data)
    with Store(data_dir=data) as s:  # drawn 100 days ago, reviewed every 92 days: 100 > 92
        drawn = datetime.date.today() - datetime.timedelta(days=100)
        governance.mark_shadow(
            s, User(username="rita", role="risk"), shadow_id, services.DEFAULT_TABLE_NAME, name="old set", marked_on=drawn
        )
    at = app("views/datasets.py", dataset=shadow_id)
    warn = [w.value for w in at.warning]
    assert any("“old set” is 100 days old, older than its review period of 92 days" in w for w in warn), warn
