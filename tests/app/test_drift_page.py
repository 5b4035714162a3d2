"""AppTest: the Drift page, its saved settings, and the red-light banner on other pages.

Expected lights are computed independently with ``evalcore.drift.drift_lights`` straight
from the demo generator's frame (not through the app's loader, cache or store).
"""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from board import services
from board.app import drift_view
from board.services import demo
from board.store import Store
from evalcore.data import ColumnMapping, read_table, validate
from evalcore.drift import DriftConfig, calibration_drift, drift_lights

BANNER_TEXT = "The headline numbers rest on an evaluation set that may no longer represent production."


@pytest.fixture(scope="module")
def demo_frame():
    return demo.demo_frame()


def _expected(frame, config=None):
    """Drift of the demo frame as evalcore computes it (features as in the demo mapping)."""
    feats = frame[demo.DEMO_MAPPING["features"]]
    return drift_lights(frame.is_fraud.to_numpy(), None, frame.application_time.to_numpy(), feats, config=config)


def _light(at, family):
    box = at.container(key=f"drift_light_{family}")
    return box.text[0].value, box.markdown[1].value  # (reason, badge)


def _banner(at):
    return [w.value for w in at.warning if BANNER_TEXT in w.value]


def _save_csv(data_dir, raw: bytes, mapping: dict, name: str) -> int:
    preds = validate(read_table(raw, f"{name}.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=data_dir) as s:
        return s.save_dataset(
            name=name, filename=f"{name}.csv", raw=raw, mapping=mapping, report=preds.summary(), n_rows=preds.n_rows
        ).id


def test_drift_page_shows_three_lights_with_evalcore_reasons(app, demo_frame):
    at = app("views/drift.py")
    exp = _expected(demo_frame)
    assert exp.lights["feature"].color == "red"
    reason, badge = _light(at, "feature")
    assert reason == exp.lights["feature"].reason
    assert badge.startswith(":red-badge[red")
    reason, badge = _light(at, "label")
    assert reason == exp.lights["label"].reason and badge.startswith(f":{drift_view.BADGE[exp.lights['label'].color][0]}")
    # calibration: one result per probability model; the light shows the worst (both red on the demo,
    # so the one whose latest O/E ratio to the reference is further from 1)
    t, y = demo_frame.application_time.to_numpy(), demo_frame.is_fraud.to_numpy()
    cal = {m: calibration_drift(y, demo_frame[c].to_numpy(), t) for m, c in demo.DEMO_MAPPING["scores"].items()}
    assert {c.color for c in cal.values()} == {"red"}
    worst = max(cal, key=lambda m: abs(np.log(cal[m].ratio[-1])))
    reason, badge = _light(at, "calibration")
    assert badge.startswith(":red-badge[red") and reason == f"{worst}: {cal[worst].reason}"
    assert at.selectbox(key="drift_feature").value == exp.feature.worst
    assert [t.label for t in at.tabs] == ["Features", "Label", "Calibration"]
    assert not at.error
    assert at.sidebar.selectbox(key="dataset").value == at.session_state["dataset"]  # ran through app.py
    assert len(_banner(at)) == 1  # the banner is on every page, this one included


def test_banner_links_the_drift_page_from_another_page(app):
    at = app("views/threshold_value.py")
    banner = _banner(at)
    assert len(banner) == 1 and "feature, label and calibration lights red" in banner[0]
    assert [link.proto.page for link in at.page_link] == ["drift"]  # the url_path of views/drift.py
    assert at.title[0].value == "Threshold–value curve"  # the page itself still renders below it


def test_ks_threshold_in_form_turns_feature_light_off_and_is_saved(app, demo_frame, tmp_path):
    at = app("views/drift.py")
    assert at.number_input(key="drift_ks").value == pytest.approx(0.15)
    at.number_input(key="drift_ks").set_value(0.5)
    at.button(key="drift_save").click().run()
    assert not at.exception
    exp = _expected(demo_frame, DriftConfig(ks_threshold=0.5))
    assert exp.lights["feature"].color != "red"  # independent check that 0.5 should switch it off
    assert _light(at, "feature")[0] == exp.lights["feature"].reason
    assert not _light(at, "feature")[1].startswith(":red")
    assert any("saved" in s.value for s in at.success)
    ds = at.session_state["dataset"]
    with Store(data_dir=tmp_path / "data") as s:
        saved = s.get_dataset_settings(ds, "drift")
    assert saved == DriftConfig(ks_threshold=0.5).to_dict()

    again = app("views/drift.py")  # a new session on the same data dir
    assert again.number_input(key="drift_ks").value == pytest.approx(0.5)
    assert _light(again, "feature")[0] == exp.lights["feature"].reason

    again.button(key="drift_reset").click().run()
    assert not again.exception
    assert again.number_input(key="drift_ks").value == pytest.approx(0.15)
    assert _light(again, "feature")[0] == _expected(demo_frame).lights["feature"].reason
    with Store(data_dir=tmp_path / "data") as s:
        assert s.get_dataset_settings(ds, "drift") == DriftConfig().to_dict()


def test_reference_start_and_window_settings_apply(app, demo_frame):
    at = app("views/drift.py")
    at.date_input(key="drift_ref_start").set_value(dt.date(2026, 10, 12))
    at.number_input(key="drift_window_days").set_value(3)
    at.button(key="drift_save").click().run()
    assert not at.exception
    exp = _expected(demo_frame, DriftConfig(reference_start="2026-10-12", window_days=3))
    assert _light(at, "feature")[0] == exp.lights["feature"].reason
    assert any("Reference 2026-10-12 – 2026-10-18" in c.value and "windows of 3 days" in c.value for c in at.caption)


def test_empty_feature_choice_is_refused(app):
    at = app("views/drift.py")
    at.multiselect(key="drift_features").set_value([])
    at.button(key="drift_save").click().run()
    assert any("at least one feature" in e.value for e in at.error)
    with Store() as s:  # EVALBOARD_DATA_DIR points at the fixture's store
        assert s.get_dataset_settings(at.session_state["dataset"], "drift") is None


def test_saved_features_missing_from_data_are_reported(app):
    at = app("views/drift.py")
    ds = at.session_state["dataset"]
    with Store() as s:
        s.save_dataset_settings(ds, "drift", DriftConfig(features=("amount", "gone")).to_dict())
    at.run()
    assert not at.exception
    assert any("problem" in e.value for e in at.error)
    assert "gone" in " ".join(at.dataframe[0].value["Problem"])
    assert at.multiselect(key="drift_features").value == ["amount"]  # seeded with what exists


def test_without_time_column_page_explains_and_no_banner(app, tmp_path):
    raw = b"label,score\n" + b"".join(f"{i % 2},{(i % 10) / 10 + 0.05:.2f}\n".encode() for i in range(40))
    ds = _save_csv(tmp_path / "data", raw, {"label": "label", "scores": {"A": "score"}}, "no-time")
    at = app("views/drift.py", dataset=ds)
    assert at.session_state["dataset"] == ds
    assert any("Drift needs a time column" in i.value and "Time column" in i.value for i in at.info)
    assert not _banner(at)
    with pytest.raises(KeyError):  # no lights drawn
        at.get_by_key("drift_light_feature")
    at.switch_page("views/threshold_value.py").run()
    assert not at.exception and not _banner(at)


def test_raw_scores_leave_calibration_grey_with_reason():
    rng = np.random.default_rng(1)
    n = 21 * 200
    t = pd.Timestamp("2026-10-05") + pd.to_timedelta(np.repeat(np.arange(21), 200), unit="D")
    frame = pd.DataFrame(
        {
            "t": t.strftime("%Y-%m-%d %H:%M"),
            "y": (rng.random(n) < 0.2).astype(int),
            "risk": np.round(rng.uniform(0, 100, n), 1),
            "x": rng.normal(size=n),
        }
    )
    raw = frame.to_csv(index=False).encode()
    preds = validate(
        read_table(raw, "raw.csv"),
        ColumnMapping.from_dict(
            {"label": "y", "scores": {"A": "risk"}, "score_kinds": {"A": "score"}, "time": "t", "features": ["x"]}
        ),
    )
    view = drift_view.compute(services.rows_aggregate(preds, DriftConfig()), DriftConfig())  # the page reads the aggregate
    cal = view.lights["calibration"]
    assert cal.color == "grey" and cal.reason.startswith("Needs probabilities: A give raw scores")
    assert view.calibration == {} and view.skipped_models == ("A",)
    exp = drift_lights(frame.y.to_numpy(), None, t, frame[["x"]])
    assert view.lights["feature"].reason == exp.lights["feature"].reason


def _sparse_view(x):
    t = pd.Timestamp("2026-10-05") + pd.to_timedelta(np.repeat(np.arange(14), 5), unit="D")
    n = t.size
    frame = pd.DataFrame({"t": t.strftime("%Y-%m-%d"), "y": np.arange(n) % 2, "p": np.full(n, 0.5), "x": x})
    preds = validate(
        read_table(frame.to_csv(index=False).encode(), "s.csv"),
        ColumnMapping.from_dict(
            {"label": "y", "scores": {"A": "p"}, "score_kinds": {"A": "probability"}, "time": "t", "features": ["x"]}
        ),
    )
    return drift_view.compute(services.rows_aggregate(preds, DriftConfig()), DriftConfig())  # the page reads the aggregate


def test_sparse_windows_say_too_few_rows_and_stay_grey():
    # only 35 rows a week: KS noise floor 1.36*sqrt(70/35^2) = 0.325 > 0.15. A KS below that floor
    # cannot be told from noise (grey, "too few rows"); a total shift (KS 1 far above the floor) is a
    # real drift however few the rows (issue 19 item 4): judged, yellow in its one window (red needs 3)
    rng = np.random.default_rng(0)
    view = _sparse_view(rng.normal(size=70))  # no shift
    fd = view.report.feature
    assert fd.statistic[0, -1] < fd.noise_floor[0, -1]
    assert view.lights["feature"].color == "grey" and "too few rows" in view.lights["feature"].reason
    assert not view.any_red
    notes = drift_view.too_few_notes(view)
    assert notes and notes[0].startswith("Feature drift: 1 feature × window cell had too few rows")
    shifted = _sparse_view(np.r_[np.zeros(35), np.ones(35)])
    assert shifted.report.feature.statistic[0, -1] == 1.0
    assert shifted.lights["feature"].color == "yellow" and not shifted.any_red


def test_heatmap_number_css_leaves_out_grey_numbers_first():
    """15 windows: every number needs 340 + 15 × 36 = 880 px of chart, the grey ones 340 + 15 × 70 = 1390 px."""
    from board.app.drift_view import heatmap_number_css

    css = heatmap_number_css(15)
    assert "@container (max-width:1390px){.st-key-drift_heatmap .textpoint{display:none}}" in css
    assert "@container (max-width:880px){.st-key-drift_heatmap .heatmap-label{display:none}}" in css
    assert ".st-key-drift_heatmap{container-type:inline-size}" in css
