"""Streamlit side of the Stability and Data conditions pages (SPEC §3.7, §3.8).

- The **training table** (uploaded CSV/Parquet, or the bundled breast-cancer example) is kept in
  a non-widget session key shared by both pages, parsed once per file hash.
- **Background runs**: repeated CV and the learning-curve experiment run the pure evalcore
  functions on a process-wide :class:`~concurrent.futures.ThreadPoolExecutor` (two workers), so
  the script thread returns at once and other pages and users are never blocked. A run reports
  progress into a thread-safe :class:`Progress` and stops between fits when its cancel
  :class:`threading.Event` is set (the result is then a partial run labelled "cancelled").
  The page polls with ``@st.fragment(run_every=1)`` while a run is going and reruns the app when
  it ends. Background threads never call ``st.*``.
- **Results** are stored in the session (they survive page switches) and in a small LRU shared
  by sessions, keyed by the file hash and the run's settings (JSON), so re-asking a finished
  run is instant.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from board.app import state, ui
from board.app.lru import BoundedLRU
from board.services.limits import upload_limits
from board.words import fmt
from board.words.glossary import term
from board.words.i18n import N_, t
from evalcore import InputError, read_table
from evalcore.normalized import TaskScore, cluster_score, learning_curve, task_score
from evalcore.stability import (
    CVComparison,
    TrainingData,
    compare_cv,
    intervals_overlap,
    paired_test,
    prepare_training,
    repeated_cv,
)


def _L() -> str:
    """This tab's language."""
    return state.current_locale()


EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example_training.csv"
EXAMPLE_NAME = N_("Example: breast cancer (scikit-learn), 569 rows, target malignant")
#: the words of the data conditions card: evalcore's task and model codes, and the raw metrics
TASK_WORDS = {
    "binary": N_("binary"),
    "multiclass": N_("multiclass"),
    "regression": N_("regression"),
    "clustering": N_("clustering"),
}
MODEL_WORDS = {
    "logistic_regression": N_("logistic regression"),
    "random_forest": N_("random forest"),
    "ridge": N_("ridge"),
    "hist_gradient_boosting": N_("histogram gradient boosting"),
}
METRIC_WORDS = {"accuracy": N_("accuracy"), "f1": "F1", "recall": N_("recall"), "one_minus_mape": N_("1 − MAPE"), "nmi": "NMI"}


def metric_word(metric: str, locale: str) -> str:
    """A raw metric's name (evalcore.normalized's code) in ``locale``; unknown codes unchanged."""
    return t(METRIC_WORDS[metric], locale) if metric in METRIC_WORDS else str(metric)


_STEADY = {
    "steadier": N_("the {score} score is steadier than the raw one (relative MAD {x} vs {raw})"),
    "less steady": N_("the {score} score is less steady than the raw one (relative MAD {x} vs {raw})"),
    "about as steady": N_("the {score} score is about as steady as the raw one (relative MAD {x} vs {raw})"),
}
_SCORE_WORDS = {"normalized": N_("normalized"), "robust": N_("robust")}


def learning_verdict(lc, locale: str) -> str:
    """The learning curve's verdict (evalcore.normalized says it in English) in ``locale``, from its
    ``steadier`` words and relative MADs."""
    if locale == "en" or not all(v in _STEADY or v == "undefined" for v in lc.steadier.values()):
        return lc.verdict
    raw = lc.rel_mad["raw"]["all"]
    parts = [
        t(
            _STEADY[lc.steadier[v]],
            locale,
            score=t(_SCORE_WORDS[v], locale),
            x=fmt.number(lc.rel_mad[v]["all"], 3),
            raw=fmt.number(raw, 3),
        )
        for v in ("normalized", "robust")
        if lc.steadier.get(v) in _STEADY
    ]
    if not parts:
        return t("Not enough points to compare the scores' steadiness.", locale)
    text = t("On this data, {parts}.", locale, parts=t("; ", locale).join(parts))
    if lc.steadier.get("normalized") != "steadier":
        text += t(" Do not rely on the normalized score here; report the raw metric with its data conditions.", locale)
    return text


def table_name(name: str, locale: str) -> str:
    """The training table's name as shown: the bundled example's in ``locale``, a file's as it is."""
    return t(EXAMPLE_NAME, locale) if name == EXAMPLE_NAME else name


TABLE_KEY = "training_table"  # (name, sha256, frame) — non-widget, shared by the Stability and Data conditions pages
DC_LAST_KEY = "dc_last"  # the last TaskScore of the Data conditions page (the board's detail view may show it)
MAX_BYTES = 200 * 2**20


