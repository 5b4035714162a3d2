"""Stability (SPEC §3.7): the random error of training, from repeated cross-validation (run in the
background, cancellable) or uploaded scores; summary, charts, alert line, sample-size planner,
diagnostics, the worst fold, and two models compared on the same folds."""

import streamlit as st

from board.app import stability_view as sv
from board.app import state, ui
from board.charts import stability as cs
from board.words import fmt
from board.words.i18n import N_, t
from evalcore import InputError, read_table
from evalcore.stability import CLASSIFIERS, CONSERVATIVE_NOTE, METRICS, diagnostics, fold_profile, sample_size_plan, summarize

L = state.current_locale()
#: evalcore.stability's model and metric names, marked for the catalogs (shown with t())
_NAMES = (
    N_("Logistic regression"),
    N_("Random forest"),
    N_("Histogram gradient boosting"),
    N_("Accuracy"),
    N_("ROC AUC"),
    N_("F1"),
    N_("Expected value per decision"),
    N_("ROC AUC (one-vs-rest, macro)"),
    N_("F1 (macro)"),
)

st.title(t("Stability", L))
st.caption(
    t(
        "How much does the score move when the model is trained again on other rows? Repeated "
        "cross-validation measures the random error of **training** (folds and model seeds). The "
        "Uncertainty page measures something else: a fixed model on a finite test set.",
        L,
    )
)
sv.aggregate_notice(t("Stability", L))
sv.collect("stab")
source = st.radio(
    t("Scores from", L),
    [N_("Repeated cross-validation"), N_("Uploaded scores")],
    format_func=lambda o: t(o, L),
    horizontal=True,
    key="stab_source",
)
runs, data, cmp_view = {}, None, None

if source == "Uploaded scores":
    up = ui.file_uploader(st, t("A CSV/Parquet with one column of scores per model (one row per run)", L), key="stab_scores_file")
    if up is None:
        st.info(t("Upload the scores of repeated runs, e.g. 50 accuracies from 5 folds × 10 repeats.", L))
        st.stop()
    try:
        table = read_table(up.getvalue(), up.name)
    except InputError as err:
        ui.show_problems(err)
        st.stop()
    numeric = [c for c in table.columns if table[c].dtype.kind in "fiu"]
    picked = ui.multiselect(
        st, t("Score columns (one or two models)", L), numeric, default=numeric[:1], max_selections=2, key="stab_score_cols"
    )
    if not picked:
        st.info(
            t("Choose one or two score columns.", L)
            if numeric
            else t(
                "“{name}” has no numeric column: upload one column of scores per model, one row per run.",
                L,
                name=ui.md_text(up.name),
            )
        )
        st.stop()
    try:
        runs = {c: (table[c].to_numpy(float), summarize(table[c].to_numpy(float))) for c in picked}
    except InputError as err:
        ui.show_problems(err, title=t("The scores cannot be summarised", L))
        st.stop()
    metric_label = t("score", L)
