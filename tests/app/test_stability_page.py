"""AppTest: the Stability and Data conditions pages on the bundled example training table.

Runs happen in a background thread; AppTest runs the whole script (not the polling fragment), so
the tests re-run the script until the run has finished (with a timeout).
"""

import time

import pytest

from board.app import stability_view as sv
from board.words import fmt
from evalcore import read_table
from evalcore.normalized import task_score
from evalcore.stability import prepare_training, repeated_cv

STAB, DC = "views/stability.py", "views/data_conditions.py"


def _example():
    frame = read_table(sv.EXAMPLE.read_bytes(), sv.EXAMPLE.name)
    return prepare_training(frame, "malignant")


def _until(at, done, timeout=90.0):
    deadline = time.time() + timeout
    while not done(at):
        assert time.time() < deadline, "the background run did not finish in time"
        time.sleep(0.5)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at, startswith):
    return next(m for m in at.metric if m.label.startswith(startswith)).value


def _has_summary(at):
    return any(m.label.startswith("Mean Accuracy") for m in at.metric)


@pytest.mark.slow
def test_stability_page_runs_the_example_and_shows_the_summary(app):
    at = app(STAB)
    assert at.title[0].value == "Stability"
    assert not _has_summary(at) and "stab_job" not in at.session_state  # opening the page starts nothing
    at.button(key="stab_run").click().run()
    _until(at, _has_summary)
    # the default run: logistic regression, accuracy, 5 folds × 10 repeats, seed 0, model randomness free
    s = repeated_cv(_example(), model="logistic_regression", metric="accuracy", seed=0).summary()
    assert _metric(at, "Mean Accuracy") == fmt.number(s.mean, 4)
    assert _metric(at, "Sample std") == fmt.number(s.std, 3)
    assert _metric(at, "Alert line") == fmt.number(s.alert_line, 4)
    assert any("Sample-size planner" in m.value for m in at.markdown)
    assert len(at.get("plotly_chart")) == 3
    assert not any("Cancelled" in w.value for w in at.warning)  # a complete run


def test_cancelling_a_run_leaves_the_app_usable(app):
    at = app(STAB)
    at.selectbox(key="stab_model").set_value("random_forest")
    at.selectbox(key="stab_model").set_value("random_forest")
    at.number_input(key="stab_r").set_value(100)
    at.button(key="stab_run").click().run()
    assert not at.exception
    assert at.session_state["stab_job"] is not None
    at.button(key="stab_cancel").click().run()
    _until(at, lambda a: any("Cancelled" in w.value for w in a.warning), timeout=60)
    assert "of 500 fits" in next(w.value for w in at.warning if "Cancelled" in w.value)
    # still usable: another page renders, and a new run on this page completes
    at.switch_page(DC).run()
    assert not at.exception and any(m.label.startswith("= Normalized") for m in at.metric)
    at.switch_page(STAB).run()
    at.number_input(key="stab_r").set_value(1)
    at.button(key="stab_run").click().run()
    _until(
        at,
        lambda a: _has_summary(a) and not any("Cancelled" in w.value for w in a.warning) and "stab_job" not in a.session_state,
        timeout=60,
    )
    assert _metric(at, "Mean Accuracy").startswith("0.9")


def test_data_conditions_card_and_learning_curve(app):
    at = app(DC)
    ts = task_score(_example(), model="logistic_regression", metric="accuracy", seed=0)
    assert _metric(at, "N (training rows)") == fmt.count(ts.score.n)
    assert _metric(at, "= Normalized") == fmt.number(ts.score.score, 4)
    assert _metric(at, "Robust") == fmt.number(ts.score.robust, 4)
    at.number_input(key="dc_repeats").set_value(2)
    at.button(key="dc_run_lc").click().run()
    _until(at, lambda a: any(x.value.startswith("On this data") for x in [*a.success, *a.warning]))
    assert len(at.get("plotly_chart")) == 1


@pytest.mark.parametrize("task, target", [("regression", "mean_radius"), ("clustering", "malignant")])
def test_data_conditions_other_tasks(app, task, target):
    at = app(DC)
    at.selectbox(key="dc_task").set_value(task).run()
    at.selectbox(key="dc_target").set_value(target).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(m.label.startswith("= Normalized") for m in at.metric)


def _upload_scores(at, csv: bytes):
    at.radio(key="stab_source").set_value("Uploaded scores").run()
    at.file_uploader(key="stab_scores_file").set_value(("scores.csv", csv, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_uploaded_scores_without_a_score_column_say_so(app):
    # a file with no numeric column, or every column deselected, used to end in an IndexError traceback
    at = _upload_scores(app(STAB), b"run,model\na,x\nb,y\n")
    assert any("has no numeric column" in i.value for i in at.info)
    at = _upload_scores(app(STAB), b"acc\n0.80\n0.81\n0.79\n")
    assert _metric(at, "Mean score") == "0.8000"
    at.multiselect(key="stab_score_cols").set_value([]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Choose one or two score columns" in i.value for i in at.info)


def test_one_uploaded_run_shows_an_undefined_spread_with_its_reason(app):
    at = _upload_scores(app(STAB), b"acc\n0.8\n")
    at.toggle(key="stab_diag_toggle").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert _metric(at, "Sample std") == "—"
    assert any("undefined (—): one score" in c.value for c in at.caption)
    heads = [h.value for h in at.subheader]
    assert "Diagnostics (std —: one run has no spread)" in heads and not any("nan" in h for h in heads), heads


def test_two_uploaded_columns_are_compared_as_matched_folds(app):
    from evalcore.stability import intervals_overlap, paired_test, summarize

    a, b = [0.80, 0.82, 0.81, 0.83, 0.79, 0.84], [0.78, 0.80, 0.80, 0.80, 0.79, 0.81]
    csv = ("a,b\n" + "\n".join(f"{x},{y}" for x, y in zip(a, b))).encode()
    at = _upload_scores(app(STAB), csv)
    at.multiselect(key="stab_score_cols").set_value(["a", "b"]).run()
    at.number_input(key="stab_upload_k").set_value(4).run()
    assert not at.exception, [e.value for e in at.exception]
    pt = paired_test(a, b, test_train_ratio=1 / 3)
    assert _metric(at, "Mean difference (A − B)") == fmt.number(pt.mean_diff, 4, signed=True)
    assert _metric(at, "Corrected paired test p") == fmt.number(pt.p_value, 3)
    overlap = intervals_overlap(summarize(a), summarize(b))
    assert _metric(at, "Simple view") == ("overlap → no difference" if overlap else "apart → different")
    assert len(at.get("plotly_chart")) == 4  # histogram, box, mean ± SEM, the paired differences
