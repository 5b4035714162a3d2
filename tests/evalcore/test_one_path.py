"""One evaluation path (issue 20): the board of rows is the board of their aggregate.

``evaluate(predictions)`` builds the in-memory aggregate and calls ``evaluate_aggregate``, the
one orchestration. Two checks keep it honest:

* against an oracle — the board assembled from the *row* functions (``value_curve``'s
  counts, ``segment_curves``, ``reliability``, ``ev_interval``, ``optimum_interval``,
  ``compare_models``, ``analytic_ev_se``, ``board_drift``), as ``evaluate`` did before the
  paths became one, with the seeds written out by hand;
* against the same aggregate serialised (``board.store.aggregate_io``) and handed over as an
  engine hands one over (cells shuffled, canonicalised by ``Aggregate.from_frame``).

Data: validation predictions of models fitted on datasets shipped with scikit-learn (fixed
``random_state``; scores rounded to 6 decimals, as a scoring system writes them, so ties
occur), and generated edge cases: ties, one class in a segment, zero weights, subnormal
scores (0 and 5e-324), all-equal scores, one row per segment.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from _oracle import small_evidence_from_rows  # tests/evalcore is on sys.path

from evalcore import ColumnMapping, InputError, ValueTable, validate
from evalcore._seeds import board_seed
from evalcore.aggregate import Aggregate, aggregate_predictions, evaluate_aggregate
from evalcore.board import (
    BoardConfig,
    BoardResult,
    ModelResult,
    aggregate_for_board,
    board_drift,
    bootstrap_resolution,
    decision_inputs,
    default_threshold,
    evaluate,
    heatmap_grid,
)
from evalcore.bootstrap import analytic_ev_se, compare_models, ev_interval, metric_intervals, optimum_interval
from evalcore.calibration import reliability
from evalcore.counts import _score_counts
from evalcore.decision import action
from evalcore.drift import DriftConfig
from evalcore.evidence import SmallEvidence
from evalcore.value import auc_from_counts, price_curve, segment_curves
from tests._equality import assert_same_board

TABLE = ValueTable(tp=500, fp=-20, fn=-500, tn=3)


# --------------------------------------------------------------------------------------
# the oracle: the board from the row functions
# --------------------------------------------------------------------------------------


def row_board(predictions, table: ValueTable, config: BoardConfig) -> BoardResult:
    """The board as the row path computed it before issue 20 (seeds written out)."""
    y, w = predictions.y_true, predictions.sample_weight
    w_arr = np.ones(len(y)) if w is None else w
    boot = config.n_resamples > 0
    res_kw = {}
    if boot and config.scheme == "stratified":
        res_kw = {"strata": predictions.segments[config.strata_column]}
    elif boot and config.scheme == "cluster":
        res_kw = {"groups": predictions.groups}
    common = dict(n_resamples=config.n_resamples, level=config.level, method=config.method, sample_weight=w, **res_kw)
    names = list(predictions.scores)
    models = {}
    for i, (name, s) in enumerate(predictions.scores.items()):
        kind = predictions.score_kinds[name]
        c = _score_counts(y, s, w_arr)
        curve = price_curve(c, table, score_kind=kind)
        t = float(config.thresholds.get(name, default_threshold(predictions, name)))
        grid = heatmap_grid(s, kind, predictions.positive_rate)
        segs = {
            col: segment_curves(y, s, levels, table, column=col, deployed=t, sample_weight=w, score_kind=kind, grid=grid)
            for col, levels in predictions.segments.items()
        }
        cal = (
            reliability(y, s, sample_weight=w, n_bins=config.n_bins, strategy=config.strategy) if kind == "probability" else None
        )
        at = curve.confusion_at(t)
        ev_ci = opt = None
        if boot:
            if len(names) == 1:
                ev_ci = ev_interval(y, s, table, threshold=t, rng=config.seed + 17 * i, **common)
            if kind != "decision":
                opt = optimum_interval(
                    y,
                    s,
                    table,
                    rng=config.seed + 17 * i + 1,
                    resolution=bootstrap_resolution(c, kind, config.max_exact_scores),
                    **common,
                )
        models[name] = ModelResult(
            name=name,
            score_kind=kind,
            threshold=t,
            counts=c,
            curve=curve,
            at_threshold=at,
            ev=curve.ev_at(t),
            attribution=curve.attribution_at(t),
            auc=auc_from_counts(c),
            calibration=cal,
            segments=segs,
            ev_ci=ev_ci,
            ev_se=analytic_ev_se(y, s, table, threshold=t, sample_weight=w),
            optimum=opt,
            intervals=metric_intervals(at.tp, at.fp, at.fn, at.tn, level=config.level),
        )
    comparison = None
    if boot and len(names) == 2:
        a, b = names
        comparison = compare_models(
            y,
            predictions.scores[a],
            predictions.scores[b],
            table,
            threshold_a=models[a].threshold,
            threshold_b=models[b].threshold,
            rng=config.seed + 99,
            names=(a, b),
            **common,
        )
        for n, r in ((a, comparison.ev_a), (b, comparison.ev_b)):
            models[n] = dataclasses.replace(models[n], ev_ci=r)
    drift, why = None, "no time column mapped: drift needs one"
    if predictions.time is not None:
        why = ""
        try:
            drift = board_drift(predictions, DriftConfig.from_dict(config.drift) if config.drift else DriftConfig())
        except InputError as err:
            why = "drift not computed: " + "; ".join(p.message for p in err.problems)
    result = BoardResult(
        n=predictions.n,
        n_pos=predictions.n_pos,
        n_rows=predictions.n_rows,
        table=table,
        config=config,
        models=models,
        comparison=comparison,
        drift=drift,
        drift_undefined=why,
        small_evidence=row_small_evidence(y, predictions.scores, {n: m.threshold for n, m in models.items()}, table, w, res_kw),
    )
    return dataclasses.replace(result, action=action(decision_inputs(result)))


def row_small_evidence(y, scores, thresholds, table, w, res_kw) -> SmallEvidence | None:
    """The small-evidence finding counted from the rows (``_oracle.small_evidence_from_rows``)."""
    if w is not None and not (w > 0).any():
        return None
    pos, basis, stratum, nu, interval, model, raw, cell, cell_model = small_evidence_from_rows(
        y, scores, thresholds, table, sample_weight=w, strata=res_kw.get("strata"), groups=res_kw.get("groups")
    )
    reasons = tuple(code for code, crossed in (("few_positives", pos < 50), ("small_cell", nu < 10)) if crossed)
    return SmallEvidence(
        positives=pos,
        positives_basis=basis,
        stratum=stratum,
        min_expected_cell=nu,
        interval=interval,
        model=model,
        min_confusion_cell=raw,
        confusion_cell=cell,
        confusion_model=cell_model,
        approximate=bool(reasons),
        reasons=reasons,
    )


def engine_like(agg: Aggregate, seed: int = 0) -> Aggregate:
    """The aggregate as an engine hands it over: serialised, cells in any order, canonicalised."""
    from board.store.aggregate_io import from_bytes, to_bytes

    back = from_bytes(to_bytes(agg))
    shuffled = back.cells.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    canon = Aggregate.from_frame(
        shuffled,
        score_kinds=back.score_kinds,
        resolution=back.resolution,
        weighted=back.weighted,
        group_cells=back.group_cells,
        paired=back.paired,
        paired_thresholds=back.paired_thresholds,
        strata_column=back.strata_column,
        time_column=back.time_column,
        source=back.source,
        level_order=back.level_order,
        group_order=back.group_order,
    )
    drift = {
        f.name: getattr(back, f.name)
        for f in dataclasses.fields(Aggregate)
        if f.name.startswith(("day_", "calibration_day", "feature_", "drift_"))
    }
    return dataclasses.replace(canon, **drift)


def check_one_path(preds, config: BoardConfig, table: ValueTable = TABLE) -> dict:
    """Rows (the one path) == the row oracle == the serialised, engine-like aggregate."""
    got = evaluate(preds, table, config)
    want = row_board(preds, table, config)
    d = got.to_dict()
    assert "aggregate" not in d  # a board of rows states no engine
    assert_same_board(want.to_dict(), d, skip=("small_evidence",))
    # the oracle counts small evidence with pandas on rows: its float sums differ in the last bit
    se_want, se_got = want.to_dict()["small_evidence"], d["small_evidence"]
    assert (se_want is None) == (se_got is None)
    if se_got is not None:
        assert se_got == {k: pytest.approx(v, rel=1e-12) if isinstance(v, float) else v for k, v in se_want.items()}
    assert got.drift_undefined == want.drift_undefined
    stored = evaluate_aggregate(engine_like(aggregate_for_board(preds, config)), table, config).to_dict()
    assert stored["aggregate"]["exact"]
    assert_same_board(d, stored)
    return d


# --------------------------------------------------------------------------------------
# validation sets from scikit-learn's datasets
# --------------------------------------------------------------------------------------


def _validation_frame(X, y, seed: int) -> pd.DataFrame:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.5, random_state=seed, stratify=y)
    logit = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, random_state=seed)).fit(X_tr, y_tr)
    bayes = GaussianNB().fit(X_tr, y_tr)
    n = len(y_va)
    rng = np.random.default_rng(seed)
    band = np.array(["z", "m", "a"])[rng.integers(0, 3, n)]
    band[:3] = ["z", "m", "a"]  # first seen in reverse sorted order: strata numbering is tested
    return pd.DataFrame(
        {
            "y": y_va.astype(int),
            "p_logit": np.round(logit.predict_proba(X_va)[:, 1], 6),
            "p_bayes": np.round(bayes.predict_proba(X_va)[:, 1], 6),
            # levels first seen in the rows' order, not sorted: "small"/"large" interleave
            "size": np.where(X_va[:, 0] > np.median(X_va[:, 0]), "large", "small"),
            "band": band,
            "day": pd.Timestamp("2026-01-01") + pd.to_timedelta(np.arange(n) * 28 // n, unit="D"),
            "customer": [f"c{i // 3}" for i in rng.permutation(n)],
            "w": rng.choice([0.5, 1.0, 2.0], n),
            "f0": X_va[:, 0],
        }
    )


@pytest.fixture(scope="module")
def sk_frames():
    from sklearn.datasets import load_breast_cancer, load_wine

    X, y = load_breast_cancer(return_X_y=True)
    cancer = _validation_frame(X, 1 - y, 0)  # positive = malignant
    X, y = load_wine(return_X_y=True)
    wine = _validation_frame(X, (y == 0).astype(int), 3)
    return {"cancer": cancer, "wine": wine}


SK = dict(label="y", scores={"logit": "p_logit", "bayes": "p_bayes"}, segments=("size", "band"), group="customer")


@pytest.mark.parametrize("data", ["cancer", "wine"])
@pytest.mark.parametrize(
    "scheme,weight,method",
    [
        ("rows", None, "percentile"),
        ("stratified", None, "bca"),
        ("cluster", None, "percentile"),
        ("rows", "w", "bca"),
        ("stratified", "w", "percentile"),
        ("cluster", "w", "percentile"),
        ("rows", "w", "bayes"),
        ("stratified", None, "bayes"),
        ("cluster", None, "bayes"),
    ],
)
def test_sklearn_validation_sets_one_path(sk_frames, data, scheme, weight, method):
    preds = validate(sk_frames[data], ColumnMapping(**SK, weight=weight, time="day", features=("f0",)))
    cfg = BoardConfig(
        n_resamples=40, seed=5, scheme=scheme, method=method, strata_column="band" if scheme == "stratified" else None
    )
    d = check_one_path(preds, cfg)
    # the comparison ran on the paired draws and drift was lit: the equality covers them
    assert d["comparison"]["diff_ev_ci"][0] is not None and set(d["drift"]) == {"feature", "label", "calibration"}


def test_one_model_with_a_raw_score(sk_frames):
    """Raw scores: the default threshold is the middle of the score range; no calibration."""
    f = sk_frames["cancer"].assign(logit_raw=lambda x: np.log(x.p_logit + 1e-6) - np.log1p(1e-6 - x.p_logit))
    preds = validate(f, ColumnMapping(label="y", scores={"raw": "logit_raw"}, segments=("band",), group="customer"))
    assert preds.score_kinds["raw"] == "score"
    d = check_one_path(preds, BoardConfig(n_resamples=40, scheme="cluster", method="bca"))
    s = f["logit_raw"].to_numpy()
    assert d["models"]["raw"]["at_threshold"]["threshold"] == (s.min() + s.max()) / 2
    assert d["models"]["raw"]["calibration"] is None


def test_the_first_appearance_order_matters_and_is_kept(sk_frames):
    """Strata numbered in sorted order draw differently from the rows (each stratum has its
    own stream): the aggregate must record the rows' order, or the interval changes."""
    preds = validate(sk_frames["cancer"], ColumnMapping(**SK))
    cfg = BoardConfig(n_resamples=40, scheme="stratified", strata_column="band")
    agg = aggregate_for_board(preds, cfg)
    assert agg.level_order["band"] == tuple(pd.unique(sk_frames["cancer"]["band"]))
    assert agg.level_order["band"] != tuple(sorted(agg.level_order["band"]))  # the check can fail
    right = evaluate_aggregate(agg, TABLE, cfg).to_dict()
    sorted_order = evaluate_aggregate(dataclasses.replace(agg, level_order=None), TABLE, cfg).to_dict()
    want = row_board(preds, TABLE, cfg).to_dict()
    assert right["comparison"]["diff_ev_ci"] == want["comparison"]["diff_ev_ci"]
    assert sorted_order["comparison"]["diff_ev_ci"] != want["comparison"]["diff_ev_ci"]