else:
    picked = sv.training_table("stab")
    if picked is None:
        st.stop()
    name, sha, frame = picked
    cols = list(frame.columns)
    metrics = {k: t(v, L) for k, v in {**METRICS["binary"], **METRICS["multiclass"]}.items()}
    with st.form("stab_form", border=False):
        a, b, c, d = st.columns([1.2, 1.2, 1, 1])
        target = a.selectbox(t("Target", L), cols, index=cols.index(sv.default_target(frame)), key="stab_target")
        leave_out = ui.multiselect(b, t("Leave out columns (all others are features)", L), cols, key="stab_leave_out")
        model = c.selectbox(t("Model", L), list(CLASSIFIERS), format_func=lambda m: t(CLASSIFIERS[m], L), key="stab_model")
        model_b = d.selectbox(
            t("Compare with (same folds)", L),
            [None, *CLASSIFIERS],
            key="stab_model_b",
            format_func=lambda m: t("— none —", L) if m is None else t(CLASSIFIERS[m], L),
        )
        e, f, g, h, i, j = st.columns(6)
        metric = e.selectbox(t("Metric", L), list(METRICS["binary"]), format_func=metrics.get, key="stab_metric")
        threshold = f.number_input(
            t("Threshold (expected value)", L),
            0.0,
            1.0,
            0.5,
            0.01,
            key="stab_threshold",
            help=t("Act when the predicted probability ≥ t; priced with the session's value table.", L),
        )
        n_splits = g.number_input(t("Folds K", L), 2, 20, 5, key="stab_k")
        n_repeats = h.number_input(t("Repeats R", L), 1, 100, 10, key="stab_r")
        seed = i.number_input(t("Seed", L), 0, 2**31 - 1, 0, key="stab_seed")
        free = j.toggle(
            t("Model randomness free", L),
            True,
            key="stab_free",
            help=t(
                "On: each fit gets its own random_state (drawn from the seed). Off: one for all fits, so only the folds vary.", L
            ),
        )
        submitted = st.form_submit_button(
            t("Run cross-validation", L), type="primary", icon=":material/play_arrow:", key="stab_run"
        )
    features = tuple(x for x in cols if x != target and x not in leave_out)
    vt = state.committed_table()[0] if metric == "expected_value" else None
    settings = dict(
        sha=sha,
        target=target,
        features=features,
        model=model,
        model_b=model_b,
        metric=metric,
        n_splits=int(n_splits),
        n_repeats=int(n_repeats),
        seed=int(seed),
        randomness="free" if free else "fixed",
        threshold=float(threshold) if vt else None,
        table=state.table_json(vt) if vt else None,
    )
    try:
        data = sv.prepared(sha, target, features, "auto", False, int(n_splits), frame)
        if data.task == "regression":
            raise InputError(
                f"{target!r} looks like a numeric (regression) target; the Stability page compares "
                "classifiers: pick a class column (regression is on the Data conditions page)."
            )
    except InputError as err:
        ui.show_problems(err, title=t("The training table cannot be used with these settings", L))
        st.stop()
    if submitted:  # only on request: 50 fits are not started for someone who only opened the page (issue 18)
        sv.start(
            "stab",
            settings,
            sv.cv_runner(data, settings, vt),
            label=f"{CLASSIFIERS[model]}{' vs ' + CLASSIFIERS[model_b] if model_b else ''}, {n_splits}×{n_repeats}",
        )
    out = sv.finished_or_stop("stab", settings, hint=t("Press **Run cross-validation** to start.", L))
    res = {k: v for k, v in out.items() if v is not None and v.n_done}
    for r in out.values():
        if r is not None and r.status == "cancelled":
            st.warning(
                t(
                    "**Cancelled**: {x} stopped after {n_done} of {n_planned} fits. The numbers below are from this partial run.",
                    L,
                    x=CLASSIFIERS[r.model],
                    n_done=r.n_done,
                    n_planned=r.n_planned,
                ),
                icon=":material/cancel:",
            )
        if r is not None and r.warnings:
            st.caption(
                t("{classifiers}: the fits raised warnings: ", L, classifiers=CLASSIFIERS[r.model])
                + ui.md_text("; ".join(r.warnings[:3]))
            )
    if not res or min(r.n_done for r in res.values()) < 2:
        st.info(t("Fewer than two fits finished: nothing to summarise yet.", L))
        st.stop()
    runs = {CLASSIFIERS[r.model]: (r.scores, r.summary()) for r in res.values()}
    metric_label = metrics[out["a"].metric]
    cmp_view = sv.comparison(out)
    run_a = out["a"]

names = list(runs)
s_a = runs[names[0]][1]
st.subheader(t("{x}: {metric_label} over {n} runs", L, x=ui.md_text(names[0]), metric_label=metric_label, n=fmt.count(s_a.n)))
sv.summary_metrics(s_a, label=metric_label)
left, mid, right = st.columns(3)
ui.plotly_chart(left, cs.score_histogram(runs, metric=metric_label, locale=L), key="stab_hist")
ui.plotly_chart(mid, cs.score_box(runs, metric=metric_label, locale=L), key="stab_box")
ui.plotly_chart(right, cs.mean_ci_figure({n: s for n, (_, s) in runs.items()}, metric=metric_label, locale=L), key="stab_ci")

t1, t2 = st.columns([1, 1.3])
t1.dataframe(sv.summary_table({n: s for n, (_, s) in runs.items()}), hide_index=True, width="stretch", key="stab_summary")
with t2:
    st.markdown(
        t(
            "**Sample-size planner** — (σ/δ)² times the evaluation data make the standard error equal δ; "
            "detecting a change δ with 80% power at 5% two-sided needs ≈ 7.85× that for one sample, "
            "≈ 15.7× for two independent samples. σ from CV folds includes training variance.",
            state.current_locale(),
        )
    )
    p, q = st.columns(2)
    sigma = p.number_input(
        t("σ (std of the score)", L), 0.0, 1e6, float(round(s_a.std, 6)) if s_a.n > 1 else 0.01, format="%.5f", key="stab_sigma"
    )
    delta = q.number_input(t("Target change δ", L), 1e-6, 1e6, 0.005, format="%.4f", key="stab_delta")
    n_eval = int(run_a.n_test.mean()) if data is not None else None
    plan = sample_size_plan(sigma, delta, n_eval=n_eval)
    st.markdown(
        t("(σ/δ)² = **{factor}×** the current evaluation data", L, factor=ui.fmt(plan.factor))
        + (
            t(
                " — about **{n_needed} test rows** per evaluation instead of {n_eval}.",
                L,
                n_needed=fmt.count(plan.n_needed),
                n_eval=fmt.count(n_eval),
            )
            if n_eval
            else "."
        )
        + " "
        + t(
            "To detect δ: ≈ {one}× (one sample), ≈ {two}× (two samples).",
            state.current_locale(),
            one=ui.fmt(plan.factor_detect_one),
            two=ui.fmt(plan.factor_detect_two),
        )
    )

