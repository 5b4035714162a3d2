import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings

# Tests never touch the repository's data/ folder: every run gets its own store.
os.environ.setdefault("EVALBOARD_DATA_DIR", tempfile.mkdtemp(prefix="evalboard-test-"))
os.environ.pop("EVALBOARD_DB_URL", None)
# No background board precompute (board.services.board_cache) unless a test turns it on: no thread
# outlives the test that started it (the servers of the browser tests inherit this too).
os.environ.setdefault("EVALBOARD_PRECOMPUTE", "0")
# The Board page computes the whole board before drawing (no point-estimates-first run) unless a test
# turns it on (tests/app/test_board_progressive.py, tests/e2e/test_board_progressive_browser.py).
os.environ.setdefault("EVALBOARD_PROGRESSIVE", "0")

# Hypothesis on a shared, loaded machine: no per-example deadline and no too-slow health check
# (timing is not what the properties test). In CI (CI set) the examples are derandomized, so a
# run is reproducible and never fails on an input no earlier run drew; locally they stay random
# (with the example database) to keep finding new counterexamples. EVALBOARD_HYPOTHESIS_PROFILE
# picks one explicitly.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True, database=None)
settings.load_profile(os.environ.get("EVALBOARD_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def spark():
    """A local Spark session (two cores) for the --engine spark tests under tests/board; skipped without
    pyspark unless EVALBOARD_REQUIRE_SPARK=1 (CI), where a missing pyspark fails. It lives here, not in a
    tests/board/conftest.py: the test folders are not packages, and --doctest-modules imports every
    conftest.py by its basename, so a second one collides with this file ("import file mismatch").
    One per session (per pytest-xdist worker): a JVM start costs 15–30 s on two cores."""
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
