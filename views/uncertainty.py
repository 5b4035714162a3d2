"""Uncertainty (SPEC §3.4): CI bars for EV of A, B and B − A with a verdict, the two questions
(EV at the deployed threshold; EV after re-optimising it, with the t_opt histogram), AUC and Wilson
intervals of the metrics at the deployed threshold."""

import streamlit as st

from board import services
from board.app import state, ui
from board.app import uncertainty_view as uv
from board.charts import uncertainty as cu
from board.words import fmt
from board.words.glossary import term, terms
from board.words.i18n import t
from evalcore import InputError, price_curve

L = state.current_locale()

preds = state.current_data()  # the dataset's aggregate: the bootstrap draws its cells
if preds is None:
    st.stop()
table, _ = state.committed_table()
unit = table.unit
lens = state.current_lens()  # expected value or expected loss, as the reader chose (board/words/lens.py)
models = list(preds.score_kinds)
deployed = {m: state.deployed_threshold(preds, m) for m in models}
opts, note = uv.applied_options(preds)

st.title(t("Uncertainty", L), help=terms("confidence_interval", "bootstrap", locale=L))
st.caption(
    t(
        "Value table “{name}” · {services} decisions · expected VALUE per decision (gains positive). ",
        L,
        name=ui.md_text(table.name),
        services=fmt.count(services.n_rows_of(preds)),
    )
    + t(uv.MEASURES, L)
)

with st.expander(t("Bootstrap options", L), expanded=False):  # no icon: its ligature is read as a word
    uv.seed_form(opts, preds)
    with st.form("unc_form", border=False):
        a, b, c, d, e = st.columns([1, 1, 1.4, 0.8, 1])
        a.number_input(t("Replicates", L), min_value=50, max_value=20_000, step=50, key=uv.K_N)
        b.selectbox(t("Interval method", L), list(uv.METHODS), format_func=lambda m: t(uv.METHODS[m], L), key=uv.K_METHOD)
        labels = {s: uv.scheme_label(s, preds) for s in uv.schemes(preds)}  # resolved now, not at format time
        c.selectbox(
            t("Resampling scheme", L),
            list(labels),
            format_func=labels.get,
            key=uv.K_SCHEME,
            help=t(
                "Only the schemes this dataset supports: stratified needs a segment column, clustered needs "
                "a group id (e.g. customer id).",
                L,
            ),
        )
        d.number_input(t("Seed", L), min_value=0, max_value=2**31 - 1, step=1, key=uv.K_SEED)
        e.number_input(t("Confidence level (%)", L), min_value=50.0, max_value=99.9, step=0.5, format="%.1f", key=uv.K_LEVEL)
        st.form_submit_button(t("Run bootstrap", L), type="primary", key="unc_run", on_click=uv.apply_form)
if note:
    st.warning(note)
st.caption(uv.scheme_caption(opts, preds))
if state.dataset_record().is_aggregate:  # a registered path: say how exact its stored counts are
    st.caption(
        services.resolution_note(preds)
        + t(
            "The bootstrap draws the aggregate's cells (a cell's rows move together only under the "
            "cluster scheme); a scheme or thresholds the stored aggregate was not cut for read the "
            "source again with DuckDB.",
            L,
        )
    )

# instant numbers: the exact EV and its analytic standard error need no resampling
curves = {m: price_curve(state.counts_for(preds, m), table, score_kind=preds.score_kinds[m]) for m in models}
se = uv.analytic_se(preds, table, deployed)
z = uv.z_value(opts.level)
# four tiles (EV of each model, B − A with its interval beneath, P(B better)) of 205 px in a wrapping
# row: four abreast from a 1366-px screen on, two by two at 820 px (in fixed columns the numbers were
# cut to "-1,96…" there, and at 1366 a fifth tile cut the interval to "[+18.46…")
tiles = st.container(horizontal=True, gap="small", key="unc_tiles")
top = [tiles.container(width=205) for _ in range(max(4, len(models)))]
for col, m in zip(top, models):
    col.metric(
        t("EV of {m} at deployed threshold {x}", L, m=ui.md_text(m), x=fmt.score(deployed[m])),
        ui.fmt(curves[m].ev_at(deployed[m]), unit=unit, signed=True),
        help=term("ev", L)
        + t(
            "Exact on this data. The ± below is the analytic standard error (std of the per-row value ÷ "
            "√N), which assumes independent rows; quote the bootstrap interval.",
            L,
        ),
    )
    col.caption(
        t(
            "± {x} ({level}, analytic standard error {x2}, independent rows)",
            L,
            x=ui.fmt(z * se[m], unit=unit),
            level=ui.level(opts.level),
            x2=ui.fmt(se[m], unit=unit),
        )
    )
