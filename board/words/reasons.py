"""Why a number is undefined (evalcore's ``undefined`` reasons, English) in the reader's
language (:mod:`board.words.patterns`); a reason no template matches stays English. Pure."""

from __future__ import annotations

from board.words.i18n import N_
from board.words.patterns import Templates

__all__ = ["undefined_reason"]

_REASONS = Templates(
    [
        N_("{n} of {k} bins are empty (no predictions); their rate is undefined, not 0"),
        N_("every predicted probability is 0, so observed/expected divides by 0"),
        N_("the {what} is undefined on these data"),
        N_("fewer than 2 replicates have a defined {what}"),
        N_("some replicates are infinite (act on no one)"),
        N_("BCa needs a finite {what} on the data"),
        N_("BCa is undefined: every replicate lies on one side of the estimate"),
        N_("BCa is undefined: the jackknife is degenerate (no variation)"),
        N_("no rows in this window"),
        N_("no labels have arrived for this window"),
        N_("no labelled rows with both classes to fit the recalibration map on"),
        N_("no bootstrap (0 resamples)"),
        N_("an estimate is undefined"),
        N_("EV at the optimum is 0, a relative change is undefined"),
        N_("all scores are equal: a window of 2% of the score range is empty"),
        N_("no time column mapped"),
        N_("no time column is mapped"),
    ]
)


def undefined_reason(reason, locale: str) -> str:
    """``reason`` in ``locale`` (parts joined by "; " each said again)."""
    text = str(reason)
    whole = _REASONS.say(text, locale)  # a reason whose own template holds "; " (the empty bins)
    if whole != text or locale == "en":
        return whole
    if "; " in text:
        return "；".join(_REASONS.say(part, locale) for part in text.split("; ")) if locale != "en" else text
    return _REASONS.say(text, locale)
