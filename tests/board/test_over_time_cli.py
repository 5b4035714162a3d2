"""Value over time in the CLI JSON, and the DuckDB/Spark tables equal the pandas path's."""

import json

import numpy as np
import pandas as pd
import pytest

from board.cli import main
from board.engines import Query
from board.engines.aggregation import over_time_source
from board.services import demo
from evalcore import ValueTable
from evalcore.board import BoardConfig
from evalcore.data import ColumnMapping, validate
from evalcore.over_time import time_tables, value_over_time_of

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

TABLE = ValueTable(tp=500, fp=-20, fn=-500, tn=0)
SCORES = {"old": "score_old", "new": "score_new"}
QUERY = Query(label="is_fraud", scores=SCORES, segments=("channel",), group="customer_id", time="application_time")
MAPPING = ColumnMapping(label="is_fraud", scores=SCORES, segments=("channel",), group="customer_id", time="application_time")
THRESHOLDS = {"old": 0.5, "new": 0.3}


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory):
    f = demo.demo_frame(n=6_000)
    path = tmp_path_factory.mktemp("over_time") / "demo.parquet"
    f.to_parquet(path)
    return str(path), validate(f, MAPPING)


def _check(path, preds, engine, spark=None, *, scheme, resolution):
    strata = "channel" if scheme == "stratified" else None
    kinds = dict(preds.score_kinds)
    res = {m: resolution for m in SCORES}
    ref = time_tables(preds, thresholds=THRESHOLDS, strata_column=strata, groups=scheme == "cluster", resolution=res)
    got = over_time_source(
        path,
        QUERY,
        engine=engine,
        spark=spark,
        thresholds=THRESHOLDS,
        score_kinds=kinds,
        resolution=res,
        strata_column=strata,
        groups=scheme == "cluster",
    )
    pd.testing.assert_frame_equal(ref.decisions, got.decisions, check_exact=True)
    pd.testing.assert_frame_equal(ref.scores, got.scores, check_exact=True)
    cfg = BoardConfig(n_resamples=60, scheme=scheme, strata_column=strata, thresholds=THRESHOLDS)
    for window in ("day", "week"):
        a = value_over_time_of(ref, TABLE, cfg, window=window)
        b = value_over_time_of(got, TABLE, cfg, window=window)
        assert a.to_dict() == b.to_dict() and a.info() == b.info()


@pytest.mark.parametrize(("scheme", "resolution"), [("rows", None), ("stratified", 1e-3), ("cluster", None)])
def test_duckdb_equals_pandas(demo_data, scheme, resolution):
    _check(*demo_data, "duckdb", scheme=scheme, resolution=resolution)


@pytest.mark.slow
@pytest.mark.parametrize(("scheme", "resolution"), [("rows", None), ("cluster", 1e-3)])
def test_spark_equals_pandas(demo_data, spark, scheme, resolution):
    _check(*demo_data, "spark", spark, scheme=scheme, resolution=resolution)


# --------------------------------------------------------------------------------- the CLI


def _toy(tmp_path):
    # day 0: A acts on 0.9 (y1: TP) and 0.8 (y0: FP), not on 0.3 (y1: FN), 0.1 (y0: TN)
    # day 1: 0.7, 0.6 (y1: TP), 0.2 (y0: TN); day 7: 0.9 (y0: FP), 0.4 (y1: FN)
    f = pd.DataFrame(
        {
            "t": ["2026-10-05"] * 4 + ["2026-10-06"] * 3 + ["2026-10-12"] * 2,
            "y": [1, 0, 1, 0, 1, 1, 0, 0, 1],
            "a": [0.9, 0.8, 0.3, 0.1, 0.7, 0.6, 0.2, 0.9, 0.4],
            "b": [0.6, 0.4, 0.7, 0.2, 0.1, 0.9, 0.8, 0.3, 0.6],
        }
    )
    path = tmp_path / "toy.csv"
    f.to_csv(path, index=False)
    return f, path