def test_weighted_cells_keep_each_rows_weight(sk_frames):
    """With weights the cells are split by the rows' weight, so the bootstrap draws each row
    with its own weight; the engines' cells (one per key, mean weight) draw otherwise."""
    preds = validate(sk_frames["wine"], ColumnMapping(**SK, weight="w"))
    cfg = BoardConfig(n_resamples=40)
    agg = aggregate_for_board(preds, cfg)
    cells = agg.part("logit")
    assert set(cells["row_weight"]) == {0.5, 1.0, 2.0}
    np.testing.assert_array_equal(cells["weight"], cells["row_weight"] * cells["rows"])
    plain = aggregate_predictions(preds, resolution=None)
    assert "row_weight" not in plain.cells and plain.part("logit")["rows"].sum() == cells["rows"].sum()
    want = row_board(preds, TABLE, cfg).to_dict()
    assert_same_board(want, evaluate_aggregate(agg, TABLE, cfg).to_dict())
    mean_w = evaluate_aggregate(plain, TABLE, cfg).to_dict()
    assert mean_w["comparison"]["diff_ev_ci"] != want["comparison"]["diff_ev_ci"]


# --------------------------------------------------------------------------------------
# edge cases
# --------------------------------------------------------------------------------------


def _frame(y, a, b, *, seg=None, group=None, w=None) -> pd.DataFrame:
    n = len(y)
    return pd.DataFrame(
        {
            "y": y,
            "a": a,
            "b": b,
            "seg": seg if seg is not None else ["s"] * n,
            "g": group if group is not None else [f"g{i // 2}" for i in range(n)],
            "w": w if w is not None else np.ones(n),
        }
    )


