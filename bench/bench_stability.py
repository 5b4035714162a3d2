"""Wall time of 5 × 10 repeated CV on a 50k-row table per model, and of the learning-curve experiment.

A script, not a test (timings never assert). The table is synthetic: scikit-learn's
make_classification with 50,000 rows, 20 features (8 informative), 20% positives.

    .venv/bin/python bench/bench_stability.py [--rows 50000] [--repeats 10]
"""

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

import argparse
import time

import pandas as pd
from sklearn.datasets import make_classification

from evalcore.normalized import learning_curve
from evalcore.stability import CLASSIFIERS, prepare_training, repeated_cv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--models", nargs="*", default=list(CLASSIFIERS))
    args = ap.parse_args()
    X, y = make_classification(n_samples=args.rows, n_features=20, n_informative=8, weights=[0.8], random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(20)]).assign(y=y)
    data = prepare_training(frame, "y")
    print(f"table: {data.n:,} rows × {data.d} features; 5 folds × {args.repeats} repeats")
    for m in args.models:
        t0 = time.perf_counter()
        r = repeated_cv(data, model=m, n_splits=5, n_repeats=args.repeats, seed=0)
        dt = time.perf_counter() - t0
        s = r.summary()
        print(f"{m:24s} {dt:8.1f} s  ({dt / r.n_done:.2f} s per fit)  accuracy {s.mean:.4f} ± std {s.std:.4f}")
    t0 = time.perf_counter()
    lc = learning_curve(data, model="logistic_regression", n_repeats=5, seed=0)
    print(
        f"learning curve (logistic regression, {lc.sizes.size} sizes {lc.sizes.min()}–{lc.sizes.max():,}, 5 repeats): "
        f"{time.perf_counter() - t0:.1f} s — {lc.verdict}"
    )


if __name__ == "__main__":
    main()
