"""Datasets registered by path: Parquet on the server, aggregated with DuckDB (no Streamlit here).

A user names a Parquet file, glob (``logs/2026-11-*.parquet``) or folder under one of the
allowed roots; :func:`board.services.datasets.register` aggregates it with
:func:`board.engines.aggregate_source` and stores only the serialized aggregate (:mod:`board.store.aggregate_io`) with the path, the
query and the options. Nothing here copies rows.

Allowed roots: ``$EVALBOARD_PATH_ROOTS`` (``os.pathsep``-separated directories), default
``<data dir>/lake``. Every path is resolved with ``realpath`` (so ``..`` and symlinks
cannot leave a root) and every file a glob or folder matches must lie under a root too.

What a stored aggregate cannot serve — the paired table of two models cut at other
thresholds, a bootstrap scheme it was not aggregated for, drift references fitted with
other settings — :func:`reaggregate` reads the path again with the new options.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import glob
import os
from pathlib import Path

from board.engines.aggregation import SOURCE_VIEW, Query, aggregate_source, duckdb_connect
from board.store import DatasetRecord, default_data_dir
from evalcore import InputError, Problem
from evalcore.aggregate import Aggregate, deployed_thresholds, drift_fit_mismatch

__all__ = [
    "ROOTS_ENV",
    "Source",
    "path_roots",
    "resolve_source",
    "parquet_columns",
    "preview",
    "label_values",
    "query_from_dict",
    "default_options",
    "aggregate",
    "reaggregate",
    "reaggregation_for",
    "describe",
]

ROOTS_ENV = "EVALBOARD_PATH_ROOTS"


def path_roots(data_dir: str | os.PathLike | None = None) -> list[Path]:
    """The directories paths may be read from, resolved (``realpath``)."""
    raw = os.environ.get(ROOTS_ENV, "")
    roots = [r for r in raw.split(os.pathsep) if r.strip()]
    if not roots:
        roots = [str(Path(data_dir) if data_dir is not None else default_data_dir()) + os.sep + "lake"]
    return [Path(os.path.realpath(os.path.expanduser(r.strip()))) for r in roots]


def _under(path: str, roots: list[Path]) -> bool:
    return any(path == str(r) or path.startswith(str(r).rstrip(os.sep) + os.sep) for r in roots)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """A checked path: ``files`` what it matched, ``real_files`` the same files resolved
    (``realpath``, each under an allowed root): the only files an engine reads."""

    path: str
    files: tuple
    entered: str
    real_files: tuple = ()
    roots: tuple = ()  # the roots it was checked against (empty: path_roots())

    def __post_init__(self):
        if not self.real_files:
            object.__setattr__(self, "real_files", tuple(os.path.realpath(f) for f in self.files))

    @property
    def parquet_glob(self) -> str:
        """A read_parquet argument for the path (a folder: every Parquet file below it).

        Deprecated: DuckDB expands it itself, so it may read files :func:`resolve_source` did not
        check. Read through :func:`preview`, :func:`parquet_columns` and :func:`aggregate`."""
        return self.path.rstrip(os.sep) + "/**/*.parquet" if os.path.isdir(self.path) else self.path


class _Listing:
    """What a folder or glob expands to: the files, and every entry on the way that resolves
    outside the roots (a symlink, or ``..``), which is never followed."""

    def __init__(self, roots: list[Path]):
        self.roots, self.files, self.escapes, self.seen = roots, [], [], set()

    def _inside(self, path: str, link: bool) -> bool:
        if not link:
            return True
        real = os.path.realpath(path)
        if _under(real, self.roots):
            return True
        self.escapes.append((path, real))
        return False

    def _entries(self, folder: str):
        """(path, is_link, is_dir) of a folder's entries, hidden names included, by name."""
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
            return [(e.path, e.is_symlink(), e.is_dir()) for e in entries]
        except OSError:
            return []

    def folder(self, folder: str) -> None:
        """Every ``*.parquet`` file below ``folder``; any link in it that leaves the roots is an
        escape (symlinked folders inside the roots are followed, each real folder once)."""
        real = os.path.realpath(folder)
        if ("walk", real) in self.seen:  # a link back up
            return
        self.seen.add(("walk", real))
        for path, link, is_dir in self._entries(folder):
            if not self._inside(path, link):
                continue
            if is_dir:
                self.folder(path)
            elif path.endswith(".parquet") and os.path.isfile(path):
                self.files.append(path)

    def glob(self, folder: str, parts: tuple) -> None:
        """Paths below ``folder`` matching the glob ``parts`` (``**``: any number of folders); a
        matched folder is listed as a folder. Every entry a match uses must stay inside the roots."""
        if not parts:
            if os.path.isdir(folder):
                self.folder(folder)
            elif os.path.exists(folder):
                self.files.append(folder)
            return
        key = (os.path.realpath(folder), parts)
        if key in self.seen:  # a link back up under **
            return
        self.seen.add(key)
        head, rest = parts[0], parts[1:]
        if head == "**":
            self.glob(folder, rest or ("*",))
            for path, link, is_dir in self._entries(folder):
                if is_dir and self._inside(path, link):
                    self.glob(path, parts)
        elif glob.has_magic(head):
            for path, link, _ in self._entries(folder):
                if fnmatch.fnmatchcase(os.path.basename(path), head) and self._inside(path, link):
                    self.glob(path, rest)
        else:
            path = os.path.join(folder, head)
            if os.path.lexists(path) and self._inside(path, os.path.islink(path) or head in (os.curdir, os.pardir)):
                self.glob(path, rest)


