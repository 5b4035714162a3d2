"""AppTest of the board's "Record decision" (issue 16 item 5): the popover records the meeting's
decision with a snapshot, and the next board shows "Last decision: …" and what changed since."""

import html
import os
import re
from datetime import datetime, timezone

from board.services import demo
from board.store import Store
from board.words import fmt
from evalcore import ValueTable, price_curve, score_counts

_LINE = re.compile(r"<div class='eb-last-decision'[^>]*>(.*?)</div>")


def last_line(at) -> str | None:
    for h in at.html:
        m = _LINE.search(h.value)
        if m:
            return html.unescape(m.group(1))
    return None


def test_record_a_decision_and_the_next_board_shows_it(app):
    at = app(None)
    assert last_line(at) is None  # nothing decided yet
    at.radio(key="board_decision_kind").set_value("roll out").run()
    at.number_input(key="board_decision_t_new").set_value(0.5).run()
    at.text_area(key="board_decision_rationale").input("Clear win; watch small loans").run()
    at.text_input(key="board_decision_present").input("anna, ben ,").run()
    at.button(key="board_decision_record").click().run()
    assert not at.exception, [e.value for e in at.exception]

    s = Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])
    (d,) = s.list_decisions()
    assert (d.kind, d.model, d.threshold, d.present, d.decided_by) == ("roll out", "new", 0.5, ("anna", "ben"), "test-admin")
    assert d.table_version == "draft r1 (not approved)"
    snap = s.get_evaluation(d.evaluation_id)
    assert s.get_evaluation_html(d.evaluation_id) is not None  # the snapshot keeps its export
    assert [a.action for a in s.list_audit(limit=2)] == ["record_decision", "save_evaluation"]

    today = datetime.now(timezone.utc).date().isoformat()
    head = f"Last decision: ROLL OUT new at 0.5 on {today} by test-admin — Clear win; watch small loans"
    assert last_line(at).startswith(head)

    # the next board (a new tab, a different threshold): the line is there, with what changed since
    nxt = app(None)
    nxt.query_params["t_new"] = "0.2"
    nxt.session_state["committed_threshold_new"] = 0.2
    nxt.run()
    line = last_line(nxt)
    assert snap.result["verdict"]["word"] == "HOLD"  # the drifting demo week: the board still says HOLD, the gain moved
    f = demo.demo_frame()
    table = ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
    ev = {m: price_curve(score_counts(f.is_fraud.to_numpy(), f[f"score_{m}"].to_numpy()), table) for m in ("old", "new")}
    then = fmt.money(snap.result["comparison"]["diff_ev"], "EUR", signed=True)
    now = fmt.money(ev["new"].ev_at(0.2) - ev["old"].ev_at(snap.result["comparison"]["threshold_a"]), "EUR", signed=True)
    assert then != now
    assert line == f"{head}. Since then: the gain per decision moved from {then} to {now}."
    assert last_line(at) == f"{head}. Since then: the gain per decision is unchanged ({then})."


def test_record_needs_a_rationale_and_nothing_is_stored_without_one(app):
    at = app(None)
    at.button(key="board_decision_record").click().run()
    assert any("rationale must not be empty" in e.value for e in at.error)
    assert Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]).list_decisions() == []
    assert last_line(at) is None


def test_a_viewer_cannot_record_a_decision(app):
    at = app(None, user=("vera", "viewer"))
    assert not any(b.key == "board_decision_record" for b in at.button)


def test_present_mode_shows_the_last_decision_but_no_controls(app):
    at = app(None)
    at.radio(key="board_decision_kind").set_value("keep").run()
    at.text_area(key="board_decision_rationale").input("Not reliably better").run()
    at.button(key="board_decision_record").click().run()
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert last_line(at).startswith("Last decision: KEEP old at ")
    assert not any(b.key == "board_decision_record" for b in at.button)
