"""The last recorded decision in one line (issue 16 item 5), for the board and the meeting screen.

``last_decision_line`` says what the meeting decided, when and by whom, why (shortened), and what
changed on the board since: the board's verdict now differs, or the number the decision rested on
(B's gain over A, or the decided model's value per decision) moved -- compared with the snapshot
saved with the decision. Plain values in (a decision record or anything with its attributes), a
string out; no store here.
"""

from __future__ import annotations

import math

from board.words import fmt
from board.words.i18n import N_, t
from board.words.lens import Lens
from board.words.patterns import Templates

__all__ = ["decision_word", "last_decision_line"]

_RATIONALE_CHARS = 90


def decision_word(kind: str, model: str, locale: str = "en") -> str:
    """The decision as the board's verdict says it: "ROLL OUT new", "KEEP old", "HOLD"."""
    if kind == "roll out":
        return t("ROLL OUT {b}", locale, b=model)
    if kind == "keep":
        return t("KEEP {a}", locale, a=model)
    return t("HOLD", locale)


_WORDS = (N_("ROLL OUT {b}"), N_("KEEP {a}"), N_("HOLD"))


def _canon(word: str | None, locale: str):
    """A verdict word read back into (which word, model), in English or in ``locale``, so a word
    kept with a snapshot in one language compares with today's in another."""
    if not word:
        return None
    for loc in ("en", locale):
        for i, msg in enumerate(_WORDS):
            found = Templates([t(msg, loc).replace("{a}", "{m}").replace("{b}", "{m}")]).params(word)
            if found is not None:
                return i, found[1].get("m", "")
    return word


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def last_decision_line(
    decision,
    *,
    verdict_kind: str,
    verdict_word: str,
    verdict_then: str | None = None,
    then=None,
    now=None,
    gain: bool = True,
    model: str = "",
    unit: str = "",
    lens: Lens | None = None,
) -> str:
    """One line: "Last decision: ROLL OUT new at 0.5 on 2026-12-01 by anna — why. Since then: …".

    Parameters
    ----------
    decision : DecisionRecord-like
        ``kind``, ``model``, ``threshold``, ``decided_at``, ``decided_by``, ``rationale``.
    verdict_kind, verdict_word : str
        The board's verdict now (``Verdict.kind`` and ``Verdict.word``).
    verdict_then : str, optional
        The board's verdict word when the decision was taken (kept with its snapshot); by default
        the decision itself (a meeting that overruled its board then reads "the board now says …").
    then, now : float or None
        The number the decision rested on, in the snapshot saved with it and on this board (value
        per decision, gains positive): B's gain over A when ``gain``, else ``model``'s value.
    """
    lens = lens or Lens()
    loc = lens.locale
    word = decision_word(decision.kind, decision.model, loc)
    at = t(" at {t}", loc, t=fmt.score(decision.threshold)) if decision.threshold is not None else ""
    why = " ".join(decision.rationale.split())
    if len(why) > _RATIONALE_CHARS:
        why = why[: _RATIONALE_CHARS - 1].rstrip() + "…"
    line = t(
        "Last decision: {word}{at} on {date} by {who} — {why}",
        loc,
        word=word,
        at=at,
        date=fmt.date(decision.decided_at, loc),
        who=decision.decided_by,
        why=why,
    )
    if verdict_kind in ("roll out", "keep", "hold") and _canon(verdict_word, loc) != _canon(verdict_then or word, loc):
        since = t("the board now says {word}", loc, word=verdict_word)
    elif _finite(then) and _finite(now):
        if gain:
            what = t("the change in loss per decision", loc) if lens.loss else t("the gain per decision", loc)
        else:
            what = t("{model}'s {quantity}", loc, model=model, quantity=lens.quantity)
        a, b = (fmt.money(lens.amount(x), unit, signed=gain, locale=loc) for x in (then, now))
        since = (
            t("{what} is unchanged ({b})", loc, what=what, b=b)
            if a == b
            else t("{what} moved from {a} to {b}", loc, what=what, a=a, b=b)
        )
    else:
        return line
    return line + t(". Since then: {since}.", loc, since=since)
