"""The render worker with a real Chromium: one browser serves every render, a dead worker or
browser is started again, a job past its timeout is stopped, and nothing it started outlives it
(found through /proc by the token every process of the worker inherits in its environment).

Needs Debian's Chromium: marked ``e2e`` (skipped without it, failed in CI)."""

import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from board.export import ExportError
from board.export.sheet import CHROMIUM, HEIGHT, WIDTH
from board.export.worker import RenderWorker

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]

# the page says its charts are ready, as the board's own script does once they are sized
PAGE = '<!DOCTYPE html><html><body data-charts="ready"><h1>Decision board</h1><p>one page</p></body></html>'
NEVER_READY = "<!DOCTYPE html><html><body><p>charts never drawn</p></body></html>"


@pytest.fixture(autouse=True)
def _chromium():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}; CI must install it (apt-get install -y chromium).")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")


@pytest.fixture
def worker():
    w = RenderWorker(timeout=30)
    yield w
    w.close()
    assert _wait_gone(w.token) == [], "the worker left processes behind"


def _processes_of(token: str) -> list[int]:
    """Live processes whose environment carries the worker's token (zombies excluded)."""
    found = []
    mark = f"EVALBOARD_RENDER_WORKER={token}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if mark in env.split(b"\0") and stat[stat.rindex(")") + 2] not in "ZX":
            found.append(int(entry))
    return found


def _wait_gone(token: str, seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := _processes_of(token)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_two_renders_share_one_browser(worker):
    first = worker.render(PAGE)
    pid, browser = worker.pid, worker.browser_pid
    assert pid and browser and browser in _processes_of(worker.token)
    second = worker.render(PAGE, ("png",))
    assert (worker.pid, worker.browser_pid) == (pid, browser)
    assert first["pdf"].startswith(b"%PDF") and b"/Count 1" in first["pdf"]
    assert _png_size(first["png"]) == _png_size(second["png"]) == (WIDTH, HEIGHT)
    assert set(second) == {"png"}


def test_a_killed_browser_is_launched_again(worker):
    worker.render(PAGE, ("png",))
    pid, browser = worker.pid, worker.browser_pid
    os.kill(browser, signal.SIGKILL)
    out = worker.render(PAGE)
    assert out["pdf"].startswith(b"%PDF")
    assert worker.pid == pid  # the same worker …
    assert worker.browser_pid not in (None, browser)  # … with a new browser


def test_a_killed_worker_is_started_again_and_takes_its_browser_along(worker):
    worker.render(PAGE, ("png",))
    pid, browser, token = worker.pid, worker.browser_pid, worker.token
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while browser in _processes_of(token) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert browser not in _processes_of(token)  # Playwright's driver closed it when the worker died
    out = worker.render(PAGE, ("pdf",))
    assert out["pdf"].startswith(b"%PDF")
    assert worker.pid not in (None, pid) and worker.browser_pid not in (None, browser)


def test_close_leaves_no_chromium(worker):
    worker.render(PAGE, ("png",))
    assert len(_processes_of(worker.token)) >= 3  # worker, Playwright's driver, Chromium and its helpers
    worker.close()
    assert _wait_gone(worker.token) == []
    assert worker.pid is None and not worker.running


def test_a_job_past_its_timeout_stops_the_worker_and_the_next_one_starts_fresh():
    w = RenderWorker(timeout=3)
    try:
        w.render(PAGE, ("png",))
        pid = w.pid
        t = time.monotonic()
        with pytest.raises(ExportError, match=r"did not finish within 3 s"):
            w.render(NEVER_READY)
        assert time.monotonic() - t < 15
        assert _wait_gone(w.token) == []  # worker and browser stopped, not left rendering
        assert w.render(PAGE, ("png",))["png"] and w.pid != pid
    finally:
        w.close()
    assert _wait_gone(w.token) == []


PARENT = """
import os, signal, sys
from board.export import worker
pdf, png = worker.render_pdf_and_png({page!r})
assert pdf.startswith(b"%PDF") and png.startswith(b"\\x89PNG")
print(worker.WORKER.token, flush=True)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)  # no atexit: the worker sees its stdin end
"""


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_the_worker_ends_with_its_parent(how):
    """A normal exit closes the worker at interpreter exit (atexit); a killed parent closes its
    stdin, which the worker takes as the signal to close its browser and exit."""
    proc = subprocess.run(
        [sys.executable, "-c", PARENT.format(page=PAGE), how],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == (0 if how == "exit" else -signal.SIGKILL), proc.stderr
    token = proc.stdout.strip()
    assert token
    assert _wait_gone(token) == []
