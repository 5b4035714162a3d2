"""Module-level workers for :func:`tests.security._parallel.run_parallel` (spawned processes import them)."""

from __future__ import annotations

import threading

from board.access import auth, governance

_lock = threading.Lock()


def _gate(store, method: str, barrier) -> None:
    """Make ``store.<method>`` wait on ``barrier`` after reading: every worker has read before any
    of them goes on (the worst schedule for a read-check-write). Once per store (threads share one)."""
    with _lock:
        if getattr(store, f"_gated_{method}", False):
            return
        real = getattr(store, method)

        def gated(*args, **kwargs):
            out = real(*args, **kwargs)
            barrier.wait()
            return out

        setattr(store, method, gated)
        setattr(store, f"_gated_{method}", True)


def login(store, barrier, i, username, password, gate=False):
    """One login attempt; "ok", "throttled" or "failed".

    ``gate``: when the code under test reads the throttle with ``get_login_throttle`` (once per
    attempt), every worker reads it before any of them writes. The barrier is cyclic: the same one
    first starts the attempts together.
    """
    if gate:
        _gate(store, "get_login_throttle", barrier)
    barrier.wait()
    try:
        auth.authenticate(store, username, password)
    except auth.LoginThrottled:
        return "throttled"
    except auth.LoginFailed:
        return "failed"
    return "ok"


def first_admin(store, barrier, i, password):
    """One first-start admin creation as ``admin<i>``; "ok" or "forbidden".

    When the code under test counts the accounts first (once per call), every worker counts them
    before any of them creates one: the worst schedule for a check-then-create.
    """
    _gate(store, "count_users", barrier)
    barrier.wait()
    try:
        governance.create_first_admin(store, f"admin{i}", password)
    except governance.Forbidden:
        return "forbidden"
    return "ok"


def demote_the_other_admin(store, barrier, i, me, other, how):
    """Admin ``me`` demotes (``how`` "role") or disables ("disable") admin ``other``; "ok" or "forbidden".

    Both workers list the accounts (the last-admin check) before either writes: the worst schedule.
    """
    _gate(store, "list_users", barrier)
    barrier.wait()
    actor = auth.User(username=me, role="admin")
    try:
        if how == "role":
            governance.change_role(store, actor, other, "viewer")
        else:
            _gate(store, "get_user", barrier)
            governance.disable_user(store, actor, other)
    except governance.Forbidden:
        return "forbidden"
    return "ok"
