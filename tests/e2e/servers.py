"""Every `streamlit run` server of the suite comes from :func:`running_server` (no test starts
one any other way; tests/e2e/test_servers.py checks that). Its exit always stops the server's
whole process group (SIGTERM, wait, then SIGKILL and wait), reaps it and closes its log, also
when the start fails or the test errors.

A module of its own, not the conftest: pytest imports the conftest as ``e2e.conftest`` while the
tests import ``tests.e2e...``, and :data:`SPAWNED` must be one list.
"""

import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests import _warm

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 90  # s until /_stcore/health answers
STOP_TIMEOUT = 10  # s after SIGTERM (and again after SIGKILL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


E2E_ADMIN = "e2e-admin"


def create_account(data, username: str, password: str, role: str) -> None:
    """An account in the server's store (created before the server starts, or while it runs)."""
    from board.access import auth
    from board.store import Store

    with Store(data_dir=data) as s:
        if s.get_user(username) is None:
            s.create_user(username, auth.hash_password(password, rounds=4), role)


# ---- server processes -------------------------------------------------------------------------

SPAWNED: list[subprocess.Popen] = []  # every server process of this session, checked at its end


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of process group ``pgid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # exited while we looked
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(stat.parent.name))
    return found


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def stop_process(proc: subprocess.Popen) -> None:
    """Stop ``proc`` and everything it started (it leads its own process group): SIGTERM, wait
    up to STOP_TIMEOUT, then SIGKILL and wait; always reaps ``proc``. Safe to call twice."""
    try:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
    finally:
        # leftovers of the group (a render subprocess, a leader that ignored SIGTERM) get SIGKILL
        if proc.poll() is None or group_members(proc.pid):
            _signal_group(proc, signal.SIGKILL)
        proc.wait(STOP_TIMEOUT)
        deadline = time.monotonic() + STOP_TIMEOUT
        while group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def assert_reaped(proc: subprocess.Popen) -> None:
    """``proc`` has exited and been waited for, and nothing of its process group still runs."""
    assert proc.returncode is not None, f"server pid {proc.pid} is still running"
    left = group_members(proc.pid)
    assert not left, f"server pid {proc.pid} left processes behind: {left}"


@dataclasses.dataclass(frozen=True)
class Server:
    url: str
    data: Path
    proc: subprocess.Popen


#: What a server runs: serve.py (app.py plus the login-session routes, as scripts/run.sh starts it),
#: or the plain app.py (no session cookie: each tab logs in on its own).
SCRIPTS = ("serve.py", "app.py")


def _streamlit_cmd(port: int, script: str = "serve.py") -> list[str]:
    if script not in SCRIPTS:
        raise ValueError(f"script must be one of {SCRIPTS}, got {script!r}")
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--global.developmentMode",
        "false",
    ]


class ServerStartError(RuntimeError):
    """The server exited or never became healthy (it has been stopped and reaped)."""


@contextlib.contextmanager
def spawned(cmd: list[str], *, env: dict, log_path: Path, health_url: str | None, startup_timeout: float):
    """Run ``cmd`` in its own process group with its output in ``log_path``; wait until
    ``health_url`` answers "ok" (if given); yield the process. Whatever happens (a failed start,
    an error in the body), the exit stops and reaps it and closes the log."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        SPAWNED.append(proc)
        try:
            deadline = time.monotonic() + startup_timeout
            while health_url is not None:
                try:
                    if urllib.request.urlopen(health_url, timeout=2).read() == b"ok":
                        break
                except OSError:
                    pass
                if proc.poll() is not None:
                    raise ServerStartError(f"server exited with {proc.returncode}: {log_path.read_text()[-3000:]}")
                if time.monotonic() > deadline:
                    raise ServerStartError(f"server not healthy in {startup_timeout} s: {log_path.read_text()[-3000:]}")
                time.sleep(0.3)
            yield proc
        finally:
            stop_process(proc)
    assert_reaped(proc)  # only reached when the body did not raise: never hides the original error


@contextlib.contextmanager
def running_server(
    data: Path,
    *,
    autologin: str | None = E2E_ADMIN,
    startup_timeout: float = STARTUP_TIMEOUT,
    script: str = "serve.py",
    warm: bool = True,
):
    """`streamlit run serve.py` (app.py with the login-session routes, as scripts/run.sh starts it)
    on a free port with its own data folder; yields a :class:`Server`. The only way the suite
    starts a server: the exit always stops and reaps it. ``script="app.py"``: the plain app,
    without the routes.

    By default an admin account exists and every new tab is logged in as it (the test-only
    EVALBOARD_TEST_AUTOLOGIN switch), so page tests need no login; pass ``autologin=None`` to
    test the real login form (tests/e2e/test_governance_browser.py).

    The data folder's board cache starts with the demos' boards (:mod:`tests._warm`), as on a
    server that has run before; ``warm=False`` starts it empty (a first start).
    """
    data = Path(data)
    if warm:
        _warm.seed(data)
    env = {**os.environ, "EVALBOARD_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "EVALBOARD_BCRYPT_ROUNDS": "4"}
    env.pop("EVALBOARD_DB_URL", None)
    env.pop("EVALBOARD_TEST_AUTOLOGIN", None)
    if autologin:
        create_account(data, autologin, "e2e admin password", "admin")
        env["EVALBOARD_TEST_AUTOLOGIN"] = autologin
    for attempt in range(3):
        port = _free_port()  # another process may bind it before streamlit does: then start again
        url = f"http://127.0.0.1:{port}"
        with contextlib.ExitStack() as stack:
            try:
                proc = stack.enter_context(
                    spawned(
                        _streamlit_cmd(port, script),
                        env=env,
                        log_path=data / "server.log",
                        health_url=url + "/_stcore/health",
                        startup_timeout=startup_timeout,
                    )
                )
            except ServerStartError as e:  # spawned() has already stopped and reaped it
                if attempt == 2 or "is not available" not in str(e):
                    raise
                continue
            yield Server(url=url, data=data, proc=proc)  # the stack's exit stops it, also when the body raised
            return
