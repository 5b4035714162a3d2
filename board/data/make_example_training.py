"""Build ``example_training.csv``: the bundled training table of the Stability and Data conditions pages.

The Wisconsin breast cancer table shipped with scikit-learn (569 rows, 30 numeric features), with
the target renamed ``malignant`` (1 = malignant, the positive class; scikit-learn codes it 0) and
the features rounded to 4 significant digits (the file stays ~100 KB). Deterministic: running it
again gives the same bytes.

    python board/data/make_example_training.py
"""

from pathlib import Path

from sklearn.datasets import load_breast_cancer

OUT = Path(__file__).with_name("example_training.csv")


def build():
    frame = load_breast_cancer(as_frame=True).frame
    frame.columns = [c.replace(" ", "_") for c in frame.columns]
    frame["malignant"] = 1 - frame.pop("target")
    return frame


if __name__ == "__main__":
    build().to_csv(OUT, index=False, float_format="%.4g")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KB)")
