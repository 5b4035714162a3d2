"""Write the golden board JSONs that pin today's behaviour (issue 20: one evaluation path).

Run from the repository root: ``python tests/golden/make_golden.py``. It (re)writes the
scikit-learn-based validation sets (``*.csv``: predictions of two models fitted on a
training half, scored on the other half) and one ``<case>.json`` per CLI run in
:data:`CASES`. ``tests/board/test_golden.py`` runs the same CLI calls and requires the
same numbers. Regenerate only for a deliberate change of behaviour, and say so in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
TABLE = ["--tp", "18500", "--fp", "-3200", "--fn", "-22000", "--tn", "120", "--unit", "EUR"]
DEMO = [
    "--label",
    "is_fraud",
    "--score",
    "old=score_old",
    "--score",
    "new=score_new",
    "--segment",
    "customer_type",
    "--segment",
    "amount_band",
    "--time",
    "application_time",
    "--feature",
    "debt_ratio",
    "--feature",
    "device_risk",
    "--feature",
    "channel",
]
SK = ["--label", "y", "--score", "logit=p_logit", "--score", "bayes=p_bayes", "--segment", "size"]
B = ["--n-resamples", "200", "--seed", "7"]

# case name -> (data file, CLI arguments after --predictions)
CASES = {
    "demo_rows": ("demo.csv", [*DEMO, *TABLE, *B]),
    "demo_cluster": ("demo.csv", [*DEMO, "--group", "customer_id", *TABLE, *B]),
    "demo_stratified": ("demo.csv", [*DEMO, "--scheme", "stratified", "--strata", "customer_type", *TABLE, *B]),
    "demo_one_model": (
        "demo.csv",
        [
            "--label",
            "is_fraud",
            "--score",
            "new=score_new",
            "--segment",
            "night_application",
            *TABLE,
            *B,
            "--threshold",
            "new=0.3",
        ],
    ),
    "cancer_rows": ("cancer.csv", [*SK, "--time", "day", "--feature", "f0", *TABLE, *B]),
    "cancer_cluster": ("cancer.csv", [*SK, "--group", "customer", *TABLE, *B, "--method", "bca"]),
    "cancer_weighted": ("cancer.csv", [*SK, "--weight", "w", *TABLE, *B]),
    "digits_rows": ("digits.csv", [*SK, *TABLE, *B]),
    "digits_stratified": ("digits.csv", [*SK, "--scheme", "stratified", "--strata", "size", *TABLE, *B]),
}


def _validation_set(X, y, seed: int) -> pd.DataFrame:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.5, random_state=seed, stratify=y)
    logit = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X_tr, y_tr)
    bayes = GaussianNB().fit(X_tr, y_tr)
    n = len(y_va)
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "y": y_va.astype(int),
            # rounded to 6 decimals, as a scoring system would write them: ties occur
            "p_logit": np.round(logit.predict_proba(X_va)[:, 1], 6),
            "p_bayes": np.round(bayes.predict_proba(X_va)[:, 1], 6),
            "size": np.where(X_va[:, 0] > np.median(X_va[:, 0]), "large", "small"),
            "day": pd.Timestamp("2026-01-01") + pd.to_timedelta(np.arange(n) * 28 // n, unit="D"),
            "customer": [f"c{i // 3}" for i in rng.permutation(n)],
            "w": rng.choice([0.5, 1.0, 2.0], n),
            "f0": X_va[:, 0],
        }
    )


def write_data() -> None:
    from sklearn.datasets import load_breast_cancer, load_digits

    X, y = load_breast_cancer(return_X_y=True)
    _validation_set(X, 1 - y, 0).to_csv(HERE / "cancer.csv", index=False)  # positive = malignant
    X, y = load_digits(return_X_y=True)
    _validation_set(X, (y == 9).astype(int), 1).to_csv(HERE / "digits.csv", index=False)


def data_path(data: str, scratch: Path) -> Path:
    """The shipped CSV, or the demo written to ``scratch`` (deterministic, too large to ship)."""
    if data != "demo.csv":
        return HERE / data
    from board.services import demo

    path = scratch / data
    if not path.exists():
        path.write_bytes(demo.demo_csv_bytes())
    return path


def run_case(name: str, out: Path, scratch: Path) -> dict:
    from board.cli import main

    data, args = CASES[name]
    code = main(["evaluate", "--predictions", str(data_path(data, scratch)), *args, "--json", str(out)])
    assert code == 0, f"{name}: exit {code}"
    return json.loads(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    import tempfile

    write_data()
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            run_case(case, HERE / f"{case}.json", Path(tmp))
        print("wrote", case)
