"""Board: the one-page decision view (home). Five modules from one BoardResult."""

import time
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from board import export
from board.app import decision_view, meeting, over_time_view, state, ui, verdict_view
from board.charts import totals_in_ticks
from board.charts.drift import LIGHT_COLORS
from board.export.onepager import draft_mark_html
from board.words import fmt
from board.words.clauses import clause_text
from board.words.drift_reasons import light_reason, version_label
from board.words.i18n import t
from board.words.verdict import plain_verdict
from board.words.vocab import word

present = st.query_params.get("present") == "1"
L = state.current_locale()
preds = state.current_data()  # the dataset's aggregate (rows counted, or a registered path's stored counts)
if preds is None:
    st.stop()
table, row_version = state.committed_table()
thresholds = state.sync_thresholds_with_url(preds)
config = state.board_config(preds, thresholds)
# the whole board when it is ready; else its point estimates now and the intervals in the background (issue 18)
result, job = state.board_result_progressive(preds, table, config)
rec = state.dataset_record()
version, version_rec = state.table_version(table)
user = state.current_user()
unit = table.unit
lens = state.current_lens()  # expected value or expected loss, as this reader thinks (board/words/lens.py)
v = plain_verdict(result, locale=L, lens=lens)  # the verdict in plain words (board/words/verdict.py), shared with the exports
figs = export.board_figures(result, segment_column=v.segment_column, font_size=17 if present else 13, lens=lens)
# half (a third, presenting) of a 1366-px screen: the totals' numbers go in their category labels, clear
# of the deltas' ("-0.132-271.8" ran together); presenting, the model's name gets a line of its own too
totals_in_ticks(figs["waterfall"], split_names=present)
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
    f"{rec.name}{' (' + state.lake_describe(rec) + ')' if rec.is_aggregate else ''} · "
    + t("value table “{table}” {version}", L, table=table.name, version=version_label(version, L))
    + " · "
    + t("{n} decisions", L, n=fmt.count(result.n_rows))
    + " · "
    + (
        t(
            "{level} {method} bootstrap, {scheme} scheme, {n} replicates",
            L,
            level=fmt.share(result.config.level, 0),
            method=word(result.config.method, L),
            scheme=word(result.config.scheme, L),
            n=fmt.count(result.config.n_resamples),
        )
        if result.config.n_resamples
        else t("bootstrap computing ({n} replicates)", L, n=fmt.count(config.n_resamples))
        if job is not None
        else t("no bootstrap", L)
    )
)
over_time_said = over_time_view.board_meta(rec, L)  # late labels, the shadow rescaling applied (issue 19)
meta += f" · {over_time_said}" if over_time_said else ""
export_name = over_time_view.export_name(rec, L)  # the HTML export's meta says the same
draft_mark = draft_mark_html(version, L)  # "DRAFT — not approved" unless priced with an approved version (issue 16 item 1)
if present:  # small print: the slide is for the verdict
    st.html(f"<div style='font-size:0.72rem;color:#555;line-height:1.3'>{draft_mark}{ui.html_text(meta)}</div>")
    tools = None
else:
    st.markdown(
        "<h1 style='font-size:1.9rem;font-weight:700;line-height:"
        + ("1.15" if L == "en" else "1.4")  # CJK glyphs are taller than Latin capitals: not cut at the top
        + ";padding:0;margin:0'>"
        + t("Decision board", L)
        + "</h1>",
        unsafe_allow_html=True,
    )
    st.html(f"<div style='font-size:0.9rem;color:#555;margin-top:0.1rem'>{draft_mark}{ui.html_text(meta)}</div>")
    # a wrapping row: each button as wide as its label, never cut (fixed columns cut labels at 1366 px);
    # none while the intervals compute: exports, snapshots and decisions are of the whole board
    tools = st.container(horizontal=True, gap="small", key="board_tools") if job is None else None
