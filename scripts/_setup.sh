# Sourced by run.sh and test.sh: create .venv and install the given requirements file,
# skipping the install when nothing changed since the last one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
req="$1"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $($PY --version)…"
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$(basename "$req")"
want=$(cat requirements*.txt | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Installing $req into .venv…"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$req"
  echo "$want" > "$stamp"
fi
