#!/usr/bin/env bash
# Set up (venv + requirements-dev) and run the whole test suite: evalcore, board, AppTest
# and real-browser tests (Playwright driving Debian's /usr/bin/chromium).
# Extra arguments go to pytest, e.g. scripts/test.sh -m "not slow" -x
set -euo pipefail
source "$(dirname "$0")/_setup.sh" requirements-dev.txt
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
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
    else
      echo "Note: could not start PostgreSQL (see $PG_DIR.initdb.log); store tests run on SQLite only." >&2
    fi
    rm -f "$PG_DIR.initdb.log"
  elif [ -z "${CI:-}" ]; then
    echo "Note: no PostgreSQL (apt-get install postgresql); store tests run on SQLite only." >&2
  fi
fi
if [ -n "${CI:-}" ] && [ -z "${EVALBOARD_TEST_PG_URL:-}" ]; then
  echo "CI must run the PostgreSQL tests: install postgresql (apt-get install -y postgresql)." >&2
  exit 1
fi
.venv/bin/python -m pytest "$@"