if tools is not None:
    from board.access import governance

    export_meta = {"dataset_id": rec.id, "table_version": version}
    may_export = governance.allowed(user, "export")
    b1 = b2 = b3 = b4 = b5 = tools
    b1.link_button(
        t("Present", L),
        "?" + urlencode({"present": 1, "dataset": rec.id, **{f"t_{m}": f"{t:.6g}" for m, t in thresholds.items()}}),
        icon=":material/slideshow:",
        help=t("The same board full-screen without controls (URL + present=1).", L),
    )
    if may_export:

        def page_html(result=result, name=export_name, version=version, lens=lens) -> str:
            """The board's HTML, made only when a download asks for it (not on every rerun)."""
            return export.board_html(result, dataset_name=name, table_version=version, lens=lens, locale=L)

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
            help=t("A self-contained file that opens offline.", L),
        )
        for kind, mime in (("pdf", "application/pdf"), ("png", "image/png")):
            if not Path(export.CHROMIUM).exists():
                b3.caption(t("{kind}: needs Chromium on the server (apt-get install chromium).", L, kind=kind.upper()))
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
                help=t("The board as one 16:9 page, rendered by Chromium on the server (a few seconds).", L),
            )
    else:  # no file at all: a disabled download button would still serve its file at its media URL
        b2.caption(ui.no_export(user.role if user else None))
    saveable = version_rec is not None and governance.allowed(user, "save_evaluation")
    if b4.button(
        t("Snapshot", L),
        icon=":material/history:",
        key="board_save",
        disabled=not saveable,
        help=(
            t("Keep this board (inputs, numbers and the value-table version) so next week can be compared with it.", L)
            if saveable
            else t(
                "Save the value table first (a snapshot records a stored version), "
                "or ask an analyst: your role cannot save boards.",
                L,
            )
        ),
    ):
        state.save_snapshot(result, rec, version, version_rec, export_name=export_name)
    meeting.share_panel(b5, rec, thresholds)
    decision_view.record_popover(tools, v, result, rec, thresholds, version, version_rec, user, lens)
    shown_as = tools.segmented_control(
        t("Show amounts as", L),
        ["value", "loss"],
        default=lens.display,
        format_func={"value": t("Value", L), "loss": t("Loss", L)}.get,
        key="board_display",
        label_visibility="collapsed",
        help=t(
            "Expected value per decision (gains positive) or expected loss per decision (positive = money "
            "lost): the same numbers, as you think of them. Your choice; the value table's editors set the default.",
            L,
        ),
    )
    if shown_as and shown_as != lens.display:
        state.set_own_display(shown_as)
        st.rerun()  # admins and analysts: a read-only link for the meeting-room screen

previous = state.last_snapshot(result, rec)
deltas = {}  # tile index → change since the last snapshot
for i, n in enumerate(result.models):
    prev = state.snapshot_value(previous, f"models.{n}.at_threshold.ev")
    if prev is not None:
        deltas[i] = t(
            "{diff} vs last saved", L, diff=fmt.money(result.models[n].ev - prev, unit, signed=True, compact=True, locale=L)
        )


def drift_lights(*, reasons: bool) -> None:
    """Module 4: the three drift lights (with their statistical reason off the meeting screen)."""
    if result.drift is None:
        st.info(t("Drift lights: {why}.", L, why=ui.md_text(result.drift_undefined)))
        return
    for fam in ("feature", "label", "calibration"):
        light = result.drift.lights[fam]
        was = state.snapshot_value(previous, f"drift.{fam}.light")
        change = t(" (last saved: {color})", L, color=word(was, L)) if was and was != light.color else ""
        why = light_reason(light.reason, L)
        reason = f"<br><span style='font-size:0.85em;color:#444'>{ui.html_text(why)}</span>" if reasons else ""
        st.html(
            f"<div title='{ui.html_text(why)}' style='padding:4px 10px;border:1px solid #ddd;border-radius:8px'>"
            f"<span style='display:inline-block;width:0.9em;height:0.9em;border-radius:50%;vertical-align:-0.1em;"
            f"background:{LIGHT_COLORS[light.color]}'></span> <b>{ui.html_text(ui.drift_light_title(fam, light.color, L))}</b>"
            f"{ui.html_text(change)}{reason}</div>"
        )