def resolve_source(path: str, roots: list[Path] | None = None) -> Source:
    """Check a user's path against the allowed roots; list every problem at once.

    A relative path is taken relative to the first root. The part before the first glob
    character is resolved (``realpath``) and must lie under a root. Then every file the path
    names — the file, each glob match, every ``*.parquet`` below a folder (hidden names
    included, symlinked folders followed) — is resolved again and must lie under a root, and
    any symlink (or ``..``) met on the way that points outside is refused, named. Engines read
    exactly :attr:`Source.real_files`, never the pattern.

    Raises
    ------
    evalcore.InputError
        Blank path, outside the roots, nothing matches, links out of the roots below the path
        (each named), or matches that are not Parquet files.
    """
    roots = path_roots() if roots is None else roots
    where = " or ".join(str(r) for r in roots)
    entered = (path or "").strip()
    if not entered:
        raise InputError(
            Problem(
                code="path_blank",
                message="Enter a path: a Parquet file, a glob or a folder.",
                fix=f"Allowed roots: {where}.",
                column="path",
            )
        )
    p = os.path.expanduser(entered)
    if not os.path.isabs(p):
        p = os.path.join(str(roots[0]), p)
    magic = glob.has_magic(p)
    parts = Path(p).parts
    cut = next((i for i, s in enumerate(parts) if glob.has_magic(s)), len(parts)) if magic else len(parts)
    base = os.path.realpath(os.path.join(*parts[:cut]))
    resolved = os.path.join(base, *parts[cut:]) if magic else base
    problems = []
    if not _under(base, roots):
        problems.append(
            Problem(
                code="path_outside_roots",
                column="path",
                message=f"{entered!r} resolves to {base}, outside the allowed roots ({where}).",
                fix=f"Put the files under {where}, or ask an administrator to add a root to {ROOTS_ENV}.",
            )
        )
        raise InputError(problems)  # nothing outside the roots is even listed
    listing = _Listing(roots)
    if magic:
        listing.glob(base, tuple(parts[cut:]))
    elif os.path.isdir(resolved):
        listing.folder(resolved)
    elif os.path.exists(resolved):
        listing.files.append(resolved)
    files = sorted(set(listing.files))
    if not files and not listing.escapes:
        what = "no Parquet file below this folder" if os.path.isdir(resolved) else "nothing matches"
        problems.append(
            Problem(
                code="path_no_match",
                column="path",
                message=f"{entered!r}: {what} ({resolved}).",
                fix="Check the spelling and that the files exist on the server (not on your computer).",
            )
        )
    outside = list(
        dict.fromkeys(listing.escapes + [(f, os.path.realpath(f)) for f in files if not _under(os.path.realpath(f), roots)])
    )
    if outside:
        shown = "; ".join(f"{f} -> {real}" for f, real in outside[:3])
        more = f" and {len(outside) - 3} more" if len(outside) > 3 else ""
        problems.append(
            Problem(
                code="path_link_outside",
                column="path",
                message=f"{entered!r} contains links to outside the allowed roots ({where}): {shown}{more}.",
                fix="Copy the files under a root instead of linking them, or remove the links.",
                n_rows=len(outside),
            )
        )
    not_parquet = [f for f in files if os.path.isfile(f) and not f.lower().endswith((".parquet", ".pq"))]
    if not_parquet:
        problems.append(
            Problem(
                code="path_not_parquet",
                column="path",
                message=f"{len(not_parquet)} matched file(s) are not Parquet, e.g. {not_parquet[0]}.",
                fix="Narrow the glob to *.parquet files.",
                n_rows=len(not_parquet),
            )
        )
    if problems:
        raise InputError(problems)
    return Source(
        path=resolved,
        files=tuple(files),
        entered=entered,
        real_files=tuple(os.path.realpath(f) for f in files),
        roots=tuple(roots),
    )


