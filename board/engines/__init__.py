"""DuckDB / Spark aggregation of Parquet data and path sources (below services; imports only store and evalcore)."""

from board.engines.aggregation import (  # noqa: F401 - the package's API
    ENGINES,
    EXACT_REFERENCE_VALUES,
    Query,
    aggregate_source,
    cells_sql,
    duckdb_runner,
    group_sql,
    paired_sql,
    spark_runner,
    stats_sql,
    types_sql,
)

__all__ = [
    "ENGINES",
    "EXACT_REFERENCE_VALUES",
    "Query",
    "aggregate_source",
    "cells_sql",
    "duckdb_runner",
    "group_sql",
    "paired_sql",
    "spark_runner",
    "stats_sql",
    "types_sql",
]
