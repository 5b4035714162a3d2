"""Calibration (SPEC §3.5): reliability and metrics with intervals, per segment, and a
cross-fitted recalibration with its effect on the threshold–value curve."""

import math

import streamlit as st

from board import charts, services
from board.app import state, ui
from board.charts import calibration as cc
from board.services import aggregate_view
from board.words import fmt
from board.words.glossary import term, terms
from board.words.i18n import t
from board.words.reasons import undefined_reason
from board.words.vocab import word
from evalcore import InputError, auc_from_counts, cross_fit_calibration, price_curve, score_counts
from evalcore.aggregate import calibration_intervals_of, reliability_of

L = state.current_locale()

SEED = 0  # bootstrap and fold shuffle: the same numbers on every run
N_RESAMPLES = 200
N_FOLDS = 5
METHODS = {"platt": t("Platt", L), "isotonic": word("isotonic", L), "temperature": word("temperature", L)}
STRATEGIES = {"uniform": t("uniform (equal-width)", L), "quantile": t("quantile (equal-count)", L)}
WORST = "#FDE2DC"  # the worst segment's row (as board.charts.calibration.segment_styler)
NUM = st.column_config.NumberColumn
SEGMENT_COLUMNS = {  # segment_calibration's columns → how the sortable table shows them
    "segment": st.column_config.TextColumn(t("Segment", L), help=term("segment", L)),
    "n_rows": NUM(t("Rows", L), format="%,d"),
    "n": NUM(t("Weighted rows", L), format="%,.1f", help=t("The sum of the sample weights of the segment's rows.", L)),
    "n_pos": NUM(t("Positives", L), format="%,d"),
    "brier": NUM(t("Brier score", L), format="%.4f", help=term("brier", L)),
    "log_loss": NUM(t("Log loss", L), format="%.3f", help=term("log_loss", L)),
    "ece": NUM("ECE", format="%.4f", help=term("ece", L)),
    "oe_ratio": NUM(t("Observed ÷ expected", L), format="%.3f", help=term("oe", L)),
    "slope": NUM(t("Calibration slope", L), format="%.3f", help=term("slope", L)),
    "intercept": NUM(t("Calibration intercept", L), format="%+.3f", help=term("intercept", L)),
    "undefined": st.column_config.TextColumn(t("Why undefined", L), help=t("Why a number of this segment shows as empty.", L)),
}
COMPARISON_ROWS = (  # rows of board.charts.calibration.comparison_table, in order
    t("Brier score", L),
    t("Log loss", L),
    t("ECE ({n_bins} {strategy} bins)", L),
    t("Observed ÷ expected (O/E)", L),
    t("Calibration slope", L),
    t("Calibration intercept", L),
    "AUC",
)
EFFECT_ROWS = (  # rows of board.charts.calibration.threshold_effect, in order
    t("EV per decision at the best threshold", L),
    t("Best threshold (empirical)", L),
    t("Bayes threshold t*", L),
    t("Gap between t* and the best threshold", L),
)
LOSS_ROW = t("Expected loss per decision at the best threshold", L)  # the first row under the loss view


def _metric(x) -> str:
    """A calibration metric: 4 significant digits (the metrics are small numbers whose differences matter)."""
    return ui.fmt(x, 4)


def _segment_table(seg, *, weighted: bool):
    """The per-segment table with plain column names, sortable numbers, the worst row highlighted."""
    keep = [c for c in SEGMENT_COLUMNS if c != "n" or weighted]
    shown = seg[keep].assign(n_rows=seg["n_rows"].round().astype("int64"), n_pos=seg["n_pos"].round().astype("int64"))
    shown = shown.rename(columns={c: SEGMENT_COLUMNS[c]["label"] for c in keep})
    worst = seg["worst"].to_numpy()
    styled = shown.style.apply(lambda r: [f"background-color: {WORST}" if worst[r.name] else ""] * len(r), axis=1)
    return styled, {SEGMENT_COLUMNS[c]["label"]: SEGMENT_COLUMNS[c] for c in keep}


def _before_after(frame, rows, shows):
    """A before/after table (index: metric) as text: rows renamed by position, each row's values
    shown by its formatter."""
    assert len(frame.index) == len(rows) == len(shows), (list(frame.index), rows)
    return [
        {"Measure": label, "Before": show(b), "After": show(a)}
        for label, show, b, a in zip(rows, shows, frame["before"], frame["after"])
    ]


