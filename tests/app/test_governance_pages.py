"""AppTest: login gate, first-start admin, navigation per role, sign-off on the Value table page, audit log."""

from datetime import date

from board.store import Store


def _reaches(at, page: str, title: str) -> bool:
    """Whether ``page`` is routable for this tab and runs (its st.title appears)."""
    try:
        at.switch_page(page)
    except ValueError as err:  # AppTest: not among the pages st.navigation registered in this run
        assert "Could not find a navigation page" in str(err)
        return False
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return any(t.value.startswith(title) for t in at.title)


def test_first_start_only_offers_creating_the_admin(app):
    at = app(user=None)
    assert [t.value for t in at.title] == ["Create the admin account"]
    at.text_input(key="first_admin_username").input("root")
    at.text_input(key="first_admin_pw1").input("short")
    at.text_input(key="first_admin_pw2").input("short")
    at.button[0].click().run()
    assert "at least" in at.error[0].value
    at.text_input(key="first_admin_pw1").input("a long admin password")
    at.text_input(key="first_admin_pw2").input("a long admin password")
    at.button[0].click().run()
    assert not at.exception
    assert at.session_state["auth_user"] == {"username": "root", "role": "admin"}
    assert _reaches(at, "views/audit.py", "Audit log")


def test_login_form_and_wrong_password(app, tmp_path):
    app()  # creates the admin account; then a fresh tab without a login
    at2 = app(user=None)
    assert [t.value for t in at2.title] == ["Log in"]
    at2.text_input(key="login_username").input("test-admin")
    at2.text_input(key="login_password").input("not the password")
    at2.button[0].click().run()
    assert "Wrong username or password" in at2.error[0].value
    at2.text_input(key="login_password").input("test admin password")
    at2.button[0].click().run()
    assert at2.session_state["auth_user"]["role"] == "admin"


def test_idle_session_is_logged_out(app, monkeypatch):
    from datetime import datetime, timedelta, timezone

    at = app(**{"auth_last_active": datetime.now(timezone.utc) - timedelta(minutes=61)})
    assert [t.value for t in at.title] == ["Log in"]
    assert "without activity" in at.info[0].value


def test_viewer_cannot_reach_editor_upload_or_audit(app):
    at = app(user=("vera", "viewer"))
    assert not _reaches(at, "views/value_table.py", "Value table")
    assert not _reaches(at, "views/audit.py", "Audit log")
    assert _reaches(at, "views/threshold_value.py", "")


def test_business_proposes_three_roles_sign_and_the_report_shows(app, tmp_path):
    at = app(page="views/value_table.py", user=("bea", "business"))
    at.text_input(key="vt_prop_label").input("v2026.Q4")
    at.date_input(key="vt_prop_date").set_value(date(2026, 10, 1))
    next(t for t in at.text_input if t.key.startswith("vt_prop_reason")).input("new fraud costs")
    next(b for b in at.button if b.label == "Propose version").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("proposed" in s.value for s in at.success)
    # bea proposed it: four eyes, another business account signs
    for username, role in (("bob", "business"), ("rita", "risk"), ("otto", "model_owner")):
        at = app(page="views/value_table.py", user=(username, role))
        next(b for b in at.button if b.label.startswith("Sign v2026.Q4")).click().run()
        assert not at.exception, [e.value for e in at.exception]
    assert any(s.value.startswith("Impact report") for s in at.subheader)
    with Store(data_dir=tmp_path / "data") as s:
        (v,) = [v for v in s.list_value_table_versions("loan anti-fraud") if v.label == "v2026.Q4"]
        assert v.status == "approved"
        assert {a.action for a in s.list_audit()} >= {"propose_version", "sign_version", "approve_version"}
    admin = app(page="views/audit.py")
    assert any("sign_version" in set(df.value.get("Action", [])) for df in admin.dataframe)


# --------------------------------------------------------------------------- the signer's review (issue 16 item 3)

NAME = "loan anti-fraud"


def _in_force_and_proposed(tmp_path, fn=-30000.0):
    """v2026.Q3 (the demo amounts, FN -22,000) in force; v2026.Q4 (FN ``fn``) proposed by ana."""
    from board.access import governance as gov
    from board.access.auth import User
    from board.services import signoff

    ana = User(username="ana", role="analyst")
    with Store(data_dir=tmp_path / "data") as s:
        demo = s.get_value_table_draft(NAME)
        q3 = gov.propose_version(
            s, ana, NAME, label="v2026.Q3", effective_date=date(2026, 7, 1), reason="first", expected_row_version=demo.row_version
        )
        for role in gov.SIGNING_ROLES:
            signoff.sign_version(s, User(username=f"s_{role}", role=role), q3.id, reevaluate=lambda ev, a: {})
        draft = gov.save_draft(
            s, ana, NAME, {**q3.amounts, "fn": fn}, expected_row_version=0, reason="fraud losses up (2026 loss report)"
        )
        q4 = gov.propose_version(
            s, ana, NAME, label="v2026.Q4", effective_date=date(2026, 10, 1), expected_row_version=draft.row_version
        )
        return q3, q4


