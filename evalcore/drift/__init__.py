"""Drift lights: feature, label and calibration drift of time windows against a reference.

Fit on a reference window, apply to sliding current windows, grade every window, and
turn the grades into one light per family with a one-line reason (SPEC §3.6).

Windows
    Time is cut into calendar days (UTC for tz-aware times; day 0 is the midnight before the
    earliest row). The reference window is ``reference_days`` days starting at
    ``reference_start`` (default: day 0). Current windows are ``window_days`` long, end on a
    day boundary, step by ``step_days`` backwards from the end of the last day with data, and
    never overlap the reference (each starts at or after the reference's end), so a window
    and the reference are independent samples. Only whole windows are used.

Feature drift
    Numeric features: the two-sample Kolmogorov–Smirnov statistic D. Exact (both samples
    sorted, ECDFs compared at every pooled value — the statistic of ``scipy.stats.ks_2samp``,
    ties included) while ``n_ref + n_cur <= exact_limit`` for every window; above it, binned
    on a grid frozen on the reference (see :func:`fit_reference`), whose error bound is
    stated in the result. Missing values (NaN) are left out of KS and counted.
    Categorical features (non-numeric dtypes, booleans, or names in ``categorical``): PSI
    ``sum((c - r) * ln(c / r))`` over the reference's levels plus a ``(missing)`` and an
    ``(unseen)`` bucket (levels absent from the reference share the latter); proportions
    below ``psi_floor`` are raised to it (no renormalisation). A Pearson chi-square test of
    the 2×k table is reported beside it.

Noise floors (95%)
    KS: ``1.36 * sqrt((n + m) / (n * m))``. PSI: ``(1/n + 1/m) * chi2.ppf(0.95, k - 1)`` with
    k the buckets seen in either sample (PSI is a J-divergence, asymptotically
    ``(1/n + 1/m) * chi2(k - 1)`` under no drift).

Grading (per window, one ``level``)
    -1 "too few rows": the noise floor is above the (yellow) threshold and the statistic is
    below its noise floor (indistinguishable from noise), or a sample is empty. A statistic
    above its noise floor is graded as any other, however few the rows.
    0 "ok"; 1 "moderate" (PSI above ``psi_yellow`` only); 2 "high": KS above ``ks_threshold``
    (KS has one threshold) or PSI above ``psi_red``. Comparisons are strict (``>``).

The consecutive-window rule (:func:`consecutive_rule`), the same for every family
    grey when there is no current window or the latest is "too few rows"; red when the last
    ``consecutive_red`` windows are all "high"; yellow when the latest window is at least
    "moderate"; green otherwise. "Too few rows" never counts as high, so it never lights red.
    The feature light is its worst feature's (red > yellow > grey > green).

Label drift
    Positive rate per window with a Wilson 95% interval; pooled two-proportion z-test
    against the reference. A window is "high" when p < ``label_alpha``; "too few rows" when
    the expected positives or negatives under the pooled rate are below ``min_expected``.
    Same consecutive rule. When the label light is not green while the feature light is
    green the result says "possible label-definition change"; the most likely step day
    (single change point, binomial likelihood ratio over the days from the reference on)
    is reported.

Calibration drift
    Per window O/E = sum(y) / sum(p) and ECE (10 uniform bins). Drift is judged against the
    reference: ratio = (O/E)_cur / (O/E)_ref, with an exact interval from the conditional
    binomial (O_cur | O_cur + O_ref ~ Binomial(O_cur + O_ref, E_cur / (E_cur + E_ref)) under
    no change; Clopper–Pearson at ``calibration_alpha``). A window is "high" when the ratio
    is outside ``oe_band`` and its interval excludes 1; "too few rows" when E_cur or E_ref is
    below ``min_expected`` or the reference has no positives. ECE is shown, not graded (its
    bias depends on the window size).

Sample weights are not used here: drift compares the rows as they arrived.

Layout (lower layers first; a submodule imports only those above it): ``_common`` (level
names, JSON cleaners), ``config`` (:class:`DriftConfig`), ``primitives`` (KS, PSI, tests, the
consecutive rule), ``timewindows`` (days and windows), ``references`` (frozen reference fits),
``features``, ``label``, ``calibration`` (one family each), ``lights`` (:class:`Light`,
:class:`DriftReport`, :func:`drift_lights`) and ``from_days`` (per-day tables). Import every
name from ``evalcore.drift`` itself, as before the split.
"""

# Every name importable from the one-module evalcore.drift stays importable from here, the private
# ones too (evalcore.aggregate imports _as_time, _bin_index, _days, _feature_kind ...).
# ruff: noqa: F401
from .._checks import check_binary_scores
from .._errors import InputError, ProblemList
from ..bootstrap import wilson_interval
from ..calibration import _bin_index, _uniform_edges
from ._common import _DAY, _SEVERITY, LEVEL_NAMES, _clean, _clean_list
from .calibration import (
    CalibrationDrift,
    _calibration_drift,
    _calibration_drift_days,
    calibration_drift,
)
from .config import DriftConfig, _problem
from .features import (
    FeatureDrift,
    _check_features,
    _feature_drift,
    _feature_kind,
    _feature_reason,
    _fmt_series,
    _grade_features,
    _windows_word,
    feature_drift,
)
from .from_days import (
    CALIBRATION_DAY_COLUMNS,
    DAY_COLUMNS,
    FEATURE_DAY_COLUMNS,
    _day_index,
    _days_of_table,
    _exact_ks,
    _per_day,
    _ref_of_spec,
    calibration_drift_from_days,
    drift_from_days,
    exact_ks_applies,
    reference_spec,
)
from .label import (
    LabelDrift,
    _label_drift,
    _label_drift_days,
    _step,
    _window_sums,
    label_drift,
)
from .lights import DriftReport, Light, _grey, _report, drift_lights
from .primitives import (
    _ks_counts,
    _ks_sorted,
    _psi_counts,
    _run_length,
    _wilson,
    chi_square,
    consecutive_rule,
    ks_statistic,
    noise_floor,
    psi,
    psi_noise_floor,
    two_proportion_test,
)
from .references import Reference, fit_reference
from .timewindows import Window, _as_time, _Days, _days, _days_of_counts, windows

__all__ = [
    "DriftConfig",
    "Window",
    "Reference",
    "FeatureDrift",
    "LabelDrift",
    "CalibrationDrift",
    "Light",
    "DriftReport",
    "ks_statistic",
    "noise_floor",
    "psi",
    "psi_noise_floor",
    "chi_square",
    "two_proportion_test",
    "consecutive_rule",
    "fit_reference",
    "windows",
    "feature_drift",
    "label_drift",
    "calibration_drift",
    "drift_lights",
    "drift_from_days",
    "calibration_drift_from_days",
    "exact_ks_applies",
    "reference_spec",
    "DAY_COLUMNS",
    "CALIBRATION_DAY_COLUMNS",
    "FEATURE_DAY_COLUMNS",
]
