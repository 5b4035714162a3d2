"""evalcore.normalized: factors, SNR, both normalized scores, end to end per task type, the
learning-curve experiment (SPEC §3.8)."""

import math

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score, calinski_harabasz_score, mean_absolute_percentage_error, normalized_mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from evalcore import InputError
from evalcore.normalized import (
    acir,
    cluster_score,
    imbalance_factor,
    imbalance_ratio,
    learning_curve,
    normalized_score,
    size_factor,
    snr_binary,
    snr_bonus,
    snr_multiclass,
    snr_regression,
    task_score,
)
from evalcore.stability import prepare_training


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


# --------------------------------------------------------------------------------------
# SPEC §3.8 worked examples
# --------------------------------------------------------------------------------------


def test_spec_example_scarce_balanced():
    s = normalized_score(0.8, n=100, d=50, class_counts={0: 50, 1: 50})
    f = 1 + (_sigmoid(20 * 50 / 100 - 1) - 0.5)  # sigmoid(9) − 0.5 > 0
    assert s.f == pytest.approx(f, abs=1e-9) and round(s.f, 5) == 1.49988
    assert s.g == 1.0 and s.r == 1.0  # balanced: ln 1 = 0
    assert s.score == pytest.approx(0.8 * f, abs=1e-9) and round(s.score, 2) == 1.20


def test_spec_example_plenty_of_data():
    s = normalized_score(0.8, n=10_000, d=50, class_counts={0: 5000, 1: 5000})
    assert _sigmoid(20 * 50 / 10_000 - 1) < 0.5  # sigmoid(−0.9): no reward
    assert s.f == 1.0 and s.score == pytest.approx(0.8, abs=1e-9)


def test_spec_example_imbalanced():
    s = normalized_score(0.9, n=10_000, d=50, class_counts={0: 9000, 1: 1000})
    g = 1 / (1 + math.log(9000 / 1000))
    assert s.r == pytest.approx(9.0) and s.g == pytest.approx(g, abs=1e-9)
    assert s.score == pytest.approx(0.9 * g, abs=1e-9) and round(s.score, 4) == 0.2815


def test_f_is_one_from_n_equals_20d():
    assert size_factor(1000, 50) == 1.0  # sigmoid(0) − 0.5 = 0
    assert size_factor(999, 50) > 1.0
    assert size_factor(1, 10_000) == pytest.approx(1.5)  # the reward is capped at 1.5


# --------------------------------------------------------------------------------------
# imbalance, ACIR
# --------------------------------------------------------------------------------------


def test_three_class_imbalance_by_hand():
    counts = {"a": 50, "b": 30, "c": 20}
    # ACIR = mean(50/50, 30/50, 20/50) = (1 + 0.6 + 0.4)/3 = 2/3; r = 1/ACIR = 1.5
    assert acir(counts) == pytest.approx(2 / 3)
    assert imbalance_ratio(counts) == pytest.approx(1.5)
    assert imbalance_factor(counts) == pytest.approx(1 / (1 + math.log(1.5)))
    s = normalized_score(0.7, n=100_000, d=5, class_counts=counts, snr_db=12.0)
    # robust: 0.7 · 1 · (1 + m(12)) / (1 + ln 1.5), m(12) = 0.125 + 0.125·2/5 = 0.175
    assert s.m == pytest.approx(0.175)
    assert s.robust == pytest.approx(0.7 * 1.175 / (1 + math.log(1.5)))
    assert s.acir == pytest.approx(2 / 3) and s.minority_share == pytest.approx(0.2)


def test_two_classes_use_the_major_minor_ratio_and_regression_has_none():
    assert imbalance_ratio([300, 100]) == 3.0
    assert imbalance_ratio(None) == 1.0 and imbalance_ratio([7]) == 1.0
    with pytest.raises(InputError, match="positive counts"):
        imbalance_ratio([10, 0])


# --------------------------------------------------------------------------------------
# the SNR bonus and the SNRs
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "snr, m",
    [
        (-20, 0.0),
        (0, 0.0),
        (5, 0.0625),
        (10, 0.125),
        (12.5, 0.1875),
        (15, 0.25),
        (20, 0.3125),
        (25, 0.375),
        (32.5, 0.4375),
        (40, 0.5),
        (1e6, 0.5),
        (math.inf, 0.5),
        (-math.inf, 0.0),
    ],
)
def test_snr_bonus_at_band_edges_and_midpoints(snr, m):
    assert snr_bonus(snr) == pytest.approx(m, abs=1e-12)


