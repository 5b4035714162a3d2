"""Application services shared by pages, the CLI and the export (no Streamlit here).

Pages call these through the cached wrappers in :mod:`board.app.state`; the CLI calls them
directly, so the app and the CLI can never disagree.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass

import numpy as np

from board.services import demo
from board.services.limits import upload_limits
from evalcore import InputError, ValueTable
from evalcore.aggregate import Aggregate, counts_of
from evalcore.counts import ScoreCounts
from evalcore.data import ColumnMapping, Predictions, read_table, validate
from evalcore.drift import DriftConfig

DEFAULT_TABLE_NAME = demo.DEMO_VALUE_TABLE["name"]


def sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def ensure_demo(store, which: str = demo.DEFAULT_DEMO):
    """Store the demo datasets (:data:`board.services.demo.DEMOS`) and the demo value table, each
    once; return the record of demo ``which`` ("stable" — the default, the one the app opens — or
    "drifting").

    Idempotent: a demo is found by the SHA-256 of its bytes and stored only when absent, in the
    order of ``DEMOS`` (the drifting week, then the stable weeks, which is then the newest demo
    and the one the sidebar opens). An install that has only the single demo of earlier
    versions (the drifting week, under its old name) gains the stable weeks the same way.
    """
    if which not in {d.key for d in demo.DEMOS}:
        raise InputError(f"which must be one of {sorted(d.key for d in demo.DEMOS)}; got {which!r}.")
    records, new = {}, []
    for d in demo.DEMOS:
        raw = demo.demo_csv_bytes(drift=d.drift)
        rec = store.find_dataset_by_sha(sha256(raw))
        if rec is None:
            report, n_rows = demo.demo_report(d.drift)
            rec = store.save_dataset(
                name=d.name,
                filename=d.filename,
                raw=raw,
                mapping=demo.DEMO_MAPPING,
                report=copy.deepcopy(report),
                n_rows=n_rows,
                uploader="evalboard demo",
            )
            new.append(rec.id)
        records[d.key] = rec
    if not store.list_value_tables():  # once: never over an approved history, nor after a rename
        store.save_value_table_draft(
            DEFAULT_TABLE_NAME, dict(demo.DEMO_VALUE_TABLE), author="evalboard demo", reason="SPEC §2.2 example amounts"
        )
    demo.ensure_chinese(store)  # Demo 3, in Chinese, bound to its own value table in 元 (stored after the default table)
    if records[which].id in new:  # a first start: the board it opens is computed in the background now
        from board.services.board_cache import changed

        changed(store, records[which].id)
    return records[which]


def load_predictions(store, dataset_id: int) -> Predictions:
    """Re-read a stored upload and validate it with its stored mapping: the rows, for what truly
    needs rows (re-training, cross-fitted recalibration). Every board number comes from the
    aggregate (:func:`load_data`).

    Raises ``InputError`` for a dataset registered by path: only its aggregate is stored."""
    rec = store.get_dataset(dataset_id)
    if rec.is_aggregate:
        raise InputError(f"dataset {rec.id} ({rec.name!r}) is an aggregate of {rec.source_path}: it has no rows.")
    raw = store.load_bytes(rec)
    return validate(read_table(raw, rec.filename, **upload_limits()), ColumnMapping.from_dict(rec.mapping))


def load_late_labels(store, dataset_id: int):
    """An upload whose labels arrive late (its mapping has a label-known rule): every row with the
    flag saying whose label has arrived (:func:`evalcore.data.late_labels`, as the CLI), for value
    over time; :func:`load_predictions` gives the labelled rows the board uses."""
    from evalcore.data import late_labels

    rec = store.get_dataset(dataset_id)
    if rec.is_aggregate:
        raise InputError(f"dataset {rec.id} ({rec.name!r}) is an aggregate of {rec.source_path}: it has no rows.")
    raw = store.load_bytes(rec)
    return late_labels(read_table(raw, rec.filename, **upload_limits()), ColumnMapping.from_dict(rec.mapping))


def load_aggregate(store, dataset_id: int) -> Aggregate:
    """The stored aggregate of a dataset registered by path."""
    from board.store.aggregate_io import from_bytes

    rec = store.get_dataset(dataset_id)
    if not rec.is_aggregate:
        raise InputError(f"dataset {rec.id} ({rec.name!r}) is an upload, not an aggregate.")
    return from_bytes(store.load_bytes(rec))


def rows_aggregate(preds: Predictions, drift: DriftConfig | None = None) -> Aggregate:
    """The exact in-memory aggregate of an upload's rows that every page reads (DESIGN: one path):
    every distinct score, per-group cells when a group id is mapped, per-day drift tables
    fitted with ``drift`` when a time column is mapped, and the rows' draws
    (:func:`evalcore.board.aggregate_for_board`)."""
    from evalcore.aggregate import aggregate_predictions

    return aggregate_predictions(
        preds,
        resolution=None,
        groups=preds.groups is not None,
        drift=(drift or DriftConfig()) if preds.time is not None else None,
        exact_draws=True,
    )


def load_data(store, dataset_id: int, drift: DriftConfig | None = None) -> Aggregate:
    """The aggregate of a stored dataset, whatever its source: the rows' exact aggregate of an
    upload (drift tables fitted with ``drift``), or the stored aggregate of a registered path."""
    rec = store.get_dataset(dataset_id)
    if rec.is_aggregate:
        return load_aggregate(store, dataset_id)
    return rows_aggregate(load_predictions(store, dataset_id), drift)


def aggregate_serving(store, rec, config, *, stored: Aggregate | None = None, rows: Predictions | None = None):
    """The aggregate that serves ``config`` (thresholds of the paired table, scheme, drift
    references): an upload's rows aggregated for it, or a registered path's stored aggregate —
    aggregated again from its path when it cannot serve ``config``
    (:func:`board.engines.lake.reaggregation_for`). ``stored``/``rows`` pass what a caller has
    cached already."""
    from evalcore.board import aggregate_for_board

    if not rec.is_aggregate:
        return aggregate_for_board(rows if rows is not None else load_predictions(store, rec.id), config)
    from board.engines.lake import reaggregate, reaggregation_for

    data = stored if stored is not None else load_aggregate(store, rec.id)
    options = reaggregation_for(data, rec.options or {}, config)
    return data if options is None else reaggregate(rec, options, stored=data)


def evaluate_stored(store, dataset_id: int, table: ValueTable, config):
    """The board of a stored dataset, whatever its source (rows or a registered path)."""
    import dataclasses

    from evalcore.aggregate import evaluate_aggregate

    rec = store.get_dataset(dataset_id)
    result = evaluate_aggregate(aggregate_serving(store, rec, config), table, config)
    return result if rec.is_aggregate else dataclasses.replace(result, aggregate=None)  # rows state no engine


def has_groups(agg: Aggregate) -> bool:
    """Whether the cluster bootstrap is possible (a group id was mapped)."""
    return agg.group_cells is not None


def n_rows_of(agg: Aggregate) -> int:
    return agg.totals()[2]


def positive_rate_of(agg: Aggregate) -> float:
    n, n_pos, _ = agg.totals()
    return n_pos / n if n > 0 else float("nan")


def segment_names(agg: Aggregate) -> list:
    return list(agg.segments)


def resolution_note(agg: Aggregate) -> str:
    """How exact an aggregate's curves are, per model (the README's "Large data" rule)."""
    parts = [
        f"{m} exact (every distinct score)" if r is None else f"{m} at score resolution {r:g} (thresholds are bin lower edges)"
        for m, r in agg.resolution.items()
    ]
    return "From the stored aggregate: " + "; ".join(parts) + "."


def default_threshold_of(agg: Aggregate, model: str) -> float:
    """The board's default deployed threshold (:func:`evalcore.board.default_threshold`)."""
    from evalcore.aggregate import deployed_thresholds

    return float(deployed_thresholds(agg, {})[model])