# --------------------------------------------------------------------------------------
# the training table
# --------------------------------------------------------------------------------------


def _parse(sha: str, name: str, _raw: bytes) -> pd.DataFrame:
    """Read a training table within the upload limits. Not cached process-wide: the session
    keeps the one table it uses (:data:`TABLE_KEY`), so a user's upload leaves with the tab."""
    return read_table(_raw, name, max_bytes=MAX_BYTES, **upload_limits())


def _example() -> tuple[str, str, pd.DataFrame]:
    raw = EXAMPLE.read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    return EXAMPLE_NAME, sha, _parse(sha, EXAMPLE.name, raw)


def aggregate_notice(page: str) -> None:
    """When the sidebar dataset is an aggregate: say that this page needs rows and works on the
    training table below instead (it never evaluates the sidebar dataset)."""
    rec = state.dataset_record()
    if rec is None or not rec.is_aggregate:
        return
    st.info(
        t(
            "**{page} needs rows**: it re-trains models on a training table (features and a target), "
            "row by row. The dataset chosen in the sidebar, “{name}”, is an aggregate of {n_rows} rows "
            "from {source_path}: only counts were stored, so it cannot be used here. This page uses the "
            "training table below (the bundled example, or upload your own); the sidebar dataset is not "
            "involved.",
            _L(),
            page=page,
            name=ui.md_text(rec.name),
            n_rows=fmt.count(rec.n_rows),
            source_path=ui.md_text(rec.source_path),
        ),
        icon=":material/table_rows:",
    )


def training_table(prefix: str) -> tuple[str, str, pd.DataFrame] | None:
    """The session's training table (the example until a file is uploaded); an uploader to change it.

    Returns (name, sha256, frame), or None when the upload cannot be read (the problems are shown).
    """
    if TABLE_KEY not in st.session_state:
        st.session_state[TABLE_KEY] = _example()
    name, sha, frame = st.session_state[TABLE_KEY]
    with st.expander(
        t(
            "Training table: **{name}** · {x} rows × {x2} columns",
            _L(),
            name=ui.md_text(table_name(name, _L())),
            x=fmt.count(len(frame)),
            x2=fmt.count(frame.shape[1]),
        ),
        icon=":material/table:",
        expanded=False,
    ):
        up = ui.file_uploader(
            st,
            t("Upload a training table (CSV or Parquet): features and a target column", _L()),
            type=["csv", "parquet", "txt", "tsv"],
            key=f"{prefix}_file",
        )
        if up is not None:
            raw = up.getvalue()
            new_sha = hashlib.sha256(raw).hexdigest()
            if new_sha != sha:
                try:
                    st.session_state[TABLE_KEY] = (up.name, new_sha, _parse(new_sha, up.name, raw))
                except InputError as err:
                    ui.show_problems(err, title=t("The training table cannot be read", _L()))
                    return None
                name, sha, frame = st.session_state[TABLE_KEY]
        if name != EXAMPLE_NAME and st.button(t("Use the bundled example instead", _L()), key=f"{prefix}_example"):
            st.session_state[TABLE_KEY] = _example()
            name, sha, frame = st.session_state[TABLE_KEY]
        st.container(key=f"{prefix}_training_preview").dataframe(frame.head(50), width="stretch", height=220)  # the file
        st.caption(
            t(
                "The Stability and Data conditions pages share this table. Row ids are the file's row numbers (header = row 1).",
                _L(),
            )
        )
    return name, sha, frame


def default_target(frame: pd.DataFrame) -> str:
    """A column named like a target, else the last column."""
    for c in frame.columns:
        if str(c).lower() in ("target", "label", "y", "class", "outcome", "malignant", "default"):
            return c
    return frame.columns[-1]


def prepared(
    sha: str, target: str, features: tuple, task: str, drop_missing: bool, min_per_class: int, _frame: pd.DataFrame
) -> TrainingData:
    """The prepared training data, once per settings in this session (not in a process-wide
    cache: a user's table leaves with the tab)."""
    return state.session_memo(
        "stab_prepared",
        (sha, target, features, task, drop_missing, min_per_class),
        lambda: prepare_training(
            _frame, target, features=list(features), task=task, drop_missing_target=drop_missing, min_per_class=min_per_class
        ),
    )


# --------------------------------------------------------------------------------------
# background runs
# --------------------------------------------------------------------------------------


class Progress:
    """Progress of a background run, written by the worker thread and read by the page."""

    def __init__(self):
        self._lock = threading.Lock()
        self._done, self._total, self._text = 0, 0, t("Starting …", _L())  # the page that starts the run

    def __call__(self, done: int, total: int, text: str) -> None:
        with self._lock:
            self._done, self._total, self._text = done, total, text

    def snapshot(self) -> tuple[int, int, str]:
        with self._lock:
            return self._done, self._total, self._text


