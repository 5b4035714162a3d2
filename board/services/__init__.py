"""Use cases shared by the app, the CLI and the export.

``evaluation`` loads a dataset as the aggregate every board number is computed from (rows of an
upload, or a registered path's stored aggregate) and evaluates it; ``datasets`` registers paths;
``signoff`` signs value-table versions and publishes impact reports; ``drift_settings`` reads and
changes a dataset's drift settings; ``demo`` makes the demo data; ``board_cache`` keeps boards
across sessions and restarts and computes them in the background.
"""

from board.services import board_cache, warm  # noqa: F401 - services.board_cache, services.warm (registers the precompute)
from board.services.evaluation import (  # noqa: F401 - the package's API
    DEFAULT_TABLE_NAME,
    ThresholdRange,
    aggregate_serving,
    calibration_gap_notes,
    default_threshold_of,
    ensure_demo,
    evaluate_stored,
    has_groups,
    load_aggregate,
    load_data,
    load_predictions,
    load_value_table,
    model_counts,
    n_rows_of,
    operating_table,
    positive_rate_of,
    resolution_note,
    rows_aggregate,
    segment_names,
    sha256,
    table_version,
    threshold_range,
)

__all__ = [
    "DEFAULT_TABLE_NAME",
    "ThresholdRange",
    "calibration_gap_notes",
    "default_threshold_of",
    "ensure_demo",
    "aggregate_serving",
    "evaluate_stored",
    "has_groups",
    "load_aggregate",
    "load_data",
    "load_predictions",
    "load_value_table",
    "model_counts",
    "n_rows_of",
    "operating_table",
    "positive_rate_of",
    "rows_aggregate",
    "resolution_note",
    "segment_names",
    "sha256",
    "table_version",
    "threshold_range",
]