def load_value_table(store, name: str = DEFAULT_TABLE_NAME) -> tuple[ValueTable, int | None]:
    """The table a session starts from, and the open draft's row version (None without a draft).

    The open draft if there is one (what is being worked on: editing anything else could
    overwrite it), else the latest approved version, else the built-in demo table. The board
    says which one it priced with (:func:`table_version_label`).
    """
    draft = store.get_value_table_draft(name)
    if draft is not None:
        return ValueTable.from_dict(draft.amounts), draft.row_version
    approved = store.latest_approved_version(name)
    if approved is not None:
        return ValueTable.from_dict(approved.amounts), None
    return ValueTable.from_dict(demo.DEMO_VALUE_TABLE), None


def table_version(store, name: str, table: ValueTable):
    """(label, stored version or None) of the table a session prices with.

    The label names the stored version the table equals ("v2026.Q4 (approved)", "draft r3",
    "pending v2027.Q1"), or says the session has unsaved edits; the version is None then.
    """
    candidates = [store.get_value_table_draft(name), store.latest_approved_version(name)]
    candidates += [v for v in store.list_value_table_versions(name) if v.status == "pending"]
    for v in candidates:
        if v is not None and ValueTable.from_dict(v.amounts).to_dict() == table.to_dict():
            if v.status == "approved":
                return f"{v.label} (approved)", v
            if v.status == "draft":
                return f"draft r{v.row_version} (not approved)", v
            return f"{v.label} ({v.status}, not approved)", v
    if (
        candidates[0] is None
        and candidates[1] is None
        and table.to_dict() == ValueTable.from_dict(demo.DEMO_VALUE_TABLE).to_dict()
    ):
        return "built-in demo amounts", None
    return "unsaved edits (not approved)", None


# --------------------------------------------------------------------------- several value tables


def bound_table_name(store, dataset_id: int | None) -> str:
    """The value table dataset ``dataset_id``'s board is priced with: the one it is bound to
    (chosen at upload, changed on the Datasets page), else the default table."""
    if dataset_id is None:
        return DEFAULT_TABLE_NAME
    return store.get_dataset_value_table(dataset_id) or DEFAULT_TABLE_NAME


