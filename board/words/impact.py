"""The impact report in words (issue 16 item 4): the verdict-level change first, then the
uplift with its unit and the optimum threshold, before -> after. Pure (no Streamlit)."""

from __future__ import annotations

from board.words import fmt
from board.words.i18n import is_chinese, t

__all__ = ["ARROW", "summary", "summary_markdown"]

ARROW = "→"


def _money_pair(before, after, unit_before, unit_after, locale: str = "en") -> str:
    """ "+36 → +45 EUR" (one unit), or each side with its own unit when the unit changed."""
    if unit_before is not None and unit_before != unit_after:
        return (
            f"{fmt.money(before, unit_before, signed=True, locale=locale)} {ARROW} "
            f"{fmt.money(after, unit_after, signed=True, locale=locale)}"
        )
    return f"{fmt.money(before, signed=True, locale=locale)} {ARROW} {fmt.money(after, unit_after, signed=True, locale=locale)}"


def _verdict(word, locale: str) -> str:
    """A verdict word kept with a report (English: "ROLL OUT new") in ``locale``."""
    from board.words.decision import _canon, decision_word

    found = _canon(word, "en") if word else None
    if not isinstance(found, tuple):
        return word or fmt.DASH
    kind = ("roll out", "keep", "hold")[found[0]]
    return decision_word(kind, found[1], locale)


def summary(entry: dict, locale: str = "en") -> str:
    """One line: "HOLD → HOLD; uplift +36 → +45 EUR per decision; optimum threshold 0.086 → 0.068".

    ``entry`` is a :func:`board.services.signoff.dataset_impact`. Without a version in force the
    before side is "—". The uplift is EV of model B minus EV of model A at their deployed
    thresholds (left out with one model); with several models each optimum is named."""
    L = locale
    before = _verdict(entry.get("verdict_before"), L) if entry.get("verdict_before") else fmt.DASH
    parts = [f"{before} {ARROW} {_verdict(entry['verdict_after'], L)}"]
    if entry.get("model_b") is not None:
        pair = _money_pair(
            entry.get("uplift_before"), entry.get("uplift_after"), entry.get("unit_before"), entry["unit_after"], L
        )
        parts.append(t("uplift ({b} − {a}) {pair} per decision", L, b=entry["model_b"], a=entry["model_a"], pair=pair))
    models = entry.get("models") or {}
    moves = [(m, f"{fmt.score(r.get('t_opt_before'))} {ARROW} {fmt.score(r.get('t_opt_after'))}") for m, r in models.items()]
    if len(moves) == 1:
        parts.append(t("optimum threshold {move}", L, move=moves[0][1]))
    elif moves:
        parts.append(t("optimum threshold {move}", L, move=", ".join(f"{m} {move}" for m, move in moves)))
    return t("; ", L).join(parts)


def summary_markdown(entry: dict, escape=lambda s: s, locale: str = "en") -> str:
    """:func:`summary`, bold only when the verdict changed (``escape``: the page's Markdown escaper).
    In another language than English the line is said again from the entry's numbers (the stored
    summary is English)."""
    stored = entry.get("summary") if not is_chinese(locale) else None
    text = escape(stored or summary(entry, locale))
    return f"**{text}**" if entry.get("verdict_changed") else text
