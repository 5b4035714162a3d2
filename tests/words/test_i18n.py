"""The translation machinery (issue 15): gettext catalogs loaded with Babel, named placeholders,
plural forms, fallbacks, locale codes, and a catalog that covers every message of the sources."""

import ast
import re
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from board.words import i18n
from board.words.i18n import N_, from_accept_language, normalize, t, tn

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"t": None, "tn": (1, 2), "N_": None}
FIELD = re.compile(r"\{(\w+)\}")


def _method_map():
    """babel.cfg's sections as extract_from_dir's method map (the same file pybabel reads)."""
    sections = re.findall(r"^\[(\w+):\s*(.+?)\]\s*$", (ROOT / "babel.cfg").read_text(), flags=re.M)
    return [(pattern, method) for method, pattern in sections]


def _extracted() -> dict:
    out = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map=_method_map(), keywords=KEYWORDS, comment_tags=()
    ):
        out.setdefault(message, f"{filename}:{lineno}")
    return out


def _catalogs():
    folder = ROOT / "board" / "locale" / "zh_CN" / "LC_MESSAGES"
    out = {}
    for p in sorted(folder.glob("*.po")):
        with p.open("rb") as f:
            out[p.name] = read_po(f, locale="zh_CN")
    return out


def test_every_message_has_a_chinese_translation():
    extracted = _extracted()
    assert len(extracted) > 500  # the pages, charts, words and exports: a broken extraction finds a handful
    translated = {}
    for catalog in _catalogs().values():
        for m in catalog:
            if m.id and "fuzzy" not in m.flags:
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                if all(strings):
                    translated[m.id] = strings
    missing = {msg: where for msg, where in extracted.items() if msg not in translated}
    assert not missing, f"{len(missing)} messages lack a zh_CN translation (pybabel update, then translate): " + "; ".join(
        f"{where}: {msg!r}" for msg, where in list(missing.items())[:20]
    )


def test_translations_keep_their_placeholders():
    bad = []
    for catalog in _catalogs().values():
        for m in catalog:
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            want = set().union(*(FIELD.findall(i) for i in ids))
            for s in strings:
                if s and set(FIELD.findall(s)) != want:
                    bad.append((m.id, s))
    assert not bad, bad[:10]


def _calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("t", "tn") and node.args:
            yield node


def _marked(arg) -> bool:
    """A literal, a variable (marked with N_ where it is defined), or a choice between N_ calls."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str)
    if isinstance(arg, ast.IfExp):  # each branch an N_ call or a marked variable, never a bare literal
        return all(not isinstance(x, ast.Constant) and _marked(x) for x in (arg.body, arg.orelse))
    return isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))


def test_no_translation_call_hides_its_message_from_the_extractor():
    # t("a" if x else "b") is extracted as the one message "ab": a choice must be t(N_("a") if x else N_("b"))
    bad = []
    for path in [ROOT / "app.py", *ROOT.glob("views/*.py"), *ROOT.glob("board/**/*.py")]:
        for node in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if not _marked(node.args[0]):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, bad


def test_t_fills_named_placeholders_after_translation():
    assert t("KEEP {a}", "en", a="old") == "KEEP old"
    assert t("KEEP {a}", "zh_CN", a="old") == "保留 old"
    # a user's name is never translated, even when it is itself a message id
    assert t("KEEP {a}", "zh_CN", a="Board") == "保留 Board"


def test_missing_message_falls_back_to_english():
    assert t("A sentence nobody translated, {x}", "zh_CN", x=1) == "A sentence nobody translated, 1"
    assert t("Board", "fr") == "Board"  # an unsupported language reads English
    assert t("Board", None) == "Board"


def test_locale_codes():
    for code in ("zh", "zh-CN", "zh_CN", "zh-cn", "zh-Hans", "zh-Hans-CN"):
        assert normalize(code) == "zh_CN", code
    assert normalize("en-US") == normalize("en") == "en"
    assert normalize("zh-TW") is None and normalize("fr") is None and normalize("") is None
    assert t("Board", "zh-CN") == t("Board", "zh") == "看板"


def test_accept_language_picks_the_best_supported_language():
    assert from_accept_language("zh-CN,zh;q=0.9,en;q=0.8") == "zh_CN"
    assert from_accept_language("fr-FR,en;q=0.5,zh;q=0.4") == "en"
    assert from_accept_language("de, zh;q=0.7, en;q=0.3") == "zh_CN"
    assert from_accept_language("en;q=0, zh-CN;q=0.2") == "zh_CN"  # q=0 means "not this one"
    assert from_accept_language("fr, de") is None and from_accept_language(None) is None


def test_plural_forms():
    one, many = "{n} row was dropped", "{n} rows were dropped"
    assert tn(one, many, 1, "en") == "1 row was dropped"
    assert tn(one, many, 2, "en") == "2 rows were dropped"
    assert tn(one, many, 0, "en") == "0 rows were dropped"
    # Chinese has one plural form (the catalog's Plural-Forms: nplurals=1): the same text for 1 and 3
    msg = ("{title}: {n} problem found.", "{title}: {n} problems found.")
    assert tn(*msg, 1, "zh_CN", title="文件") == "文件：发现 1 个问题。"
    assert tn(*msg, 3, "zh_CN", title="文件") == "文件：发现 3 个问题。"
    assert tn(*msg, 3, "en", title="File") == "File: 3 problems found."
    assert tn(one, many, 3, "en", n="three") == "three rows were dropped"  # {n} may be given formatted


def test_every_catalog_file_in_the_folder_is_loaded(tmp_path, monkeypatch):
    # another module's own catalog (a second domain) is chained with messages.po without editing it
    folder = tmp_path / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    base = (ROOT / "board" / "locale" / "zh_CN" / "LC_MESSAGES" / "messages.po").read_bytes()
    (folder / "messages.po").write_bytes(base)
    (folder / "upload.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        'msgid "Guessed {column} as the label"\nmsgstr "已将 {column} 识别为标签"\n\n'
        '#, fuzzy\nmsgid "A fuzzy entry"\nmsgstr "模糊条目"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.reload()
    try:
        assert t("Guessed {column} as the label", "zh_CN", column="是否违约") == "已将 是否违约 识别为标签"
        assert t("Board", "zh_CN") == "看板"  # messages.po still answers
        assert t("A fuzzy entry", "zh_CN") == "A fuzzy entry"  # fuzzy entries are not used (as msgfmt)
    finally:
        monkeypatch.undo()
        i18n.reload()


def test_n_marks_without_translating():
    assert N_("Board") == "Board"


def test_impact_report_in_chinese_keeps_its_numbers():
    from board.words import fmt
    from board.words.impact import summary

    e = {
        "verdict_before": "KEEP old",
        "verdict_after": "ROLL OUT new",
        "model_a": "old",
        "model_b": "new",
        "uplift_before": 36.0,
        "uplift_after": 45.2,
        "unit_before": "EUR",
        "unit_after": "EUR",
        "models": {"new": {"t_opt_before": 0.086, "t_opt_after": 0.068}},
    }
    en, zh = summary(e), summary(e, "zh_CN")
    assert en.startswith("KEEP old → ROLL OUT new")
    assert zh.startswith("保留 old → 上线 new")  # the stored English verdict words, said again
    pair = f"{fmt.money(36.0, signed=True)} → {fmt.money(45.2, 'EUR', signed=True)}"
    assert pair in en and pair in zh and "0.086 → 0.068" in zh