@dataclass
class Job:
    kind: str
    key: str
    label: str
    future: Future
    progress: Progress
    cancel: threading.Event
    started: float = field(default_factory=time.time)

    @property
    def done(self) -> bool:
        return self.future.done()


@st.cache_resource
def executor() -> ThreadPoolExecutor:
    """The process-wide pool of background runs (two workers: the machines are small)."""
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="evalboard-runs")


@st.cache_resource
def _results() -> BoundedLRU:
    return BoundedLRU(16)


def _job_key(kind: str) -> str:
    return f"{kind}_job"


def _result_key(kind: str) -> str:
    return f"{kind}_result"


def run_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True, default=str)


def start(kind: str, config: dict, fn, *, label: str) -> None:
    """Start ``fn(progress, should_stop)`` in the background for this session (or reuse a stored result)."""
    key = run_key(config)
    hit = _results().get((kind, key))
    if hit is not None:
        st.session_state[_result_key(kind)] = (key, hit)
        return
    old = st.session_state.get(_job_key(kind))
    if old is not None and not old.done:
        old.cancel.set()  # a newer request replaces the running one
    prog, cancel = Progress(), threading.Event()
    fut = executor().submit(fn, prog, cancel.is_set)
    st.session_state[_job_key(kind)] = Job(kind=kind, key=key, label=label, future=fut, progress=prog, cancel=cancel)


def collect(kind: str) -> None:
    """Move a finished run of this session into its result slot (errors are shown, never raised)."""
    job = st.session_state.get(_job_key(kind))
    if job is None or not job.done:
        return
    del st.session_state[_job_key(kind)]
    try:
        res = job.future.result()
    except InputError as err:
        ui.show_problems(err, title=t("The run cannot start with these settings", _L()))
        return
    except Exception as err:  # noqa: BLE001 - a failing fit must not take the page down
        st.error(t("The run failed: {name}: {err}", _L(), name=type(err).__name__, err=err))
        return
    if _status(res) == "complete":
        _results().put((kind, job.key), res)
    st.session_state[_result_key(kind)] = (job.key, res)


def _status(res) -> str:
    if isinstance(res, dict):
        return "cancelled" if any(_status(v) == "cancelled" for v in res.values() if v is not None) else "complete"
    return getattr(res, "status", "complete")


def running(kind: str) -> Job | None:
    job = st.session_state.get(_job_key(kind))
    return job if job is not None and not job.done else None


def result(kind: str):
    """(settings key, result) of the last finished run of this session, or None."""
    return st.session_state.get(_result_key(kind))


def cancel(kind: str) -> None:
    job = st.session_state.get(_job_key(kind))
    if job is not None:
        job.cancel.set()


def progress_panel(kind: str) -> None:
    """Progress bar and cancel button of a running job; polls every second (a fragment)."""

    @st.fragment(run_every=1)
    def panel():
        job = st.session_state.get(_job_key(kind))
        if job is None:
            return
        if job.done:
            st.rerun()  # the whole page picks the result up (collect)
        done, total, text = job.progress.snapshot()
        frac = done / total if total else 0.0
        elapsed = time.time() - job.started
        eta = t(", about {x} s left", _L(), x=fmt.count(elapsed / done * (total - done))) if done else ""
        st.progress(min(frac, 1.0), text=f"{job.label}: {text} ({fmt.count(elapsed)} s{eta})")
        if job.cancel.is_set():
            st.caption(t("Cancelling after the current fit …", _L()))
        else:
            st.button(t("Cancel", _L()), key=f"{kind}_cancel", icon=":material/cancel:", on_click=cancel, args=(kind,))

    panel()


def finished_or_stop(kind: str, settings: dict, *, hint: str):
    """The page's run panel: progress while a job runs, then its last finished result — or the
    ``hint`` and ``st.stop()`` when there is none yet. Says so when the settings changed since."""
    busy = running(kind) is not None
    if busy:
        progress_panel(kind)
    done = result(kind)
    if done is None:
        if not busy:  # while the first run works, its progress bar is the message
            st.info(hint)
        st.stop()
    key, value = done
    if key != run_key(settings):
        st.caption(t("Showing the last finished run; the settings changed since — run it again to update.", _L()))
    return value


def wait(kind: str, timeout: float = 60.0) -> None:
    """Block until this session's job ends (for tests and the CLI; pages never call it)."""
    job = st.session_state.get(_job_key(kind))
    if job is not None:
        job.future.result(timeout=timeout)