def _ties():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 120)
    a = np.round(np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 120), 0, 1), 1)  # 11 distinct scores
    b = np.round(np.clip(0.4 + 0.2 * y + rng.normal(0, 0.2, 120), 0, 1), 1)
    return _frame(y, a, b, seg=np.array(["q", "p"])[rng.integers(0, 2, 120)])


def _one_class_segment():
    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 90)
    seg = np.where(np.arange(90) % 3 == 0, "only_neg", "mixed")
    y[seg == "only_neg"] = 0
    return _frame(y, np.round(rng.random(90), 3), np.round(rng.random(90), 3), seg=seg)


def _zero_weights():
    rng = np.random.default_rng(13)
    y = rng.integers(0, 2, 80)
    a, b = np.round(rng.random(80), 2), np.round(rng.random(80), 2)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], 80)
    a[5], y[5], w[5] = 0.0, 0, 0.0  # a zero-weight row below every other score
    a[a == 0.0] = np.where(np.arange((a == 0.0).sum()) == 0, 0.0, 0.01)[: (a == 0.0).sum()]
    seg = np.where(np.arange(80) < 4, "zero_only", np.array(["u", "v"])[rng.integers(0, 2, 80)])
    w[:4] = 0.0  # a stratum and two groups of zero-weight rows only: never drawn
    return _frame(y, a, b, seg=seg, w=w)


