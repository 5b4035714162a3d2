"""The rules' statistical sentences (``evalcore.decision.Clause``) in the reader's language.

evalcore words each clause in English (``clause.text``, also in the JSON); the board's
"Statistics behind the verdict", the export's small print and the CLI word it again here from the
clause's rule, evidence and facts, with numbers through :mod:`board.words.fmt`. A rule this module
does not know keeps its English text. Pure (no Streamlit).
"""

from __future__ import annotations

import math

from board.words import fmt
from board.words.i18n import N_, is_chinese, t

__all__ = ["action_text", "clause_text"]

_FAMILY = {"feature": N_("feature"), "label": N_("label"), "calibration": N_("calibration")}


def _ok(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _p(p) -> str:
    return fmt.probability(p) if _ok(p) else fmt.DASH


def clause_text(clause, locale: str, result=None) -> str:
    """One clause in ``locale`` (English: evalcore's own sentence)."""
    if not is_chinese(locale):
        return clause.text
    ev = clause.evidence or {}
    facts = clause.facts or {}
    unit = result.table.unit if result is not None else ""
    level = fmt.share(result.config.level, 0) if result is not None else ""
    L = locale

    def money(x, signed=True):
        return fmt.money(x, unit, signed=signed, locale=L)

    rule = clause.rule
    c = getattr(result, "comparison", None) if result is not None else None
    if rule == "red_light":
        fams = facts.get("families") or ()
        return t(
            "Hold: the {families} drift light is red; the numbers rest on an evaluation set that may no longer "
            "represent production, so re-validate on recent data before changing anything.",
            L,
            families=t("、", L).join(t(_FAMILY.get(f, f), L) for f in fams),
        )
    if rule in ("significant_win", "significant_loss", "no_significant_difference", "comparison_undefined") and c is not None:
        d = ev.get("comparison.diff_ev")
        lo, hi = (ev.get("comparison.diff_ev_ci") or (None, None))[:2]
        ci = t("{level} CI [{lo}, {hi}]", L, level=level, lo=money(lo), hi=money(hi))
        kw = dict(a=c.a, b=c.b, ta=fmt.score(c.threshold_a), tb=fmt.score(c.threshold_b), d=money(d), ci=ci)
        kw["p"] = _p(ev.get("comparison.p_b_better"))
        if rule == "comparison_undefined":
            return t("Model {b} cannot be compared with {a}: the interval could not be formed.", L, a=c.a, b=c.b)
        if rule == "significant_win" and clause.kind != "act":
            return t(
                "On this evaluation set model {b} at threshold {tb} would beat {a} at {ta} by {d} per decision "
                "({ci} excludes 0; P({b} better) {p}), but do not roll it out until the drift is understood.",
                L,
                **kw,
            )
        if rule == "significant_win":
            return t(
                "Roll out model {b} at threshold {tb} (value {d} per decision vs {a} at {ta}; {ci} excludes 0; "
                "P({b} better) {p}).",
                L,
                **kw,
            )
        if rule == "significant_loss":
            kw["d"] = money(-d if _ok(d) else d, signed=False)
            return t("Keep model {a} at threshold {ta}: {b} is worse by {d} per decision ({ci} excludes 0).", L, **kw)
        return t(
            "Keep model {a} at threshold {ta}: no significant difference from {b} (Δ {d} per decision, {ci} includes 0; "
            "P({b} better) {p}).",
            L,
            **kw,
        )
    if rule == "single_model" and result is not None:
        a = next(iter(result.models))
        m = result.models[a]
        lo, hi = (ev.get(f"models.{a}.at_threshold.ev_ci") or (None, None))[:2]
        ci = (
            t("{level} CI [{lo}, {hi}]", L, level=level, lo=money(lo), hi=money(hi))
            if _ok(lo) and _ok(hi)
            else t("no bootstrap interval", L)
        )
        return t(
            "Model {a} at threshold {t} is worth {ev} per decision ({ci}).",
            L,
            a=a,
            t=fmt.score(m.threshold),
            ev=money(ev.get(f"models.{a}.at_threshold.ev")),
            ci=ci,
        )
    if rule == "sharp_curve":
        model = facts.get("model", "")
        flat = facts.get("flat") or ()
        rb_model, rb_t = facts.get("rollback", (model, None))
        if rb_model == model:
            then = t(
                "keep the threshold inside that range and re-check the curve weekly; the fallback is threshold {t}",
                L,
                t=fmt.score(rb_t),
            )
        else:
            then = t("if scores shift, roll back to {model} at threshold {t}", L, model=rb_model, t=fmt.score(rb_t))
        band = (
            t(" (EV stays within 1% only for t in [{lo}, {hi}])", L, lo=fmt.score(flat[0]), hi=fmt.score(flat[1]))
            if len(flat) == 2 and all(_ok(x) for x in flat)
            else ""
        )
        return t(
            "Monitor closely: {model}'s value curve is sharp — EV moves up to {share} near its optimum{band}; {then}.",
            L,
            model=model,
            share=fmt.share(facts.get("sharpness"), 0),
            band=band,
            then=then,
        )
    if rule == "worst_segment":
        seg = facts.get("segment")
        if seg is None:
            return clause.text
        name = f"{seg.column}={seg.level}"
        if seg.ev_baseline is not None and _ok(seg.ev_baseline):
            return t(
                "Watch segment {segment}: its value falls below the deployed model's at this threshold "
                "({ev} vs {base} per decision).",
                L,
                segment=name,
                ev=money(seg.ev),
                base=money(seg.ev_baseline),
            )
        return t(
            "Weakest segment: {segment} at {ev} per decision (n={n}).",
            L,
            segment=name,
            ev=money(seg.ev),
            n=fmt.count(seg.n),
        )
    return clause.text


def action_text(action, locale: str, result=None) -> str:
    """Every clause of the action in ``locale``, one after another."""
    if action is None:
        return ""
    if not is_chinese(locale):
        return action.text
    return "".join(clause_text(c, locale, result) for c in action.clauses)
