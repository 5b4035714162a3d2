"""Sentences evalcore words in English, read back into their parameters and said again in the
reader's language.

evalcore stays pure and English (its problems carry a ``code`` and its sentences are part of the
JSON); the presentation layer knows each sentence's English template, e.g.
``"{column} has {n} missing values"``. :class:`Templates` turns every template into a pattern
(each ``{name}`` matches any text), finds the one a sentence was made from, and renders that
template's translation with the same parameters. A sentence no template matches stays English:
never a blank, never a half-translated sentence. Pure (no Streamlit).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from board.words.i18n import is_chinese, t

__all__ = ["Templates"]

_FIELD = re.compile(r"\{(\w+)\}")


def _pattern(template: str) -> re.Pattern:
    parts, pos, seen = [], 0, set()
    for m in _FIELD.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts), re.DOTALL)


class Templates:
    """English templates (marked with ``N_`` where they are listed) and how to say them in a locale.

    ``values`` (optional) translates a parameter's text before it is filled in (e.g. a family
    name "feature" → 特征); parameters are otherwise kept as they arrived (names, numbers)."""

    def __init__(self, templates: Iterable[str], values: Callable[[str, str, str], str] | None = None):
        self._items = [(tpl, _pattern(tpl)) for tpl in templates]
        self._values = values

    def params(self, text: str) -> tuple[str, dict] | None:
        """(template, parameters) of the first template ``text`` was made from, or None."""
        for tpl, pat in self._items:
            m = pat.fullmatch(text)
            if m is not None:
                return tpl, m.groupdict()
        return None

    def say(self, text: str, locale: str) -> str:
        """``text`` in ``locale``: its template's translation with its parameters, or ``text``."""
        if not text or not is_chinese(locale):
            return text
        found = self.params(text.strip())
        if found is None:
            return text
        tpl, kw = found
        if self._values is not None:
            kw = {k: self._values(k, v, locale) for k, v in kw.items()}
        return t(tpl, locale, **kw)
