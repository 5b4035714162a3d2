"""How evalboard is served: app.py plus the login-session routes (board/app/server.py).

``streamlit run serve.py`` (scripts/run.sh) finds the ``st.App`` below and runs it with uvicorn,
with every ``--server.*`` option as for app.py; so does ``uvicorn serve:app``. Streamlit's own
endpoints (the page, static files, websocket, media and uploads, health) are served exactly as by
``streamlit run app.py``, which still works too: without these routes a login lasts as long as
its browser tab.
"""

import streamlit as st

from board.app.server import session_routes

app = st.App("app.py", routes=session_routes())