# Cached by (dataset id, file hash, model, options); the aggregate argument is not hashed.
@st.cache_resource(max_entries=32, show_spinner=t("Computing calibration and its bootstrap intervals …", L))
def _calibration(ds, sha, model, n_bins, strategy, _agg):
    """Bins and metrics from the cells' sums; intervals from the rows the exact cells stand for."""
    part = _agg.part(model)
    ci, why = calibration_intervals_of(
        part,
        resolution=_agg.resolution[model],
        weighted=_agg.weighted,
        n_bins=n_bins,
        strategy=strategy,
        n_resamples=N_RESAMPLES,
        rng=SEED,
    )
    rel = reliability_of(part, n_bins=n_bins, strategy=strategy)
    if why:
        rel.undefined["intervals"] = why
    return rel, ci


@st.cache_resource(max_entries=32)
def _segments(ds, sha, model, column, n_bins, strategy, _agg):
    return aggregate_view.segment_calibration_of(_agg, model, column, n_bins=n_bins, strategy=strategy)


@st.cache_resource(max_entries=16, show_spinner=t("Cross-fitting the recalibration …", L))
def _recalibrated(ds, sha, model, method, n_bins, strategy, _preds):
    cf = cross_fit_calibration(
        _preds.y_true,
        _preds.scores[model],
        method=method,
        n_folds=N_FOLDS,
        rng=SEED,
        score_kind=_preds.score_kinds[model],
        sample_weight=_preds.sample_weight,
        n_bins=n_bins,
        strategy=strategy,
    )
    return cf, score_counts(_preds.y_true, cf.calibrated, sample_weight=_preds.sample_weight)


def _cards(rel, ci, key: str):
    """Six metric cards, each with its interval (— when undefined; the reasons follow as captions)."""
    items = [
        (t("Brier", L), "brier", term("brier", L) + t(" Mean (p − y)².", L)),
        (
            t("log loss", L),
            "log_loss",
            term("log_loss", L)
            + t(" Probabilities are kept {log_loss_clip} away from 0 and 1.", L, log_loss_clip=ui.exact(rel.log_loss_clip)),
        ),
        (
            t("ECE ({n_bins} {strategy} bins)", L, n_bins=rel.n_bins, strategy=t(cc.STRATEGY_WORDS[rel.strategy], L)),
            "ece",
            term("ece", L) + t(" Σ (n_b/N)·|observed − predicted|.", L),
        ),
        (t("O/E (calibration-in-the-large)", L), "oe_ratio", term("oe", L)),
        (t("calibration slope", L), "slope", term("slope", L) + t(" From a logistic fit of y on logit(p).", L)),
        (t("calibration intercept", L), "intercept", term("intercept", L)),
    ]
    # cards of 210 px in a wrapping row: two abreast in a model's half of a 1366-px screen, one at 820 px
    # (three fixed columns cut the numbers to "0.01…" and their intervals even at 1366)
    row = ui.metric_row(key)
    for label, field, help_ in items:
        lo, hi = ci.get(field, (math.nan, math.nan))
        row.metric(
            label,
            _metric(getattr(rel, field)),
            delta=t("95% CI {lo} – {hi}", L, lo=_metric(lo), hi=_metric(hi)),
            delta_color="off",
            delta_arrow="off",
            border=True,
            help=help_,
            width=210,
        )
    if any(math.isnan(v) for _, f, _ in items for v in ci.get(f, (math.nan, math.nan))):
        st.caption(
            t("An interval shows — when the metric is undefined or fewer than half the bootstrap replicates define it.", L)
        )


preds = state.current_data()  # the dataset's aggregate: reliability from its cells
if preds is None:
    st.stop()
rec = state.dataset_record()
key = (rec.id, rec.sha256)
table, _ = state.committed_table()
lens = state.current_lens()  # expected value or expected loss, as the reader chose (board/words/lens.py)
models = list(preds.score_kinds)
kinds = preds.score_kinds
probs = [m for m in models if kinds[m] == "probability"]

st.title(t("Calibration", L), help=term("calibration", L))
st.caption(
    t(
        "Do the predicted probabilities mean what they say? Among cases given 10%, about 10% should "
        "be positive. The Bayes threshold t* on the Threshold–value page is only right for "
        "calibrated probabilities.",
        L,
    )
)
a, b, _ = st.columns([3, 1, 0.5])  # room for both bin choices in full, also at 820 px
strategy = a.segmented_control(
    t("Bins", L),
    ["uniform", "quantile"],
    format_func=STRATEGIES.get,
    default="uniform",
    required=True,
    key="cal_strategy",
    help=t("Equal-width: [0, 0.1), …, [0.9, 1]. Quantile: equal counts per bin (duplicate edges collapsed).", L),
)
n_bins = int(b.number_input(t("Number of bins", L), min_value=2, max_value=50, value=10, step=1, key="cal_n_bins"))

