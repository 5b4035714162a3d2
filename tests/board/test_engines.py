"""DuckDB and Spark aggregate exactly as pandas does; the CLI's --engine gives the same board."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from board.cli import main
from board.engines import Query, aggregate_source
from board.services import demo
from evalcore import InputError, ValueTable
from evalcore.aggregate import aggregate_predictions, evaluate_aggregate
from evalcore.board import BoardConfig, evaluate
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


def _check_engine(path, preds, engine, spark=None, *, resolution, scheme):
    cfg = BoardConfig(n_resamples=50, scheme=scheme, strata_column="channel" if scheme == "stratified" else None)
    ref = aggregate_predictions(preds, resolution=resolution, strata_column=cfg.strata_column, groups=scheme == "cluster")
    got = aggregate_source(
        path, QUERY, engine=engine, spark=spark, resolution=resolution, scheme=scheme, strata_column=cfg.strata_column
    )
    pd.testing.assert_frame_equal(ref.cells[COUNT_COLUMNS], got.cells[COUNT_COLUMNS], check_exact=True)
    for col in ("score_sum", "score_sq_sum", "log_sum"):  # float sums: summation order differs
        np.testing.assert_allclose(got.cells[col], ref.cells[col], rtol=1e-12, atol=1e-15)
    assert_same_board(
        evaluate_aggregate(ref, TABLE, cfg).to_dict(), evaluate_aggregate(got, TABLE, cfg).to_dict(), skip=("engine", "source")
    )


@pytest.mark.parametrize("resolution", [None, 1e-3])
@pytest.mark.parametrize("scheme", ["rows", "stratified", "cluster"])
def test_duckdb_equals_pandas(demo_data, resolution, scheme):
    _check_engine(*demo_data, "duckdb", resolution=resolution, scheme=scheme)


@pytest.mark.slow
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
    args = [
        "evaluate",
        "--predictions",
        path,
        "--label",
        "is_fraud",
        "--score",
        "old=score_old",
        "--score",
        "new=score_new",
        "--segment",
        "channel",
        "--tp",
        "500",
        "--fp",
        "-20",
        "--fn",
        "-500",
        "--tn",
        "0",
        "--n-resamples",
        "40",
    ]
    assert main([*args, "--json", str(tmp_path / "p.json")]) == 0
    assert (
        main(
            [
                *args,
                "--engine",
                "duckdb",
                "--resolution",
                "none",
                "--json",
                str(tmp_path / "d.json"),
                "--html",
                str(tmp_path / "d.html"),
            ]
        )
        == 0
    )
    rows = json.loads((tmp_path / "p.json").read_text())
    agg = json.loads((tmp_path / "d.json").read_text())
    assert_same_board(rows, agg)
    assert agg["aggregate"]["engine"] == "duckdb" and agg["aggregate"]["exact"] is True
    assert (tmp_path / "d.html").stat().st_size > 10_000


def test_cli_engine_bad_input_exits_2(demo_data, capsys):
    path, _ = demo_data
    rc = main(
        [
            "evaluate",
            "--predictions",
            path,
            "--label",
            "is_fraud",
            "--score",
            "a=nope",
            "--engine",
            "duckdb",
            "--tp",
            "1",
            "--fp",
            "-1",
            "--fn",
            "-1",
            "--tn",
            "0",
        ]
    )
    assert rc == 2
    assert "DuckDB could not aggregate" in capsys.readouterr().err
    assert (
        main(
            [
                "evaluate",
                "--predictions",
                path + ".missing*",
                "--label",
                "y",
                "--score",
                "a=s",
                "--engine",
                "duckdb",
                "--tp",
                "1",
                "--fp",
                "-1",
                "--fn",
                "-1",
                "--tn",
                "0",
            ]
        )
        == 2
    )


@pytest.fixture(scope="session")
def big_file(tmp_path_factory):
    """2M rows over 28 days, continuous probabilities (> 20 000 distinct scores: auto picks
    1e-4) and a continuous feature (> 200 000 distinct reference values: edges by rank)."""
    rng = np.random.default_rng(7)
    n = 2_000_000
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(x - 3)))).astype(np.int8)
    t = pd.Timestamp("2026-10-05") + pd.to_timedelta(np.sort(rng.integers(0, 28 * 86_400, n)), unit="s")
    f = pd.DataFrame(
        {
            "y": y,
            "p": 1 / (1 + np.exp(-(0.8 * x - 3 + rng.normal(0, 0.5, n)))),
            "seg": rng.choice(["a", "b", "c"], n),
            "t": t.astype("datetime64[us]"),
            "amount": rng.lognormal(3 + 0.2 * (t >= pd.Timestamp("2026-10-26")), 1.0, n),
            "chan": rng.choice(["app", "web"], n),
        }
    )
    path = tmp_path_factory.mktemp("big") / "big.parquet"
    f.to_parquet(path, row_group_size=250_000)
    return str(path), f


@pytest.mark.slow
def test_two_million_rows_pandas_duckdb_spark_agree(big_file, spark):
    path, f = big_file
    preds = validate(f, ColumnMapping(label="y", scores={"m": "p"}, segments=("seg",), time="t", features=("amount", "chan")))
    q = Query(label="y", scores={"m": "p"}, segments=("seg",), time="t", features=("amount", "chan"))
    cfg = BoardConfig(n_resamples=30)
    ref = aggregate_predictions(preds)
    assert ref.resolution == {"m": 1e-4}
    out = evaluate_aggregate(ref, TABLE, cfg).to_dict()
    assert out["drift"]["feature"]["details"]["worst_feature"] == "amount"  # the shift in the last week
    for engine in ("duckdb", "spark"):
        # DuckDB under a 64 MB memory limit: it spills instead of failing (out of core)
        got = aggregate_source(path, q, engine=engine, spark=spark, memory_limit="64MB" if engine == "duckdb" else None)
        assert got.resolution == {"m": 1e-4}
        pd.testing.assert_frame_equal(ref.cells[COUNT_COLUMNS], got.cells[COUNT_COLUMNS], check_exact=True)
        _same_drift_tables(ref, got)
        assert_same_board(out, evaluate_aggregate(got, TABLE, cfg).to_dict(), skip=("engine", "source"))


# --------------------------------------------------------------------------------------
# drift: per-day tables from the engines equal the pandas engine's
# --------------------------------------------------------------------------------------

TIMED = Query(
    label="is_fraud",
    scores=SCORES,
    segments=tuple(demo.DEMO_MAPPING["segments"]),
    group="customer_id",
    time="application_time",
    features=tuple(demo.DEMO_MAPPING["features"]),
)


def _same_drift_tables(ref, got):
    assert got.feature_refs == ref.feature_refs and got.drift_fit == ref.drift_fit
    pd.testing.assert_frame_equal(ref.day_cells, got.day_cells, check_exact=True)
    pd.testing.assert_frame_equal(ref.feature_day_cells, got.feature_day_cells, check_exact=True)
    if ref.feature_value_cells is None:
        assert got.feature_value_cells is None
    else:
        pd.testing.assert_frame_equal(ref.feature_value_cells, got.feature_value_cells, check_exact=True)
    a, b = ref.calibration_day_cells, got.calibration_day_cells
    key = ["model", "date", "bin", "rows", "pos"]
    pd.testing.assert_frame_equal(a[key], b[key], check_exact=True)
    np.testing.assert_allclose(b["prob_sum"], a["prob_sum"], rtol=1e-12)


@pytest.fixture(scope="module")
def timed_data(tmp_path_factory):
    f = demo.demo_frame(n=12_000)
    path = tmp_path_factory.mktemp("timed") / "demo.parquet"
    f.to_parquet(path)
    return str(path), validate(f, ColumnMapping.from_dict(demo.DEMO_MAPPING))


def _check_drift(path, preds, engine, spark=None):
    from evalcore.drift import DriftConfig

    ref = aggregate_predictions(preds, resolution=None)
    got = aggregate_source(path, TIMED, engine=engine, spark=spark, resolution=None)
    _same_drift_tables(ref, got)
    assert got.feature_value_cells is not None  # 12 000 rows: the row path's KS is exact, so is the aggregate's
    for drift in (DriftConfig(), DriftConfig(exact_limit=1)):  # exact KS, and KS binned on the reference grid
        cfg = BoardConfig(n_resamples=0, drift=drift.to_dict())
        rows = evaluate(preds, TABLE, cfg).to_dict()
        out = evaluate_aggregate(got, TABLE, cfg).to_dict()
        assert_same_board(rows, out, skip=("engine", "source"))
        assert out["drift"]["feature"]["light"] == "red"  # the demo's last week drifts by design


def test_duckdb_drift_tables_equal_pandas(timed_data):
    _check_drift(*timed_data, "duckdb")


@pytest.mark.slow
def test_spark_drift_tables_equal_pandas(timed_data, spark):
    _check_drift(*timed_data, "spark", spark)


def test_reference_edges_by_rank_equal_edges_by_value_counts(timed_data, monkeypatch):
    """Past EXACT_REFERENCE_VALUES distinct values the engine ranks the reference instead of
    fetching its values; the edges (order statistics) are the same."""
    import board.engines.aggregation as engines

    path, preds = timed_data
    want = aggregate_source(path, TIMED, engine="duckdb").feature_refs
    monkeypatch.setattr(engines, "EXACT_REFERENCE_VALUES", 10)
    assert aggregate_source(path, TIMED, engine="duckdb").feature_refs == want


def test_bad_times_are_listed_with_the_other_problems(tmp_path):
    f = demo.demo_frame(n=500)
    f["application_time"] = f["application_time"].astype(str)
    f.loc[[3, 7], "application_time"] = "not a date"
    f.loc[5, "score_old"] = np.nan
    path = tmp_path / "bad.parquet"
    f.to_parquet(path)
    with pytest.raises(InputError) as err:
        aggregate_source(str(path), TIMED, engine="duckdb")
    text = str(err.value)
    assert "time column 'application_time' has 2 missing or unparseable values" in text
    assert "score column 'score_old'" in text


def test_cli_duckdb_drift_equals_the_row_path(timed_data, tmp_path):
    path, _ = timed_data
    args = [
        "evaluate",
        "--predictions",
        path,
        "--label",
        "is_fraud",
        "--score",
        "old=score_old",
        "--score",
        "new=score_new",
        "--time",
        "application_time",
        "--feature",
        "amount",
        "--feature",
        "channel",
        "--tp",
        "500",
        "--fp",
        "-20",
        "--fn",
        "-500",
        "--tn",
        "0",
        "--n-resamples",
        "0",
    ]
    assert main([*args, "--json", str(tmp_path / "p.json")]) == 0
    assert main([*args, "--engine", "duckdb", "--json", str(tmp_path / "d.json")]) == 0
    rows = json.loads((tmp_path / "p.json").read_text())
    agg = json.loads((tmp_path / "d.json").read_text())
    assert_same_board(rows, agg, skip=("engine", "source"))  # the whole board, drift included
    assert agg["drift"]["feature"]["details"]["ks_method"] == "exact"


def test_the_sql_tree_gives_the_same_codes_as_duckdb_histogram(timed_data):
    """Engines without a faster way (no ``feature_codes``) code features with the CASE tree."""
    from board.engines import duckdb_runner

    path, _ = timed_data
    want = aggregate_source(path, TIMED, engine="duckdb")
    src, quote, run = duckdb_runner(path)
    del run.feature_codes
    got = aggregate_source(path, TIMED, engine="duckdb", runner=(src, quote, run))
    pd.testing.assert_frame_equal(want.feature_day_cells, got.feature_day_cells, check_exact=True)


@pytest.mark.slow
def test_spark_submit_runs_the_cli(timed_data, tmp_path):
    """The README's spark-submit line works (local[2] here; a cluster takes --master yarn)."""
    import subprocess
    import sys
    from pathlib import Path

    if os.environ.get("EVALBOARD_REQUIRE_SPARK") != "1":
        pytest.importorskip("pyspark")
    path, _ = timed_data
    submit = Path(sys.executable).parent / "spark-submit"
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "s.json"
    proc = subprocess.run(
        [
            str(submit),
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            str(root / "scripts" / "spark_evaluate.py"),
            "evaluate",
            "--engine",
            "spark",
            "--predictions",
            path,
            "--label",
            "is_fraud",
            "--score",
            "new=score_new",
            "--time",
            "application_time",
            "--feature",
            "device_risk",
            "--tp",
            "500",
            "--fp",
            "-20",
            "--fn",
            "-500",
            "--tn",
            "0",
            "--n-resamples",
            "0",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(out.read_text())
    assert got["aggregate"]["engine"] == "spark" and got["drift"]["feature"]["light"] == "red"


def test_update_requeries_only_what_changed(timed_data):
    """Moving a threshold of a two-model board re-cuts the paired table only; the result equals
    a full aggregation at those thresholds, field by field."""
    import dataclasses

    from board.engines import duckdb_runner

    path, _ = timed_data
    stored = aggregate_source(path, TIMED, engine="duckdb", scheme="cluster")
    src, quote, run = duckdb_runner(path)
    asked = []

    def counting(sql):
        asked.append(sql)
        return run(sql)

    counting.feature_codes = run.feature_codes
    moved = {"old": 0.3, "new": 0.2}
    got = aggregate_source(
        path, TIMED, engine="duckdb", scheme="cluster", thresholds=moved, update=stored, runner=(src, quote, counting)
    )
    want = aggregate_source(path, TIMED, engine="duckdb", scheme="cluster", thresholds=moved)
    for f in dataclasses.fields(want):
        a, b = getattr(want, f.name), getattr(got, f.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        else:
            assert a == b, f.name
    assert got.paired_thresholds == moved and stored.paired_thresholds == {"old": 0.5, "new": 0.5}
    # the schema, stats and label-values passes plus the paired table: no cells, group or drift pass
    assert len(asked) == 4 and "GROUP BY 1 ORDER BY 2 DESC" in asked[2] and "act_a" in asked[-1]


@pytest.mark.slow
def test_spark_reads_a_table_name(timed_data, spark):
    """--predictions may name a Spark table (here a temporary view) instead of Parquet paths."""
    path, preds = timed_data
    spark.read.parquet(path).createOrReplaceTempView("validation_log")
    got = aggregate_source("validation_log", QUERY, engine="spark", spark=spark, resolution=None)
    ref = aggregate_predictions(
        validate(pd.read_parquet(path), ColumnMapping(label="is_fraud", scores=SCORES, segments=SEGS, group="customer_id")),
        resolution=None,
    )
    pd.testing.assert_frame_equal(ref.cells[COUNT_COLUMNS], got.cells[COUNT_COLUMNS], check_exact=True)


def test_update_refuses_a_source_that_changed(timed_data, tmp_path):
    """An aggregate is only updated from the rows it was made of: a source with other rows is refused."""
    path, _ = timed_data
    stored = aggregate_source(path, TIMED, engine="duckdb")
    other = tmp_path / "more.parquet"
    f = pd.read_parquet(path)
    pd.concat([f, f.head(10)]).to_parquet(other)
    with pytest.raises(InputError, match="now has 12,010 rows; the aggregate being updated was made from 12,000"):
        aggregate_source(str(other), TIMED, engine="duckdb", thresholds={"old": 0.3}, update=stored)


@pytest.mark.parametrize(
    "labels, positive, want",
    [
        (["是", "否", "否", "是"], None, [1, 0, 0, 1]),  # the reader's families: 是/否 as well as yes/no, 1/0
        (["Y", "N", "N", "Y"], None, [1, 0, 0, 1]),
        (["fraud", "ok", "ok", "fraud"], "FRAUD", [1, 0, 0, 1]),  # a chosen positive matches ignoring case
        ([1, 0, 0, 1], "1.0", [1, 0, 0, 1]),  # and as a number
    ],
)
def test_engine_labels_follow_the_readers_positive_rule(tmp_path, labels, positive, want):
    """One positive-class rule (evalcore.data.binary_label): the engine's counts of positives equal
    the reader's, for label spellings the old SQL rule ('1', 'true', 'yes') read as all negative."""
    path = tmp_path / "labels.parquet"
    pd.DataFrame({"y": labels, "s": [0.9, 0.2, 0.4, 0.7]}).to_parquet(path)
    agg = aggregate_source(str(path), Query(label="y", scores={"m": "s"}, positive=positive), engine="duckdb", resolution=None)
    n, n_pos, _ = agg.totals()
    assert (n, n_pos) == (4, sum(want))
    p = agg.part("m")
    assert sorted(p.loc[p["label"] == 1, "score"]) == sorted(s for s, y in zip([0.9, 0.2, 0.4, 0.7], want) if y)


@pytest.mark.parametrize(
    "labels, positive, code",
    [
        (["a", "b", "c", "a"], None, "label_not_binary"),
        (["ok", "ok", "ok", "ok"], None, "label_one_class"),
        (["fraud", "ok", "ok", "fraud"], None, "positive_not_chosen"),
        (["fraud", "ok", "ok", "fraud"], "chargeback", "positive_not_found"),
    ],
)
def test_engine_refuses_labels_the_reader_refuses(tmp_path, labels, positive, code):
    path = tmp_path / "labels.parquet"
    pd.DataFrame({"y": labels, "s": [0.9, 0.2, 0.4, 0.7]}).to_parquet(path)
    with pytest.raises(InputError) as err:
        aggregate_source(str(path), Query(label="y", scores={"m": "s"}, positive=positive), engine="duckdb")
    assert [p.code for p in err.value.problems] == [code]
