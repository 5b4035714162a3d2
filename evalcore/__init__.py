"""evalcore: the pure math of evalboard (numpy/pandas/SciPy/scikit-learn only).

Never imports streamlit, plotly or a database.

The public names below load their module on first use (PEP 562), so ``import evalcore`` — and a
command line that needs only part of it — does not pay for SciPy, scikit-learn or every module at
start-up; ``from evalcore import X`` works as before.
"""

from __future__ import annotations

import importlib

from ._errors import InputError as InputError  # eager: every error path needs them
from ._errors import Problem as Problem

# module (relative) -> the public names it provides
_EXPORTS = {
    "_errors": (
        "InputError",
        "Problem",
    ),
    "ahp": (
        "AHPWeights",
        "ahp_amounts",
        "ahp_weights",
        "pairwise_matrix",
    ),
    "bootstrap": (
        "BootstrapResult",
        "Comparison",
        "CurveBand",
        "MetricIntervals",
        "OptimumBootstrap",
        "ProportionInterval",
        "analytic_ev_se",
        "auc_delong",
        "auc_delong_paired",
        "compare_models",
        "ev_interval",
        "metric_intervals",
        "optimum_interval",
        "auto_resolution",
    ),
    "calibration": (
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
    ),
    "counts": (
        "Confusion",
        "ScoreCounts",
        "ThresholdCounts",
        "confusion_at",
        "confusion_from_counts",
        "cumulate",
        "metrics_from_cells",
        "score_counts",
        "threshold_counts",
    ),
    "data": (
        "SCORE_KINDS",
        "ColumnMapping",
        "Predictions",
        "default_positive",
        "guess_mapping",
        "label_values",
        "read_table",
        "validate",
    ),
    "drift": (
        "CalibrationDrift",
        "DriftConfig",
        "DriftReport",
        "FeatureDrift",
        "LabelDrift",
        "Light",
        "Window",
        "calibration_drift",
        "drift_lights",
        "feature_drift",
        "ks_statistic",
        "label_drift",
        "noise_floor",
        "psi",
        "windows",
    ),
    "evidence": (
        "SmallEvidence",
        "effective_count",
    ),
    "normalized": (
        "LearningCurve",
        "NormalizedScore",
        "TaskScore",
        "cluster_score",
        "learning_curve",
        "normalized_score",
        "task_score",
    ),
    "sensitivity": (
        "ValueSensitivity",
        "value_sensitivity",
    ),
    "stability": (
        "CVResult",
        "ScoreSummary",
        "compare_cv",
        "paired_test",
        "prepare_training",
        "repeated_cv",
        "sample_size_plan",
        "summarize",
    ),
    "value": (
        "CELLS",
        "SegmentCurves",
        "ValueCurve",
        "ValueTable",
        "auc_from_counts",
        "bayes_threshold",
        "price_curve",
        "segment_curves",
        "value_curve",
    ),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)  # every public name, from the one map above


def __getattr__(name: str):
    mod = _WHERE.get(name)
    if mod is None:
        try:  # a submodule, e.g. evalcore.bootstrap after a bare `import evalcore`
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value  # next time without __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
