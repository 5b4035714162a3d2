"""AppTest: a dataset registered by path (Parquet → DuckDB aggregate, only the aggregate stored).

The registration form (good path, every problem listed, paths outside the roots refused) and
every page opened on the aggregate. Expected numbers come from the same rows through evalcore's
row path or scikit-learn: the demo has fewer than 20 000 distinct scores, so the aggregate is
exact and EV, t_opt and the calibration sums must match.
"""

import os

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss

from board.engines import lake
from board.services import datasets, demo
from board.words import fmt
from evalcore import ValueTable, price_curve, score_counts
from tests._board import tile

N = 3000
NAMES = {"score_old": "old", "score_new": "new"}


@pytest.fixture
def lake_app(app, tmp_path, monkeypatch):
    """The app with the demo rows (n=3000) as Parquet under the default root <data dir>/lake."""
    monkeypatch.delenv(lake.ROOTS_ENV, raising=False)
    root = tmp_path / "data" / "lake"
    root.mkdir(parents=True)
    frame = demo.demo_frame(n=N)
    frame.to_parquet(root / "demo.parquet")
    return app, root, frame


def _register(root, path="demo.parquet", **extra):
    """Register directly (the form has its own tests), as the admin of the app fixture."""
    from board.access import auth
    from board.store import Store
    from tests.app.conftest import ADMIN

    m = demo.DEMO_MAPPING
    query = {
        "label": m["label"],
        "scores": {"old": "score_old", "new": "score_new"},
        "score_kinds": m["score_kinds"],
        "positive": "1",
        "segments": list(m["segments"]),
        "group": m["group"],
        "weight": None,
        "time": m["time"],
        "features": list(m["features"]),
        **extra,
    }
    with Store(data_dir=root.parent) as s:
        rec = datasets.register(
            s, auth.User(username=ADMIN, role="admin"), name="Lake demo", path=path, query=query, roots=[root]
        )
    return rec


def _curve(frame, model, table=None):
    t = table or ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
    return price_curve(score_counts(frame.is_fraud.to_numpy(), frame[f"score_{model}"].to_numpy()), t)


def _eur(x):
    return fmt.money(x, "EUR", signed=True)


def _tile_eur(x, *, signed=False):
    """A tile's money: compact, signed only for a gain."""
    return fmt.money(x, "EUR", signed=signed, compact=True)


def _metric(at, label):
    """A board tile's value (tests/_board.py)."""
    return tile(at, label)[0]


def _page_metric(at, startswith):
    """The value of a page's st.metric whose label starts with ``startswith`` (the evidence pages)."""
    return next(m for m in at.metric if m.label.startswith(startswith)).value


def _infos(at):
    return [i.value for i in at.info]


# --------------------------------------------------------------------------- the registration form


def _open_form(make):
    at = make("views/upload.py")
    at.segmented_control(key="upload_mode").set_value("path").run()
    assert not at.exception
    return at