def _checked(src: Source) -> tuple:
    """The source's resolved files, each still under an allowed root (a Source may be rebuilt
    from its fields, e.g. by a cached page)."""
    roots = list(src.roots) or path_roots()
    outside = [f for f in src.real_files if not _under(os.path.realpath(f), roots)]
    if outside:
        raise InputError(
            Problem(
                code="path_link_outside",
                column="path",
                message=f"{src.entered!r}: {len(outside)} file(s) lie outside the allowed roots, e.g. {outside[0]}.",
                fix="Enter the path again.",
                n_rows=len(outside),
            )
        )
    return src.real_files


def _duckdb(src: Source, sql_tail: str, *, frame: bool = False):
    """Run ``sql_tail`` with ``{src}`` the source's files, on a connection that reads nothing else."""
    import duckdb

    con = duckdb_connect(_checked(src))
    try:
        cur = con.execute(sql_tail.replace("{src}", SOURCE_VIEW))
        return cur.df() if frame else cur.fetchall()
    except duckdb.Error as err:
        raise InputError(
            Problem(
                code="path_unreadable",
                column="path",
                message=f"DuckDB cannot read {src.entered!r}: {str(err).splitlines()[0]}",
                fix="Check that every matched file is Parquet with the same columns.",
            )
        ) from None
    finally:
        con.close()


def parquet_columns(src: Source) -> dict:
    """Column name -> DuckDB type, from the Parquet schema (``DESCRIBE``; no rows read)."""
    return {r[0]: r[1] for r in _duckdb(src, "DESCRIBE SELECT * FROM {src}")}


def preview(src: Source, n: int = 200):
    """The first ``n`` rows of the source as a DataFrame (DuckDB stops reading once it has them)."""
    return _duckdb(src, f"SELECT * FROM {{src}} LIMIT {int(n)}", frame=True)


def label_values(src: Source, column: str, limit: int = 20) -> list[str]:
    """Up to ``limit`` distinct values of a column, as text (for the positive-value choice)."""
    q = '"' + column.replace('"', '""') + '"'
    rows = _duckdb(
        src, f"SELECT DISTINCT CAST({q} AS VARCHAR) AS v FROM {{src}} WHERE {q} IS NOT NULL ORDER BY v LIMIT {int(limit)}"
    )
    return [r[0] for r in rows]


def query_from_dict(d: dict) -> Query:
    """The engine query stored as a dataset's mapping."""
    names = {f.name for f in dataclasses.fields(Query)}
    kw = {k: v for k, v in d.items() if k in names}
    for k in ("segments", "features"):
        if k in kw:
            kw[k] = tuple(kw[k] or ())
    return Query(**kw)


def default_options(query: dict) -> dict:
    """Registration options: the board's default scheme (clustered when a group id is mapped),
    the default thresholds, and default drift references when a time column is mapped."""
    from evalcore.drift import DriftConfig

    opts = {
        "engine": "duckdb",
        "resolution": "auto",
        "scheme": "cluster" if query.get("group") else "rows",
        "strata_column": None,
        "thresholds": None,
    }
    if query.get("time"):
        opts["drift"] = DriftConfig().to_dict()
    return opts


