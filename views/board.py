"""Board: the one-page decision view (home). Five modules from one BoardResult."""

from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from board import export
from board.app import decision_view, meeting, state, ui, verdict_view
from board.charts.drift import LIGHT_COLORS
from board.export.onepager import draft_mark_html
from board.words import fmt
from board.words.verdict import plain_verdict

present = st.query_params.get("present") == "1"
preds = state.current_data()  # the dataset's aggregate (rows counted, or a registered path's stored counts)
if preds is None:
    st.stop()
table, row_version = state.committed_table()
thresholds = state.sync_thresholds_with_url(preds)
result = state.board_result(preds, table, state.board_config(preds, thresholds))
rec = state.dataset_record()
version, version_rec = state.table_version(table)
user = state.current_user()
unit = table.unit
lens = state.current_lens()  # expected value or expected loss, as this reader thinks (board/words/lens.py)
v = plain_verdict(result, lens=lens)  # the verdict in plain words (board/words/verdict.py), shared with the exports
figs = export.board_figures(result, segment_column=v.segment_column, font_size=17 if present else 13, lens=lens)
if present:
    st.html(
        "<style>[data-testid='stSidebar'],[data-testid='stSidebarCollapsedControl'],[data-testid='stHeader'],"
        "[data-testid='stToolbar']{display:none !important}"
        "[data-testid='stMainBlockContainer']{padding:0.5rem 1.4rem 0 1.4rem;max-width:100%}"
        "[data-testid='stMainBlockContainer'] [data-testid='stVerticalBlock']{gap:0.45rem}"
        "html{font-size:22px}.st-key-drift_banner{display:none}"
        # a narrow screen (a tablet) cannot hold three charts side by side: they stack
        "@media (max-width:1100px){.st-key-board_row1 [data-testid='stHorizontalBlock'],"
        ".st-key-board_row2 [data-testid='stHorizontalBlock']{flex-direction:column;flex-wrap:wrap}"
        ".st-key-board_row1 [data-testid='stColumn'],.st-key-board_row2 [data-testid='stColumn']"
        "{width:100% !important;flex:1 1 100% !important}}</style>"
    )
else:
    st.html(
        "<style>[data-testid='stMainBlockContainer']{padding-top:3.4rem;padding-bottom:0}"
        "[data-testid='stMainBlockContainer'] [data-testid='stVerticalBlock']{gap:0.6rem}"
        # below ~1400 px of window the side-by-side modules stack (Streamlit itself stacks only below 640 px)
        "@media (max-width:1400px){.st-key-board_row1 [data-testid='stHorizontalBlock'],"
        ".st-key-board_row2 [data-testid='stHorizontalBlock']"
        "{flex-direction:column;flex-wrap:wrap}"
        ".st-key-board_row1 [data-testid='stColumn'],.st-key-board_row2 [data-testid='stColumn']"
        "{width:100% !important;flex:1 1 100% !important}}"
        ".st-key-drift_banner{display:none}</style>"  # the verdict says HOLD and why: no second drift banner here
    )

meta = (
    f"{rec.name}{' (' + state.lake_describe(rec) + ')' if rec.is_aggregate else ''} · value table “{table.name}” {version} · "
    f"{fmt.count(result.n_rows)} decisions · "
    + (
        f"{fmt.share(result.config.level, 0)} {result.config.method} bootstrap, {result.config.scheme} scheme, "
        f"{fmt.count(result.config.n_resamples)} replicates"
        if result.config.n_resamples
        else "no bootstrap"
    )
)
draft_mark = draft_mark_html(version)  # "DRAFT — not approved" unless priced with an approved version (issue 16 item 1)
if present:  # small print: the slide is for the verdict
    st.html(f"<div style='font-size:0.72rem;color:#555;line-height:1.3'>{draft_mark}{ui.html_text(meta)}</div>")
    tools = None
else:
    st.markdown(
        "<h1 style='font-size:1.9rem;font-weight:700;line-height:1.15;padding:0;margin:0'>Decision board</h1>",
        unsafe_allow_html=True,
    )
    st.html(f"<div style='font-size:0.9rem;color:#555;margin-top:0.1rem'>{draft_mark}{ui.html_text(meta)}</div>")
    # a wrapping row: each button as wide as its label, never cut (fixed columns cut labels at 1366 px)
    tools = st.container(horizontal=True, gap="small", key="board_tools")
