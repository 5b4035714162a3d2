"""The render worker: ``python -m board.export.render --serve`` keeps Playwright and one headless
Chromium open and renders board HTML files to PDF and PNG, one job per line on stdin.

It runs as a subprocess of the app (or the CLI), started by :mod:`board.export.worker`, so
Playwright's event loop never shares a thread with Streamlit's, and one browser serves every
export instead of a fresh one per render.

Protocol (one JSON object per line; replies on the original stdout, which nothing else writes to):

- at start: ``{"ready": true, "pid": …, "browser_pid": …}`` or ``{"ready": false, "error": …}``;
- ``{"op": "render", "html": PATH, "pdf": PATH|null, "png": PATH|null}`` →
  ``{"ok": true, "browser_pid": …, "seconds": …}`` or ``{"ok": false, "error": …}``; both outputs
  come from one page load, under print media, on a ``WIDTH × HEIGHT`` sheet;
- ``{"op": "ping"}`` → ``{"ok": true, "pid": …, "browser_pid": …}``;
- ``{"op": "quit"}`` or the end of stdin (the parent exited, even by a kill) → the browser is
  closed and the worker exits 0. SIGTERM kills the browser's process group and exits at once.

A browser that died (crash, kill) is launched again before the next job.

``python -m board.export.render IN.html [--pdf OUT] [--png OUT]`` renders once (for debugging).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from board.export.sheet import CHROMIUM, CHROMIUM_ARGS, HEIGHT, WIDTH

#: Every chart of the page has taken the size of its box (the page's own script says so).
CHARTS_DRAWN = "() => document.body && document.body.getAttribute('data-charts') === 'ready'"
LOAD_TIMEOUT_MS = 60_000


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return fields[0], int(fields[1])


def _alive(pid: int | None) -> bool:
    st = _stat(pid) if pid else None
    return st is not None and st[0] not in ("Z", "X")


def descendants(root: int) -> list[int]:
    """Pids of every live process below ``root`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None and st[0] not in ("Z", "X"):
                children.setdefault(st[1], []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), ()):
            out.append(c)
            todo.append(c)
    return out


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def browser_pid(root: int | None = None) -> int | None:
    """The Chromium browser process (not a renderer, GPU or zygote helper) below ``root``."""
    exe = os.path.realpath(CHROMIUM)
    for pid in descendants(root or os.getpid()):
        cmd = _cmdline(pid)
        if cmd and cmd[0] and not any(a.startswith("--type=") for a in cmd):
            first = cmd[0]
            if os.path.basename(first) in ("chromium", "chrome", "headless_shell") or os.path.realpath(first) == exe:
                return pid
    return None


class _Renderer:
    def __init__(self, pw):
        self._pw = pw
        self.browser = None
        self.pid: int | None = None

    def launch(self) -> None:
        self.close()
        self.browser = self._pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        self.pid = browser_pid()

    def ensure(self) -> None:
        if self.browser is None or not self.browser.is_connected() or not _alive(self.pid):
            self.launch()

    def close(self) -> None:
        if self.browser is not None:
            try:
                self.browser.close()
            except Exception:  # noqa: BLE001 - a dead browser cannot be closed; it is gone either way
                pass
            self.browser = None
        self.kill()

    def kill(self) -> None:
        """Kill the browser's process group (Playwright starts it as a group leader)."""
        if _alive(self.pid):
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                    break
                except OSError:
                    continue
        self.pid = None

    def render(self, src: str, pdf: str | None, png: str | None) -> None:
        ctx = self.browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
        try:
            page = ctx.new_page()
            page.emulate_media(media="print")  # the sheet's layout, for the PNG as for the PDF
            page.goto(Path(src).resolve().as_uri(), wait_until="load", timeout=LOAD_TIMEOUT_MS)
            page.wait_for_function(CHARTS_DRAWN, timeout=LOAD_TIMEOUT_MS)
            page.evaluate("document.fonts.ready.then(() => true)")
            if png:
                page.screenshot(path=png, full_page=False, type="png")
            if pdf:
                page.pdf(path=pdf, width=f"{WIDTH}px", height=f"{HEIGHT}px", print_background=True, prefer_css_page_size=True)
        finally:
            ctx.close()

    def job(self, src: str, pdf: str | None, png: str | None) -> None:
        self.ensure()
        try:
            self.render(src, pdf, png)
        except Exception:
            if self.browser is not None and self.browser.is_connected() and _alive(self.pid):
                raise
            self.launch()  # the browser died under the job: once more with a new one
            self.render(src, pdf, png)


def serve() -> int:
    # replies go to a private copy of stdout; anything printed by a library goes to stderr
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(msg: dict) -> None:
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    from playwright.sync_api import sync_playwright

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C of the server: the parent closes us
    with sync_playwright() as pw:
        r = _Renderer(pw)

        def on_term(signum, frame):  # the parent gave up on a job: no browser may outlive us
            r.kill()
            os._exit(128 + signum)

        signal.signal(signal.SIGTERM, on_term)
        try:
            r.launch()
        except Exception as err:  # noqa: BLE001 - reported to the parent, which raises ExportError
            send({"ready": False, "error": f"{type(err).__name__}: {err}"})
            return 1
        send({"ready": True, "pid": os.getpid(), "browser_pid": r.pid})
        try:
            while line := sys.stdin.readline():
                if not line.strip():
                    continue
                try:
                    job = json.loads(line)
                    op = job.get("op")
                    if op == "quit":
                        break
                    if op == "ping":
                        r.ensure()
                        send({"ok": True, "pid": os.getpid(), "browser_pid": r.pid})
                    elif op == "render":
                        t0 = time.perf_counter()
                        r.job(job["html"], job.get("pdf"), job.get("png"))
                        send({"ok": True, "browser_pid": r.pid, "seconds": round(time.perf_counter() - t0, 3)})
                    else:
                        send({"ok": False, "error": f"unknown op {op!r}"})
                except Exception as err:  # noqa: BLE001 - one failed job is reported, the worker stays
                    send({"ok": False, "error": f"{type(err).__name__}: {str(err)[-800:]}"})
        finally:
            r.close()
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m board.export.render", description=__doc__.split("\n\n")[0])
    ap.add_argument("--serve", action="store_true", help="render jobs read from stdin (the app's worker)")
    ap.add_argument("html", nargs="?", help="a board HTML file to render once")
    ap.add_argument("--pdf")
    ap.add_argument("--png")
    args = ap.parse_args(argv)
    if args.serve:
        return serve()
    if not args.html or not (args.pdf or args.png):
        ap.error("give --serve, or IN.html with --pdf and/or --png")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        r = _Renderer(pw)
        try:
            r.launch()
            r.render(args.html, args.pdf, args.png)
        finally:
            r.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
