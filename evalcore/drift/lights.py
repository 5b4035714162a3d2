"""Lights: one :class:`Light` per family, the :class:`DriftReport` holding the three, and
:func:`drift_lights`, which validates one input and runs every family on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import check_binary_scores
from .._errors import InputError, ProblemList
from .calibration import CalibrationDrift, _calibration_drift
from .config import DriftConfig
from .features import FeatureDrift, _check_features, _feature_drift
from .label import LabelDrift, _label_drift
from .timewindows import _as_time, _days


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Light:
    """One drift light.

    Attributes
    ----------
    family : {"feature", "label", "calibration"}
    color : {"green", "yellow", "red", "grey"}
        grey: cannot be judged (no input, no window, too few rows).
    reason : str
        One line citing the numbers that lit it.
    details : dict
        JSON-safe structured details (what the board and the action sentence cite).
    """

    family: str
    color: str
    reason: str
    details: dict

    def to_dict(self) -> dict:
        return {"light": self.color, "details": {"reason": self.reason, **self.details}}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DriftReport:
    """The three drift lights and the results behind them.

    Attributes
    ----------
    lights : dict of str to Light
        Keys "feature", "label", "calibration".
    feature : FeatureDrift or None
    label : LabelDrift or None
    calibration : CalibrationDrift or None
    config : DriftConfig
    """

    lights: dict
    feature: FeatureDrift | None
    label: LabelDrift | None
    calibration: CalibrationDrift | None
    config: DriftConfig

    @property
    def any_red(self) -> bool:
        return any(l.color == "red" for l in self.lights.values())

    def to_dict(self) -> dict:
        """``{"feature": {"light", "details"}, "label": {...}, "calibration": {...}}`` (the CLI's ``drift``)."""
        return {k: self.lights[k].to_dict() for k in ("feature", "label", "calibration")}


def _grey(family, reason):
    return Light(family=family, color="grey", reason=reason, details={})


def drift_lights(y_true, y_prob, time, features: pd.DataFrame | None = None, *, config: DriftConfig | None = None) -> DriftReport:
    """All three drift lights from one validated input.

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        0/1 labels; None leaves label and calibration grey.
    y_prob : array-like of shape (n,) or None
        Predicted probabilities in [0, 1]; None (raw scores) leaves calibration grey.
    time : array-like of datetime-like, shape (n,)
    features : pandas.DataFrame or None
        Feature columns (numeric -> KS, other -> PSI); None leaves the feature light grey.
    config : DriftConfig, default=None

    Returns
    -------
    DriftReport

    Raises
    ------
    InputError
        Every problem of every input at once.
    """
    config = config or DriftConfig()
    p = ProblemList()
    t = _as_time(time, problems=p)
    n = len(t) if t is not None else None
    y = prob = None
    if y_true is not None:
        try:
            ny = np.shape(y_true)[0] if np.ndim(y_true) else 0
            y, prob, _ = check_binary_scores(y_true, np.zeros(ny) if y_prob is None else y_prob)
            if y_prob is None:
                prob = None
        except InputError as exc:
            p.problems.extend(exc.problems)
        if prob is not None and ((prob < 0) | (prob > 1)).any():
            bad = int(((prob < 0) | (prob > 1)).sum())
            p.add(
                "y_prob_range",
                f"y_prob must be probabilities in [0, 1]; {bad} values are outside.",
                "Recalibrate raw scores first, or pass y_prob=None.",
                column="y_prob",
                n_rows=bad,
            )
        if y is not None and n is not None and len(y) != n:
            p.add("length_mismatch", f"y_true has {len(y)} rows but time has {n}.", "Pass the same rows.", column="y_true")
    if features is not None and n is not None:
        _check_features(features, n, config, p)
    p.raise_if_any()
    d = _days(t, config)
    fd = _feature_drift(features, d, config) if features is not None and features.shape[1] > 0 else None
    ld = _label_drift(y, d, config, fd) if y is not None else None
    cd = _calibration_drift(y, prob, d, config) if prob is not None else None
    return _report(fd, ld, cd, config, has_labels=y is not None)


def _report(fd, ld, cd, config, *, has_labels: bool) -> DriftReport:
    y = True if has_labels else None
    lights = {
        "feature": Light(family="feature", color=fd.color, reason=fd.reason, details=fd.summary())
        if fd
        else _grey("feature", "No feature columns mapped."),
        "label": Light(family="label", color=ld.color, reason=ld.reason, details=ld.summary())
        if ld
        else _grey("label", "No label column."),
        "calibration": (
            Light(family="calibration", color=cd.color, reason=cd.reason, details=cd.summary())
            if cd
            else _grey(
                "calibration", "No probabilities (raw scores need recalibration first)." if y is not None else "No label column."
            )
        ),
    }
    return DriftReport(lights=lights, feature=fd, label=ld, calibration=cd, config=config)