def test_register_a_path_stores_the_aggregate_and_selects_it(lake_app):
    make, root, frame = lake_app
    at = _open_form(make)
    assert any(str(root) in m.value and "Allowed roots" in m.value for m in at.markdown)
    at.text_input(key="register_path").set_value("demo.parquet").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.multiselect(key="register_scores").value == ["score_old", "score_new"]
    at.text_input(key="register_name_0").set_value("old")
    at.text_input(key="register_name_1").set_value("new")
    at.text_input(key="register_dsname").set_value("November lake").run()
    at.button(key="register_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("aggregate of 3,000 rows from" in s.value for s in at.success)
    from board.store import Store

    with Store(data_dir=root.parent) as s:
        rec = s.get_dataset(at.session_state["dataset"])
        assert (rec.kind, rec.name, rec.n_rows, rec.source_path) == ("aggregate", "November lake", N, str(root / "demo.parquet"))
        assert rec.mapping["scores"] == {"old": "score_old", "new": "score_new"}
        from board.store.aggregate_io import from_bytes

        stored = from_bytes(s.load_bytes(rec))  # the stored file is the aggregate, not a copy of the rows
        assert stored.totals()[2] == N and stored.models == ["old", "new"]
        audit = [e for e in s.list_audit() if e.action == "register_dataset"]
        assert len(audit) == 1 and audit[0].detail["dataset_id"] == rec.id and audit[0].detail["path"] == rec.source_path
    at.switch_page("views/board.py").run()  # the new dataset is the sidebar's: the board prices its aggregate
    assert not at.exception
    assert _metric(at, "new at 0.5: value per decision") == _tile_eur(_curve(frame, "new").ev_at(0.5))


def test_bad_path_lists_every_problem_and_saves_nothing(lake_app, tmp_path):
    make, root, frame = lake_app
    (root / "mixed").mkdir()
    (root / "mixed" / "notes.csv").write_text("a,b\n1,2\n")
    outside = tmp_path / "outside.parquet"
    frame.head(10).to_parquet(outside)
    os.symlink(outside, root / "mixed" / "link.parquet")  # a link out of the root
    at = _open_form(make)
    at.text_input(key="register_path").set_value("mixed/*").run()
    assert not at.exception
    assert any("2 problems found" in e.value for e in at.error), [e.value for e in at.error]
    problems = " ".join(at.dataframe[0].value["Problem"])
    assert "links to outside the allowed roots" in problems and "not Parquet" in problems
    assert at.text_input(key="register_path").value == "mixed/*"  # the form keeps what was typed


def test_data_problems_are_all_listed_and_nothing_is_saved(lake_app):
    make, root, frame = lake_app
    bad = frame.copy()
    bad.loc[:4, "is_fraud"] = None  # 5 missing labels
    bad.loc[10:12, "score_new"] = np.nan  # 3 missing scores
    bad.to_parquet(root / "bad.parquet")
    at = _open_form(make)
    at.text_input(key="register_path").set_value("bad.parquet").run()
    at.multiselect(key="register_scores").set_value(["score_old", "score_new"]).run()
    at.button(key="register_save").click().run()
    assert not at.exception
    assert any("Nothing was saved: 2 problems found" in e.value for e in at.error), [e.value for e in at.error]
    problems = " ".join(at.dataframe[-1].value["Problem"])
    assert "5 missing values" in problems and "3 missing or non-finite" in problems
    from board.store import Store

    with Store(data_dir=root.parent) as s:
        assert [r.kind for r in s.list_datasets()] == ["upload"] * 3  # only the demo uploads (Demo 1, Demo 2, 演示 3)
    assert at.text_input(key="register_path").value == "bad.parquet"


@pytest.mark.parametrize("path", ["../outside.parquet", "/etc", "/etc/*.conf"])
def test_paths_outside_the_roots_are_refused(lake_app, tmp_path, path):
    make, root, frame = lake_app
    frame.head(10).to_parquet(tmp_path / "data" / "outside.parquet")
    at = _open_form(make)
    at.text_input(key="register_path").set_value(path).run()
    assert not at.exception
    assert any("The path cannot be used: 1 problem" in e.value for e in at.error)
    assert "outside the allowed roots" in at.dataframe[0].value["Problem"][0]
    assert not [b for b in at.button if b.key == "register_save"]  # no mapping, no save button


# --------------------------------------------------------------------------- every page on the aggregate


@pytest.fixture
def on_aggregate(lake_app):
    make, root, frame = lake_app
    rec = _register(root)

    def open_page(page, **state):
        return make(page, dataset=rec.id, **state)

    return open_page, rec, frame, root


def test_board_equals_the_row_path(on_aggregate):
    open_page, rec, frame, _ = on_aggregate
    at = open_page("views/board.py")
    for m in ("old", "new"):
        assert _metric(at, f"{m} at 0.5: value per decision") == _tile_eur(_curve(frame, m).ev_at(0.5))
    assert _metric(at, "new vs old: gain per decision") == _tile_eur(
        signed=True, x=_curve(frame, "new").ev_at(0.5) - _curve(frame, "old").ev_at(0.5)
    )
    assert any("aggregate of 3,000 rows from" in m.value for m in at.html)  # the board's meta line
    assert not at.warning or all("source was not read again" not in w.value for w in at.warning)
    assert [b.label for b in at.get("download_button")][:1] == ["HTML"]  # the export is offered as for rows


def test_board_at_other_thresholds_reaggregates_from_the_path(on_aggregate):
    open_page, rec, frame, root = on_aggregate
    at = open_page("views/board.py", committed_threshold_new=0.3)
    assert not [w for w in at.warning if "source was not read again" in w.value]
    assert _metric(at, "new at 0.3: value per decision") == _tile_eur(_curve(frame, "new").ev_at(0.3))
    uplift = _curve(frame, "new").ev_at(0.3) - _curve(frame, "old").ev_at(0.5)
    assert _metric(at, "new vs old: gain per decision") == _tile_eur(
        signed=True, x=uplift
    )  # the paired table was cut again at 0.3
    (root / "demo.parquet").unlink()  # the path is gone: say so, show the point numbers
    at = open_page("views/board.py", committed_threshold_new=0.2)
    assert any("source was not read again" in w.value for w in at.warning)
    assert _metric(at, "new at 0.2: value per decision") == _tile_eur(_curve(frame, "new").ev_at(0.2))


def test_changed_files_are_not_mixed_with_the_stored_counts(on_aggregate):
    """New rows under the registered path: a re-cut at other thresholds would count rows the
    stored cells never saw, so the board says the files changed and keeps the stored numbers."""
    open_page, rec, frame, root = on_aggregate
    more = pd.concat([frame, frame.head(100)], ignore_index=True)
    more.to_parquet(root / "demo.parquet")  # rewritten with 100 more rows
    at = open_page("views/board.py", committed_threshold_new=0.3)
    warning = next(w.value for w in at.warning if "source was not read again" in w.value)
    assert "changed since it was registered (0 added, 0 removed, 1 modified)" in warning
    assert _metric(at, "new at 0.3: value per decision") == _tile_eur(
        _curve(frame, "new").ev_at(0.3)
    )  # the stored rows, not the new ones


def test_threshold_page_curves_from_counts(on_aggregate):
    open_page, rec, frame, _ = on_aggregate
    at = open_page("views/threshold_value.py")
    assert _page_metric(at, "new: EV") == _eur(_curve(frame, "new").ev_at(0.5))
    table = at.dataframe[0].value.set_index("Measure")
    assert table.loc["Best threshold", "new"] == fmt.score(_curve(frame, "new").t_opt)
    at.slider(key="threshold_new").set_value(0.1).run()
    assert not at.exception
    assert _page_metric(at, "new: EV") == _eur(_curve(frame, "new").ev_at(0.1))
    assert any("From the stored aggregate" in c.value for c in at.caption)


def test_uncertainty_page(on_aggregate):
    open_page, rec, frame, _ = on_aggregate
    at = open_page("views/uncertainty.py")
    assert _page_metric(at, "EV of new at deployed") == _eur(_curve(frame, "new").ev_at(0.5))
    shown = next(c.value for c in at.caption if c.value.startswith("95% interval of the difference: "))
    lo, hi = shown.removeprefix("95% interval of the difference: ").strip("[]").split(", ")
    diff = _curve(frame, "new").ev_at(0.5) - _curve(frame, "old").ev_at(0.5)

    def number(text):  # "+12.34 EUR" → 12.34
        assert text.endswith(" EUR"), text
        return float(text.removesuffix(" EUR").replace(",", ""))

    assert number(lo) <= diff <= number(hi)


def test_calibration_page(on_aggregate):
    open_page, rec, frame, _ = on_aggregate
    at = open_page("views/calibration.py")
    brier = brier_score_loss(frame.is_fraud, frame.score_old)
    assert _page_metric(at, "Brier") == fmt.number(brier, 4)
    # exact unweighted cells: the interval is the cell bootstrap's (seed 0, 200 resamples), not —
    from evalcore.aggregate import aggregate_predictions, calibration_intervals_of
    from evalcore.data import ColumnMapping, validate

    cells = aggregate_predictions(validate(frame, ColumnMapping.from_dict(demo.DEMO_MAPPING)), resolution=None)
    ci, why = calibration_intervals_of(cells.part("old"), resolution=None, weighted=False, n_resamples=200, rng=0)
    card = next(m for m in at.metric if m.label == "Brier")
    assert why == "" and card.delta == f"95% CI {fmt.number(ci['brier'][0], 4)} – {fmt.number(ci['brier'][1], 4)}"
    assert ci["brier"][0] < brier < ci["brier"][1]
    assert any("Cross-fitted recalibration needs rows" in i for i in _infos(at))
    seg = at.dataframe[0].value  # per segment level from the cells
    assert int(seg["Rows"].sum()) == N


def test_drift_page(on_aggregate):
    open_page, rec, frame, _ = on_aggregate
    at = open_page("views/drift.py")
    assert not at.error, [e.value for e in at.error]
    # the lights of the rows: 3000 rows, so the aggregate kept per-value counts and KS is exact
    from evalcore.board import board_drift
    from evalcore.data import ColumnMapping, validate

    rows = board_drift(validate(frame, ColumnMapping.from_dict(demo.DEMO_MAPPING)))
    table = at.dataframe[0].value
    assert list(table["Reason"]) == list(rows.report.feature.reasons)
    # the distribution drill-down works from the per-day counts: no rows needed
    assert at.selectbox(key="drift_feature").value == rows.report.feature.worst
    assert not any("needs rows" in i for i in _infos(at))


@pytest.mark.parametrize("page", ["views/stability.py", "views/data_conditions.py"])
def test_pages_that_retrain_say_they_need_rows(on_aggregate, page):
    open_page, rec, frame, _ = on_aggregate
    at = open_page(page)
    assert any("needs rows" in i and "Lake demo" in i for i in _infos(at))


def test_value_tools_sensitivity_on_the_aggregate(on_aggregate):
    from evalcore.sensitivity import value_sensitivity

    open_page, rec, frame, _ = on_aggregate
    at = open_page("views/value_tools.py")
    at.button(key="vt_tools_run").click().run()
    assert not at.exception
    counts = {m: score_counts(frame.is_fraud.to_numpy(), frame[f"score_{m}"].to_numpy()) for m in ("old", "new")}
    sens = value_sensitivity(
        counts,
        ValueTable.from_dict(demo.DEMO_VALUE_TABLE),
        score_kinds=demo.DEMO_MAPPING["score_kinds"],
        deployed={"old": 0.5, "new": 0.5},
        perturbation=0.30,
        n_random=200,
        rng=0,
    )
    badge = at.get("markdown")
    assert any(("robust]" in b.value) and (("not robust" in b.value) == (not sens.robust)) for b in badge)


def test_datasets_page_shows_the_kind(on_aggregate):
    open_page, rec, frame, root = on_aggregate
    at = open_page("views/datasets.py")
    kinds = list(at.dataframe[0].value["kind"])
    assert f"aggregate of 3,000 rows from {root / 'demo.parquet'}" in kinds


def test_evaluate_stored_serves_the_impact_report_on_an_aggregate(on_aggregate):
    """services.evaluate_stored (what the impact report's re-evaluation needs, see the report) gives the
    row path's EV for an aggregate, re-cutting the paired table when the stored thresholds differ."""
    from board import services
    from board.store import Store
    from evalcore.board import BoardConfig

    open_page, rec, frame, root = on_aggregate
    table = ValueTable.from_dict({**demo.DEMO_VALUE_TABLE, "fn": -60000.0})
    with Store(data_dir=root.parent) as s:
        res = services.evaluate_stored(
            s, rec.id, table, BoardConfig(thresholds={"old": 0.5, "new": 0.25}, n_resamples=50, scheme="cluster")
        )
    assert res.models["new"].ev == pytest.approx(_curve(frame, "new", table).ev_at(0.25), abs=1e-9)
    assert res.models["old"].ev == pytest.approx(_curve(frame, "old", table).ev_at(0.5), abs=1e-9)
    assert res.comparison is not None and res.comparison.diff.estimate == pytest.approx(
        _curve(frame, "new", table).ev_at(0.25) - _curve(frame, "old", table).ev_at(0.5), abs=1e-9
    )
