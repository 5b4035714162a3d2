"""The dataset summary's notes are all in the catalogs (board/words/notes.py lists evalcore's
English templates for the extractor) and read in Chinese."""

from board.words.notes import NOTES, note_text
from evalcore.data import NOTE_MESSAGES


def test_the_marked_notes_are_evalcores_templates():
    assert set(NOTES) == set(NOTE_MESSAGES.values())


def test_a_note_reads_in_chinese_with_its_values_untouched():
    note = {"code": "positive_event", "params": {"positive": "违约", "negative": "正常", "word": "违约"}}
    en = note_text(note, "en")
    zh = note_text(note, "zh_CN")
    assert en.startswith("违约 is the positive class")
    assert zh != en and "违约" in zh and "正常" in zh and "positive class" not in zh