if s_a.needs_diagnostics or st.toggle(t("Show the diagnostics checklist anyway", L), key="stab_diag_toggle"):
    std_text = (
        f"std {ui.fmt(s_a.std)} {'>' if s_a.needs_diagnostics else '≤'} {ui.exact(s_a.std_limit)}"
        if s_a.n > 1
        else t("std —: one run has no spread", L)
    )
    st.subheader(t("Diagnostics ({std_text})", L, std_text=std_text))
    sv.checklist(diagnostics(data, run_a if data is not None else None))

if data is not None:
    w = run_a.worst
    with st.expander(
        t(
            "Worst fold: repeat {x}, fold {x2} — {metric_label} {x3} ({x4})",
            L,
            x=run_a.repeat[w] + 1,
            x2=run_a.fold[w] + 1,
            metric_label=metric_label,
            x3=ui.fmt(run_a.scores[w], 4),
            x4=names[0],
        ),
        icon=":material/search:",
    ):
        prof = fold_profile(data, run_a.test_idx[w])
        total = sum(prof.overall_class_counts.values())
        ratio = ", ".join(
            t(
                "{k}: {n} ({share}; table {table_share})",
                L,
                k=k,
                n=fmt.count(v),
                share=fmt.share(v / prof.n),
                table_share=fmt.share(prof.overall_class_counts[k] / total),
            )
            for k, v in prof.class_counts.items()
        )
        st.markdown(
            t(
                "**{n} test rows** · class ratio {ratio} · missing values {missing_rate} of cells (table {overall_missing_rate})",
                L,
                n=fmt.count(prof.n),
                ratio=ratio,
                missing_rate=fmt.share(prof.missing_rate, 2),
                overall_missing_rate=fmt.share(prof.overall_missing_rate, 2),
            )
        )
        st.container(key="stab_worst_rows").dataframe(frame.loc[prof.row_ids], height=260, width="stretch")  # the file's rows
        st.caption(t("Row ids are the file's row numbers (header = row 1).", L))

if len(runs) == 2:
    st.subheader(t("Two models", L))
    if cmp_view is None:  # uploaded columns: rows are assumed to be matched runs
        k = st.number_input(t("Folds K of those runs (test/train ratio 1/(K−1))", L), 2, 100, 5, key="stab_upload_k")
        try:
            cmp_view = sv.uploaded_comparison(runs, n_splits=int(k))
        except InputError as err:
            ui.show_problems(err, title=t("No paired test", L))
            st.stop()
    pt = cmp_view.paired
    a, b, c = st.columns(3)
    a.metric(t("Simple view: intervals", L), t("overlap → no difference", L) if cmp_view.overlap else t("apart → different", L))
    b.metric(
        t("Mean difference (A − B)", L),
        ui.fmt(pt.mean_diff, 4, signed=True),
        help=t(
            "{level} corrected interval [{ci_low}, {ci_high}]",
            L,
            level=ui.level(pt.level),
            ci_low=ui.fmt(pt.ci_low, 4),
            ci_high=ui.fmt(pt.ci_high, 4),
        ),
    )
    c.metric(
        t("Corrected paired test p", L),
        ui.fmt(pt.p_value, 3),
        help=t(
            "t = {t_} with {x} df; naive p = {naive_p}",
            L,
            t_=ui.fmt(pt.t, 4),
            x=fmt.count(pt.n - 1),
            naive_p=ui.fmt(pt.naive_p, 3),
        ),
    )
    (st.success if pt.significant else st.info)(cmp_view.verdict)
    diffs = runs[names[0]][0] - runs[names[1]][0]
    ui.plotly_chart(st, cs.paired_figure(cmp_view, diffs, metric=metric_label, locale=L), key="stab_paired")
    st.caption(CONSERVATIVE_NOTE)
