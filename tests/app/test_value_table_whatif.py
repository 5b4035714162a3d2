"""AppTest of the Value table page's editing (issue 16 items 2 and 6): the live what-if under the
editor, amounts with thousands separators and the unit, server-side messages for out-of-range
entries, a save conflict that can be reloaded and re-applied, and a logout that forgets the tab.

Expected numbers come from evalcore directly (``score_counts`` and ``price_curve`` on the demo
generator's frame), not through the app's loader, cache or store.
"""

from __future__ import annotations

import os

from board import charts
from board.services import demo
from board.store import Store
from board.words import fmt
from evalcore import ValueTable, price_curve, score_counts

PAGE = "views/value_table.py"


def _curve(model, table):
    f = demo.demo_frame()
    return price_curve(score_counts(f.is_fraud.to_numpy(), f[demo.DEMO_MAPPING["scores"][model]].to_numpy()), table)


def _edit(at, edited_rows, epoch=0):
    # the data editor has no AppTest API: seed its pending edits through session state
    at.session_state[f"vt_editor_{epoch}"] = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_what_if_shows_the_edited_amounts_priced_against_the_version_in_force(app):
    at = app(PAGE)
    name = at.session_state["value_table_name"]
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        rec = s.latest_approved_version(name) or s.get_value_table_draft(name)
        in_force = ValueTable.from_dict(rec.amounts)
    _edit(at, {2: {"amount": -60000.0}})
    edited = in_force.with_amounts(fn=-60000.0)
    shown = at.container(key="vt_whatif").dataframe[0].value.set_index("Model")
    assert list(shown.index) == list(demo.DEMO_MAPPING["scores"])
    for m in shown.index:
        new, old = _curve(m, edited), _curve(m, in_force)
        t = 0.5  # the demo's deployed threshold
        row = shown.loc[m]
        assert row["Deployed threshold"] == fmt.score(t)
        assert row["Value per decision at deployed, edited"] == fmt.money(new.ev_at(t), "EUR", signed=True)
        assert row["Value per decision at deployed, in force"] == fmt.money(old.ev_at(t), "EUR", signed=True)
        assert row["Change at deployed"] == fmt.money(new.ev_at(t) - old.ev_at(t), "EUR", signed=True)
        assert row["Value per decision at optimum, edited"] == fmt.money(new.ev_opt, "EUR", signed=True)
        assert row["Change at optimum"] == fmt.money(new.ev_opt - old.ev_opt, "EUR", signed=True)
        assert row["Best threshold, edited"] == fmt.score(new.t_opt)
        assert row["Best threshold, in force"] == fmt.score(old.t_opt)
    assert new.ev_at(t) != old.ev_at(t)  # the edit moved the numbers
    traces = _figure(at, "vt_whatif_curve")["data"]
    names = [tr["name"] for tr in traces]
    assert any("edited" in n for n in names) and any("in force" in n for n in names)
    # the demo's ~25,000 distinct scores per model: each edit sends at most WHATIF_POINTS per curve (issue 18)
    lines = [tr for tr in traces if tr.get("mode") == "lines" and "customdata" in tr]
    assert len(lines) == 4 and all(len(tr["x"]) <= charts.WHATIF_POINTS + 1 for tr in lines)
    assert len(_curve(m, edited).thresholds) > 3 * charts.WHATIF_POINTS
    # the legend names the four curves only (the marks explain themselves on hover)
    legend = [tr["name"] for tr in traces if tr.get("showlegend", True)]
    assert sorted(legend) == sorted(tr["name"] for tr in lines), legend


def _figure(at, key):
    import json

    return json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key)).proto.spec)


def _editor_columns(at):
    import json

    editor = next(d for d in at.dataframe if d.proto.editing_mode)  # the data editor (read-only in AppTest)
    return json.loads(editor.proto.columns)


def test_amounts_show_thousands_separators_and_the_unit(app):
    at = app(PAGE)
    cols = _editor_columns(at)
    amount = next(c for k, c in cols.items() if "amount" in k)
    assert amount["type_config"]["format"] == "localized"  # "%+,.2f" is not sprintf-js: it showed -30000.00
    assert "(EUR)" in amount["label"]
    _edit(at, {2: {"amount": -30000.0}})
    assert any("FN -30,000 EUR" in c.value for c in at.caption), [c.value for c in at.caption]


