"""Boards kept across sessions and restarts, and computed before anyone asks (issue 18 item 1).

A board is a pure function of (the dataset's bytes, the value table's content, the board's
configuration, the aggregate serving it), so its result is cached under the SHA-256 of those four,
in a bounded directory under the data directory (``<data>/cache/boards``): every session and every
server process finds a board one of them computed, and a restarted server does not compute it
again. Least recently used files go first when the directory holds more than
``EVALBOARD_BOARD_CACHE_MB`` (default 1024) or 64 boards.

The files are pickles (a board holds numpy arrays and frozen dataclasses), so each is signed with
an HMAC-SHA256 under a random key kept beside them (``.key``, mode 0600): a file that was not
written by this cache (or was altered) is ignored and removed, never unpickled.

:func:`compute_in_background` computes a board on the one background thread; ``board.services.warm``
uses it for the board a fresh session opens, right after an upload, an approval or a settings
change (:func:`changed`), so the next viewer finds it ready.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import pickle
import secrets
import tempfile
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

__all__ = ["BoardCache", "cache_for", "changed", "compute_in_background", "serving_source"]

log = logging.getLogger(__name__)

MAX_FILES = 64
MEMORY_ENTRIES = 4


def _max_bytes() -> int:
    try:
        return max(1, int(os.environ.get("EVALBOARD_BOARD_CACHE_MB", "1024"))) * 1024 * 1024
    except ValueError:
        return 1024 * 1024 * 1024


_CODE_VERSION: str | None = None


def code_version() -> str:
    """SHA-256 of the source of ``evalcore`` (the math of every board number) and of this module."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        import evalcore

        h = hashlib.sha256()
        root = Path(evalcore.__file__).parent
        for p in sorted([*root.rglob("*.py"), Path(__file__)]):
            h.update(str(p.relative_to(p.parents[1] if p == Path(__file__) else root.parent)).encode())
            h.update(p.read_bytes())
        _CODE_VERSION = h.hexdigest()
    return _CODE_VERSION