# --------------------------------------------------------------------------------------
# the runs
# --------------------------------------------------------------------------------------


def cv_runner(data: TrainingData, settings: dict, table=None):
    """A background function running model A (and B, on the same folds) with one progress bar."""
    models = [settings["model"]] + ([settings["model_b"]] if settings.get("model_b") else [])

    def fn(progress, should_stop):
        out = {}
        for i, m in enumerate(models):

            def prog(done, total, text, i=i):
                progress(i * total + done, len(models) * total, text)

            out["ab"[i]] = repeated_cv(
                data,
                model=m,
                metric=settings["metric"],
                n_splits=settings["n_splits"],
                n_repeats=settings["n_repeats"],
                seed=settings["seed"],
                model_randomness=settings["randomness"],
                table=table,
                threshold=settings.get("threshold", 0.5),
                progress=prog,
                should_stop=should_stop,
            )
            if out["ab"[i]].status == "cancelled":
                break
        out.setdefault("b", None)
        return out

    return fn


def comparison(res: dict):
    a, b = res.get("a"), res.get("b")
    if a is None or b is None or not (a.complete and b.complete):
        return None
    return compare_cv(a, b)


def uploaded_comparison(runs: dict, *, n_splits: int) -> CVComparison:
    """Two uploaded score columns compared as matched runs of K-fold CV (row j of one is row j of
    the other), as :func:`evalcore.stability.compare_cv` compares two CV runs: the overlap view and
    the corrected paired test with test/train ratio 1/(K − 1).

    ``runs`` maps each column to (scores, summary). Raises InputError (e.g. fewer than two runs).
    """
    (na, (xa, sa)), (nb, (xb, sb)) = runs.items()
    pt = paired_test(xa, xb, test_train_ratio=1 / (n_splits - 1))
    return CVComparison(a=na, b=nb, summary_a=sa, summary_b=sb, overlap=intervals_overlap(sa, sb), paired=pt)


def lc_runner(data: TrainingData, settings: dict):
    def fn(progress, should_stop):
        return learning_curve(
            data,
            model=settings.get("model", "logistic_regression"),
            metric=settings.get("metric"),
            n_repeats=settings["n_repeats"],
            seed=settings["seed"],
            k=settings.get("k"),
            progress=progress,
            should_stop=should_stop,
        )

    return fn


@st.cache_resource(max_entries=16, show_spinner=t("Fitting the model …", _L()))
def task_result(key: str, _data: TrainingData, _settings: dict) -> TaskScore:
    if _settings["task"] == "clustering":
        return cluster_score(_data, k=_settings["k"], seed=_settings["seed"])
    return task_score(_data, model=_settings["model"], metric=_settings["metric"], seed=_settings["seed"])


# --------------------------------------------------------------------------------------
# rendering helpers
# --------------------------------------------------------------------------------------

STATUS_ICON = {"flag": ":material/flag:", "ok": ":material/check_circle:", "not computed": ":material/help:"}


def checklist(checks) -> None:
    for c in checks:
        word = {"flag": t("**Likely cause**", _L()), "ok": "OK", "not computed": t("Not computed", _L())}[c.status]
        st.markdown(f"{STATUS_ICON[c.status]} **{ui.md_text(c.name)}** — {word}: {ui.md_text(c.detail)}")


