"""The single orchestration behind the board page, the CLI and the export.

``evaluate(predictions, table, config)`` computes every number of the board once, so the
three can never disagree. ``BoardResult.to_dict()`` is the JSON contract of DESIGN §4.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ._errors import InputError
from .calibration import Reliability, reliability
from .counts import Confusion, ScoreCounts, _score_counts
from .data import Predictions
from .value import SegmentCurves, ValueCurve, ValueTable, auc_from_counts, price_curve, segment_curves

__all__ = ["BoardConfig", "ModelResult", "BoardResult", "evaluate", "default_threshold"]


def _f(x):
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None


def default_threshold(predictions: Predictions, model: str) -> float:
    """0.5 for probabilities and hard decisions; the middle of the score range for raw scores
    (there is no natural default for a raw score)."""
    if predictions.score_kinds[model] == "score":
        s = predictions.scores[model]
        return float((s.min() + s.max()) / 2.0)
    return 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardConfig:
    """Everything besides the data and the value table that a board depends on.

    thresholds : model -> deployed threshold (missing models use :func:`default_threshold`).
    scheme : "rows", "stratified" (by ``strata_column``) or "cluster" (by the group id).
    """

    thresholds: dict = field(default_factory=dict)
    n_resamples: int = 1000
    method: str = "percentile"
    seed: int = 0
    scheme: str = "rows"
    strata_column: str | None = None
    level: float = 0.95
    n_bins: int = 10
    strategy: str = "uniform"

    def __post_init__(self):
        problems = []
        if self.scheme not in ("rows", "stratified", "cluster"):
            problems.append(f"scheme must be rows, stratified or cluster; got {self.scheme!r}.")
        if self.method not in ("percentile", "bca"):
            problems.append(f"method must be percentile or bca; got {self.method!r}.")
        if not (isinstance(self.n_resamples, int) and self.n_resamples >= 0):
            problems.append(f"n_resamples must be a whole number >= 0; got {self.n_resamples!r}.")
        if not (0 < self.level < 1):
            problems.append(f"level must be in (0, 1); got {self.level!r}.")
        if self.scheme == "stratified" and not self.strata_column:
            problems.append("the stratified scheme needs strata_column (a segment column).")
        if problems:
            raise InputError("\n".join(problems))

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ModelResult:
    name: str
    score_kind: str
    threshold: float
    counts: ScoreCounts
    curve: ValueCurve
    at_threshold: Confusion
    ev: float
    attribution: dict
    auc: float
    calibration: Reliability | None
    segments: dict  # column -> SegmentCurves

    def to_dict(self) -> dict:
        at = self.at_threshold.to_dict()
        at.pop("undefined", None)
        at["ev"] = _f(self.ev)
        out = {
            "score_kind": self.score_kind,
            "at_threshold": at,
            "attribution": {k: _f(v) for k, v in self.attribution.items()},
            "auc": _f(self.auc),
            "curve": self.curve.to_dict(),
            "segments": {col: seg.to_dict() for col, seg in self.segments.items()},
            "undefined": {**{f"at_threshold.{k}": v for k, v in self.at_threshold.undefined.items()}},
        }
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_dict()
        else:
            out["calibration"] = None
            out["undefined"]["calibration"] = ("raw scores are not probabilities: recalibrate first"
                                               if self.score_kind == "score" else "hard decisions have no calibration")
        if np.isnan(self.auc):
            out["undefined"]["auc"] = "AUC needs both classes"
        return out


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class BoardResult:
    n: float
    n_pos: float
    n_rows: int
    table: ValueTable
    config: BoardConfig
    models: dict  # name -> ModelResult

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "n_pos": self.n_pos,
            "n_rows": self.n_rows,
            "value_table": self.table.to_dict(),
            "config": self.config.to_dict(),
            "models": {name: m.to_dict() for name, m in self.models.items()},
        }


def evaluate(predictions: Predictions, table: ValueTable, config: BoardConfig | None = None, *,
             counts: dict | None = None) -> BoardResult:
    """Compute the whole board. ``counts`` may pass precomputed ScoreCounts per model (cache)."""
    config = config or BoardConfig()
    unknown = set(config.thresholds) - set(predictions.scores)
    if unknown:
        raise InputError(f"thresholds given for unknown models {sorted(unknown)}; models are {sorted(predictions.scores)}.")
    y, w = predictions.y_true, predictions.sample_weight
    w_arr = np.ones(len(y)) if w is None else w
    models = {}
    for name, s in predictions.scores.items():
        kind = predictions.score_kinds[name]
        c = (counts or {}).get(name) or _score_counts(y, s, w_arr)
        curve = price_curve(c, table, score_kind=kind)
        t = float(config.thresholds.get(name, default_threshold(predictions, name)))
        segs: dict[str, SegmentCurves] = {}
        for col, levels in predictions.segments.items():
            segs[col] = segment_curves(y, s, levels, table, column=col, deployed=t, sample_weight=w, score_kind=kind)
        cal = reliability(y, s, sample_weight=w, n_bins=config.n_bins, strategy=config.strategy) if kind == "probability" else None
        models[name] = ModelResult(
            name=name, score_kind=kind, threshold=t, counts=c, curve=curve, at_threshold=curve.confusion_at(t),
            ev=curve.ev_at(t), attribution=curve.attribution_at(t), auc=auc_from_counts(c), calibration=cal,
            segments=segs)
    return BoardResult(n=predictions.n, n_pos=predictions.n_pos, n_rows=predictions.n_rows, table=table, config=config,
                       models=models)
