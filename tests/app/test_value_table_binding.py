"""AppTest of several value tables (issue 16 item 1): an upload is bound to the table chosen at
upload and its board is priced with it; opening a dataset selects its bound table; the Datasets
page changes the binding (audited); the Value table page creates, clones and archives tables."""

from __future__ import annotations

import os

from board.access import governance as gov
from board.services import evaluation as ev
from board.store import Store
from tests._board import tiles

CSV = b"label,score\n1,0.9\n0,0.2\n1,0.7\n0,0.4\n0,0.1\n1,0.8\n0,0.3\n0,0.05\n"
CAR_LOAN = {"tp": 900.0, "fp": -150.0, "fn": -4000.0, "tn": 10.0, "unit": "CHF"}


def _store() -> Store:
    return Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])


def _car_loan_table(at) -> None:
    from board.access.auth import User

    with _store() as s:
        gov.create_table(s, User(username="test-admin", role="admin"), "car-loan approval", CAR_LOAN)


def test_an_upload_bound_to_a_second_table_is_priced_with_it(app):
    at = app("views/upload.py")
    _car_loan_table(at)
    at.run()
    at.file_uploader(key="upload_file").set_value(("car.csv", CSV, "text/csv")).run()
    box = at.selectbox(key="upload_value_table")
    assert box.value == ev.DEFAULT_TABLE_NAME  # nothing bound yet: the default table
    assert "car-loan approval" in box.options
    box.set_value("car-loan approval").run()
    at.button(key="upload_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with _store() as s:
        rec = next(r for r in s.list_datasets() if r.filename == "car.csv")
        assert s.get_dataset_value_table(rec.id) == "car-loan approval"
    at.switch_page("views/board.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["value_table_name"] == "car-loan approval"
    values = [value for _, value, _ in tiles(at)]
    assert values and all("EUR" not in v for v in values), values
    assert any("CHF" in v for v in values), values
    assert any("value table “car-loan approval”" in h.value for h in at.html)


def test_opening_a_dataset_selects_its_table_and_the_sidebar_is_a_what_if(app):
    at = app("views/board.py")
    _car_loan_table(at)
    with _store() as s:
        from board.access.auth import User

        car = s.save_dataset(name="cars", filename="car.csv", raw=CSV, mapping={}, report={}, n_rows=8)
        gov.bind_table(s, User(username="test-admin", role="admin"), car.id, "car-loan approval")
    demo_id = at.session_state["dataset"]
    assert at.session_state["value_table_name"] == ev.DEFAULT_TABLE_NAME
    at.switch_page("views/datasets.py").run()
    at.button(key=f"datasets_use_{car.id}").click().run()
    assert at.session_state["value_table_name"] == "car-loan approval"
    # the sidebar may show another table (a what-if), which never changes the binding
    at.selectbox(key="value_table_name").set_value(ev.DEFAULT_TABLE_NAME).run()
    assert any("What-if" in w.value for w in at.sidebar.warning)
    with _store() as s:
        assert s.get_dataset_value_table(car.id) == "car-loan approval"
    at.button(key=f"datasets_use_{demo_id}").click().run()
    assert at.session_state["value_table_name"] == ev.DEFAULT_TABLE_NAME
    assert not any("What-if" in w.value for w in at.sidebar.warning)


def test_the_datasets_page_changes_the_binding_and_audits_it(app):
    at = app("views/datasets.py")
    _car_loan_table(at)
    at.run()
    ds = at.session_state["dataset"]
    at.selectbox(key="datasets_priced_with").set_value("car-loan approval").run()
    at.button(key="datasets_bind").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["value_table_name"] == "car-loan approval"  # the sidebar follows
    with _store() as s:
        assert s.get_dataset_value_table(ds) == "car-loan approval"
        assert s.list_audit(limit=1, action="bind_value_table")[0].detail == {"from": None, "to": "car-loan approval"}


def test_a_viewer_cannot_change_the_binding(app):
    at = app("views/datasets.py", user=("vera", "analyst"))
    assert not at.selectbox(key="datasets_priced_with").disabled  # editors may
    # a viewer does not even see the Datasets page (navigation); the service refuses anyway
    import pytest

    from board.access.auth import User

    with _store() as s, pytest.raises(gov.Forbidden):
        gov.bind_table(s, User(username="v", role="viewer"), at.session_state["dataset"], ev.DEFAULT_TABLE_NAME)


def test_the_value_table_page_creates_clones_and_archives_tables(app):
    at = app("views/value_table.py")
    at.text_input(key="vt_new_name").set_value("car-loan approval")
    at.radio(key="vt_new_from").set_value("all zeros").run()
    at.text_input(key="vt_new_unit").set_value("CHF")
    at.button(key="vt_new_create").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["value_table_name"] == "car-loan approval"
    assert any("Created" in m.value for m in at.success)
    assert "car-loan approval" in at.title[0].value
    at.text_input(key="vt_new_name").set_value("car-loan 2027")
    at.radio(key="vt_new_from").set_value("clone").run()
    at.button(key="vt_new_create").click().run()
    with _store() as s:
        assert s.get_value_table_draft("car-loan 2027").amounts["unit"] == "CHF"
        assert s.get_value_table_draft("car-loan approval").status == "draft"
    at.button(key="vt_archive").click().run()  # archives the table shown: car-loan 2027
    assert not at.exception, [e.value for e in at.exception]
    assert "car-loan 2027" not in at.selectbox(key="value_table_name").options
    with _store() as s:
        assert [e.target for e in s.list_audit(limit=3)][:3] == ["car-loan 2027", "car-loan 2027", "car-loan approval"]
    at.button(key="vt_restore_car-loan 2027").click().run()
    assert "car-loan 2027" in at.selectbox(key="value_table_name").options


def test_the_value_table_page_renames_the_table_and_its_dataset_follows(app):
    at = app("views/value_table.py")  # Demo 2, priced with the default table (never bound)
    ds = at.session_state["dataset"]
    at.text_input(key="vt_rename_to").set_value("anti-fraud (EU)")
    at.button(key="vt_rename").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Renamed" in m.value for m in at.success), [m.value for m in at.success]
    assert at.session_state["value_table_name"] == "anti-fraud (EU)"
    options = at.selectbox(key="value_table_name").options
    assert "anti-fraud (EU)" in options and ev.DEFAULT_TABLE_NAME not in options
    assert not [w for w in at.warning if "What-if" in w.value]  # the dataset is bound to the renamed table
    with _store() as s:
        assert s.get_dataset_value_table(ds) == "anti-fraud (EU)"
    at.text_input(key="vt_rename_to").set_value("anti-fraud (EU)")
    at.button(key="vt_rename").click().run()  # the same name again: refused, said
    assert any("exists already" in e.value for e in at.error), [e.value for e in at.error]


def test_a_board_priced_with_a_draft_carries_the_draft_mark(app):
    at = app(None)  # the demo's table is a draft until signed
    marks = [h.value for h in at.html if "draft-mark" in h.value]
    assert len(marks) == 1 and "DRAFT — not approved" in marks[0] and "draft r1 (not approved)" in marks[0]
    at.query_params["present"] = "1"
    at.run()
    assert any("DRAFT — not approved" in h.value for h in at.html if "draft-mark" in h.value)


def test_a_board_priced_with_an_approved_version_has_no_draft_mark(app, monkeypatch):
    from datetime import date

    from board.access.auth import User
    from board.services import signoff

    monkeypatch.setenv("EVALBOARD_ALLOW_SELF_SIGN", "1")
    with _store() as s:
        ev.ensure_demo(s)
        draft = s.get_value_table_draft(ev.DEFAULT_TABLE_NAME)
        rec = gov.propose_version(
            s,
            User(username="ann", role="analyst"),
            ev.DEFAULT_TABLE_NAME,
            label="v2026.Q4",
            effective_date=date(2026, 12, 1),
            reason="approved amounts",
            expected_row_version=draft.row_version,
        )
        for role in gov.SIGNING_ROLES:
            signoff.sign_version(s, User(username=f"u_{role}", role=role), rec.id, expected_hash=gov.content_hash(rec.amounts))
        assert s.latest_approved_version(ev.DEFAULT_TABLE_NAME) is not None
    at = app(None)
    assert any("v2026.Q4 (approved)" in h.value for h in at.html)
    assert not any("draft-mark" in h.value for h in at.html)


def _propose(s, label: str, signers=()):
    from datetime import date

    from board.access.auth import User
    from board.services import signoff

    draft = s.get_value_table_draft(ev.DEFAULT_TABLE_NAME)
    rec = gov.propose_version(
        s,
        User(username="ann", role="analyst"),
        ev.DEFAULT_TABLE_NAME,
        label=label,
        effective_date=date(2026, 12, 1),
        reason="new amounts",
        expected_row_version=draft.row_version,
    )
    for role in signers:
        signoff.sign_version(s, User(username=f"u_{role}", role=role), rec.id, expected_hash=gov.content_hash(rec.amounts))
    return rec


def test_a_pending_version_reads_in_chinese_for_its_signers(app):
    """A signer reading Chinese sees who is still awaited, and the button to sign, in Chinese
    role names (they were the English labels)."""
    with _store() as s:
        ev.ensure_demo(s)
        rec = _propose(s, "v2026.Q4", signers=("business",))
    at = app("views/value_table.py", user=("rita", "risk"), locale="zh_CN")
    assert [m.value for m in at.markdown if m.value.startswith("等待")] == ["等待风险、模型负责人。"]
    assert at.button(key=f"vt_sign_{rec.id}").label == "以风险身份签署 v2026.Q4"


def test_the_version_history_reads_in_chinese(app, monkeypatch):
    """The version history: Chinese headings, statuses and signers' roles."""
    from board.access.auth import User

    monkeypatch.setenv("EVALBOARD_ALLOW_SELF_SIGN", "1")
    with _store() as s:
        ev.ensure_demo(s)
        rec = _propose(s, "v2026.Q4", signers=gov.SIGNING_ROLES)
        gov.save_draft(s, User(username="ann", role="analyst"), ev.DEFAULT_TABLE_NAME, dict(rec.amounts), expected_row_version=0)
    at = app("views/value_table.py", locale="zh_CN")
    history = next(d.value for d in at.dataframe if "版本" in d.value.columns)
    assert list(history.columns) == ["版本", "状态", "生效日期", "提交人", "原因", "签署人", "意见"]
    assert sorted(history["版本"]) == sorted(["草稿", "v2026.Q4"])  # the draft's label reads 草稿 too
    assert set(history["状态"]) == {"草稿", "已批准"}
    row = history[history["版本"] == "v2026.Q4"].iloc[0]
    assert row["状态"] == "已批准"
    assert row["签署人"] == "业务：u_business、风险：u_risk、模型负责人：u_model_owner"