verdict_box = st.container()
metrics = uv.wilson(curves, deployed, opts.level)

try:
    res = uv.cached(preds, table, deployed, opts)
    if res is None:
        bar = st.progress(0.0, text=t("Bootstrap …", L))
        res = uv.compute(preds, table, deployed, opts, progress=lambda f, text: bar.progress(min(f, 1.0), text=text))
        bar.empty()
except InputError as err:
    ui.show_problems(err, title=t("The bootstrap cannot run with these options", L))
    st.stop()

comp = res.comparison
left, right = st.columns(2) if comp is not None else (None, st.container())
if comp is not None:
    top[2].metric(
        t("{b} − {a}: EV difference", L, b=ui.md_text(comp.b), a=ui.md_text(comp.a)),
        ui.fmt(comp.diff.estimate, unit=unit, signed=True),
        help=t("Per decision, on the same rows; the bootstrap draws the same rows for both models.", L),
    )
    top[2].caption(
        t(
            "{level} interval of the difference: {interval}",
            L,
            level=ui.level(opts.level),
            interval=uv.interval_text(comp.diff, unit),
        ),
        help=term("confidence_interval", L),
    )
    top[3].metric(
        t("P({b} better)", L, b=ui.md_text(comp.b)),
        fmt.probability(comp.p_b_better),
        help=t("Share of bootstrap replicates in which B's EV exceeds A's (ties count as not better). ", L)
        + term("bootstrap", L),
    )
    getattr(verdict_box, uv.VERDICT_BOX[comp.verdict])(ui.md_text(cu.verdict_sentence(comp, L)))
    left.markdown(
        t(
            "**Is {b} better than {a}?** Paired: both models on the same resampled rows.",
            L,
            b=ui.md_text(comp.b),
            a=ui.md_text(comp.a),
        )
    )
    ui.plotly_chart(left, cu.comparison_figure(comp, unit=unit, height=400, lens=lens), key="unc_comparison")
right.markdown(
    t(
        "**1. What is the deployed threshold worth?** EV at the deployed threshold, fixed in every "
        "replicate.  \n**2. How good is the best threshold we could pick?** EV after re-optimising "
        "the threshold in every replicate (optimistic: picked on the same data).",
        L,
    )
)
rows, colors = [], []
for j, m in enumerate(models):
    what = t("expected loss", L) if lens.loss else "EV"
    rows.append(
        (
            t("1. {m}: {what} at deployed threshold {deployed}", L, m=m, what=what, deployed=fmt.score(deployed[m])),
            res.deployed[m],
        )
    )
    if res.optimum[m] is not None:
        rows.append((t("2. {m}: {what} after re-optimising t", L, m=m, what=what), res.optimum[m].ev_opt))
    colors += [cu.PALETTE[j]] * (len(rows) - len(colors))
ui.plotly_chart(
    right, cu.uncertainty_summary_figure(rows, unit=unit, height=400, colors=colors, lens=lens), key="unc_two_questions"
)

with_opt = [m for m in models if res.optimum[m] is not None]
if with_opt:
    st.subheader(t("Where the best threshold lands (question 2)", L), help=term("best_threshold", L))
for col, m in zip(st.columns(max(1, len(with_opt))), with_opt):
    fig = cu.t_opt_histogram(res.optimum[m], deployed=deployed[m], height=300, locale=L)
    fig.update_layout(title_text=f"{m}: " + fig.layout.title.text)
    ui.plotly_chart(col, fig, key=f"unc_topt_{m}")

st.subheader(t("AUC and the metrics at the deployed threshold", L))
left, right = st.columns([1, 2])
if with_opt:
    ui.plotly_chart(
        left,
        cu.ci_bars_figure(
            [(f"AUC {m}", res.optimum[m].auc) for m in with_opt],
            zero_line=False,
            title="AUC",
            subtitle=t("{level} {method} bootstrap", L, level=ui.level(opts.level), method=cu.method_words(opts.method, L)),
            height=440,
            locale=L,
        ),
        key="unc_auc",
    )
for col, m in zip(right.columns(len(models)), models):
    fig = cu.metric_intervals_figure(metrics[m], threshold=deployed[m], height=440, locale=L)
    fig.update_layout(title_text=f"{m}: " + fig.layout.title.text)
    ui.plotly_chart(col, fig, key=f"unc_metrics_{m}")

with st.expander(t("All intervals as numbers", L)):
    shown, config = uv.summary_display(uv.summary_frame(res, se, metrics), unit)
    st.dataframe(shown, hide_index=True, width="stretch", key="unc_table", column_config=config)
for line in uv.undefined_notes(res):
    st.caption(ui.md_text(line))
