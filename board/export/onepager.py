"""The one-pager as a self-contained HTML file (plotly inlined, no CDN): the board's modules in
the board's order, verdict first.

1. a meta line (dataset, value table and version, decisions, bootstrap settings, generated time);
2. the verdict banner (the large word, "at threshold …", one plain sentence, the caveat),
   coloured by its kind;
3. two or three "because" bullets;
4. the KPI tiles (muted tiles greyed) above the headline CI bars, beside the drift lights;
5. the threshold × segment heatmap beside the waterfall;
6. the rules' statistical sentences in small print ("Statistics").

Every word of the verdict comes from :func:`board.words.verdict.plain_verdict`, every number the
page writes itself from :mod:`board.words.fmt`; user-supplied names are HTML-escaped here and
plotly-escaped in the figures (:func:`plotly_safe`).

In a browser the page is responsive (two columns from :data:`STACK_BELOW` px, one below). Printed
(the PDF, and the PNG, which the renderer takes under print media) it is one 16:9 sheet of
``WIDTH × HEIGHT`` CSS pixels whose charts share the height the text leaves; the statistics are
printed when they fit (at most :data:`STATS_PRINT_CHARS` characters), else a line says where they are.
"""

from __future__ import annotations

import html
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from board import charts
from board.charts._style import plotly_config
from board.charts.drift import LIGHT_COLORS
from board.export.sheet import HEIGHT, WIDTH
from board.words import fmt
from board.words.clauses import action_text
from board.words.drift_reasons import light_reason, version_label
from board.words.i18n import N_, t
from board.words.lens import Lens
from board.words.reasons import undefined_reason
from board.words.verdict import plain_verdict
from board.words.vocab import word

__all__ = ["STACK_BELOW", "STATS_PRINT_CHARS", "board_figures", "board_html", "plotly_safe", "write_html"]

#: Narrower than this (CSS px), the HTML stacks its modules in one column.
STACK_BELOW = 1000

#: Statistics up to this many characters are printed on the sheet (about four lines of small
#: print across it); longer ones would squeeze the charts, so the sheet says they are in the HTML.
STATS_PRINT_CHARS = 1100

_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True, "staticPlot": False}


def _fig_div(fig, div_id: str, locale: str = "en") -> str:
    # the div fills its module's box: the CSS sizes the modules (fixed on screen, shared on the sheet)
    return pio.to_html(
        fig,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        default_width="100%",
        default_height="100%",
        config=plotly_config(locale, **_PLOTLY_CONFIG),  # a time axis's dates in the reader's language
    )


# plotly renders a subset of HTML in every text (titles, legends, tick labels, hovers): <a href>
# links, <span style>, … Only the tags board.charts writes stay; any other "<" (from a model,
# segment or column name) becomes "&lt;", which plotly shows as the character.
_PLOTLY_OWN_TAG = re.compile(r"<(?!/?(?:b|i|sup|sub|br|extra)\s*/?>)", re.IGNORECASE)


