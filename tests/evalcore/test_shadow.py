"""Tests of evalcore.shadow: the gold standard, the factor gold / daily and its interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from evalcore import InputError, ValueTable
from evalcore.bootstrap import ev_interval
from evalcore.results import BoardConfig
from evalcore.shadow import daily_values, shadow_anchor

TABLE = ValueTable(tp=10, fp=-1, fn=-2, tn=0.5)


def _true_ev(t=0.5) -> float:
    """E[value per decision] for p ~ Beta(2, 5), y ~ Bernoulli(p), act iff p >= t (quad)."""
    pdf = stats.beta(2, 5).pdf
    acted = integrate.quad(lambda p: (10 * p - 1 * (1 - p)) * pdf(p), t, 1)[0]
    passed = integrate.quad(lambda p: (-2 * p + 0.5 * (1 - p)) * pdf(p), 0, t)[0]
    return acted + passed


def _case(seed, bias=1.05, n_shadow=40_000, n_days=90, se=0.05):
    rng = np.random.default_rng(seed)
    mu = _true_ev()
    s = rng.beta(2, 5, n_shadow)
    y = (rng.random(n_shadow) < s).astype(int)
    daily = mu / bias + se * rng.standard_normal(n_days)  # the daily values run 1/1.05 of the truth
    return mu, y, s, daily, np.full(n_days, 500.0), np.full(n_days, se)


def test_known_five_percent_bias_is_recovered_within_its_ci():
    mu, y, s, daily, n, se = _case(0)
    assert mu > 0.3  # a positive value per decision, so the ratio means something
    a = shadow_anchor(y, s, TABLE, threshold=0.5, daily_ev=daily, daily_n=n, daily_se=se, rng=1, label="2026-Q3")
    assert a.factor_low <= 1.05 <= a.factor_high
    assert a.factor == pytest.approx(1.05, abs=0.03)
    # the gold standard is the board's EV interval of the shadow rows; the loss is its negative
    ref = ev_interval(y, s, TABLE, threshold=0.5, n_resamples=2000, rng=np.random.default_rng(1))
    assert a.gold.estimate == pytest.approx(ref.estimate) and a.gold_loss == pytest.approx(-ref.estimate)
    # the daily mean is the row-weighted mean; rescaling multiplies by the factor
    assert a.daily == pytest.approx(daily.mean())
    assert a.rescale([1.0, 2.0]).tolist() == pytest.approx([a.factor, 2 * a.factor])
    d = a.to_dict()
    assert d["label"] == "2026-Q3" and d["factor_ci"][0] <= d["factor"] <= d["factor_ci"][1]


def test_factor_interval_coverage():
    hits = 0
    for seed in range(120):
        _, y, s, daily, n, se = _case(seed, n_shadow=8_000)
        a = shadow_anchor(y, s, TABLE, threshold=0.5, daily_ev=daily, daily_n=n, daily_se=se, n_resamples=1000, rng=seed)
        hits += a.factor_low <= 1.05 <= a.factor_high
    assert hits / 120 >= 0.90  # nominal 95%; binomial sd over 120 runs 0.02


def test_undefined_factor_and_staleness_and_errors():
    mu, y, s, _, n, se = _case(2)
    a = shadow_anchor(y, s, TABLE, threshold=0.5, daily_ev=np.zeros(90), daily_n=n, daily_se=se, rng=0)
    assert math.isnan(a.factor) and "not distinguishable from 0" in a.undefined["factor"]
    assert a.to_dict()["factor"] is None
    a = shadow_anchor(
        y, s, TABLE, threshold=0.5, daily_ev=[mu], daily_n=[10], marked_on="2026-07-01", as_of="2026-11-01", n_resamples=50
    )
    assert a.stale and a.factor_low == a.factor_low  # exact daily value: the interval is the gold's alone
    fresh = shadow_anchor(
        y, s, TABLE, threshold=0.5, daily_ev=[mu], daily_n=[10], marked_on="2026-10-01", as_of="2026-11-01", n_resamples=50
    )
    assert not fresh.stale
    with pytest.raises(InputError, match="one entry per window"):
        shadow_anchor(y, s, TABLE, threshold=0.5, daily_ev=[1.0, 2.0], daily_n=[1])
    with pytest.raises(InputError, match="no daily window"):
        shadow_anchor(y, s, TABLE, threshold=0.5, daily_ev=[], daily_n=[])
    with pytest.raises(InputError, match="as_of needs marked_on"):
        shadow_anchor(y, s, TABLE, threshold=0.5, daily_ev=[1.0], daily_n=[1], as_of="2026-11-01")


def test_daily_values_from_value_over_time():
    import pandas as pd

    from evalcore.data import ColumnMapping, validate
    from evalcore.over_time import value_over_time

    rng = np.random.default_rng(3)
    n = 2000
    f = pd.DataFrame({"t": pd.Timestamp("2026-10-05") + pd.to_timedelta(rng.integers(0, 28, n), unit="D")})
    f["a"] = rng.beta(2, 5, n)
    f["y"] = (rng.random(n) < f["a"]).astype(int)
    r = value_over_time(validate(f, ColumnMapping(label="y", scores={"A": "a"}, time="t")), TABLE, BoardConfig(n_resamples=200))
    ev, w, se = daily_values(r, "A", "2026-10-12", "2026-11-02")
    assert len(ev) == 3 and ev.tolist() == [x.ev["A"] for x in r.windows[1:]]
    z = stats.norm.ppf(0.975)
    assert se[0] == pytest.approx((r.windows[1].ev_high["A"] - r.windows[1].ev_low["A"]) / (2 * z))
    assert w.tolist() == [x.n for x in r.windows[1:]]
