"""Tests of evalcore.evidence: the small-evidence finding of a board, counted by hand and from
rows (per-row formulas and scikit-learn's confusion matrix), against the cells' implementation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix

from evalcore import ColumnMapping, ValueTable, analytic_ev_se, validate
from evalcore.board import BoardConfig, evaluate
from evalcore.evidence import CELL_LIMIT, POSITIVE_LIMIT, SmallEvidence, effective_count, small_evidence_of_cells

SIMPLE = ValueTable(tp=10, fp=-2, fn=-10, tn=0)
NO_BOOT = BoardConfig(n_resamples=0)


def frame(cells_a: dict, n_rest: int = 0) -> pd.DataFrame:
    """Rows from counts per (label, A acts, B acts): scores 0.9 (act) or 0.1 at threshold 0.5."""
    rows = []
    for (label, act_a, act_b), count in cells_a.items():
        rows += [(label, 0.9 if act_a else 0.1, 0.9 if act_b else 0.1)] * count
    f = pd.DataFrame(rows, columns=["y", "a", "b"])
    return f


def board(f: pd.DataFrame, table=SIMPLE, config=NO_BOOT, **mapping):
    preds = validate(f, ColumnMapping(label="y", scores={"A": "a", "B": "b"}, **mapping))
    return evaluate(preds, table, config)


def nu_of_rows(x: np.ndarray) -> float:
    """ν = (Σ c²)² / Σ c⁴ over rows, c the row's value minus the mean (unweighted)."""
    c = x - x.mean()
    return float((c**2).sum() ** 2 / (c**4).sum())


def row_values(y, act, table):
    v = table.vector()
    return np.where(act, np.where(y == 1, v[0], v[1]), np.where(y == 1, v[2], v[3]))


# (label, A acts, B acts) -> rows: 12 positives of 200; A: TP 8, FP 10, FN 4, TN 178; B: TP 10, FP 6, FN 2, TN 182
TWELVE = {(1, 1, 1): 7, (1, 1, 0): 1, (1, 0, 1): 3, (1, 0, 0): 1, (0, 1, 1): 5, (0, 1, 0): 5, (0, 0, 1): 1, (0, 0, 0): 177}


def test_counts_by_hand_and_from_rows():
    f = frame(TWELVE)
    assert len(f) == 200
    e = board(f).small_evidence
    y = f.y.to_numpy()
    assert e.positives == 12.0 and e.positives_basis == "rows" and e.stratum is None
    # A's EV: (8·10 − 10·2 − 4·10) / 200 = 0.1; c = 9.9, −2.1, −10.1, −0.1 on 8, 10, 4, 178 rows:
    # Σnc² = 784.08 + 44.1 + 408.04 + 1.78 = 1238.0; Σnc⁴ = 76847.6808 + 194.481 + 41624.1604 + 0.0178
    nu_a = 1238.0**2 / 118666.34
    assert nu_of_rows(row_values(y, f.a.to_numpy() >= 0.5, SIMPLE)) == pytest.approx(nu_a, rel=1e-12)
    nus = {
        "A": nu_a,
        "B": nu_of_rows(row_values(y, f.b.to_numpy() >= 0.5, SIMPLE)),
        "diff": nu_of_rows(row_values(y, f.b.to_numpy() >= 0.5, SIMPLE) - row_values(y, f.a.to_numpy() >= 0.5, SIMPLE)),
    }
    smallest = min(nus, key=nus.get)
    assert e.min_expected_cell == pytest.approx(nus[smallest], rel=1e-12)
    assert (e.interval, e.model) == (("diff", None) if smallest == "diff" else ("ev", smallest))
    # the smallest raw confusion cell, by scikit-learn: B's FN (2 rows)
    raw = {m: confusion_matrix(y, (f[c] >= 0.5).astype(int), labels=[0, 1]) for m, c in (("A", "a"), ("B", "b"))}
    assert e.min_confusion_cell == min(int(m.min()) for m in raw.values()) == 2
    assert (e.confusion_cell, e.confusion_model) == ("fn", "B")
    assert e.approximate and "few_positives" in e.reasons
    assert (e.positive_limit, e.cell_limit) == e.limits == (POSITIVE_LIMIT, CELL_LIMIT) == (50, 10)


