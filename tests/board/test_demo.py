"""The demo tells two stories (issue 14 item 9): the stable weeks (the board says roll out) and the
drifting last week (hold), both stored by ensure_demo, once, also into an install that has only
the single demo of earlier versions. Verdicts come from the real engine on the stored bytes."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from board import services
from board.services import demo
from board.store import Store
from evalcore import ColumnMapping, InputError, ValueTable, read_table, validate
from evalcore.board import BoardConfig

TABLE = ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
# what the app evaluates on first open: the deployed thresholds default to 0.5, 1000 replicates,
# seed 0, clustered by the mapped customer id (board.app.state.board_config)
APP_CONFIG = BoardConfig(n_resamples=1000, seed=0, scheme="cluster")


@pytest.fixture
def store(tmp_path):
    with Store(data_dir=tmp_path / "data") as s:
        yield s


def _demos(store) -> list:
    return [r for r in store.list_datasets() if r.uploader == "evalboard demo"]


def test_the_stable_weeks_say_roll_out(store):
    rec = services.ensure_demo(store)  # the default: the demo the app opens
    assert rec.name == demo.STABLE.name
    result = services.evaluate_stored(store, rec.id, TABLE, APP_CONFIG)
    d = result.comparison.diff
    assert (result.comparison.a, result.comparison.b) == ("old", "new")
    assert {m.threshold for m in result.models.values()} == {0.5}
    assert d.low > 0 and d.high > d.low  # the paired 95% CI of EV_new − EV_old lies above 0
    assert not any(light.color == "red" for light in result.drift.lights.values())
    assert result.action.verdict == "roll out"
    assert not result.small_evidence.approximate  # enough evidence: the intervals are not called approximate


def test_the_drifting_week_says_hold(store):
    rec = services.ensure_demo(store, "drifting")
    assert rec.name == demo.DRIFTING.name
    result = services.evaluate_stored(store, rec.id, TABLE, APP_CONFIG)
    assert result.comparison.diff.low > 0  # new wins on these rows too ...
    assert {f for f, light in result.drift.lights.items() if light.color == "red"} == {"feature", "label", "calibration"}
    assert result.action.verdict == "hold"  # ... but the data drifted: hold


def test_the_two_demos_are_the_same_models_with_and_without_the_drift():
    stable, drifting = demo.demo_frame(drift=False), demo.demo_frame(drift=True)
    assert list(stable.columns) == list(drifting.columns) and len(stable) == len(drifting)
    late = drifting.application_time >= demo.START + pd.Timedelta(days=demo.DRIFT_FROM_DAY)
    # the drifting week's devices look riskier in its last 7 days; the stable weeks' do not
    assert drifting.device_risk[late].mean() > drifting.device_risk[~late].mean() + 0.05
    late_s = stable.application_time >= demo.START + pd.Timedelta(days=demo.DRIFT_FROM_DAY)
    assert abs(stable.device_risk[late_s].mean() - stable.device_risk[~late_s].mean()) < 0.01


def test_demo_bytes_are_deterministic():
    make = demo.demo_csv_bytes.__wrapped__  # past the per-process cache: generated again
    for drift in (False, True):
        assert make(0, drift=drift) == make(0, drift=drift) == demo.demo_csv_bytes(0, drift=drift)
    assert make(0, drift=False) != make(0, drift=True)
    assert demo.demo_csv_bytes() == make(0, drift=True)  # the default is the drifting week, as before


def test_ensure_demo_is_idempotent_and_the_stable_weeks_open_first(store):
    first = {w: services.ensure_demo(store, w).id for w in ("stable", "drifting")}
    again = {w: services.ensure_demo(store, w).id for w in ("stable", "drifting")}
    assert first == again and first["stable"] != first["drifting"]
    demos = _demos(store)
    assert [r.name for r in demos] == [demo.STABLE.name, demo.DRIFTING.name]  # newest first: the sidebar opens the stable weeks
    assert len(store.list_value_table_versions(services.DEFAULT_TABLE_NAME)) == 1  # the demo table's draft, once
    for r, d in zip(demos, (demo.STABLE, demo.DRIFTING)):
        assert r.sha256 == hashlib.sha256(demo.demo_csv_bytes(drift=d.drift)).hexdigest()
        assert r.mapping == demo.DEMO_MAPPING
        preds = validate(read_table(store.load_bytes(r), r.filename), ColumnMapping.from_dict(r.mapping))
        assert preds.n_rows == r.n_rows == 50_000
    with pytest.raises(InputError, match="which must be one of \\['drifting', 'stable'\\]; got 'other'"):
        services.ensure_demo(store, "other")


def test_ensure_demo_upgrades_an_install_with_the_old_single_demo(store):
    # what ensure_demo stored before there were two demos: the drifting week under its old name
    raw = demo.demo_csv_bytes()
    preds = validate(read_table(raw, demo.DEMO_FILENAME), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    old = store.save_dataset(
        name=demo.OLD_DEMO_NAME,
        filename=demo.DEMO_FILENAME,
        raw=raw,
        mapping=demo.DEMO_MAPPING,
        report=preds.summary(),
        n_rows=preds.n_rows,
        uploader="evalboard demo",
    )
    stable = services.ensure_demo(store)
    assert services.ensure_demo(store, "drifting").id == old.id  # kept, not stored twice
    assert stable.id != old.id and stable.name == demo.STABLE.name
    assert [r.id for r in _demos(store)] == [stable.id, old.id]  # the added stable weeks are the newest
    assert services.ensure_demo(store).id == stable.id and len(_demos(store)) == 2
