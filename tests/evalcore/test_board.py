"""evaluate(): the single orchestration; every DESIGN §4 key, numbers equal the direct calls."""

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from board.services import demo
from evalcore import ColumnMapping, InputError, ValueTable, compare_models, optimum_interval, validate
from evalcore.aggregate import evaluate_aggregate
from evalcore.board import BoardConfig, aggregate_for_board, evaluate


@pytest.fixture(scope="module")
def demo_preds():
    return validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING))


@pytest.fixture(scope="module")
def table():
    return ValueTable.from_dict(demo.DEMO_VALUE_TABLE)


@pytest.fixture(scope="module")
def result(demo_preds, table):
    return evaluate(demo_preds, table, BoardConfig(thresholds={"new": 0.09, "old": 0.05}, n_resamples=200, seed=3))


def _has(d, path):
    for part in path.split("."):
        assert isinstance(d, dict) and part in d, f"missing {path}"
        d = d[part]
    return d


def test_json_has_every_design_key(result):
    d = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    for key in [
        "n",
        "n_pos",
        "value_table.tp",
        "value_table.fp",
        "value_table.fn",
        "value_table.tn",
        "value_table.unit",
        "bootstrap.n_resamples",
        "bootstrap.method",
        "bootstrap.seed",
        "bootstrap.scheme",
        "comparison.a",
        "comparison.b",
        "comparison.diff_ev",
        "comparison.diff_ev_ci",
        "comparison.p_b_better",
        "drift.feature.light",
        "drift.feature.details",
        "drift.label.light",
        "drift.calibration.light",
        "action",
    ]:
        _has(d, key)
    for m in ("old", "new"):
        for key in [
            "at_threshold.threshold",
            "at_threshold.tp",
            "at_threshold.fp",
            "at_threshold.fn",
            "at_threshold.tn",
            "at_threshold.accuracy",
            "at_threshold.precision",
            "at_threshold.recall",
            "at_threshold.f1",
            "at_threshold.ev",
            "at_threshold.ev_ci",
            "auc",
            "auc_ci",
            "curve.t_opt",
            "curve.t_opt_interval",
            "curve.t_opt_ci",
            "curve.ev_opt",
            "curve.flatness",
            "curve.sharpness",
            "calibration.brier",
            "calibration.log_loss",
            "calibration.ece",
            "calibration.n_bins",
            "calibration.strategy",
            "calibration.bins",
            "segments.customer_type.new.n",
            "segments.customer_type.new.ev",
            "segments.customer_type.new.t_opt",
        ]:
            _has(d["models"][m], key)
        b = d["models"][m]["calibration"]["bins"][0]
        assert set(b) >= {"low", "high", "count", "mean_pred", "frac_pos"}
    assert len(d["models"]["new"]["at_threshold"]["ev_ci"]) == 2 and isinstance(d["action"], str) and d["action"]


def test_numbers_equal_the_direct_calls(result, demo_preds, table):
    y = demo_preds.y_true
    a, b = demo_preds.scores["old"], demo_preds.scores["new"]
    comp = compare_models(y, a, b, table, threshold_a=0.05, threshold_b=0.09, n_resamples=200, rng=3 + 99, names=("old", "new"))
    d = result.to_dict()
    assert d["comparison"]["diff_ev_ci"] == pytest.approx([comp.diff.low, comp.diff.high], rel=1e-12)
    assert d["models"]["new"]["at_threshold"]["ev_ci"] == pytest.approx([comp.ev_b.low, comp.ev_b.high], rel=1e-12)
    # the demo has more than MAX_EXACT_SCORES distinct scores, so the board bins them (stated in the JSON)
    assert len(np.unique(b)) > 20_000 and d["models"]["new"]["curve"]["bootstrap_resolution"] == 1e-4
    opt = optimum_interval(y, b, table, n_resamples=200, rng=3 + 17 * 1 + 1, resolution=1e-4)
    assert d["models"]["new"]["curve"]["t_opt_ci"] == pytest.approx([opt.t_opt.low, opt.t_opt.high], rel=1e-12)
    assert d["models"]["new"]["auc"] == pytest.approx(roc_auc_score(y, b), rel=1e-12)
    act = b >= 0.09
    ev = (
        18500 * np.sum(act & (y == 1))
        - 3200 * np.sum(act & (y == 0))
        - 22000 * np.sum(~act & (y == 1))
        + 120 * np.sum(~act & (y == 0))
    ) / len(y)
    assert d["models"]["new"]["at_threshold"]["ev"] == pytest.approx(ev, rel=1e-12)


def test_demo_drift_holds_the_action(result):
    # the demo's late drift lights red, so the capsule must say hold whatever the comparison says
    assert result.action.verdict == "hold"
    assert result.to_dict()["action"].startswith("Hold:")


def test_no_bootstrap_gives_null_intervals_not_zero(demo_preds, table):
    d = evaluate(demo_preds, table, BoardConfig(n_resamples=0)).to_dict()
    assert d["models"]["new"]["at_threshold"]["ev_ci"] == [None, None]
    assert "comparison" not in d


def test_cluster_scheme_needs_a_group_column(table):
    f = demo.demo_frame().head(2000)
    mapping = ColumnMapping.from_dict({**demo.DEMO_MAPPING, "group": None})
    with pytest.raises(InputError, match="group id"):
        evaluate(validate(f, mapping), table, BoardConfig(scheme="cluster", n_resamples=10))


def test_config_lists_every_problem():
    with pytest.raises(InputError) as err:
        BoardConfig(scheme="nope", method="x", level=2)
    assert "scheme" in str(err.value) and "method" in str(err.value) and "level" in str(err.value)


def test_evaluate_is_the_aggregate_path_with_progress_and_counts(demo_preds, table):
    """evaluate() is evaluate_aggregate() of the rows' aggregate; progress counts two steps
    per model plus the comparison; a counts cache is used as given."""
    f = demo.demo_frame().head(3000)
    preds = validate(f, ColumnMapping.from_dict(demo.DEMO_MAPPING))
    cfg = BoardConfig(n_resamples=20, seed=1)
    seen = []
    rows = evaluate(preds, table, cfg, progress=lambda done, total, what: seen.append((done, total)))
    agg = evaluate_aggregate(aggregate_for_board(preds, cfg), table, cfg)
    assert seen == [(i, 5) for i in range(1, 6)]
    assert json.dumps(rows.to_dict()) == json.dumps({k: v for k, v in agg.to_dict().items() if k != "aggregate"})
    cached = evaluate(preds, table, BoardConfig(n_resamples=0), counts={"new": rows.models["new"].counts})
    assert cached.models["new"].counts is rows.models["new"].counts