def _plotly_text(v):
    if isinstance(v, str):
        return _PLOTLY_OWN_TAG.sub("&lt;", v)
    if isinstance(v, dict):
        return {k: _plotly_text(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_plotly_text(x) for x in v)
    if isinstance(v, np.ndarray) and v.dtype.kind in "OUS":
        items = v.ravel().tolist()
        # hover texts of thousands of points: passed on as they are when no item is a tag or a container
        if not any(isinstance(x, (list, tuple, dict, np.ndarray)) or (isinstance(x, str) and "<" in x) for x in items):
            return v
        return np.array([_plotly_text(x) for x in items], dtype=object).reshape(v.shape)
    return v


def plotly_safe(fig) -> go.Figure:
    """``fig`` with user text in it shown as text by plotly (no links, images or styles from names)."""
    return go.Figure(_plotly_text(fig.to_plotly_json()))


def board_figures(
    result, *, segment_column: str | None = None, font_size: int = 13, lens=None, locale: str | None = None
) -> dict:
    """The board's figures (shared by the page and the export): ``headline``, ``waterfall`` and,
    when segment columns are mapped, ``heatmap`` of ``segment_column`` (the one the verdict's
    bullets talk about: ``plain_verdict(result).segment_column``; the first column otherwise).

    Axes, tick labels and titles take the margin they need (plotly automargin), and the
    waterfall's bar labels are drawn even where they pass the plot area, so nothing is cut off
    at any size.
    """
    if lens is None:
        lens = Lens("value", locale or "en")
    L = lens.locale
    unit = result.table.unit
    names = list(result.models)
    verdict = result.action.verdict if result.action else "keep"
    focus = names[1] if (len(names) == 2 and verdict == "roll out") else names[0]
    m = result.models[focus]
    quantity = lens.Quantity
    figs = {"headline": charts.headline_figure(result, height=330, font_size=font_size, lens=lens)}
    if m.segments:
        col = segment_column if segment_column in m.segments else next(iter(m.segments))
        figs["heatmap"] = charts.segment_heatmap_figure(
            m.segments, column=col, unit=unit, height=360, font_size=font_size, lens=lens
        )
        figs["heatmap"].update_layout(
            title=dict(
                text=t("{quantity} by {column} — model {model}", L, quantity=quantity, column=col, model=focus),
                font=dict(size=font_size + 2),
            ),
            margin=dict(t=40),
        )
    if len(names) == 2:
        a, b = names
        figs["waterfall"] = charts.delta_waterfall_figure(
            result.models[a].attribution,
            result.models[b].attribution,
            names=(a, b),
            unit=unit,
            height=360,
            title=(
                t("Where the loss moves from {a} to {b} (per decision)", L, a=a, b=b)
                if lens.loss
                else t("Where the value moves from {a} to {b} (per decision)", L, a=a, b=b)
            ),
            font_size=font_size,
            lens=lens,
        )
    else:
        figs["waterfall"] = charts.attribution_figure(
            m.attribution,
            unit=unit,
            height=360,
            title=(
                t("Loss by outcome — model {model}", L, model=focus)
                if lens.loss
                else t("Value by outcome — model {model}", L, model=focus)
            ),
            font_size=font_size,
            lens=lens,
        )
    figs["waterfall"].update_traces(cliponaxis=False)  # a bar's label may pass the plot area: draw it
    for f in figs.values():
        f.update_xaxes(automargin=True)
        f.update_yaxes(automargin=True)
    return {k: plotly_safe(f) for k, f in figs.items()}


def _e(text) -> str:
    return html.escape(str(text), quote=True)


#: The mark of a board priced with a value table that is not approved (a draft, a pending version or
#: unsaved edits: the version labels of ``board.services.evaluation.table_version`` say "not approved"),
#: on the board page and in every export (issue 16 item 1).
DRAFT_MARK = N_("DRAFT — not approved")
DRAFT_MARK_STYLE = "color:#b00020;border:2px solid #b00020;border-radius:4px;padding:0 6px;font-weight:700;letter-spacing:0.04em"


def is_draft(table_version: str) -> bool:
    """Whether a board priced with the version labelled ``table_version`` carries the DRAFT mark."""
    return "not approved" in (table_version or "")


def draft_mark_html(table_version: str, locale: str = "en") -> str:
    """The visible DRAFT mark (HTML) for ``table_version``, or "" when it is approved."""
    return (
        f"<strong class='draft-mark' style='{DRAFT_MARK_STYLE}'>{_e(t(DRAFT_MARK, locale))}</strong> · "
        if is_draft(table_version)
        else ""
    )


def _meta(result, dataset_name: str, table_version: str, generated_at: datetime, locale: str = "en") -> str:
    cfg = result.config
    L = locale
    boot = (
        t(
            "{level} {method} bootstrap, {scheme} scheme, {n} replicates",
            L,
            level=fmt.share(cfg.level, 0),
            method=word(cfg.method, L),
            scheme=word(cfg.scheme, L),
            n=fmt.count(cfg.n_resamples),
        )
        if cfg.n_resamples
        else t("no bootstrap", L)
    )
    parts = [
        dataset_name,
        t("value table “{table}” {version}", L, table=result.table.name, version=version_label(table_version, L))
        if result.table.name
        else " ".join(x for x in (t("value table", L), version_label(table_version, L)) if x),
        t("{n} decisions", L, n=fmt.count(result.n_rows)),
        boot,
        t("generated {when} UTC", L, when=fmt.when(generated_at.astimezone(timezone.utc), L)),
    ]
    return draft_mark_html(table_version, L) + " · ".join(_e(p) for p in parts if p)


#: Border, background and word colour of the verdict banner per kind, on the board page
#: (``board.app.verdict_view`` imports it) and in the exports.
KIND_STYLE = {
    "roll out": ("#0a7d32", "#eaf6ee", "#0a6b2b"),
    "keep": ("#0B5FFF", "#eef3ff", "#0b3fa8"),
    "hold": ("#c25e00", "#fff4e5", "#a34e00"),
    "single": ("#5b6470", "#f2f4f7", "#2b3340"),
    "undecided": ("#5b6470", "#f2f4f7", "#2b3340"),
}


def _verdict_html(v) -> str:
    border, bg, word = KIND_STYLE.get(v.kind, KIND_STYLE["undecided"])
    at = f' <span class="verdict-at">{_e(v.at)}</span>' if v.at else ""
    caveat = f'<p class="caveat">⚠ {_e(v.caveat)}</p>' if v.caveat else ""
    return (
        f'<section id="verdict" class="verdict" data-kind="{_e(v.kind)}" '
        f'style="--c-border:{border};--c-bg:{bg};--c-word:{word}">'
        f'<div class="verdict-line"><span class="verdict-word">{_e(v.word)}</span>{at}</div>'
        f'<p class="verdict-sentence">{_e(v.sentence)}</p>{caveat}</section>'
    )


def _because_html(v, L: str = "en") -> str:
    items = "".join(
        f'<li data-page="{_e(b.page)}"' + (f' title="{_e(b.detail)}"' if b.detail else "") + f">{_e(b.text)}</li>"
        for b in v.because
    )
    return f'<section id="because"><h2>{_e(t("Because", L))}</h2><ul>{items}</ul></section>'


def _tiles_html(v) -> str:
    tiles = "".join(
        f'<div class="tile{" muted" if t.muted else ""}"' + (f' title="{_e(t.help)}"' if t.help else "") + ">"
        f'<div class="tile-label">{_e(t.label)}</div><div class="tile-value">{_e(t.value)}</div>'
        f'<div class="tile-note">{_e(t.note)}</div></div>'
        for t in v.tiles
    )
    return f'<section id="tiles" class="tiles">{tiles}</section>'


_FAMILY_TITLE = {
    "feature": N_("Feature drift: {color}"),
    "label": N_("Label drift: {color}"),
    "calibration": N_("Calibration drift: {color}"),
}


def _lights_html(result, L: str = "en") -> str:

    if result.drift is None:
        why = undefined_reason(result.drift_undefined, L) if result.drift_undefined else t("not computed", L)
        return (
            f'<div class="light"><span class="dot" style="background:{LIGHT_COLORS["grey"]}"></span><b>{_e(t("Drift", L))}</b><br>'
            f'<span class="reason">{_e(why)}</span></div>'
        )
    out = []
    for fam in ("feature", "label", "calibration"):
        light = result.drift.lights[fam]
        color = LIGHT_COLORS.get(light.color, LIGHT_COLORS["grey"])
        out.append(
            f'<div class="light"><span class="dot" style="background:{color}"></span>'
            f"<b>{_e(t(_FAMILY_TITLE[fam], L, color=word(light.color, L)))}</b><br>"
            f'<span class="reason">{_e(light_reason(light.reason, L))}</span></div>'
        )
    return "\n".join(out)


def _statistics_html(v, result=None, L: str = "en") -> str:
    if not v.statistics:
        return ""
    text = action_text(result.action, L, result) if result is not None and result.action is not None else v.statistics
    limit = STATS_PRINT_CHARS if L == "en" else STATS_PRINT_CHARS // 2  # a Chinese character is about two wide
    fits = len(text) <= limit
    note = "" if fits else f'<p class="print-only">{_e(t("Statistics: in the HTML export (too long for this page).", L))}</p>'
    return (
        f'<footer id="statistics"{"" if fits else " class=no-print-stats"}>'
        f"<details><summary>{_e(t('Statistics', L))}</summary><p>{_e(text)}</p></details>{note}</footer>"
    )


_CSS = """
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: #fff; color: #1a1a1a;
  font-family: "DejaVu Sans", "Liberation Sans", Arial, "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC",
    "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif; }
.board { display: flex; flex-direction: column; gap: 10px; padding: 14px 24px; max-width: __WIDTH__px; margin: 0 auto; }
header { display: flex; justify-content: space-between; align-items: baseline; gap: 6px 24px; flex-wrap: wrap; }
h1 { font-size: 24px; margin: 0; white-space: nowrap; }
.meta { font-size: 13px; color: #555; }
h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: #666; margin: 0 0 3px; font-weight: 600; }
.verdict { border-left: 10px solid var(--c-border); background: var(--c-bg); border-radius: 6px; padding: 8px 18px 10px; }
.verdict-word { font-size: 40px; line-height: 1.15; font-weight: 800; color: var(--c-word); letter-spacing: .02em; }
.verdict-at { font-size: 20px; color: #333; margin-left: 12px; }
.verdict-sentence { font-size: 20px; margin: 2px 0 0; }
.caveat { font-size: 15px; margin: 4px 0 0; color: #8a4b00; }
.row { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px 24px; }
#because ul { margin: 0; padding-left: 22px; font-size: 16px; line-height: 1.45; }
.tiles { display: flex; gap: 10px; align-items: stretch; }
.tile { flex: 1 1 0; min-width: 0; max-width: calc((100% - 20px) / 3); border: 1px solid #d9d9d9; border-radius: 8px; padding: 6px 12px; }
.tile-label { font-size: 13px; color: #444; }
.tile-value { font-size: 28px; font-weight: 700; line-height: 1.2; }
.tile-note { font-size: 13px; color: #555; }
.tile.muted { background: #f3f3f3; border-style: dashed; }
.tile.muted .tile-label, .tile.muted .tile-value, .tile.muted .tile-note { color: #8c8c8c; }
.stack { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.chart { min-width: 0; height: 340px; }
.stack .chart { height: 260px; }
.lights { display: flex; flex-direction: column; gap: 8px; justify-content: center; }
.light { font-size: 15px; padding: 6px 12px; border: 1px solid #ddd; border-radius: 8px; }
.light .reason { font-size: 13px; color: #444; }
.dot { display: inline-block; width: 16px; height: 16px; border-radius: 50%; margin-right: 8px; vertical-align: -2px; }
#statistics { font-size: 12px; line-height: 1.4; color: #555; }
#statistics summary { cursor: pointer; font-weight: 600; }
#statistics p { margin: 2px 0 0; }
.print-only { display: none; }
@media (max-width: __STACK__px) {
  .row { grid-template-columns: minmax(0, 1fr); }
  .tiles { flex-wrap: wrap; }
  .tile { flex-basis: 220px; max-width: none; }
  .chart, .stack .chart { height: 340px; }
}
@page { size: __WIDTH__px __HEIGHT__px; margin: 0; }
@media print {
  html, body { width: __WIDTH__px; height: __HEIGHT__px; overflow: hidden; }
  .board { height: __HEIGHT__px; max-width: none; }
  .charts { flex: 1 1 0; min-height: 0; }
  .charts.second { flex-grow: 0.9; }
  .chart, .stack .chart { height: auto; }
  .stack { min-height: 0; }
  .stack .chart { flex: 1 1 0; min-height: 0; }
  #statistics details::details-content { content-visibility: visible; block-size: auto; }
  #statistics summary { display: inline; list-style: none; }
  #statistics summary::-webkit-details-marker { display: none; }
  #statistics summary::after { content: "."; }
  #statistics details > p { display: inline; }
  #statistics.no-print-stats details { display: none; }
  .print-only { display: block; margin: 0; }
}
"""


# Each chart drew itself as soon as its div was parsed, when the modules below it did not exist
# yet; now that the page is complete, every chart takes the size of its box (and again before a
# browser prints). The renderer waits for body[data-charts="ready"].
_FIT_SCRIPT = """
(function () {
  var plots = Array.prototype.slice.call(document.querySelectorAll(".js-plotly-plot"));
  function fit() { return Promise.all(plots.map(function (p) { return Plotly.Plots.resize(p); })); }
  fit().then(function () { document.body.setAttribute("data-charts", "ready"); });
  window.addEventListener("beforeprint", fit);
})();
"""


def board_html(
    result,
    *,
    dataset_name: str = "",
    table_version: str = "",
    generated_at: datetime | None = None,
    segment_column: str | None = None,
    locale: str = "en",
    lens=None,
) -> str:
    """A self-contained HTML page of the board (opens offline; plotly.js inlined once).

    ``segment_column`` overrides the heatmap's column; by default it is the one the verdict's
    bullets talk about. ``lens`` (:class:`board.words.lens.Lens`) shows amounts as expected
    value (default) or expected loss, as the board on screen does.
    """
    generated_at = generated_at or datetime.now(timezone.utc)
    if lens is None:
        lens = Lens("value", locale)
    elif lens.locale != locale and locale != "en":
        lens = Lens(lens.display, locale)
    L = lens.locale
    v = plain_verdict(result, locale=L, lens=lens)
    figs = board_figures(result, segment_column=segment_column or v.segment_column, lens=lens)
    for f in figs.values():  # the page's CSS sizes every chart
        f.update_layout(height=None, width=None, autosize=True)
    divs = {k: _fig_div(f, f"fig-{k}", L) for k, f in figs.items()}
    no_heatmap = t("No segment columns mapped: map some to see the threshold × segment heatmap.", L)
    heatmap = divs.get("heatmap", f"<p>{_e(no_heatmap)}</p>")
    css = _CSS.replace("__WIDTH__", str(WIDTH)).replace("__HEIGHT__", str(HEIGHT)).replace("__STACK__", str(STACK_BELOW - 1))
    return f"""<!DOCTYPE html>
<html lang="{_e(L.replace("_", "-"))}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(t("evalboard — decision board", L))}</title>
<script type="text/javascript">{get_plotlyjs()}</script>
<style>{css}</style></head>
<body>
<main class="board">
<header id="meta"><h1>{_e(t("Decision board", L))}</h1><div class="meta">{_meta(result, dataset_name, table_version, generated_at, L)}</div></header>
{_verdict_html(v)}
{_because_html(v, L)}
<div class="row charts first">
  <div class="stack">{_tiles_html(v)}<section id="headline" class="chart">{divs["headline"]}</section></div>
  <section id="lights" class="lights">{_lights_html(result, L)}</section>
</div>
<div class="row charts second">
  <section id="heatmap" class="chart">{heatmap}</section>
  <section id="waterfall" class="chart">{divs["waterfall"]}</section>
</div>
{_statistics_html(v, result, L)}
</main>
<script>{_FIT_SCRIPT}</script>
</body></html>
"""


def write_html(result, path, **kw) -> Path:
    path = Path(path)
    text = board_html(result, **kw)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)  # never a half-written export
    return path
