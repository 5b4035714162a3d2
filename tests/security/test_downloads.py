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


def _exports(data_dir):
    with Store(data_dir=data_dir) as s:
        return [(a.username, a.action, a.target) for a in s.list_audit() if a.action == "export"]


@pytest.mark.parametrize("page", PAGES)
def test_a_viewer_gets_no_download_and_is_told_why(app, page):  # noqa: F811
    at = app(page, user=("vera", "viewer"))
    assert _downloads(at) == [] or all(d.proto.disabled and not d.proto.url for d in _downloads(at))
    assert any("export permission" in c.value and "Viewer" in c.value for c in at.caption), [c.value for c in at.caption]


@pytest.mark.parametrize(("page", "key"), PAGES.items())
def test_an_analysts_download_is_audited(app, tmp_path, page, key):  # noqa: F811
    at = app(page, user=("anna", "analyst"))
    button = next(d for d in _downloads(at) if d.key == key)
    assert not button.proto.disabled
    assert _exports(tmp_path / "data") == []
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    what = {"board_html": "board HTML", "cal_download_new": "calibration map CSV"}[key]
    assert _exports(tmp_path / "data") == [("anna", "export", what)]
