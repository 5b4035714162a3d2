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
    at.text_input(key="vt_prop_reason").input("new fraud costs")
    next(b for b in at.button if b.label == "Propose version").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("proposed" in s.value for s in at.success)
    for username, role in (("bea", "business"), ("rita", "risk"), ("otto", "model_owner")):
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
