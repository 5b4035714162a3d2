"""The two HTTP routes of login sessions, served next to Streamlit by ``st.App`` (see ``serve.py``).

A Streamlit script cannot set an HttpOnly cookie, so a login hands its browser a one-time grant
(``board.access.auth.start_session``) and the page posts it here (:func:`grant_script`, a
``fetch`` run by ``st.html``); this process answers with the cookie. ``st.context.cookies`` gives
the cookie to every later tab and reload (app.py ``current_user``).

``POST <base>/_evalboard/session`` (body: the grant)
    Exchanges the grant once, within ``auth.GRANT_SECONDS``, for the session id in a cookie
    (``auth.SESSION_COOKIE``: HttpOnly, SameSite=Strict, Path=/, Secure when the request came over
    HTTPS -- directly, or through a proxy that says so with ``X-Forwarded-Proto: https``; Max-Age
    the session's remaining absolute lifetime). 204, or 403 without saying why.
``POST <base>/_evalboard/logout``
    Revokes the session of the request's cookie (audited) and clears the cookie. 204, or 403.

Both refuse any request whose ``Origin`` is not this server's own (scheme and host as the
browser sees them: the ``Host`` header, or ``X-Forwarded-Host`` from a proxy) or whose
``Sec-Fetch-Site`` is not ``same-origin`` (CSRF). Database work runs in a worker thread, on a
store of its own (same database as the app's).

Served without these routes (``streamlit run app.py``), :func:`routes_active` is False: a login
then lasts as long as its tab, as before, and no page tries to reach them.
"""

from __future__ import annotations

import json
import os
import threading
from urllib.parse import urlsplit

from board.access import auth
from board.store import Store

__all__ = [
    "LOGOUT_PATH",
    "SESSION_PATH",
    "clear_cookie_script",
    "grant_script",
    "routes_active",
    "session_routes",
]

SESSION_PATH = "_evalboard/session"
LOGOUT_PATH = "_evalboard/logout"
_MAX_BODY = 200  # bytes of a grant (token_urlsafe(32) has 43)
_DEFAULT_PORTS = {"http": "80", "https": "443"}

_active = False
_store: Store | None = None
_store_lock = threading.Lock()


def routes_active() -> bool:
    """Whether this process serves the session routes (started by ``serve.py``, not plain app.py)."""
    return _active


def _base() -> str:
    from streamlit import config

    return (config.get_option("server.baseUrlPath") or "").strip("/")


def _url(path: str) -> str:
    base = _base()
    return f"/{base}/{path}" if base else f"/{path}"


def _route_store() -> Store:
    global _store
    with _store_lock:
        if _store is None:
            _store = Store(url=os.environ.get("EVALBOARD_DB_URL"), data_dir=os.environ.get("EVALBOARD_DATA_DIR"))
        return _store


def _netloc(scheme: str, host: str) -> str:
    """``host[:port]`` in lower case, without the scheme's default port."""
    host = host.strip().lower()
    port = _DEFAULT_PORTS.get(scheme)
    if port and host.endswith(f":{port}") and not host.endswith("]"):
        host = host[: -len(port) - 1]
    return host


def same_origin(headers) -> bool:
    """Whether a request's headers say it comes from a page of this server (CSRF defence).

    ``Origin`` must be present and name this host (``Host``, or a proxy's ``X-Forwarded-Host``);
    ``Sec-Fetch-Site``, when the browser sends it, must be ``same-origin``.
    """
    origin = headers.get("origin")
    if not origin or origin == "null":
        return False
    site = headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return False
    parts = urlsplit(origin)
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc or parts.path not in ("", "/"):
        return False
    hosts = [headers.get("host", "")]
    forwarded = headers.get("x-forwarded-host")
    if forwarded:
        hosts.append(forwarded.split(",")[0])
    want = _netloc(parts.scheme, parts.netloc)
    return any(h.strip() and _netloc(parts.scheme, h) == want for h in hosts)


def _https(request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "")
    return request.url.scheme == "https" or forwarded.split(",")[0].strip().lower() == "https"


def _refused():
    from starlette.responses import Response

    return Response("refused", status_code=403, media_type="text/plain", headers={"Cache-Control": "no-store"})


def _no_content():
    from starlette.responses import Response

    return Response(status_code=204, headers={"Cache-Control": "no-store"})


async def _session(request):
    """POST: a login's one-time grant in, the session cookie out."""
    from datetime import datetime, timezone

    from starlette.concurrency import run_in_threadpool

    if not same_origin(request.headers):
        return _refused()
    body = await request.body()
    if not body or len(body) > _MAX_BODY:
        return _refused()
    try:
        grant = body.decode("ascii").strip()
    except UnicodeDecodeError:
        return _refused()
    redeemed = await run_in_threadpool(auth.redeem_grant, _route_store(), grant)
    if redeemed is None:
        return _refused()
    token, expires_at = redeemed
    max_age = max(1, int((expires_at - datetime.now(timezone.utc)).total_seconds()))
    response = _no_content()
    response.set_cookie(
        auth.SESSION_COOKIE, token, max_age=max_age, path="/", secure=_https(request), httponly=True, samesite="strict"
    )
    return response


async def _logout(request):
    """POST: revoke the session of the request's cookie and clear the cookie."""
    from starlette.concurrency import run_in_threadpool

    if not same_origin(request.headers):
        return _refused()
    token = request.cookies.get(auth.SESSION_COOKIE)
    if token:
        await run_in_threadpool(auth.end_session_by_token, _route_store(), token)
    response = _no_content()
    response.delete_cookie(auth.SESSION_COOKIE, path="/", secure=_https(request), httponly=True, samesite="strict")
    return response


def session_routes() -> list:
    """The Starlette routes to pass to ``st.App(routes=...)``; marks this process as serving them."""
    global _active
    from starlette.routing import Route

    _active = True
    return [
        Route(_url(SESSION_PATH), _session, methods=["POST"], name="evalboard_session"),
        Route(_url(LOGOUT_PATH), _logout, methods=["POST"], name="evalboard_logout"),
    ]


def _js(value: str) -> str:
    return json.dumps(value).replace("<", "\\u003c")  # never ends the <script> element


def _post_script(path: str, body: str | None) -> str:
    payload = "" if body is None else f", body: {_js(body)}"
    return (
        "<script>"
        f"fetch({_js(_url(path))}, {{method: 'POST', credentials: 'same-origin', cache: 'no-store', "
        f"headers: {{'Content-Type': 'text/plain'}}{payload}}}).catch(function () {{}});"
        "</script>"
    )


def grant_script(grant: str) -> str:
    """HTML whose script posts a login's grant to the session route (the browser gets its cookie)."""
    return _post_script(SESSION_PATH, grant)


def clear_cookie_script() -> str:
    """HTML whose script asks the logout route to revoke the cookie's session and clear it."""
    return _post_script(LOGOUT_PATH, None)
