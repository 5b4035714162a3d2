"""AppTest: labels that arrive late in the app (issue 19 item 2) — the Upload page's label-known
rule, stored with the dataset's mapping; the Drift page's value over time then draws the windows
without labels as estimated and says the quality check's verdict."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from board.store import Store
from evalcore.data import ColumnMapping, late_labels, read_table


def _late_csv(n_days=42, per_day=60, pending_days=10, seed=3) -> bytes:
    """Calibrated scores (y ~ Bernoulli(p)) over six weeks; the last ``pending_days`` days have no
    label yet (empty) and an empty 'matured' flag."""
    rng = np.random.default_rng(seed)
    day = np.repeat(pd.date_range("2026-09-01", periods=n_days, freq="D"), per_day)
    p = rng.beta(2, 5, day.size)
    y = (rng.random(day.size) < p).astype(int)
    late = day >= day.max() - pd.Timedelta(days=pending_days - 1)
    frame = pd.DataFrame(
        {
            "defaulted": np.where(late, "", y.astype(str)),
            "score_old": np.round(p, 4),
            "score_new": np.round(np.clip(p + rng.normal(0, 0.05, day.size), 0, 1), 4),
            "applied": day.strftime("%Y-%m-%d"),
            "matured": np.where(late, "", "yes"),
        }
    )
    return frame.to_csv(index=False).encode()


@pytest.mark.slow
def test_upload_with_a_maturity_column_then_drift_shows_estimated_windows(app):
    raw = _late_csv()
    at = app("views/upload.py")
    at.file_uploader(key="upload_file").set_value(("late.csv", raw, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox(key="upload_label").set_value("defaulted")
    at.selectbox(key="upload_time").set_value("applied")
    at.multiselect(key="upload_scores").set_value(["score_old", "score_new"]).run()
    # without a rule the 600 empty labels are problems, listed as today
    assert any("Validation failed" in e.value for e in at.error), [e.value for e in at.error]
    at.radio(key="upload_late").set_value("column").run()
    at.selectbox(key="upload_label_known").set_value("matured").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    # 42 days × 60 rows, the last 10 days pending: 1920 labelled, 600 pending, complete until 2026-10-02
    assert any(s.value.startswith("Valid: 1,920 rows") for s in at.success), [s.value for s in at.success]
    assert any("Labels complete until 2026-10-02; 600 recent rows have no label yet" in i.value for i in at.info), [
        i.value for i in at.info
    ]
    at.button(key="upload_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        rec = next(r for r in s.list_datasets() if r.filename == "late.csv")
        assert rec.mapping["label_known"] == "matured" and rec.n_rows == 1920
        assert rec.report["late_labels"]["pending_rows"] == 600
    # the same split as evalcore's (the CLI's) on the stored mapping
    ll = late_labels(read_table(raw, "late.csv"), ColumnMapping.from_dict(rec.mapping))
    assert ll.pending == 600 and ll.labelled.n_rows == 1920

    at.switch_page("views/drift.py").run()
    assert not at.exception, [e.value for e in at.exception]
    caps = [c.value for c in at.caption]
    assert any(c.startswith("labels complete until 2026-10-02; 600 recent rows estimated. Dashed windows") for c in caps), caps
    verdicts = [x.value for x in at.success] + [x.value for x in at.warning]
    assert any(v.startswith("Estimates checked") or v.startswith("Do not trust the estimated windows") for v in verdicts), (
        verdicts
    )
    fig = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("drift_vot_bands"))
    # the last 10 days fall in two weekly windows, drawn dashed and named so (one trace per model)
    assert fig.proto.spec.count("estimated (labels not arrived)") == 2 and '"dash":"dash"' in fig.proto.spec


@pytest.mark.slow
def test_upload_rule_needs_its_column_or_date(app):
    at = app("views/upload.py")
    at.file_uploader(key="upload_file").set_value(("late.csv", _late_csv(n_days=14, pending_days=3), "text/csv")).run()
    at.selectbox(key="upload_label").set_value("defaulted")
    at.selectbox(key="upload_time").set_value("applied")
    at.multiselect(key="upload_scores").set_value(["score_old", "score_new"]).run()
    at.radio(key="upload_late").set_value("date").run()
    assert any("Complete the label-known rule" in w.value for w in at.warning), [w.value for w in at.warning]
    import datetime

    # labels complete until 2026-09-12: rows of 13 and 14 September (3 × 60 … the last 3 days are empty;
    # day 12 is empty too, so its 60 empty labels are known rows without a label: listed as problems)
    at.date_input(key="upload_complete_until").set_value(datetime.date(2026, 9, 12)).run()
    errs = [e.value for e in at.error]
    assert any("1 problem found" in e for e in errs), errs
    at.date_input(key="upload_complete_until").set_value(datetime.date(2026, 9, 11)).run()
    assert not at.error, [e.value for e in at.error]
    assert any(s.value.startswith("Valid: 660 rows") for s in at.success), [s.value for s in at.success]
