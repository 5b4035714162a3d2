"""Offline (issue 14, item 7): on a bank intranet no request may leave the server or the browser.

Every request the browser makes while a person logs in and walks through the pages must go to
the app's own loopback host: no Google font or icon (Streamlit fetches a ``:material/…:``
favicon from fonts.gstatic.com), no CDN, no telemetry.
"""

from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import new_tab, wait_for_app

pytestmark = pytest.mark.e2e

LOCAL = {"127.0.0.1", "localhost", "::1", "[::1]"}
PAGES = ["", "/threshold", "/uncertainty", "/calibration", "/drift", "/value-table"]


def test_no_request_leaves_the_loopback_host(browser, server):
    ctx, page = new_tab(browser)
    outside = []

    def record(request):
        host = urlparse(request.url).hostname or ""
        if request.url.startswith(("data:", "blob:", "about:")) or host in LOCAL:
            return
        outside.append(request.url)

    page.on("request", record)
    try:
        for path in PAGES:
            page.goto(server + path)
            wait_for_app(page)
            page.wait_for_timeout(500)  # late favicon and font requests
    finally:
        ctx.close()
    assert outside == [], f"requests to non-local hosts: {sorted(set(outside))[:10]}"
