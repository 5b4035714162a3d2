"""The Board page and the background board cache (issue 18 item 1): after the background job of
an upload (or approval, or settings change), a fresh session's Board page computes nothing and
reads no file (a fresh server process finds the same files in the data directory)."""

from __future__ import annotations

import os

from board.services import board_cache, warm


def test_after_an_upload_the_board_page_finds_its_board_ready(app, monkeypatch):
    """The background job computes the board a fresh session opens; the Board page then computes
    nothing (the computation is made to fail, and the page still shows the same verdict)."""
    from board.store import Store
    from board.words.verdict import plain_verdict

    monkeypatch.setenv("EVALBOARD_PRECOMPUTE", "1")
    with Store(data_dir=os.environ["EVALBOARD_DATA_DIR"]) as s:
        from board import services

        ds = services.ensure_demo(s, "drifting")
        done = warm.precompute(s, ds.id).result(timeout=600)
        assert done is not None
        precomputed = board_cache.cache_for(s).get(done)

    def fail(*a, **k):
        raise AssertionError("the board was computed again")

    monkeypatch.setattr(board_cache, "compute", fail)
    from board import services

    # nor is the file read again: the counted aggregates come from the cache too
    monkeypatch.setattr(services, "load_predictions", lambda *a, **k: fail())
    monkeypatch.setattr(services.evaluation, "load_predictions", lambda *a, **k: fail())
    at = app("views/board.py", dataset=ds.id)
    assert not at.exception, [e.value for e in at.exception]
    import html

    shown = html.unescape(" ".join(h.value for h in at.html))  # the verdict banner is HTML
    v = plain_verdict(precomputed)
    assert v.word in shown and v.sentence in shown
