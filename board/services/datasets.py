"""Use cases of datasets: register a Parquet path (aggregated where it lies, only the aggregate stored).

The engine work (path checks, DuckDB aggregation) is :mod:`board.engines.lake`; here the role is
checked, then the aggregate is stored with its audit entry in one transaction, so a refused or
failed registration stores nothing (and a stored one is always audited).
"""

from __future__ import annotations

from pathlib import Path

from board.access import governance
from board.engines import lake
from board.store import DatasetRecord, Store, aggregate_io
from evalcore import InputError, Problem

__all__ = ["AUDIT_ACTION", "register"]

AUDIT_ACTION = "register_dataset"


def register(
    store: Store, user, *, name: str, path: str, query: dict, roots: list[Path] | None = None, options: dict | None = None
) -> DatasetRecord:
    """Check the path, aggregate it with DuckDB, store the aggregate, audit it.

    Raises
    ------
    evalcore.InputError
        Every problem with the name, the path or the data (nothing is stored).
    board.access.governance.Forbidden
        The user's role may not add datasets.
    """
    governance.require(user, "upload_dataset")
    problems = []
    if not (name or "").strip():
        problems.append(Problem(code="name_blank", message="Give the dataset a name.", column="name"))
    if not query.get("label"):
        problems.append(Problem(code="label_missing", message="Choose the label column.", column="label"))
    if not query.get("scores"):
        problems.append(Problem(code="scores_missing", message="Choose one or two score columns.", column="scores"))
    try:
        src = lake.resolve_source(path, roots)
    except InputError as err:
        raise InputError(problems + err.problems) from None
    if problems:
        raise InputError(problems)
    options = options or lake.default_options(query)
    agg = lake.aggregate(src, query, options)
    raw = aggregate_io.to_bytes(agg)
    n, n_pos, n_rows = agg.totals()
    report = {
        "n_rows": n_rows,
        "positive_rate": n_pos / n if n > 0 else None,
        "models": agg.models,
        "score_kinds": dict(agg.score_kinds),
        "resolution": dict(agg.resolution),
        "files": len(src.files),
        "source": src.path,
        "segments": list(agg.segments),
        "engine": "duckdb",
        "fingerprint": lake.fingerprint(src.files),
    }
    rec = store.save_aggregate_dataset(
        name=name.strip(),
        source_path=src.path,
        query=dict(query),
        options=options,
        raw=raw,
        report=report,
        n_rows=n_rows,
        uploader=user.username,
        audit=lambda rec: (
            user.username,
            AUDIT_ACTION,
            rec.name,
            {"dataset_id": rec.id, "sha256": rec.sha256, "path": src.path, "files": len(src.files)},
        ),
    )
    from board.services.warm import precompute

    precompute(store, rec.id)  # its first board, in the background (issue 18)
    return rec
