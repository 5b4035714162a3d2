"""The board's verdict in plain words (issue 14 item 1), for the board page, its exports and the
meeting screen alike.

``plain_verdict(result)`` turns the rules' decision (``evalcore.decision.action``: which rule
fired, with its numbers) into what a meeting reads first: one large verdict (ROLL OUT B /
KEEP A / HOLD), one sentence without statistics, two or three "because" bullets each naming
its evidence page, and the KPI tiles — which never contradict the verdict (under HOLD the
uplift is shown muted as "not actionable: drift"). The statistical sentences of the rules stay
available as ``statistics`` for a details toggle and tooltips.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from board.words import fmt
from board.words.i18n import N_, t
from board.words.lens import Lens

__all__ = ["Because", "Tile", "Verdict", "plain_verdict", "baseline_ev"]


@dataclass(frozen=True, slots=True)
class Because:
    text: str  # plain words, no statistics
    page: str  # evidence page: "uncertainty" | "drift" | "threshold"
    detail: str = ""  # the statistics behind it (tooltip)


@dataclass(frozen=True, slots=True)
class Tile:
    label: str
    value: str  # compact money, formatted
    note: str = ""  # a second line: "vs acting on no one: …", "not actionable: drift"
    muted: bool = False  # shown greyed: a number that is not the recommendation
    help: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: str  # "roll out" | "keep" | "hold" | "single" | "undecided"
    word: str  # "ROLL OUT B" / "KEEP A" / "HOLD" — the large word
    at: str  # "at threshold 0.412" (empty under HOLD)
    sentence: str  # at most 25 words, no statistics
    because: tuple  # (Because, …), two or three
    tiles: tuple  # (Tile, …)
    statistics: str  # the rules' full sentences with KS / CI / p (details toggle)
    caveat: str = ""  # small evidence: "few positives: the intervals are approximate"
    segment_column: str | None = None  # the segment column the bullets talk about (the heatmap shows it)


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def baseline_ev(model) -> float:
    """EV per decision of acting on no one (the curve's first point, threshold +inf)."""
    ev = model.curve.ev
    return float(ev[0]) if len(ev) else float("nan")


_DRIFT_PLAIN = {
    "feature": N_("Drift: the applicants' data changed in the latest period"),
    "label": N_("Drift: the share of positive cases changed in the latest period"),
    "calibration": N_("Drift: the scores no longer match the outcomes seen in the latest period"),
}
_DRIFT_NAME = {"feature": N_("feature"), "label": N_("label"), "calibration": N_("calibration")}


def _drift_because(result, locale: str) -> Because | None:
    drift = result.drift
    if drift is None:
        return None
    red = [f for f in ("feature", "label", "calibration") if drift.lights[f].color == "red"]
    yellow = [f for f in ("feature", "label", "calibration") if drift.lights[f].color == "yellow"]
    if red:
        f = red[0]
        more = ""
        if len(red) == 2:
            more = t(" (and one more red light)", locale)
        elif len(red) > 2:
            more = t(" (and {n} more red lights)", locale, n=len(red) - 1)
        return Because(t(_DRIFT_PLAIN[f], locale) + more, "drift", "; ".join(drift.lights[x].reason for x in red))
    if yellow:
        names = t(", ", locale).join(t(_DRIFT_NAME[f], locale) for f in yellow)
        return Because(
            t("The data look mostly like before; {names} drift is worth watching", locale, names=names),
            "drift",
            "; ".join(drift.lights[x].reason for x in yellow),
        )
    return Because(t("The data look like before: no drift light is red or yellow", locale), "drift")


def _segment_because(clause, unit: str, locale: str, lens: Lens) -> Because:
    seg = clause.facts["segment"]
    name = f"{seg.column} = {seg.level}"
    ev = fmt.money(lens.amount(seg.ev), unit, locale=locale)
    if seg.ev_baseline is not None and _finite(seg.ev_baseline):
        base = fmt.money(lens.amount(seg.ev_baseline), unit, locale=locale)
        if lens.loss:
            msg = t(
                "Watch {segment}: there the new model loses more than today ({ev} vs {base} expected loss per decision)", locale
            )
        else:
            msg = t("Watch {segment}: there the new model earns less than today ({ev} vs {base} per decision)", locale)
        text = msg.format(segment=name, ev=ev, base=base)
    else:
        if lens.loss:
            msg = t("Costliest segment: {segment}, {ev} expected loss per decision", locale)
        else:
            msg = t("Weakest segment: {segment}, {ev} per decision", locale)
        text = msg.format(segment=name, ev=ev)
    return Because(text, "threshold", clause.text)


def _sharp_because(clause, locale: str) -> Because:
    flat = clause.facts.get("flat") or ()
    if len(flat) == 2 and all(_finite(x) for x in flat):
        text = t(
            "The value drops quickly away from the threshold: keep it between {lo} and {hi}",
            locale,
            lo=fmt.score(flat[0]),
            hi=fmt.score(flat[1]),
        )
    else:
        text = t("The value drops quickly away from the threshold: re-check the curve weekly", locale)
    return Because(text, "threshold", clause.text)


def _tiles(result, kind: str, locale: str, lens: Lens) -> tuple:
    unit = result.table.unit
    tiles = []
    for name, m in result.models.items():
        base = baseline_ev(m)
        note = (
            t(
                "{diff} vs acting on no one",
                locale,
                diff=fmt.money(lens.amount(m.ev - base), unit, signed=True, compact=True, locale=locale),
            )
            if _finite(m.ev) and _finite(base)
            else ""
        )
        tiles.append(
            Tile(
                label=t("{model} at {t}: {quantity}", locale, model=name, t=fmt.score(m.threshold), quantity=lens.quantity),
                value=fmt.money(lens.amount(m.ev), unit, compact=True, locale=locale),
                note=note,
                help=t(
                    N_(
                        "Expected loss per decision: the average money lost, per case scored, when acting on the "
                        "cases at or above the threshold, priced by the value table (positive = money lost)."
                    )
                    if lens.loss
                    else N_(
                        "Expected value per decision (EV): the average money, per case scored, of acting on the "
                        "cases at or above the threshold, priced by the value table."
                    ),
                    locale,
                ),
            )
        )
    c = result.comparison
    if c is not None:
        d = c.diff
        if kind == "hold":
            note, muted = t("not actionable: drift", locale), True
        elif kind == "roll out":
            note, muted = t("{b} better in {p} of resamples", locale, b=c.b, p=fmt.probability(c.p_b_better)), False
        elif _finite(d.low) and _finite(d.high):
            note, muted = t("not a reliable difference", locale), True
        else:
            note, muted = t("cannot be compared", locale), True
        lo, hi = lens.interval(d.low, d.high)
        tiles.append(
            Tile(
                label=t(
                    N_("{b} vs {a}: change in loss per decision") if lens.loss else N_("{b} vs {a}: gain per decision"),
                    locale,
                    a=c.a,
                    b=c.b,
                ),
                value=fmt.money(lens.amount(d.estimate), unit, signed=True, compact=True, locale=locale),
                note=note,
                muted=muted,
                help=t(
                    "{level} interval: {lo} to {hi} per decision; {b} better in {p} of {n} resamples.",
                    locale,
                    level=fmt.share(result.config.level, 0),
                    lo=fmt.money(lo, unit, signed=True, locale=locale),
                    hi=fmt.money(hi, unit, signed=True, locale=locale),
                    b=c.b,
                    p=fmt.probability(c.p_b_better),
                    n=fmt.count(d.n_resamples),
                ),
            )
        )
    return tuple(tiles)


def _caveat(result, locale: str) -> str:
    """Small evidence said in words (``evalcore.evidence.SmallEvidence``): which limit was crossed."""
    small = getattr(result, "small_evidence", None)
    if small is None or not small.approximate:
        return ""
    parts = []
    if "few_positives" in small.reasons:
        n = fmt.count(small.positives)
        if small.positives_basis == "groups":
            parts.append(t("only {n} customers with a positive case (under {limit})", locale, n=n, limit=small.positive_limit))
        elif small.positives_basis == "strata":
            parts.append(
                t(
                    "only {n} positive cases in {stratum} (under {limit})",
                    locale,
                    n=n,
                    stratum=small.stratum,
                    limit=small.positive_limit,
                )
            )
        else:
            parts.append(t("only {n} positive cases (under {limit})", locale, n=n, limit=small.positive_limit))
    if "small_cell" in small.reasons:
        parts.append(
            t(
                "an outcome the value rests on was seen only about {n} times (under {limit})",
                locale,
                n=fmt.count(small.min_expected_cell),
                limit=small.cell_limit,
            )
        )
    return t("Little evidence: {what}. The intervals are approximate.", locale, what="; ".join(parts))


def plain_verdict(result, *, locale: str = "en", lens: Lens | None = None) -> Verdict:
    """The verdict, its sentence, its reasons and its tiles, from a BoardResult, as value or as
    loss (``lens``; the decision is the same either way)."""
    if lens is not None and locale == "en":  # a reader's lens carries their language
        locale = lens.locale
    lens = lens or Lens("value", locale)
    action = result.action
    unit = result.table.unit
    clauses = {c.rule: c for c in action.clauses} if action else {}
    names = list(result.models)
    a = names[0]
    c = result.comparison
    because: list[Because] = []
    segment_column = None

    if action is not None and action.verdict == "hold":
        kind, word, at = "hold", t("HOLD", locale), ""
        sentence = t("Change nothing yet: the data have shifted, so check the models on recent data first.", locale)
        because.append(_drift_because(result, locale))
        if c is not None and "significant_win" in clauses:
            because.append(
                Because(
                    t(
                        N_(
                            "On this data {b} would lose {d} less per decision, but that is not actionable until the drift is understood"
                        )
                        if lens.loss
                        else N_(
                            "On this data {b} would earn {d} more per decision, but that is not actionable until the drift is understood"
                        ),
                        locale,
                        b=c.b,
                        d=fmt.money(c.diff.estimate, unit, locale=locale),
                    ),
                    "uncertainty",
                    clauses["significant_win"].text,
                )
            )
    elif c is not None:
        comp = next((x for x in action.clauses if x.rule.startswith(("significant", "no_significant", "comparison"))), None)
        rule = comp.rule if comp else "comparison_undefined"
        ta, tb = fmt.score(c.threshold_a), fmt.score(c.threshold_b)
        d = c.diff
        if rule == "significant_win":
            kind, word, at = "roll out", t("ROLL OUT {b}", locale, b=c.b), t("at threshold {t}", locale, t=tb)
            sentence = t(
                N_("Switch to {b} at threshold {t}: it loses about {d} less per decision than {a}.")
                if lens.loss
                else N_("Switch to {b} at threshold {t}: it earns about {d} more per decision than {a}."),
                locale,
                b=c.b,
                t=tb,
                a=c.a,
                d=fmt.money(d.estimate, unit, locale=locale),
            )
            because.append(
                Because(
                    t(
                        "{b} came out ahead in {p} of {n} re-drawn samples of the evaluation data",
                        locale,
                        b=c.b,
                        p=fmt.probability(c.p_b_better),
                        n=fmt.count(d.n_resamples),
                    ),
                    "uncertainty",
                    comp.text,
                )
            )
        elif rule == "significant_loss":
            kind, word, at = "keep", t("KEEP {a}", locale, a=c.a), t("at threshold {t}", locale, t=ta)
            sentence = t(
                N_("Keep {a} at threshold {t}: {b} would lose about {d} more per decision.")
                if lens.loss
                else N_("Keep {a} at threshold {t}: {b} would lose about {d} per decision."),
                locale,
                a=c.a,
                t=ta,
                b=c.b,
                d=fmt.money(-d.estimate, unit, locale=locale),
            )
            because.append(
                Because(
                    t(
                        "{b} came out behind in {p} of {n} re-drawn samples",
                        locale,
                        b=c.b,
                        p=fmt.probability(1 - c.p_b_better),
                        n=fmt.count(d.n_resamples),
                    ),
                    "uncertainty",
                    comp.text,
                )
            )
        elif rule == "no_significant_difference":
            kind, word, at = "keep", t("KEEP {a}", locale, a=c.a), t("at threshold {t}", locale, t=ta)
            sentence = t("Keep {a} at threshold {t}: {b} is not reliably better on this data.", locale, a=c.a, t=ta, b=c.b)
            because.append(
                Because(
                    t(
                        N_(
                            "The change in loss with {b} could be anywhere from {lo} to {hi} per decision: chance alone could explain it"
                        )
                        if lens.loss
                        else N_(
                            "The gain of {b} could be anywhere from {lo} to {hi} per decision: chance alone could explain it"
                        ),
                        locale,
                        b=c.b,
                        lo=fmt.money(lens.interval(d.low, d.high)[0], unit, signed=True, locale=locale),
                        hi=fmt.money(lens.interval(d.low, d.high)[1], unit, signed=True, locale=locale),
                    ),
                    "uncertainty",
                    comp.text,
                )
            )
        else:
            kind, word, at = "undecided", t("NO VERDICT", locale), ""
            sentence = t("{b} cannot be compared with {a} on this data yet.", locale, a=c.a, b=c.b)
            because.append(
                Because(
                    t("Why: {why}", locale, why="; ".join(map(str, c.diff.undefined.values())) or (comp.text if comp else "")),
                    "uncertainty",
                    comp.text if comp else "",
                )
            )
        drift = _drift_because(result, locale)
        if drift is not None:
            because.append(drift)
    else:
        m = result.models[a]
        base = baseline_ev(m)
        kind, word, at = "single", a, t("at threshold {t}", locale, t=fmt.score(m.threshold))
        if _finite(m.ev) and _finite(base):
            sentence = t(
                N_(
                    "Acting on the cases {a} scores at or above {t} costs {ev} per decision, {diff} compared with acting on no one."
                )
                if lens.loss
                else N_(
                    "Acting on the cases {a} scores at or above {t} is worth {ev} per decision, {diff} compared with acting on no one."
                ),
                locale,
                a=a,
                t=fmt.score(m.threshold),
                ev=fmt.money(lens.amount(m.ev), unit, locale=locale),
                diff=fmt.money(lens.amount(m.ev - base), unit, signed=True, locale=locale),
            )
        else:
            sentence = t("The value of {a} cannot be computed on this data.", locale, a=a)
        single = clauses.get("single_model")
        if m.ev_ci is not None and _finite(m.ev_ci.low) and _finite(m.ev_ci.high):
            because.append(
                Because(
                    t(
                        "On other samples like this one the {quantity} would likely lie between {lo} and {hi}",
                        locale,
                        quantity=lens.quantity,
                        lo=fmt.money(lens.interval(m.ev_ci.low, m.ev_ci.high)[0], unit, locale=locale),
                        hi=fmt.money(lens.interval(m.ev_ci.low, m.ev_ci.high)[1], unit, locale=locale),
                    ),
                    "uncertainty",
                    single.text if single else "",
                )
            )
        drift = _drift_because(result, locale)
        if drift is not None:
            because.append(drift)

    for rule in ("worst_segment", "sharp_curve"):
        if rule in clauses and len(because) < 3:
            if rule == "worst_segment":
                because.append(_segment_because(clauses[rule], unit, locale, lens))
                segment_column = clauses[rule].facts["segment"].column
            else:
                because.append(_sharp_because(clauses[rule], locale))

    return Verdict(
        kind=kind,
        word=word,
        at=at,
        sentence=sentence,
        because=tuple(b for b in because if b is not None)[:3],
        tiles=_tiles(result, kind, locale, lens),
        statistics=action.text if action else "",
        caveat=_caveat(result, locale),
        segment_column=segment_column,
    )
