"""Value over time on the Drift page (issue 19): EV per decision per day or week for each model
at the board's thresholds, with the board's bootstrap band per window, the alert line and B − A.

The numbers come from :func:`evalcore.over_time.value_over_time` on the dataset's rows (cached
by dataset id, file hash, value table, thresholds, settings and window); a dataset registered by
path has no rows here and says so (the CLI's ``--engine duckdb --window`` computes it there).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math

import plotly.graph_objects as go
import streamlit as st

from board import services
from board.app import state, ui
from board.app.lru import BoundedLRU
from board.charts._style import PLOTLY_DATE_FORMATS
from board.words import fmt
from board.words.i18n import N_, t, tn
from board.words.vocab import word
from evalcore import InputError

K_WINDOW = "drift_vot_window"
N_RESAMPLES = 300  # per window: a band per day over months stays quick; the board keeps its 1000
COLORS = ("#0B5FFF", "#E4572E")
ALERT_WORDS = {
    "red": N_("below the line in a row"),
    "yellow": N_("below the line"),
    "green": N_("above the line"),
    "grey": N_("no line"),
}


@st.cache_resource(max_entries=8, show_spinner="Computing value over time …")
def _compute(dataset_id: int, sha: str, table: str, config: str, window: str, _rows, _table, _config, _known=None, _light=None):
    from evalcore.over_time import value_over_time

    return value_over_time(_rows, _table, _config, window=window, label_known=_known, calibration_light=_light)


@st.cache_resource(max_entries=4, show_spinner="Reading the rows whose labels have not arrived …")
def _late(dataset_id: int, sha: str, mapping: str, _store):
    from board.services.evaluation import load_late_labels

    return load_late_labels(_store, dataset_id)


def late_rule(rec) -> bool:
    """Whether the dataset's mapping has a label-known rule (labels that arrive late)."""
    m = rec.mapping or {}
    return bool(m.get("label_known") or m.get("labels_complete_until"))


def late_words(rec, L: str) -> str:
    """The board's meta line on a dataset whose labels arrive late: "labels complete until …; N
    recent rows estimated" (from the stored validation report), or ""."""
    info = (rec.report or {}).get("late_labels") if late_rule(rec) else None
    if not info:
        return ""
    until = info.get("labels_complete_until")
    day = fmt.date(datetime.date.fromisoformat(until), locale=L) if until else fmt.DASH
    return t("labels complete until {date}; {n} recent rows estimated", L, date=day, n=fmt.count(info.get("pending_rows", 0)))


def rows_and_flags(rec):
    """(rows, label_known) for value over time: every row and whose label has arrived when the
    mapping has a label-known rule, else the dataset's rows and None."""
    if late_rule(rec):
        late = _late(rec.id, rec.sha256, json.dumps(rec.mapping, sort_keys=True), state.store())
        return late.every, late.known
    return state.current_rows(), None


def _no_line_reason(info: dict, L: str) -> str:
    """Why a model has no alert line, in ``L``: evalcore.over_time says it in English when fewer
    than 2 reference windows have a value (its ``n_reference`` and ``reference`` days say it here)."""
    n, ref = info.get("n_reference"), info.get("reference")
    if n is None or n >= 2 or not ref or len(ref) != 2:
        return info["reason"]
    last = (datetime.date.fromisoformat(str(ref[1])[:10]) - datetime.timedelta(days=1)).isoformat()
    return tn(
        "{n} reference window with a value between {start} and {end}; the alert line needs at least 2: "
        "use daily windows or a longer drift reference window",
        "{n} reference windows with a value between {start} and {end}; the alert line needs at least 2: "
        "use daily windows or a longer drift reference window",
        n,
        L,
        n=fmt.count(n),
        start=str(ref[0])[:10],
        end=last,
    )


