"""The deterministic demo datasets the app ships: a loan anti-fraud validation set, twice.

About 50,000 applications over 28 days, ~2% fraud. ``score_old`` and ``score_new`` are
two models' probabilities: the new one ranks better but is mildly over-confident.
Segments: customer type, amount band, night application. ``customer_id`` repeats
(customers have correlated outcomes: use the cluster bootstrap). Eight numeric and two
categorical features. With ``drift=True`` (the default) the last 7 days drift
(debt_ratio, device_risk and the channel mix) and fraud prevalence steps up on one date.

The two stories (:data:`DEMOS`), the same models on the same kind of applications:

- **Demo 1, the stable weeks** (``drift=False``): nothing drifts, and the new model earns
  significantly more per decision than the old one at the deployed thresholds (0.5 each): the
  board says *roll out* (``tests/board/test_demo.py`` evaluates it). The app opens it.
- **Demo 2, the drifting last week** (``drift=True``): the new model wins on these rows too, but
  every drift light is red, so the board says *hold*.

Same seed, same bytes: :func:`demo_csv_bytes` is what the app stores
(:func:`board.services.evaluation.ensure_demo`).
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

START = pd.Timestamp("2026-10-05")
N_DAYS = 28
DRIFT_FROM_DAY = 21  # the last 7 days
PREVALENCE_STEP_DAY = 18  # 2026-10-23


@dataclass(frozen=True, slots=True)
class DemoSet:
    """One stored demo dataset: its key, the name the dataset list shows, its file name, and
    whether its last week drifts."""

    key: str
    name: str
    filename: str
    drift: bool


STABLE = DemoSet("stable", "Demo 1: stable weeks — new model wins (roll out)", "demo_loan_antifraud_stable.csv", False)
DRIFTING = DemoSet("drifting", "Demo 2: drifting last week — hold", "demo_loan_antifraud.csv", True)
# the order ensure_demo stores them in: the last is the newest demo, which the app opens by default
# (the sidebar opens the newest dataset uploaded by "evalboard demo"); on a fresh store the
# drifting week is dataset 1 and the stable weeks dataset 2
DEMOS = (DRIFTING, STABLE)
DEFAULT_DEMO = STABLE.key
DEMO_FILENAME = DRIFTING.filename  # the file of demo_csv_bytes() (the drifting week)
OLD_DEMO_NAME = "Demo: loan anti-fraud (validation, Oct 2026)"  # the drifting week, as earlier versions stored it
DEMO_VALUE_TABLE = {
    "name": "loan anti-fraud",
    "tp": 18500.0,
    "fp": -3200.0,
    "fn": -22000.0,
    "tn": 120.0,
    "unit": "EUR",
    "descriptions": {
        "tp": "fraud loss avoided",
        "fp": "complaint cost, lost customer value",
        "fn": "fraud loss",
        "tn": "review cost saved",
    },
    "sources": {
        "tp": "average written-off loan 2025",
        "fp": "customer-care survey 2025",
        "fn": "average written-off loan 2025 + recovery cost",
        "tn": "operations budget",
    },
}


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def demo_frame(seed: int = 0, *, drift: bool = True, n: int = 50_000) -> pd.DataFrame:
    """Generate the demo validation set (deterministic for a given seed)."""
    rng = np.random.default_rng(seed)
    n_customers = int(n * 0.6)
    cust_new = rng.random(n_customers) < 0.35
    cust_effect = rng.normal(0.0, 0.8, n_customers)  # shared by a customer's applications
    # repeat applications: some customers apply much more often than others (no single giant customer)
    activity = rng.lognormal(0.0, 1.0, n_customers)
    cust = rng.choice(n_customers, n, p=activity / activity.sum())
    day = rng.integers(0, N_DAYS, n)
    hour = rng.choice(24, n, p=_hour_profile())
    minute = rng.integers(0, 60, n)
    t = START + pd.to_timedelta(day, unit="D") + pd.to_timedelta(hour, unit="h") + pd.to_timedelta(minute, unit="m")
    late = (day >= DRIFT_FROM_DAY) if drift else np.zeros(n, bool)

    new = cust_new[cust]
    night = hour < 6
    amount = np.round(np.exp(rng.normal(8.0, 1.1, n)), 2)
    income = np.round(np.exp(rng.normal(10.6, 0.5, n)), 0)
    debt_ratio = np.where(late, rng.beta(3.2, 5.0, n), rng.beta(2.0, 5.0, n))
    age = np.clip(np.round(rng.normal(41, 12, n)), 18, 85)
    account_age_days = np.where(new, rng.integers(0, 60, n), rng.integers(60, 4000, n))
    n_prev = rng.poisson(np.where(new, 0.2, 2.5))
    device_risk = np.where(late, rng.beta(2.2, 6.0, n), rng.beta(1.5, 8.0, n))
    velocity = rng.poisson(0.6 + 1.5 * night)
    channel_p = np.where(late[:, None], [0.68, 0.27, 0.05], [0.5, 0.4, 0.1])
    u = rng.random(n)
    channel = np.where(u < channel_p[:, 0], "app", np.where(u < channel_p[:, 0] + channel_p[:, 1], "web", "branch"))
    region = rng.choice(["north", "south", "east", "west"], n, p=[0.3, 0.3, 0.2, 0.2])

    # the true risk: what a perfect model would know
    eta = (
        -5.75
        + 1.1 * new
        + 0.9 * night
        + 0.35 * np.log1p(amount / 1000)
        + 3.0 * (device_risk - 0.16)
        + 1.5 * (debt_ratio - 0.29)
        + 0.35 * velocity
        - 0.25 * np.log1p(n_prev)
        + cust_effect[cust]
    )
    step = (day >= PREVALENCE_STEP_DAY) if drift else np.zeros(n, bool)
    y = (rng.random(n) < _sigmoid(eta + 0.55 * step)).astype(np.int8)

    # what each model sees: the old one is noisier; the new one ranks better but is over-confident
    eta_old = eta - cust_effect[cust] + rng.normal(0, 1.35, n)
    eta_new = eta - 0.5 * cust_effect[cust] + rng.normal(0, 0.75, n)
    score_old = _sigmoid(0.72 * eta_old - 0.95)
    score_new = _sigmoid(1.35 * (eta_new + 4.0) - 4.0 - 0.2)

    amount_band = np.where(amount < 1000, "<1k", np.where(amount < 10000, "1k-10k", ">10k"))
    frame = pd.DataFrame(
        {
            "application_id": np.arange(1, n + 1),
            "application_time": t,
            "customer_id": np.char.add("C", (cust + 100000).astype(str)),
            "is_fraud": y,
            "score_old": np.round(score_old, 6),
            "score_new": np.round(score_new, 6),
            "customer_type": np.where(new, "new", "returning"),
            "amount_band": amount_band,
            "night_application": np.where(night, "yes", "no"),
            "amount": amount,
            "income": income,
            "debt_ratio": np.round(debt_ratio, 4),
            "age": age.astype(np.int64),
            "account_age_days": account_age_days.astype(np.int64),
            "n_prev_applications": n_prev.astype(np.int64),
            "device_risk": np.round(device_risk, 4),
            "velocity_24h": velocity.astype(np.int64),
            "channel": channel,
            "region": region,
        }
    )
    return (
        frame.sort_values("application_time", kind="stable")
        .reset_index(drop=True)
        .assign(application_id=lambda f: np.arange(1, len(f) + 1))
    )


def _hour_profile() -> np.ndarray:
    p = np.array([1, 0.7, 0.5, 0.4, 0.4, 0.6, 1.2, 2.5, 4, 5, 5.5, 5.5, 5, 5.2, 5.4, 5.3, 5.2, 5, 4.8, 4.5, 4, 3.2, 2.4, 1.6])
    return p / p.sum()


DEMO_MAPPING = {
    "label": "is_fraud",
    "scores": {"old": "score_old", "new": "score_new"},
    "score_kinds": {"old": "probability", "new": "probability"},
    "positive": "1",
    "segments": ["customer_type", "amount_band", "night_application"],
    "time": "application_time",
    "group": "customer_id",
    "features": [
        "amount",
        "income",
        "debt_ratio",
        "age",
        "account_age_days",
        "n_prev_applications",
        "device_risk",
        "velocity_24h",
        "channel",
        "region",
    ],
    "weight": None,
}


@functools.lru_cache(maxsize=4)
def demo_csv_bytes(seed: int = 0, *, drift: bool = True) -> bytes:
    """The demo set as CSV bytes (identical for the same seed and ``drift``): the drifting week
    by default, ``drift=False`` the stable weeks. Kept per process (every app start and many
    tests ask for them; bytes are immutable)."""
    buf = io.StringIO()
    demo_frame(seed, drift=drift).to_csv(buf, index=False, date_format="%Y-%m-%d %H:%M:%S")
    return buf.getvalue().encode("utf-8")
