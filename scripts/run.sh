#!/usr/bin/env bash
# Set up (venv + requirements) and open evalboard on the demo data at http://localhost:8501
set -euo pipefail
source "$(dirname "$0")/_setup.sh" requirements.txt
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
echo "evalboard: http://localhost:${PORT:-8501}  (demo data loads on first start; Ctrl+C stops)"
# serve.py is app.py plus the routes that keep a login across reloads and shared links (an st.App;
# `streamlit run` serves it with uvicorn, with the same --server.* options). Plain app.py still
# runs, with a login per browser tab.
exec .venv/bin/python -m streamlit run serve.py --server.port "${PORT:-8501}" "$@"
