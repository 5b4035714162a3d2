"""The translation function: ``t("English text with {name}", locale, name=…)``.

The English text is the message id, so code reads as what the user sees; a catalog maps it to
another language. A message missing from a catalog shows in English (never a key or a blank).
Placeholders are filled after translation, so user-supplied names are never translated.
"""

from __future__ import annotations

__all__ = ["LOCALES", "t"]

LOCALES = {"en": "English", "zh": "中文"}

_CATALOGS: dict[str, dict[str, str]] = {"zh": {}}


def register(locale: str, messages: dict[str, str]) -> None:
    """Add translations (English message id → text) to a locale's catalog."""
    _CATALOGS.setdefault(locale, {}).update(messages)


def t(msgid: str, locale: str = "en", /, **kw) -> str:
    """``msgid`` in ``locale`` with ``{placeholders}`` filled from ``kw``."""
    text = _CATALOGS.get(locale, {}).get(msgid, msgid) if locale != "en" else msgid
    return text.format(**kw) if kw else text
