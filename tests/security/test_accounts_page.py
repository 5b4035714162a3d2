"""Account management in the app (issue 17): admins add accounts, disable and enable them, reset
passwords and change roles on the Accounts page; every action is audited; nobody can demote or
disable themself, and the last active admin cannot be demoted."""

from __future__ import annotations

import pytest

from board.access import auth, governance
from board.access.auth import User
from board.store import Store
from tests.app.conftest import ADMIN, app  # noqa: F401 - the AppTest fixture

PAGE = "views/accounts.py"
NEW_PW = "correct horse battery"


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def _store(tmp_path):
    return Store(data_dir=tmp_path / "data")


def _audit(tmp_path):
    with _store(tmp_path) as s:
        return [(a.username, a.action, a.target, a.detail) for a in reversed(s.list_audit())]


def _add(at, name, role, pw=NEW_PW, pw2=None):
    at.text_input(key="accounts_add_name").input(name)
    at.selectbox(key="accounts_add_role").set_value(role)
    at.text_input(key="accounts_add_pw1").input(pw)
    at.text_input(key="accounts_add_pw2").input(pw if pw2 is None else pw2)
    _button(at, "Add the account").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_is_for_admins_only(app):  # noqa: F811
    at = app(None, user=("anna", "analyst"))
    with pytest.raises(ValueError, match="Could not find a navigation page"):  # not in an analyst's navigation
        at.switch_page(PAGE)
    at = app(None)
    at.switch_page(PAGE).run()
    assert [t.value for t in at.title] == ["Accounts"]


def test_an_admin_adds_disables_resets_and_changes_a_role_all_audited(app, tmp_path):  # noqa: F811
    at = app(PAGE)
    assert at.title[0].value == "Accounts"
    assert any(f"at least {auth.MIN_PASSWORD_CHARS} characters" in c.value for c in at.caption)
    _add(at, "bea", "business", pw="short")
    assert any("at least" in e.value for e in at.error)
    with _store(tmp_path) as s:
        assert s.get_user("bea") is None
    _add(at, "bea", "business")
    assert any("Added bea (Business)" in m.value for m in at.success)
    with _store(tmp_path) as s:
        assert auth.authenticate(s, "bea", NEW_PW).role == "business"

    at.selectbox(key="accounts_who").set_value("bea").run()
    _button(at, "Disable").click().run()
    with _store(tmp_path) as s:
        assert not s.get_user("bea").active
    at.selectbox(key="accounts_who").set_value("bea").run()
    _button(at, "Enable").click().run()

    at.selectbox(key="accounts_who").set_value("bea").run()
    at.selectbox(key="accounts_role").set_value("risk").run()
    _button(at, "Change the role").click().run()
    assert any("bea is now Risk" in m.value for m in at.success)

    at.selectbox(key="accounts_who").set_value("bea").run()
    at.text_input(key="accounts_reset_pw1").input("another long passphrase")
    at.text_input(key="accounts_reset_pw2").input("another long passphrase")
    _button(at, "Reset the password").click().run()
    assert not at.exception
    with _store(tmp_path) as s:
        rec = s.get_user("bea")
        assert rec.active and rec.role == "risk"
        assert auth.authenticate(s, "bea", "another long passphrase").role == "risk"
    entries = [(who, what, on) for who, what, on, _ in _audit(tmp_path) if what != "login"]
    assert entries == [
        (ADMIN, "add_user", "bea"),
        (ADMIN, "disable_user", "bea"),
        (ADMIN, "enable_user", "bea"),
        (ADMIN, "change_role", "bea"),
        (ADMIN, "reset_password", "bea"),
    ]
    assert [d for _, what, _, d in _audit(tmp_path) if what == "change_role"] == [{"from": "business", "to": "risk"}]


def test_an_admin_cannot_demote_or_disable_themself(app, tmp_path):  # noqa: F811
    at = app(PAGE)
    at.selectbox(key="accounts_who").set_value(ADMIN).run()
    at.selectbox(key="accounts_role").set_value("viewer").run()
    _button(at, "Change the role").click().run()
    assert any("cannot change its own role" in e.value for e in at.error)
    at.selectbox(key="accounts_who").set_value(ADMIN).run()
    _button(at, "Disable").click().run()
    assert any("cannot disable its own account" in e.value for e in at.error)
    with _store(tmp_path) as s:
        rec = s.get_user(ADMIN)
        assert rec.active and rec.role == "admin"
    assert [a for a in _audit(tmp_path) if a[1] in ("change_role", "disable_user")] == []


def test_the_last_active_admin_cannot_be_demoted(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    with _store(tmp_path) as s:
        s.create_user("root", auth.hash_password(NEW_PW), "admin")
        s.create_user("off", auth.hash_password(NEW_PW), "admin")
        s.update_user("off", active=False)
        acting = User(username="cli", role="admin")  # e.g. an admin acting from a script
        with pytest.raises(governance.Forbidden, match="last active admin"):
            governance.change_role(s, acting, "root", "viewer")
        governance.change_role(s, acting, "off", "viewer")  # a disabled admin is not the last one
        with pytest.raises(governance.Forbidden, match="manage users is not allowed"):
            governance.change_role(s, User(username="root2", role="analyst"), "root", "viewer")
        assert s.get_user("root").role == "admin"
        assert [(a.action, a.target) for a in s.list_audit()] == [("change_role", "off")]


def test_the_first_start_page_says_what_the_admin_is_for_and_the_password_policy(app):  # noqa: F811
    at = app(None, user=None)  # an empty store: the first-start page
    assert [t.value for t in at.title] == ["Create the admin account"]
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "this is the only account" in text and "add others on the **Accounts** page" in text
    assert f"at least {auth.MIN_PASSWORD_CHARS} characters" in text
