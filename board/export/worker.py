"""PDF and PNG of a board HTML through one long-lived headless Chromium.

:class:`RenderWorker` runs ``python -m board.export.render --serve`` (:mod:`board.export.render`)
as a subprocess, started on first use, and sends it one job per render: the browser stays open
between renders, so only the first one pays for starting it. One job at a time (a lock); a job
that takes longer than ``timeout`` seconds gets the worker killed and an :class:`ExportError`;
a worker that died is started again on the next job (a job it died under is retried once). At
interpreter exit (``atexit``) the worker is asked to quit, which closes the browser; if the
parent is killed instead, the worker sees its stdin end and quits the same way.

Everyone shares :data:`WORKER` through :func:`render_pdf_and_png`, :func:`render_bytes` and
:func:`write_pdf`.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from board.export.sheet import CHROMIUM, ExportError, chromium_missing

__all__ = ["RenderWorker", "WORKER", "close_worker", "render_bytes", "render_pdf_and_png", "write_pdf"]

#: Seconds a render may take (EVALBOARD_EXPORT_TIMEOUT); starting the browser has its own budget.
JOB_TIMEOUT = float(os.environ.get("EVALBOARD_EXPORT_TIMEOUT", "60"))
START_TIMEOUT = 60.0

_LIVE: weakref.WeakSet = weakref.WeakSet()


class _Died(Exception):
    """The worker process ended without answering."""


class RenderWorker:
    """One render subprocess holding one headless Chromium (see the module docstring).

    Attributes
    ----------
    pid : int or None
        The worker process, while it runs.
    browser_pid : int or None
        Its Chromium browser process, as of the last reply.
    token : str
        Set as ``EVALBOARD_RENDER_WORKER`` in the environment of the worker, which every process
        it starts inherits (Chromium's helpers and crash handler too): how a test finds them all.
    """

    def __init__(self, *, timeout: float = JOB_TIMEOUT, start_timeout: float = START_TIMEOUT, chromium: str = CHROMIUM):
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.chromium = chromium
        self.pid: int | None = None
        self.browser_pid: int | None = None
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._owner: int | None = None  # the process that started it (a fork must not share the pipes)
        self._buf = b""
        self._log = None
        self.token = f"{os.getpid()}-{id(self):x}-{secrets.token_hex(4)}"
        _LIVE.add(self)

    # ------------------------------------------------------------------ public

    def render(self, html_text: str, kinds=("pdf", "png")) -> dict[str, bytes]:
        """``{kind: bytes}`` for each of ``kinds`` ("pdf", "png"), all from one page load."""
        kinds = tuple(kinds)
        if not kinds or set(kinds) - {"pdf", "png"}:
            raise ValueError(f"kinds: 'pdf' and/or 'png', got {kinds!r}")
        missing = chromium_missing(self.chromium)
        if missing is not None:
            raise missing
        if not self._lock.acquire(timeout=self.timeout + self.start_timeout):
            raise ExportError("Another export is still rendering; try again in a moment.")
        try:
            with tempfile.TemporaryDirectory(prefix="evalboard-export-") as d:
                src = Path(d) / "board.html"
                src.write_text(html_text, encoding="utf-8")
                outs = {k: Path(d) / f"board.{k}" for k in kinds}
                job = {"op": "render", "html": str(src), "pdf": None, "png": None}
                job.update({k: str(p) for k, p in outs.items()})
                for attempt in (1, 2):
                    self._ensure_started()
                    try:
                        reply = self._ask(job, self.timeout)
                        break
                    except _Died as died:
                        self._reap()
                        if attempt == 2:
                            raise ExportError(f"The Chromium renderer stopped during the export: {died}") from None
                if not reply.get("ok"):
                    raise ExportError(f"Chromium could not render the board: {reply.get('error', 'no reason given')}")
                missing_out = [k for k, p in outs.items() if not p.exists()]
                if missing_out:
                    raise ExportError(f"Chromium rendered no {' or '.join(k.upper() for k in missing_out)}.")
                return {k: p.read_bytes() for k, p in outs.items()}
        finally:
            self._lock.release()

    def ping(self) -> dict:
        """Start the worker if needed and return its pids (``pid``, ``browser_pid``)."""
        missing = chromium_missing(self.chromium)
        if missing is not None:
            raise missing
        with self._lock:
            self._ensure_started()
            try:
                return self._ask({"op": "ping"}, self.start_timeout)
            except _Died as died:
                self._reap()
                raise ExportError(f"The Chromium renderer stopped: {died}") from None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and self._owner == os.getpid()

    def close(self, timeout: float = 15.0) -> None:
        """Ask the worker to close its browser and exit; kill it if it does not within ``timeout``."""
        proc = self._proc
        if proc is None or self._owner != os.getpid():
            self._proc = None
            return
        if proc.poll() is None:
            try:
                proc.stdin.write(b'{"op": "quit"}\n')
                proc.stdin.flush()
                proc.stdin.close()  # and the end of its stdin, should it be mid-job
            except OSError:
                pass
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._kill()
        self._reap()

    # ----------------------------------------------------------------- private

    def _ensure_started(self) -> None:
        if self.running:
            return
        self._reap()
        self._log = tempfile.TemporaryFile(prefix="evalboard-render-", suffix=".log")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "board.export.render", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env={**os.environ, "EVALBOARD_CHROMIUM": self.chromium, "EVALBOARD_RENDER_WORKER": self.token},
            cwd=str(Path(__file__).resolve().parents[2]),  # board importable whatever the caller's cwd
        )
        self._owner = os.getpid()
        self._buf = b""
        try:
            hello = self._read(self.start_timeout)
        except _Died as died:
            self._reap()
            raise ExportError(f"The Chromium renderer did not start: {died}") from None
        except ExportError:
            self._kill()
            self._reap()
            raise
        if not hello.get("ready"):
            self.close()
            raise ExportError(f"Chromium could not be started for the export: {hello.get('error', 'no reason given')}")
        self.pid, self.browser_pid = hello.get("pid"), hello.get("browser_pid")

    def _ask(self, msg: dict, timeout: float) -> dict:
        try:
            self._proc.stdin.write((json.dumps(msg) + "\n").encode())
            self._proc.stdin.flush()
        except OSError as err:
            raise _Died(f"could not send the job ({err})") from None
        try:
            reply = self._read(timeout)
        except ExportError:
            self._kill()
            self._reap()
            raise
        if "browser_pid" in reply:
            self.browser_pid = reply["browser_pid"]
        return reply

    def _read(self, timeout: float) -> dict:
        """The next reply line; ExportError after ``timeout`` s, _Died if the worker ended."""
        deadline = time.monotonic() + timeout
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ExportError(
                    f"Chromium did not finish within {timeout:g} s; the renderer was stopped and will start "
                    "again on the next export."
                )
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise _Died(self._why_dead())
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _why_dead(self) -> str:
        code = None
        try:
            code = self._proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        tail = ""
        if self._log is not None:
            try:
                self._log.seek(0)
                tail = self._log.read()[-600:].decode(errors="replace").strip()
            except OSError:
                pass
        return f"exit code {code}" + (f": {tail}" if tail else "")

    def _kill(self) -> None:
        """SIGTERM (the worker kills its browser's group and exits), then SIGKILL if need be."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
            if self.browser_pid:  # the worker could not kill it: do it here
                try:
                    os.killpg(self.browser_pid, signal.SIGKILL)
                except OSError:
                    pass

    def _reap(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and self._owner == os.getpid():
            for f in (proc.stdin, proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        self.pid = self.browser_pid = None
        self._buf = b""


WORKER = RenderWorker()


@atexit.register
def _close_all() -> None:
    for w in list(_LIVE):
        w.close()


def close_worker() -> None:
    """Close the shared worker (its browser too); the next export starts a new one."""
    WORKER.close()


def render_pdf_and_png(html_text: str) -> tuple[bytes, bytes]:
    """(PDF bytes, PNG bytes) of a board HTML: one page load in the shared Chromium."""
    out = WORKER.render(html_text, ("pdf", "png"))
    return out["pdf"], out["png"]


def render_bytes(html_text: str, kind: str) -> bytes:
    """The PDF or PNG (``kind``) of a board HTML."""
    if kind not in ("pdf", "png"):
        raise ValueError(f"kind: 'pdf' or 'png', got {kind!r}")
    return WORKER.render(html_text, (kind,))[kind]


def write_pdf(result, path, **kw) -> Path:
    """The board of ``result`` as a one-page PDF at ``path`` (written atomically); ``kw`` as
    :func:`board.export.board_html`."""
    from board.export.onepager import board_html

    path = Path(path)
    data = render_bytes(board_html(result, **kw), "pdf")
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path