def test_a_proportion_counts_its_smaller_cell():
    # ν of a 0/1 value with share p of n rows is n·p(1−p) / (p³ + (1−p)³), ≈ n·min(p, 1−p)
    for n, k in ((1000, 30), (1000, 500), (200, 3), (50, 49)):
        p = k / n
        want = n * p * (1 - p) / (p**3 + (1 - p) ** 3)
        assert effective_count([k, n - k], [k, n - k], [1.0, 0.0], [True, False]) == pytest.approx(want, rel=1e-12)
    assert effective_count([30, 970], [30, 970], [1.0, 0.0], [True, False]) == pytest.approx(31.883, abs=1e-3)


def test_a_cell_without_a_share_of_the_variance_does_not_flag():
    # model A acting on 5 rows of 50,000 (TP 1, FP 4; FN 1329, TN 48666): its TP cell holds one row,
    # but EV's variance is the FN cell's, so ν is large (≈ 1404 from the per-row formula)
    y = np.r_[np.ones(1330, int), np.zeros(48670, int)]
    act = np.r_[np.ones(1, bool), np.zeros(1329, bool), np.ones(4, bool), np.zeros(48666, bool)]
    x = row_values(y, act, ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120))
    nu = effective_count([1, 4, 1329, 48666], [1, 4, 1329, 48666], [18500, -3200, -22000, 120], [True, False, True, False])
    assert nu == pytest.approx(nu_of_rows(x), rel=1e-12)
    assert nu > 1000


def test_a_difference_carried_by_five_rows_flags_small_cell():
    # 500 positives, but A and B disagree on 1 + 4 positive rows only (and 30 + 40 negatives):
    # EV_B − EV_A rests on those rows, ν ≈ 6 (the percentile interval covers ≈ 0.925 here)
    cells = {(1, 1, 1): 300, (1, 1, 0): 1, (1, 0, 1): 4, (1, 0, 0): 195, (0, 1, 1): 100, (0, 1, 0): 30, (0, 0, 1): 40}
    cells[(0, 0, 0)] = 9330
    f = frame(cells)
    e = board(f, ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120)).small_evidence
    y = f.y.to_numpy()
    t = ValueTable(tp=18500, fp=-3200, fn=-22000, tn=120)
    d = row_values(y, f.b.to_numpy() >= 0.5, t) - row_values(y, f.a.to_numpy() >= 0.5, t)
    assert e.positives == 500.0
    assert (e.interval, e.model) == ("diff", None)
    assert e.min_expected_cell == pytest.approx(nu_of_rows(d), rel=1e-12)
    assert 5 < e.min_expected_cell < 7
    assert e.approximate and e.reasons == ("small_cell",)


def test_plenty_of_evidence_is_not_approximate():
    cells = {(1, 1, 1): 300, (1, 1, 0): 40, (1, 0, 1): 60, (1, 0, 0): 100, (0, 1, 1): 100, (0, 1, 0): 80, (0, 0, 1): 90}
    cells[(0, 0, 0)] = 9230
    e = board(frame(cells)).small_evidence
    assert e.positives == 500.0 and e.min_expected_cell >= CELL_LIMIT
    assert not e.approximate and e.reasons == ()


def test_positives_in_the_units_of_the_scheme():
    rng = np.random.default_rng(3)
    n = 900
    f = frame(TWELVE).sample(n, replace=True, random_state=1).reset_index(drop=True)
    f = f.assign(
        g=rng.integers(0, 150, n).astype(str), seg=np.where(rng.random(n) < 0.3, "small", "large"), y=(rng.random(n) < 0.1) * 1
    )
    y = f.y.to_numpy()
    mapping = dict(group="g", segments=("seg",))
    cluster = board(f, config=BoardConfig(n_resamples=20, scheme="cluster"), **mapping).small_evidence
    assert cluster.positives_basis == "groups"
    assert cluster.positives == f.loc[y == 1, "g"].nunique()  # customers with a positive row, by pandas
    strat = board(f, config=BoardConfig(n_resamples=20, scheme="stratified", strata_column="seg"), **mapping).small_evidence
    per = f[y == 1].groupby("seg").size()
    assert strat.positives_basis == "strata"
    assert (strat.stratum, strat.positives) == (per.idxmin(), float(per.min()))
    # without a bootstrap no scheme resamples anything: positive rows, as the Wilson intervals count
    rows = board(f, config=BoardConfig(n_resamples=0, scheme="cluster"), **mapping).small_evidence
    assert (rows.positives_basis, rows.positives) == ("rows", float(y.sum()))
    # the cells the ν counts do not depend on the scheme
    assert cluster.min_expected_cell == strat.min_expected_cell == rows.min_expected_cell