for col, m in zip(st.columns(len(models)), models):
    with col:
        st.subheader(ui.md_text(m))
        if kinds[m] == "decision":
            st.info(
                t(
                    "{m} is a hard 0/1 decision: calibration does not apply (there are no probabilities to "
                    "compare with observed rates).",
                    L,
                    m=ui.md_text(m),
                )
            )
            continue
        if kinds[m] == "score":
            st.info(
                t(
                    "{m} gives raw scores, not probabilities: calibration needs a recalibration to [0, 1] "
                    "first. Choose Platt or isotonic under **Recalibration** below.",
                    L,
                    m=ui.md_text(m),
                )
            )
            continue
        rel, ci = _calibration(*key, m, n_bins, strategy, preds)
        ui.plotly_chart(st, cc.reliability_figure({m: rel}, height=430, locale=L, ece_line=False), key=f"cal_rel_{m}")
        _cards(rel, ci, f"cal_cards_{models.index(m)}")
        if "bins" in rel.undefined:
            st.caption(
                t("{x}: drawn as empty, never as a point at 0.", L, x=ui.md_text(undefined_reason(rel.undefined["bins"], L)))
            )
        ui.undefined_notes({k: v for k, v in rel.undefined.items() if k != "bins"}, prefix=f"{ui.md_text(m)}: ")
if probs:
    st.caption(
        t(
            "Bins, Brier, log loss, ECE and O/E from the counts by score (exact); slope and intercept "
            "from the logistic fit. Intervals: 95% percentile bootstrap over rows ({n_resamples} "
            "resamples, seed {seed}, bin edges fixed; scores binned to a grid give — with the reason "
            "below); slope and intercept: Wald. Per-bin bars: Wilson intervals.",
            L,
            n_resamples=N_RESAMPLES,
            seed=SEED,
        )
        + (
            t(  # the space that separates it from the sentence before (none in Chinese)
                " Rows are resampled independently: repeat customers (groups) are not clustered, so these "
                "intervals may be too narrow.",
                L,
            )
            if services.has_groups(preds)
            else ""
        )
    )

if probs and preds.segments:
    st.header(t("By segment", L), help=term("segment", L))
    a, b, _ = st.columns([1, 1, 2])
    seg_col = a.selectbox(t("Segment column", L), list(preds.segments), key="cal_segment")
    seg_model = b.selectbox(t("Model", L), probs, key="cal_seg_model")
    seg = _segments(*key, seg_model, seg_col, n_bins, strategy, preds)
    worst = seg[seg["worst"]]
    styled, config = _segment_table(seg, weighted=preds.weighted)
    st.dataframe(styled, hide_index=True, width="stretch", key="cal_seg_table", column_config=config)
    if len(worst):
        st.caption(
            t(
                "Highlighted: the worst segment by ECE ({n_bins} {strategy} bins within each segment): "
                "{seg_col} = {x} (ECE {x2}).",
                L,
                n_bins=n_bins,
                strategy=t(cc.STRATEGY_WORDS[strategy], L),
                seg_col=ui.md_text(seg_col),
                x=ui.md_text(", ".join(map(str, worst["segment"]))),
                x2=_metric(worst["ece"].iloc[0]),
            )
        )

recal = [m for m in models if kinds[m] != "decision"]
rows = None
if recal:
    st.header(t("Recalibration (cross-fitted)", L))
    # only on request (issue 18): the fits read every row again and cost seconds (about 8 s at 1M
    # rows); once asked for, this session keeps them on for the dataset
    asked = f"cal_recal_on::{rec.id}::{rec.sha256}"
    if not rec.is_aggregate and not st.session_state.get(asked):
        st.caption(
            t(
                "Fits a recalibration map on {n_folds} folds of the rows and shows what it would change: "
                "the calibration and the best threshold before and after.",
                L,
                n_folds=N_FOLDS,
            )
        )
        st.button(
            t("Cross-fit the recalibration", L),
            icon=":material/play_arrow:",
            key="cal_recal_run",
            on_click=st.session_state.__setitem__,  # set before the rerun: the button goes, the fits show
            args=(asked, True),
        )
    if rec.is_aggregate or st.session_state.get(asked):
        rows = state.current_rows(
            t("Cross-fitted recalibration", L), why=t("it fits a map on some rows and applies it to the others, row by row", L)
        )
