"""The server plumbing itself: whatever happens, a server of the suite is stopped, reaped and its
log closed, with nothing of its process group left running; and no test starts a server (or a bare
Popen / fork) another way. multiprocessing workers that are joined, as tests/security/_parallel.py
does, are not servers and are fine."""

import re
import sys
from pathlib import Path

import pytest

from tests.e2e import servers
from tests.e2e.servers import SPAWNED, ServerStartError, assert_reaped, group_members, running_server, spawned

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parents[1]


def _live(pid: int) -> bool:
    return pid in group_members(pid)


def test_a_server_is_reaped_after_its_block(tmp_path):
    with running_server(tmp_path) as srv:
        assert srv.proc.poll() is None and _live(srv.proc.pid)
    assert_reaped(srv.proc)
    assert not _live(srv.proc.pid)


def test_a_server_is_reaped_when_the_test_errors(tmp_path):
    with pytest.raises(ZeroDivisionError), running_server(tmp_path, autologin=None) as srv:
        1 / 0  # noqa: B018
    assert_reaped(srv.proc)


@pytest.mark.parametrize(
    "script", ["import sys; sys.exit(3)", "import time; time.sleep(600)"], ids=["exits-at-start", "never-healthy"]
)
def test_a_failed_start_is_reaped(tmp_path, script):
    before = len(SPAWNED)
    with (
        pytest.raises(ServerStartError),
        spawned(
            [sys.executable, "-c", script],
            env={},
            log_path=tmp_path / "log",
            health_url="http://127.0.0.1:9/none",
            startup_timeout=2,
        ),
    ):
        pytest.fail("the block must not run")  # pragma: no cover
    (proc,) = SPAWNED[before:]
    assert_reaped(proc)


def test_a_stubborn_process_and_its_children_are_killed(tmp_path, monkeypatch):
    """A leader that ignores SIGTERM and a child it started: both SIGKILLed after the wait."""
    monkeypatch.setattr(servers, "STOP_TIMEOUT", 1)
    script = (
        "import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "subprocess.Popen([sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "time.sleep(600)']); time.sleep(600)"
    )
    with spawned([sys.executable, "-c", script], env={}, log_path=tmp_path / "log", health_url=None, startup_timeout=0) as proc:
        for _ in range(300):  # python start-up on a loaded machine
            if len(group_members(proc.pid)) == 2:
                break
            servers.time.sleep(0.05)
        assert len(group_members(proc.pid)) == 2
    assert_reaped(proc)


def test_no_test_starts_a_process_its_own_way():
    """Only servers.py spawns long-lived processes (subprocess.run, which waits, is fine)."""
    pattern = re.compile(r"Popen\(|os\.fork|os\.spawn|\"streamlit\",\s*\"run\"|create_subprocess")
    offenders = [
        str(p.relative_to(TESTS))
        for p in TESTS.rglob("*.py")
        if p.name not in {"servers.py", "test_servers.py"} and pattern.search(p.read_text())
    ]
    assert not offenders, f"start servers with tests.e2e.servers.running_server: {offenders}"
