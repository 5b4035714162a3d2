"""The one-pager as a self-contained HTML file (plotly inlined, no CDN), and as PDF / PNG
rendered by headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

Everything comes from one :class:`evalcore.board.BoardResult`, the same object the board page
and the CLI JSON use, so the three agree.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from board import charts
from board.charts.drift import LIGHT_COLORS

CHROMIUM = os.environ.get("EVALBOARD_CHROMIUM", "/usr/bin/chromium")
WIDTH, HEIGHT = 1920, 1080


class ExportError(RuntimeError):
    """An export could not be produced (e.g. no Chromium); the message says what to do."""


def _fig_div(fig, div_id: str) -> str:
    return pio.to_html(
        fig,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={"displaylogo": False, "responsive": True, "staticPlot": False},
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
        return np.array([_plotly_text(x) for x in v.ravel().tolist()], dtype=object).reshape(v.shape)
    return v


def plotly_safe(fig) -> go.Figure:
    """``fig`` with user text in it shown as text by plotly (no links, images or styles from names)."""
    return go.Figure(_plotly_text(fig.to_plotly_json()))


def board_figures(result, *, segment_column: str | None = None, font_size: int = 13) -> dict:
    """The board's figures (shared by the page and the export)."""
    unit = result.table.unit
    names = list(result.models)
    verdict = result.action.verdict if result.action else "keep"
    focus = names[1] if (len(names) == 2 and verdict == "roll out") else names[0]
    m = result.models[focus]
    figs = {"headline": charts.headline_figure(result, height=330)}
    if m.segments:
        col = segment_column if segment_column in m.segments else next(iter(m.segments))
        figs["heatmap"] = charts.segment_heatmap_figure(m.segments[col], unit=unit, height=360)
        figs["heatmap"].update_layout(
            title=dict(text=f"EV per decision by {col} × threshold — model {focus}", font=dict(size=15)), margin=dict(t=40)
        )
    if len(names) == 2:
        a, b = names
        figs["waterfall"] = charts.delta_waterfall_figure(
            result.models[a].attribution, result.models[b].attribution, names=(a, b), unit=unit, height=360
        )
        figs["waterfall"].update_layout(
            title=dict(text=f"Where the value moves from {a} to {b} (per decision)", font=dict(size=15)), margin=dict(t=40)
        )
    else:
        figs["waterfall"] = charts.attribution_figure(
            m.attribution, unit=unit, height=360, title=f"Value by outcome — model {focus}"
        )
    for f in figs.values():
        f.update_layout(font=dict(size=font_size))
    return {k: plotly_safe(f) for k, f in figs.items()}


def _lights_html(result) -> str:
    if result.drift is None:
        return f'<div class="light grey"><b>Drift</b><br>{html.escape(result.drift_undefined or "not computed")}</div>'
    out = []
    for fam in ("feature", "label", "calibration"):
        light = result.drift.lights[fam]
        color = LIGHT_COLORS.get(light.color, "#999")
        out.append(
            f'<div class="light"><span class="dot" style="background:{color}"></span>'
            f'<b>{fam.title()} drift: {html.escape(light.color)}</b><br><span class="reason">{html.escape(light.reason)}</span></div>'
        )
    return "\n".join(out)


