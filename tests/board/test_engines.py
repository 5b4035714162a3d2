"""DuckDB and Spark aggregate exactly as pandas does; the CLI's --engine gives the same board."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from board import demo
from board.cli import main
from board.engines import Query, aggregate_source
from evalcore import ValueTable
from evalcore.aggregate import aggregate_predictions, evaluate_aggregate
from evalcore.board import BoardConfig
from evalcore.data import ColumnMapping, validate
from tests._equality import assert_same_board

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

TABLE = ValueTable(tp=500, fp=-20, fn=-500, tn=0)
SCORES = {"old": "score_old", "new": "score_new"}
SEGS = ("customer_type", "channel")
QUERY = Query(label="is_fraud", scores=SCORES, segments=SEGS, group="customer_id")
COUNT_COLUMNS = ["model", "column", "level", "score", "label", "rows", "weight", "score_min", "score_max"]


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory):
    f = demo.demo_frame(n=12_000)
    path = tmp_path_factory.mktemp("engines") / "demo.parquet"
    f.to_parquet(path)
    preds = validate(f, ColumnMapping(label="is_fraud", scores=SCORES, segments=SEGS, group="customer_id"))
    return str(path), preds


@pytest.fixture(scope="module")
def spark():
    if os.environ.get("EVALBOARD_REQUIRE_SPARK") != "1":
        pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    s = (SparkSession.builder.master("local[2]").appName("evalboard-tests")
         .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def _check_engine(path, preds, engine, spark=None, *, resolution, scheme):
    cfg = BoardConfig(n_resamples=50, scheme=scheme, strata_column="channel" if scheme == "stratified" else None)
    ref = aggregate_predictions(preds, resolution=resolution, strata_column=cfg.strata_column, groups=scheme == "cluster")
    got = aggregate_source(path, QUERY, engine=engine, spark=spark, resolution=resolution, scheme=scheme,
                           strata_column=cfg.strata_column)
    pd.testing.assert_frame_equal(ref.cells[COUNT_COLUMNS], got.cells[COUNT_COLUMNS], check_exact=True)
    for col in ("score_sum", "score_sq_sum", "log_sum"):  # float sums: summation order differs
        np.testing.assert_allclose(got.cells[col], ref.cells[col], rtol=1e-12, atol=1e-15)
    assert_same_board(evaluate_aggregate(ref, TABLE, cfg).to_dict(), evaluate_aggregate(got, TABLE, cfg).to_dict(),
                      skip=("engine", "source"))


@pytest.mark.parametrize("resolution", [None, 1e-3])
@pytest.mark.parametrize("scheme", ["rows", "stratified", "cluster"])
def test_duckdb_equals_pandas(demo_data, resolution, scheme):
    _check_engine(*demo_data, "duckdb", resolution=resolution, scheme=scheme)


@pytest.mark.parametrize("resolution,scheme", [(None, "rows"), (1e-3, "cluster")])
def test_spark_equals_pandas(demo_data, spark, resolution, scheme):
    _check_engine(*demo_data, "spark", spark, resolution=resolution, scheme=scheme)


def test_auto_resolution_is_exact_for_few_scores_and_stated(demo_data):
    path, preds = demo_data
    agg = aggregate_source(path, QUERY, engine="duckdb")  # the demo has < 20 000 distinct scores per model
    assert agg.resolution == {"old": None, "new": None}
    fine = aggregate_source(path, QUERY, engine="duckdb", max_exact_scores=100)
    assert fine.resolution == {"old": 1e-4, "new": 1e-4}


def test_cli_duckdb_matches_pandas_rows(demo_data, tmp_path):
    path, _ = demo_data
    args = ["evaluate", "--predictions", path, "--label", "is_fraud", "--score", "old=score_old", "--score",
            "new=score_new", "--segment", "channel", "--tp", "500", "--fp", "-20", "--fn", "-500", "--tn", "0",
            "--n-resamples", "40"]
    assert main([*args, "--json", str(tmp_path / "p.json")]) == 0
    assert main([*args, "--engine", "duckdb", "--resolution", "none", "--json", str(tmp_path / "d.json"),
                 "--html", str(tmp_path / "d.html")]) == 0
    rows = json.loads((tmp_path / "p.json").read_text())
    agg = json.loads((tmp_path / "d.json").read_text())
    assert_same_board(rows, agg)
    assert agg["aggregate"]["engine"] == "duckdb" and agg["aggregate"]["exact"] is True
    assert (tmp_path / "d.html").stat().st_size > 10_000


def test_cli_engine_bad_input_exits_2(demo_data, capsys):
    path, _ = demo_data
    rc = main(["evaluate", "--predictions", path, "--label", "is_fraud", "--score", "a=nope", "--engine", "duckdb",
               "--tp", "1", "--fp", "-1", "--fn", "-1", "--tn", "0"])
    assert rc == 2
    assert "DuckDB could not aggregate" in capsys.readouterr().err
    assert main(["evaluate", "--predictions", path + ".missing*", "--label", "y", "--score", "a=s", "--engine",
                 "duckdb", "--tp", "1", "--fp", "-1", "--fn", "-1", "--tn", "0"]) == 2


@pytest.fixture(scope="session")
def big_file(tmp_path_factory):
    """2M rows, continuous probabilities (> 20 000 distinct scores: auto picks 1e-4)."""
    rng = np.random.default_rng(7)
    n = 2_000_000
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(x - 3)))).astype(np.int8)
    f = pd.DataFrame({"y": y, "p": 1 / (1 + np.exp(-(0.8 * x - 3 + rng.normal(0, 0.5, n)))),
                      "seg": rng.choice(["a", "b", "c"], n)})
    path = tmp_path_factory.mktemp("big") / "big.parquet"
    f.to_parquet(path, row_group_size=250_000)
    return str(path), f


@pytest.mark.slow
def test_two_million_rows_pandas_duckdb_spark_agree(big_file, spark):
    path, f = big_file
    preds = validate(f, ColumnMapping(label="y", scores={"m": "p"}, segments=("seg",)))
    q = Query(label="y", scores={"m": "p"}, segments=("seg",))
    cfg = BoardConfig(n_resamples=30)
    ref = aggregate_predictions(preds)
    assert ref.resolution == {"m": 1e-4}
    out = evaluate_aggregate(ref, TABLE, cfg).to_dict()
    for engine in ("duckdb", "spark"):
        got = aggregate_source(path, q, engine=engine, spark=spark)
        assert got.resolution == {"m": 1e-4}
        pd.testing.assert_frame_equal(ref.cells[COUNT_COLUMNS], got.cells[COUNT_COLUMNS], check_exact=True)
        assert_same_board(out, evaluate_aggregate(got, TABLE, cfg).to_dict(), skip=("engine", "source"))
