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
from .calibration import (
    LOG_LOSS_EPS,
    CalibrationMap,
    CrossFitted,
    Reliability,
    ReliabilityBin,
    bin_edges,
    calibration_intervals,
    calibration_slope_intercept,
    cross_fit_calibration,
    ece,
    fit_calibration_map,
    reliability,
    segment_calibration,
    wilson_interval,
)
from .value import (
    CELLS,
    SegmentCurves,
    ValueCurve,
    ValueTable,
    auc_from_counts,
    bayes_threshold,
    price_curve,
    segment_curves,
    value_curve,
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
    "CELLS",
    "SegmentCurves",
    "ValueCurve",
    "ValueTable",
    "auc_from_counts",
    "bayes_threshold",
    "price_curve",
    "segment_curves",
    "value_curve",
    "LOG_LOSS_EPS",
    "CalibrationMap",
    "CrossFitted",
    "Reliability",
    "ReliabilityBin",
    "bin_edges",
    "calibration_intervals",
    "calibration_slope_intercept",
    "cross_fit_calibration",
    "ece",
    "fit_calibration_map",
    "reliability",
    "segment_calibration",
    "wilson_interval",
]
