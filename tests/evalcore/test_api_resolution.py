"""No trap in the public API (issue 18 item 3): a function whose cost grows with distinct scores ×
resamples picks the resolution the board uses (and says so in its result) unless told otherwise,
and every such function states its cost."""

import numpy as np
import pytest

import evalcore
from evalcore import InputError, ValueTable, auto_resolution, optimum_interval, score_counts
from evalcore.results import MAX_EXACT_SCORES, bootstrap_resolution

TABLE = ValueTable(tp=100.0, fp=-10.0, fn=-50.0, tn=1.0)


def _rows(n, seed=0, distinct=True):
    rng = np.random.default_rng(seed)
    s = rng.random(n) if distinct else rng.integers(0, 50, n) / 50
    y = (rng.random(n) < s).astype(int)
    return y, s


def test_the_limit_is_the_boards():
    assert evalcore.bootstrap.MAX_EXACT_SCORES == MAX_EXACT_SCORES == 20_000


def test_optimum_interval_bins_past_the_boards_limit_and_says_so():
    y, s = _rows(24_000)  # 24,000 distinct probabilities > 20,000
    auto = optimum_interval(y, s, TABLE, n_resamples=20, rng=0)
    assert auto.resolution == 1e-4  # stated in the result (and its JSON)
    assert auto.to_dict()["resolution"] == 1e-4
    # the same as asking for the board's grid explicitly, replicate for replicate
    explicit = optimum_interval(y, s, TABLE, n_resamples=20, rng=0, resolution=1e-4)
    assert auto.n_thresholds == explicit.n_thresholds
    assert auto.n_thresholds <= 10_001  # at most one threshold per 1e-4 bin of [0, 1]
    for name in ("ev_opt", "t_opt", "auc"):
        a, e = getattr(auto, name), getattr(explicit, name)
        assert (a.estimate, a.low, a.high) == (e.estimate, e.low, e.high)


def test_optimum_interval_is_exact_up_to_the_limit():
    y, s = _rows(3_000, distinct=False)  # 51 distinct scores
    auto = optimum_interval(y, s, TABLE, n_resamples=30, rng=1)
    exact = optimum_interval(y, s, TABLE, n_resamples=30, rng=1, resolution=None)
    assert auto.resolution is None
    assert auto.n_thresholds == len(np.unique(s)) == exact.n_thresholds
    assert (auto.ev_opt.low, auto.ev_opt.high) == (exact.ev_opt.low, exact.ev_opt.high)


def test_raw_scores_get_a_grid_of_their_range():
    y, s = _rows(24_000, seed=2)
    raw = 10 * s - 5  # scores outside [0, 1]: 1e-4 of the range, as the board does for raw scores
    o = optimum_interval(y, raw, TABLE, n_resamples=5, rng=0)
    assert o.resolution == pytest.approx((raw.max() - raw.min()) * 1e-4, rel=1e-12)


def test_resolution_none_stays_exact():
    y, s = _rows(24_000, seed=3)
    o = optimum_interval(y, s, TABLE, n_resamples=2, rng=0, resolution=None)
    assert o.resolution is None and o.n_thresholds == 24_000


def test_auto_resolution_is_the_boards_rule():
    """auto_resolution on rows gives what the board's bootstrap_resolution gives on their counts."""
    y, s = _rows(24_000, seed=4)
    assert auto_resolution(s) == bootstrap_resolution(score_counts(y, s), "probability") == 1e-4
    raw = 3 * s + 7
    assert auto_resolution(raw) == pytest.approx(bootstrap_resolution(score_counts(y, raw), "score"), rel=1e-12)
    small_y, small_s = _rows(500, seed=5)
    assert auto_resolution(small_s) is None is bootstrap_resolution(score_counts(small_y, small_s), "probability")


def test_an_unknown_resolution_word_is_refused_with_the_choices():
    with pytest.raises(InputError) as err:
        optimum_interval([0, 1], [0.1, 0.9], TABLE, resolution="fine")
    assert "auto" in str(err.value) and "None" in str(err.value)


@pytest.mark.parametrize(
    "name", ["optimum_interval", "ev_interval", "compare_models", "calibration_intervals", "value_sensitivity"]
)
def test_functions_that_resample_state_their_cost(name):
    doc = getattr(evalcore, name).__doc__
    assert "Cost:" in doc
