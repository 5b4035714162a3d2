"""Boards kept across sessions and restarts, and computed in the background (issue 18 item 1):
``board.services.board_cache``. The cache is bounded and signed; the board a fresh session opens
is found in it after an upload's background job, so the Board page computes nothing."""

from __future__ import annotations

import os
import time

import pytest

from board.services.board_cache import BoardCache


def key(i: int) -> str:
    return BoardCache.key(f"sha{i}", "{}", "{}", "rows")


def test_a_board_put_by_one_process_is_read_by_another(tmp_path):
    a, b = BoardCache(tmp_path), BoardCache(tmp_path)
    a.put(key(1), {"numbers": [1.5, float("nan")]})
    got = b.get(key(1))  # b has never seen it in memory: read from disk
    assert got["numbers"][0] == 1.5 and got["numbers"][1] != got["numbers"][1]
    assert b.get(key(2)) is None and key(1) in b and key(2) not in b


def test_the_key_depends_on_every_input():
    base = ("sha", '{"tp": 1}', '{"seed": 0}', "rows")
    keys = {BoardCache.key(*base)}
    for i, other in enumerate(("sha2", '{"tp": 2}', '{"seed": 1}', "stored")):
        keys.add(BoardCache.key(*base[:i], other, *base[i + 1 :]))
    assert len(keys) == 5 and BoardCache.key(*base) == BoardCache.key(*base)


def test_a_file_not_signed_by_the_cache_is_removed_never_unpickled(tmp_path):
    import pickle

    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    cache = BoardCache(tmp_path)
    cache.put(key(1), {"ok": 1})
    path = tmp_path / f"{key(1)}.board"
    blob = path.read_bytes()
    path.write_bytes(blob[:32] + pickle.dumps(Boom()))  # a valid tag for other bytes
    fresh = BoardCache(tmp_path)
    assert fresh.get(key(1)) is None and not path.exists() and not (tmp_path / "pwned").exists()
    other = BoardCache(tmp_path / "elsewhere")  # another cache's key: its files are foreign here
    other.put(key(2), {"ok": 2})
    (tmp_path / f"{key(2)}.board").write_bytes((tmp_path / "elsewhere" / f"{key(2)}.board").read_bytes())
    assert BoardCache(tmp_path).get(key(2)) is None
    with pytest.raises(ValueError, match="not a board cache key"):
        cache.get("../../etc/passwd")


def test_the_least_recently_used_boards_go_first(tmp_path):
    cache = BoardCache(tmp_path, max_files=3)
    for i in range(3):
        cache.put(key(i), {"i": i})
        os.utime(tmp_path / f"{key(i)}.board", (time.time() - 100 + i, time.time() - 100 + i))
    BoardCache(tmp_path).get(key(0))  # used now: the newest
    cache.put(key(3), {"i": 3})
    assert sorted(p.stem for p in tmp_path.glob("*.board")) == sorted([key(0), key(2), key(3)])
    small = BoardCache(tmp_path / "small", max_bytes=1)  # one board over the byte bound: none kept on disk
    small.put(key(9), {"i": list(range(100))})
    assert list((tmp_path / "small").glob("*.board")) == [] and small.get(key(9)) == {"i": list(range(100))}