def test_an_out_of_range_confidence_gets_a_message_and_stays_as_entered(app):
    at = app(PAGE)
    name = at.session_state["value_table_name"]
    before = at.session_state[f"committed_table::{name}"][0]
    conf = next(c for k, c in _editor_columns(at).items() if "confidence" in k)
    # no browser-side bounds: the grid would silently revert 1.7 to the old value
    assert "max_value" not in conf["type_config"] and "min_value" not in conf["type_config"]
    _edit(at, {1: {"confidence": 1.7}})
    assert any("FP confidence 1.7 must be in" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["vt_editor_0"]["edited_rows"] == {1: {"confidence": 1.7}}  # kept as typed
    assert at.session_state[f"committed_table::{name}"][0].to_dict() == before.to_dict()  # nothing applied
    at.run()  # and it stays: the message again on the next run, no revert
    assert any("FP confidence 1.7 must be in" in e.value for e in at.error)


def test_logout_forgets_the_unsaved_edits_of_the_previous_user(app):
    from tests.app.conftest import login_state

    at = app(PAGE)
    name = at.session_state["value_table_name"]
    _edit(at, {2: {"amount": -60000.0}})
    assert at.session_state[f"committed_table::{name}"][0].fn == -60000.0  # unsaved, in this tab only
    at.button(key="auth_logout").click().run()
    assert not at.exception, [e.value for e in at.exception]
    for key in (f"committed_table::{name}", "vt_editor_0", "vt_epoch", "dataset", "value_table_name"):
        assert key not in at.session_state, key
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        from board.access import auth

        s.create_user("bob", auth.hash_password("bob's password 123"), "analyst")
    for k, v in login_state("bob", "analyst").items():
        at.session_state[k] = v
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    name = at.session_state["value_table_name"]
    assert at.session_state[f"committed_table::{name}"][0].fn != -60000.0


def _someone_else_saves(name, who="carol"):
    """Another analyst saves the draft (FP → -5,000) while the tab under test edits it; the draft as stored."""
    from board.access import governance as gov
    from board.access.auth import User, hash_password

    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        s.create_user(who, hash_password(f"{who}'s password 123"), "analyst")
        draft = s.get_value_table_draft(name)
        base = dict((draft or s.latest_approved_version(name)).amounts)
        gov.save_draft(
            s,
            User(username=who, role="analyst"),
            name,
            {**base, "fp": -5000.0},
            reason="complaints cost more",
            expected_row_version=draft.row_version if draft is not None else 0,
        )
        return s.get_value_table_draft(name)


def test_a_save_conflict_shows_their_change_and_reload_reapply_saves(app):
    at = app(PAGE)
    name = at.session_state["value_table_name"]
    _edit(at, {2: {"amount": -60000.0}})  # this tab: FN
    _someone_else_saves(name)  # meanwhile carol saves FP
    at.button(key="vt_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    flash = next(e.value for e in at.error if e.value.startswith("Not saved: "))
    assert "carol saved this draft (revision" in flash and "row_version" not in flash, flash  # words, not the store's fields
    panel = at.container(key="vt_conflict")
    assert any("carol saved the draft" in m.value and "complaints cost more" in m.value for m in panel.markdown)
    shown = panel.dataframe[0].value.set_index("Outcome")
    assert shown.loc["FP", "Their saved amount"] == fmt.money(-5000.0, "EUR", signed=True)
    assert shown.loc["FN", "Your edit"] == fmt.money(-60000.0, "EUR", signed=True)
    at.button(key="vt_reapply").click().run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="vt_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not any(e.value.startswith("Not saved: ") for e in at.error), [e.value for e in at.error]
    assert any("Draft saved" in m.value for m in at.success), [m.value for m in at.success]
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        saved = s.get_value_table_draft(name).amounts
    assert (saved["fp"], saved["fn"]) == (-5000.0, -60000.0)  # their FP kept, my FN re-applied
    # and the tab keeps saving: another edit, another save, no conflict
    _edit(at, {0: {"amount": 20000.0}}, epoch=at.session_state["vt_epoch"])
    at.button(key="vt_save").click().run()
    assert any("Draft saved" in m.value for m in at.success), [e.value for e in at.error]


def test_a_save_conflict_and_a_refusal_are_said_in_chinese(app):
    """A Chinese reader's save messages are Chinese: the conflict names who saved and when (not the
    store's English with its row_version), and a refused save says which roles may save."""
    at = app(PAGE, locale="zh_CN")
    name = at.session_state["value_table_name"]
    _edit(at, {2: {"amount": -60000.0}})
    theirs = _someone_else_saves(name)
    at.button(key="vt_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    flash = next(e.value for e in at.error if e.value.startswith("未保存："))
    assert f"carol 于 {fmt.when(theirs.updated_at, 'zh_CN')} 保存了它（修订 {theirs.row_version}）" in flash, flash
    assert "row_version" not in flash and "Nothing" not in flash, flash

    # the same tab, its role taken away meanwhile (a viewer may not edit drafts): a refusal in words
    at.button(key="vt_discard").click().run()
    _edit(at, {2: {"amount": -61000.0}}, epoch=at.session_state["vt_epoch"])
    at.session_state["auth_user"] = {**at.session_state["auth_user"], "role": "viewer"}
    at.button(key="vt_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    flash = next(e.value for e in at.error if e.value.startswith("未保存："))
    # the roles allowed, in the order the refusal lists them (sorted codes: admin, analyst, business,
    # model_owner, risk), by their Chinese names on the Accounts page
    assert flash == "未保存：您的角色（查看者）不能编辑价值表草稿；需要以下角色之一：管理员、分析师、业务、模型负责人、风险。", (
        flash
    )


def test_the_what_if_ends_with_the_verdict_in_force_and_edited(app):
    """The verdict words equal the board's, computed by evalcore from the rows with the board's
    settings (1000 cluster replicates by customer, seed 0, the demo's deployed thresholds)."""
    from board.words.verdict import plain_verdict
    from evalcore.board import BoardConfig, evaluate
    from evalcore.data import ColumnMapping, validate

    at = app(PAGE, dataset=None)  # Demo 1, the stable weeks: ROLL OUT with the version in force
    name = at.session_state["value_table_name"]
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        rec = s.latest_approved_version(name) or s.get_value_table_draft(name)
        in_force = ValueTable.from_dict(rec.amounts)
    edited = in_force.with_amounts(tp=-5000.0)  # catching fraud now costs: acting on no one is best
    _edit(at, {0: {"amount": -5000.0}})
    preds = validate(demo.demo_frame(drift=False), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    config = BoardConfig(thresholds={m: 0.5 for m in demo.DEMO_MAPPING["scores"]}, n_resamples=1000, seed=0, scheme="cluster")
    old, new = (plain_verdict(evaluate(preds, t, config)).word for t in (in_force, edited))
    shown = [m.value for m in at.markdown if m.value.startswith("Verdict")]
    assert old != new  # the edit changes the decision (so the test can tell in force from edited)
    assert shown == [
        f"Verdict: **{old} → {new}**" + (" (unchanged by the edit)." if old == new else " — the edit changes the decision.")
    ]