if tools is not None:
    from board.access import auth, governance

    export_meta = {"dataset_id": rec.id, "table_version": version}
    may_export = governance.allowed(user, "export")
    b1 = b2 = b3 = b4 = b5 = tools
    b1.link_button(
        "Present",
        "?" + urlencode({"present": 1, "dataset": rec.id, **{f"t_{m}": f"{t:.6g}" for m, t in thresholds.items()}}),
        icon=":material/slideshow:",
        help="The same board full-screen without controls (URL + present=1).",
    )
    if may_export:

        def page_html(result=result, name=rec.name, version=version, lens=lens) -> str:
            """The board's HTML, made only when a download asks for it (not on every rerun)."""
            return export.board_html(result, dataset_name=name, table_version=version, lens=lens)

        ui.export_button(
            b2,
            "HTML",
            page_html,
            file_name="evalboard.html",
            mime="text/html",
            icon=":material/download:",
            key="board_html",
            what="board HTML",
            detail=export_meta,
            help="A self-contained file that opens offline.",
        )
        for kind, mime in (("pdf", "application/pdf"), ("png", "image/png")):
            if not Path(export.CHROMIUM).exists():
                b3.caption(f"{kind.upper()}: needs Chromium on the server (apt-get install chromium).")
                continue
            ui.export_button(  # deferred: rendered only on click, by the one warm Chromium (a few seconds)
                b3,
                kind.upper(),
                lambda kind=kind, page=page_html: export.render_bytes(page(), kind),
                file_name=f"evalboard.{kind}",
                mime=mime,
                icon=":material/picture_as_pdf:" if kind == "pdf" else ":material/image:",
                key=f"board_{kind}",
                what=f"board {kind.upper()}",
                detail=export_meta,
                help="The board as one 16:9 page, rendered by Chromium on the server (a few seconds).",
            )
    else:  # no file at all: a disabled download button would still serve its file at its media URL
        b2.caption(ui.NO_EXPORT.format(role=auth.ROLE_LABELS.get(user.role, user.role) if user else "none"))
    saveable = version_rec is not None and governance.allowed(user, "save_evaluation")
    if b4.button(
        "Snapshot",
        icon=":material/history:",
        key="board_save",
        disabled=not saveable,
        help=(
            "Keep this board (inputs, numbers and the value-table version) so next week can be compared with it."
            if saveable
            else "Save the value table first (a snapshot records a stored version), "
            "or ask an analyst: your role cannot save boards."
        ),
    ):
        state.save_snapshot(result, rec, version, version_rec)
    meeting.share_panel(b5, rec, thresholds)
    decision_view.record_popover(tools, v, result, rec, thresholds, version, version_rec, user, lens)
    shown_as = tools.segmented_control(
        "Show amounts as",
        ["value", "loss"],
        default=lens.display,
        format_func={"value": "Value", "loss": "Loss"}.get,
        key="board_display",
        label_visibility="collapsed",
        help="Expected value per decision (gains positive) or expected loss per decision (positive = money "
        "lost): the same numbers, as you think of them. Your choice; the value table's editors set the default.",
    )
    if shown_as and shown_as != lens.display:
        state.set_own_display(shown_as)
        st.rerun()  # admins and analysts: a read-only link for the meeting-room screen

previous = state.last_snapshot(result, rec)
deltas = {}  # tile index → change since the last snapshot
for i, n in enumerate(result.models):
    prev = state.snapshot_value(previous, f"models.{n}.at_threshold.ev")
    if prev is not None:
        deltas[i] = f"{fmt.money(result.models[n].ev - prev, unit, signed=True, compact=True)} vs last saved"


def drift_lights(*, reasons: bool) -> None:
    """Module 4: the three drift lights (with their statistical reason off the meeting screen)."""
    if result.drift is None:
        st.info(f"Drift lights: {ui.md_text(result.drift_undefined)}.")
        return
    for fam in ("feature", "label", "calibration"):
        light = result.drift.lights[fam]
        was = state.snapshot_value(previous, f"drift.{fam}.light")
        change = f" (last saved: {was})" if was and was != light.color else ""
        reason = f"<br><span style='font-size:0.85em;color:#444'>{ui.html_text(light.reason)}</span>" if reasons else ""
        st.html(
            f"<div title='{ui.html_text(light.reason)}' style='padding:4px 10px;border:1px solid #ddd;border-radius:8px'>"
            f"<span style='display:inline-block;width:0.9em;height:0.9em;border-radius:50%;vertical-align:-0.1em;"
            f"background:{LIGHT_COLORS[light.color]}'></span> <b>{fam.title()} drift: {light.color}</b>{change}{reason}</div>"
        )


