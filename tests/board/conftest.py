"""Fixtures shared by the board tests."""

import os

import pytest


@pytest.fixture(scope="module")
def spark():
    """A local Spark session (two cores) for the --engine spark tests; skipped without pyspark
    unless EVALBOARD_REQUIRE_SPARK=1 (CI), where a missing pyspark fails."""
    if os.environ.get("EVALBOARD_REQUIRE_SPARK") != "1":
        pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.master("local[2]")
        .appName("evalboard-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()