@pytest.mark.parametrize("edge, m", [(10, 0.125), (15, 0.25), (25, 0.375), (40, 0.5)])
def test_snr_bonus_is_continuous_at_each_edge(edge, m):
    assert snr_bonus(edge - 1e-9) == pytest.approx(m, abs=1e-9)


def test_zero_noise_gives_the_top_band_never_an_error():
    assert snr_binary([1, 0, 1], [1.0, 0.0, 1.0]) == math.inf
    assert snr_regression([1.0, 2.0], [1.0, 2.0]) == math.inf
    assert snr_multiclass([0, 1, 2], np.eye(3), labels=[0, 1, 2]) == math.inf
    s = normalized_score(0.9, n=10_000, d=5, class_counts=[5000, 5000], snr_db=math.inf)
    assert s.m == 0.5 and s.robust == 1.0 and s.capped  # 0.9 · 1.5 > 1 -> capped


def test_snr_multiclass_by_hand():
    y = np.array([0, 1, 2, 2])
    P = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7], [0.5, 0.3, 0.2]])
    # argmax predictions 0, 1, 2, 0 -> M_00 = 1, M_11 = 1, M_22 = 1 -> Σ M_ii² = 3
    # ‖p − onehot‖²: 0.04+0.01+0.01, 0.04+0.09+0.01, 0.01+0.04+0.09, 0.25+0.09+0.64 -> 0.06+0.14+0.14+0.98 = 1.32
    assert snr_multiclass(y, P, labels=[0, 1, 2]) == pytest.approx(10 * math.log10(3 / 1.32))


def test_snr_regression_by_hand():
    # Σy² = 1 + 4 + 9 = 14; Σe² = 0.01 + 0.04 + 0 = 0.05
    assert snr_regression([1, 2, 3], [1.1, 1.8, 3.0]) == pytest.approx(10 * math.log10(14 / 0.05))


# --------------------------------------------------------------------------------------
# end to end, one case per task type (references fitted here with scikit-learn)
# --------------------------------------------------------------------------------------


def test_binary_end_to_end_on_breast_cancer():
    frame = load_breast_cancer(as_frame=True).frame
    data = prepare_training(frame, "target")
    ts = task_score(data, model="logistic_regression", seed=0)
    X, y = frame.drop(columns="target").to_numpy(), frame["target"].to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(Xtr, ytr)
    p = est.predict_proba(Xte)[:, 1]
    s = ts.score
    assert s.metric == pytest.approx(accuracy_score(yte, est.predict(Xte)))
    assert (s.n, s.d) == (len(ytr), 30) and s.class_counts == {0: int(np.sum(ytr == 0)), 1: int(np.sum(ytr == 1))}
    r = np.sum(ytr == 1) / np.sum(ytr == 0)
    f = 1 + max(0.0, _sigmoid(20 * 30 / len(ytr) - 1) - 0.5)
    assert s.score == pytest.approx(s.metric * f / (1 + math.log(r)))
    pred = (p >= 0.5).astype(int)
    p_pred = np.where(pred == 1, p, 1 - p)
    assert s.snr_db == pytest.approx(10 * math.log10(np.sum(pred == yte) / np.sum((1 - p_pred) ** 2)))
    assert ts.n_test == len(yte)


def test_multiclass_end_to_end_on_wine():
    frame = load_wine(as_frame=True).frame
    data = prepare_training(frame, "target")
    ts = task_score(data, model="logistic_regression", metric="accuracy", seed=1)
    X, y = frame.drop(columns="target").to_numpy(), frame["target"].to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=1, stratify=y)
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(Xtr, ytr)
    s = ts.score
    assert s.metric == pytest.approx(accuracy_score(yte, est.predict(Xte)))
    counts = np.bincount(ytr)
    a = np.mean(counts / counts.max())
    assert s.acir == pytest.approx(a) and s.r == pytest.approx(1 / a)
    assert s.score == pytest.approx(s.metric * s.f / (1 + math.log(1 / a)))
    assert s.robust == pytest.approx(min(1.0, s.metric * s.f * (1 + snr_bonus(s.snr_db)) / (1 + math.log(1 / a))))


