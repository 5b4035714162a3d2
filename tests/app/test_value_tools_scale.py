"""AppTest (issue 16 item 6): the Value tools' AHP part offers no amounts, and no "Use these
amounts", until the user sets the money scale; then the amounts are evalcore's."""

from __future__ import annotations

from board.words import fmt
from evalcore.ahp import ahp_amounts, ahp_weights, pairwise_matrix

PAGE = "views/value_tools.py"
ITEMS = ["TP", "FP", "FN", "TN"]
EQUAL = {(a, b): 1.0 for i, a in enumerate(ITEMS) for b in ITEMS[i + 1 :]}


def _compute(at):
    next(b for b in at.button if b.label == "Compute weights").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def _no_amounts_offered(at):
    shown = at.container(key="vt_tools_amounts").dataframe[0].value
    assert "Proposed amount" not in shown.columns
    assert not [b for b in at.button if b.key == "vt_tools_use"]
    assert any("set the money scale yourself" in i.value for i in at.info)


def test_no_amounts_until_a_money_scale_is_set(app):
    at = app(PAGE)
    assert at.number_input(key="vt_tools_anchor_amount").value is None  # no default scale
    assert at.number_input(key="vt_tools_scale").value is None
    _no_amounts_offered(at)
    assert at.container(key="vt_tools_amounts").dataframe[0].value["Weight"].tolist() == ["25.0%"] * 4  # weights only
    at.number_input(key="vt_tools_anchor_amount").set_value(0.0)  # 0 is "not set" too
    _compute(at)
    _no_amounts_offered(at)
    at.radio(key="vt_tools_mode").set_value("money per unit weight")
    at.number_input(key="vt_tools_scale").set_value(8000.0)
    _compute(at)
    r = ahp_weights(pairwise_matrix(EQUAL, ITEMS), items=ITEMS)
    expected = ahp_amounts(r, gains=["TP", "TN"], scale=8000.0)
    shown = at.container(key="vt_tools_amounts").dataframe[0].value.set_index("Outcome")
    assert shown["Proposed amount"].to_dict() == {c: fmt.money(expected[c], "EUR", signed=True) for c in ITEMS}
    assert [b for b in at.button if b.key == "vt_tools_use"]
