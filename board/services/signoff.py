"""Sign-off with its impact report: the signature (:func:`board.access.governance.sign`) and,
when the third signature approves the version, a re-evaluation of every stored evaluation that
used the previous approved version (for the first approved version: the stored evaluations of
that table that recorded no version), stored as an impact report.

Issue 16 item 4: the report also holds, for every dataset bound to the table (the default
table's include the unbound ones), the board under the version in force and under the proposed
amounts, computed from the dataset itself (no saved snapshot needed): verdict, uplift
EV_B - EV_A, each model's optimum and EV at the deployed threshold, before -> after
(:func:`dataset_impacts`). The same function is the signer's preview before approval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from board.access import governance
from board.access.auth import User
from board.services.drift_settings import load_config as load_drift_config
from board.services.evaluation import (
    DEFAULT_TABLE_NAME,
    aggregate_serving,
    evaluate_stored,
    load_aggregate,
    load_predictions,
)
from board.store import APPROVED, EvaluationRecord, ImpactReportRecord, Store, ValueTableVersionRecord
from board.words import impact as impact_words
from board.words.verdict import plain_verdict
from evalcore import CELLS, ValueTable
from evalcore.aggregate import Aggregate, deployed_thresholds, evaluate_aggregate
from evalcore.board import BoardConfig, aggregate_for_board

__all__ = [
    "IMPACT_RESAMPLES",
    "SignResult",
    "amounts_diff",
    "bound_datasets",
    "dataset_impact",
    "dataset_impacts",
    "impact_report",
    "publish_impact",
    "reevaluate_stored",
    "sign_version",
]


class SignResult:
    """What a signature did: the version (maybe approved), its signatures, and the impact report."""

    __slots__ = ("version", "signoffs", "report")

    def __init__(self, version, signoffs, report):
        self.version: ValueTableVersionRecord = version
        self.signoffs = signoffs
        self.report: ImpactReportRecord | None = report

    @property
    def approved(self) -> bool:
        return self.version.status == APPROVED


Reevaluate = Callable[[EvaluationRecord, dict], dict]


def sign_version(
    store: Store,
    actor: User,
    version_id: int,
    *,
    comment: str = "",
    expected_hash: str | None = None,
    reevaluate: Reevaluate | None = None,
    thresholds: dict | None = None,
) -> SignResult:
    """Sign a pending version for the actor's role; the third role's signature approves it.

    Parameters
    ----------
    expected_hash : str, optional
        :func:`board.access.governance.content_hash` of the amounts the signer was shown; the
        store refuses the signature when the version's amounts differ now.
    reevaluate : callable, optional
        ``reevaluate(evaluation, amounts) -> BoardResult.to_dict()`` used for the impact
        report; default :func:`reevaluate_stored` (the stored dataset and config, the new table).
    thresholds : dict, optional
        dataset id -> {model: deployed threshold} for :func:`dataset_impacts` (the signer's
        board); other datasets use the board's default thresholds.
    """
    version, signoffs = governance.sign(store, actor, version_id, comment=comment, expected_hash=expected_hash)
    report = publish_impact(store, version, reevaluate=reevaluate, thresholds=thresholds) if version.status == APPROVED else None
    if version.status == APPROVED:  # the boards priced with the new version, in the background (issue 18)
        from board.services.warm import precompute

        for rec in bound_datasets(store, version.table_name):
            precompute(store, rec.id)
    return SignResult(version, signoffs, report)


def amounts_diff(proposed: dict, in_force: dict | None) -> list[dict]:
    """The proposed amounts beside the version in force, one row per outcome (TP, FP, FN, TN),
    then the unit and the production prevalence when either differs.

    Each row: ``item``, ``in_force`` and ``proposed`` (amount, or None without a version in
    force), ``change`` (proposed - in force; None when undefined), ``confidence_in_force``,
    ``confidence_proposed``, ``changed`` (amount or confidence differs, or nothing is in force),
    and the proposed ``description`` and ``source`` of the outcome.
    """
    new = ValueTable.from_dict(proposed).to_dict()
    old = None if in_force is None else ValueTable.from_dict(in_force).to_dict()
    rows = []
    for c in CELLS:
        before = None if old is None else old[c]
        conf_before = None if old is None else old["confidence"][c]
        rows.append(
            {
                "item": c.upper(),
                "in_force": before,
                "proposed": new[c],
                "change": None if before is None else new[c] - before,
                "confidence_in_force": conf_before,
                "confidence_proposed": new["confidence"][c],
                "changed": old is None or before != new[c] or conf_before != new["confidence"][c],
                "description": new["descriptions"].get(c, ""),
                "source": new["sources"].get(c, ""),
            }
        )
    for key, item in (("unit", "Unit"), ("prevalence", "Production prevalence")):
        before = None if old is None else old[key]
        if old is None or before != new[key]:
            rows.append(
                {
                    "item": item,
                    "in_force": before,
                    "proposed": new[key],
                    "change": None,
                    "confidence_in_force": None,
                    "confidence_proposed": None,
                    "changed": True,
                    "description": "",
                    "source": "",
                }
            )
    return rows


def reevaluate_stored(store: Store, evaluation: EvaluationRecord, amounts: dict) -> dict:
    """Evaluate a stored evaluation's dataset again with its stored config and new amounts."""

    config = evaluation.result.get("config") if isinstance(evaluation.result, dict) else None
    # rows or a path-registered aggregate (re-aggregated from its path when the stored cut does not fit)
    return evaluate_stored(
        store, evaluation.dataset_id, ValueTable.from_dict(amounts), BoardConfig(**(config or evaluation.config))
    ).to_dict()


