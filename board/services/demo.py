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

- **Demo 3, 中文演示** (:data:`CHINESE`): the stable weeks again, with Chinese column names and
  segment names (是否欺诈 是/否, 现行模型 and 候选模型, 渠道 线上/线下/代理, 申请日期), in GBK as
  Chinese lenders' files arrive, bound to its own value table in CNY (元, :data:`ZH_VALUE_TABLE`,
  Demo 1's amounts × 7, so its verdict is Demo 1's). Stored by :func:`ensure_chinese` under the
  uploader :data:`ZH_UPLOADER`, so the app still opens Demo 1.

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


# --------------------------------------------------------------------------- the Chinese demo

CHINESE = DemoSet("zh", "演示 3：稳定的四周 —— 候选模型胜出（中文）", "demo_loan_antifraud_zh.csv", False)
ZH_UPLOADER = "evalboard demo (中文)"  # not "evalboard demo": the sidebar opens the newest of those, Demo 1
ZH_ENCODING = "gbk"
#: Demo 1's columns as the Chinese demo names them, and its values as the Chinese demo spells them.
ZH_COLUMNS = {
    "application_id": "申请编号",
    "application_time": "申请日期",
    "customer_id": "客户编号",
    "is_fraud": "是否欺诈",
    "score_old": "现行模型",
    "score_new": "候选模型",
    "customer_type": "客户类型",
    "amount_band": "金额区间",
    "night_application": "夜间申请",
    "channel": "渠道",
    "region": "地区",
    "amount": "申请金额",
    "income": "年收入",
    "debt_ratio": "负债率",
    "age": "年龄",
    "account_age_days": "账户天数",
    "n_prev_applications": "历史申请次数",
    "device_risk": "设备风险",
    "velocity_24h": "近24小时申请数",
}
ZH_VALUES = {
    "is_fraud": {1: "是", 0: "否"},
    "customer_type": {"new": "新客户", "returning": "老客户"},
    "amount_band": {"<1k": "1千元以下", "1k-10k": "1千至1万元", ">10k": "1万元以上"},
    "night_application": {"yes": "是", "no": "否"},
    "channel": {"app": "线上", "web": "代理", "branch": "线下"},
    "region": {"north": "华北", "south": "华南", "east": "华东", "west": "西部"},
}
ZH_MAPPING = {
    "label": "是否欺诈",
    "scores": {"现行模型": "现行模型", "候选模型": "候选模型"},
    "score_kinds": {"现行模型": "probability", "候选模型": "probability"},
    "positive": "是",
    "segments": ["客户类型", "金额区间", "夜间申请", "渠道"],
    "time": "申请日期",
    "group": "客户编号",
    "features": ["申请金额", "年收入", "负债率", "年龄", "账户天数", "历史申请次数", "设备风险", "近24小时申请数", "地区"],
    "weight": None,
}
_CNY = 7  # yuan per euro of Demo 1's amounts: scaling every amount keeps the optimum and the ranking
ZH_VALUE_TABLE = {
    "name": "贷款反欺诈",
    **{k: DEMO_VALUE_TABLE[k] * _CNY for k in ("tp", "fp", "fn", "tn")},
    "unit": "元",
    "descriptions": {"tp": "避免的欺诈损失", "fp": "投诉成本与流失的客户价值", "fn": "欺诈损失", "tn": "节省的审核成本"},
    "sources": {
        "tp": "2025年平均核销贷款",
        "fp": "2025年客服调查",
        "fn": "2025年平均核销贷款 + 追收成本",
        "tn": "运营预算",
    },
}


def demo_frame_zh(seed: int = 0, *, n: int = 50_000) -> pd.DataFrame:
    """The Chinese demo: the stable weeks (:func:`demo_frame` with ``drift=False``, the same rows
    and scores), its columns renamed by :data:`ZH_COLUMNS`, its categories spelled by
    :data:`ZH_VALUES`, and the application time kept as its date."""
    frame = demo_frame(seed, drift=False, n=n)
    for col, spelled in ZH_VALUES.items():
        frame[col] = frame[col].map(spelled)
    frame["application_time"] = frame["application_time"].dt.strftime("%Y-%m-%d")
    return frame.rename(columns=ZH_COLUMNS)


@functools.lru_cache(maxsize=2)
def demo_zh_csv_bytes(seed: int = 0) -> bytes:
    """The Chinese demo as GBK-encoded CSV bytes (identical for the same seed)."""
    return demo_frame_zh(seed).to_csv(index=False).encode(ZH_ENCODING)


@functools.lru_cache(maxsize=2)
def demo_report(drift: bool = True) -> tuple[dict, int]:
    """(validation report, rows) of demo ``drift`` (validated once per process: every fresh store
    asks; :func:`board.services.evaluation.ensure_demo` copies the report before storing it)."""
    from evalcore.data import ColumnMapping, read_table, validate

    name = next(d.filename for d in DEMOS if d.drift == drift)
    preds = validate(read_table(demo_csv_bytes(drift=drift), name), ColumnMapping.from_dict(DEMO_MAPPING))
    return preds.summary(), preds.n_rows


@functools.lru_cache(maxsize=1)
def _zh_report() -> dict:
    """The Chinese demo's validation report (validated once per process: every fresh store asks)."""
    from evalcore.data import ColumnMapping, read_table, validate

    return validate(read_table(demo_zh_csv_bytes(), CHINESE.filename), ColumnMapping.from_dict(ZH_MAPPING)).summary()


def ensure_chinese(store):
    """Store the Chinese demo and its value table once; return the dataset's record.

    Idempotent: the dataset is found by the SHA-256 of its bytes. When it is first stored, the
    value table :data:`ZH_VALUE_TABLE` is saved as a draft unless a table of that name exists
    already, and the dataset is bound to it (both are the demo's setup: no user, no audit entry,
    as for the other demos).
    """
    import hashlib

    raw = demo_zh_csv_bytes()
    rec = store.find_dataset_by_sha(hashlib.sha256(raw).hexdigest())
    if rec is not None:
        return rec
    report = dict(_zh_report())
    rec = store.save_dataset(
        name=CHINESE.name,
        filename=CHINESE.filename,
        raw=raw,
        mapping=ZH_MAPPING,
        report=report,
        n_rows=report["rows"],
        uploader=ZH_UPLOADER,
    )
    name = ZH_VALUE_TABLE["name"]
    if not store.list_value_table_versions(name):
        store.save_value_table_draft(name, dict(ZH_VALUE_TABLE), author="evalboard demo", reason="演示金额（人民币元）")
    store.set_dataset_value_table(rec.id, name)
    return rec