def _badge(at) -> str:
    return next(m.value for m in at.sidebar.markdown if "Awaiting your signature" in m.value)


def test_a_signer_reviews_the_proposed_amounts_against_the_version_in_force(app, tmp_path):
    app()  # the demo and its draft
    _, q4 = _in_force_and_proposed(tmp_path)
    at = app(page="views/value_table.py", user=("rita", "risk"))
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "Review v2026.Q4 (pending) against v2026.Q3 (in force)" in text
    # the change, highlighted with its reason (carried from the draft): FN -22,000 -> -30,000 (-8,000)
    fn_line = next(m.value for m in at.markdown if m.value.startswith("- **FN**"))
    assert "-22,000 EUR" in fn_line and "**-30,000 EUR**" in fn_line and "(-8,000 EUR)" in fn_line
    assert "fraud losses up (2026 loss report)" in fn_line
    assert not any(m.value.startswith(("- **TP**", "- **FP**", "- **TN**")) for m in at.markdown)
    review = next(df.value for df in at.dataframe if "Proposed" in df.value.columns)
    fn = review[review["Outcome"] == "FN"].iloc[0]
    assert (fn["In force"], fn["Proposed"], fn["Change"]) == ("-22,000 EUR", "-30,000 EUR", "-8,000 EUR")
    # the impact preview is there before any signature
    assert any("EV per decision, proposed" in df.value.columns for df in at.dataframe)
    # the pending content cannot be edited or saved here
    assert not any(b.label == "Save draft" for b in at.button)
    assert not any("Unsaved changes" in c.value for c in at.caption)
    assert _badge(at).endswith("Awaiting your signature (1)]")
    next(b for b in at.button if b.label.startswith("Sign v2026.Q4")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Signed v2026.Q4" in s.value for s in at.success)
    assert _badge(at).endswith("Awaiting your signature (0)]")
    with Store(data_dir=tmp_path / "data") as s:
        assert [(x.role, x.username) for x in s.list_signoffs(q4.id)] == [("risk", "rita")]


def test_a_stale_tab_is_told_the_version_changed_and_signs_nothing(app, tmp_path):
    from board.access import governance as gov
    from board.access.auth import User

    app()
    _, q4 = _in_force_and_proposed(tmp_path)
    at = app(page="views/value_table.py", user=("otto", "model_owner"))  # draws FN -30,000
    ana = User(username="ana", role="analyst")
    with Store(data_dir=tmp_path / "data") as s:  # meanwhile: rejected, changed, proposed again, same label
        gov.reject_version(s, User(username="rita", role="risk"), q4.id, comment="source?")
        d = gov.reopen_version(s, ana, q4.id)
        d = gov.save_draft(s, ana, NAME, {**d.amounts, "fn": -50000.0}, expected_row_version=d.row_version)
        gov.propose_version(s, ana, NAME, label="v2026.Q4", effective_date=date(2026, 10, 1), expected_row_version=d.row_version)
    next(b for b in at.button if b.label.startswith("Sign v2026.Q4")).click().run()
    assert any("changed after your page showed it" in e.value for e in at.error)
    with Store(data_dir=tmp_path / "data") as s:
        assert s.list_signoffs(q4.id) == []


def test_the_proposer_sees_no_sign_button(app, tmp_path, monkeypatch):
    from board.access import governance as gov

    monkeypatch.delenv(gov.SELF_SIGN_ENV, raising=False)
    app()
    _in_force_and_proposed(tmp_path)
    with Store(data_dir=tmp_path / "data") as s:  # the proposer is a business account this time
        v = next(v for v in s.list_value_table_versions(NAME) if v.status == "pending")
        s.reject_version(v.id, comment="x")
    at = app(page="views/value_table.py", user=("bea", "business"))
    at.button(key=f"vt_reopen_{v.id}").click().run()
    next(t for t in at.text_input if t.key.startswith("vt_prop_reason")).input("")
    at.text_input(key="vt_prop_label").input("v2026.Q4b")
    next(b for b in at.button if b.label == "Propose version").click().run()
    assert not at.exception, [e.value for e in at.exception]
    at = app(page="views/value_table.py", user=("bea", "business"))
    assert not any(b.label.startswith("Sign v2026.Q4b") for b in at.button)
    assert any("four-eyes rule" in i.value for i in at.info)
    assert _badge(at).endswith("Awaiting your signature (0)]")
