"""F8, F17 (issue 17): a 1.3 MB Parquet file of 100M rows took the server from 0.7 to 5.9 GB, and a
10,000-column CSV was parsed in full (40-57 s) before anything could refuse it.

Uploads are refused by their row and column counts before the rows are decoded: Parquet from its
metadata, CSV from the header (and the line count). The limits come from ``EVALBOARD_MAX_ROWS``
and ``EVALBOARD_MAX_COLUMNS`` (:mod:`board.services.limits`), the CLI's ``--max-rows`` and
``--max-columns``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from board.cli import main
from board.services.limits import COLUMNS_ENV, ROWS_ENV, upload_limits
from evalcore import InputError
from evalcore.data import MAX_COLUMNS, MAX_ROWS, read_table

ROOT = Path(__file__).resolve().parents[2]
N_HUGE = 100_000_000
CHUNK = 10_000_000


@pytest.fixture(scope="module")
def huge_parquet(tmp_path_factory) -> Path:
    """100M rows (a constant int8 label and float64 score) in well under 1 MB: each 10M-row
    row group is one dictionary value run-length encoded. Decoded, the rows take ~900 MB
    (1 + 8 bytes a row) before pandas copies anything."""
    path = tmp_path_factory.mktemp("limits") / "huge.parquet"
    chunk = pa.table({"y": np.zeros(CHUNK, dtype=np.int8), "s": np.full(CHUNK, 0.5)})
    with pq.ParquetWriter(path, chunk.schema, compression="zstd") as w:
        for _ in range(N_HUGE // CHUNK):
            w.write_table(chunk, row_group_size=CHUNK)
    assert path.stat().st_size < 2**20 and pq.ParquetFile(path).metadata.num_rows == N_HUGE
    return path


def _read_in_child(path: Path) -> dict:
    """read_table (default limits) on ``path`` in a fresh interpreter: its outcome and its peak
    resident memory (KiB) after the imports and the bytes, and at the end.

    The peak is the kernel's high-water mark of the child's own address space (``VmHWM``):
    ``resource.getrusage(...).ru_maxrss`` is not, since Linux carries the parent's peak across
    the fork and exec (a test run that has grown past 1 GB would fail any child)."""
    code = textwrap.dedent(f"""
        import json, resource
        from evalcore import InputError
        from evalcore.data import read_table

        def peak_kib():
            try:
                with open("/proc/self/status") as f:
                    return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
            except OSError:
                return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        raw = open({str(path)!r}, "rb").read()
        before = peak_kib()
        try:
            frame = read_table(raw, "huge.parquet")
            out = {{"refused": False, "rows": len(frame)}}
        except InputError as err:
            out = {{"refused": True, "codes": [p.code for p in err.problems], "message": str(err)}}
        out.update(before_kib=before, peak_kib=peak_kib())
        print(json.dumps(out))
    """)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_100m_row_parquet_of_under_1_mb_is_refused_from_its_metadata_under_1_gb(huge_parquet):
    got = _read_in_child(huge_parquet)
    assert got["refused"], got
    assert got["codes"] == ["too_many_rows"]
    assert "huge.parquet has 100,000,000 rows; the limit is 5,000,000 rows." in got["message"]
    assert "register it as a path" in got["message"]
    assert got["peak_kib"] < 2**20, got  # the whole process stays under 1 GiB
    assert got["peak_kib"] - got["before_kib"] < 50 * 2**10, got  # reading the metadata costs < 50 MiB


def test_a_10000_column_csv_is_refused_before_it_is_parsed(monkeypatch):
    import pyarrow.csv as pacsv

    def parse(*a, **k):
        raise AssertionError("the CSV was parsed")

    monkeypatch.setattr(pacsv, "read_csv", parse)  # the reader's parser, and its fallback
    monkeypatch.setattr("pandas.read_csv", parse)
    header = ",".join(f"feature_{i}" for i in range(10_000)).encode()
    row = b",".join([b"0.25"] * 10_000)
    raw = header + b"\n" + b"\n".join([row] * 200) + b"\n"  # ~10 MB
    with pytest.raises(InputError, match=r"wide\.csv has 10,000 columns; the limit is 2,000 columns\.") as err:
        read_table(raw, "wide.csv")
    assert [p.code for p in err.value.problems] == ["too_many_columns"]
    assert "Keep only the columns the board needs" in err.value.problems[0].fix


def test_limits_come_from_the_environment(monkeypatch):
    monkeypatch.delenv(ROWS_ENV, raising=False)
    monkeypatch.delenv(COLUMNS_ENV, raising=False)
    assert upload_limits() == {"max_rows": MAX_ROWS, "max_columns": MAX_COLUMNS} == {"max_rows": 5_000_000, "max_columns": 2_000}
    monkeypatch.setenv(ROWS_ENV, "1_000")
    monkeypatch.setenv(COLUMNS_ENV, "12")
    assert upload_limits() == {"max_rows": 1000, "max_columns": 12}


def test_a_bad_limit_in_the_environment_is_named(monkeypatch):
    monkeypatch.setenv(ROWS_ENV, "lots")
    monkeypatch.setenv(COLUMNS_ENV, "0")
    with pytest.raises(InputError) as err:
        upload_limits()
    assert [p.code for p in err.value.problems] == ["limit_invalid", "limit_invalid"]
    assert "EVALBOARD_MAX_ROWS='lots' is not a positive whole number." in str(err.value)
    assert "EVALBOARD_MAX_COLUMNS='0' is not a positive whole number." in str(err.value)


def _csv(tmp_path, n_rows: int) -> Path:
    rng = np.random.default_rng(7)
    y = np.r_[0, 1, rng.integers(0, 2, n_rows - 2)]
    path = tmp_path / "p.csv"
    path.write_text("y,s,extra\n" + "".join(f"{a},{b:.3f},x\n" for a, b in zip(y, rng.random(n_rows))))
    return path


def test_cli_max_rows_and_max_columns(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(ROWS_ENV, raising=False)
    monkeypatch.delenv(COLUMNS_ENV, raising=False)
    path = _csv(tmp_path, 30)
    args = ["validate", "--predictions", str(path), "--label", "y", "--score", "m=s"]
    assert main(args) == 0
    capsys.readouterr()
    assert main([*args, "--max-rows", "29", "--max-columns", "2"]) == 2
    err = capsys.readouterr().err
    assert "2 problems found" in err
    assert "p.csv has 30 rows; the limit is 29 rows." in err and "p.csv has 3 columns; the limit is 2 columns." in err
    monkeypatch.setenv(ROWS_ENV, "10")  # the environment's limit, unless an option overrides it
    assert main(args) == 2
    assert "p.csv has 30 rows; the limit is 10 rows." in capsys.readouterr().err
    assert main([*args, "--max-rows", "30"]) == 0


@pytest.mark.parametrize("bad", ["0", "-3", "many"])
def test_cli_refuses_a_limit_that_is_not_a_positive_number(tmp_path, capsys, bad):
    args = ["validate", "--predictions", str(_csv(tmp_path, 5)), "--label", "y", "--score", "m=s"]
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--max-rows", bad])
    assert exit_.value.code == 2
    assert f"argument --max-rows: expected a positive whole number, got '{bad}'" in capsys.readouterr().err


def test_cli_help_documents_the_limits(capsys):
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--max-rows N" in out and "$EVALBOARD_MAX_ROWS, else 5000000" in out
    assert "--max-columns N" in out and "$EVALBOARD_MAX_COLUMNS, else 2000" in out