if rows is not None:
    st.caption(
        t(
            "{n_folds}-fold stratified cross-fitting (seed {seed}): each row is calibrated by a map "
            "fitted on the other folds, so no row is scored by a map fitted on itself. Cross-fitting "
            "changes AUC slightly because each fold has its own map (and isotonic maps create ties).",
            L,
            n_folds=N_FOLDS,
            seed=SEED,
        )
    )
    options = [k for k in METHODS if k != "temperature" or probs]
    method = st.segmented_control(
        t("Method", L),
        options,
        format_func=METHODS.get,
        default="platt",
        required=True,
        key="cal_method",
        help=t(
            "Platt: logistic on logit(p) (or on the raw score). Isotonic: monotone step map. "
            "Temperature: one scale of logit(p); probabilities only.",
            L,
        ),
    )
    for col, m in zip(st.columns(len(recal)), recal):
        with col:
            st.subheader(f"{ui.md_text(m)}: {METHODS[method]}")
            if method == "temperature" and kinds[m] == "score":
                st.info(
                    t(
                        "{m} gives raw scores: temperature scaling needs probabilities. Choose Platt or isotonic.",
                        L,
                        m=ui.md_text(m),
                    )
                )
                continue
            try:
                cf, counts_after = _recalibrated(*key, m, method, n_bins, strategy, rows)
            except InputError as err:
                ui.show_problems(err, title=t("{m} cannot be recalibrated", L, m=ui.md_text(m)))
                continue
            ui.plotly_chart(
                st, cc.recalibration_figure(cf.before, cf.after, METHODS[method], height=480, locale=L), key=f"cal_recal_{m}"
            )
            counts_before = state.counts_for(preds, m)
            comp = cc.comparison_table(
                cf.before, cf.after, auc_before=auc_from_counts(counts_before), auc_after=auc_from_counts(counts_after)
            )
            rows_shown = [
                r.format(n_bins=cf.after.n_bins, strategy=t(cc.STRATEGY_WORDS[cf.after.strategy], L)) for r in COMPARISON_ROWS
            ]
            st.dataframe(
                _before_after(comp, rows_shown, [_metric] * len(rows_shown)),
                hide_index=True,
                width="stretch",
                key=f"cal_compare_{m}",
                column_config={
                    "Measure": st.column_config.TextColumn(t("Measure", L), help=terms("brier", "ece", "oe", "auc", locale=L))
                },
            )
            if cf.before is None:
                st.caption(t("before: raw scores are not probabilities, so their calibration is undefined (—).", L))
            ui.undefined_notes({k: v for k, v in cf.after.undefined.items() if k != "bins"}, prefix=t("after: ", L))
            for note in cf.notes:
                st.caption(t("Note: {note}.", L, note=ui.md_text(note)))
            before = price_curve(counts_before, table, score_kind=kinds[m])
            after = price_curve(counts_after, table)
            effect, verdict = cc.threshold_effect(before, after, unit=table.unit, lens=lens)
            st.markdown(t("**Effect on the threshold–value curve** (value table “{name}”)", L, name=ui.md_text(table.name)))
            shows = [ui.money_of(table.unit, signed=True), fmt.score, fmt.score, ui.fmt]
            st.dataframe(
                _before_after(effect, (LOSS_ROW if lens.loss else EFFECT_ROWS[0], *EFFECT_ROWS[1:]), shows),
                hide_index=True,
                width="stretch",
                key=f"cal_effect_{m}",
                column_config={
                    "Measure": st.column_config.TextColumn(
                        t("Measure", L), help=terms("ev", "best_threshold", "bayes_threshold", locale=L)
                    )
                },
            )
            if verdict:
                st.markdown(verdict)
            st.caption(
                t(
                    "A recalibration keeps the ranking (up to the per-fold maps and isotonic ties), so it adds "
                    "little value at the optimum; what it fixes is where the threshold sits, so that t* can be "
                    "used.",
                    L,
                )
            )
            ui.undefined_notes({k: v for k, v in before.undefined.items() if k == "bayes_threshold"}, prefix=t("before: ", L))
            with st.expander(t("Threshold–value curve before and after", L)):
                after_name = t("after: {method} (cross-fitted)", L, method=METHODS[method])
                curves = {after_name: after} if kinds[m] == "score" else {t("before", L): before, after_name: after}
                ui.plotly_chart(
                    st,
                    charts.value_curve_figure(
                        curves, {}, unit=table.unit, height=420, log_x=services.positive_rate_of(preds) < 0.1, lens=lens
                    ),
                    key=f"cal_curve_{m}",
                )
            ui.export_button(
                st,
                t("Download the {x} map of {m} (CSV lookup table)", L, x=METHODS[method], m=ui.md_text(m)),
                cf.final_map.lookup_table().to_csv(index=False).encode("utf-8"),
                file_name=f"calibration_{ui.file_stem(m)}_{method}.csv",
                mime="text/csv",
                key=f"cal_download_{m}",
                what="calibration map CSV",
                detail={"dataset_id": state.current_dataset_id(), "model": m, "method": method},
                icon=":material/download:",
            )
            st.caption(
                t(
                    "The deployment map is fitted on all {n_rows} rows; the numbers shown above are "
                    "cross-fitted. Interpolate linearly between the table's rows.",
                    L,
                    n_rows=fmt.count(rows.n_rows),
                )
            )
