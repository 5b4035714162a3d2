"""One-line plain definitions of the board's terms (issue 14 item 5), shown as tooltips (``help=``)
next to the column, metric or heading where a term appears.

``term(key)`` gives the definition; ``terms(*keys)`` joins several into one tooltip. The words
are pure text (no Streamlit), so the pages, the exports and the CLI can share them.
"""

from __future__ import annotations

from board.words.i18n import N_, t

__all__ = ["GLOSSARY", "TERMS", "glossary", "term", "terms"]

GLOSSARY: dict[str, str] = {
    "ev": N_(
        "EV (value per decision): the money gained on average for each case scored, from the value table's amounts; gains positive, costs negative."
    ),
    "threshold": N_("Threshold: act on a case when its score is at or above this number."),
    "best_threshold": N_("Best threshold: the threshold with the highest EV per decision on this data."),
    "bayes_threshold": N_(
        "Bayes threshold t*: the best threshold computed from the value table alone; right only when the scores are calibrated probabilities."
    ),
    "tp": N_("TP (true positive): acted, and the case was positive."),
    "fp": N_("FP (false positive): acted, but the case was negative."),
    "fn": N_("FN (false negative): did not act, but the case was positive."),
    "tn": N_("TN (true negative): did not act, and the case was negative."),
    "calibration": N_(
        "Calibration: whether predicted probabilities match what happens; among cases given 10%, about 10% should be positive."
    ),
    "drift": N_("Drift: recent data differ from the reference period, so the numbers measured on it may no longer hold."),
    "confidence_interval": N_(
        "Confidence interval: the range the number would likely fall in on another sample of the same size (95% means 19 samples out of 20)."
    ),
    "bootstrap": N_(
        "Bootstrap: the evaluation repeated on many random resamples of the test rows, to see how much a number moves by chance."
    ),
    "segment": N_("Segment: a group of cases sharing a value of a column, such as new vs returning customers."),
    "oe": N_("O/E (observed ÷ expected): positives that happened ÷ positives the probabilities predicted; 1 is ideal."),
    "brier": N_("Brier score: the mean squared gap between probability and outcome (0 is perfect, lower is better)."),
    "log_loss": N_("Log loss: the penalty for confident wrong probabilities (lower is better)."),
    "ece": N_("ECE (expected calibration error): the average gap between predicted and observed rates across bins."),
    "slope": N_("Calibration slope: 1 is ideal; below 1 the probabilities are too extreme (over-confident)."),
    "intercept": N_("Calibration intercept: 0 is ideal; above 0 the probabilities are too low on average."),
    "auc": N_("AUC: the chance a random positive case scores above a random negative one (0.5 is guessing, 1 is perfect)."),
    "standard_error": N_("Standard error: the typical size of the chance error of a number."),
}


#: The name of each term, as the product uses it everywhere (one Chinese word per concept: the
#: catalogs translate these names once, and every label, tooltip and export uses the same).
TERMS: dict[str, str] = {
    "ev": N_("Expected value per decision (EV)"),
    "threshold": N_("Threshold"),
    "best_threshold": N_("Best threshold"),
    "bayes_threshold": N_("Bayes threshold"),
    "tp": N_("True positive (TP)"),
    "fp": N_("False positive (FP)"),
    "fn": N_("False negative (FN)"),
    "tn": N_("True negative (TN)"),
    "calibration": N_("Calibration"),
    "drift": N_("Drift"),
    "confidence_interval": N_("Confidence interval (CI)"),
    "bootstrap": N_("Bootstrap"),
    "segment": N_("Segment"),
    "oe": N_("O/E"),
    "brier": N_("Brier score"),
    "log_loss": N_("Log loss"),
    "ece": N_("ECE"),
    "slope": N_("Calibration slope"),
    "intercept": N_("Calibration intercept"),
    "auc": N_("AUC"),
    "standard_error": N_("Standard error"),
}


def term(key: str, locale: str = "en") -> str:
    """The one-line definition of ``key`` (a key of :data:`GLOSSARY`) in ``locale``."""
    return t(GLOSSARY[key], locale)


def terms(*keys: str, locale: str = "en") -> str:
    """Several definitions as one tooltip, one per line."""
    return "  \n".join(t(GLOSSARY[k], locale) for k in keys)


def glossary(locale: str = "en") -> list[tuple[str, str]]:
    """Every term as (name, definition) in ``locale``, in the order above: the glossary a
    business reader opens from the sidebar (and every tooltip's terms are among these)."""
    return [(t(TERMS[k], locale), t(GLOSSARY[k], locale)) for k in GLOSSARY]
