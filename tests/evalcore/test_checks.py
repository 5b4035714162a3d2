"""Tests of evalcore._checks: one rng converter, one level check, one positive-class rule,
used alike by every module (issue 20: named once)."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore import InputError, ValueTable, score_counts
from evalcore._checks import as_generator, check_level
from evalcore._errors import ProblemList
from evalcore.board import BoardConfig
from evalcore.bootstrap import auc_delong, ev_interval, metric_intervals, optimum_interval, wilson_interval
from evalcore.calibration import calibration_intervals
from evalcore.sensitivity import value_sensitivity
from evalcore.stability import paired_test

T = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
Y, S = [0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8]

LEVEL_CALLS = {
    "wilson_interval": lambda lv: wilson_interval(1, 2, level=lv),
    "metric_intervals": lambda lv: metric_intervals(1, 1, 1, 1, level=lv),
    "auc_delong": lambda lv: auc_delong(Y, S, level=lv),
    "ev_interval": lambda lv: ev_interval(Y, S, T, threshold=0.5, level=lv),
    "optimum_interval": lambda lv: optimum_interval(Y, S, T, level=lv),
    "calibration_intervals": lambda lv: calibration_intervals(Y, S, level=lv),
    "paired_test": lambda lv: paired_test([0.8, 0.9], [0.7, 0.8], test_train_ratio=0.25, level=lv),
    "BoardConfig": lambda lv: BoardConfig(level=lv),
}
RNG_CALLS = {
    "ev_interval": lambda r: ev_interval(Y, S, T, threshold=0.5, n_resamples=10, rng=r),
    "optimum_interval": lambda r: optimum_interval(Y, S, T, n_resamples=10, rng=r),
    "calibration_intervals": lambda r: calibration_intervals(Y, S, n_resamples=10, rng=r),
    "value_sensitivity": lambda r: value_sensitivity({"m": score_counts(Y, S)}, T, n_random=5, rng=r),
}


@pytest.mark.parametrize("name", sorted(LEVEL_CALLS))
@pytest.mark.parametrize("bad, shown", [(1.5, "1.5"), (0, "0"), ("high", "'high'"), (True, "True"), (None, "None")])
def test_every_level_option_has_one_code_and_one_message(name, bad, shown):
    with pytest.raises(
        InputError,
        match=f"level must be a confidence level strictly between 0 and 1; got {shown}\\. "
        "Fix: Pass e\\.g\\. 0\\.95 for a 95% interval\\.",
    ) as e:
        LEVEL_CALLS[name](bad)
    [p] = [p for p in e.value.problems if p.column == "level"]
    assert p.code == "level_invalid"


@pytest.mark.parametrize("name", sorted(RNG_CALLS))
@pytest.mark.parametrize("bad, shown", [(-1, "-1"), ("seed", "'seed'"), (1.5, "1.5"), (True, "True"), ([1, 2], "list")])
def test_every_rng_option_has_one_code_and_one_message(name, bad, shown):
    with pytest.raises(
        InputError,
        match=f"rng must be a non-negative int seed, a numpy Generator or None; got {shown}\\. "
        "Fix: Pass e\\.g\\. rng=0 for reproducible draws\\.",
    ) as e:
        RNG_CALLS[name](bad)
    assert [p.code for p in e.value.problems if p.column == "rng"] == ["rng_invalid"]


@pytest.mark.parametrize("name", sorted(RNG_CALLS))
def test_every_rng_option_takes_a_seed_a_generator_or_none(name):
    a, b = RNG_CALLS[name](3), RNG_CALLS[name](np.random.default_rng(3))  # a seed is default_rng(seed)
    if hasattr(a, "distribution"):
        np.testing.assert_array_equal(a.distribution, b.distribution)
    RNG_CALLS[name](None)
    RNG_CALLS[name](np.random.SeedSequence(3))


def test_as_generator_and_check_level_by_hand():
    g = np.random.default_rng(1)
    assert as_generator(g) is g  # used as it is: its state advances
    assert as_generator(np.int64(4)).integers(1000) == np.random.default_rng(4).integers(1000)
    problems = ProblemList()
    assert as_generator(-3, problems, name="seed") is None
    assert str(problems.problems[0]) == (
        "seed must be a non-negative int seed, a numpy Generator or None; got -3. Fix: Pass e.g. seed=0 for reproducible draws."
    )
    problems = ProblemList()
    assert check_level(np.float32(0.5), problems) == 0.5 and not problems
    assert np.isnan(check_level(float("nan"), problems)) and problems.problems[0].code == "level_invalid"


@pytest.mark.parametrize(
    "values, positive, want",
    [
        (["0", "1"], None, 1),
        (["1", "0"], None, 0),
        ([1.0, 0.0], None, 0),
        (["1.0", "0.0"], None, 0),
        ([False, True], None, 1),
        (["No", "YES"], None, 1),
        (["n", "Y"], None, 1),
        (["F", "t"], None, 1),
        (["否", "是"], None, 1),
        (["ok", "fraud"], None, None),
        ([1, 2], None, None),
        (["-1", "1"], None, None),
        (["yes", "1"], None, None),
        (["ok", "fraud"], "fraud", 1),
        (["ok", "fraud"], " FRAUD ", 1),
        ([0, 1], "1.0", 1),
        (["0.5", "1.5"], "1.50", 1),
        (["ok", "fraud"], "bad", None),
        (["A", "a"], "A", 0),
        (["A", "a"], "b", None),
    ],
)
def test_positive_index_is_the_one_rule(values, positive, want):
    from evalcore._checks import positive_index

    assert positive_index(values, positive) == want


def test_reader_training_table_and_picker_agree_on_the_positive_class():
    import pandas as pd

    from evalcore import ColumnMapping, default_positive, label_values, validate
    from evalcore.stability import prepare_training

    for labels, want in (
        (["N", "Y", "Y", "N"], "Y"),
        (["no", "Yes", "Yes", "no"], "Yes"),
        ([0, 1, 1, 0], "1"),
        ([False, True, True, False], "True"),
    ):
        frame = pd.DataFrame({"y": labels, "s": [0.1, 0.8, 0.7, 0.3], "f": [1.0, 2.0, 3.0, 4.0]})
        assert default_positive(label_values(frame, "y")) == want
        pred = validate(frame, ColumnMapping(label="y", scores={"m": "s"}))
        assert pred.positive_label == want and pred.y_true.tolist() == [0, 1, 1, 0]
        d = prepare_training(frame[["y", "f"]], "y", min_per_class=1)
        assert str(d.positive) == want and d.y_binary.tolist() == [0, 1, 1, 0]
