"""The configured size limits of an upload: how many rows and columns one file may hold.

:func:`evalcore.data.read_table` takes the limits as arguments (evalcore reads no
environment); the app's upload and the CLI get them here, from ``EVALBOARD_MAX_ROWS`` and
``EVALBOARD_MAX_COLUMNS`` (defaults :data:`evalcore.data.MAX_ROWS` = 5,000,000 and
:data:`evalcore.data.MAX_COLUMNS` = 2,000). Data larger than that is registered by path
(:mod:`board.engines.lake`), where DuckDB aggregates it without loading the rows.
"""

from __future__ import annotations

import os

from evalcore import InputError, Problem
from evalcore.data import MAX_COLUMNS, MAX_ROWS

__all__ = ["ROWS_ENV", "COLUMNS_ENV", "upload_limits"]

ROWS_ENV = "EVALBOARD_MAX_ROWS"
COLUMNS_ENV = "EVALBOARD_MAX_COLUMNS"


def _positive_int(env: str, default: int) -> int:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(
            Problem(
                code="limit_invalid",
                message=f"{env}={raw!r} is not a positive whole number.",
                fix=f"Set {env} to a number such as {default} (or unset it for that default).",
            )
        )
    return value


def upload_limits() -> dict:
    """``{"max_rows": …, "max_columns": …}`` for :func:`evalcore.data.read_table`.

    Raises
    ------
    evalcore.InputError
        ``EVALBOARD_MAX_ROWS`` or ``EVALBOARD_MAX_COLUMNS`` is set but not a positive whole
        number (code ``limit_invalid``; both are checked, every problem listed).
    """
    out, problems = {}, []
    for key, env, default in (("max_rows", ROWS_ENV, MAX_ROWS), ("max_columns", COLUMNS_ENV, MAX_COLUMNS)):
        try:
            out[key] = _positive_int(env, default)
        except InputError as err:
            problems += err.problems
    if problems:
        raise InputError(problems)
    return out
