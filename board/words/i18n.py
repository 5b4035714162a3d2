"""The translation functions: ``t("English text with {name}", locale, name=…)`` and its plural
``tn("{n} row", "{n} rows", n, locale)``, backed by gettext catalogs managed with Babel.

The English text is the message id, so code reads as what the user sees; the catalogs in
``board/locale/<locale>/LC_MESSAGES/*.po`` map it to another language. A message missing from a
catalog shows in English (never a key or a blank). Placeholders are named (``{name}``) and filled
after translation, so user-supplied names are never translated.

Every ``.po`` (and a ``.mo`` without its ``.po``) in a locale's directory is loaded and chained,
whatever its domain: a module may bring its own catalog file (``upload.po`` next to
``messages.po``) without editing another's. The ``.po`` files are the source of truth and are
compiled in memory when first needed (fuzzy entries are left out, as ``msgfmt`` does), so a clean
clone needs no build step; ``pybabel compile`` still works for tools that want ``.mo`` files.

Updating the catalogs (see README, "语言 / Language")::

    pybabel extract -F babel.cfg -k t -k tn:1,2 -k N_ -o board/locale/messages.pot .
    pybabel update -i board/locale/messages.pot -d board/locale -l zh_CN
    # translate the new entries in board/locale/zh_CN/LC_MESSAGES/messages.po

Locale codes: "en" and "zh_CN"; :func:`normalize` also accepts "zh", "zh-CN", "zh-Hans", "en-US" …
"""

from __future__ import annotations

import gettext
import io
import os
import threading
from pathlib import Path

__all__ = [
    "DEFAULT_LOCALE",
    "LANG_ENV",
    "LOCALES",
    "LOCALE_DIR",
    "N_",
    "default_locale",
    "from_accept_language",
    "is_chinese",
    "normalize",
    "t",
    "tn",
]

#: The languages offered, by code, each named in itself (the language switch shows these).
LOCALES = {"zh_CN": "简体中文", "en": "English"}
DEFAULT_LOCALE = "en"
LANG_ENV = "EVALBOARD_LANG"  # a deployment's default language ("zh-CN", "en")
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"

_lock = threading.Lock()
_loaded: dict[str, gettext.NullTranslations] = {}


def N_(msgid: str) -> str:
    """Mark a message for extraction where it is defined (a table of messages); it is
    translated where it is shown, with ``t(variable, locale)``."""
    return msgid


def normalize(code) -> str | None:
    """A supported locale code for ``code`` ("zh", "zh-CN", "zh_cn", "zh-Hans-CN" → "zh_CN";
    "en", "en-US" → "en"), or None when it names no supported language."""
    if not code:
        return None
    parts = str(code).strip().replace("_", "-").lower().split("-")
    if parts[0] == "zh" and not any(p in ("tw", "hk", "mo", "hant") for p in parts[1:]):
        return "zh_CN"
    if parts[0] == "en":
        return "en"
    return None


def is_chinese(locale) -> bool:
    return normalize(locale) == "zh_CN"


def from_accept_language(header: str | None) -> str | None:
    """The best supported language of a browser's ``Accept-Language`` header
    ("zh-CN,zh;q=0.9,en;q=0.8" → "zh_CN"), or None."""
    if not header:
        return None
    ranked = []
    for i, item in enumerate(str(header).split(",")):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for p in params.split(";"):
            name, _, value = p.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            ranked.append((-q, i, tag.strip()))
    for _, _, tag in sorted(ranked):
        found = normalize(tag)
        if found is not None:
            return found
    return None


def default_locale() -> str:
    """The deployment's default: ``EVALBOARD_LANG`` when it names a supported language, else English."""
    return normalize(os.environ.get(LANG_ENV)) or DEFAULT_LOCALE


def _compile(po_path: Path) -> gettext.GNUTranslations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path.open("rb") as f:
        catalog = read_po(f, locale=po_path.parent.parent.name)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def _load(locale: str) -> gettext.NullTranslations:
    """Every catalog of ``locale`` chained (domains in name order; the first that has a message wins)."""
    folder = LOCALE_DIR / locale / "LC_MESSAGES"
    chain: list[gettext.NullTranslations] = []
    if folder.is_dir():
        po = {p.stem: p for p in folder.glob("*.po")}
        mo = {p.stem: p for p in folder.glob("*.mo")}
        for domain in sorted(set(po) | set(mo)):
            if domain in po:
                chain.append(_compile(po[domain]))
            else:
                with mo[domain].open("rb") as f:
                    chain.append(gettext.GNUTranslations(f))
    if not chain:
        return gettext.NullTranslations()
    for first, nxt in zip(chain, chain[1:], strict=False):
        first.add_fallback(nxt)
    return chain[0]


def translations(locale: str) -> gettext.NullTranslations:
    """The chained catalogs of a supported locale (loaded once per process)."""
    found = _loaded.get(locale)
    if found is None:
        with _lock:
            found = _loaded.get(locale)
            if found is None:
                found = _loaded[locale] = _load(locale)
    return found


def reload() -> None:
    """Forget the loaded catalogs (a test that edits a catalog; a server after ``pybabel update``)."""
    with _lock:
        _loaded.clear()


def t(msgid: str, locale: str | None = "en", /, **kw) -> str:
    """``msgid`` in ``locale`` with ``{placeholders}`` filled from ``kw``."""
    loc = normalize(locale) or DEFAULT_LOCALE
    text = msgid if loc == "en" else translations(loc).gettext(msgid)
    return text.format(**kw) if kw else text


def tn(singular: str, plural: str, n, locale: str | None = "en", /, **kw) -> str:
    """The plural form for ``n`` (gettext's rule of ``locale``: English has two forms, Chinese
    one) with ``{placeholders}`` filled from ``kw``; ``{n}`` is ``n`` unless ``kw`` gives it."""
    loc = normalize(locale) or DEFAULT_LOCALE
    count = int(n) if not isinstance(n, int) else n
    if loc == "en":
        text = singular if count == 1 else plural
    else:
        text = translations(loc).ngettext(singular, plural, count)
    kw.setdefault("n", n)
    return text.format(**kw)
