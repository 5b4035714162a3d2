"""AppTest of the Board: its numbers are evaluate()'s, the URL carries the state, snapshots compare."""

import html

import pytest

from board.app.text import md_text
from board.services import demo
from board.words import fmt
from evalcore import ColumnMapping, ValueTable, validate
from evalcore.board import BoardConfig, evaluate
from tests._board import tile, tiles


@pytest.fixture(scope="module")
def expected():
    preds = validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    return evaluate(
        preds,
        ValueTable.from_dict(demo.DEMO_VALUE_TABLE),
        BoardConfig(thresholds={"old": 0.05, "new": 0.09}, scheme="cluster", n_resamples=1000),
    )


def test_board_shows_evaluate_numbers_and_thresholds_from_the_url(app, expected):
    at = app(None, **{})
    at.query_params["t_old"] = "0.05"
    at.query_params["t_new"] = "0.09"
    at.run()
    assert not at.exception
    assert tile(at, "new at 0.09: value per decision")[0] == fmt.money(expected.models["new"].ev, "EUR", compact=True)
    value, notes = tile(at, "new vs old: gain per decision")
    assert value == fmt.money(expected.comparison.diff.estimate, "EUR", signed=True, compact=True)
    statistics = " ".join(m.value for m in at.markdown)  # the rules' sentences, behind "Statistics behind the verdict"
    assert md_text(expected.action.clauses[0].text)[:50] in statistics


def test_snapshot_gives_this_week_vs_last_saved(app):
    at = app(None)
    at.button(key="board_save").click().run()
    assert not at.exception
    # a new threshold is a different board: its EV is compared with the saved one
    at.query_params["t_new"] = "0.2"
    at.session_state["committed_threshold_new"] = 0.2
    at.run()
    _, notes = tile(at, "new at 0.2: value per decision")
    from evalcore import price_curve, score_counts

    f = demo.demo_frame()
    curve = price_curve(score_counts(f.is_fraud.to_numpy(), f.score_new.to_numpy()), ValueTable.from_dict(demo.DEMO_VALUE_TABLE))
    assert f"{fmt.money(curve.ev_at(0.2) - curve.ev_at(0.5), 'EUR', signed=True, compact=True)} vs last saved" in notes


def test_snapshot_records_the_value_table_version_and_the_audit_log(app):
    at = app(None)
    assert any("draft r1 (not approved)" in h.value for h in at.html)  # the board names the version it used
    at.button(key="board_save").click().run()
    import os

    from board.store import Store

    s = Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])
    draft = s.get_value_table_draft(demo.DEMO_VALUE_TABLE["name"])
    ev = s.list_evaluations()[0]
    assert ev.value_table_version_id == draft.id
    assert ev.result["table_version"] == "draft r1 (not approved)"
    assert s.list_audit(limit=5)[0].action == "save_evaluation"


def test_unsaved_edits_cannot_be_snapshotted(app):
    at = app("views/value_table.py")
    at.session_state["vt_editor_0"] = {"edited_rows": {2: {"amount": -30000.0}}, "added_rows": [], "deleted_rows": []}
    at.run()
    at.switch_page("views/board.py").run()
    assert any("unsaved edits" in m.value for m in [*at.markdown, *at.html])
    assert at.button(key="board_save").disabled


def test_pdf_and_png_are_one_click_downloads_of_this_board(app):
    """PDF and PNG are download buttons whose file is made on click (deferred), so a download is
    always of the board on screen; no separate render step whose result could go stale."""
    at = app(None)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["HTML", "PDF", "PNG"]


def test_the_app_opens_the_stable_demo_and_says_roll_out(app):
    """Demo 1, the stable weeks, is what the app opens (``dataset=None``: the app chooses); its
    board is the engine's roll-out verdict at the default thresholds (tests/board/test_demo.py).
    A first start (``warm=False``): the page computes the board itself, nothing is cached."""
    import os

    from board import services
    from board.store import Store

    at = app(None, dataset=None, warm=False)
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        stable = services.ensure_demo(s)
        result = services.evaluate_stored(
            s, stable.id, ValueTable.from_dict(demo.DEMO_VALUE_TABLE), BoardConfig(scheme="cluster")
        )
    assert at.session_state["dataset"] == stable.id and stable.name == demo.STABLE.name
    assert result.action.verdict == "roll out"
    value, _ = tile(at, "new vs old: gain per decision")
    assert value == fmt.money(result.comparison.diff.estimate, "EUR", signed=True, compact=True)
    statistics = " ".join(m.value for m in at.markdown)
    assert md_text(result.action.clauses[0].text)[:50] in statistics


def test_a_snapshot_keeps_its_html_export(app):
    """Snapshot stores the board's HTML export with it (issue 14 item 6): the kept file is the
    board of that moment, verdict and tiles included."""
    import os

    from board.store import Store

    at = app(None)
    at.button(key="board_save").click().run()
    assert not at.exception
    s = Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])
    ev = s.list_evaluations()[0]
    kept = s.get_evaluation_html(ev.id)
    assert kept is not None and kept.startswith("<!DOCTYPE html>")
    import re

    word = next(m.group(1) for h in at.html for m in [re.search(r"<span class='eb-word'[^>]*>(.*?)</span>", h.value)] if m)
    assert kept.count(word) >= 1  # the verdict of that moment
    for _label, value, _ in tiles(at):
        assert html.escape(value) in kept  # every tile's number is in the kept export


def test_a_reader_can_see_the_board_as_expected_loss(app, expected):
    """Loss or value (issue 14 item 8): choosing "Loss" shows every tile as expected loss per
    decision (the negative of the value), keeps the choice for the user and audits it."""
    import os

    from board.store import Store

    at = app(None)
    at.query_params["t_old"] = "0.05"
    at.query_params["t_new"] = "0.09"
    at.run()
    at.segmented_control(key="board_display").set_value("loss").run()
    assert not at.exception
    value, _ = tile(at, "new at 0.09: expected loss per decision")
    assert value == fmt.money(-expected.models["new"].ev, "EUR", compact=True)
    value, _ = tile(at, "new vs old: change in loss per decision")
    assert value == fmt.money(-expected.comparison.diff.estimate, "EUR", signed=True, compact=True)
    s = Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])
    user = at.session_state["auth_user"]["username"]
    assert any(e.action == "set_own_display" and e.detail == {"display": "loss"} for e in s.list_audit(limit=5))
    assert s.get_user(user).display == "loss"


def test_an_editor_sets_a_value_tables_display_for_every_reader(app, expected):
    """The value table's default (issue 14 item 8): an editor sets "loss" on the Value table page;
    a reader who has not chosen sees the board as expected loss."""
    import os

    from board.store import Store

    at = app("views/value_table.py")
    at.radio(key="vt_display").set_value("loss").run()
    assert not at.exception
    s = Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])
    assert s.get_value_table_display(demo.DEMO_VALUE_TABLE["name"]) == "loss"
    assert s.list_audit(limit=1)[0].action == "set_table_display"
    at.query_params["t_old"] = "0.05"
    at.query_params["t_new"] = "0.09"
    at.switch_page("views/board.py").run()
    value, _ = tile(at, "new at 0.09: expected loss per decision")
    assert value == fmt.money(-expected.models["new"].ev, "EUR", compact=True)
