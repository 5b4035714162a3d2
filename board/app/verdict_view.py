"""The board's verdict banner, its "because" bullets and its KPI tiles (issue 14 item 1, 3).

The words come from :func:`board.words.verdict.plain_verdict`; this module only lays them out.
Tiles are HTML boxes that wrap instead of truncating (``st.metric`` cuts a long value to
"-946.42…" on a narrow column), so no value or label is ever cut at any width.
"""

from __future__ import annotations

import streamlit as st

from board.app.text import html_text
from board.export.onepager import KIND_STYLE  # one palette for the page and its exports

PAGES = {"uncertainty": "views/uncertainty.py", "drift": "views/drift.py", "threshold": "views/threshold_value.py"}

CSS = """
<style>
.eb-verdict{border-left:10px solid var(--eb-b);background:var(--eb-bg);padding:0.55rem 1.1rem;border-radius:6px}
.eb-verdict .eb-word{font-size:2.2rem;font-weight:800;letter-spacing:0.02em;color:var(--eb-w);line-height:1.1}
.eb-verdict .eb-at{font-size:1.25rem;font-weight:600;color:#333;margin-left:0.6rem}
.eb-verdict .eb-sentence{font-size:1.25rem;line-height:1.35;margin-top:0.2rem;color:#1a1a1a}
.eb-verdict .eb-caveat{font-size:0.95rem;margin-top:0.3rem;color:#8a4b00}
.eb-tiles{display:flex;flex-wrap:wrap;gap:0.6rem}
.eb-tile{flex:1 1 11rem;min-width:0;border:1px solid #d5d9e0;border-radius:8px;padding:0.45rem 0.75rem;background:#fff}
.eb-tile .eb-label{font-size:0.85rem;color:#444;overflow-wrap:anywhere}
.eb-tile .eb-value{font-size:1.6rem;font-weight:700;line-height:1.2;white-space:nowrap}
.eb-tile .eb-note{font-size:0.85rem;color:#333;overflow-wrap:anywhere}
.eb-tile.eb-muted{background:#f4f4f4;border-style:dashed}
.eb-tile.eb-muted .eb-value{color:#8a8a8a}
.eb-because{margin:0;padding-left:1.2rem;font-size:1rem;line-height:1.4}
.st-key-board_verdict [data-testid^='stPageLink'] *{white-space:normal !important;overflow:visible !important;
  text-overflow:clip !important}
</style>
"""


def banner(v, *, word_size: str | None = None) -> None:
    """The verdict: the large word, "at threshold …", one plain sentence, the caveat if any."""
    border, bg, word = KIND_STYLE.get(v.kind, KIND_STYLE["undecided"])
    size = f"font-size:{word_size};" if word_size else ""
    caveat = f"<div class='eb-caveat'>⚠ {html_text(v.caveat)}</div>" if v.caveat else ""
    at = f"<span class='eb-at'>{html_text(v.at)}</span>" if v.at else ""
    st.html(
        CSS + f"<div class='eb-verdict' data-kind='{html_text(v.kind)}' style='--eb-b:{border};--eb-bg:{bg};--eb-w:{word}'>"
        f"<span class='eb-word' style='{size}'>{html_text(v.word)}</span>{at}"
        f"<div class='eb-sentence'>{html_text(v.sentence)}</div>{caveat}</div>"
    )


def because(v, *, links: bool) -> None:
    """The two or three reasons; each links to its evidence page (not on a meeting screen)."""
    for b in v.because:
        if links and b.page in PAGES:
            st.page_link(PAGES[b.page], label=b.text, icon=":material/arrow_forward:", help=b.detail or None)
        else:
            st.html(f"<ul class='eb-because'><li title='{html_text(b.detail)}'>{html_text(b.text)}</li></ul>")


def tiles(v, *, extra_notes: dict | None = None) -> None:
    """KPI tiles; ``extra_notes`` (tile index → text) adds a line such as "vs last saved"."""
    out = []
    for i, t in enumerate(v.tiles):
        notes = [n for n in (t.note, (extra_notes or {}).get(i, "")) if n]
        out.append(
            f"<div class='eb-tile{' eb-muted' if t.muted else ''}' title='{html_text(t.help)}'>"
            f"<div class='eb-label'>{html_text(t.label)}</div>"
            f"<div class='eb-value'>{html_text(t.value)}</div>"
            + "".join(f"<div class='eb-note'>{html_text(n)}</div>" for n in notes)
            + "</div>"
        )
    st.html(CSS + "<div class='eb-tiles'>" + "".join(out) + "</div>")


def pending(result, lens, locale: str, n_resamples: int) -> None:
    """While the whole board is computed in the background (issue 18 item 1): a banner saying the
    verdict follows, and the point estimates, which are final, as tiles (each model's value per
    decision at its threshold and, with two models, B − A), their intervals marked as computing."""
    from board.words import fmt
    from board.words.i18n import t

    unit = result.table.unit
    st.html(
        CSS + "<div class='eb-verdict' data-kind='pending' style='--eb-b:#9aa5b1;--eb-bg:#f3f5f7;--eb-w:#44505c'>"
        f"<span class='eb-word'>{html_text(t('Verdict: computing …', locale))}</span>"
        "<div class='eb-sentence'>"
        + html_text(
            t(
                "The numbers below are final; their intervals ({n} bootstrap replicates), the comparison's "
                "reliability and the verdict follow in a few seconds, on this page.",
                locale,
                n=fmt.count(n_resamples),
            )
        )
        + "</div></div>"
    )
    computing = t("interval: computing …", locale)
    out = []
    for name, r in result.models.items():
        label = t("{model}: {quantity}", locale, model=name, quantity=lens.quantity)
        value = fmt.money(lens.amount(r.ev), unit, signed=True, compact=True, locale=locale)
        note = t("at threshold {t}", locale, t=fmt.score(r.threshold))
        out.append((label, value, [note, computing]))
    names = list(result.models)
    if len(names) == 2:
        a, b = names
        diff = lens.amount(result.models[b].ev) - lens.amount(result.models[a].ev)
        out.append((f"{b} − {a}", fmt.money(diff, unit, signed=True, compact=True, locale=locale), [computing]))
    st.html(
        CSS
        + "<div class='eb-tiles'>"
        + "".join(
            f"<div class='eb-tile'><div class='eb-label'>{html_text(label)}</div><div class='eb-value'>{html_text(value)}</div>"
            + "".join(f"<div class='eb-note'>{html_text(n)}</div>" for n in notes)
            + "</div>"
            for label, value, notes in out
        )
        + "</div>"
    )
