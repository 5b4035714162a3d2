"""The board's configuration and results (below the orchestration, which builds them).

:class:`BoardConfig` is what a board depends on besides the data and the value table;
:class:`BoardResult` (with :class:`ModelResult` per model and :class:`BoardDrift`) is what it
returns, and ``BoardResult.to_dict()`` is the JSON contract of DESIGN §4. The orchestration
that fills them is :func:`evalcore.aggregate.evaluate_aggregate`; the entry point for rows is
:func:`evalcore.board.evaluate`. Both modules import this one, never each other's internals.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ._checks import check_level
from ._errors import InputError, ProblemList
from .bootstrap import METHODS, BootstrapResult, Comparison, MetricIntervals, OptimumBootstrap
from .calibration import Reliability
from .counts import Confusion, ScoreCounts
from .data import Predictions
from .decision import Action, DecisionInputs, SegmentValue
from .drift import CalibrationDrift, DriftConfig, DriftReport, Light, calibration_drift, drift_lights
from .evidence import SmallEvidence
from .value import ValueCurve, ValueTable

__all__ = [
    "BoardConfig",
    "MAX_EXACT_SCORES",
    "bootstrap_resolution",
    "ModelResult",
    "BoardResult",
    "BoardDrift",
    "board_drift",
    "compose_drift",
    "decision_inputs",
    "default_threshold",
    "heatmap_grid",
    "check_thresholds",
    "progress_ticker",
]


MAX_EXACT_SCORES = 20_000  # distinct scores above which the re-optimising bootstrap bins scores (stated)


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
    max_exact_scores: int = MAX_EXACT_SCORES  # above this many distinct scores the re-optimising bootstrap bins scores
    drift: dict | None = None  # DriftConfig.to_dict(); None = defaults

    def __post_init__(self):
        problems = ProblemList()
        if self.scheme not in ("rows", "stratified", "cluster"):
            problems.add("scheme_invalid", f"scheme must be rows, stratified or cluster; got {self.scheme!r}.", column="scheme")
        if self.method not in METHODS:
            problems.add("method_invalid", f"method must be percentile, bca or bayes; got {self.method!r}.", column="method")
        if not (isinstance(self.n_resamples, int) and self.n_resamples >= 0):
            problems.add(
                "n_resamples_invalid", f"n_resamples must be a whole number >= 0; got {self.n_resamples!r}.", column="n_resamples"
            )
        check_level(self.level, problems)  # the one level rule (evalcore._checks)
        if not (isinstance(self.max_exact_scores, int) and self.max_exact_scores > 0):
            problems.add(
                "max_exact_scores_invalid",
                f"max_exact_scores must be a positive whole number; got {self.max_exact_scores!r}.",
                column="max_exact_scores",
            )
        if self.scheme == "stratified" and not self.strata_column:
            problems.add(
                "strata_missing", "the stratified scheme needs strata_column (a segment column).", column="strata_column"
            )
        problems.raise_if_any()

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
    ev_ci: BootstrapResult | None = None
    ev_se: float = float("nan")  # analytic standard error (std of per-row value / sqrt N)
    optimum: OptimumBootstrap | None = None
    intervals: MetricIntervals | None = None

    def to_dict(self) -> dict:
        at = self.at_threshold.to_dict()
        at.pop("undefined", None)
        at["ev"] = _f(self.ev)
        at["ev_ci"] = [_f(self.ev_ci.low), _f(self.ev_ci.high)] if self.ev_ci else [None, None]
        at["ev_se_analytic"] = _f(self.ev_se)
        at["ev_se_bootstrap"] = _f(self.ev_ci.standard_error) if self.ev_ci else None
        if self.intervals is not None:
            at["wilson"] = {k: [_f(v.low), _f(v.high)] for k, v in self.intervals.items()}
        curve = self.curve.to_dict()
        if self.optimum is not None:
            curve["t_opt_ci"] = [_f(self.optimum.t_opt.low), _f(self.optimum.t_opt.high)]
            curve["ev_opt_reoptimised"] = self.optimum.ev_opt.to_dict()
            curve["bootstrap_resolution"] = self.optimum.resolution
        else:
            curve["t_opt_ci"] = [None, None]
        out = {
            "score_kind": self.score_kind,
            "at_threshold": at,
            "attribution": {k: _f(v) for k, v in self.attribution.items()},
            "auc": _f(self.auc),
            "auc_ci": [_f(self.optimum.auc.low), _f(self.optimum.auc.high)] if self.optimum else [None, None],
            "curve": curve,
            "segments": {col: seg.to_dict() for col, seg in self.segments.items()},
            "undefined": {**{f"at_threshold.{k}": v for k, v in self.at_threshold.undefined.items()}},
        }
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_dict()
        else:
            out["calibration"] = None
            out["undefined"]["calibration"] = (
                "raw scores are not probabilities: recalibrate first"
                if self.score_kind == "score"
                else "hard decisions have no calibration"
            )
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
    comparison: Comparison | None = None
    drift: BoardDrift | None = None
    action: Action | None = None
    drift_undefined: str = ""
    aggregate: dict | None = None  # set when computed from an aggregate (engine, score resolution per model)
    small_evidence: SmallEvidence | None = None  # whether the intervals rest on few positives / a small cell

    def to_dict(self) -> dict:
        c = self.config
        out = {
            "n": self.n,
            "n_pos": self.n_pos,
            "n_rows": self.n_rows,
            "value_table": self.table.to_dict(),
            "config": c.to_dict(),
            "bootstrap": {
                "n_resamples": c.n_resamples,
                "method": c.method,
                "seed": c.seed,
                "level": c.level,
                "scheme": c.scheme + (f" by {c.strata_column}" if c.scheme == "stratified" else ""),
                "measures": "test-set sampling uncertainty of fixed models; not training randomness",
            },
            "models": {name: m.to_dict() for name, m in self.models.items()},
        }
        if self.comparison is not None:
            out["comparison"] = self.comparison.to_dict()
        if self.drift is not None:
            out["drift"] = self.drift.to_dict()
        elif self.drift_undefined:
            out["drift_undefined"] = self.drift_undefined
        if self.aggregate is not None:
            out["aggregate"] = self.aggregate
        out["action"] = self.action.text if self.action else None
        out["action_detail"] = self.action.to_dict() if self.action else None
        out["small_evidence"] = self.small_evidence.to_dict() if self.small_evidence is not None else None
        return out


_SEVERITY = {"red": 3, "yellow": 2, "grey": 1, "green": 0}


def _departure(cd: CalibrationDrift) -> float:
    """|log| of the latest O/E ratio to the reference: breaks ties between models of one colour."""
    r = cd.ratio[-1] if len(cd.windows) else np.nan
    return float(abs(np.log(r))) if np.isfinite(r) and r > 0 else 0.0


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class BoardDrift:
    """Drift of a dataset with every probability model's calibration judged; the calibration
    light is the worst model's (ties: the latest O/E furthest from the reference).

    report : the feature/label/calibration report of the first probability model (or None);
    lights : family -> Light, the calibration light replaced by the worst model's;
    calibration : model -> CalibrationDrift; skipped : models without probabilities.
    """

    lights: dict
    report: DriftReport
    calibration: dict
    skipped: tuple

    @property
    def any_red(self) -> bool:
        return any(light.color == "red" for light in self.lights.values())

    def to_dict(self) -> dict:
        """``{family: {light, reason, details}}``; calibration details are the worst model's."""
        base = self.report.to_dict()
        out = {}
        for f, light in self.lights.items():
            details = light.details if (f == "calibration" and "model" in light.details) else base[f]["details"]
            out[f] = {"light": light.color, "reason": light.reason, "details": details}
        return out