def _band_figure(result, unit: str, L: str, bands: bool = True) -> go.Figure:
    fig = go.Figure()
    x = [w.start for w in result.windows]
    for i, m in enumerate(result.models):
        c = COLORS[i % len(COLORS)]
        lo = [w.ev_low[m] for w in result.windows]
        hi = [w.ev_high[m] for w in result.windows]
        ev = [w.ev[m] for w in result.windows]
        if bands:
            fig.add_trace(go.Scatter(x=x, y=hi, mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"))
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=lo,
                    mode="lines",
                    line=dict(width=0),
                    fill="tonexty",
                    fillcolor=c + "33",
                    name=t("{model}: 95% band", L, model=m),
                    hoverinfo="skip",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=ev,
                mode="lines+markers",
                line=dict(color=c),
                name=m,
                text=[fmt.money(v, unit, locale=L) for v in ev],
                hovertemplate="%{x|%Y-%m-%d}: %{text}<extra>" + m + "</extra>",
            )
        )
        est = [v if w.estimated else None for v, w in zip(ev, result.windows)]
        if any(v is not None for v in est):  # windows whose labels have not arrived: dashed, named so
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=est,
                    mode="lines+markers",
                    line=dict(color=c, dash="dash"),
                    marker=dict(symbol="circle-open"),
                    name=t("{model}: estimated (labels not arrived)", L, model=m),
                    connectgaps=False,
                )
            )
        line = result.alert_line[m]["line"]
        if math.isfinite(line):
            fig.add_hline(
                y=line,
                line=dict(color=c, dash="dot", width=1),
                annotation_text=t("{model} alert line {value}", L, model=m, value=fmt.money(line, unit, locale=L)),
            )
    fig.update_layout(
        height=320,
        margin=dict(l=10, r=10, t=30, b=10),
        template="plotly_white",
        yaxis_title=t("EV per decision", L) + (f" ({unit})" if unit else ""),
        xaxis_title=t("window starting on", L),
    )
    return fig


def _diff_figure(result, unit: str, L: str) -> go.Figure:
    a, b = result.models
    x = [w.start for w in result.windows]
    d = [w.diff for w in result.windows]
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=d,
            mode="markers",
            error_y=dict(
                type="data",
                symmetric=False,
                array=[w.diff_high - w.diff for w in result.windows],
                arrayminus=[w.diff - w.diff_low for w in result.windows],
            ),
            text=[fmt.money(v, unit, signed=True, locale=L) for v in d],
            hovertemplate="%{x|%Y-%m-%d}: %{text}<extra></extra>",
            name=t("{b} − {a}", L, a=a, b=b),
        )
    )
    fig.add_hline(y=0, line=dict(color="#888", width=1))
    fig.update_layout(
        height=240,
        margin=dict(l=10, r=10, t=10, b=10),
        template="plotly_white",
        yaxis_title=t("{b} − {a} per decision", L, a=a, b=b),
        xaxis_title=t("window starting on", L),
    )
    return fig


def _key(rec, data, names, window: str, light):
    table, _ = state.committed_table()
    thresholds = {m: state.deployed_threshold(data, m) for m in names}
    config = dataclasses.replace(state.board_config(data, thresholds), n_resamples=N_RESAMPLES)
    late = rec.mapping.get("label_known") or rec.mapping.get("labels_complete_until")
    key = (
        rec.id,
        rec.sha256,
        state.table_json(table),
        json.dumps({**config.to_dict(), "late": late, "light": light}, sort_keys=True),
        window,
    )
    return key, table, config, thresholds


def _result_for(rec, data, rows, known, window: str, light):
    """Value over time at the board's thresholds and bootstrap (N_RESAMPLES per window), cached by
    dataset, value table, settings, window and label rule: the Drift page and the board's sparkline
    share one computation (also kept in :data:`_DONE` for the board's large datasets)."""
    key, table, config, thresholds = _key(rec, data, rows.scores, window, light)
    result = _compute(*key, rows, table, config, known, light)
    _DONE.put(key, result)
    return result, table, config, thresholds


#: Results computed in this process (by the Drift page or the board), by their cache key: the board
#: draws the sparkline of a dataset larger than SPARKLINE_ROWS only from here, never computing it.
_DONE = BoundedLRU(8)
SPARKLINE_ROWS = 200_000  # 50 k rows: 0.3 s; 1 M rows weekly (cluster): 18 s, too slow for the board


