"""The meeting's decisions (migration 13): what was decided on a board, by whom, why, and the
snapshot of the board it was decided on.

Low-level: no role checks here. ``board.access.governance.record_decision`` checks the actor's
role, saves the board's snapshot (an evaluation with its HTML export) and builds the audit entry;
the store writes the decision with its audit entry in one transaction. The database refuses any
change or removal of a recorded decision (triggers of migration 13, like approved versions).

The ORM model and the record live here with the part that uses them (the model is declared on
the store's one ORM base, so the schema check of ``tests/board/test_store.py`` covers it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from board.store._common import _check_text, _dumps, _now
from board.store.audit import Audit, _add_audit
from board.store.errors import NotFoundError
from board.store.models import UTCDateTime, _Base, _Evaluation
from evalcore._errors import ProblemList

__all__ = ["DECISION_KINDS", "DecisionRecord", "check_decision"]

#: What a meeting can decide: roll the candidate out, keep the current model, or hold (change nothing yet).
DECISION_KINDS = ("roll out", "keep", "hold")
_NAME_CHARS = 100  # decisions.decided_by is VARCHAR(100)


class _Decision(_Base):
    """A recorded decision (migration 13); never changed (database triggers)."""

    __tablename__ = "decisions"
    __table_args__ = (
        sa.CheckConstraint("kind IN ('roll out', 'keep', 'hold')", name="ck_decisions_kind"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(sa.ForeignKey("datasets.id"), index=True)
    table_name: Mapped[str] = mapped_column(sa.String)
    table_version: Mapped[str] = mapped_column(sa.String)
    kind: Mapped[str] = mapped_column(sa.String(20))
    model: Mapped[str] = mapped_column(sa.String)
    thresholds: Mapped[str] = mapped_column(sa.Text)  # JSON: {model: threshold}
    rationale: Mapped[str] = mapped_column(sa.Text)
    present: Mapped[str] = mapped_column(sa.Text)  # JSON: [name, …]
    decided_by: Mapped[str] = mapped_column(sa.String(100))
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime)
    evaluation_id: Mapped[int] = mapped_column(sa.ForeignKey("evaluations.id"))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DecisionRecord:
    """One recorded decision.

    Attributes
    ----------
    id : int
    dataset_id : int
        The dataset whose board it was decided on.
    table_name, table_version : str
        The value table and its version label ("v2026.Q4", "draft r3") the board was priced with.
    kind : str
        "roll out", "keep" or "hold".
    model : str
        The model the decision is about (rolled out, kept; under hold the one in use).
    thresholds : dict
        model -> threshold, as decided.
    rationale : str
        Why, in the meeting's words.
    present : tuple of str
        Who was present.
    decided_by : str
        Who recorded it.
    decided_at : datetime (UTC)
    evaluation_id : int
        The snapshot of the board (with its HTML export) saved with the decision.
    """

    id: int
    dataset_id: int
    table_name: str
    table_version: str
    kind: str
    model: str
    thresholds: dict
    rationale: str
    present: tuple
    decided_by: str
    decided_at: datetime
    evaluation_id: int

    @property
    def threshold(self) -> float | None:
        """The decided model's threshold (None if it was not given)."""
        return self.thresholds.get(self.model)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "dataset_id": self.dataset_id,
            "table_name": self.table_name,
            "table_version": self.table_version,
            "kind": self.kind,
            "model": self.model,
            "thresholds": dict(self.thresholds),
            "rationale": self.rationale,
            "present": list(self.present),
            "decided_by": self.decided_by,
            "decided_at": self.decided_at.isoformat(),
            "evaluation_id": self.evaluation_id,
        }


def _decision_record(row: _Decision) -> DecisionRecord:
    return DecisionRecord(
        id=row.id,
        dataset_id=row.dataset_id,
        table_name=row.table_name,
        table_version=row.table_version,
        kind=row.kind,
        model=row.model,
        thresholds=json.loads(row.thresholds),
        rationale=row.rationale,
        present=tuple(json.loads(row.present)),
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        evaluation_id=row.evaluation_id,
    )


