from datetime import datetime, timezone
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests import _warm

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ADMIN = "test-admin"
ADMIN_PASSWORD = "test admin password"


def login_state(username: str, role: str) -> dict:
    """Session state of a tab where ``username`` has just logged in (what views/login.py sets)."""
    from board.access import auth

    return {auth.SESSION_USER_KEY: {"username": username, "role": role}, auth.SESSION_ACTIVE_KEY: datetime.now(timezone.utc)}


@pytest.fixture
def app(tmp_path, monkeypatch):
    """A fresh AppTest of the entry point on its own empty store (the demo loads on first run).

    Logged in as an admin by default (the account exists in the store); pass ``user=None`` for a
    tab without a login, or ``user=("name", "role")`` for another account (created if absent).

    A logged-in tab opens Demo 2, the drifting week (the page tests' expected numbers come from
    ``demo.demo_frame()``, that week), unless ``dataset=`` is given; ``dataset=None`` leaves the
    choice to the app, which opens Demo 1, the stable weeks. A tab without a login chooses as the
    app does (the deep-link tests).

    The store's board cache starts with the demos' boards (:mod:`tests._warm`), as on a server that
    has run before; ``warm=False`` starts it empty (a first start: every board computed on the page).
    """
    from board import services
    from board.access import auth
    from board.store import Store

    data = tmp_path / "data"
    monkeypatch.setenv("EVALBOARD_DATA_DIR", str(data))
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    monkeypatch.delenv("EVALBOARD_DB_URL", raising=False)
    monkeypatch.delenv(auth.AUTOLOGIN_ENV, raising=False)

    def make(page=None, user=(ADMIN, "admin"), warm=True, **state):
        if warm:
            _warm.seed(data)
        if user is not None:
            with Store(data_dir=data) as s:
                if s.get_user(user[0]) is None:
                    s.create_user(user[0], auth.hash_password(ADMIN_PASSWORD), user[1])
                state.setdefault("dataset", services.ensure_demo(s, "drifting").id)
        at = AppTest.from_file(APP, default_timeout=120)
        if user is not None:
            for k, v in login_state(*user).items():
                at.session_state[k] = v
        for k, v in state.items():
            at.session_state[k] = v
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return make
