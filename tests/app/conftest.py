from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def app(tmp_path, monkeypatch):
    """A fresh AppTest of the entry point on its own empty store (the demo loads on first run)."""
    monkeypatch.setenv("EVALBOARD_DATA_DIR", str(tmp_path / "data"))

    def make(page=None, **state):
        at = AppTest.from_file(APP, default_timeout=120)
        for k, v in state.items():
            at.session_state[k] = v
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return make
