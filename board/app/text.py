"""User-supplied text made safe for Streamlit's Markdown and for HTML (no Streamlit import)."""

from __future__ import annotations

import html
import re

__all__ = ["WORD_JOINER", "file_stem", "html_text", "md_text"]

# Markdown (CommonMark + GitHub's extensions) and Streamlit's additions give these a meaning
# anywhere: links/images/directives ([ ]), emphasis (* ~, _ at a word edge), code (`), HTML and
# entities (< > &), tables (|), LaTeX ($), the escape itself (\\). CommonMark allows a backslash
# before any ASCII punctuation and shows the character.
_MD_INLINE = re.compile(r"([\\`*\[\]<>~$&|])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MD_BLOCK_START = re.compile(r"^(?:([#>+=-])|(\d+)([.)]))")  # a heading, quote, list or rule
# GitHub's autolinks are found in the parsed text (after escapes are resolved), so a word joiner
# (U+2060, invisible) breaks "http://", "www." and "a@b.c" instead
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)
WORD_JOINER = "\u2060"


def md_text(s) -> str:
    """User-supplied text (a dataset, model, table, version, column, segment or user name, a
    reason, a file name, a message that quotes one) for any Streamlit element that renders
    Markdown (bodies, labels, captions, alerts, metric labels, tabs, expanders): shown as the
    literal text, never as a link, image, HTML, directive or formatting. Line breaks become spaces
    (a newline would start a new Markdown block)."""
    text = " ".join(str(s).split())
    text = _MD_INLINE.sub(lambda m: "\\" + m.group(0), text)
    text = _MD_BLOCK_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3), text)
    return _AUTOLINK.sub(WORD_JOINER, text)


def html_text(s) -> str:
    """User-supplied text inside an HTML block given to ``st.markdown(..., unsafe_allow_html=True)``
    (a body that starts with a tag such as ``<div>``): HTML-escaped, on one line. Markdown and
    Streamlit's directives are not read inside an HTML block, which only a blank line ends; the
    user's text therefore never carries a line break."""
    return html.escape(" ".join(str(s).split()), quote=True)


def file_stem(s) -> str:
    """A user-supplied name made safe for a download's file name (letters, digits, . _ - only)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(s)).strip("._") or "x"