def _subnormal():
    rng = np.random.default_rng(14)
    y = rng.integers(0, 2, 60)
    a = np.where(y == 1, 5e-324, 0.0)  # the smallest positive float separates the classes
    a[:3] = 5e-324
    b = np.round(rng.random(60), 2)
    return _frame(y, a, b, seg=np.array(["x", "y"])[rng.integers(0, 2, 60)])


def _all_equal():
    rng = np.random.default_rng(15)
    y = rng.integers(0, 2, 50)
    return _frame(y, np.full(50, 0.3), np.full(50, 0.7), seg=np.array(["k", "l"])[rng.integers(0, 2, 50)])


def _one_row_per_segment():
    rng = np.random.default_rng(16)
    y = np.array([0, 1] * 15)
    return _frame(
        y,
        np.round(rng.random(30), 2),
        np.round(rng.random(30), 2),
        seg=[f"r{i:02d}" for i in range(30)][::-1],
        group=[f"g{i}" for i in range(30)],
    )


EDGES = {
    "ties": _ties,
    "one_class_segment": _one_class_segment,
    "zero_weights": _zero_weights,
    "subnormal": _subnormal,
    "all_equal": _all_equal,
    "one_row_per_segment": _one_row_per_segment,
}


@pytest.mark.parametrize("scheme", ["rows", "stratified", "cluster"])
@pytest.mark.parametrize("case", sorted(EDGES))
def test_edge_cases_one_path(case, scheme):
    f = EDGES[case]()
    weight = "w" if case == "zero_weights" else None
    preds = validate(f, ColumnMapping(label="y", scores={"a": "a", "b": "b"}, segments=("seg",), group="g", weight=weight))
    cfg = BoardConfig(n_resamples=30, seed=2, scheme=scheme, strata_column="seg" if scheme == "stratified" else None)
    check_one_path(preds, cfg)
    one = dataclasses.replace(preds, scores={"a": preds.scores["a"]}, score_kinds={"a": preds.score_kinds["a"]})
    check_one_path(one, dataclasses.replace(cfg, method="bca"))