def board_drift(predictions: Predictions, config: DriftConfig | None = None) -> BoardDrift:
    """The three lights of a dataset (needs its time column; InputError otherwise)."""
    if predictions.time is None:
        raise InputError("drift needs a time column; map one on the Upload page (or --time in the CLI).")
    config = config or DriftConfig()
    probs = [m for m, k in predictions.score_kinds.items() if k == "probability"]
    skipped = tuple(m for m in predictions.scores if m not in probs)
    features = predictions.features if predictions.features.shape[1] else None
    y, t = predictions.y_true, predictions.time
    report = drift_lights(y, predictions.scores[probs[0]] if probs else None, t, features, config=config)
    cal = {probs[0]: report.calibration} if probs else {}
    cal.update({m: calibration_drift(y, predictions.scores[m], t, config) for m in probs[1:]})
    return compose_drift(report, cal, skipped)


def compose_drift(report: DriftReport, cal: dict, skipped: tuple) -> BoardDrift:
    """The board's lights from the first probability model's report and every probability
    model's calibration drift (the worst model lights calibration); rows and aggregates alike."""
    lights = dict(report.lights)
    if cal:
        worst = max(cal, key=lambda m: (_SEVERITY[cal[m].color], _departure(cal[m])))
        reason = cal[worst].reason if len(cal) == 1 else f"{worst}: {cal[worst].reason}"
        lights["calibration"] = Light(
            family="calibration", color=cal[worst].color, reason=reason, details={"model": worst, **cal[worst].summary()}
        )
    elif skipped:
        lights["calibration"] = Light(
            family="calibration",
            color="grey",
            details={},
            reason=(
                f"Needs probabilities: {', '.join(skipped)} give raw scores or decisions, so observed/expected "
                "is undefined. Recalibrate on the Calibration page first."
            ),
        )
    return BoardDrift(lights=lights, report=report, calibration=cal, skipped=skipped)


