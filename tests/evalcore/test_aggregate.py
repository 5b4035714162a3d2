"""The board from an aggregate equals the board from the rows (DESIGN §2, scale-out)."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from board.services import demo
from evalcore import InputError, ValueTable
from evalcore.aggregate import (
    ROW_WEIGHT,
    Aggregate,
    aggregate_predictions,
    choose_resolution,
    counts_of,
    evaluate_aggregate,
    reliability_of,
)
from evalcore.board import BoardConfig, evaluate
from evalcore.calibration import reliability
from evalcore.counts import _bin_scores
from evalcore.data import ColumnMapping, validate
from tests._equality import assert_same_board

TABLE = ValueTable(tp=500, fp=-20, fn=-500, tn=0)


def _demo(sort_by):
    f = demo.demo_frame(n=12_000)
    # strata (groups) listed in sorted order: the row path numbers them by first appearance, an
    # engine's aggregate (exact_draws=False) in sorted order — the same draws need the same
    # numbering (tests/evalcore/test_one_path.py covers exact_draws=True on unsorted rows)
    f = f.sort_values(sort_by, kind="stable").reset_index(drop=True)
    return validate(
        f,
        ColumnMapping(
            label="is_fraud",
            scores={"old": "score_old", "new": "score_new"},
            segments=("customer_type", "channel"),
            group="customer_id",
        ),
    )


@pytest.fixture(scope="module")
def demo_preds():
    return _demo("channel")


@pytest.mark.parametrize("scheme", ["rows", "stratified", "cluster"])
def test_exact_aggregate_equals_rows(demo_preds, scheme):
    if scheme == "cluster":
        demo_preds = _demo("customer_id")
    cfg = BoardConfig(n_resamples=60, scheme=scheme, strata_column="channel" if scheme == "stratified" else None)
    rows = evaluate(demo_preds, TABLE, cfg).to_dict()
    agg = aggregate_predictions(demo_preds, resolution=None, strata_column=cfg.strata_column, groups=scheme == "cluster")
    out = evaluate_aggregate(agg, TABLE, cfg).to_dict()
    assert_same_board(rows, out)
    assert out["aggregate"]["exact"] and out["aggregate"]["resolution"] == {"old": None, "new": None}
    assert out["comparison"]["p_b_better"] == rows["comparison"]["p_b_better"]  # the same draws


def test_binned_aggregate_equals_binned_rows(demo_preds):
    """At a resolution the numbers are those of the rows with scores floored to the grid
    (calibration keeps the original scores' sums, so it is compared on counts only)."""
    r = 1e-3
    binned = dataclasses.replace(demo_preds, scores={m: _bin_scores(s.copy(), r) for m, s in demo_preds.scores.items()})
    cfg = BoardConfig(n_resamples=60)
    rows = evaluate(binned, TABLE, cfg).to_dict()
    out = evaluate_aggregate(aggregate_predictions(demo_preds, resolution=r), TABLE, cfg).to_dict()
    assert_same_board(rows, out, skip=("calibration", "resolution", "bootstrap_resolution"))  # stated, not equal
    assert out["aggregate"]["resolution"] == {"old": r, "new": r}
    for m in ("old", "new"):
        a, b = rows["models"][m]["calibration"]["bins"], out["models"][m]["calibration"]["bins"]
        assert [x["count"] for x in a] == [x["count"] for x in b]  # 0.1 edges lie on the 1e-3 grid
        assert [x["frac_pos"] for x in a] == [x["frac_pos"] for x in b]


def test_one_model_ev_interval_and_html(demo_preds, tmp_path):
    one = dataclasses.replace(demo_preds, scores={"new": demo_preds.scores["new"]}, score_kinds={"new": "probability"})
    cfg = BoardConfig(n_resamples=60, method="bca")
    rows = evaluate(one, TABLE, cfg)
    out = evaluate_aggregate(aggregate_predictions(one, resolution=None), TABLE, cfg)
    assert_same_board(rows.to_dict(), out.to_dict())
    from board import export

    export.write_html(out, tmp_path / "b.html", dataset_name="agg", table_version="v1")
    assert (tmp_path / "b.html").stat().st_size > 10_000


def _cells(rows):
    """A hand-made aggregate: (score, label, rows) for one model, no segments, unweighted."""
    f = pd.DataFrame(rows, columns=["score", "label", "rows"])
    f["weight"] = f["rows"].astype(float)
    f["weight_sq"] = f["weight"]
    f["score_sum"] = f["score"] * f["rows"]
    f["score_sq_sum"] = f["score"] ** 2 * f["rows"]
    p = f["score"].clip(1e-15, 1 - 1e-15)
    f["log_sum"] = np.where(f["label"] == 1, np.log(p), np.log1p(-p)) * f["rows"]
    f["score_min"] = f["score_max"] = f["score"]
    return f.assign(model="m", column="", level="")


def test_counts_and_reliability_from_a_hand_table():
    # rows: 0.8 → 2 pos 1 neg; 0.3 → 1 pos 3 neg; (duplicated key rows are summed)
    f = _cells([(0.3, 0, 2), (0.8, 1, 2), (0.8, 0, 1), (0.3, 1, 1), (0.3, 0, 1)])
    agg = Aggregate.from_frame(f, score_kinds={"m": "probability"})
    c = counts_of(agg.part("m"), None)
    assert c.scores.tolist() == [0.8, 0.3] and c.pos.tolist() == [2.0, 1.0] and c.neg.tolist() == [1.0, 3.0]
    assert c.n_rows == 7
    y = [1, 1, 0, 1, 0, 0, 0]
    p = [0.8, 0.8, 0.8, 0.3, 0.3, 0.3, 0.3]
    rel, ref = reliability_of(agg.part("m"), n_bins=5), reliability(y, p, n_bins=5)
    # bin [0.2, 0.4): 4 rows, 1 positive -> 0.25; bin [0.8, 1]: 3 rows, 2 positives -> 2/3
    assert [b.count for b in rel.bins] == [0, 4, 0, 0, 3]
    assert rel.bins[1].frac_pos == 0.25 and rel.bins[4].frac_pos == 2 / 3
    # Brier by hand: 2·0.2² + 0.8² + 0.7² + 3·0.3² = 0.08 + 0.64 + 0.49 + 0.27 = 1.48 over 7
    assert rel.brier == pytest.approx(1.48 / 7, rel=1e-12) == ref.brier
    assert rel.log_loss == pytest.approx(ref.log_loss, rel=1e-12)
    assert rel.slope == pytest.approx(ref.slope, rel=1e-6) and rel.intercept == pytest.approx(ref.intercept, rel=1e-6)
    q = reliability_of(agg.part("m"), n_bins=2, strategy="quantile")
    assert q.edges.tolist() == reliability(y, p, n_bins=2, strategy="quantile").edges.tolist()


def test_board_from_a_hand_table_needs_no_rows():
    f = _cells([(0.9, 1, 3), (0.9, 0, 1), (0.2, 1, 1), (0.2, 0, 5)])
    res = evaluate_aggregate(
        Aggregate.from_frame(f, score_kinds={"m": "probability"}), TABLE, BoardConfig(n_resamples=0, thresholds={"m": 0.5})
    ).to_dict()
    at = res["models"]["m"]["at_threshold"]
    assert (at["tp"], at["fp"], at["fn"], at["tn"]) == (3.0, 1.0, 1.0, 5.0)
    assert at["ev"] == (3 * 500 - 20 - 500) / 10  # = 98
    # Mann–Whitney over 4 × 6 pairs: 3·5 wins (0.9 vs 0.2), ties 3·1 (at 0.9) and 1·5 (at 0.2) count 1/2
    assert res["models"]["m"]["auc"] == pytest.approx((15 + 0.5 * 3 + 0.5 * 5) / 24, rel=1e-15)
    assert res["drift_undefined"] == "no time column mapped: drift needs one"


def test_from_frame_lists_every_problem():
    f = _cells([(0.5, 2, 1)]).drop(columns=["log_sum"])
    with pytest.raises(InputError, match="lacks columns \\['log_sum'\\]"):
        Aggregate.from_frame(f, score_kinds={"m": "probability"})
    f = _cells([(np.inf, 2, 1)])
    with pytest.raises(InputError, match="non-finite scores(.|\n)*labels in the aggregate must be 0 or 1"):
        Aggregate.from_frame(f, score_kinds={"m": "probability"})


def test_cluster_without_group_cells_is_refused(demo_preds):
    agg = aggregate_predictions(demo_preds, resolution=None)
    with pytest.raises(InputError, match="needs a group id column"):
        evaluate_aggregate(agg, TABLE, BoardConfig(n_resamples=10, scheme="cluster"))


def test_choose_resolution():
    assert choose_resolution(20_000, "probability", 0, 1) is None
    assert choose_resolution(20_001, "probability", 0, 1) == 1e-4
    assert choose_resolution(20_001, "score", -3.0, 7.0) == pytest.approx(1e-3)  # 1e-4 of the range 10


# --------------------------------------------------------------------------------------
# drift from per-day tables
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_timed():
    """The demo with its time column and ten features (drifting in the last week by design)."""
    return validate(demo.demo_frame(n=12_000), ColumnMapping.from_dict(demo.DEMO_MAPPING))


def test_drift_from_an_aggregate_equals_binned_rows(demo_timed):
    """exact_limit=1 makes the row path bin KS on the reference grid, as an aggregate does:
    then every light, statistic and window equals the rows' (calibration sums up to order)."""
    from evalcore.drift import DriftConfig

    cfg = BoardConfig(n_resamples=0, drift=DriftConfig(exact_limit=1).to_dict())
    rows = evaluate(demo_timed, TABLE, cfg)
    agg = aggregate_predictions(demo_timed, resolution=None, drift=DriftConfig(exact_limit=1))
    out = evaluate_aggregate(agg, TABLE, cfg)
    assert out.drift is not None and "drift_undefined" not in out.to_dict()
    assert_same_board(rows.to_dict(), out.to_dict())
    # the lights are not all green, so equality says something
    assert {light.color for light in out.drift.lights.values()} >= {"red"}
    fr, fa = rows.drift.report.feature, out.drift.report.feature
    np.testing.assert_array_equal(fr.statistic, fa.statistic)
    for a, b in zip(fr.window_counts, fa.window_counts):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(rows.drift.report.label.pos, out.drift.report.label.pos)
    for m in ("old", "new"):
        np.testing.assert_allclose(rows.drift.calibration[m].expected, out.drift.calibration[m].expected, rtol=1e-12)
        np.testing.assert_array_equal(rows.drift.calibration[m].level, out.drift.calibration[m].level)


def test_small_data_aggregate_gives_the_exact_ks_of_the_rows(demo_timed):
    """12 000 rows: the row path's KS is exact, so the aggregate keeps per-value counts and
    gives the same statistics bit for bit (and the same JSON)."""
    from evalcore.aggregate import board_drift_of
    from evalcore.board import board_drift

    rows, agg = board_drift(demo_timed), board_drift_of(aggregate_predictions(demo_timed))
    assert rows.report.feature.ks_method == agg.report.feature.ks_method == "exact"
    np.testing.assert_array_equal(rows.report.feature.statistic, agg.report.feature.statistic)
    assert rows.to_dict()["feature"] == agg.to_dict()["feature"]


def test_aggregate_ks_is_within_its_stated_bound_of_the_exact_ks(demo_timed):
    """An aggregate made for a small exact_limit has no per-value counts; evaluated where the
    rows give the exact KS, it bins instead, never above the exact KS and at most bin_error
    below (the bound the JSON states)."""
    from evalcore.aggregate import board_drift_of
    from evalcore.board import board_drift
    from evalcore.drift import DriftConfig

    exact = board_drift(demo_timed).report.feature
    agg = aggregate_predictions(demo_timed, drift=DriftConfig(exact_limit=1))
    assert agg.feature_value_cells is None
    binned = board_drift_of(agg).report.feature
    assert exact.ks_method == "exact" and binned.ks_method == "binned"
    ks = [i for i, k in enumerate(exact.kinds) if k == "ks"]
    e, b = exact.statistic[ks], binned.statistic[ks]
    err = binned.bin_error[ks][:, None]
    assert np.all(b <= e + 1e-12) and np.all(e - b <= err + 1e-12)
    assert np.any(err > 0)  # continuous features: the bound is not trivially zero


def test_other_reference_window_greys_the_feature_light_only(demo_timed):
    from evalcore.aggregate import board_drift_of
    from evalcore.board import board_drift
    from evalcore.drift import DriftConfig

    agg = aggregate_predictions(demo_timed)  # fitted on the default 7-day reference
    other = DriftConfig(reference_days=5)
    got = board_drift_of(agg, other)
    assert got.lights["feature"].color == "grey"
    assert "reference_days=7" in got.lights["feature"].reason and "Aggregate again" in got.lights["feature"].reason
    want = board_drift(demo_timed, other)
    assert got.lights["label"].reason == want.lights["label"].reason
    np.testing.assert_array_equal(got.report.label.p_value, want.report.label.p_value)
    # a subset of the fitted features is fine
    sub = board_drift_of(agg, DriftConfig(features=("amount", "channel")))
    assert sub.report.feature.features == ("amount", "channel")


def test_drift_without_time_is_undefined_with_a_reason(demo_preds):
    from evalcore.aggregate import board_drift_of

    agg = aggregate_predictions(demo_preds)
    assert agg.day_cells is None
    with pytest.raises(InputError, match="time column"):
        board_drift_of(agg)
    assert evaluate_aggregate(agg, TABLE, BoardConfig(n_resamples=0)).drift_undefined.startswith("no time column")


def test_calibration_intervals_from_exact_cells_match_the_row_bootstrap(demo_preds):
    """Exact unweighted cells are rows repeated: the cell bootstrap is the row bootstrap in
    distribution (intervals agree within Monte Carlo error), and the Wald slope/intercept
    intervals are the rows' (the same likelihood)."""
    from evalcore.aggregate import calibration_intervals_of
    from evalcore.calibration import calibration_intervals

    agg = aggregate_predictions(demo_preds, resolution=None)
    for strategy in ("uniform", "quantile"):
        rows = calibration_intervals(demo_preds.y_true, demo_preds.scores["new"], strategy=strategy, n_resamples=2000, rng=1)
        got, why = calibration_intervals_of(
            agg.part("new"), resolution=None, weighted=False, strategy=strategy, n_resamples=2000, rng=2
        )
        assert why == ""
        for m in ("brier", "log_loss", "ece", "oe_ratio"):
            width = rows[m][1] - rows[m][0]
            assert abs(got[m][0] - rows[m][0]) < 0.1 * width and abs(got[m][1] - rows[m][1]) < 0.1 * width, m
        for m in ("slope", "intercept"):
            np.testing.assert_allclose(got[m], rows[m], rtol=1e-5)
    binned = aggregate_predictions(demo_preds, resolution=1e-3)
    got, why = calibration_intervals_of(binned.part("new"), resolution=1e-3, weighted=False)
    assert "binned" in why and all(np.isnan(v).all() for v in got.values())


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_blocks_of_sorted_cells_are_found_alike_for_python_and_arrow_strings(dtype):
    """An aggregate read back from Parquet holds its strings in Arrow; the row ranges of each
    (model, column) are the same as for Python strings, and a pair in two places is no block."""
    from evalcore.aggregate import _blocks

    model = ["a", "a", "a", "b", "b", "b", "b"]
    column = ["", "", "seg", "", "seg", "seg", "seg"]
    cells = pd.DataFrame({"model": pd.array(model, dtype=dtype), "column": pd.array(column, dtype=dtype)})
    assert _blocks(cells) == {("a", ""): (0, 2), ("a", "seg"): (2, 3), ("b", ""): (3, 4), ("b", "seg"): (4, 7)}
    split = pd.DataFrame({"model": pd.array(["a", "b", "a"], dtype=dtype), "column": pd.array(["", "", ""], dtype=dtype)})
    assert _blocks(split) is None


@pytest.mark.parametrize("weighted", [False, True])
def test_the_pandas_paths_cells_are_already_in_canonical_order(weighted):
    """The pandas path lists its cells in the canonical order itself and skips ``from_frame``'s
    sort: its cells equal those of the same cells shuffled and put in order by ``from_frame``.
    Models and segment columns are named out of alphabetical order, weights make some scores
    split by row weight, and the scores are exact (many tied scores across labels)."""
    rng = np.random.default_rng(4)
    n = 3000
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "zeta": np.round(rng.random(n), 2),
            "alpha": np.round(rng.random(n), 3),
            "tier": rng.choice(["b", "a", "c"], n),
            "channel": rng.choice(["web", "app"], n),
            "w": rng.choice([0.5, 1.0, 2.0], n),
        }
    )
    mapping = ColumnMapping(
        label="y", scores={"zeta": "zeta", "alpha": "alpha"}, segments=("tier", "channel"), weight="w" if weighted else None
    )
    agg = aggregate_predictions(validate(frame, mapping), resolution=None, exact_draws=True)
    shuffled = agg.cells.sample(frac=1.0, random_state=0)
    again = Aggregate.from_frame(shuffled, score_kinds=agg.score_kinds, weighted=agg.weighted)
    pd.testing.assert_frame_equal(agg.cells, again.cells)
    assert list(agg.cells["model"].unique()) == ["alpha", "zeta"]
    assert list(agg.cells.loc[agg.cells["model"] == "alpha", "column"].unique()) == ["", "channel", "tier"]
    assert (ROW_WEIGHT in agg.cells.columns) == weighted