def test_subnormal_scores_count_and_price_exactly():
    """0 and 5e-324 are two thresholds: acting at 5e-324 keeps exactly the rows scored 5e-324."""
    f = _subnormal()
    preds = validate(f, ColumnMapping(label="y", scores={"a": "a", "b": "b"}))
    d = evaluate(preds, TABLE, BoardConfig(n_resamples=0, thresholds={"a": 5e-324})).to_dict()
    at = d["models"]["a"]["at_threshold"]
    act = f["a"].to_numpy() >= 5e-324
    y = f["y"].to_numpy()
    assert (at["tp"], at["fp"]) == (float(np.sum(act & (y == 1))), float(np.sum(act & (y == 0))))
    ev = (500 * at["tp"] - 20 * at["fp"] - 500 * at["fn"] + 3 * at["tn"]) / len(y)
    assert at["ev"] == pytest.approx(ev, rel=1e-15)


def test_zero_weight_rows_are_no_rows():
    """Dropping the zero-weight rows gives the same board (bootstrap included): they are no
    rows, neither thresholds nor units to draw."""
    f = _zero_weights()
    mapping = ColumnMapping(label="y", scores={"a": "a", "b": "b"}, segments=("seg",), group="g", weight="w")
    cfg = BoardConfig(n_resamples=30, seed=4, scheme="stratified", strata_column="seg")
    full = evaluate(validate(f, mapping), TABLE, cfg).to_dict()
    kept = evaluate(validate(f[f["w"] > 0].reset_index(drop=True), mapping), TABLE, cfg).to_dict()
    # the empty stratum keeps its (empty) segment row with n = 0, the rest is equal
    for m in ("a", "b"):
        seg = full["models"][m]["segments"]["seg"]
        assert seg["zero_only"]["n"] == 0
        del seg["zero_only"]
    assert full["n_rows"] == kept["n_rows"] + int((f["w"] == 0).sum())
    # row counts (the board's and the reliability bins') count every row; every number is equal
    assert_same_board(kept, full, skip=("n_rows",))


