"""AppTest: the Uncertainty page (SPEC §3.4).

Expected numbers are computed here with :mod:`evalcore.bootstrap` straight from the frames the
test builds (not through the app's loader, store or cache), with the seed streams the page
documents (those of ``evalcore.board.evaluate``): ``seed + 99`` for the paired comparison,
``seed + 17·i + 1`` for model i's re-optimising pass.
"""

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from board.app import uncertainty_view as uv
from board.services import demo
from board.store import Store
from board.words import fmt
from evalcore import ValueTable
from evalcore.board import BoardConfig, evaluate
from evalcore.bootstrap import analytic_ev_se, compare_models, ev_interval, optimum_interval
from evalcore.data import ColumnMapping, read_table, validate

PAGE = "views/uncertainty.py"
TABLE = ValueTable.from_dict(demo.DEMO_VALUE_TABLE)  # the committed table of a fresh session
T05 = fmt.score(0.5)  # the deployed threshold as the page names it


def _frame(kind: str, n: int = 400) -> pd.DataFrame:
    """Half positives. A scores at random; B is perfect ("better") or a copy of A ("identical")."""
    rng = np.random.default_rng(11)
    y = np.tile([1, 0], n // 2)
    a = np.round(rng.random(n), 3)
    b = np.where(y == 1, 0.9, 0.1) if kind == "better" else a.copy()
    return pd.DataFrame(
        {
            "label": y,
            "score_a": a,
            "score_b": b,
            "region": np.where(np.arange(n) % 3 == 0, "north", "south"),
            "customer": [f"c{i // 2}" for i in range(n)],
        }
    )


def _save(data_dir, frame: pd.DataFrame, *, segments=(), group=None, name="constructed") -> int:
    raw = frame.to_csv(index=False).encode()
    mapping = ColumnMapping(
        label="label",
        scores={"A": "score_a", "B": "score_b"},
        score_kinds={"A": "probability", "B": "probability"},
        segments=segments,
        group=group,
    ).to_dict()
    preds = validate(read_table(raw, f"{name}.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=data_dir) as s:
        return s.save_dataset(
            name=name, filename=f"{name}.csv", raw=raw, mapping=mapping, report=preds.summary(), n_rows=preds.n_rows
        ).id


def _run_form(at, *, n, scheme, seed, level_pct, method="percentile"):
    at.number_input(key=uv.K_N).set_value(n)
    at.selectbox(key=uv.K_METHOD).set_value(method)
    at.selectbox(key=uv.K_SCHEME).set_value(scheme)
    at.number_input(key=uv.K_SEED).set_value(seed)
    at.number_input(key=uv.K_LEVEL).set_value(level_pct)
    at.button(key="unc_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _table(at) -> pd.DataFrame:
    """The page's table of intervals (numbers as the screen shows them), indexed by quantity."""
    frame = next(d.value for d in at.dataframe if "Quantity" in d.value.columns)
    return frame.set_index("Quantity")


def _eur(x) -> str:
    return fmt.money(x, "EUR", signed=True)


def _shown(r, show=_eur) -> tuple:
    """(estimate, low, high) of a bootstrap result as the table shows them."""
    return show(r.estimate), show(r.low), show(r.high)


def _row(tab, label) -> tuple:
    return tuple(tab.loc[label, ["Estimate", "Low", "High"]])


def _scheme_caption(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("**Resampling scheme:"))


def _metric(at, startswith):
    return next(m.value for m in at.metric if m.label.startswith(startswith))


def test_page_renders_on_demo(app):
    at = app(PAGE)
    assert [t.value for t in at.title] == ["Uncertainty"]
    assert not at.error, [e.value for e in at.error]
    # the demo maps customer_id, so the default scheme is clustered (as on the board) and the page says so
    assert "clustered by customer_id" in _scheme_caption(at) and "1,000 replicates" in _scheme_caption(at)
    assert any("not** measure training randomness" in c.value for c in at.caption)
    f = demo.demo_frame()
    comp = compare_models(
        f.is_fraud.to_numpy(),
        f.score_old.to_numpy(),
        f.score_new.to_numpy(),
        TABLE,
        threshold_a=0.5,
        threshold_b=0.5,
        groups=f.customer_id.to_numpy(),
        n_resamples=1000,
        rng=99,
        names=("old", "new"),
    )
    verdicts = [b.value for b in (*at.success, *at.info, *at.error) if "CI of EV_new − EV_old" in b.value]
    assert verdicts == [comp.verdict_text]
    assert _row(_table(at), "new − old: EV difference") == _shown(comp.diff)
    assert len(at.get("plotly_chart")) >= 6  # comparison, two questions, 2 histograms, AUC, 2 metric charts


def test_b_clearly_better(app, tmp_path):
    f = _frame("better")
    ds = _save(tmp_path / "data", f, segments=("region",), group="customer")
    at = app(PAGE, dataset=ds)
    assert at.selectbox(key=uv.K_SCHEME).options == ["Rows (independent)", "Stratified by region", "Clustered by customer"]
    _run_form(at, n=200, scheme="rows", seed=5, level_pct=90.0)
    y, a, b = f.label.to_numpy(), f.score_a.to_numpy(), f.score_b.to_numpy()
    comp = compare_models(
        y, a, b, TABLE, threshold_a=0.5, threshold_b=0.5, n_resamples=200, level=0.9, rng=5 + 99, names=("A", "B")
    )
    # B acts on exactly the positives: EV_B = (200·18500 + 200·120) / 400 = 9310 per decision
    assert comp.ev_b.estimate == pytest.approx(9310.0)
    assert comp.verdict == "better"
    assert [s.value for s in at.success] == ["B is better: the 90% CI of EV_B − EV_A excludes 0."] == [comp.verdict_text]
    tab = _table(at)
    for label, r in (
        ("B − A: EV difference", comp.diff),
        (f"A: EV at deployed threshold {T05}", comp.ev_a),
        (f"B: EV at deployed threshold {T05}", comp.ev_b),
    ):
        assert _row(tab, label) == _shown(r), label
    assert comp.p_b_better == 1.0 and tab.loc["P(B better)", "Estimate"] == "> 99.9%"  # never "100%"
    # the interval sits beneath the difference tile (a tile of its own was cut at 1366×768)
    assert f"90% interval of the difference: [{_eur(comp.diff.low)}, {_eur(comp.diff.high)}]" in [c.value for c in at.caption]
    assert tab.loc[f"A: EV at deployed threshold {T05}", "Analytic standard error"] == fmt.money(
        analytic_ev_se(y, a, TABLE, threshold=0.5), "EUR"
    )
    for i, (m, s) in enumerate((("A", a), ("B", b))):  # question 2: re-optimised in every replicate
        opt = optimum_interval(y, s, TABLE, n_resamples=200, level=0.9, rng=5 + 17 * i + 1)
        assert _row(tab, f"{m}: EV after re-optimising the threshold") == _shown(opt.ev_opt)
        assert _row(tab, f"{m}: best threshold") == _shown(opt.t_opt, fmt.score)
    caption = _scheme_caption(at)
    assert "rows (independent)" in caption and "200 replicates" in caption and "90%" in caption and "seed 5" in caption
    # the board and the export (evalcore.board.evaluate) with the same options show the same intervals
    preds = validate(
        read_table(f.to_csv(index=False).encode(), "x.csv"), ColumnMapping(label="label", scores={"A": "score_a", "B": "score_b"})
    )
    board = evaluate(preds, TABLE, BoardConfig(thresholds={"A": 0.5, "B": 0.5}, n_resamples=200, seed=5, level=0.9))
    assert _row(tab, "B − A: EV difference") == _shown(board.comparison.diff)
    assert _row(tab, "B: EV after re-optimising the threshold") == _shown(board.models["B"].optimum.ev_opt)


def test_identical_scores_no_significant_difference(app, tmp_path):
    ds = _save(tmp_path / "data", _frame("identical"))
    at = app(PAGE, dataset=ds)
    assert at.selectbox(key=uv.K_SCHEME).options == ["Rows (independent)"]  # no segment, no group id: rows only
    _run_form(at, n=100, scheme="rows", seed=1, level_pct=95.0)
    # A and B act on the same rows, so EV_B − EV_A is exactly 0 in every replicate: the interval is [0, 0]
    # (includes 0) and no replicate has B better (ties count as not better)
    assert [i.value for i in at.info] == ["No significant difference between B and A: the 95% CI of EV_B − EV_A includes 0."]
    assert not at.success
    assert _row(_table(at), "B − A: EV difference") == ("0 EUR", "0 EUR", "0 EUR")
    assert _metric(at, "P(B better)") == "< 0.1%"  # no replicate had B better: never "0%" from finite draws


def test_stratified_scheme_is_used_and_stated(app, tmp_path):
    f = _frame("better")
    ds = _save(tmp_path / "data", f, segments=("region",), group="customer")
    at = app(PAGE, dataset=ds)
    _run_form(at, n=100, scheme="stratified:region", seed=2, level_pct=95.0)
    caption = _scheme_caption(at)
    assert caption.startswith("**Resampling scheme: stratified by region**") and "keeps its size" in caption
    comp = compare_models(
        f.label,
        f.score_a,
        f.score_b,
        TABLE,
        threshold_a=0.5,
        threshold_b=0.5,
        n_resamples=100,
        strata=f.region.to_numpy(),
        rng=2 + 99,
        names=("A", "B"),
    )
    row = _table(at).loc["B − A: EV difference"]
    assert (row.Low, row.High) == (_eur(comp.diff.low), _eur(comp.diff.high))
    assert row.Interval == "95% percentile, stratified"
    # the cluster default before the form ran was a different scheme: its interval differs
    clustered = compare_models(
        f.label,
        f.score_a,
        f.score_b,
        TABLE,
        threshold_a=0.5,
        threshold_b=0.5,
        n_resamples=100,
        groups=f.customer.to_numpy(),
        rng=2 + 99,
    )
    assert (clustered.diff.low, clustered.diff.high) != (comp.diff.low, comp.diff.high)


BANDS_SCRIPT = """
import streamlit as st
from board.app import state, uncertainty_view as uv
preds = state.current_data()
table, _ = state.committed_table()
st.session_state["bands_out"] = uv.bands_for(preds, table, list(preds.score_kinds))
"""


def test_bands_for_returns_the_cached_band_only(app, tmp_path):
    f = _frame("better")
    ds = _save(tmp_path / "data", f)
    opts = uv.Options(n_resamples=120, scheme="rows", seed=7, level=0.8)

    def bands(**state):
        at = AppTest.from_string(BANDS_SCRIPT, default_timeout=60)
        for k, v in {"dataset": ds, uv.OPTIONS_KEY: opts, **state}.items():
            at.session_state[k] = v
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at.session_state["bands_out"]

    assert bands() is None  # nothing computed yet for these options
    app(PAGE, dataset=ds, **{uv.OPTIONS_KEY: opts})
    # the band does not depend on the deployed thresholds: moving a slider keeps it
    got = bands(committed_threshold_A=0.3)
    assert set(got) == {"A", "B"}
    for i, m in enumerate(("A", "B")):
        band = optimum_interval(f.label, f[f"score_{m.lower()}"], TABLE, n_resamples=120, level=0.8, rng=7 + 17 * i + 1).band
        for x, y_ in zip(got[m], band.as_tuple()):
            np.testing.assert_array_equal(x, y_)
    assert bands(**{uv.OPTIONS_KEY: uv.Options(n_resamples=120, scheme="rows", seed=8, level=0.8)}) is None


def test_one_hard_decision_model(app, tmp_path):
    f = _frame("better")
    f["decision"] = (f.score_b > 0.5).astype(int)
    raw = f[["label", "decision"]].to_csv(index=False).encode()
    mapping = ColumnMapping(label="label", scores={"rule": "decision"}, score_kinds={"rule": "decision"}).to_dict()
    with Store(data_dir=tmp_path / "data") as s:
        ds = s.save_dataset(name="rule", filename="rule.csv", raw=raw, mapping=mapping, report={}, n_rows=len(f)).id
    at = app(PAGE, dataset=ds)
    assert not at.error, [e.value for e in at.error]
    assert not at.success and not at.info  # one model: no paired comparison, no verdict
    notes = [c.value for c in at.caption]
    assert any(n.startswith("rule is a hard 0/1 decision") for n in notes), notes
    tab = _table(at)
    # the rule acts on exactly the positives: EV = (200·18500 + 200·120) / 400 = 9310 at its one operating point
    assert tab.loc[f"rule: EV at deployed threshold {T05}", "Estimate"] == "+9,310 EUR"
    assert "rule: EV after re-optimising the threshold" not in tab.index
    r = ev_interval(f.label, f.decision, TABLE, threshold=0.5, n_resamples=1000, rng=0)  # defaults: rows, seed 0
    assert _row(tab, f"rule: EV at deployed threshold {T05}") == _shown(r)


def test_switching_to_a_dataset_without_the_applied_scheme(app, tmp_path):
    with_group = _save(tmp_path / "data", _frame("better"), group="customer", name="grouped")
    plain = _save(tmp_path / "data", _frame("identical"), name="plain")
    at = app(PAGE, dataset=with_group)
    _run_form(at, n=100, scheme="cluster", seed=0, level_pct=95.0)
    assert _scheme_caption(at).startswith("**Resampling scheme: clustered by customer**")
    at.session_state["dataset"] = plain
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == [
        "Clustered by a group id is not available on this dataset (no such column mapped): the rows scheme is used."
    ]
    assert _scheme_caption(at).startswith("**Resampling scheme: rows (independent)**")
    box = at.selectbox(key=uv.K_SCHEME)
    assert box.options == ["Rows (independent)"] and box.value == "rows"
