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
exec .venv/bin/python -m pytest "$@"
