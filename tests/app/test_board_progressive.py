"""The Board page shows point estimates first (issue 18 item 1): while the whole board is computed
in the background, the page shows each model's value per decision (final numbers), the intervals
marked as computing, no verdict and no snapshot; once the job is done, the next run shows the
whole board."""

from __future__ import annotations

import html
import threading
import time

import numpy as np

from board.services import board_cache, demo
from board.words import fmt
from tests._board import tiles


def _ev_by_hand(model: str) -> float:
    """Value per decision at the demo's threshold 0.5, from the rows (the demo table's amounts)."""
    f = demo.demo_frame()  # the drifting week, which the app fixture opens
    y = f.is_fraud.to_numpy() == 1
    act = f[demo.DEMO_MAPPING["scores"][model]].to_numpy() >= 0.5
    v = demo.DEMO_VALUE_TABLE
    total = v["tp"] * np.sum(act & y) + v["fp"] * np.sum(act & ~y) + v["fn"] * np.sum(~act & y) + v["tn"] * np.sum(~act & ~y)
    return total / len(y)


def _page(at) -> str:
    return html.unescape(" ".join(h.value for h in at.html))


def test_point_estimates_first_then_the_whole_board(app, monkeypatch):
    monkeypatch.setenv("EVALBOARD_PROGRESSIVE", "1")
    release = threading.Event()
    real = board_cache.compute

    def held(agg, table, config, source, counts=None):
        if config.n_resamples:  # the whole board waits until the test has read the point board
            assert release.wait(600)
        return real(agg, table, config, source, counts)

    monkeypatch.setattr(board_cache, "compute", held)
    try:
        at = app("views/board.py", warm=False)  # a first start: nothing cached yet
        assert not at.exception, [e.value for e in at.exception]
        assert "Verdict: computing" in _page(at)
        shown = {label: (value, notes) for label, value, notes in tiles(at)}
        for model in demo.DEMO_MAPPING["scores"]:
            value, notes = shown[f"{model}: value per decision"]
            assert value == fmt.money(_ev_by_hand(model), "EUR", signed=True, compact=True)
            assert "interval: computing …" in notes
        assert "board_save" not in [b.key for b in at.button]  # no snapshot of half a board
    finally:
        release.set()
    deadline = time.monotonic() + 600
    while not all(j.done() for j in board_cache._JOBS.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    page = _page(at)
    assert "Verdict: computing" not in page and "HOLD" in page  # the drifting week's verdict
    assert "board_save" in [b.key for b in at.button]
