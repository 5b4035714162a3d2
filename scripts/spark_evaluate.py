"""Entry point for spark-submit, which runs a file, not a module:

    spark-submit --master yarn --driver-memory 4g scripts/spark_evaluate.py evaluate --engine spark \
        --predictions db.validation_log --label is_fraud --score new=score_new --time event_time … --json board.json

The same arguments as ``python -m board``. Only the driver runs evalboard's Python; the
aggregation is Spark SQL (and MLlib's Bucketizer for drift features), so executors need
nothing installed.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
