"""Words the code keeps as values (a bootstrap method, a resampling scheme, a light's colour, a
drift family), marked for the catalogs so ``t(value, locale)`` finds them. Pure (no Streamlit)."""

from __future__ import annotations

from board.words.i18n import N_, t

__all__ = ["WORDS", "word"]

WORDS = (
    # bootstrap methods and resampling schemes (evalcore.bootstrap)
    N_("percentile"),
    N_("bca"),
    N_("bayes"),
    N_("rows"),
    N_("stratified"),
    N_("cluster"),
    N_("stratified cluster"),
    # drift lights and their families (evalcore.drift)
    N_("green"),
    N_("yellow"),
    N_("red"),
    N_("grey"),
    N_("gray"),
    N_("feature"),
    N_("label"),
    N_("calibration"),
    # verdict kinds (evalcore.decision)
    N_("roll out"),
    N_("keep"),
    N_("hold"),
    N_("undecided"),
    N_("single"),
    # score kinds (evalcore.data.SCORE_KINDS)
    N_("auto"),
    N_("probability"),
    N_("score"),
    N_("decision"),
    # calibration methods
    N_("platt"),
    N_("isotonic"),
    N_("temperature"),
)


def word(value, locale: str) -> str:
    """A value word in ``locale`` (unknown values unchanged)."""
    return t(str(value), locale) if value is not None else ""