def data_conditions_card(ts: TaskScore, *, container=None) -> None:
    """The data conditions card (SPEC §3.8): N, d, class counts, imbalance, each factor, both scores.

    Also usable on the board's detail view with ``st.session_state[DC_LAST_KEY]``.
    """
    box = (container or st).container(border=True)
    s = ts.score
    model = t(MODEL_WORDS[ts.model], _L()) if ts.model in MODEL_WORDS else ts.model
    box.markdown(
        t(
            "**Data conditions** · {task} · {model} · raw metric **{metric_name}** on {n_test} {x}",
            _L(),
            task=t(TASK_WORDS[ts.task], _L()) if ts.task in TASK_WORDS else ts.task,
            model=model,
            metric_name=metric_word(s.metric_name, _L()),
            n_test=fmt.count(ts.n_test),
            x=t(N_("rows") if ts.task == "clustering" else N_("held-out rows"), _L()),
        )
    )
    counts = ", ".join(f"{k}: {fmt.count(v)}" for k, v in s.class_counts.items()) or t("— (regression)", _L())
    a, b, c, d = box.columns(4)
    a.metric(t("N (training rows)", _L()), fmt.count(s.n))
    b.metric(
        t("d (features)", _L()),
        fmt.count(s.d),
        help=t("f(N, d) rewards scarce data below N = 20·d = {x}.", _L(), x=fmt.count(20 * s.d)),
    )
    c.metric(
        t("Imbalance r", _L()), ui.fmt(s.r, 3), help=t("n_major/n_minor for two classes; 1/ACIR for more; 1 = balanced.", _L())
    )
    d.metric(t("Minority share", _L()), "—" if not s.class_counts else ui.percent(s.minority_share))
    box.caption((t("Cluster sizes: ", _L()) if ts.task == "clustering" else t("Class counts (training): ", _L())) + counts)
    e, f, g, h, i, j = box.columns(6)
    e.metric(t("Raw {metric_name}", _L(), metric_name=metric_word(s.metric_name, _L())), ui.fmt(s.metric, 4))
    f.metric("× f(N, d)", ui.fmt(s.f, 4), help=t("1 + max(0, sigmoid(20·d/N − 1) − 0.5); 1 from N = 20·d on.", _L()))
    g.metric(t("× g (imbalance)", _L()), ui.fmt(s.g, 4), help=t("1 / (1 + ln r)", _L()))
    h.metric(t("= Normalized", _L()), ui.fmt(s.score, 4))
    i.metric(
        t("SNR (dB) → m", _L()),
        f"{ui.fmt(s.snr_db, 3)} → {ui.fmt(s.m, 3)}",
        help=t("Bonus m: ≤0 dB → 0; linear 0.125 per band up to 0.5 at ≥ 40 dB.", _L()),
    )
    j.metric(t("Robust (≤ 1)", _L()), ui.fmt(s.robust, 4), help=t("min(1, metric · f · (1 + m) / (1 + ln r))", _L()))
    if s.capped:
        box.caption(
            t("The robust score is capped at 1 (uncapped {robust_uncapped}).", _L(), robust_uncapped=ui.fmt(s.robust_uncapped, 4))
        )
    box.caption(
        t(
            "Heuristics: they adjust for data conditions by formula, not by evidence — check the "
            "learning-curve experiment before trusting them.",
            _L(),
        )
    )
    ui.undefined_notes(s.undefined)


SUMMARY_ROWS = {  # RunSummary field → the screen's name
    "n": "Runs",
    "mean": "Mean",
    "std": "Standard deviation (sample)",
    "sem": "Standard error of the mean (SEM)",
    "ci_low": "Mean − 1.96 × SEM",
    "ci_high": "Mean + 1.96 × SEM",
    "min": "Lowest",
    "q1": "First quartile",
    "median": "Median",
    "q3": "Third quartile",
    "max": "Highest",
    "alert_line": "Alert line (mean − 2 × std)",
}


def summary_table(summaries: dict) -> pd.DataFrame:
    """One row per statistic (mean, std, SEM, the interval, quartiles, extremes, the alert line),
    one column per model, as text: runs as a count, the rest to 4 significant digits."""
    rows = [
        {"Statistic": label} | {name: fmt.count(s.n) if f == "n" else ui.fmt(getattr(s, f), 4) for name, s in summaries.items()}
        for f, label in SUMMARY_ROWS.items()
    ]
    return pd.DataFrame(rows)


def summary_metrics(s, *, label: str) -> None:
    a, b, c, d, e = st.columns(5)
    a.metric(t("Mean {label}", _L(), label=label), ui.fmt(s.mean, 4), help=t("{n} runs", _L(), n=fmt.count(s.n)))
    b.metric(
        t("Sample std", _L()),
        ui.fmt(s.std, 3),
        help=t("ddof = 1. Above {std_limit} the diagnostics checklist opens.", _L(), std_limit=ui.exact(s.std_limit)),
    )
    c.metric(
        t("SEM", _L()),
        ui.fmt(s.sem, 3),
        help=term("standard_error", _L()) + t(" std / √n; runs share training rows, so this is optimistic.", _L()),
    )
    d.metric(
        t("Mean ± 1.96·SEM", _L()), f"[{ui.fmt(s.ci_low, 4)}, {ui.fmt(s.ci_high, 4)}]", help=term("confidence_interval", _L())
    )
    e.metric(
        t("Alert line (mean − 2·std)", _L()),
        ui.fmt(s.alert_line, 4),
        help=t("Monitoring: a new evaluation below this line is unusual for this model and data.", _L()),
    )
    if "std" in s.undefined:  # one run: every spread is — (the other fields share the reason)
        st.caption(t("Std, SEM, the interval and the alert line are undefined (—): {x}.", _L(), x=s.undefined["std"]))
