"""Bad engine options end in a listed problem and exit code 2, never a traceback."""

import builtins

from board.cli import main
from board.services import demo

ARGS = [
    "evaluate",
    "--label",
    "is_fraud",
    "--score",
    "new=score_new",
    "--tp",
    "1",
    "--fp",
    "-1",
    "--fn",
    "-1",
    "--tn",
    "0",
    "--n-resamples",
    "0",
]


def _parquet(tmp_path):
    path = tmp_path / "d.parquet"
    demo.demo_frame(n=300).to_parquet(path)
    return str(path)


def test_bad_memory_limit_is_a_listed_problem(tmp_path, capsys):
    assert main([*ARGS, "--predictions", _parquet(tmp_path), "--engine", "duckdb", "--memory-limit", "abc"]) == 2
    err = capsys.readouterr().err
    assert "--memory-limit 'abc': DuckDB needs a size such as 4GB" in err and "Traceback" not in err


def test_spark_engine_without_pyspark_says_what_to_install(tmp_path, capsys, monkeypatch):
    real_import = builtins.__import__

    def no_pyspark(name, *a, **kw):
        if name.startswith("pyspark"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_pyspark)
    assert main([*ARGS, "--predictions", _parquet(tmp_path), "--engine", "spark"]) == 2
    assert "--engine spark needs pyspark" in capsys.readouterr().err
