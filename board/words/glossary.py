"""One-line plain definitions of the board's terms (issue 14 item 5), shown as tooltips (``help=``)
next to the column, metric or heading where a term appears.

``term(key)`` gives the definition; ``terms(*keys)`` joins several into one tooltip. The words
are pure text (no Streamlit), so the pages, the exports and the CLI can share them.
"""

from __future__ import annotations

__all__ = ["GLOSSARY", "term", "terms"]

GLOSSARY: dict[str, str] = {
    "ev": (
        "EV (value per decision): the money gained on average for each case scored, from the value table's "
        "amounts; gains positive, costs negative."
    ),
    "threshold": "Threshold: act on a case when its score is at or above this number.",
    "best_threshold": "Best threshold: the threshold with the highest EV per decision on this data.",
    "bayes_threshold": (
        "Bayes threshold t*: the best threshold computed from the value table alone; right only when the "
        "scores are calibrated probabilities."
    ),
    "tp": "TP (true positive): acted, and the case was positive.",
    "fp": "FP (false positive): acted, but the case was negative.",
    "fn": "FN (false negative): did not act, but the case was positive.",
    "tn": "TN (true negative): did not act, and the case was negative.",
    "calibration": (
        "Calibration: whether predicted probabilities match what happens; among cases given 10%, about 10% should be positive."
    ),
    "drift": "Drift: recent data differ from the reference period, so the numbers measured on it may no longer hold.",
    "confidence_interval": (
        "Confidence interval: the range the number would likely fall in on another sample of the same size "
        "(95% means 19 samples out of 20)."
    ),
    "bootstrap": (
        "Bootstrap: the evaluation repeated on many random resamples of the test rows, to see how much a number moves by chance."
    ),
    "segment": "Segment: a group of cases sharing a value of a column, such as new vs returning customers.",
    "oe": "O/E (observed ÷ expected): positives that happened ÷ positives the probabilities predicted; 1 is ideal.",
    "brier": "Brier score: the mean squared gap between probability and outcome (0 is perfect, lower is better).",
    "log_loss": "Log loss: the penalty for confident wrong probabilities (lower is better).",
    "ece": "ECE (expected calibration error): the average gap between predicted and observed rates across bins.",
    "slope": "Calibration slope: 1 is ideal; below 1 the probabilities are too extreme (over-confident).",
    "intercept": "Calibration intercept: 0 is ideal; above 0 the probabilities are too low on average.",
    "auc": "AUC: the chance a random positive case scores above a random negative one (0.5 is guessing, 1 is perfect).",
    "standard_error": "Standard error: the typical size of the chance error of a number.",
}


def term(key: str) -> str:
    """The one-line definition of ``key`` (a key of :data:`GLOSSARY`)."""
    return GLOSSARY[key]


def terms(*keys: str) -> str:
    """Several definitions as one tooltip, one per line."""
    return "  \n".join(GLOSSARY[k] for k in keys)