def _model_numbers(result: dict) -> dict:
    out = {}
    for name, m in (result.get("models") or {}).items():
        out[name] = {
            "ev": (m.get("at_threshold") or {}).get("ev"),
            "t_opt": (m.get("curve") or {}).get("t_opt"),
            "ev_opt": (m.get("curve") or {}).get("ev_opt"),
        }
    return out


def _ranks(numbers: dict) -> dict:
    """Rank 1 = highest EV at the deployed threshold; an undefined EV ranks last."""
    order = sorted(numbers, key=lambda n: (numbers[n]["ev"] is None, -(numbers[n]["ev"] or 0.0)))
    return {name: i + 1 for i, name in enumerate(order)}


def _diff(a, b):
    return None if a is None or b is None else b - a


def impact_report(before: dict, after: dict) -> dict:
    """Compare two ``BoardResult.to_dict()`` of the same data under two value tables.

    Returns, per model: EV at the deployed threshold before/after and its change, rank
    before/after (1 = best EV), t_opt before/after and how far it moved; and the action
    sentence before/after and whether it changed.
    """
    nb, na = _model_numbers(before), _model_numbers(after)
    rb, ra = _ranks(nb), _ranks(na)
    models = {}
    for name in na:
        b, a = nb.get(name, {}), na[name]
        models[name] = {
            "ev_before": b.get("ev"),
            "ev_after": a["ev"],
            "ev_change": _diff(b.get("ev"), a["ev"]),
            "rank_before": rb.get(name),
            "rank_after": ra[name],
            "t_opt_before": b.get("t_opt"),
            "t_opt_after": a["t_opt"],
            "t_opt_moved": _diff(b.get("t_opt"), a["t_opt"]),
        }
    return {
        "models": models,
        "rank_changed": any(m["rank_before"] != m["rank_after"] for m in models.values()),
        "action_before": before.get("action"),
        "action_after": after.get("action"),
        "action_changed": before.get("action") != after.get("action"),
    }


def publish_impact(
    store: Store, version: ValueTableVersionRecord, *, reevaluate: Reevaluate | None = None, thresholds: dict | None = None
) -> ImpactReportRecord:
    """Re-evaluate the stored evaluations that used the previous version, and every dataset bound
    to the table (:func:`dataset_impacts`, no snapshot needed), and store the report."""
    previous = store.latest_approved_version(version.table_name, before_id=version.id)
    if reevaluate is None:

        def reevaluate(ev, amounts):
            return reevaluate_stored(store, ev, amounts)

    entries = []
    for ev in store.list_evaluations():
        result = ev.result if isinstance(ev.result, dict) else {}
        if previous is not None:
            used = ev.value_table_version_id == previous.id
        else:  # first approved version: the evaluations of this table that recorded no version
            used = ev.value_table_version_id is None and (result.get("value_table") or {}).get("name") == version.table_name
        if not used:
            continue
        try:
            after = reevaluate(ev, version.amounts)
        except Exception as err:  # noqa: BLE001 - one unreadable dataset must not block the approval
            entries.append({"evaluation_id": ev.id, "dataset_id": ev.dataset_id, "error": str(err)})
            continue
        entries.append(
            {
                "evaluation_id": ev.id,
                "dataset_id": ev.dataset_id,
                "dataset_name": result.get("dataset_name"),
                **impact_report(result, after),
            }
        )
    report = {
        "table": version.table_name,
        "from_version": previous.label if previous else None,
        "from_version_id": previous.id if previous else None,
        "to_version": version.label,
        "to_version_id": version.id,
        "evaluations": entries,
        "unit_before": (previous.amounts.get("unit") or "") if previous else None,
        "unit_after": version.amounts.get("unit") or "",
        "datasets": dataset_impacts(
            store, version.table_name, previous.amounts if previous else None, version.amounts, thresholds=thresholds
        ),
    }
    return store.save_impact_report(
        table_id=version.table_id, from_version_id=previous.id if previous else None, to_version_id=version.id, report=report
    )


# --------------------------------------------------------------------------- impact per bound dataset (issue 16 item 4)