def test_seeds_are_named_once():
    assert [board_seed(7, "ev", i) for i in range(2)] == [7, 24]
    assert [board_seed(7, "optimum", i) for i in range(2)] == [8, 25]
    assert board_seed(7, "comparison") == 106
    with pytest.raises(ValueError, match="what must be one of"):
        board_seed(7, "band")


def test_bad_drift_settings_are_stated_not_raised(sk_frames):
    """Drift settings that do not fit the rows leave drift undefined with the row path's reason."""
    preds = validate(sk_frames["cancer"], ColumnMapping(**SK, time="day", features=("f0",)))
    cfg = BoardConfig(n_resamples=0, drift=DriftConfig(features=("nope",)).to_dict())
    got = evaluate(preds, TABLE, cfg)
    assert got.drift is None and got.drift_undefined == row_board(preds, TABLE, cfg).drift_undefined
    assert "nope" in got.drift_undefined


@pytest.mark.parametrize("board_grid", [False, True])
def test_segment_curves_of_cells_equal_segment_curves_of_rows(board_grid):
    """The Threshold–value page's heatmap from the aggregate equals evalcore.segment_curves of the rows,
    on the default even grid and on the board's grid (evalcore.board.heatmap_grid of the rows)."""
    from board.services import demo as demo_mod
    from evalcore import segment_curves
    from evalcore.aggregate import segment_curves_of
    from evalcore.board import aggregate_for_board, heatmap_grid

    preds = validate(demo_mod.demo_frame(n=4000), ColumnMapping.from_dict(demo_mod.DEMO_MAPPING))
    agg = aggregate_for_board(preds)
    table = ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120)
    s = preds.scores["new"]
    grid = heatmap_grid(s, "probability", preds.positive_rate) if board_grid else None
    want = segment_curves(
        preds.y_true, s, preds.segments["customer_type"], table, column="customer_type", deployed=0.3, grid=grid
    )
    got = segment_curves_of(agg, "new", "customer_type", table, deployed=0.3, board_grid=board_grid)
    assert got.levels == want.levels
    np.testing.assert_array_equal(got.grid, want.grid)
    np.testing.assert_array_equal(got.ev, want.ev)
    np.testing.assert_array_equal(got.ev_deployed, want.ev_deployed)
    np.testing.assert_array_equal(got.t_opt, want.t_opt)
    np.testing.assert_array_equal(got.n, want.n)


@pytest.mark.parametrize("weighted", [False, True])
def test_calibration_intervals_of_cells_match_the_row_bootstrap_in_distribution(weighted):
    """The Calibration page's intervals come from the rows' aggregate: with exact scores (and, for
    weighted rows, cells split by the row weight) they are the row bootstrap in distribution —
    percentile ends within a small share of the interval width of evalcore.calibration_intervals,
    and the Wald slope/intercept identical."""
    from evalcore import calibration_intervals
    from evalcore.aggregate import calibration_intervals_of

    rng = np.random.default_rng(5)
    n = 3000
    p = np.round(rng.uniform(0.02, 0.98, n), 2)  # ties: cells stand for many rows
    y = (rng.uniform(size=n) < p**1.2).astype(int)
    w = rng.choice([0.5, 1.0, 2.0], n) if weighted else None
    preds = validate(
        pd.DataFrame({"y": y, "p": p, **({"w": w} if weighted else {})}),
        ColumnMapping(label="y", scores={"m": "p"}, weight="w" if weighted else None),
    )
    agg = aggregate_predictions(preds, resolution=None, exact_draws=True)
    got, why = calibration_intervals_of(agg.part("m"), resolution=None, weighted=weighted, n_resamples=4000, rng=1)
    want = calibration_intervals(y, p, sample_weight=w, n_resamples=4000, rng=2)
    assert why == ""
    for metric in ("brier", "log_loss", "ece", "oe_ratio"):
        width = want[metric][1] - want[metric][0]
        assert got[metric] == pytest.approx(want[metric], abs=0.08 * width), metric
    for metric in ("slope", "intercept"):
        assert got[metric] == pytest.approx(want[metric], rel=1e-9), metric
