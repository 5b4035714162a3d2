"""AppTest of the Calibration page: it renders on the demo data, and the numbers it shows are
the ones evalcore computes (independently recomputed here) for the chosen options."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from board import services
from board.app import ui
from board.services import demo
from board.store import Store
from board.words import fmt
from evalcore import ValueTable, cross_fit_calibration, reliability, segment_calibration, value_curve
from evalcore.data import ColumnMapping, read_table, validate

PAGE = "views/calibration.py"
SEED = 0  # the page's seed (views/calibration.py: SEED) for the bootstrap and the fold shuffle
N_FOLDS = 5  # the page's N_FOLDS


@pytest.fixture(scope="module")
def demo_yp():
    f = demo.demo_frame()
    return f.is_fraud.to_numpy(), f.score_new.to_numpy()


def _model_column(at, heading):
    """The page column headed exactly ``heading`` (one column per model)."""
    cols = [c for c in at.columns if any(h.value == heading for h in c.subheader)]
    assert len(cols) == 1, [[h.value for h in c.subheader] for c in at.columns]
    return cols[0]


def _metric(at, model, label):
    found = [m for m in _model_column(at, model).metric if m.label == label]
    assert len(found) == 1, [m.label for m in _model_column(at, model).metric]
    return found[0]


def _table(at, model, first_row):
    """The table of ``model`` whose first measure is ``first_row``, in the recalibration column headed
    "<model>: <method>" (st.dataframe has no key in AppTest), indexed by its measures."""
    cols = [c for c in at.columns if any(h.value.startswith(f"{model}: ") for h in c.subheader)]
    assert len(cols) == 1, [[h.value for h in c.subheader] for c in at.columns]
    found = [d.value for d in cols[0].dataframe if len(d.value.index) and d.value["Measure"].iloc[0] == first_row]
    assert len(found) == 1, [d.value["Measure"].tolist() for d in cols[0].dataframe]
    return found[0].set_index("Measure")


CARDS = [
    "Brier",
    "log loss",
    "ECE (10 uniform bins)",
    "O/E (calibration-in-the-large)",
    "calibration slope",
    "calibration intercept",
]


def test_page_renders_on_demo(app):
    at = app(PAGE)
    assert not at.exception
    assert at.title[0].value == "Calibration"
    for model in ("old", "new"):
        assert [m.label for m in _model_column(at, model).metric] == CARDS
    assert len(at.metric) == 2 * len(CARDS)
    assert all(m.delta.startswith("95% CI ") for m in at.metric)  # every card carries its interval
    # the cross-fitted recalibration reads every row and fits 5 × 2 maps: only on request (issue 18)
    assert not [h for h in at.subheader if h.value.endswith(": Platt")] and not at.download_button
    at.button(key="cal_recal_run").click().run()
    assert not at.exception
    assert sorted(h.value for h in at.subheader if h.value.endswith(": Platt")) == ["new: Platt", "old: Platt"]
    assert len(at.download_button) == 2  # one lookup table per model
    assert not [b for b in at.button if b.key == "cal_recal_run"]  # asked for once: kept on for the dataset
    at.run()
    assert len([h for h in at.subheader if h.value.endswith(": Platt")]) == 2


def test_segment_table_flags_worst(app, demo_yp):
    y, p = demo_yp
    at = app(PAGE)
    at.selectbox(key="cal_segment").set_value("amount_band").run()
    at.selectbox(key="cal_seg_model").set_value("new").run()
    assert not at.exception
    expected = segment_calibration(y, p, demo.demo_frame().amount_band.to_numpy())
    shown = next(d.value for d in at.dataframe if "Why undefined" in getattr(d.value, "columns", []))
    # plain names, counts as whole numbers, the metrics as numbers (the column config formats them)
    metrics = {
        "Brier score": "brier",
        "Log loss": "log_loss",
        "ECE": "ece",
        "Observed ÷ expected": "oe_ratio",
        "Calibration slope": "slope",
        "Calibration intercept": "intercept",
    }
    assert list(shown.columns) == ["Segment", "Rows", "Positives", *metrics, "Why undefined"]
    assert shown["Segment"].tolist() == expected["segment"].tolist()
    assert shown["Rows"].tolist() == expected["n_rows"].tolist()
    assert shown["Positives"].tolist() == expected["n_pos"].round().astype(int).tolist()
    for label, field in metrics.items():
        np.testing.assert_allclose(shown[label].to_numpy(float), expected[field].to_numpy(float), rtol=1e-12)
    assert shown["Why undefined"].tolist() == expected["undefined"].tolist()
    worst = expected.loc[expected.worst, "segment"].tolist()
    assert len(worst) == 1 and expected.ece.idxmax() == expected.index[expected.worst][0]
    shown_level = f"{ui.md_text('amount_band')} = {ui.md_text(worst[0])}"  # names and levels as text, never Markdown
    assert any(f"{shown_level} (ECE {ui.fmt(expected.ece.max(), 4)})" in c.value for c in at.caption)


def test_ece_card_matches_reliability_uniform_then_quantile(app, demo_yp):
    y, p = demo_yp
    uniform = reliability(y, p, n_bins=10, strategy="uniform")
    # independent check of the golden ECE: left-closed bins [k/10, (k+1)/10) via pandas, weighted |gap|
    frame = pd.DataFrame({"y": y, "p": p, "bin": pd.cut(p, np.arange(11) / 10, right=False)})
    g = frame.groupby("bin", observed=True).agg(n=("y", "size"), y=("y", "mean"), p=("p", "mean"))
    assert uniform.ece == pytest.approx(float((g.n * (g.y - g.p).abs()).sum() / len(y)), rel=1e-12)

    at = app(PAGE)
    card = _metric(at, "new", "ECE (10 uniform bins)")
    assert card.value == ui.fmt(uniform.ece, 4)

    at.segmented_control(key="cal_strategy").set_value("quantile").run()
    assert not at.exception
    quantile = reliability(y, p, n_bins=10, strategy="quantile")
    card = _metric(at, "new", "ECE (10 quantile bins)")
    assert card.value == ui.fmt(quantile.ece, 4) != ui.fmt(uniform.ece, 4)


def test_isotonic_shows_cross_fitted_metrics(app, demo_yp):
    y, p = demo_yp
    at = app(PAGE)
    at.button(key="cal_recal_run").click().run()
    at.segmented_control(key="cal_method").set_value("isotonic").run()
    assert not at.exception
    cf = cross_fit_calibration(y, p, method="isotonic", n_folds=N_FOLDS, rng=SEED)
    shown = _table(at, "new", "Brier score")
    after = cf.after
    expected = [after.brier, after.log_loss, after.ece, after.oe_ratio, after.slope, after.intercept]
    assert list(shown["After"].iloc[:6]) == [ui.fmt(v, 4) for v in expected]
    before = reliability(y, p)
    assert list(shown["Before"].iloc[:6]) == [
        ui.fmt(v, 4) for v in (before.brier, before.log_loss, before.ece, before.oe_ratio, before.slope, before.intercept)
    ]
    # the value curve of the cross-fitted probabilities, priced row by row with the demo table
    table = ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
    c0, c1 = value_curve(y, p, table), value_curve(y, cf.calibrated, table)
    effect = _table(at, "new", "EV per decision at the best threshold")
    assert effect.loc["EV per decision at the best threshold"].tolist() == [
        fmt.money(c0.ev_opt, "EUR", signed=True),
        fmt.money(c1.ev_opt, "EUR", signed=True),
    ]
    assert effect.loc["Best threshold (empirical)"].tolist() == [fmt.score(c0.t_opt), fmt.score(c1.t_opt)]
    gap0, gap1 = abs(c0.bayes_threshold - c0.t_opt), abs(c1.bayes_threshold - c1.t_opt)
    assert effect.loc["Gap between t* and the best threshold"].tolist() == [ui.fmt(gap0), ui.fmt(gap1)]
    verdict = f"shrank from {gap0:.3f} to {gap1:.3f}" if gap1 < gap0 else f"did not shrink ({gap0:.3f} → {gap1:.3f})"
    assert any(verdict in md.value for md in at.markdown), [md.value for md in at.markdown]


def _save_dataset(data_dir, frame: pd.DataFrame, kinds: dict) -> int:
    """Store a dataset in the folder the app fixture points EVALBOARD_DATA_DIR at; return its id."""
    raw = frame.to_csv(index=False).encode()
    mapping = {"label": "fraud", "scores": {m: m for m in kinds}, "score_kinds": kinds}
    preds = validate(read_table(raw, "small.csv"), ColumnMapping.from_dict(mapping))
    store = Store(data_dir=data_dir)
    services.ensure_demo(store)
    rec = store.save_dataset(
        name="small", filename="small.csv", raw=raw, mapping=mapping, report=preds.summary(), n_rows=preds.n_rows, uploader="test"
    )
    return rec.id


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    y = (rng.uniform(size=400) < 1 / (1 + np.exp(-2 * x))).astype(int)
    # sep: probabilities that separate the classes perfectly, so the calibration slope is undefined
    sep = np.round(np.where(y == 1, 0.6, 0.1) + 0.3 * rng.uniform(size=400), 4)
    return pd.DataFrame({"fraud": y, "raw": np.round(50 + 10 * x, 3), "hard": (x > 0.5).astype(int), "sep": sep})


def test_raw_scores_say_recalibrate_first(app, tmp_path, small):
    f = small[["fraud", "raw", "hard"]]
    at = app(PAGE, dataset=_save_dataset(tmp_path / "data", f, {"raw": "score", "hard": "decision"}))
    assert not at.exception
    infos = " ".join(i.value for i in at.info)
    assert "raw gives raw scores, not probabilities: calibration needs a recalibration to [0, 1] first" in infos
    assert "hard is a hard 0/1 decision: calibration does not apply" in infos
    assert not at.metric  # no reliability cards for either model
    at.button(key="cal_recal_run").click().run()
    # the recalibration is offered directly; temperature needs probabilities, so it is not offered
    assert at.segmented_control(key="cal_method").options == ["Platt", "isotonic"]
    shown = _table(at, "raw", "Brier score")
    assert set(shown["Before"].iloc[:6]) == {"—"}  # raw scores have no calibration before the map
    cf = cross_fit_calibration(
        f.fraud.to_numpy(), f.raw.to_numpy(), method="platt", n_folds=N_FOLDS, rng=SEED, score_kind="score"
    )
    assert shown["After"].iloc[2] == ui.fmt(cf.after.ece, 4)
    assert any(c.value.startswith("before: raw scores are not probabilities") for c in at.caption)


def test_undefined_slope_shows_dash_and_reason(app, tmp_path, small):
    f = small[["fraud", "sep", "raw"]]
    at = app(PAGE, dataset=_save_dataset(tmp_path / "data", f, {"sep": "probability", "raw": "score"}))
    assert not at.exception
    assert reliability(f.fraud, f.sep).undefined["slope"].startswith("the classes are perfectly separated")
    card = _metric(at, "sep", "calibration slope")
    assert (card.value, card.delta) == ("—", "95% CI — – —")  # never 0
    assert any(c.value.startswith("sep: slope is undefined (—): the classes are perfectly separated") for c in at.caption)
    # temperature is offered (sep is a probability) and refused, with the reason, for the raw score
    at.button(key="cal_recal_run").click().run()
    at.segmented_control(key="cal_method").set_value("temperature").run()
    assert not at.exception
    assert any("raw gives raw scores: temperature scaling needs probabilities" in i.value for i in at.info)


def test_the_recalibration_reads_in_chinese(app):
    """The before/after threshold–value curves of a recalibration are named in the reader's
    language (they were "before" and "after (Platt)" on a Chinese page)."""
    at = app(PAGE, locale="zh_CN")
    at.button(key="cal_recal_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    fig = json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith("cal_curve_old")).proto.spec)
    names = [tr.get("name") for tr in fig["data"] if tr.get("name")]
    assert "校准前：EV(t)" in names and "校准后：Platt（交叉拟合）：EV(t)" in names, names
    # the flat region's words read once ("在 t 在 … 内 时" said "in" twice); the numbers are the curve's
    flat = r"^校准前：t 在 \[\d\.\d+, \d\.\d+\] 内时，EV 与最优值相差不超过 1%$"
    assert any(re.match(flat, n) for n in names), names
    assert all(m.delta.startswith("95%区间 ") and " – " in m.delta for m in at.metric)
