"""Sign-off with its impact report: the signature (:func:`board.access.governance.sign`) and,
when the third signature approves the version, a re-evaluation of every stored evaluation that
used the previous approved version (for the first approved version: the stored evaluations of
that table that recorded no version), stored as an impact report.
"""

from __future__ import annotations

from collections.abc import Callable

from board.access import governance
from board.access.auth import User
from board.services.evaluation import evaluate_stored, model_counts
from board.store import APPROVED, EvaluationRecord, ImpactReportRecord, Store, ValueTableVersionRecord
from evalcore import CELLS, ValueTable
from evalcore.aggregate import Aggregate
from evalcore.board import BoardConfig
from evalcore.value import price_curve

__all__ = [
    "SignResult",
    "amounts_diff",
    "ev_preview",
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
    """
    version, signoffs = governance.sign(store, actor, version_id, comment=comment, expected_hash=expected_hash)
    report = publish_impact(store, version, reevaluate=reevaluate) if version.status == APPROVED else None
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


def ev_preview(agg: Aggregate, before: dict | None, after: dict, thresholds: dict[str, float]) -> list[dict]:
    """Expected value per decision at each model's deployed threshold under the version in force
    (``before``; None: no version in force) and under the proposed amounts (``after``), on one
    dataset's aggregate: rows ``model``, ``threshold``, ``ev_before``, ``ev_after``, ``ev_change``.
    Priced as the board prices (:func:`evalcore.value.price_curve` on the model's counts).
    """
    tables = {"before": None if before is None else ValueTable.from_dict(before), "after": ValueTable.from_dict(after)}
    rows = []
    for model, t in thresholds.items():
        counts = model_counts(agg, model)
        ev = {
            k: None if tab is None else price_curve(counts, tab, score_kind=agg.score_kinds[model]).ev_at(float(t))
            for k, tab in tables.items()
        }
        rows.append(
            {
                "model": model,
                "threshold": float(t),
                "ev_before": ev["before"],
                "ev_after": ev["after"],
                "ev_change": _diff(ev["before"], ev["after"]),
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


def publish_impact(store: Store, version: ValueTableVersionRecord, *, reevaluate: Reevaluate | None = None) -> ImpactReportRecord:
    """Re-evaluate the stored evaluations that used the previous version and store the report."""
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
    }
    return store.save_impact_report(
        table_id=version.table_id, from_version_id=previous.id if previous else None, to_version_id=version.id, report=report
    )
