"""Board: the one-page decision view (home). Five modules from one BoardResult."""

import html
from urllib.parse import urlencode

import streamlit as st

from board import export
from board.app import meeting, state, ui
from board.charts.drift import LIGHT_COLORS

RENDERED = "board_rendered"  # (board shown, PDF bytes, PNG bytes) of the last Chromium render
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
figs = export.board_figures(result, font_size=15 if present else 13)
if present:
    st.html(
        "<style>[data-testid='stSidebar'],[data-testid='stSidebarCollapsedControl'],[data-testid='stHeader'],"
        "[data-testid='stToolbar']{display:none !important}"
        "[data-testid='stMainBlockContainer']{padding:0.6rem 1.6rem 0 1.6rem;max-width:100%}"
        "html{font-size:18px}</style>"
    )
else:
    st.html(
        "<style>[data-testid='stMainBlockContainer']{padding-top:3.4rem;padding-bottom:0}"
        "[data-testid='stMainBlockContainer'] [data-testid='stVerticalBlock']{gap:0.6rem}</style>"
    )

meta = (
    f"{rec.name}{' (' + state.lake_describe(rec) + ')' if rec.is_aggregate else ''} · value table “{table.name}” {version} · {result.n_rows:,} decisions · "
    + (
        f"{result.config.level:.0%} {result.config.method} bootstrap, {result.config.scheme} scheme, "
        f"{result.config.n_resamples} replicates"
        if result.config.n_resamples
        else "no bootstrap"
    )
)
title, tools = st.columns([5, 4], vertical_alignment="center") if not present else (st.container(), None)
title.markdown(
    f"<h1 style='font-size:1.9rem;font-weight:700;line-height:1.1;padding:0;margin:0'>Decision board</h1>"
    f"<div style='font-size:0.9rem;color:#555'>{ui.html_text(meta)}</div>",
    unsafe_allow_html=True,
)
if tools is not None:
    from board.access import auth, governance

    export_meta = {"dataset_id": rec.id, "table_version": version}
    may_export = governance.allowed(user, "export")
    b1, b2, b3, b4, b5 = tools.columns([1, 0.9, 1.25, 1.15, 0.95])  # widths fit each label at 1366 px and up
    b1.link_button(
        "Present",
        "?" + urlencode({"present": 1, "dataset": rec.id, **{f"t_{m}": f"{t:.6g}" for m, t in thresholds.items()}}),
        icon=":material/slideshow:",
        help="The same board full-screen without controls (URL + present=1).",
    )
    if may_export:
        ui.export_button(
            b2,
            "HTML",
            export.board_html(result, dataset_name=rec.name, table_version=version),
            file_name="evalboard.html",
            mime="text/html",
            icon=":material/download:",
            key="board_html",
            what="board HTML",
            detail=export_meta,
            help="A self-contained file that opens offline.",
        )
        with b3.popover("PDF / PNG", icon=":material/picture_as_pdf:"):
            # a render is offered for download only while the board it shows is this one
            shown = (rec.id, rec.sha256, state.table_json(table), repr(sorted(result.config.to_dict().items())), version)
            if st.button("Render with Chromium", key="board_render"):
                try:
                    page_html = export.board_html(result, dataset_name=rec.name, table_version=version)
                    st.session_state[RENDERED] = (
                        shown,
                        export.render_bytes(page_html, "pdf"),
                        export.render_bytes(page_html, "png"),
                    )
                    state.record_export("board PDF and PNG (rendered)", export_meta)
                except export.ExportError as err:
                    st.error(str(err))
            rendered = st.session_state.get(RENDERED)
            if rendered is not None and rendered[0] == shown:
                for i, kind, mime in ((1, "pdf", "application/pdf"), (2, "png", "image/png")):
                    ui.export_button(
                        st,
                        f"Download {kind.upper()}",
                        rendered[i],
                        file_name=f"evalboard.{kind}",
                        mime=mime,
                        key=f"board_dl_{kind}",
                        what=f"board {kind.upper()}",
                        detail=export_meta,
                    )
            elif rendered is not None:
                st.caption(
                    "The last render showed another board (dataset, value table or settings changed): "
                    "render again to download this one."
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
    meeting.share_panel(b5, rec, thresholds)  # admins and analysts: a read-only link for the meeting-room screen

previous = state.last_snapshot(result, rec)
left, right = st.columns([1, 1], gap="medium")
with left:  # module 1: headline CI bars and the uplift
    names = list(result.models)
    mcols = st.columns(len(names) + (1 if result.comparison else 0))
    for col, n in zip(mcols, names):
        m = result.models[n]
        prev = state.snapshot_value(previous, f"models.{n}.at_threshold.ev")
        col.metric(
            f"EV {ui.md_text(n)} @ {m.threshold:.3g}",
            ui.fmt(m.ev, unit=unit, signed=True),
            delta=None if prev is None else f"{m.ev - prev:+,.2f} vs last saved",
            border=True,
        )
    if result.comparison:
        c = result.comparison
        mcols[-1].metric(
            f"Uplift {ui.md_text(c.b)} − {ui.md_text(c.a)}",
            ui.fmt(c.diff.estimate, unit=unit, signed=True),
            delta=f"P({ui.md_text(c.b)} better) {ui.percent(c.p_b_better, 0)}",
            delta_color="off",
            border=True,
        )
    ui.plotly_chart(
        st,
        figs["headline"].update_layout(height=215, title=None, margin=dict(t=30, b=30)),
        key="board_headline",
        config={"displayModeBar": False},
    )
with right:  # module 4: the drift lights
    if result.drift is None:
        st.info(f"Drift lights: {ui.md_text(result.drift_undefined)}.")
    else:
        for fam in ("feature", "label", "calibration"):
            light = result.drift.lights[fam]
            was = state.snapshot_value(previous, f"drift.{fam}.light")
            change = f" (last saved: {was})" if was and was != light.color else ""
            st.markdown(
                f"<div style='padding:6px 10px;border:1px solid #ddd;border-radius:8px;margin-bottom:6px'>"
                f"<span style='display:inline-block;width:16px;height:16px;border-radius:50%;vertical-align:-2px;"
                f"background:{LIGHT_COLORS[light.color]}'></span> <b>{fam.title()} drift: {light.color}</b>{change}<br>"
                f"<span style='font-size:0.85em;color:#444'>{ui.html_text(light.reason)}</span></div>",
                unsafe_allow_html=True,
            )
        if not meeting.active():  # a meeting link's screen routes to no other page
            st.page_link("views/drift.py", label="Drill down on the Drift page", icon=":material/arrow_forward:")

h1, h2 = st.columns(2, gap="medium")
if "heatmap" in figs:  # module 2
    ui.plotly_chart(h1, figs["heatmap"].update_layout(height=300), key="board_heatmap", config={"displayModeBar": False})
else:
    h1.info("No segment columns mapped: map some on the Upload page to see the threshold × segment heatmap.")
ui.plotly_chart(h2, figs["waterfall"].update_layout(height=300), key="board_waterfall", config={"displayModeBar": False})

# module 5: the action capsule; hover a sentence for its numbers, links go to the evidence
action = result.action
spans = []
for c in action.clauses:
    tip = html.escape("; ".join(f"{k} = {v}" for k, v in c.evidence.items()), quote=True)
    color = "#b00020" if c.kind == "hold" else "#1a1a1a"
    spans.append(f"<span title='{tip}' style='color:{color}'>{ui.html_text(c.text)}</span>")
with st.container(key="board_action"):
    st.markdown(
        "<div style='font-size:1.2rem;line-height:1.4;padding:10px 16px;border-left:6px solid #0B5FFF;"
        f"background:#f3f6ff'>{' '.join(spans)}</div>",
        unsafe_allow_html=True,
    )
    pages = {"uncertainty": "views/uncertainty.py", "drift": "views/drift.py", "threshold": "views/threshold_value.py"}
    if meeting.active():  # a meeting link's screen routes to no other page
        pages = {}
    links = st.columns(6)
    for col, page in zip(links, dict.fromkeys(c.page for c in action.clauses if c.page in pages)):
        col.page_link(pages[page], label=f"Evidence: {page}", icon=":material/link:")

if not present:  # the detail view, below the one screen: collapsed, so the board itself never scrolls
    with st.expander("Details: data conditions of the training data"):
        from board.app.stability_view import DC_LAST_KEY, data_conditions_card

        if st.session_state.get(DC_LAST_KEY) is not None:
            data_conditions_card(st.session_state[DC_LAST_KEY])
        else:
            st.write("No training table has been scored in this session yet.")
            st.page_link("views/data_conditions.py", label="Open Data conditions", icon=":material/dataset:")