#: Bootstrap replicates of the impact boards (the verdict needs the paired comparison); the
#: board itself uses 1000, so a verdict near the line may differ from the board's.
IMPACT_RESAMPLES = 200


def bound_datasets(store: Store, table_name: str) -> list:
    """The datasets whose board is priced with ``table_name`` (:func:`bound_table_name`: the
    bound table, else the default table), in the store's order (newest first)."""
    bindings = store.dataset_value_tables()
    return [r for r in store.list_datasets() if (bindings.get(r.id) or DEFAULT_TABLE_NAME) == table_name]


def impact_config(store: Store, rec, agg: Aggregate, thresholds: dict | None = None) -> BoardConfig:
    """The board's configuration of a dataset (as :func:`board.app.state.board_config`: its drift
    settings, clustered by the group id when mapped) with :data:`IMPACT_RESAMPLES` replicates and
    ``thresholds`` (missing models: the board's default threshold)."""
    drift_cfg, _ = load_drift_config(store, rec.id)
    return BoardConfig(
        thresholds=deployed_thresholds(agg, dict(thresholds or {})),
        n_resamples=IMPACT_RESAMPLES,
        seed=0,
        scheme="cluster" if agg.group_cells is not None else "rows",
        drift=drift_cfg.to_dict(),
    )


def _board_numbers(result) -> dict:
    """Verdict word, uplift EV_B - EV_A (None with one model) and per model: threshold, EV at it, t_opt."""
    names = list(result.models)
    c = result.comparison
    a, b = (c.a, c.b) if c is not None else (names[0], names[1] if len(names) > 1 else None)
    models = {
        m: {"threshold": float(r.threshold), "ev": _num(r.ev), "t_opt": _num(r.curve.t_opt)} for m, r in result.models.items()
    }
    uplift = None if b is None else _diff(models[a]["ev"], models[b]["ev"])
    return {"verdict": plain_verdict(result).word, "a": a, "b": b, "uplift": uplift, "models": models}


def _num(x):
    return None if x is None or not np.isfinite(x) else float(x)


def dataset_impact(agg: Aggregate, before: dict | None, after: dict, config: BoardConfig) -> dict:
    """One dataset's impact: its board under ``before`` (None: no version in force) and under
    ``after`` with ``config``; verdicts, uplift, optimum and deployed EV before -> after, and the
    one-line summary (:func:`board.words.impact.summary`)."""
    new = evaluate_aggregate(agg, ValueTable.from_dict(after), config)
    old = None if before is None else evaluate_aggregate(agg, ValueTable.from_dict(before), config)
    na = _board_numbers(new)
    nb = None if old is None else _board_numbers(old)
    models = {}
    for m, r in na["models"].items():
        rb = (nb or {}).get("models", {}).get(m, {})
        models[m] = {
            "threshold": r["threshold"],
            "ev_before": rb.get("ev"),
            "ev_after": r["ev"],
            "ev_change": _diff(rb.get("ev"), r["ev"]),
            "t_opt_before": rb.get("t_opt"),
            "t_opt_after": r["t_opt"],
            "t_opt_moved": _diff(rb.get("t_opt"), r["t_opt"]),
        }
    entry = {
        "model_a": na["a"],
        "model_b": na["b"],
        "verdict_before": None if nb is None else nb["verdict"],
        "verdict_after": na["verdict"],
        "verdict_changed": nb is None or nb["verdict"] != na["verdict"],
        "uplift_before": None if nb is None else nb["uplift"],
        "uplift_after": na["uplift"],
        "unit_before": None if before is None else ValueTable.from_dict(before).unit,
        "unit_after": ValueTable.from_dict(after).unit,
        "models": models,
        "n_resamples": config.n_resamples,
    }
    entry["summary"] = impact_words.summary(entry)
    return entry


def dataset_impacts(
    store: Store, table_name: str, before: dict | None, after: dict, *, thresholds: dict | None = None
) -> list[dict]:
    """:func:`dataset_impact` for every dataset bound to ``table_name``, from the dataset itself
    (no snapshot). ``thresholds``: dataset id -> {model: threshold}. A dataset that cannot be
    read gets an ``error`` entry (it must not block an approval)."""
    out = []
    for rec in bound_datasets(store, table_name):
        head = {"dataset_id": rec.id, "dataset_name": rec.name}
        try:
            rows = None if rec.is_aggregate else load_predictions(store, rec.id)
            data = load_aggregate(store, rec.id) if rec.is_aggregate else aggregate_for_board(rows, BoardConfig(n_resamples=0))
            config = impact_config(store, rec, data, (thresholds or {}).get(rec.id))
            agg = aggregate_serving(store, rec, config, stored=data if rec.is_aggregate else None, rows=rows)
            out.append({**head, **dataset_impact(agg, before, after, config)})
        except Exception as err:  # noqa: BLE001 - one unreadable dataset must not block the approval
            out.append({**head, "error": str(err)})
    return out