def heatmap_grid(scores: np.ndarray, kind: str, positive_rate: float, n: int = 101) -> np.ndarray:
    """Thresholds at which the segment heatmap is drawn (each segment's optimum stays exact).

    Rare positives put the interesting thresholds at small probabilities, so for probabilities
    with a positive rate under 10% the grid is geometric (a log axis) from the 0.1% score
    quantile (at least 1e-4) to the largest score; otherwise it is even over the score range.
    """
    lo, hi = float(scores.min()), float(scores.max())
    if kind == "probability" and positive_rate < 0.1 and hi > 0:
        start = max(float(np.quantile(scores, 0.001)), 1e-4)
        if hi > start:
            return np.geomspace(start, hi, n)
    return np.linspace(lo, hi, n)


def check_thresholds(config: BoardConfig, models) -> None:
    """Deployed thresholds may only name models the data has."""
    unknown = set(config.thresholds) - set(models)
    if unknown:
        raise InputError(f"thresholds given for unknown models {sorted(unknown)}; models are {sorted(models)}.")


def progress_ticker(names, progress):
    """``tick(what)`` reporting ``progress(done, total, what)`` over the board's bootstrap steps
    (two per model, plus the paired comparison when there are two models)."""
    total = 2 * len(names) + (1 if len(names) == 2 else 0)
    step = [0]

    def tick(what):
        step[0] += 1
        if progress is not None:
            progress(step[0], total, what)

    return tick


def bootstrap_resolution(counts: ScoreCounts, kind: str, max_exact_scores: int = MAX_EXACT_SCORES) -> float | None:
    """Score binning of the re-optimising bootstrap: exact (None) up to ``max_exact_scores``
    distinct scores, else 1e-4 (probabilities) or 1e-4 of the score range (raw scores)."""
    if len(counts.scores) <= max_exact_scores:
        return None
    if kind == "score":
        return float((counts.scores[0] - counts.scores[-1]) * 1e-4) or None
    return 1e-4


def decision_inputs(result: BoardResult) -> DecisionInputs:
    """The plain numbers the action rules need, taken from a board result."""
    names = tuple(result.models)
    ev = {}
    for n, m in result.models.items():
        lo, hi = (m.ev_ci.low, m.ev_ci.high) if m.ev_ci else (float("nan"), float("nan"))
        ev[n] = (m.ev, lo, hi)
    diff = p_b = None
    diff_und = ""
    if result.comparison is not None:
        d = result.comparison.diff
        diff, p_b = (d.estimate, d.low, d.high), result.comparison.p_b_better
        diff_und = "; ".join(d.undefined.values())
    elif len(names) == 2:
        diff_und = "no bootstrap was run (0 resamples)"
    red, yellow = [], []
    if result.drift is not None:
        for fam, light in result.drift.lights.items():
            if light.color == "red":
                red.append((fam, light.reason))
            elif light.color == "yellow":
                yellow.append((fam, light.reason))
    sharp = {
        n: (m.curve.sharpness, m.curve.sharp_window, m.curve.t_opt, tuple(m.curve.flatness)) for n, m in result.models.items()
    }
    segments = {}
    base = result.models[names[0]]
    for n, m in result.models.items():
        vals = []
        for col, seg in m.segments.items():
            for j, level in enumerate(seg.levels):
                baseline = None
                if n != names[0] and col in base.segments:
                    bseg = base.segments[col]
                    if level in bseg.levels:
                        baseline = float(bseg.ev_deployed[bseg.levels.index(level)])
                vals.append(
                    SegmentValue(
                        column=col, level=str(level), n=float(seg.n[j]), ev=float(seg.ev_deployed[j]), ev_baseline=baseline
                    )
                )
        segments[n] = tuple(vals)
    return DecisionInputs(
        models=names,
        thresholds={n: m.threshold for n, m in result.models.items()},
        ev=ev,
        level=result.config.level,
        diff=diff,
        p_b_better=p_b,
        diff_undefined=diff_und,
        red_lights=tuple(red),
        yellow_lights=tuple(yellow),
        sharpness=sharp,
        segments=segments,
        unit=result.table.unit,
    )
