"""The DRAFT mark (issue 16 item 1): a board priced with a value table that is not approved says
"DRAFT — not approved" in its export's meta line (HTML, and so the PDF/PNG and a snapshot's kept
export, which are made from it); an approved version carries no mark."""

from __future__ import annotations

import re

from board import export
from tests.board.test_export import result  # noqa: F401 - the demo board, evaluated once

META = re.compile(r'<div class="meta">(.*?)</div>')


def test_a_draft_priced_export_carries_the_mark(result):  # noqa: F811
    for label in ("draft r3 (not approved)", "v2027.Q1 (pending, not approved)", "unsaved edits (not approved)"):
        meta = META.search(export.board_html(result, dataset_name="demo.csv", table_version=label)).group(1)
        assert meta.startswith("<strong class='draft-mark'") and "DRAFT — not approved</strong>" in meta, label


def test_an_approved_export_carries_no_mark(result):  # noqa: F811
    page = export.board_html(result, dataset_name="demo.csv", table_version="v2026.Q4 (approved)")
    assert "DRAFT" not in page
