"""F10 (issue 17): a viewer fetched the HTML export via its media URL and downloaded the
calibration CSV; neither was audited.

Every download follows the "export" permission: a viewer gets no download button at all (a
disabled one still hands its file to the browser at a media URL) and a caption saying why; an
analyst's click writes an "export" audit entry.
"""

from __future__ import annotations

import pytest

from board.store import Store
from tests.app.conftest import app  # noqa: F401 - the AppTest fixture

PAGES = {"views/board.py": "board_html", "views/calibration.py": "cal_download_new"}


def _downloads(at):
    return at.get("download_button")


def _with_recalibration(at):
    """The Calibration page's map downloads sit in its recalibration, fitted only on request."""
    asked = [b for b in at.button if b.key == "cal_recal_run"]
    return asked[0].click().run() if asked else at


def _exports(data_dir):
    with Store(data_dir=data_dir) as s:
        return [(a.username, a.action, a.target) for a in s.list_audit() if a.action == "export"]


@pytest.mark.parametrize("page", PAGES)
def test_a_viewer_gets_no_download_and_is_told_why(app, page):  # noqa: F811
    at = _with_recalibration(app(page, user=("vera", "viewer")))
    assert _downloads(at) == [] or all(d.proto.disabled and not d.proto.url for d in _downloads(at))
    assert any("export permission" in c.value and "Viewer" in c.value for c in at.caption), [c.value for c in at.caption]


@pytest.fixture
def deferred(monkeypatch):
    """The download callables the page registered (file id → callable): what the server runs when
    the browser asks for the file, by a click or by hand."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    found = {}
    real = MediaFileManager.add_deferred

    def add_deferred(self, data_callable, *args, **kwargs):
        file_id = real(self, data_callable, *args, **kwargs)
        found[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    return found


@pytest.mark.parametrize(("page", "key"), PAGES.items())
def test_an_analysts_download_is_audited_when_the_file_is_made(app, tmp_path, page, key, deferred):  # noqa: F811
    """No file waits at a media URL: the download is deferred, and each delivery of the file (a
    click, or a request made by hand) writes its audit entry."""
    at = _with_recalibration(app(page, user=("anna", "analyst")))
    button = next(d for d in _downloads(at) if d.key == key)
    assert not button.proto.disabled
    assert button.proto.url == "" and button.proto.deferred_file_id  # nothing to fetch before the request
    assert _exports(tmp_path / "data") == []
    data = deferred[button.proto.deferred_file_id]()
    assert len(data) > 100
    what = {"board_html": "board HTML", "cal_download_new": "calibration map CSV"}[key]
    assert _exports(tmp_path / "data") == [("anna", "export", what)]
    deferred[button.proto.deferred_file_id]()  # asked again: audited again
    assert _exports(tmp_path / "data") == [("anna", "export", what)] * 2
