"""The dataset summary's notes (``evalcore.data.NOTE_MESSAGES``: the positive class chosen, the
time column's form) marked for the translation catalogs: evalcore keeps its English templates as
data, which the extractor cannot see; the same texts are listed here with ``N_`` so every one has
a zh_CN translation (tests/words/test_notes.py keeps the two lists equal). Pure."""

from __future__ import annotations

from board.words.i18n import N_, t

__all__ = ["NOTES", "note_text"]

NOTES = (
    N_("{positive} is the positive class (the event to act on), as chosen; {negative} is the negative class."),
    N_(
        "{positive} is the positive class (the event to act on): of the label values {positive} and "
        "{negative}, it is the one that means yes."
    ),
    N_("{positive} is the positive class (the event to act on): it names the event ({word}); {negative} is the negative class."),
    N_("{column} holds years ({first} to {last}): each row counts as 1 January of its year, and drift windows are whole years."),
    N_(
        "{column} holds year-months ({first} to {last}): each row counts as the 1st of its month, and "
        "drift windows are whole months."
    ),
    N_("{column} holds dates ({first} to {last}); drift windows are whole days."),
    N_("{column} holds timestamps ({first} to {last}); drift windows are whole days."),
)


def note_text(note: dict, locale: str = "en", escape=lambda s: s) -> str:
    """One note of ``summary()["notes"]`` (``{"code", "params"}``) in ``locale``; parameters
    (column names, label values) pass through ``escape`` and are never translated."""
    from evalcore.data import NOTE_MESSAGES

    return t(NOTE_MESSAGES[note["code"]], locale, **{k: escape(str(v)) for k, v in note["params"].items()})