def chart(where, name: str, height: int) -> None:
    ui.plotly_chart(
        where,
        figs[name].update_layout(height=height),
        key=f"board_{name}",
        config={"displayModeBar": False, "staticPlot": present},
    )


if job is not None:  # point estimates now; the page reruns when the whole board is ready

    @st.fragment(run_every=0.5)
    def _wait_for_the_board():
        if job.done():
            st.rerun()
        st.caption(
            ":material/hourglass_top: " + t("Computing the intervals … {s} s so far", L, s=f"{time.monotonic() - started:.0f}")
        )

    started = st.session_state.setdefault(f"board_wait_{id(job)}", time.monotonic())
    with st.container(key="board_verdict"):
        verdict_view.pending(result, lens, L, config.n_resamples)
        _wait_for_the_board()
    with st.container(key="board_row1"):
        left, right = st.columns([1, 1], gap="medium")
    with right:
        drift_lights(reasons=True)
    with left:
        chart(st, "waterfall", 300)
    st.stop()

no_heatmap = t("No segment columns mapped: map some on the Upload page to see the threshold × segment heatmap.", L)
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
    figs["headline"].update_layout(
        title_text=t("{quantity} ({convention})", L, quantity=lens.Quantity, convention=lens.convention)
    )
    figs["headline"].update_xaxes(title_text=unit)  # the title says the rest
    if "heatmap" in figs:
        segs = result.models[focus].segments
        col = v.segment_column if v.segment_column in segs else next(iter(segs))
        figs["heatmap"].update_layout(
            title_text=t("Loss by {column}: {model}", L, column=col, model=focus)
            if lens.loss
            else t("Value by {column}: {model}", L, column=col, model=focus)
        )
        figs["heatmap"].update_traces(showscale=False, selector=dict(type="heatmap"))  # no room for a colour bar
    if result.comparison is not None:
        figs["waterfall"].update_layout(
            title_text=t("Loss: {a} → {b}, per decision", L, a=result.comparison.a, b=result.comparison.b)
            if lens.loss
            else t("Value: {a} → {b}, per decision", L, a=result.comparison.a, b=result.comparison.b)
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
    # value over time beside the lights (a module of its own below would push the board off one
    # screen); with it, the Drift page is one click away through the "because" lines instead
    drawn = over_time_view.sparkline(
        preds, result.drift.lights["calibration"].color if result.drift is not None else None, height=80
    )
    if not drawn and not meeting.active():  # a meeting link's screen routes to no other page
        st.page_link("views/drift.py", label=t("Drill down on the Drift page", L), icon=":material/arrow_forward:")
with st.container(key="board_row2"):
    h1, h2 = st.columns(2, gap="medium")
row2_height = 230 if drawn else 300  # with the sparkline above, the board still fits one 1080-px screen
if "heatmap" in figs:  # module 2
    chart(h1, "heatmap", row2_height)
else:
    h1.info(no_heatmap)
chart(h2, "waterfall", row2_height)

# module 5: the statistics behind the verdict (KS, O/E, CI, p), one click away
with st.expander(t("Statistics behind the verdict", L), expanded=False), st.container(key="board_action"):
    for c in result.action.clauses:
        tip = "; ".join(f"{k} = {val}" for k, val in c.evidence.items())
        st.markdown(f"- {ui.md_text(clause_text(c, L, result))}", help=tip or None)

with st.expander(t("Details: data conditions of the training data", L)):
    from board.app.stability_view import DC_LAST_KEY, data_conditions_card

    if st.session_state.get(DC_LAST_KEY) is not None:
        data_conditions_card(st.session_state[DC_LAST_KEY])
    else:
        st.write(t("No training table has been scored in this session yet.", L))
        st.page_link("views/data_conditions.py", label=t("Open Data conditions", L), icon=":material/dataset:")
