"""AppTest: the Value tools page shows evalcore's AHP numbers, writes the amounts into the session's
value table, and shows the sensitivity verdict evalcore computes.

Expected numbers come from evalcore directly, on the demo generator's frame and the demo table
(not through the app's loader, cache or store).
"""

import pytest

from board.app import ui
from board.services import demo
from board.words import fmt
from evalcore import ValueTable
from evalcore.ahp import ahp_amounts, ahp_weights, pairwise_matrix
from evalcore.counts import score_counts
from evalcore.data import ColumnMapping, validate
from evalcore.sensitivity import value_sensitivity

PAGE = "views/value_tools.py"
ITEMS = ["TP", "FP", "FN", "TN"]
DEMO_TABLE = ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
# FN matters most, then TP, FP, TN; the FN/TN answer (1/2: TN "slightly more") contradicts the rest
CONTRADICTORY = {
    ("TP", "FP"): 2.0,
    ("TP", "FN"): 1 / 3,
    ("TP", "TN"): 7.0,
    ("FP", "FN"): 1 / 5,
    ("FP", "TN"): 5.0,
    ("FN", "TN"): 1 / 2,
}
# consistent: w ∝ (4, 1, 4, 1), so a_ij = w_i / w_j
CONSISTENT = {("TP", "FP"): 4.0, ("TP", "FN"): 1.0, ("TP", "TN"): 4.0, ("FP", "FN"): 1 / 4, ("FP", "TN"): 1.0, ("FN", "TN"): 4.0}


def _judge(at, judgements):
    for (a, b), v in judgements.items():
        at.select_slider(key=f"vt_tools_pair_{a}_{b}").set_value(v)
    next(b for b in at.button if b.label == "Compute weights").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def _metrics(at):
    return {m.label: m.value for m in at.get("metric")}


def _amounts(at):
    """The AHP amounts table as shown, indexed by outcome."""
    return at.container(key="vt_tools_amounts").dataframe[0].value.set_index("Outcome")


def _committed(at):
    return at.session_state[f"committed_table::{at.session_state['value_table_name']}"][0]


def test_equal_judgements_give_equal_weights_and_anchor_amounts(app):
    at = app(PAGE)
    assert at.title[0].value == "Value tools"
    # all pairs "equal": w = 1/4 each, λmax = 4, CI = CR = 0; anchored on FN = −22,000 once the user sets it
    assert _metrics(at) == {"Largest eigenvalue λmax": "4.00", "Consistency index": "0", "Consistency ratio CR": "0"}
    assert any("consistent enough" in s.value for s in at.success)
    at.number_input(key="vt_tools_anchor_amount").set_value(-22000.0)  # the money scale is the user's (issue 16 item 6)
    _judge(at, {})
    shown = _amounts(at)
    assert shown["Weight"].to_dict() == {"TP": "25.0%", "FP": "25.0%", "FN": "25.0%", "TN": "25.0%"}
    assert shown["Proposed amount"].to_dict() == {
        "TP": "+22,000 EUR",
        "FP": "-22,000 EUR",
        "FN": "-22,000 EUR",
        "TN": "+22,000 EUR",
    }
    assert shown["Current amount"].to_dict() == {"TP": "+18,500 EUR", "FP": "-3,200 EUR", "FN": "-22,000 EUR", "TN": "+120.0 EUR"}


def test_contradictory_judgements_are_flagged_with_evalcore_numbers(app):
    at = app(PAGE)
    _judge(at, CONTRADICTORY)
    r = ahp_weights(pairwise_matrix(CONTRADICTORY, ITEMS), items=ITEMS)
    assert r.cr > 0.1
    assert _metrics(at) == {
        "Largest eigenvalue λmax": fmt.number(r.lambda_max),
        "Consistency index": fmt.number(r.ci),
        "Consistency ratio CR": fmt.number(r.cr),
    }
    warning = next(w.value for w in at.warning if "inconsistent" in w.value)
    assert warning.startswith(f"CR {fmt.number(r.cr)} > 0.1: the judgements are inconsistent. Revisit FN vs TN first")
    assert _amounts(at)["Weight"].to_dict() == {k: fmt.share(w) for k, w in r.weight_of().items()}


def test_use_these_amounts_writes_the_session_table(app):
    at = app(PAGE)
    _judge(at, CONSISTENT)
    at.selectbox(key="vt_tools_anchor_item").set_value("TP")
    at.number_input(key="vt_tools_anchor_amount").set_value(20000.0)
    next(b for b in at.button if b.label == "Compute weights").click()
    at.run()
    r = ahp_weights(pairwise_matrix(CONSISTENT, ITEMS), items=ITEMS)
    expected = ahp_amounts(r, gains=["TP", "TN"], anchor=("TP", 20000.0))
    # by hand: w = (0.4, 0.1, 0.4, 0.1), scale 20000/0.4 = 50,000 → TP 20,000, FP −5,000, FN −20,000, TN 5,000
    assert expected == pytest.approx({"TP": 20000, "FP": -5000, "FN": -20000, "TN": 5000})
    at.button(key="vt_tools_use").click().run()
    assert not at.exception, [e.value for e in at.exception]
    t = _committed(at)
    assert (t.tp, t.fp, t.fn, t.tn) == pytest.approx((20000, -5000, -20000, 5000))
    assert t.unit == "EUR" and t.sources["fp"].startswith("AHP pairwise judgement (CR")
    assert any("now uses these amounts" in s.value for s in at.success)
    assert _amounts(at)["Current amount"]["FP"] == "-5,000 EUR"


def test_sensitivity_verdict_is_evalcore_s(app):
    at = app(PAGE)
    at.button(key="vt_tools_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    preds = validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    counts = {m: score_counts(preds.y_true, preds.scores[m], sample_weight=preds.sample_weight) for m in preds.scores}
    exp = value_sensitivity(counts, DEMO_TABLE, score_kinds=preds.score_kinds, deployed={m: 0.5 for m in counts}, rng=0)
    badge = at.container(key="vt_tools_badge")
    assert badge.markdown[0].value == (":green-badge[robust]" if exp.robust else ":red-badge[not robust]")
    assert badge.markdown[1].value == "\n".join(f"- {ui.md_text(r)}" for r in exp.reasons)  # shown as text
    assert len(at.get("plotly_chart")) == 1 + 2 * len(counts) + 1  # weights, two tornados per model, draws
    # a changed table makes the verdict stale until the check runs again
    at.number_input(key="vt_tools_anchor_amount").set_value(-22000.0)
    _judge(at, {})
    at.button(key="vt_tools_use").click().run()
    assert any("changed since the last check" in i.value for i in at.info)
    with pytest.raises(KeyError):
        at.container(key="vt_tools_badge")