def chart(where, name: str, height: int) -> None:
    ui.plotly_chart(
        where,
        figs[name].update_layout(height=height),
        key=f"board_{name}",
        config={"displayModeBar": False, "staticPlot": present},
    )


no_heatmap = "No segment columns mapped: map some on the Upload page to see the threshold × segment heatmap."
if present:  # a 16:9 slide: verdict, tiles, reasons beside the lights, then the three charts in one row
    with st.container(key="board_verdict"):
        verdict_view.banner(v, word_size="2.7rem")
        decision_view.last_line(v, result, lens)  # the meeting's last decision and what changed since
    with st.container(key="board_tiles"):
        verdict_view.tiles(v, extra_notes=deltas)
    with st.container(key="board_row1"):
        left, right = st.columns([1.7, 1], gap="medium")
    with left:
        verdict_view.because(v, links=False)
    with right:
        drift_lights(reasons=False)
    # a third of a slide holds a short title only: the slide's text above says the rest
    focus = next(iter(result.models)) if v.kind != "roll out" else list(result.models)[-1]
    figs["headline"].update_layout(title_text=f"{lens.Quantity} ({lens.convention})")
    figs["headline"].update_xaxes(title_text=unit)  # the title says the rest
    if "heatmap" in figs:
        segs = result.models[focus].segments
        col = v.segment_column if v.segment_column in segs else next(iter(segs))
        figs["heatmap"].update_layout(title_text=f"{'Loss' if lens.loss else 'Value'} by {col}: {focus}")
        figs["heatmap"].update_traces(showscale=False, selector=dict(type="heatmap"))  # no room for a colour bar
    if result.comparison is not None:
        figs["waterfall"].update_layout(
            title_text=f"{'Loss' if lens.loss else 'Value'}: {result.comparison.a} → {result.comparison.b}, per decision"
        )
    with st.container(key="board_row2"):
        c1, c2, c3 = st.columns(3, gap="small")
    chart(c1, "headline", 270)
    if "heatmap" in figs:
        chart(c2, "heatmap", 270)
    else:
        c2.info(no_heatmap)
    chart(c3, "waterfall", 270)
    st.stop()

with st.container(key="board_verdict"):
    verdict_view.banner(v)
    decision_view.last_line(v, result, lens)
    verdict_view.because(v, links=not meeting.active())
with st.container(key="board_row1"):
    left, right = st.columns([1, 1], gap="medium")
with left:  # module 1: the KPI tiles and the headline CI bars
    with st.container(key="board_tiles"):
        verdict_view.tiles(v, extra_notes=deltas)
    chart(st, "headline", 200)
with right:
    drift_lights(reasons=True)
    if not meeting.active():  # a meeting link's screen routes to no other page
        st.page_link("views/drift.py", label="Drill down on the Drift page", icon=":material/arrow_forward:")
with st.container(key="board_row2"):
    h1, h2 = st.columns(2, gap="medium")
if "heatmap" in figs:  # module 2
    chart(h1, "heatmap", 300)
else:
    h1.info(no_heatmap)
chart(h2, "waterfall", 300)

# module 5: the statistics behind the verdict (KS, O/E, CI, p), one click away
with st.expander("Statistics behind the verdict", expanded=False), st.container(key="board_action"):
    for c in result.action.clauses:
        tip = "; ".join(f"{k} = {val}" for k, val in c.evidence.items())
        st.markdown(f"- {ui.md_text(c.text)}", help=tip or None)

with st.expander("Details: data conditions of the training data"):
    from board.app.stability_view import DC_LAST_KEY, data_conditions_card

    if st.session_state.get(DC_LAST_KEY) is not None:
        data_conditions_card(st.session_state[DC_LAST_KEY])
    else:
        st.write("No training table has been scored in this session yet.")
        st.page_link("views/data_conditions.py", label="Open Data conditions", icon=":material/dataset:")
