"""An address that names no page: the app's own note in the
reader's language instead of Streamlit's English "Page not found" dialog (board/app/not_found.py)."""

import streamlit.commands.navigation as nav

from board.app import not_found


def test_the_note_replaces_streamlits_message_with_this_streamlit():
    """If a Streamlit upgrade renames the function, this fails instead of the English dialog
    silently coming back."""
    assert not_found.install() is True
    assert nav.send_page_not_found is not_found._keep_instead


def test_the_note_is_in_the_readers_language_and_said_once(app):
    """What the replaced message keeps (the address asked for) is said above the board, in Chinese
    for a Chinese reader, and only once. The browser test drives a real mistyped address
    (tests/e2e/test_not_found_browser.py); AppTest can only ask for pages it knows."""
    at = app(None, locale="zh_CN", **{not_found.NOT_FOUND_KEY: "bord"})
    assert "没有地址为 **/bord** 的页面；现在显示的是看板。" in [i.value for i in at.info]
    at.run()
    assert not [i.value for i in at.info if "/bord" in i.value]


def test_a_viewer_is_told_the_page_may_be_one_their_role_lacks(app):
    at = app(None, user=("a-viewer", "viewer"), **{not_found.NOT_FOUND_KEY: "value-table"})
    assert (
        "There is no page at **/value-table** for your account (a mistyped address, or a page your role does "
        "not have); the board is shown instead."
    ) in [i.value for i in at.info]


def test_a_page_gone_since_the_tabs_last_run_is_said_without_an_address(app):
    """Asked for by its id (the page of a tab's earlier run, e.g. after its account's role
    changed), there is no address to name."""
    at = app(None, locale="zh_CN", **{not_found.NOT_FOUND_KEY: ""})
    assert "您的账户现在不能打开该页面；现在显示的是看板。" in [i.value for i in at.info]
