"""F1 (issue 17): a viewer changed the shared drift settings, flipping everyone's board; nothing was audited.

Settings changes go through :mod:`board.services.drift_settings`, need an editor role and are audited.
"""

import pytest

from board.access.auth import User
from board.access.governance import Forbidden
from board.services import drift_settings
from board.store import Store
from evalcore.drift import DriftConfig
from tests.app.conftest import app  # noqa: F401 - the AppTest fixture

VIEWER = User(username="v", role="viewer")
ANALYST = User(username="a", role="analyst")


@pytest.fixture
def store_with_dataset(tmp_path):
    with Store(url=f"sqlite:///{tmp_path / 's.sqlite'}", data_dir=tmp_path / "data") as s:
        rec = s.save_dataset(
            name="d",
            uploader="a",
            raw=b"y,s\n1,0.5\n",
            filename="d.csv",
            mapping={"label": "y", "scores": {"m": "s"}},
            report={"n_rows": 1},
            n_rows=1,
        )
        yield s, rec.id


def test_a_viewer_cannot_save_or_reset_drift_settings_and_nothing_is_written(store_with_dataset):
    s, ds = store_with_dataset
    with pytest.raises(Forbidden, match="edit settings is not allowed for 'v' \\(role viewer\\)"):
        drift_settings.save_config(s, VIEWER, ds, DriftConfig(ks_threshold=0.9))
    with pytest.raises(Forbidden):
        drift_settings.reset_config(s, VIEWER, ds)
    with pytest.raises(Forbidden):
        drift_settings.save_config(s, None, ds, DriftConfig())
    assert s.get_dataset_settings(ds, drift_settings.SETTINGS_KEY) is None
    assert [a.action for a in s.list_audit()] == []


def test_an_editor_saves_settings_and_the_change_is_audited_with_the_values(store_with_dataset):
    s, ds = store_with_dataset
    drift_settings.save_config(s, ANALYST, ds, DriftConfig(ks_threshold=0.4))
    assert drift_settings.load_config(s, ds) == (DriftConfig(ks_threshold=0.4), None)
    (entry,) = s.list_audit()
    assert (entry.username, entry.action) == ("a", "save_drift_settings")
    assert entry.detail["settings"]["ks_threshold"] == 0.4
    drift_settings.reset_config(s, ANALYST, ds)
    assert drift_settings.load_config(s, ds)[0] == DriftConfig()
    assert [a.action for a in s.list_audit()] == ["save_drift_settings"] * 2


def test_the_drift_page_disables_saving_for_a_viewer_and_says_why(app):  # noqa: F811
    at = app("views/drift.py", user=("viewer1", "viewer"))
    assert at.button(key="drift_save").disabled and at.button(key="drift_reset").disabled
    assert any("change the board for everyone" in c.value for c in at.caption)
    # a forged click would still reach the callback, which saves through save_config: refused above
