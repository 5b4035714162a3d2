"""Data conditions (SPEC §3.8): N, d, class counts, imbalance and the normalized score — basic and
robust, each factor shown — for classification, regression and clustering; and the learning-curve
experiment that says whether, on this data, the normalized score is steadier than the raw one."""

import pandas as pd
import streamlit as st

from board.app import stability_view as sv
from board.app import state, ui
from board.charts import stability as cs
from board.words import fmt
from board.words.i18n import N_, t
from evalcore import InputError
from evalcore.normalized import RAW_METRICS

L = state.current_locale()

TASKS = {
    "classification": t("Classification (binary or multiclass)", L),
    "regression": t("Regression", L),
    "clustering": t("Clustering", L),
}
MODELS = {
    "classification": {
        "logistic_regression": t("Logistic regression", L),
        "random_forest": t("Random forest", L),
        "hist_gradient_boosting": t("Histogram gradient boosting", L),
    },
    "regression": {
        "ridge": t("Ridge", L),
        "random_forest": t("Random forest regressor", L),
        "hist_gradient_boosting": t("Histogram gradient boosting regressor", L),
    },
}
METRIC_NAMES = {"accuracy": t("Accuracy", L), "f1": "F1", "recall": t("Recall", L), "one_minus_mape": t("1 − MAPE", L)}

st.title(t("Data conditions", L))
st.caption(
    t(
        "The conditions a score was earned under — training rows N, features d, class balance — and "
        "the normalized score of SPEC §3.8. N, d and class counts come from the training rows only. "
        "The normalized scores are heuristics: read each factor, and the learning-curve evidence "
        "below, before trusting them.",
        L,
    )
)
sv.aggregate_notice(t("Data conditions", L))
sv.collect("dc_lc")
picked = sv.training_table("dc")
if picked is None:
    st.stop()
name, sha, frame = picked
cols = list(frame.columns)

a, b, c, d = st.columns([1.3, 1, 1.3, 1.2])
task = a.selectbox(t("Task", L), list(TASKS), format_func=TASKS.get, key="dc_task")
target = b.selectbox(
    t("Label column (NMI)", L) if task == "clustering" else t("Target", L),
    cols,
    index=cols.index(sv.default_target(frame)),
    key="dc_target",
)
leave_out = ui.multiselect(
    c, t("Leave out columns (all others are features)", L), [x for x in cols if x != target], key="dc_leave_out"
)
e, f, g, h = st.columns(4)
if task == "clustering":
    model, metric = "k-means", "nmi"
    k = int(d.number_input(t("k (clusters)", L), 2, 50, 2, key="dc_k"))
    e.markdown(t("**Model**: k-means on standardised features  \n**Metric**: NMI against the label column", L))
else:
    k = None
    model = d.selectbox(t("Model", L), list(MODELS[task]), format_func=MODELS[task].get, key=f"dc_model_{task}")
    metric = e.selectbox(
        t("Raw metric", L),
        list(RAW_METRICS["binary" if task == "classification" else "regression"]),
        format_func=METRIC_NAMES.get,
        key=f"dc_metric_{task}",
    )
seed = int(f.number_input(t("Seed", L), 0, 2**31 - 1, 0, key="dc_seed"))
features = tuple(x for x in cols if x != target and x not in leave_out)
core_task = {"classification": "auto", "regression": "regression", "clustering": "multiclass"}[task]
try:
    data = sv.prepared(sha, target, features, core_task, False, 1 if task == "clustering" else 2, frame)
    if task == "classification" and data.task == "regression":
        raise InputError(f"{target!r} is numeric with many values: choose the regression task, or a class column.")
    settings = dict(sha=sha, target=target, features=features, task=task, model=model, metric=metric, k=k, seed=seed)
    ts = sv.task_result(sv.run_key(settings), data, settings)
except InputError as err:
    ui.show_problems(err, title=t("The data conditions cannot be computed with these settings", L))
    st.stop()
st.session_state[sv.DC_LAST_KEY] = ts
sv.data_conditions_card(ts)

st.subheader(t("Learning-curve experiment: is the normalized score steadier than the raw one here?", L))
st.caption(
    t(
        "The raw metric on growing stratified training subsets (each scored on the same held-out "
        "rows of its repeat), next to the normalized and robust scores. If the adjustment works on "
        "this data, the normalized curve is flatter than the raw one — especially before N = 20·d, "
        "where f(N, d) acts.",
        L,
    )
)
repeats = int(g.number_input(t("Learning-curve repeats", L), 1, 20, 5, key="dc_repeats"))
lc_settings = {**settings, "n_repeats": repeats}
if task == "clustering":
    lc_settings["model"] = None
if h.button(t("Run learning-curve experiment", L), type="primary", icon=":material/play_arrow:", key="dc_run_lc"):
    lc_settings_core = {
        **lc_settings,
        "model": model if task != "clustering" else "logistic_regression",
        "metric": None if task == "clustering" else metric,
    }
    sv.start(
        "dc_lc",
        lc_settings,
        sv.lc_runner(data, lc_settings_core),
        label=t("Learning curve, {repeats} repeats", L, repeats=repeats),
    )
lc = sv.finished_or_stop(
    "dc_lc", lc_settings, hint=t("Press **Run learning-curve experiment** (above, right) to fit the model on growing subsets.", L)
)
if lc.status == "cancelled":
    st.warning(t("**Cancelled**: the experiment stopped early; the curve below is partial.", L), icon=":material/cancel:")
MAD_COLUMNS = {"raw": N_("Raw"), "normalized": N_("Normalized"), "robust": N_("Robust")}
left, right = st.columns([1.6, 1])
ui.plotly_chart(left, cs.learning_curve_figure(lc, locale=L, metric_name=sv.metric_word(lc.metric, L)), key="dc_lc_fig")
with right:
    verdict = lc.steadier.get("normalized")
    (st.success if verdict == "steadier" else st.warning)(sv.learning_verdict(lc, L))
    n = fmt.count(lc.boundary)
    mad = pd.DataFrame(
        {t("Spread", L): [t("MAD, N < {n}", L, n=n), t("MAD, N ≥ {n}", L, n=n), t("MAD, all N", L), t("MAD ÷ |mean|, all N", L)]}
        | {
            t(MAD_COLUMNS[v], L): [ui.fmt(lc.mad[v][r], 3) for r in ("before", "after", "all")]
            + [ui.fmt(lc.rel_mad[v]["all"], 3)]
            for v in ("raw", "normalized", "robust")
        }
    )
    st.dataframe(mad, hide_index=True, width="stretch", key="dc_mad")
    st.caption(
        t(
            "MAD = mean absolute deviation around the mean of all (repeat, N) values in the region; — "
            "when a region has fewer than two points. The verdict compares MAD / |mean| (normalizing "
            "rescales by g).",
            L,
        )
    )
