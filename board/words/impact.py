"""The impact report in words (issue 16 item 4): the verdict-level change first, then the
uplift with its unit and the optimum threshold, before -> after. Pure (no Streamlit)."""

from __future__ import annotations

from board.words import fmt

__all__ = ["ARROW", "summary", "summary_markdown"]

ARROW = "→"


def _money_pair(before, after, unit_before, unit_after) -> str:
    """ "+36 → +45 EUR" (one unit), or each side with its own unit when the unit changed."""
    if unit_before is not None and unit_before != unit_after:
        return f"{fmt.money(before, unit_before, signed=True)} {ARROW} {fmt.money(after, unit_after, signed=True)}"
    return f"{fmt.money(before, signed=True)} {ARROW} {fmt.money(after, unit_after, signed=True)}"


def summary(entry: dict) -> str:
    """One line: "HOLD → HOLD; uplift +36 → +45 EUR per decision; optimum threshold 0.086 → 0.068".

    ``entry`` is a :func:`board.services.signoff.dataset_impact`. Without a version in force the
    before side is "—". The uplift is EV of model B minus EV of model A at their deployed
    thresholds (left out with one model); with several models each optimum is named."""
    before = entry.get("verdict_before") or fmt.DASH
    parts = [f"{before} {ARROW} {entry['verdict_after']}"]
    if entry.get("model_b") is not None:
        pair = _money_pair(entry.get("uplift_before"), entry.get("uplift_after"), entry.get("unit_before"), entry["unit_after"])
        parts.append(f"uplift ({entry['model_b']} − {entry['model_a']}) {pair} per decision")
    models = entry.get("models") or {}
    moves = [(m, f"{fmt.score(r.get('t_opt_before'))} {ARROW} {fmt.score(r.get('t_opt_after'))}") for m, r in models.items()]
    if len(moves) == 1:
        parts.append(f"optimum threshold {moves[0][1]}")
    elif moves:
        parts.append("optimum threshold " + ", ".join(f"{m} {move}" for m, move in moves))
    return "; ".join(parts)


def summary_markdown(entry: dict, escape=lambda s: s) -> str:
    """:func:`summary`, bold only when the verdict changed (``escape``: the page's Markdown escaper)."""
    text = escape(entry.get("summary") or summary(entry))
    return f"**{text}**" if entry.get("verdict_changed") else text