def show(data) -> None:
    """The "Value over time" section of the Drift page."""
    L = state.current_locale()
    st.subheader(t("Value over time", L))
    rec = state.dataset_record()
    if rec is None:
        return
    if rec.is_aggregate:
        st.info(
            t(
                "Value over time is computed from rows; this dataset is an aggregate. From the command line: "
                "`python -m board evaluate … --engine duckdb --time COL --window week`.",
                L,
            )
        )
        return
    try:
        rows, known = rows_and_flags(rec)
    except InputError as err:
        ui.show_problems(err, title=t("Value over time cannot be computed", L))
        return
    if rows is None or rows.time is None:
        return
    window = st.segmented_control(
        t("Window", L),
        ["week", "day"],
        default="week",
        format_func=lambda w: t("weekly", L) if w == "week" else t("daily", L),
        key=K_WINDOW,
    )
    window = window or "week"
    try:
        result, table, config, thresholds = _result_for(
            rec, data, rows, known, window, _calibration_light(rec, data) if known is not None else None
        )
    except InputError as err:
        ui.show_problems(err, title=t("Value over time cannot be computed", L))
        return
    from board.app import shadow_view  # the shadow anchor (issue 19 item 3): shown, and applied when asked

    name = st.session_state.get(state.TABLE_KEY, services.DEFAULT_TABLE_NAME)
    result = shadow_view.drift_section(result, rec, table, name, config, thresholds)
    unit = table.unit
    ui.plotly_chart(st, _band_figure(result, unit, L), key="drift_vot_bands")
    for m in result.models:
        info = result.alert_line[m]
        last = next((w for w in reversed(result.windows) if math.isfinite(w.ev[m])), None)
        if not math.isfinite(info["line"]):
            st.caption(t("{model}: no alert line — {reason}.", L, model=m, reason=_no_line_reason(info, L)))
        elif last is not None:
            st.caption(
                t(
                    "{model}: alert line {line} (mean {mean} − 2 × std {std} of {n} reference windows); "
                    "latest window {value}: {state}.",
                    L,
                    model=m,
                    line=fmt.money(info["line"], unit, locale=L),
                    mean=fmt.money(info["mean"], unit, locale=L),
                    std=fmt.money(info["std"], unit, locale=L),
                    n=fmt.count(info["n_reference"]),
                    value=fmt.money(last.ev[m], unit, locale=L),
                    state=t(ALERT_WORDS[last.alert[m]], L),
                )
            )
    if known is not None:
        _show_quality(result, rec, L)
    if len(result.models) == 2:
        ui.plotly_chart(st, _diff_figure(result, unit, L), key="drift_vot_diff")
    st.caption(
        t(
            "Bands: the board's bootstrap ({scheme}, {n} resamples) of each window's rows; a window without "
            "rows has no value. The alert line is mean − 2·std of the windows inside the drift reference period; "
            "red when {k} windows in a row fall below it.",
            L,
            scheme=word(result.scheme, L),
            n=fmt.count(result.n_resamples),
            k=fmt.count((config.drift or {}).get("consecutive_red", 3)),
        )
    )


def _calibration_light(rec, data):
    """The Drift page's calibration light (the quality check cites a red one), from its cache."""
    from board.app import drift_view as dv

    try:
        config, _ = dv.load_config(state.store(), rec.id)
        return dv.drift_for(rec.id, rec.sha256, data, config).lights["calibration"].color
    except (InputError, KeyError, AttributeError):
        return None


def _show_quality(result, rec, L: str) -> None:
    """What the estimated windows are and whether to trust them (the quality check's verdict)."""
    n_est = sum(1 for w in result.windows if w.estimated)
    st.caption(
        t(
            "{late}. Dashed windows are estimated from the scores (a recalibration map fitted on the labelled "
            "rows only); they are replaced by realised values as labels arrive.",
            L,
            late=late_words(rec, L) or t("labels arrive late", L),
        )
    )
    q = result.quality
    if not n_est or q is None:
        return
    checks = q.get("checks", [])
    outside = [c for c in checks if not c["inside"]]
    if q.get("trusted"):
        st.success(
            t(
                "Estimates checked: on the {n} most recent labelled windows, re-estimated without their labels, "
                "every realised value lies inside its estimate's interval.",
                L,
                n=fmt.count(len({c["window"] for c in checks})),
            ),
            icon=":material/check_circle:",
        )
        return
    why = []
    if outside:
        why.append(
            t(
                "{k} of {n} realised values of recent labelled windows fall outside their estimate's interval "
                "(probability {p} if the estimates held their level)",
                L,
                k=fmt.count(len(outside)),
                n=fmt.count(len(checks)),
                p=fmt.number(q.get("p_misses_by_chance"), 2),
            )
        )
    if result.quality and any("calibration" in r for r in q.get("reasons", [])):
        why.append(t("the calibration drift light is red", L))
    if not checks:
        why.append(t("no fully labelled window to check the estimate against", L))
    st.warning(
        t("Do not trust the estimated windows: {why}.", L, why="; ".join(why)),
        icon=":material/warning:",
    )


