"""Run one function in N threads or N spawned processes that start together (issue 17 security tests).

Every worker opens its own :class:`board.store.Store` (processes) or shares one (threads, as Streamlit
does), waits on a barrier so the attempts overlap, and reports ``(index, outcome)``. Processes are
always joined, and terminated if still alive, before :func:`run_parallel` returns.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import sys
import threading
from collections.abc import Callable

from board.store import Store

TIMEOUT = 120  # seconds a worker may take before the test gives up (a hang, not a timing check)


def run_parallel(mode: str, worker: Callable, n: int, url: str, data_dir: str, args: list[tuple]) -> list:
    """Outcomes of ``worker(store, barrier, i, *args[i])`` for i < n, in index order.

    ``mode`` is "threads" (one shared Store) or "processes" (spawn; each opens its own Store on ``url``).
    ``worker`` must be a module-level function (spawn pickles it by name).
    """
    assert len(args) == n
    if mode == "threads":
        barrier = threading.Barrier(n, timeout=TIMEOUT)
        out: dict[int, object] = {}
        with Store(url=url, data_dir=data_dir) as store:
            threads = [threading.Thread(target=_thread_entry, args=(worker, store, barrier, i, args[i], out)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(TIMEOUT)
        assert len(out) == n, f"only {len(out)} of {n} threads finished"
        return [out[i] for i in range(n)]
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(n, timeout=TIMEOUT)
    results = ctx.Queue()
    procs = [ctx.Process(target=_process_entry, args=(worker, url, data_dir, barrier, i, args[i], results)) for i in range(n)]
    try:
        with _main_not_rerun():
            for p in procs:
                p.start()
        got = dict(results.get(timeout=TIMEOUT) for _ in procs)
        for p in procs:
            p.join(TIMEOUT)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()
        results.close()
        results.join_thread()
    return [got[i] for i in range(n)]


def _thread_entry(worker, store, barrier, i, args, out) -> None:
    try:
        out[i] = worker(store, barrier, i, *args)
    except BaseException as err:  # noqa: BLE001 - reported as the outcome, asserted by the test
        out[i] = ("error", repr(err))


def _process_entry(worker, url, data_dir, barrier, i, args, results) -> None:
    try:
        with Store(url=url, data_dir=data_dir) as store:
            outcome = worker(store, barrier, i, *args)
    except BaseException as err:  # noqa: BLE001
        outcome = ("error", repr(err))
    results.put((i, outcome))


@contextlib.contextmanager
def _main_not_rerun():
    """Start spawned children without re-running ``__main__`` from its path.

    ``spawn`` runs the parent's ``__main__.__file__`` again in every child. In a test session that
    has run an AppTest, ``__main__`` is the Streamlit script (app.py), which then runs in each child
    without a session and dies before the worker starts (the test waits for a result that never
    comes). The workers are importable by module name, so the children need nothing from ``__main__``.
    """
    main = sys.modules["__main__"]
    path = main.__dict__.pop("__file__", None)
    try:
        yield
    finally:
        if path is not None:
            main.__file__ = path
