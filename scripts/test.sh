#!/usr/bin/env bash
# Set up (venv + requirements-dev), lint with ruff, and run the tests:
#   scripts/test.sh          the whole suite (what CI runs, via .ci/run): evalcore, board, AppTest, the slow
#                            statistical checks (on two workers), then the real-browser tests (Playwright driving
#                            /usr/bin/chromium, one process), the store tests also on a throwaway PostgreSQL
#                            cluster when one can be started
#   scripts/test.sh --fast   the quick loop: evalcore + board + AppTest without `slow` and `e2e` tests;
#                            needs neither Chromium nor PostgreSQL (uses EVALBOARD_TEST_PG_URL only if set)
# Extra arguments go to pytest, e.g. scripts/test.sh --fast -x -k drift
set -euo pipefail
FAST=""
if [ "${1:-}" = "--fast" ]; then
  FAST=1
  shift
fi
source "$(dirname "$0")/_setup.sh" requirements-dev.txt
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

# Lint (config in pyproject.toml [tool.ruff]) before any test, in both modes: blocking.
if ! .venv/bin/ruff check --quiet . || ! .venv/bin/ruff format --check --quiet .; then
  echo "Lint failed: see .venv/bin/ruff check . and .venv/bin/ruff format --diff . (ruff format . fixes the layout)." >&2
  exit 1
fi

# The layer contracts of board/ and evalcore (.importlinter): blocking, they hold today.
if [ -f .importlinter ]; then
  if ! contracts=$(.venv/bin/lint-imports --no-cache 2>&1); then
    echo "$contracts" >&2
    exit 1
  fi
fi

if [ -n "$FAST" ]; then
  # no browser, no PostgreSQL cluster: the `e2e` and `slow` marks stay for the full run. Two workers
  # (pytest-xdist) by default, at most 4; EVALBOARD_TEST_WORKERS=0 runs in one process.
  cores=$(nproc 2>/dev/null || echo 2)
  workers=${EVALBOARD_TEST_WORKERS:-$(( cores < 2 ? 1 : (cores > 4 ? 4 : cores) ))}
  exec .venv/bin/python -m pytest -m "not slow and not e2e" -n "$workers" "$@"
fi

if [ ! -x "${EVALBOARD_CHROMIUM:-/usr/bin/chromium}" ]; then
  if [ -n "${CI:-}" ]; then
    echo "Chromium is missing at ${EVALBOARD_CHROMIUM:-/usr/bin/chromium}; CI must install it (apt-get install -y chromium)." >&2
    exit 1
  fi
  echo "Note: no Chromium at /usr/bin/chromium, browser tests will be skipped (sudo apt-get install chromium)." >&2
fi
# PostgreSQL: the store and governance tests also run against a throwaway PostgreSQL cluster
# (Debian's postgresql package) when one can be started; SQLite only otherwise, except in CI.
PG_DIR=""
stop_pg() {
  if [ -n "$PG_DIR" ]; then
    $PG_AS "$PG_BIN/pg_ctl -D $PG_DIR/data -m immediate stop" >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}
if [ -z "${EVALBOARD_TEST_PG_URL:-}" ]; then
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ]; then
    PG_DIR=$(mktemp -d /tmp/evalboard-pg.XXXXXX)
    PG_PORT=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    if [ "$(id -u)" = 0 ]; then chown postgres "$PG_DIR"; PG_AS="runuser -u postgres -- sh -c"; else PG_AS="sh -c"; fi
    trap stop_pg EXIT
    if $PG_AS "$PG_BIN/initdb -D $PG_DIR/data -A trust -U postgres" >"$PG_DIR.initdb.log" 2>&1 \
       && $PG_AS "$PG_BIN/pg_ctl -D $PG_DIR/data -w -l $PG_DIR/server.log -o \"-p $PG_PORT -k $PG_DIR -c listen_addresses=''\" start" >/dev/null; then
      export EVALBOARD_TEST_PG_URL="postgresql+psycopg://postgres@/postgres?host=$PG_DIR&port=$PG_PORT"
      echo "PostgreSQL test server: $PG_DIR (port $PG_PORT)" >&2
      rm -f "$PG_DIR.initdb.log"
    else
      echo "Note: could not start PostgreSQL (see $PG_DIR.initdb.log); store tests run on SQLite only." >&2
    fi
  elif [ -z "${CI:-}" ]; then
    echo "Note: no PostgreSQL (apt-get install postgresql); store tests run on SQLite only." >&2
  fi
fi
if [ -n "${CI:-}" ] && [ -z "${EVALBOARD_TEST_PG_URL:-}" ]; then
  echo "CI must run the PostgreSQL tests: install postgresql (apt-get install -y postgresql)." >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  .venv/bin/python -m pytest "$@"
  exit
fi
# The whole suite in two passes: everything but the browser tests on two workers (pytest-xdist: each
# test has its own store, data directory and PostgreSQL database, so they do not share state), then the
# browser tests, also on two workers, a test file to a worker (--dist loadfile: a file's server is
# started once, in one worker; each worker has its own session server and Chromium). A browser test
# waits on its server much of the time, so two at once take 9 min where one at a time took 11-14.
# Both passes run; the exit code is the first failure's.
cores=$(nproc 2>/dev/null || echo 2)
workers=${EVALBOARD_TEST_WORKERS:-$(( cores < 2 ? 1 : (cores > 4 ? 4 : cores) ))}
# --durations: each pass ends with its slowest tests, so the suite's time budget (about 15 min) is
# watched where it is spent.
status=0
.venv/bin/python -m pytest -m "not e2e" -n "$workers" --durations=25 || status=$?
.venv/bin/python -m pytest -m e2e -n "$workers" --dist loadfile --durations=25 || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
exit "$status"