def sparkline(data, board_light=None, *, height: int = 150) -> bool:
    """The Board page's small "value over time" module: EV per decision per week for each model,
    the alert lines, estimated windows dashed (the Drift page's computation, shared through the
    cache; nothing when the dataset has no time column or is an aggregate)."""
    rec = state.dataset_record()
    if rec is None or rec.is_aggregate or not rec.mapping.get("time"):
        return False
    L = state.current_locale()
    light = board_light if late_rule(rec) else None
    try:
        n_all = rec.n_rows + int(((rec.report or {}).get("late_labels") or {}).get("pending_rows", 0))
        if n_all > SPARKLINE_ROWS:  # large: only what the Drift page (or an earlier run) computed
            key, table, _, _ = _key(rec, data, list(rec.mapping.get("scores", {})), "week", light)
            result = _DONE.get(key)
            if result is None:
                with st.container(key="board_value_over_time"):
                    st.caption(
                        t(
                            "Value over time of {n} rows is computed on the Drift page (weekly windows); "
                            "the board then shows it here.",
                            L,
                            n=fmt.count(n_all),
                        )
                    )
                return False
        else:
            rows, known = rows_and_flags(rec)
            if rows is None or rows.time is None:
                return False
            result, table, _, _ = _result_for(rec, data, rows, known, "week", light)
    except InputError:
        return False  # the Drift page says why; the board stays quiet
    from board.app import shadow_view

    scaled = shadow_view.board_factors(rec, st.session_state.get(state.TABLE_KEY, services.DEFAULT_TABLE_NAME))
    if scaled:
        result = shadow_view.rescaled(result, scaled)
    fig = _band_figure(result, table.unit, L, bands=False)
    # the week dates on one line (no year under the first), inside the sparkline's height: an
    # 80-px chart cut its date labels to their top pixels (plotly keeps a plot area of at least
    # minreducedheight, 64 px by default, so the labels' margin could not grow)
    fig.update_layout(
        height=height,
        margin=dict(l=4, r=4, t=6, b=2, pad=2),
        minreducedheight=min(40, height // 2),
        showlegend=False,
        yaxis_title=None,
        xaxis_title=None,
    )
    day_month = PLOTLY_DATE_FORMATS["dayMonth"]  # the pattern plotly's own axis uses, in the reader's language
    fig.update_xaxes(automargin=True, tickformat=t(day_month, L), tickfont_size=11)
    if len(result.windows) <= 8:  # a tick at each week's point, not at plotly's every-third day
        fig.update_xaxes(tickvals=[w.start for w in result.windows])
    fig.update_yaxes(automargin=True, tickfont_size=11)
    fig.update_annotations(font_size=9)
    with st.container(key="board_value_over_time"):
        st.caption(t("Value per decision, week by week (dashed: estimated; dotted: alert line)", L))
        # no toolbar over a chart this small (it covered the newest week)
        ui.plotly_chart(st, fig, key="board_vot_sparkline", config={"displayModeBar": False})
    return True


def board_meta(rec, L: str) -> str:
    """What the board's meta line (and its HTML export) adds for value over time: "labels complete
    until …; N recent rows estimated" and the shadow rescaling this session applied, or ""."""
    if rec is None:
        return ""
    from board.app import shadow_view

    said = shadow_view.board_statement(rec, st.session_state.get(state.TABLE_KEY, services.DEFAULT_TABLE_NAME))
    return " · ".join(x for x in (late_words(rec, L), said) if x)


def export_name(rec, L: str) -> str:
    """The dataset's name as an HTML export (download or stored snapshot) prints it: the name, then
    what :func:`board_meta` says (late labels, the rescaling applied), as the board's meta line does."""
    return " · ".join(x for x in (rec.name, board_meta(rec, L)) if x)