def aggregate(src: Source, query: dict, options: dict, *, update: Aggregate | None = None) -> Aggregate:
    """Aggregate with DuckDB under ``options`` (see :func:`default_options`); with ``update``
    (the stored aggregate) only what those options change is queried."""
    kw = dict(
        resolution=options.get("resolution", "auto"),
        thresholds=options.get("thresholds"),
        scheme=options.get("scheme", "rows"),
        strata_column=options.get("strata_column"),
    )
    if options.get("drift") is not None:
        from evalcore.drift import DriftConfig

        kw["drift"] = DriftConfig.from_dict(options["drift"])
    try:
        return aggregate_source(src.path, query_from_dict(query), engine="duckdb", update=update, files=_checked(src), **kw)
    except InputError as err:  # one problem per line, so the form lists each
        raise InputError(
            [dataclasses.replace(p, message=line) for p in err.problems for line in p.message.splitlines() if line.strip()]
        ) from None


def describe(rec: DatasetRecord) -> str:
    """One line for lists: "aggregate of N rows from <path>" or "N rows"."""
    if rec.is_aggregate:
        return f"aggregate of {rec.n_rows:,} rows from {rec.source_path}"
    return f"{rec.n_rows:,} rows"


# --------------------------------------------------------------------------- what the stored aggregate cannot serve


def reaggregation_for(agg: Aggregate, options: dict, config) -> dict | None:
    """Options to aggregate again with so that ``evaluate_aggregate(agg, …, config)`` can run,
    or None when the stored aggregate serves ``config`` as it is.

    The paired table of two models is cut at fixed thresholds and for one scheme; per-group
    cells exist only when aggregated for the cluster scheme; feature drift references are
    fitted for one reference window.
    """
    from evalcore.drift import DriftConfig

    change = {}
    boot = config.n_resamples > 0
    two = len(agg.models) == 2
    if boot and config.scheme == "cluster" and (agg.group_cells is None or (two and options.get("scheme") != "cluster")):
        change["scheme"] = "cluster"
    if boot and two and config.scheme == "stratified" and agg.strata_column != config.strata_column:
        change.update(scheme="stratified", strata_column=config.strata_column)
    if boot and two:
        want = deployed_thresholds(agg, config.thresholds)
        if agg.paired_thresholds is None or any(abs(agg.paired_thresholds[m] - want[m]) > 0 for m in agg.models):
            change["thresholds"] = want
    if agg.time_column and agg.feature_refs:
        cfg = DriftConfig.from_dict(config.drift) if config.drift else DriftConfig()
        if drift_fit_mismatch(agg, cfg):
            change["drift"] = cfg.to_dict()
    if not change:
        return None
    out = {**options, **change}
    if change.get("scheme") and "thresholds" not in change and two:
        out["thresholds"] = deployed_thresholds(agg, config.thresholds)  # the paired table is cut again anyway
    return out


def reaggregate(
    rec: DatasetRecord, options: dict, roots: list[Path] | None = None, *, stored: Aggregate | None = None
) -> Aggregate:
    """Read the dataset's path again with DuckDB under ``options``; with the ``stored``
    aggregate only what the options change (a moved threshold: the paired table alone).

    Raises
    ------
    evalcore.InputError
        The path is gone, unreadable or no longer under an allowed root, or its files changed
        since registration (a new cut would not match the stored counts).
    """
    try:
        src = resolve_source(rec.source_path, roots)
    except InputError as err:
        raise InputError(
            [
                Problem(
                    code="path_gone",
                    message=f"The source of “{rec.name}” cannot be read again: " + "; ".join(p.message for p in err.problems),
                    fix="Restore the files at that path, or register the data again.",
                )
            ]
        ) from None
    then, now = rec.report.get("fingerprint"), fingerprint(src.files)
    if then is not None and then != now:
        before, after = {f[0]: f for f in then}, {f[0]: f for f in now}
        added = len(set(after) - set(before))
        removed = len(set(before) - set(after))
        changed = sum(1 for k in set(before) & set(after) if before[k] != after[k])
        raise InputError(
            [
                Problem(
                    code="path_changed",
                    message=(
                        f"The files of “{rec.name}” changed since it was registered ({added} added, {removed} removed, {changed} "
                        "modified): counts cut from them now would not match the stored aggregate."
                    ),
                    fix="Register the path again to evaluate the current files (the stored dataset keeps the old numbers).",
                )
            ]
        )
    return aggregate(src, rec.mapping, options, update=stored)


def fingerprint(files) -> list:
    """[path, size, mtime_ns] of each matched file: what a re-read must still find."""
    out = []
    for f in files:
        st_ = os.stat(f)
        out.append([f, int(st_.st_size), int(st_.st_mtime_ns)])
    return out