AMOUNTS = ["--tp", "10", "--fp", "-2", "--fn", "-5", "--tn", "0"]


def _run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out


def test_cli_value_over_time_golden(tmp_path, capsys):
    _, path = _toy(tmp_path)
    argv = ["evaluate", "--predictions", str(path), "--label", "y", "--score", "A=a", "--score", "B=b", "--time", "t"]
    code, out = _run(capsys, argv + AMOUNTS + ["--n-resamples", "200", "--window", "week"])
    assert code == 0, out.err
    d = json.loads(out.out)
    w = d["value_over_time"]
    assert [x["start"] for x in w] == ["2026-10-05", "2026-10-12"] and w[0]["end"] == "2026-10-12"
    # week 1, A: TP 3, FP 1, FN 1, TN 2 -> (30 - 2 - 5) / 7; B the same counts; week 2: A (-2 - 5)/2, B 10/2
    assert w[0]["models"]["A"]["ev"] == pytest.approx(23 / 7) and w[0]["models"]["B"]["ev"] == pytest.approx(23 / 7)
    assert w[0]["diff"] == pytest.approx(0.0)
    assert w[1]["models"]["A"]["ev"] == pytest.approx(-3.5) and w[1]["diff"] == pytest.approx(8.5)
    assert w[0]["n"] == 7 and w[0]["n_pos"] == 4 and w[0]["estimated"] is False
    lo, hi = w[0]["models"]["A"]["ev_ci"]
    assert lo <= 23 / 7 <= hi
    assert d["value_over_time_info"]["window"] == "week"
    # daily windows: the days without rows are there, undefined (null), with a reason
    code, out = _run(capsys, argv + AMOUNTS + ["--n-resamples", "0", "--window", "day"])
    w = json.loads(out.out)["value_over_time"]
    assert len(w) == 8 and w[2]["models"]["A"]["ev"] is None and "no rows" in w[2]["undefined"]["ev"]
    assert w[1]["models"]["A"]["ev"] == pytest.approx(20 / 3)
    # without --window there is no value_over_time
    code, out = _run(capsys, argv + AMOUNTS + ["--n-resamples", "0"])
    assert "value_over_time" not in json.loads(out.out)