class BoardCache:
    """Boards by key: the newest few in memory, all (bounded) on disk, signed."""

    def __init__(self, directory: Path | str, *, max_bytes: int | None = None, max_files: int = MAX_FILES):
        self.directory = Path(directory)
        self.max_bytes = _max_bytes() if max_bytes is None else max_bytes
        self.max_files = max_files
        self._memory: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()
        self._secret: bytes | None = None

    # ------------------------------------------------------------------ keys

    @staticmethod
    def key(dataset_sha: str, table_json: str, config_json: str, source: str) -> str:
        """The SHA-256 of what a board depends on (canonical JSON of the four) and of the code that
        computes it (:func:`code_version`: an upgraded server never serves an older code's board)."""
        text = json.dumps(
            [code_version(), dataset_sha, table_json, config_json, source], separators=(",", ":"), ensure_ascii=False
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    # ------------------------------------------------------------------ files

    def _key_file(self) -> bytes:
        if self._secret is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / ".key"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                self._secret = path.read_bytes()
            else:
                secret = secrets.token_bytes(32)
                with os.fdopen(fd, "wb") as f:
                    f.write(secret)
                self._secret = secret
        return self._secret

    def _path(self, key: str) -> Path:
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"not a board cache key: {key!r}")
        return self.directory / f"{key}.board"

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key_file(), payload, hashlib.sha256).digest()

    def get(self, key: str):
        """The board stored under ``key``, or None."""
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        path = self._path(key)
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        tag, payload = blob[:32], blob[32:]
        if len(blob) < 32 or not hmac.compare_digest(tag, self._sign(payload)):
            log.warning("board cache: %s is not signed by this cache; removed", path.name)
            path.unlink(missing_ok=True)
            return None
        try:
            result = pickle.loads(payload)  # noqa: S301 - signed by this cache (HMAC above)
        except Exception:  # noqa: BLE001 - a file of an older version of the code: compute again
            path.unlink(missing_ok=True)
            return None
        os.utime(path)  # least recently *used* goes first
        self._remember(key, result)
        return result

    def put(self, key: str, result) -> None:
        """Store ``result`` under ``key`` (atomically: a reader sees the whole file or none)."""
        self._remember(key, result)
        payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        path = self._path(key)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self._sign(payload))
                f.write(payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.prune()

    def _remember(self, key: str, result) -> None:
        with self._lock:
            self._memory[key] = result
            self._memory.move_to_end(key)
            while len(self._memory) > MEMORY_ENTRIES:
                self._memory.popitem(last=False)

    def prune(self) -> None:
        """Remove the least recently used files beyond the size and count bounds."""
        files = []
        for p in self.directory.glob("*.board"):
            try:
                st = p.stat()
            except OSError:
                continue
            files.append((st.st_mtime, st.st_size, p))
        files.sort(reverse=True)  # newest first
        total = 0
        for i, (_, size, p) in enumerate(files):
            total += size
            if i >= self.max_files or total > self.max_bytes:
                p.unlink(missing_ok=True)

    def __contains__(self, key: str) -> bool:
        with self._lock:
            if key in self._memory:
                return True
        return self._path(key).exists()


_CACHES: dict[str, BoardCache] = {}
_CACHES_LOCK = threading.Lock()


def cache_for(store) -> BoardCache:
    """The one cache of ``store``'s data directory in this process."""
    directory = str(Path(store.data_dir) / "cache" / "boards")
    with _CACHES_LOCK:
        if directory not in _CACHES:
            _CACHES[directory] = BoardCache(directory)
        return _CACHES[directory]


# --------------------------------------------------------------------------- changes that call for a new board

_LISTENERS: list = []


def changed(store, dataset_id: int) -> None:
    """Say that ``dataset_id``'s board changed (an upload, a settings change, a first start): the
    listeners (:func:`board.services.warm.precompute`, registered when ``board.services`` is
    imported) start computing it. Here, not in ``warm``, so the services that report a change
    do not import the ones that compute boards (no import cycle)."""
    for listener in list(_LISTENERS):
        listener(store, dataset_id)


def aggregate_key(dataset_sha: str, kind: str, settings_json: str) -> str:
    """The cache key of an upload's aggregate: ``kind`` "rows" (the one every page reads, with its
    drift settings) or "serving" (counted for a board configuration)."""
    return BoardCache.key(dataset_sha, f"aggregate:{kind}", settings_json, "rows")


def cached_aggregate(store, key: str, count):
    """The aggregate under ``key`` in ``store``'s cache, else ``count()`` kept there."""
    cache = cache_for(store)
    hit = cache.get(key)
    if hit is None:
        hit = count()
        cache.put(key, hit)
    return hit


def serving_source(rec, data, config) -> str:
    """Which aggregate serves ``config`` (part of the cache key): "rows" (an upload's rows counted
    for it), "stored" (a registered path's stored aggregate) or the options it is aggregated again with."""
    if not rec.is_aggregate:
        return "rows"
    from board.engines.lake import reaggregation_for

    options = reaggregation_for(data, rec.options or {}, config)
    return "stored" if options is None else json.dumps(options, sort_keys=True)


def table_json(table) -> str:
    return json.dumps(table.to_dict(), sort_keys=True)


def config_json(config) -> str:
    return json.dumps(config.to_dict(), sort_keys=True)


def compute(agg, table, config, source: str, counts: dict | None = None):
    """The board of ``agg`` (the aggregate serving ``config``), as the board page shows it."""
    import dataclasses

    from evalcore.aggregate import evaluate_aggregate

    result = evaluate_aggregate(agg, table, config, counts=counts)
    return dataclasses.replace(result, aggregate=None) if source == "rows" else result  # rows state no engine


_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalboard-precompute")


_JOBS: dict[str, Future] = {}


def compute_in_background(store, key: str, agg, table, config, source: str) -> Future:
    """The board of ``agg`` computed on the background thread into ``store``'s cache under ``key``
    (one job per key: a second viewer waits for the same one). The future's value is the key; a
    failure is kept in it for the page to report."""
    with _CACHES_LOCK:
        running = _JOBS.get(key)
        if running is not None and not (running.done() and running.exception() is not None):
            return running

        def job():
            _test_gate()
            cache_for(store).put(key, compute(agg, table, config, source))
            return key

        _JOBS[key] = fut = _EXECUTOR.submit(job)
        for k in [k for k, f in _JOBS.items() if f.done() and k != key]:  # finished jobs: their boards are cached
            del _JOBS[k]
        return fut


def _test_gate(timeout: float = 600.0) -> None:
    """Test-only (like EVALBOARD_TEST_AUTOLOGIN): with ``EVALBOARD_TEST_BOARD_GATE=<file>`` set, a
    background board waits until that file exists, so a browser test can read the point board
    while the intervals are still computing without timing anything."""
    gate = os.environ.get("EVALBOARD_TEST_BOARD_GATE")
    if not gate:
        return
    import time

    deadline = time.monotonic() + timeout
    while not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
