"""Tests of evalcore.over_time: value per window, bands, B − A, the alert line, estimates of
windows whose labels have not arrived, and the quality check."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from evalcore import InputError, ValueTable
from evalcore.data import ColumnMapping, validate
from evalcore.drift import consecutive_rule
from evalcore.over_time import (
    label_known_rows,
    label_known_until,
    time_tables,
    value_over_time,
    value_over_time_of,
)
from evalcore.results import BoardConfig

TABLE = ValueTable(tp=10, fp=-2, fn=-5, tn=0)
START = pd.Timestamp("2026-10-05")  # a Monday


def _preds(frame, scores=("a",), **kw):
    m = ColumnMapping(label="y", scores={s.upper(): s for s in scores}, time="t", **kw)
    return validate(frame, m)


def _toy():
    # day 0: A acts on 0.9 (y1: TP) and 0.8 (y0: FP), not on 0.3 (y1: FN) or 0.1 (y0: TN)
    # day 1: A acts on 0.7, 0.6 (both y1: TP), not on 0.2 (y0: TN); day 7: 0.9 (y0: FP), 0.4 (y1: FN)
    return pd.DataFrame(
        {
            "t": [START] * 4 + [START + pd.Timedelta(days=1, hours=5)] * 3 + [START + pd.Timedelta(days=7)] * 2,
            "y": [1, 0, 1, 0, 1, 1, 0, 0, 1],
            "a": [0.9, 0.8, 0.3, 0.1, 0.7, 0.6, 0.2, 0.9, 0.4],
            "b": [0.6, 0.4, 0.7, 0.2, 0.1, 0.9, 0.8, 0.3, 0.6],
        }
    )


def test_golden_daily_and_weekly_ev_by_hand():
    p = _preds(_toy(), ("a", "b"))
    cfg = BoardConfig(n_resamples=0, thresholds={"A": 0.5, "B": 0.5})
    day = value_over_time(p, TABLE, cfg, window="day")
    ws = day.windows
    assert len(ws) == 8 and ws[0].start == START and ws[-1].end == START + pd.Timedelta(days=8)
    # A, day 0: (10 - 2 - 5 + 0) / 4; day 1: (10 + 10 + 0) / 3; day 7: (-2 - 5) / 2
    assert ws[0].ev["A"] == pytest.approx(0.75)
    assert ws[1].ev["A"] == pytest.approx(20 / 3)
    assert ws[7].ev["A"] == pytest.approx(-3.5)
    # B, day 0: 0.6 y1 TP, 0.4 y0 TN, 0.7 y1 TP, 0.2 y0 TN -> 20/4; day 1: FN, TP, FP -> 3/3; day 7: TN, TP -> 10/2
    assert [ws[i].ev["B"] for i in (0, 1, 7)] == pytest.approx([5.0, 1.0, 5.0])
    assert [ws[i].diff for i in (0, 1, 7)] == pytest.approx([4.25, 1 - 20 / 3, 8.5])
    for w in ws[2:7]:  # days without rows: NaN with a reason, never 0
        assert math.isnan(w.ev["A"]) and w.n_rows == 0 and "no rows" in w.undefined["ev"]
    assert ws[0].n == 4 and ws[0].n_pos == 2 and not ws[0].estimated
    week = value_over_time(p, TABLE, cfg, window="week")
    assert len(week.windows) == 2
    # week 1: A has TP 3, FP 1, FN 1, TN 2 -> 23/7; B the same counts -> B − A = 0
    assert week.windows[0].ev["A"] == pytest.approx(23 / 7)
    assert week.windows[0].ev["B"] == pytest.approx(23 / 7)
    assert week.windows[0].diff == pytest.approx(0.0)
    d = week.to_dict()[0]
    assert d["start"] == "2026-10-05" and d["end"] == "2026-10-12" and d["n"] == 7 and d["n_pos"] == 4
    assert set(d["models"]["A"]) == {"ev", "ev_ci"} and d["estimated"] is False


def test_bands_are_the_boards_bootstrap_of_the_window():
    # one window's band equals the board's EV interval of the same rows (same design, method, seed stream)
    from evalcore.aggregate import _ev_boot, _rows_design

    p = _preds(_toy())
    cfg = BoardConfig(n_resamples=400, seed=3, thresholds={"A": 0.5})
    w = value_over_time(p, TABLE, cfg, window="week").windows[0]
    key = np.array([0, 1, 2, 3, 0, 0, 3])  # TP FP FN TN TP TP TN of week 1
    design = _rows_design(key, np.zeros(7, np.int64), np.ones(7), np.ones(7), 4, "rows")
    r = _ev_boot(design, TABLE, cfg, np.random.default_rng(np.random.SeedSequence([3, 7, 0])))
    assert (w.ev_low["A"], w.ev_high["A"]) == (r.low, r.high)
    assert w.ev_low["A"] <= w.ev["A"] <= w.ev_high["A"]


def test_stratified_and_cluster_bands_run_and_contain_the_estimate():
    rng = np.random.default_rng(0)
    n = 600
    f = pd.DataFrame(
        {
            "t": START + pd.to_timedelta(rng.integers(0, 14, n), unit="D"),
            "a": rng.random(n),
            "b": rng.random(n),
            "seg": rng.choice(["x", "y"], n),
            "cust": rng.integers(0, 80, n).astype(str),
        }
    )
    f["y"] = (rng.random(n) < f["a"]).astype(int)
    p = validate(f, ColumnMapping(label="y", scores={"A": "a", "B": "b"}, time="t", segments=("seg",), group="cust"))
    for cfg in (
        BoardConfig(n_resamples=200, scheme="stratified", strata_column="seg"),
        BoardConfig(n_resamples=200, scheme="cluster"),
    ):
        r = value_over_time(p, TABLE, cfg, window="week")
        assert r.scheme == cfg.scheme
        for w in r.windows:
            assert w.ev_low["A"] <= w.ev["A"] <= w.ev_high["A"]
            assert w.diff_low <= w.diff <= w.diff_high


def test_alert_line_and_consecutive_rule():
    # every row acted on (score 0.9), k positives of 10 per day: EV = (10k - 2(10 - k)) / 10 = 1.2k - 2
    ks = [5, 6, 5, 6, 5, 6, 5, 2, 6, 2, 2, 2]
    rows = []
    for d, k in enumerate(ks):
        rows += [(START + pd.Timedelta(days=d), 0.9, int(i < k)) for i in range(10)]
    f = pd.DataFrame(rows, columns=["t", "a", "y"])
    r = value_over_time(_preds(f), TABLE, BoardConfig(n_resamples=0), window="day")
    ev = np.array([1.2 * k - 2 for k in ks])
    assert [w.ev["A"] for w in r.windows] == pytest.approx(ev.tolist())
    ref = ev[:7]  # the drift reference window: the first 7 days
    line = ref.mean() - 2 * ref.std(ddof=1)  # numpy, independent of the module
    assert r.alert_line["A"]["line"] == pytest.approx(line) and r.alert_line["A"]["n_reference"] == 7
    below = ev < line
    assert [w.below["A"] for w in r.windows] == below.tolist()
    expected = [consecutive_rule(np.where(below[: i + 1], 2, 0), 3) for i in range(len(ks))]
    assert [w.alert["A"] for w in r.windows] == expected
    assert expected[-5:] == ["yellow", "green", "yellow", "yellow", "red"]
    # weekly windows have one reference window: no line, and the reason says so
    wk = value_over_time(_preds(f), TABLE, BoardConfig(n_resamples=0), window="week")
    assert wk.alert_line["A"]["line"] != wk.alert_line["A"]["line"]  # NaN
    assert "needs at least 2" in wk.alert_line["A"]["reason"]
    assert all(w.alert["A"] == "grey" for w in wk.windows)


def test_estimate_from_an_isotonic_map_by_hand():
    # decisions (0/1): the map is the positive rate per decision among labelled rows.
    # labelled week: decision 1 -> 3 of 4 positive (0.75), decision 0 -> 1 of 4 (0.25)
    # next week, labels not arrived: 2 rows decided 1, 2 decided 0:
    # E[TP] = 2·0.75, E[FP] = 2·0.25, E[FN] = 2·0.25, E[TN] = 2·0.75
    # EV = (10·1.5 − 2·0.5 − 5·0.5 + 0) / 4 = 2.875
    f = pd.DataFrame(
        {
            "t": [START] * 8 + [START + pd.Timedelta(days=7)] * 4,
            "a": [1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0],
            "y": [1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0],  # the last 4 labels are placeholders, never read
        }
    )
    p = validate(f, ColumnMapping(label="y", scores={"A": "a"}, score_kinds={"A": "decision"}, time="t"))
    known = label_known_until(p.time, "2026-10-11")
    assert known.tolist() == [True] * 8 + [False] * 4
    r = value_over_time(p, TABLE, BoardConfig(n_resamples=200, thresholds={"A": 0.5}), window="week", label_known=known)
    w0, w1 = r.windows
    assert not w0.estimated and w0.ev["A"] == pytest.approx((3 * 10 - 2 - 5 + 0) / 8)
    assert w1.estimated and w1.n_labelled == 0 and math.isnan(w1.n_pos)
    assert w1.ev["A"] == pytest.approx(2.875)
    assert w1.ev_low["A"] <= w1.ev["A"] <= w1.ev_high["A"]
    assert r.to_dict()[1]["estimated"] is True
    assert r.quality is not None and "checks" in r.quality


def test_estimates_never_use_the_rows_being_estimated():
    # flipping the (hidden) labels of the estimated rows changes nothing
    rng = np.random.default_rng(1)
    n = 800
    f = pd.DataFrame({"t": START + pd.to_timedelta(rng.integers(0, 21, n), unit="D"), "a": rng.beta(2, 5, n)})
    f["y"] = (rng.random(n) < f["a"]).astype(int)
    p = validate(f, ColumnMapping(label="y", scores={"A": "a"}, time="t"))
    known = label_known_until(p.time, "2026-10-18")
    cfg = BoardConfig(n_resamples=50)
    r1 = value_over_time(p, TABLE, cfg, window="week", label_known=known)
    g = f.copy()
    late = ~label_known_until(pd.to_datetime(g["t"]), "2026-10-18")
    g.loc[late, "y"] = 1 - g.loc[late, "y"]
    r2 = value_over_time(
        validate(g, ColumnMapping(label="y", scores={"A": "a"}, time="t")), TABLE, cfg, window="week", label_known=known
    )
    assert r1.to_dict() == r2.to_dict()
    assert r1.windows[-1].estimated and not r1.windows[0].estimated


def test_replicate_platt_fits_equal_the_calibration_module():
    # the Newton refit of the replicates gives fit_calibration_map's Platt map (scikit-learn's solver)
    from evalcore.calibration import fit_calibration_map
    from evalcore.over_time import _platt_newton

    rng = np.random.default_rng(4)
    s = rng.beta(2, 5, 3000)
    y = (rng.random(3000) < np.clip(1.3 * s, 0, 1)).astype(np.int64)
    w = rng.integers(1, 4, 3000).astype(float)
    ref = fit_calibration_map(y, s, method="platt", sample_weight=w)
    start = fit_calibration_map(y[:500], s[:500], method="platt")  # another start
    got = _platt_newton(y, s, w, "probability", start)
    assert got.slope == pytest.approx(ref.slope, rel=1e-6) and got.intercept == pytest.approx(ref.intercept, rel=1e-6)


def test_label_known_rows_rules_and_errors():
    f = pd.DataFrame({"t": ["2026-10-05", "2026-10-06", "2026-10-07"], "y": [1, 0, None], "k": ["yes", "1", ""]})
    m = ColumnMapping(label="y", scores={"A": "a"}, time="t")
    assert label_known_rows(f, m, "k").tolist() == [True, True, False]
    assert label_known_rows(f, m, None, "2026-10-06").tolist() == [True, True, False]
    with pytest.raises(InputError, match="not in the file"):
        label_known_rows(f, m, "nope")
    with pytest.raises(InputError, match="not yes/no"):
        label_known_rows(f.assign(k=["yes", "maybe", "no"]), m, "k")
    with pytest.raises(InputError, match="one label-known rule"):
        label_known_rows(f, m, "k", "2026-10-06")
    with pytest.raises(InputError, match="not a date"):
        label_known_until(pd.to_datetime(f["t"]), "soon")


def test_errors_and_undefined():
    p = _preds(_toy())
    with pytest.raises(InputError, match="window must be one of"):
        value_over_time(p, TABLE, BoardConfig(n_resamples=0), window="month")
    tt = time_tables(p, thresholds={"A": 0.5})
    with pytest.raises(InputError, match="cluster bands need"):
        value_over_time_of(tt, TABLE, BoardConfig(n_resamples=0, scheme="cluster"))
    with pytest.raises(InputError, match="no threshold"):
        time_tables(p, thresholds={})
    f = _toy().drop(columns="t")
    with pytest.raises(InputError, match="time column"):
        time_tables(validate(f, ColumnMapping(label="y", scores={"A": "a"})), thresholds={"A": 0.5})


# ----------------------------------------------------------------------------- slow checks


def _true_ev(a=2.0, b=5.0, t=0.5) -> float:
    """E[value per decision] for p ~ Beta(a, b), y ~ Bernoulli(p), act when p >= t (quad)."""
    pdf = stats.beta(a, b).pdf
    acted = integrate.quad(lambda p: (10 * p - 2 * (1 - p)) * pdf(p), t, 1)[0]
    passed = integrate.quad(lambda p: (-5 * p) * pdf(p), 0, t)[0]
    return acted + passed


@pytest.mark.slow
def test_per_window_band_coverage():
    # 240 daily windows of 250 calibrated rows: the 95% band covers the population EV ~95% of the time
    rng = np.random.default_rng(2026)
    n_days, per = 240, 250
    s = rng.beta(2, 5, n_days * per)
    f = pd.DataFrame(
        {
            "t": START + pd.to_timedelta(np.repeat(np.arange(n_days), per), unit="D"),
            "a": s,
            "y": (rng.random(s.size) < s).astype(int),
        }
    )
    r = value_over_time(_preds(f), TABLE, BoardConfig(n_resamples=500, thresholds={"A": 0.5}), window="day")
    mu = _true_ev()
    cover = np.mean([w.ev_low["A"] <= mu <= w.ev_high["A"] for w in r.windows])
    # binomial sd of the coverage over 240 windows at 0.95: 0.014; percentile bands run a bit short
    assert 0.90 <= cover <= 0.99


@pytest.mark.slow
def test_estimates_cover_the_realised_value():
    # calibrated scores; labels of the last 10 days hidden; over 8 seeds (80 windows) the realised
    # EV of the hidden windows lies in the estimate's interval in >= 90% of windows
    inside, total = 0, 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        n_days, per = 30, 200
        s = rng.beta(2, 5, n_days * per)
        y = (rng.random(s.size) < s).astype(int)
        day = np.repeat(np.arange(n_days), per)
        f = pd.DataFrame({"t": START + pd.to_timedelta(day, unit="D"), "a": s, "y": y})
        p = _preds(f)
        known = day < n_days - 10
        r = value_over_time(p, TABLE, BoardConfig(n_resamples=300, seed=seed), window="day", label_known=known)
        for d in range(n_days - 10, n_days):
            w = r.windows[d]
            assert w.estimated
            m = day == d
            act = s[m] >= 0.5
            yy = y[m] == 1
            realised = (10 * (act & yy).sum() - 2 * (act & ~yy).sum() - 5 * (~act & yy).sum()) / m.sum()
            inside += w.ev_low["A"] <= realised <= w.ev_high["A"]
            total += 1
    assert inside / total >= 0.90


def test_quality_check_flags_estimates_that_miss_recent_labelled_windows():
    # calibrated for 3 weeks, then the positive rate doubles for the last labelled days: the
    # check re-estimates the 3 most recent labelled days with maps fitted without them and misses
    rng = np.random.default_rng(7)
    n_days, per = 30, 300
    day = np.repeat(np.arange(n_days), per)
    s = rng.beta(2, 5, day.size)
    rate = np.where(day >= 21, np.clip(2 * s, 0, 1), s)
    f = pd.DataFrame({"t": START + pd.to_timedelta(day, unit="D"), "a": s, "y": (rng.random(day.size) < rate).astype(int)})
    known = day < 27
    r = value_over_time(_preds(f), TABLE, BoardConfig(n_resamples=200), window="day", label_known=known)
    q = r.quality
    assert [c["window"] for c in q["checks"]] == ["2026-10-29", "2026-10-30", "2026-10-31"]  # days 24-26
    assert not q["trusted"] and "fall outside" in q["reasons"][0]
    assert sum(not c["inside"] for c in q["checks"]) >= 2 and q["p_misses_by_chance"] < 0.01
    # the calibration light red is a reason of its own
    calm = value_over_time(
        _preds(f.assign(y=(rng.random(day.size) < s).astype(int))),
        TABLE,
        BoardConfig(n_resamples=200),
        window="day",
        label_known=known,
        calibration_light="red",
    )
    assert not calm.quality["trusted"] and "the calibration drift light is red" in calm.quality["reasons"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_windows_add_up_to_the_pooled_value_and_ignore_row_order(seed):
    # the row-weighted mean of the windows' EV is the pooled EV (numpy on the rows), with weights
    rng = np.random.default_rng(seed)
    n = 500
    f = pd.DataFrame(
        {
            "t": START + pd.to_timedelta(rng.integers(0, 20 * 24, n), unit="h"),
            "a": rng.random(n),
            "y": rng.integers(0, 2, n),
            "w": rng.integers(1, 5, n).astype(float),
        }
    )
    m = ColumnMapping(label="y", scores={"A": "a"}, time="t", weight="w")
    r = value_over_time(validate(f, m), TABLE, BoardConfig(n_resamples=0), window="day")
    ev = np.array([w.ev["A"] for w in r.windows])
    nw = np.array([w.n for w in r.windows])
    ok = nw > 0
    act, y, w = f["a"].to_numpy() >= 0.5, f["y"].to_numpy() == 1, f["w"].to_numpy()
    pooled = (10 * w[act & y].sum() - 2 * w[act & ~y].sum() - 5 * w[~act & y].sum()) / w.sum()
    assert np.sum(nw[ok] * ev[ok]) / nw.sum() == pytest.approx(pooled)
    shuffled = value_over_time(validate(f.sample(frac=1, random_state=seed), m), TABLE, BoardConfig(n_resamples=0), window="day")
    assert shuffled.to_dict() == r.to_dict()
