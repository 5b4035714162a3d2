"""The action capsule (SPEC §3.9): one or two plain sentences from explicit, tested rules.

Each rule is a small function of plain numbers returning a :class:`Clause` (its sentence,
the rule name, and the evidence: JSON paths into ``BoardResult.to_dict()`` with the values
they hold), or None when it has nothing to say. :func:`action` orders them:

1. any red drift light → **hold**, whatever the comparison says (a win on stale data is no win);
2. the comparison: significant win (roll out B) / no significant difference (keep the
   current model A: it is already deployed) / significant loss (keep A);
3. a sharp curve → monitor and name the rollback threshold;
4. the worst segment → watch it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ._json import json_float

__all__ = [
    "Clause",
    "Action",
    "DecisionInputs",
    "SegmentValue",
    "rule_red_lights",
    "rule_comparison",
    "rule_single",
    "rule_sharp_curve",
    "rule_worst_segment",
    "action",
    "SHARP_LIMIT",
    "MIN_SEGMENT_ROWS",
]

SHARP_LIMIT = 0.10  # relative EV change within the sharpness window above which a curve counts as sharp
MIN_SEGMENT_ROWS = 100  # smaller segments are too noisy to name


def _ok(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _money(x, unit) -> str:
    return f"{x:+,.2f}{(' ' + unit) if unit else ''}" if _ok(x) else "—"


def _share(p) -> str:
    """A bootstrap share: a finite number of replicates never shows certainty ("> 99.9%")."""
    if p > 0.999:
        return "> 99.9%"
    if p < 0.001:
        return "< 0.1%"
    return f"= {p:.0%}"


def _t(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == math.inf:
        return "∞ (act on no one)"
    return f"{x:.4g}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Clause:
    """One sentence of the action capsule and the numbers it rests on.

    rule : the rule that produced it; kind : "hold" | "act" | "keep" | "watch" | "info";
    evidence : JSON path in the board result → the value shown; page : where to drill down;
    facts : the rule's plain values for a presentation layer that words the clause itself
    (e.g. the segment's column and level); not part of ``to_dict`` (the evidence is).
    """

    rule: str
    kind: str
    text: str
    evidence: dict = field(default_factory=dict)
    page: str = "board"
    facts: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        return {"rule": self.rule, "kind": self.kind, "text": self.text, "evidence": _json_safe(self.evidence), "page": self.page}


def _json_safe(x):
    """Evidence for JSON: undefined numbers (NaN, inf) become None, never 0."""
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, float):
        return json_float(x)
    return x


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    clauses: tuple
    verdict: str  # "hold" | "roll out" | "keep" | "undecided"

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.clauses)

    def to_dict(self) -> dict:
        return {"text": self.text, "verdict": self.verdict, "clauses": [c.to_dict() for c in self.clauses]}


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentValue:
    column: str
    level: str
    n: float
    ev: float  # EV per decision of the model in this segment at its threshold
    ev_baseline: float | None = None  # the current model A's, at A's threshold (for model B)


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionInputs:
    """Plain numbers the rules need (built from a BoardResult by ``evalcore.board``)."""

    models: tuple  # (A,) or (A, B): A is the current model
    thresholds: dict
    ev: dict  # model -> (estimate, low, high)
    level: float = 0.95
    diff: tuple | None = None  # (estimate, low, high) of EV_B − EV_A
    p_b_better: float | None = None
    diff_undefined: str = ""
    red_lights: tuple = ()  # ((family, reason), …)
    yellow_lights: tuple = ()
    sharpness: dict = field(default_factory=dict)  # model -> (sharpness, window, t_opt, (flat_low, flat_high))
    segments: dict = field(default_factory=dict)  # model -> (SegmentValue, …) at that model's threshold
    unit: str = ""


def rule_red_lights(inp: DecisionInputs) -> Clause | None:
    if not inp.red_lights:
        return None
    fams = ", ".join(f for f, _ in inp.red_lights)
    first_reason = inp.red_lights[0][1]
    return Clause(
        rule="red_light",
        kind="hold",
        page="drift",
        text=(
            f"Hold: the {fams} drift light{'s are' if len(inp.red_lights) > 1 else ' is'} red "
            f"({first_reason}); the numbers rest on an evaluation set that may no longer represent "
            "production, so re-validate on recent data before changing anything."
        ),
        evidence={f"drift.{f}.light": "red" for f, _ in inp.red_lights},
        facts={"families": tuple(f for f, _ in inp.red_lights)},
    )


def rule_comparison(inp: DecisionInputs, *, hold: bool = False) -> Clause | None:
    """Two models: roll out B only when the CI of EV_B − EV_A excludes 0 and is above it.

    With ``hold`` (a red light) a win is reported as evidence, never as an instruction."""
    if len(inp.models) != 2:
        return None
    a, b = inp.models
    ta, tb = inp.thresholds[a], inp.thresholds[b]
    pct = f"{inp.level:.0%}"
    ev = {
        "comparison.diff_ev": inp.diff[0] if inp.diff else None,
        "comparison.diff_ev_ci": list(inp.diff[1:]) if inp.diff else None,
        "comparison.p_b_better": inp.p_b_better,
    }
    if inp.diff is None or not all(_ok(x) for x in inp.diff):
        why = inp.diff_undefined or "the interval could not be formed"
        return Clause(
            rule="comparison_undefined",
            kind="info",
            page="uncertainty",
            evidence=ev,
            text=f"Model {b} cannot be compared with {a}: {why}.",
        )
    d, lo, hi = inp.diff
    ci = f"{pct} CI [{_money(lo, inp.unit)}, {_money(hi, inp.unit)}]"
    pb = f"; P({b} better) {_share(inp.p_b_better)}" if _ok(inp.p_b_better) else ""
    if lo > 0 and hold:
        return Clause(
            rule="significant_win",
            kind="info",
            page="uncertainty",
            evidence=ev,
            text=(
                f"On this evaluation set model {b} at threshold {_t(tb)} would beat {a} at {_t(ta)} by "
                f"{_money(d, inp.unit)} per decision ({ci} excludes 0{pb}), but do not roll it out until the "
                "drift is understood."
            ),
        )
    if lo > 0:
        return Clause(
            rule="significant_win",
            kind="act",
            page="uncertainty",
            evidence=ev,
            text=(
                f"Roll out model {b} at threshold {_t(tb)} (value {_money(d, inp.unit)} per decision vs "
                f"{a} at {_t(ta)}; {ci} excludes 0{pb})."
            ),
        )
    if hi < 0:
        return Clause(
            rule="significant_loss",
            kind="keep",
            page="uncertainty",
            evidence=ev,
            text=(
                f"Keep model {a} at threshold {_t(ta)}: {b} is worse by {_money(-d, inp.unit).lstrip('+')} per "
                f"decision ({ci} excludes 0)."
            ),
        )
    return Clause(
        rule="no_significant_difference",
        kind="keep",
        page="uncertainty",
        evidence=ev,
        text=(
            f"Keep model {a} at threshold {_t(ta)}: no significant difference from {b} "
            f"(Δ {_money(d, inp.unit)} per decision, {ci} includes 0{pb})."
        ),
    )


def rule_single(inp: DecisionInputs) -> Clause | None:
    """One model: state its value at the deployed threshold with its interval."""
    if len(inp.models) != 1:
        return None
    (a,) = inp.models
    est, lo, hi = inp.ev[a]
    ci = (
        f"{inp.level:.0%} CI [{_money(lo, inp.unit)}, {_money(hi, inp.unit)}]" if _ok(lo) and _ok(hi) else "no bootstrap interval"
    )
    return Clause(
        rule="single_model",
        kind="info",
        page="uncertainty",
        evidence={f"models.{a}.at_threshold.ev": est, f"models.{a}.at_threshold.ev_ci": [lo, hi]},
        text=f"Model {a} at threshold {_t(inp.thresholds[a])} is worth {_money(est, inp.unit)} per decision ({ci}).",
    )


def recommended(inp: DecisionInputs, comparison: Clause | None) -> str:
    if comparison is not None and comparison.rule == "significant_win":
        return inp.models[1]
    return inp.models[0]


def rule_sharp_curve(inp: DecisionInputs, model: str, rollback: tuple) -> Clause | None:
    """A sharp curve near the optimum: monitor and name the rollback (model, threshold)."""
    if model not in inp.sharpness:
        return None
    sharp, window, t_opt, flat = inp.sharpness[model]
    if not _ok(sharp) or sharp <= SHARP_LIMIT:
        return None
    rb_model, rb_t = rollback
    if rb_model == model:
        then = f"keep the threshold inside that range and re-check the curve weekly; the fallback is threshold {_t(rb_t)}"
    else:
        then = f"if scores shift, roll back to {rb_model} at threshold {_t(rb_t)}"
    band = f" (EV stays within 1% only for t in [{_t(flat[0])}, {_t(flat[1])}])" if flat and all(_ok(x) for x in flat) else ""
    return Clause(
        rule="sharp_curve",
        kind="watch",
        page="threshold",
        evidence={f"models.{model}.curve.sharpness": sharp, f"models.{model}.curve.flatness": list(flat or ())},
        facts={"model": model, "sharpness": sharp, "flat": tuple(flat or ()), "rollback": (rb_model, rb_t)},
        text=(
            f"Monitor closely: {model}'s value curve is sharp — EV moves up to {sharp:.0%} within ±{window:.3g} "
            f"of its optimum{band}; {then}."
        ),
    )


def rule_worst_segment(inp: DecisionInputs, model: str) -> Clause | None:
    """The segment to watch: where the recommended model loses most against the current one
    (two models), or its lowest-value segment (one model). Segments under MIN_SEGMENT_ROWS are skipped."""
    segs = [s for s in inp.segments.get(model, ()) if s.n >= MIN_SEGMENT_ROWS and _ok(s.ev)]
    if not segs:
        return None
    if len(inp.models) == 2 and model == inp.models[1]:
        losing = [s for s in segs if _ok(s.ev_baseline) and s.ev < s.ev_baseline]
        if not losing:
            return None
        worst = min(losing, key=lambda s: (s.ev - s.ev_baseline) * s.n)  # the most money lost in total
        return Clause(
            rule="worst_segment",
            kind="watch",
            page="threshold",
            evidence={
                f"models.{model}.segments.{worst.column}.{worst.level}.ev": worst.ev,
                f"models.{inp.models[0]}.segments.{worst.column}.{worst.level}.ev": worst.ev_baseline,
            },
            facts={"model": model, "segment": worst},
            text=(
                f"Watch segment {worst.column}={worst.level}: its value falls below the deployed model's at "
                f"this threshold ({_money(worst.ev, inp.unit)} vs {_money(worst.ev_baseline, inp.unit)} per "
                "decision)."
            ),
        )
    worst = min(segs, key=lambda s: s.ev)
    return Clause(
        rule="worst_segment",
        kind="watch",
        page="threshold",
        evidence={f"models.{model}.segments.{worst.column}.{worst.level}.ev": worst.ev},
        facts={"model": model, "segment": worst},
        text=(f"Weakest segment: {worst.column}={worst.level} at {_money(worst.ev, inp.unit)} per decision (n={worst.n:,.0f})."),
    )


def action(inp: DecisionInputs) -> Action:
    """Apply the rules in order; a red light makes the verdict "hold" whatever else holds."""
    hold = rule_red_lights(inp)
    comp = rule_comparison(inp, hold=hold is not None) if len(inp.models) == 2 else rule_single(inp)
    model = inp.models[0] if hold else recommended(inp, comp)
    a = inp.models[0]
    sharp = rule_sharp_curve(inp, model, (a, inp.thresholds[a]))
    seg = rule_worst_segment(inp, model)
    clauses = [c for c in (hold, comp, sharp, seg) if c is not None]
    if hold:
        verdict = "hold"
    else:
        verdict = {"act": "roll out", "keep": "keep"}.get(comp.kind if comp else "", "undecided")
    return Action(clauses=tuple(clauses), verdict=verdict)
