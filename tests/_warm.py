"""A board cache holding the boards a fresh store opens, computed once per test process.

Each demo's board — its bound value table, default thresholds and settings — as
:func:`board.services.warm._precompute` computes it (what a server's background job does after a
first start). :func:`seed` hard-links it into a test's empty data folder, so the store starts as on
a server that has run before: a page or browser test then reads the demo board instead of
computing it again (seconds each; about 140 page tests and every browser test's server open one).
The files are never written in place (the cache replaces a file atomically), so the links are safe.

The cold path stays tested: the page tests' ``app(..., warm=False)`` and the browser tests'
``running_server(..., warm=False)`` start without it (the first-start board test, the progressive
board, the cold deep links).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path


@functools.cache
def warm_cache_dir() -> Path:
    """The directory of the warm board cache (made on first call; removed when the process ends)."""
    from board import services
    from board.services import board_cache, warm
    from board.store import Store

    root = Path(tempfile.mkdtemp(prefix="evalboard-warm-boards-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    with Store(data_dir=root / "data") as s:
        services.ensure_demo(s)  # every demo, the Chinese one too
        for ds in s.list_datasets():
            warm._precompute(s, ds.id)
        return board_cache.cache_for(s).directory


def seed(data: Path) -> None:
    """Give the empty data folder ``data`` the warm board cache (nothing if it has a cache already)."""
    target = Path(data) / "cache" / "boards"
    if not target.exists():
        shutil.copytree(warm_cache_dir(), target, copy_function=_link)


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system (a test folder elsewhere): a copy
        shutil.copy2(src, dst)