def test_cli_labels_arriving_late(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 1500
    day = rng.integers(0, 35, n)
    s = rng.beta(2, 5, n)
    y = (rng.random(n) < s).astype(int)
    t = pd.Timestamp("2026-09-07") + pd.to_timedelta(day, unit="D")
    late = day >= 28
    f = pd.DataFrame({"t": t.strftime("%Y-%m-%d"), "a": s, "y": np.where(late, np.nan, y)})
    f["known"] = np.where(late, "", "yes")
    path = tmp_path / "late.csv"
    f.to_csv(path, index=False)
    base = ["evaluate", "--predictions", str(path), "--label", "y", "--score", "A=a", "--time", "t", "--n-resamples", "100"]
    outs = []
    for rule in (["--label-known", "known"], ["--labels-complete-until", "2026-10-04"]):
        code, out = _run(capsys, base + AMOUNTS + rule)
        assert code == 0, out.err
        d = json.loads(out.out)
        assert d["n_rows"] == int((~late).sum())  # the board: labelled rows only
        w = d["value_over_time"]
        assert [x["estimated"] for x in w] == [False] * 4 + [True]  # weeks from 2026-09-07; the 5th has no labels
        assert w[-1]["n_labelled"] == 0 and w[-1]["n_pos"] is None
        ev, (lo, hi) = w[-1]["models"]["A"]["ev"], w[-1]["models"]["A"]["ev_ci"]
        assert lo <= ev <= hi
        q = d["value_over_time_info"]["quality"]
        assert len(q["checks"]) == 3 and isinstance(q["trusted"], bool)
        outs.append(w)
    assert outs[0] == outs[1]  # the two rules mark the same rows


def test_cli_errors_exit_2(tmp_path, capsys):
    _, path = _toy(tmp_path)
    argv = ["evaluate", "--predictions", str(path), "--label", "y", "--score", "A=a"] + AMOUNTS
    code, out = _run(capsys, argv + ["--window", "week"])
    assert code == 2 and "need --time" in out.err
    code, out = _run(capsys, argv + ["--time", "t", "--label-known", "nope"])
    assert code == 2 and "'nope' is not in the file" in out.err
    code, out = _run(capsys, argv + ["--time", "t", "--labels-complete-until", "soon"])
    assert code == 2 and "not a date" in out.err
    with pytest.raises(SystemExit) as exc:  # argparse: exit 2 with the choices
        main(argv + ["--time", "t", "--window", "month"])
    assert exc.value.code == 2 and "invalid choice: 'month'" in capsys.readouterr().err


def test_cli_duckdb_window_equals_pandas(demo_data, tmp_path, capsys):
    path, _ = demo_data
    argv = ["evaluate", "--predictions", path, "--label", "is_fraud", "--score", "old=score_old", "--score", "new=score_new"]
    argv += ["--time", "application_time", "--tp", "500", "--fp", "-20", "--fn", "-500", "--tn", "0"]
    argv += ["--n-resamples", "50", "--window", "week", "--resolution", "none"]
    outs = []
    for engine in ("pandas", "duckdb"):
        code, out = _run(capsys, argv + ["--engine", engine])
        assert code == 0, out.err
        outs.append(json.loads(out.out))
    assert outs[0]["value_over_time"] == outs[1]["value_over_time"]
    assert outs[0]["value_over_time_info"] == outs[1]["value_over_time_info"]


def test_cli_shadow_anchor_of_the_same_rows_is_one(tmp_path, capsys):
    # the shadow set = the evaluated rows: the row-weighted mean of the windows' EV is the pooled EV
    # (sum of n_i·EV_i / sum of n_i = total value / N), which is the gold standard: factor exactly 1
    rng = np.random.default_rng(3)
    n = 3000
    s = rng.beta(2, 5, n)
    f = pd.DataFrame(
        {
            "t": (pd.Timestamp("2026-09-07") + pd.to_timedelta(rng.integers(0, 28, n), unit="D")).strftime("%Y-%m-%d"),
            "a": s,
            "y": (rng.random(n) < s).astype(int),
        }
    )
    path = tmp_path / "rows.csv"
    f.to_csv(path, index=False)
    argv = ["evaluate", "--predictions", str(path), "--label", "y", "--score", "A=a", "--time", "t"]
    argv += ["--tp", "10", "--fp", "-1", "--fn", "-2", "--tn", "0.5", "--n-resamples", "200", "--window", "week"]
    code, out = _run(capsys, argv + ["--shadow", str(path), "--shadow-name", "2026-Q3", "--rescale"])
    assert code == 0, out.err
    d = json.loads(out.out)
    a = d["shadow_anchor"]["A"]
    y, act = f["y"].to_numpy() == 1, s >= 0.5
    pooled = (10 * (act & y).sum() - (act & ~y).sum() - 2 * (~act & y).sum() + 0.5 * (~act & ~y).sum()) / n
    assert a["gold_ev"] == pytest.approx(pooled) and a["daily_ev"] == pytest.approx(pooled)
    assert a["factor"] == pytest.approx(1.0) and a["factor_ci"][0] <= 1.0 <= a["factor_ci"][1]
    assert a["n_windows"] == 4 and a["label"] == "2026-Q3" and a["stale"] is False
    scaled = d["value_over_time_info"]["scaled"]["A"]
    assert scaled["statement"].startswith("scaled ×1.00 by the shadow set of 2026-Q3 (CI ")
    code, out = _run(capsys, argv + ["--rescale"])
    assert code == 2 and "--rescale needs --shadow" in out.err
