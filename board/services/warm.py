"""The board a fresh session opens, computed before anyone asks (issue 18 item 1).

After an upload, a registration, a binding or drift-settings change, an approval and on a first
start, :func:`precompute` computes the board a new session opens for the dataset (its bound value
table, the default thresholds, the saved settings: :func:`board_config`) on the board cache's
background thread, so the next viewer finds it in the cache (``board.services.board_cache``).
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import Future

from board.services import board_cache
from board.services.board_cache import (
    _CACHES_LOCK,
    _EXECUTOR,
    BoardCache,
    cache_for,
    compute,
    config_json,
    serving_source,
    table_json,
)

__all__ = ["board_config", "default_board_key", "precompute"]

log = logging.getLogger(__name__)

_PENDING: dict[tuple[str, int], Future] = {}


def board_config(store, dataset_id: int, agg, thresholds: dict):
    """The board's settings for ``thresholds``: 1000 replicates, seed 0, clustered by the group id
    when one is mapped (repeat customers are not independent), the drift settings saved with the
    dataset. The app and :func:`precompute` both use it, so their cache keys agree."""
    from board.services.drift_settings import load_config
    from board.services.evaluation import has_groups
    from evalcore.board import BoardConfig

    drift_cfg, _ = load_config(store, dataset_id)
    return BoardConfig(
        thresholds=dict(thresholds),
        n_resamples=1000,
        seed=0,
        scheme="cluster" if has_groups(agg) else "rows",
        drift=drift_cfg.to_dict(),
    )


def default_board_key(store, dataset_id: int) -> tuple:
    """(key, rec, table, config, source, data, rows) of the board a fresh session opens for
    ``dataset_id``: its bound value table, the default thresholds and the saved settings. An
    upload's aggregate is kept in the cache under the key the app reads it by
    (``board.app.state._rows_aggregate``), so a fresh server reads no file; ``rows`` is a callable
    giving the rows (read once, only if something must be counted)."""
    import functools
    import json

    from board.services.drift_settings import load_config
    from board.services.evaluation import (
        bound_table_name,
        default_threshold_of,
        load_aggregate,
        load_predictions,
        load_value_table,
        rows_aggregate,
    )

    rec = store.get_dataset(dataset_id)
    rows = functools.cache(lambda: load_predictions(store, dataset_id))
    if rec.is_aggregate:
        data = load_aggregate(store, dataset_id)
    else:
        drift, _ = load_config(store, dataset_id)
        drift_json = json.dumps(drift.to_dict(), sort_keys=True)
        data = board_cache.cached_aggregate(
            store, board_cache.aggregate_key(rec.sha256, "rows", drift_json), lambda: rows_aggregate(rows(), drift)
        )
    table, _ = load_value_table(store, bound_table_name(store, dataset_id))
    thresholds = {m: default_threshold_of(data, m) for m in data.score_kinds}
    config = board_config(store, dataset_id, data, thresholds)
    source = serving_source(rec, data, config)
    key = BoardCache.key(rec.sha256, table_json(table), config_json(config), source)
    return key, rec, table, config, source, data, rows


def _precompute(store, dataset_id: int) -> str | None:
    from board.services.evaluation import aggregate_serving
    from evalcore.board import aggregate_for_board

    key, rec, table, config, source, data, rows = default_board_key(store, dataset_id)
    cache = cache_for(store)
    if key in cache:
        return key
    if rec.is_aggregate:
        agg = aggregate_serving(store, rec, config, stored=data)
    else:  # counted for the board's settings, kept where the app looks (board.app.state._rows_for)
        agg = board_cache.cached_aggregate(
            store,
            board_cache.aggregate_key(rec.sha256, "serving", config_json(config)),
            lambda: aggregate_for_board(rows(), config),
        )
    cache.put(key, compute(agg, table, config, source))
    return key


def precompute(store, dataset_id: int) -> Future:
    """Compute, on one background thread, the board a fresh session opens for ``dataset_id`` (its
    bound table, default thresholds and settings) into the cache; returns its future (the key, or
    None if it failed: logged, never raised into a page). One job per dataset at a time.
    ``EVALBOARD_PRECOMPUTE=0`` turns it off (the future is then done, with None)."""
    if os.environ.get("EVALBOARD_PRECOMPUTE", "1") == "0":  # the test suite's default: no stray threads
        done: Future = Future()
        done.set_result(None)
        return done
    tag = (str(store.data_dir), dataset_id)
    with _CACHES_LOCK:
        running = _PENDING.get(tag)
        if running is not None and not running.done():
            return running

        def job():
            try:
                return _precompute(store, dataset_id)
            except Exception:  # noqa: BLE001 - a background job must not take a page down
                log.exception("board precompute of dataset %s failed", dataset_id)
                return None

        _PENDING[tag] = fut = _EXECUTOR.submit(job)
        return fut


board_cache._LISTENERS.append(precompute)  # board_cache.changed(store, id) starts it
