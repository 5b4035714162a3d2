"""AppTest of the Board: its numbers are evaluate()'s, the URL carries the state, snapshots compare."""

import pytest

from board import demo
from evalcore import ColumnMapping, ValueTable, validate
from evalcore.board import BoardConfig, evaluate


@pytest.fixture(scope="module")
def expected():
    preds = validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    return evaluate(preds, ValueTable.from_dict(demo.DEMO_VALUE_TABLE),
                    BoardConfig(thresholds={"old": 0.05, "new": 0.09}, scheme="cluster", n_resamples=1000))


def _metric(at, startswith):
    return next(m for m in at.metric if m.label.startswith(startswith))


def test_board_shows_evaluate_numbers_and_thresholds_from_the_url(app, expected):
    at = app(None, **{})
    at.query_params["t_old"] = "0.05"
    at.query_params["t_new"] = "0.09"
    at.run()
    assert not at.exception
    assert _metric(at, "EV new @ 0.09").value == f"{expected.models['new'].ev:+,.2f} EUR"
    assert _metric(at, "Uplift new − old").value == f"{expected.comparison.diff.estimate:+,.2f} EUR"
    capsule = " ".join(m.value for m in at.markdown)
    assert expected.action.clauses[0].text.replace("'", "&#x27;")[:50] in capsule


def test_snapshot_gives_this_week_vs_last_saved(app):
    at = app(None)
    at.button(key="board_save").click().run()
    assert not at.exception
    # a new threshold is a different board: its EV is compared with the saved one
    at.query_params["t_new"] = "0.2"
    at.session_state["committed_threshold_new"] = 0.2
    at.run()
    m = _metric(at, "EV new @ 0.2")
    from evalcore import price_curve, score_counts

    f = demo.demo_frame()
    curve = price_curve(score_counts(f.is_fraud.to_numpy(), f.score_new.to_numpy()), ValueTable.from_dict(demo.DEMO_VALUE_TABLE))
    assert m.delta == f"{curve.ev_at(0.2) - curve.ev_at(0.5):+,.2f} vs last saved"