def board_html(
    result,
    *,
    dataset_name: str = "",
    table_version: str = "",
    generated_at: datetime | None = None,
    segment_column: str | None = None,
) -> str:
    """A self-contained HTML page of the board (opens offline; plotly.js inlined once)."""
    generated_at = generated_at or datetime.now(timezone.utc)
    figs = board_figures(result, segment_column=segment_column)
    divs = {k: _fig_div(f, f"fig-{k}") for k, f in figs.items()}
    action = result.action
    clauses = "".join(
        f'<span class="clause {c.kind}" title="{html.escape(", ".join(f"{k} = {v}" for k, v in c.evidence.items()))}">'
        f"{html.escape(c.text)}</span> "
        for c in (action.clauses if action else ())
    )
    verdict = html.escape(action.verdict.upper()) if action else ""
    meta = (
        f"{html.escape(dataset_name)} · value table “{html.escape(result.table.name or '')}” {html.escape(table_version)} · "
        f"{result.n_rows:,} decisions · generated {generated_at:%Y-%m-%d %H:%M} UTC"
    )
    uplift = ""
    if result.comparison is not None:
        d = result.comparison.diff
        uplift = (
            f'<div class="uplift">{html.escape(result.comparison.b)} − {html.escape(result.comparison.a)}: '
            f"<b>{d.estimate:+,.2f} {html.escape(result.table.unit)}</b> per decision</div>"
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>evalboard — decision board</title>
<script type="text/javascript">{get_plotlyjs()}</script>
<style>
@page {{ size: {WIDTH}px {HEIGHT}px; margin: 0; }}
html, body {{ margin: 0; padding: 0; font-family: "Source Sans 3", "DejaVu Sans", Arial, sans-serif; color: #1a1a1a; }}
body {{ width: {WIDTH}px; height: {HEIGHT}px; overflow: hidden; box-sizing: border-box; padding: 18px 28px; }}
header {{ display: flex; justify-content: space-between; align-items: baseline; height: 48px; }}
h1 {{ font-size: 30px; margin: 0; }}
.meta {{ font-size: 15px; color: #555; }}
.grid {{ display: grid; grid-template-columns: 1fr 1fr; grid-template-rows: 340px 370px; gap: 8px 24px; }}
.lights {{ display: flex; flex-direction: column; gap: 10px; justify-content: center; }}
.light {{ font-size: 17px; padding: 10px 14px; border: 1px solid #ddd; border-radius: 8px; }}
.light .reason {{ font-size: 14px; color: #444; }}
.dot {{ display: inline-block; width: 18px; height: 18px; border-radius: 50%; margin-right: 8px; vertical-align: -3px; }}
.uplift {{ font-size: 26px; margin: 0 0 6px 0; }}
.action {{ margin-top: 10px; font-size: 21px; line-height: 1.35; padding: 12px 18px; border-left: 8px solid #0B5FFF;
          background: #f3f6ff; height: 190px; overflow: hidden; box-sizing: border-box; }}
.verdict {{ font-weight: 700; margin-right: 8px; }}
.clause.hold {{ color: #b00020; font-weight: 600; }}
</style></head>
<body>
<header><h1>Decision board</h1><div class="meta">{meta}</div></header>
<div class="grid">
  <section id="headline">{uplift}{divs["headline"]}</section>
  <section id="lights" class="lights">{_lights_html(result)}</section>
  <section id="heatmap">{divs.get("heatmap", "<p>No segment columns mapped.</p>")}</section>
  <section id="waterfall">{divs["waterfall"]}</section>
</div>
<div class="action" id="action"><span class="verdict">{verdict}</span>{clauses}</div>
</body></html>
"""


def write_html(result, path, **kw) -> Path:
    path = Path(path)
    text = board_html(result, **kw)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)  # never a half-written export
    return path


def _render(html_text: str, out: Path, kind: str) -> None:
    if not Path(CHROMIUM).exists():
        raise ExportError(
            f"PDF/PNG export needs Chromium at {CHROMIUM} (sudo apt-get install chromium); the HTML export works without it."
        )
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "board.html"
        src.write_text(html_text, encoding="utf-8")
        tmp_out = Path(d) / f"out.{kind}"
        # a subprocess keeps Playwright's event loop away from Streamlit's script threads
        r = subprocess.run(
            [sys.executable, "-m", "board.export.render", kind, str(src), str(tmp_out)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if r.returncode != 0 or not tmp_out.exists():
            raise ExportError(f"Chromium could not render the {kind.upper()}: {(r.stderr or r.stdout).strip()[-500:]}")
        os.replace(tmp_out, out)


def render_bytes(html_text: str, kind: str) -> bytes:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / f"board.{kind}"
        _render(html_text, out, kind)
        return out.read_bytes()


def write_pdf(result, path, **kw) -> Path:
    path = Path(path)
    _render(board_html(result, **kw), path, "pdf")
    return path