@pytest.mark.parametrize(("n", "n_codes"), [(5_000, 7), (20_000, 200_000)])  # few keys (counted), many (hashed)
def test_group_sum_equals_the_group_by_it_replaces(n, n_codes):
    from evalcore.aggregate import _group_sum

    rng = np.random.default_rng(3)
    dates = pd.to_datetime("2026-10-01") + pd.to_timedelta(rng.integers(0, 9, n), unit="D")
    code = rng.integers(0, n_codes, n) * 3  # not every value in range present
    w = rng.exponential(1.0, n)
    ones = np.ones(n, np.int64)
    got = _group_sum({"date": pd.factorize(dates, sort=True), "code": code}, {"rows": ones, "w": w})
    want = (
        pd.DataFrame({"date": dates, "code": code, "rows": ones, "w": w})
        .groupby(["date", "code"], sort=True, as_index=False)
        .sum()
    )
    pd.testing.assert_frame_equal(got, want, check_exact=True, check_dtype=False)
    assert got["rows"].dtype == np.int64
    radix = 9 * (len(np.unique(code)) if n_codes > n else int(code.max()) + 1)  # the combined key's range
    assert (radix <= max(n, 1 << 16)) == (n_codes == 7)  # each way of numbering the keys is tested


@pytest.mark.parametrize("weights", ["ones", "whole", "halves"])
def test_group_sum_of_string_groups_and_whole_number_weights_equals_the_group_by(weights):
    """Customer ids numbered by Arrow (:func:`_sorted_codes`) and float sums of whole numbers
    counted instead of grouped: the same frame as pandas' group-by, bit for bit; a weight with
    a fraction keeps pandas' compensated sums."""
    from evalcore.aggregate import _group_sum, _sorted_codes, _sums_exactly

    rng = np.random.default_rng(11)
    n = 30_000
    ids = np.array([f"客户{i}" if i % 7 == 0 else f"c{i:05d}" for i in rng.integers(0, 9_000, n)], dtype=object)
    score = np.round(rng.random(n), 3)
    label = rng.integers(0, 2, n)
    w = {"ones": np.ones(n), "whole": rng.integers(0, 5, n).astype(float), "halves": rng.integers(1, 5, n) / 2}[weights]
    assert _sums_exactly(w) == (weights != "halves")
    ones = np.ones(n, np.int64)
    got = _group_sum({"group": _sorted_codes(ids), "score": score, "label": label}, {"rows": ones, "weight": w})
    want = (
        pd.DataFrame({"group": ids, "score": score, "label": label, "rows": ones, "weight": w})
        .groupby(["group", "score", "label"], sort=True, as_index=False)
        .sum()
    )
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_sorted_codes_and_first_appearance_equal_pandas_on_strings():
    """Arrow's numbering of strings is pandas' sorted factorize (UTF-8 bytes sort as code
    points: "Z" < "a" < "é" < "客"), and the first-appearance order found on the codes is the
    one found on the strings, zero-weight rows last."""
    from evalcore.aggregate import _first_appearance, _sorted_codes

    values = np.array(["b", "客户", "a", "Z", "é", "b", "a", "", "客", "Z"], dtype=object)
    codes, uniques = _sorted_codes(values)
    want_codes, want_uniques = pd.factorize(values, sort=True)
    np.testing.assert_array_equal(codes, want_codes)
    assert list(uniques) == list(want_uniques) == ["", "Z", "a", "b", "é", "客", "客户"]
    w = np.array([0.0, 1, 1, 0, 2, 1, 1, 0, 1, 1])
    assert _first_appearance((codes, uniques), w) == _first_appearance(values, w) == ("客户", "a", "é", "b", "客", "Z", "")
    ints = _sorted_codes(np.array([10, 2, 10, 33]))  # not strings: numbered as their str, as before
    np.testing.assert_array_equal(ints[0], [0, 1, 0, 2])
    assert list(ints[1]) == ["10", "2", "33"]
    odd = np.array(["b", "\udcff", "a"], dtype=object)  # a lone surrogate is no UTF-8: pandas numbers them
    np.testing.assert_array_equal(_sorted_codes(odd)[0], pd.factorize(odd, sort=True)[0])


@pytest.mark.parametrize("distinct", [1, 5, 4_000, 40_000, 90_000])  # keys of 1, 16, 17 and 18 bits
def test_rows_sorted_by_score_then_label_as_lexsort_sorts_them(distinct):
    from evalcore.aggregate import _stable_order

    rng = np.random.default_rng(5)
    n = 100_000
    b = rng.integers(0, distinct, n) / distinct if distinct > 1 else np.full(n, 0.25)
    b[::7] = -0.0 if distinct == 5 else b[::7]  # -0.0 and 0.0 are one score
    lab = rng.integers(0, 2, n)
    np.testing.assert_array_equal(_stable_order(b, lab), np.lexsort([lab, b]))