def active_table_names(store) -> list[str]:
    """The value tables the selectors offer: every table not archived, sorted by name."""
    return [t.name for t in store.list_value_table_infos(include_archived=False)]


def default_binding(store, *, label: str | None = None) -> str:
    """The table a new upload is bound to unless the uploader picks another: the last one used
    for that kind of data (the newest dataset bound to a table, preferring the same label
    column), else the default table if it is in use, else the first table in use."""
    last = store.last_bound_value_table(label=label)
    if last is not None and (last != demo.ZH_VALUE_TABLE["name"] or label == demo.ZH_MAPPING["label"]):
        return last  # the Chinese demo's own binding is set up, not a use: it picks its table only for its label
    names = active_table_names(store)
    return DEFAULT_TABLE_NAME if DEFAULT_TABLE_NAME in names or not names else names[0]


def is_approved(version) -> bool:
    """Whether a board priced with ``version`` (from :func:`table_version`) is priced with an
    approved version; False for a draft, a pending version or unsaved edits."""
    return version is not None and version.status == "approved"


#: What a new value table starts from (the Value table page's "New table"): the demo's amounts
#: under another name, or zeros in a unit the editor names.
TEMPLATES = ("demo amounts", "all zeros")


def template_amounts(template: str, *, unit: str = "") -> dict:
    """The amounts of a new value table made from ``template`` (one of :data:`TEMPLATES`)."""
    if template == "demo amounts":
        return {k: v for k, v in demo.DEMO_VALUE_TABLE.items() if k != "name"}
    if template == "all zeros":
        return {"tp": 0.0, "fp": 0.0, "fn": 0.0, "tn": 0.0, "unit": unit}
    raise InputError(f"template must be one of {', '.join(TEMPLATES)}; got {template!r}.")


def model_counts(agg: Aggregate, model: str) -> ScoreCounts:
    """Counts by distinct score (the stated resolution of a registered path's aggregate)."""
    return counts_of(agg.part(model), agg.resolution[model])


@dataclass(frozen=True, slots=True)
class ThresholdRange:
    low: float
    high: float
    step: float


def threshold_range(preds: Aggregate, model: str) -> ThresholdRange:
    """Slider range in the score's own units."""
    kind = preds.score_kinds[model]
    if kind in ("probability", "decision"):
        return ThresholdRange(0.0, 1.0, 0.001)
    lo, hi = preds.score_range(model)
    lo, hi = float(np.floor(lo)), float(np.ceil(hi))
    if hi <= lo:
        hi = lo + 1.0
    return ThresholdRange(lo, hi, float(10 ** np.floor(np.log10((hi - lo) / 1000))))


__all__ = [
    "ensure_demo",
    "load_predictions",
    "load_aggregate",
    "load_data",
    "rows_aggregate",
    "aggregate_serving",
    "evaluate_stored",
    "has_groups",
    "n_rows_of",
    "positive_rate_of",
    "segment_names",
    "default_threshold_of",
    "load_value_table",
    "table_version",
    "bound_table_name",
    "active_table_names",
    "default_binding",
    "is_approved",
    "TEMPLATES",
    "template_amounts",
    "model_counts",
    "threshold_range",
    "sha256",
    "InputError",
]


def operating_table(curves: dict, deployed: dict, unit: str = "") -> "list[dict]":
    """Rows of the 'at the deployed threshold' table, one per model (numbers from evalcore)."""
    rows = []
    for name, c in curves.items():
        t = deployed[name]
        m = c.confusion_at(t)
        lo, hi = c.t_opt_interval
        rows.append(
            {
                "model": name,
                "deployed t": t,
                "TP": m.tp,
                "FP": m.fp,
                "FN": m.fn,
                "TN": m.tn,
                "accuracy": m.accuracy,
                "precision": m.precision,
                "recall": m.recall,
                "F1": m.f1,
                "FPR": m.fpr,
                "positive rate": m.positive_rate,
                "EV at deployed": c.ev_at(t),
                "t_opt": c.t_opt,
                "t_opt interval": f"({lo:.4g}, {hi:.4g}]" if np.isfinite(c.t_opt) else "—",
                "EV at optimum": c.ev_opt,
                "Bayes t*": c.bayes_threshold,
                "flat range (±1%)": f"[{c.flatness[0]:.4g}, {c.flatness[1]:.4g}]" if np.isfinite(c.flatness[0]) else "—",
                "sharpness": c.sharpness,
            }
        )
    return rows


def calibration_gap_notes(curves: dict, *, limit: float = 0.1) -> list[str]:
    """A note per model whose Bayes t* and empirical optimum disagree by more than ``limit``."""
    notes = []
    for name, c in curves.items():
        if np.isfinite(c.bayes_threshold) and np.isfinite(c.t_opt) and abs(c.bayes_threshold - c.t_opt) > limit:
            notes.append(
                f"{name}: the closed-form Bayes threshold t* = {c.bayes_threshold:.3f} and the empirical optimum "
                f"{c.t_opt:.3f} differ by {abs(c.bayes_threshold - c.t_opt):.3f} (> {limit}): the scores are "
                "probably miscalibrated — check the Calibration page before trusting t*."
            )
    return notes
