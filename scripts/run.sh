#!/usr/bin/env bash
# Set up (venv + requirements) and open evalboard on the demo data at http://localhost:8501
set -euo pipefail
source "$(dirname "$0")/_setup.sh" requirements.txt
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
echo "evalboard: http://localhost:${PORT:-8501}  (demo data loads on first start; Ctrl+C stops)"
exec .venv/bin/python -m streamlit run app.py --server.port "${PORT:-8501}" "$@"
