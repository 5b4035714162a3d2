"""evalcore: the pure math of evalboard (numpy/pandas/SciPy/scikit-learn only).

Never imports streamlit, plotly or a database.
"""

from ._errors import InputError, Problem
from .counts import (
    Confusion,
    ScoreCounts,
    ThresholdCounts,
    confusion_at,
    confusion_from_counts,
    score_counts,
    threshold_counts,
)

__all__ = [
    "InputError",
    "Problem",
    "Confusion",
    "ScoreCounts",
    "ThresholdCounts",
    "confusion_at",
    "confusion_from_counts",
    "score_counts",
    "threshold_counts",
]
