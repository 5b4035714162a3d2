"""F7 (issue 17): a symlink hidden inside an allowed root let DuckDB read and preview a file outside
the roots.

Every file an engine reads — after glob expansion, inside folders, recursively, hidden names
included — is resolved and must lie under an allowed root; a path that reaches a link out of the
roots is refused, naming it. DuckDB is handed the explicit list of resolved files (never the
user's pattern) on a connection that can read nothing else.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from board.engines import duckdb_runner, lake
from board.engines.aggregation import duckdb_connect
from evalcore import InputError

QUERY = {"label": "y", "scores": {"m": "s"}}


def _write(path: Path, n: int, secret: float | None = None) -> Path:
    """``n`` rows: y alternating 0/1 (first row 0), s = i / n; with ``secret``, a column of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    f = pd.DataFrame({"y": np.arange(n) % 2, "s": np.arange(n) / n})
    if secret is not None:
        f["secret"] = secret
    f.to_parquet(path, index=False)
    return path


@pytest.fixture
def lake_dirs(tmp_path, monkeypatch):
    """An allowed root with data/ok.parquet (4 rows) and, outside it, outside/secret.parquet
    (7 rows and a ``secret`` column) and outside/sub/more.parquet."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    _write(root / "data" / "ok.parquet", 4)
    _write(outside / "secret.parquet", 7, secret=42.0)
    _write(outside / "sub" / "more.parquet", 3, secret=43.0)
    monkeypatch.setenv(lake.ROOTS_ENV, str(root))
    return root.resolve(), outside.resolve()


def _refused(path: str, roots, code: str) -> str:
    with pytest.raises(InputError) as err:
        lake.resolve_source(path, roots)
    codes = [p.code for p in err.value.problems]
    assert code in codes, str(err.value)
    return str(err.value)


# --------------------------------------------------------------------------- links and .. are refused


@pytest.mark.parametrize("hidden", [False, True])
def test_a_link_to_a_file_outside_is_refused_by_name(lake_dirs, hidden):
    root, outside = lake_dirs
    link = root / "data" / (".cache.parquet" if hidden else "link.parquet")
    os.symlink(outside / "secret.parquet", link)
    msg = _refused(str(link), [root], "path_outside_roots")
    assert f"resolves to {outside / 'secret.parquet'}, outside the allowed roots ({root})" in msg
    for entered in ("data", "data/*.parquet", "data/**/*.parquet", "data/*"):  # a folder or glob that holds it
        msg = _refused(entered, [root], "path_link_outside")
        assert f"contains links to outside the allowed roots ({root}): {link} -> {outside / 'secret.parquet'}." in msg


@pytest.mark.parametrize("hidden", [False, True])
def test_a_link_to_a_folder_outside_is_refused_by_name(lake_dirs, hidden):
    root, outside = lake_dirs
    link = root / "data" / (".snap" if hidden else "snap")
    os.symlink(outside / "sub", link)
    _refused(str(link), [root], "path_outside_roots")
    _refused(str(link / "more.parquet"), [root], "path_outside_roots")
    for entered in ("data", "data/**/*.parquet", "data/*/more.parquet", "data/*"):
        msg = _refused(entered, [root], "path_link_outside")
        assert f"{link} -> {outside / 'sub'}" in msg, entered


@pytest.mark.parametrize(
    "entered",
    ["data/../../outside/secret.parquet", "../outside/secret.parquet", "data/../../outside/*.parquet", "data/../../outside"],
)
def test_dot_dot_before_a_glob_leaves_the_roots_and_is_refused(lake_dirs, entered):
    root, outside = lake_dirs
    msg = _refused(entered, [root], "path_outside_roots")
    assert f"outside the allowed roots ({root})" in msg


@pytest.mark.parametrize(
    "entered", ["*/../../outside/secret.parquet", "data/*/../../../outside/*.parquet", "d*/../../outside/sub/*.parquet"]
)
def test_dot_dot_after_a_glob_is_refused(lake_dirs, entered):
    root, outside = lake_dirs
    (root / "data" / "x").mkdir()
    msg = _refused(entered, [root], "path_link_outside")
    assert f"/.. -> {root.parent}" in msg  # named at the step that leaves the root


def test_a_link_deep_inside_a_folder_is_refused(lake_dirs):
    root, outside = lake_dirs
    deep = root / "data" / "2026" / "11" / ".tmp"
    deep.mkdir(parents=True)
    os.symlink(outside / "secret.parquet", deep / "part-0.parquet")
    msg = _refused("data", [root], "path_link_outside")
    assert f"{deep / 'part-0.parquet'} -> {outside / 'secret.parquet'}" in msg


def test_links_inside_the_roots_are_followed_and_each_file_is_read_once(lake_dirs):
    root, _ = lake_dirs
    os.symlink(root / "data", root / "data" / "loop")  # a link back up: no endless walk
    os.symlink(root / "data" / "ok.parquet", root / "data" / "same.parquet")
    src = lake.resolve_source("data", [root])
    assert src.files == (str(root / "data" / "ok.parquet"), str(root / "data" / "same.parquet"))
    assert set(src.real_files) == {str(root / "data" / "ok.parquet")}
    agg = lake.aggregate(src, QUERY, lake.default_options(QUERY))
    assert agg.totals()[2] == 8  # the two listed names of the one 4-row file


def test_a_glob_that_matches_nothing_but_a_link_out_is_refused_for_the_link(lake_dirs):
    root, outside = lake_dirs
    (root / "empty").mkdir()
    os.symlink(outside / "secret.parquet", root / "empty" / ".x.parquet")
    msg = _refused("empty/*.parquet", [root], "path_link_outside")
    assert "path_no_match" not in msg and f"{root / 'empty' / '.x.parquet'} -> {outside / 'secret.parquet'}" in msg


# --------------------------------------------------------------------------- engines read only the checked files


def _with_late_link(lake_dirs) -> lake.Source:
    """A checked folder that gains a hidden link out of the root after the check."""
    root, outside = lake_dirs
    src = lake.resolve_source("data", [root])
    os.symlink(outside / "secret.parquet", root / "data" / ".late.parquet")
    return src


def test_preview_columns_and_label_values_read_only_the_checked_files(lake_dirs):
    src = _with_late_link(lake_dirs)
    assert lake.parquet_columns(src) == {"y": "BIGINT", "s": "DOUBLE"}
    rows = lake.preview(src)
    pd.testing.assert_frame_equal(rows, pd.DataFrame({"y": [0, 1, 0, 1], "s": [0.0, 0.25, 0.5, 0.75]}))
    assert lake.label_values(src, "y") == ["0", "1"]


def test_aggregate_reads_only_the_checked_files(lake_dirs):
    src = _with_late_link(lake_dirs)
    agg = lake.aggregate(src, QUERY, lake.default_options(QUERY))
    n, n_pos, n_rows = agg.totals()
    assert (n_rows, n_pos) == (4, 2)  # ok.parquet alone: y = 0, 1, 0, 1 (the secret file has 7 rows)


def test_a_rebuilt_source_outside_the_roots_is_not_read(lake_dirs):
    root, outside = lake_dirs
    forged = lake.Source(path=str(root / "data"), files=(str(outside / "secret.parquet"),), entered="data")
    with pytest.raises(InputError, match=r"'data': 1 file\(s\) lie outside the allowed roots, e\.g\. .*secret\.parquet"):
        lake.parquet_columns(forged)


# --------------------------------------------------------------------------- the DuckDB connection is locked


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/hostname')",
        "SELECT * FROM read_parquet('{other}')",
        "SELECT * FROM read_parquet('{glob}')",
        "SELECT * FROM glob('/etc/*')",
        "COPY (SELECT 1) TO '{out}'",
        "SET enable_external_access = true",
        "SET allowed_paths = ['{other}']",
        "SET lock_configuration = false",
    ],
)
def test_the_runners_connection_reads_nothing_but_its_files(lake_dirs, tmp_path, sql):
    root, outside = lake_dirs
    src, _, run = duckdb_runner(str(root / "data"))
    assert run(f"SELECT count(*) AS n FROM {src}")["n"].tolist() == [4]
    with pytest.raises(InputError, match=r"DuckDB could not aggregate .*(Permission Error|locked)"):
        run(sql.format(other=outside / "secret.parquet", glob=outside / "*.parquet", out=tmp_path / "x.csv"))
    assert not (tmp_path / "x.csv").exists()


def test_the_runner_is_handed_the_checked_file_list_not_the_pattern(lake_dirs):
    root, outside = lake_dirs
    src = _with_late_link(lake_dirs)
    rel, _, run = duckdb_runner(src.path, files=src.real_files)
    assert run(f"SELECT count(*) AS n FROM {rel}")["n"].tolist() == [4]
    with pytest.raises(InputError, match="Permission Error"):
        run(f"SELECT count(*) AS n FROM read_parquet('{root / 'data' / '.late.parquet'}')")


def test_a_locked_connection_of_no_files_reads_nothing():
    import duckdb

    con = duckdb_connect([])
    try:
        with pytest.raises(duckdb.PermissionException, match="file system operations are disabled"):
            con.execute("SELECT * FROM read_csv('/etc/hostname')")
    finally:
        con.close()