def test_regression_end_to_end_on_diabetes():
    frame = load_diabetes(as_frame=True, scaled=False).frame
    data = prepare_training(frame, "target")
    assert data.task == "regression"
    ts = task_score(data, model="ridge", seed=2)
    X, y = frame.drop(columns="target").to_numpy(), frame["target"].to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=2)
    pred = make_pipeline(StandardScaler(), Ridge()).fit(Xtr, ytr).predict(Xte)
    s = ts.score
    assert s.metric == pytest.approx(1 - mean_absolute_percentage_error(yte, pred))
    assert s.g == 1.0 and s.class_counts == {}
    assert s.snr_db == pytest.approx(10 * math.log10(np.sum(yte**2) / np.sum((pred - yte) ** 2)))
    assert s.robust == pytest.approx(min(1.0, s.metric * s.f * (1 + snr_bonus(s.snr_db))))


def test_clustering_end_to_end_on_wine():
    frame = load_wine(as_frame=True).frame
    data = prepare_training(frame, "target", task="multiclass")
    ts = cluster_score(data, k=3, seed=0)
    Z = StandardScaler().fit_transform(frame.drop(columns="target").to_numpy())
    lab = KMeans(n_clusters=3, n_init=10, random_state=0).fit_predict(Z)
    s = ts.score
    assert s.metric == pytest.approx(normalized_mutual_info_score(frame["target"], lab))
    assert sorted(ts.cluster_sizes.values()) == sorted(np.bincount(lab).tolist())
    # SS_between / SS_within from the Calinski–Harabasz index: CH = (B/(k−1)) / (W/(n−k))
    n, k = len(lab), 3
    ratio = calinski_harabasz_score(Z, lab) * (k - 1) / (n - k)
    assert s.snr_db == pytest.approx(10 * math.log10(ratio))
    sizes = np.bincount(lab)
    assert s.r == pytest.approx(1 / np.mean(sizes / sizes.max()))
    assert (s.n, s.d) == (178, 13)


def test_task_score_validates():
    data = prepare_training(load_wine(as_frame=True).frame, "target")
    with pytest.raises(InputError) as e:
        task_score(data, model="ridge", metric="one_minus_mape", test_size=1.5)
    assert {p.code for p in e.value.problems} == {"model_invalid", "metric_invalid", "test_size_invalid"}
    with pytest.raises(InputError, match="k must be"):
        cluster_score(data, k=1)


# --------------------------------------------------------------------------------------
# the learning-curve experiment
# --------------------------------------------------------------------------------------


def test_learning_curve_shapes_mad_and_cancel():
    data = prepare_training(load_breast_cancer(as_frame=True).frame, "target")
    lc = learning_curve(data, sizes=[40, 120, 420], n_repeats=2, seed=0)
    assert lc.values["raw"].shape == (2, 3) and np.isfinite(lc.values["raw"]).all()
    assert lc.boundary == 600  # 20·d: every size is before it
    x = lc.values["normalized"].ravel()
    assert lc.mad["normalized"]["before"] == pytest.approx(np.mean(np.abs(x - x.mean())))
    assert math.isnan(lc.mad["raw"]["after"])  # no size from 20·d on
    # normalized = raw · f(N, d) · g with the subset's N and class counts
    g_f = lc.values["normalized"] / lc.values["raw"]
    assert g_f[:, 0] == pytest.approx(g_f[0, 0]) and g_f[0, 0] > g_f[0, 2]  # more reward at N = 40 than at 420
    assert lc.verdict.startswith("On this data") and set(lc.steadier) == {"normalized", "robust"}
    assert lc.to_dict()["mad"]["raw"]["after"] is None
    calls = []
    part = learning_curve(
        data, sizes=[40, 120], n_repeats=3, progress=lambda d, t, _: calls.append(d), should_stop=lambda: len(calls) >= 2
    )
    assert part.status == "cancelled" and np.isfinite(part.values["raw"]).sum() == 2


def test_learning_curve_for_clustering_and_regression():
    wine = prepare_training(load_wine(as_frame=True).frame, "target")
    lc = learning_curve(wine, k=3, sizes=[60, 178], n_repeats=1)
    assert lc.task == "clustering" and np.isfinite(lc.values["raw"]).all()
    diab = prepare_training(load_diabetes(as_frame=True, scaled=False).frame, "target")
    lc = learning_curve(diab, model="ridge", sizes=[50, 300], n_repeats=2)
    assert lc.metric == "one_minus_mape" and lc.boundary == 200
    assert np.isfinite(lc.mad["raw"]["all"])