def check_decision(
    *, kind, model, thresholds, rationale, present, decided_by, table_name="-", table_version="-"
) -> tuple[dict, list[str]]:
    """Check a decision's fields (``evalcore.InputError`` naming every problem at once); returns
    the thresholds as ``{model: float}`` and the names present, stripped and without blanks.

    Called by :meth:`record_decision`, and by governance before it saves the board's snapshot, so a
    refused decision leaves no snapshot behind.
    """
    problems = ProblemList()
    if kind not in DECISION_KINDS:
        problems.add(
            "invalid_value",
            f"kind must be one of {', '.join(map(repr, DECISION_KINDS))}, got {kind!r}.",
            "Choose roll out, keep or hold.",
            column="kind",
        )
    _check_text(problems, "model", model, required=True)
    _check_text(problems, "table_name", table_name, required=True)
    _check_text(problems, "table_version", table_version, required=True)
    _check_text(problems, "rationale", rationale, required=True)
    _check_text(problems, "decided_by", decided_by, required=True)
    if isinstance(decided_by, str) and len(decided_by) > _NAME_CHARS:
        problems.add("too_long", f"decided_by must be at most {_NAME_CHARS} characters.", column="decided_by")
    clean: dict = {}
    if not isinstance(thresholds, dict):
        problems.add(
            "invalid_type",
            f"thresholds must be a dict (model -> threshold), got {type(thresholds).__name__}.",
            column="thresholds",
        )
    else:
        for name, value in thresholds.items():
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not isinstance(name, str) or not ok:
                problems.add(
                    "invalid_value",
                    f"thresholds must map model names to finite numbers, got {name!r}: {value!r}.",
                    column="thresholds",
                )
            else:
                clean[name] = float(value)
        if isinstance(model, str) and model.strip() and model not in thresholds:
            problems.add("missing", f"thresholds has no threshold for the decided model {model!r}.", column="thresholds")
    names: list[str] = []
    if isinstance(present, str) or not all(isinstance(p, str) for p in (present or ())):
        problems.add(
            "invalid_type", "present must be a list of names (str).", "Split the names before passing them.", column="present"
        )
    else:
        names = [p.strip() for p in (present or ()) if p.strip()]
    problems.raise_if_any()
    return clean, names


class _DecisionsPart:
    """The meeting's recorded decisions: a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- decisions

    def record_decision(
        self,
        *,
        dataset_id: int,
        table_name: str,
        table_version: str,
        kind: str,
        model: str,
        thresholds: dict,
        rationale: str,
        present: list[str],
        decided_by: str,
        evaluation_id: int | None = None,
        snapshot: dict | None = None,
        decided_at: datetime | None = None,
        audit: Audit = None,
    ) -> DecisionRecord:
        """Record a decision and its audit entry in one transaction; returns its record.

        The board it was taken on: ``evaluation_id`` (a stored evaluation of the dataset), or
        ``snapshot`` (the keyword arguments of :meth:`save_evaluation`, its audit entry included),
        stored in the same transaction as the decision -- both land or neither does.
        ``audit``: an entry, or a callable of the new record, written in the same transaction.

        Raises
        ------
        evalcore.InputError
            An unknown kind, a blank model, rationale, recorder or table, thresholds that are not
            ``{model: finite number}`` (or lack the decided model), ``present`` not a list of names.
        NotFoundError
            The dataset or the evaluation does not exist, or the evaluation is another dataset's.
        """
        clean, names = check_decision(
            kind=kind,
            model=model,
            thresholds=thresholds,
            rationale=rationale,
            present=present,
            decided_by=decided_by,
            table_name=table_name,
            table_version=table_version,
        )
        if (evaluation_id is None) == (snapshot is None):
            raise TypeError("record_decision needs exactly one of evaluation_id and snapshot.")
        if snapshot is not None:
            from board.store.evaluations import _check_evaluation

            _check_evaluation(snapshot.get("models"), snapshot.get("config"), snapshot.get("result"), snapshot.get("export_html"))
        with self._write() as session:
            self._get_dataset_row(session, dataset_id)
            if snapshot is not None:
                evaluation_id = self._add_evaluation(session, dataset_id, **snapshot)
            ev = session.get(_Evaluation, evaluation_id)
            if ev is None or ev.dataset_id != dataset_id:
                raise NotFoundError(f"No evaluation with id {evaluation_id!r} of dataset {dataset_id!r} in the store.")
            row = _Decision(
                dataset_id=dataset_id,
                table_name=table_name,
                table_version=table_version,
                kind=kind,
                model=model,
                thresholds=_dumps(clean),
                rationale=rationale.strip(),
                present=_dumps(names),
                decided_by=decided_by,
                decided_at=decided_at or _now(),
                evaluation_id=evaluation_id,
            )
            session.add(row)
            session.flush()
            record = _decision_record(row)
            _add_audit(session, audit, record)
            session.commit()
        return record

    def list_decisions(self, *, dataset_id: int | None = None, table_name: str | None = None) -> list[DecisionRecord]:
        """Recorded decisions, newest first; only those of ``dataset_id`` / ``table_name`` when given."""
        query = sa.select(_Decision).order_by(_Decision.decided_at.desc(), _Decision.id.desc())
        if dataset_id is not None:
            query = query.where(_Decision.dataset_id == dataset_id)
        if table_name is not None:
            query = query.where(_Decision.table_name == table_name)
        with self._reading() as session:
            return [_decision_record(r) for r in session.scalars(query)]

    def last_decision(self, *, dataset_id: int | None = None, table_name: str | None = None) -> DecisionRecord | None:
        """The most recent decision (of ``dataset_id`` / ``table_name`` when given), or None."""
        query = sa.select(_Decision).order_by(_Decision.decided_at.desc(), _Decision.id.desc()).limit(1)
        if dataset_id is not None:
            query = query.where(_Decision.dataset_id == dataset_id)
        if table_name is not None:
            query = query.where(_Decision.table_name == table_name)
        with self._reading() as session:
            row = session.scalars(query).first()
            return None if row is None else _decision_record(row)
