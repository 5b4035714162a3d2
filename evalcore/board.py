"""The board's entry point for rows.

``evaluate(predictions, table, config)`` gives the board of validated rows: it builds their
in-memory aggregate (:func:`aggregate_for_board`) and calls
:func:`evalcore.aggregate.evaluate_aggregate`, the one orchestration that computes every board
number — for rows, stored aggregates and the DuckDB/Spark engines alike — so the page, the CLI
and the export can never disagree. The configuration and result types live in
:mod:`evalcore.results` and are re-exported here. Seeds of the bootstraps: :mod:`evalcore._seeds`.
"""

from __future__ import annotations

import dataclasses

from ._errors import InputError
from .aggregate import aggregate_predictions, evaluate_aggregate
from .data import Predictions
from .drift import DriftConfig
from .results import (
    MAX_EXACT_SCORES,
    BoardConfig,
    BoardDrift,
    BoardResult,
    ModelResult,
    board_drift,  # noqa: F401
    bootstrap_resolution,
    check_thresholds,
    decision_inputs,
    default_threshold,
    heatmap_grid,
)
from .value import ValueTable

__all__ = [
    "BoardConfig",
    "MAX_EXACT_SCORES",
    "bootstrap_resolution",
    "ModelResult",
    "BoardResult",
    "BoardDrift",
    "board_drift",
    "evaluate",
    "aggregate_for_board",
    "decision_inputs",
    "default_threshold",
    "heatmap_grid",
]


def _resampling(predictions: Predictions, config: BoardConfig) -> dict:
    if config.scheme == "stratified":
        if config.strata_column not in predictions.segments:
            raise InputError(
                f"stratified bootstrap by {config.strata_column!r}: not a mapped segment column; "
                f"segments are {sorted(predictions.segments)}."
            )
        return {"strata": predictions.segments[config.strata_column]}
    if config.scheme == "cluster":
        if predictions.groups is None:
            raise InputError("the cluster bootstrap needs a group id column (e.g. customer id); map one or use rows.")
        return {"groups": predictions.groups}
    return {}


def evaluate(
    predictions: Predictions, table: ValueTable, config: BoardConfig | None = None, *, counts: dict | None = None, progress=None
) -> BoardResult:
    """Compute the whole board of validated rows.

    A thin adapter: the rows become their in-memory aggregate (:func:`aggregate_for_board`:
    exact scores, the board's thresholds, strata column, groups and drift settings) and
    :func:`evalcore.aggregate.evaluate_aggregate` — the one orchestration, shared with the
    DuckDB/Spark engines — computes every number from it, equal to the rows' (see
    "Exactness" in :mod:`evalcore.aggregate`).

    Parameters
    ----------
    predictions : Predictions
        Validated rows.
    table : ValueTable
    config : BoardConfig, default=None
        Default ``BoardConfig()``. With ``n_resamples == 0`` no bootstrap runs.
    counts : dict, default=None
        Model -> precomputed :class:`ScoreCounts` of its rows (a cache).
    progress : callable(done, total, what), default=None
        Called as the bootstrap advances.

    Returns
    -------
    BoardResult
        Without ``aggregate`` (a board of rows states no engine).

    Raises
    ------
    InputError
        Thresholds for unknown models; the stratified scheme by a column that is not a
        mapped segment; the cluster scheme without a group column.
    """
    config = config or BoardConfig()
    agg = aggregate_for_board(predictions, config)
    result = evaluate_aggregate(agg, table, config, counts=counts, progress=progress)
    return dataclasses.replace(result, aggregate=None)


def aggregate_for_board(predictions: Predictions, config: BoardConfig | None = None):
    """The in-memory :class:`evalcore.aggregate.Aggregate` of validated rows that
    :func:`evalcore.aggregate.evaluate_aggregate` turns into the board of ``config``.

    Exact scores (``resolution=None``) and the rows' draws (``exact_draws=True``: strata and
    groups in first-appearance order, weighted cells split by the rows' weight), the paired
    table cut at the board's thresholds (by
    ``strata_column`` for the stratified scheme), per-group cells for the cluster scheme and
    per-day drift tables fitted with ``config.drift`` (when a time column is mapped).

    Raises
    ------
    InputError
        As :func:`evaluate`: unknown models in the thresholds, a stratified scheme by an
        unmapped column, a cluster scheme without groups (only when resampling).
    """
    config = config or BoardConfig()
    check_thresholds(config, predictions.scores)
    boot = config.n_resamples > 0
    res_kw = _resampling(predictions, config) if boot else {}
    dcfg = None
    if predictions.time is not None:
        dcfg = DriftConfig.from_dict(config.drift) if config.drift else DriftConfig()
    return aggregate_predictions(
        predictions,
        resolution=None,
        thresholds=config.thresholds,
        strata_column=config.strata_column if "strata" in res_kw else None,
        groups="groups" in res_kw,
        drift=dcfg,
        exact_draws=True,
    )
