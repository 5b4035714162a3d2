"""An address that names no page, said in the reader's language.

Streamlit answers an address that matches none of the pages ``st.navigation`` was given (a typo,
``/board`` — the board's own address is ``/`` —, or a page this account's role does not have,
such as ``/value-table`` for a viewer) by running the default page and telling the browser, which
shows its own English dialog ("Page not found … Running the app's main page"). A Chinese reader
cannot read it, and it cannot be translated: it is drawn by Streamlit's JavaScript.

:func:`install` replaces the message Streamlit sends with a note kept for the page
(:func:`notice` shows it, translated, above the page): what was asked for and what is shown
instead. It changes the one module-level function Streamlit calls for this
(``streamlit.commands.navigation.send_page_not_found``); when a Streamlit version has no such
function, nothing is changed and Streamlit's own dialog stays (``tests/app/test_not_found.py``
fails then, so an upgrade cannot lose the note silently).
"""

from __future__ import annotations

import streamlit as st

from board.app.ui import md_text
from board.words.i18n import t

NOT_FOUND_KEY = "page_not_found"  # session state: the address asked for, until notice() shows it


def _keep_instead(ctx) -> None:
    """Streamlit's ``send_page_not_found(ctx)``, as a note for :func:`notice` (nothing is sent)."""
    name = getattr(getattr(ctx, "pages_manager", None), "intended_page_name", None) or ""
    st.session_state[NOT_FOUND_KEY] = str(name)


def install() -> bool:
    """Route Streamlit's "page not found" message to :func:`notice`; True when it is (idempotent)."""
    try:
        import streamlit.commands.navigation as nav
    except ImportError:  # pragma: no cover - a Streamlit without st.navigation: its dialog stays
        return False
    if not callable(getattr(nav, "send_page_not_found", None)):
        return False
    nav.send_page_not_found = _keep_instead
    return True


def notice(locale: str, *, role_pages: bool) -> None:
    """The note for an address that named no page, once, above the page shown instead.

    ``role_pages``: the account lacks some of the app's pages (its role), so the address may be
    one of those — the note says so rather than calling it a mistake."""
    asked = st.session_state.pop(NOT_FOUND_KEY, None)
    if asked is None:
        return
    if not asked.strip("/"):  # a page of an earlier run that is gone (e.g. the account's role changed meanwhile)
        st.info(t("That page is not open to your account now; the board is shown instead.", locale), icon=":material/link_off:")
        return
    where = md_text("/" + asked.strip("/"))
    if role_pages:
        text = t(
            "There is no page at **{address}** for your account (a mistyped address, or a page your role does not "
            "have); the board is shown instead.",
            locale,
            address=where,
        )
    else:
        text = t("There is no page at **{address}**; the board is shown instead.", locale, address=where)
    st.info(text, icon=":material/link_off:")
