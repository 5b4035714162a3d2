"""Stored evaluations (board results with the value-table version they used), and the board's
HTML export as it was when the snapshot was taken."""

from __future__ import annotations

import gzip
from typing import Any

import sqlalchemy as sa

from board.store._common import _check_json, _dumps, _evaluation_record, _now
from board.store.audit import Audit, _add_audit
from board.store.errors import NotFoundError
from board.store.models import _Evaluation, _ValueTableVersion
from board.store.records import EvaluationRecord
from evalcore._errors import ProblemList

# The export column (migration 10) as a table of its own: evaluations are listed often and their
# exports (megabytes each: plotly.js is inlined) are read only when downloaded.
_exports = sa.Table(
    "evaluations",
    sa.MetaData(),
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("dataset_id", sa.Integer),
    sa.Column("export_html_gz", sa.LargeBinary, nullable=True),
)


def _check_evaluation(models: Any, config: Any, result: Any, export_html: Any) -> None:
    """``InputError`` listing every payload of an evaluation that cannot be stored."""
    problems = ProblemList()
    _check_json(problems, "models", models, want_dict=False)
    _check_json(problems, "config", config, want_dict=False)
    _check_json(problems, "result", result, want_dict=False)
    if export_html is not None and not isinstance(export_html, str):
        problems.add(
            "invalid_type",
            f"export_html must be a str (the board's HTML) or None, got {type(export_html).__name__}.",
            "Pass board.export.board_html(result, …).",
            column="export_html",
        )
    problems.raise_if_any()


class _EvaluationsPart:
    """Stored evaluations (board results with the value-table version they used): a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- evaluations

    def save_evaluation(
        self,
        dataset_id: int,
        *,
        models: Any,
        config: Any,
        result: Any,
        value_table_version_id: int | None = None,
        export_html: str | None = None,
        audit: Audit = None,
    ) -> int:
        """Store an evaluation (JSON values) of a dataset; returns its id.

        ``export_html``: the board's HTML export at this moment (:func:`board.export.board_html`),
        kept (gzip) so the snapshot can be downloaded as it was (:meth:`get_evaluation_html`).
        ``audit``: an entry, or a callable of the new id, written in the same transaction.

        Raises
        ------
        evalcore.InputError
            A payload is not JSON (e.g. contains NaN: pass ``to_dict()`` output).
        NotFoundError
            The dataset or the value-table version does not exist.
        """
        _check_evaluation(models, config, result, export_html)
        with self._write() as session:
            new_id = self._add_evaluation(
                session,
                dataset_id,
                models=models,
                config=config,
                result=result,
                value_table_version_id=value_table_version_id,
                export_html=export_html,
                audit=audit,
            )
            session.commit()
        return new_id

    def _add_evaluation(
        self,
        session,
        dataset_id: int,
        *,
        models: Any,
        config: Any,
        result: Any,
        value_table_version_id: int | None = None,
        export_html: str | None = None,
        audit: Audit = None,
    ) -> int:
        """Add a (checked: :func:`_check_evaluation`) evaluation and its audit entry to ``session``'s
        transaction, without committing it; returns its id."""
        self._get_dataset_row(session, dataset_id)
        if value_table_version_id is not None and session.get(_ValueTableVersion, value_table_version_id) is None:
            raise NotFoundError(f"No value-table version with id {value_table_version_id!r} in the store.")
        row = _Evaluation(
            dataset_id=dataset_id,
            value_table_version_id=value_table_version_id,
            models=_dumps(models),
            config=_dumps(config),
            result=_dumps(result),
            created_at=_now(),
        )
        session.add(row)
        session.flush()
        new_id = row.id
        if export_html is not None:
            packed = gzip.compress(export_html.encode("utf-8"), compresslevel=6, mtime=0)
            session.execute(sa.update(_exports).where(_exports.c.id == new_id).values(export_html_gz=packed))
        _add_audit(session, audit, new_id)
        return new_id

    def list_evaluations(self, dataset_id: int | None = None) -> list[EvaluationRecord]:
        """Evaluations, newest first; only those of ``dataset_id`` when given."""
        query = sa.select(_Evaluation).order_by(_Evaluation.created_at.desc(), _Evaluation.id.desc())
        if dataset_id is not None:
            query = query.where(_Evaluation.dataset_id == dataset_id)
        with self._reading() as session:
            return [_evaluation_record(r) for r in session.scalars(query)]

    def get_evaluation(self, evaluation_id: int) -> EvaluationRecord:
        """The evaluation with this id; ``NotFoundError`` (a ``KeyError``) if absent."""
        with self._reading() as session:
            row = session.get(_Evaluation, evaluation_id)
            if row is None:
                raise NotFoundError(f"No evaluation with id {evaluation_id!r} in the store ({self._safe_url()}).")
            return _evaluation_record(row)

    def get_evaluation_html(self, evaluation_id: int) -> str | None:
        """The board's HTML export kept with this evaluation; None if it was saved without one
        (before exports were kept). ``NotFoundError`` if the evaluation does not exist."""
        with self._reading() as session:
            row = session.execute(sa.select(_exports.c.export_html_gz).where(_exports.c.id == evaluation_id)).first()
        if row is None:
            raise NotFoundError(f"No evaluation with id {evaluation_id!r} in the store ({self._safe_url()}).")
        return None if row[0] is None else gzip.decompress(row[0]).decode("utf-8")

    def evaluations_with_html(self, dataset_id: int | None = None) -> set[int]:
        """Ids of the evaluations (of ``dataset_id`` when given) that keep their HTML export."""
        query = sa.select(_exports.c.id).where(_exports.c.export_html_gz.is_not(None))
        if dataset_id is not None:
            query = query.where(_exports.c.dataset_id == dataset_id)
        with self._reading() as session:
            return set(session.scalars(query))