def test_weights_count_kish_effective_rows():
    f = frame(TWELVE).assign(w=np.tile([0.5, 1.0, 2.0, 4.0], 50))
    y, w = f.y.to_numpy(), f.w.to_numpy()
    e = board(f, weight="w").small_evidence
    wp = w[y == 1]
    assert e.positives == pytest.approx(wp.sum() ** 2 / (wp**2).sum(), rel=1e-12)  # (Σw)² / Σw²
    cells = {
        m: pd.Series(w).groupby([y, f[c].to_numpy() >= 0.5]).agg(lambda s: s.sum() ** 2 / (s**2).sum())
        for m, c in (("A", "a"), ("B", "b"))
    }
    assert e.min_confusion_cell == pytest.approx(min(float(s.min()) for s in cells.values()), rel=1e-12)
    # a scale of every weight changes nothing
    e10 = board(f.assign(w=w * 10), weight="w").small_evidence
    assert e10.positives == pytest.approx(e.positives, rel=1e-12)
    assert e10.min_expected_cell == pytest.approx(e.min_expected_cell, rel=1e-12)


def test_a_production_prevalence_counts_the_post_stratified_influence():
    # with π the EV is π·mean(x | pos) + (1−π)·mean(x | neg): a row's influence is its value minus
    # its class mean, scaled by π/p̂ or (1−π)/(1−p̂) — the same influence analytic_ev_se uses
    f = frame(TWELVE)
    t = ValueTable(tp=10, fp=-2, fn=-10, tn=0, prevalence=0.3)
    e = board(f, t).small_evidence
    y = f.y.to_numpy()
    base = y.mean()

    def nu(x):
        infl = np.where(y == 1, 0.3 / base * (x - x[y == 1].mean()), 0.7 / (1 - base) * (x - x[y == 0].mean()))
        return infl, (infl**2).sum() ** 2 / (infl**4).sum()

    xa, xb = row_values(y, f.a.to_numpy() >= 0.5, t), row_values(y, f.b.to_numpy() >= 0.5, t)
    infl_a, nu_a = nu(xa)
    assert np.sqrt((infl_a**2).sum()) / len(y) == pytest.approx(analytic_ev_se(y, f.a, t, threshold=0.5), rel=1e-12)
    nus = {("ev", "A"): nu_a, ("ev", "B"): nu(xb)[1], ("diff", None): nu(xb - xa)[1]}
    smallest = min(nus, key=nus.get)
    assert (e.interval, e.model) == smallest
    assert e.min_expected_cell == pytest.approx(nus[smallest], rel=1e-12)
    assert e.min_expected_cell != pytest.approx(board(f).small_evidence.min_expected_cell, rel=1e-3)  # π changes it


def test_one_model_and_identical_decisions():
    f = frame(TWELVE)
    preds = validate(f, ColumnMapping(label="y", scores={"A": "a"}))
    e = evaluate(preds, SIMPLE, NO_BOOT).small_evidence
    assert (e.interval, e.model) == ("ev", "A")
    assert e.min_expected_cell == pytest.approx(1238.0**2 / 118666.34, rel=1e-12)
    # B decides as A on every row: EV_B − EV_A is 0 on every resample — an interval of no width
    same = board(f.assign(b=f.a)).small_evidence
    assert (same.interval, same.min_expected_cell, same.approximate) == ("diff", 0.0, True)


def test_no_rows_of_positive_weight_is_none_and_json_is_safe():
    cells = pd.DataFrame({"score": [0.9, 0.1], "label": [1, 0], "weight": [0.0, 0.0], "weight_sq": [0.0, 0.0]})
    assert small_evidence_of_cells({"m": cells}, {"m": 0.5}, SIMPLE) is None
    assert small_evidence_of_cells({}, {}, SIMPLE) is None
    r = board(frame(TWELVE))
    d = r.to_dict()
    json.dumps(d["small_evidence"], allow_nan=False)
    assert isinstance(r.small_evidence, SmallEvidence)
    assert d["small_evidence"]["approximate"] is True
    assert {"approximate", "positives", "min_expected_cell", "positive_limit", "cell_limit", "reasons"} <= set(
        d["small_evidence"]
    )
