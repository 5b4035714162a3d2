"""Datasets (uploaded files, content-addressed; path-registered aggregates) and their saved settings."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.orm import Session

from board.store._common import _check_json, _check_text, _dataset_problems, _dataset_record, _dumps, _now, _write_atomically
from board.store.audit import Audit, _add_audit
from board.store.errors import CorruptFileError, DatasetInUseError, MissingFileError, NotFoundError, StateError
from board.store.models import _Dataset, _DatasetSetting, _Evaluation, _MeetingLink, _ValueTable
from board.store.records import DatasetRecord, DatasetSettingsRecord
from evalcore._errors import ProblemList

#: Seconds after its last write a temporary upload file counts as left by a crash (see
#: :meth:`_DatasetsPart.remove_stale_temp_files`); a live writer keeps touching its file.
STALE_TEMP_SECONDS = 3600
# the names _write_atomically and delete_dataset give their temporary files: .<sha256>.<uuid4 hex>.tmp|.deleting
_TEMP_NAME = re.compile(r"^\.(?P<sha>[0-9a-f]{64})\.[0-9a-f]{32}\.(?P<kind>tmp|deleting)$")


class _DatasetsPart:
    """Datasets (uploaded files, content-addressed; path-registered aggregates) and their saved
    settings: a part of :class:`board.store.Store`."""

    # ----------------------------------------------------------------- datasets

    def save_dataset(
        self,
        *,
        name: str,
        filename: str,
        raw: bytes,
        mapping: dict,
        report: dict,
        n_rows: int,
        uploader: str = "",
        audit: Audit = None,
    ) -> DatasetRecord:
        """Store an uploaded file with its mapping and validation report.

        Parameters
        ----------
        name : str
            Display name (non-blank).
        filename : str
            Original file name (non-blank); kept as metadata only.
        raw : bytes
            The file's bytes (non-empty).
        mapping, report : dict
            Column mapping and validation report; JSON values only (NaN -> None).
        n_rows : int
            Number of data rows (>= 0).
        uploader : str, default=""
            Who uploads.
        audit : entry or callable, optional
            Audit-log entry, or a callable of the new record returning one, written in the same
            transaction (see :mod:`board.store.audit`).

        Returns
        -------
        DatasetRecord
            The new record; or, when the same bytes are already stored, the existing
            record with ``name``, ``filename``, ``mapping``, ``report`` and ``n_rows``
            replaced by the values given (the latest accepted mapping wins; ``id``,
            ``uploader`` and ``created_at`` stay). No second row, no second file.

        Raises
        ------
        evalcore.InputError
            Listing every invalid argument. Nothing is written.

        Notes
        -----
        All or nothing: if the database write, the file write or the commit fails, no
        row is left and the file is removed if this call created it.
        """
        problems = _dataset_problems(name, uploader, raw, report, n_rows, "Upload a file with data in it.")
        _check_text(problems, "filename", filename, required=True)
        _check_json(problems, "mapping", mapping, want_dict=True)
        problems.raise_if_any()
        return self._put_dataset(
            name=name,
            filename=filename,
            raw=raw,
            mapping=mapping,
            report=report,
            n_rows=n_rows,
            uploader=uploader,
            kind="upload",
            source_path=None,
            options=None,
            audit=audit,
        )

    def save_aggregate_dataset(
        self,
        *,
        name: str,
        source_path: str,
        query: dict,
        options: dict,
        raw: bytes,
        report: dict,
        n_rows: int,
        uploader: str = "",
        audit: Audit = None,
    ) -> DatasetRecord:
        """Store a dataset registered by path: only its serialized aggregate, never the rows.

        Parameters
        ----------
        name : str
            Display name (non-blank).
        source_path : str
            The Parquet file, glob or folder it was aggregated from (non-blank); recorded so
            the app can aggregate again with other options.
        query : dict
            The column mapping of the aggregation (``board.engines.Query`` as a mapping);
            stored as the dataset's ``mapping``.
        options : dict
            Aggregation options (resolution, scheme, strata column, thresholds, drift).
        raw : bytes
            ``board.store.aggregate_io.to_bytes(aggregate)`` (non-empty); content-addressed like
            an upload, so the same aggregate is stored once.
        report : dict
            Summary shown on the Datasets page (JSON values only).
        n_rows : int
            Rows the aggregate stands for (>= 0).
        uploader : str, default=""
        audit : entry or callable, optional
            As for :meth:`save_dataset`: written in the same transaction.

        Returns
        -------
        DatasetRecord
            ``kind == "aggregate"``. Same bytes already stored: that record, updated.

        Raises
        ------
        evalcore.InputError
            Listing every invalid argument. Nothing is written.
        """
        problems = _dataset_problems(name, uploader, raw, report, n_rows, "Pass the serialized aggregate.")
        _check_text(problems, "source_path", source_path, required=True)
        _check_json(problems, "query", query, want_dict=True)
        _check_json(problems, "options", options, want_dict=True)
        problems.raise_if_any()
        return self._put_dataset(
            name=name,
            filename=source_path,
            raw=raw,
            mapping=query,
            report=report,
            n_rows=n_rows,
            uploader=uploader,
            kind="aggregate",
            source_path=source_path,
            options=options,
            audit=audit,
        )

    def _put_dataset(
        self, *, name, filename, raw, mapping, report, n_rows, uploader, kind, source_path, options, audit: Audit = None
    ) -> DatasetRecord:
        raw = bytes(raw)
        sha = hashlib.sha256(raw).hexdigest()
        path = self.upload_path(sha)
        created_file = False
        try:
            with self._write() as session:
                row = session.scalars(sa.select(_Dataset).where(_Dataset.sha256 == sha)).one_or_none()
                if row is None:
                    row = _Dataset(
                        name=name,
                        filename=filename,
                        sha256=sha,
                        size_bytes=len(raw),
                        n_rows=n_rows,
                        uploader=uploader,
                        created_at=_now(),
                        mapping=_dumps(mapping),
                        report=_dumps(report),
                        kind=kind,
                        source_path=source_path,
                        options=None if options is None else _dumps(options),
                    )
                    session.add(row)
                else:
                    row.name = name
                    row.filename = filename
                    row.n_rows = n_rows
                    row.mapping = _dumps(mapping)
                    row.report = _dumps(report)
                    row.kind = kind
                    row.source_path = source_path
                    row.options = None if options is None else _dumps(options)
                session.flush()
                if not path.exists():
                    _write_atomically(path, raw)
                    created_file = True
                record = _dataset_record(row)
                _add_audit(session, audit, record)
                session.commit()
        except BaseException:
            if created_file:
                self._discard_orphan_file(sha)
            raise
        return record

    def _discard_orphan_file(self, sha: str) -> None:
        """Remove the upload file unless a committed row refers to it.

        The extra check covers a concurrent identical upload (possible on PostgreSQL)
        that committed its row while this call was failing.
        """
        try:
            with self._reading() as session:
                referenced = session.scalar(sa.select(_Dataset.id).where(_Dataset.sha256 == sha)) is not None
        except Exception:
            referenced = False  # cannot tell: an unreferenced file is the worse leak than none
        if not referenced:
            self.upload_path(sha).unlink(missing_ok=True)

    def list_datasets(self) -> list[DatasetRecord]:
        """All datasets, newest first."""
        with self._reading() as session:
            rows = session.scalars(sa.select(_Dataset).order_by(_Dataset.created_at.desc(), _Dataset.id.desc()))
            return [_dataset_record(r) for r in rows]

    def _get_dataset_row(self, session: Session, dataset_id: int) -> _Dataset:
        row = session.get(_Dataset, dataset_id)
        if row is None:
            raise NotFoundError(
                f"No dataset with id {dataset_id!r} in the store ({self._safe_url()}); "
                "it may have been deleted. Pick one from list_datasets()."
            )
        return row

    def get_dataset(self, dataset_id: int) -> DatasetRecord:
        """The dataset with this id; ``NotFoundError`` (a ``KeyError``) if absent."""
        with self._reading() as session:
            return _dataset_record(self._get_dataset_row(session, dataset_id))

    def find_dataset_by_sha(self, sha256: str) -> DatasetRecord | None:
        """The dataset whose bytes have this hex SHA-256, or None."""
        with self._reading() as session:
            row = session.scalars(sa.select(_Dataset).where(_Dataset.sha256 == sha256.lower())).one_or_none()
            return None if row is None else _dataset_record(row)

    def load_bytes(self, dataset: DatasetRecord | int) -> bytes:
        """The stored file's bytes, checked against the dataset's SHA-256.

        Parameters
        ----------
        dataset : DatasetRecord or int
            A record or a dataset id (the id is looked up, so a deleted dataset raises).

        Raises
        ------
        NotFoundError
            No such dataset id.
        MissingFileError
            The row exists but the file is gone (a ``FileNotFoundError``).
        CorruptFileError
            The file's bytes no longer hash to the stored SHA-256.
        """
        rec = dataset if isinstance(dataset, DatasetRecord) else self.get_dataset(dataset)
        path = self.upload_path(rec.sha256)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise MissingFileError(
                f"The file of dataset {rec.id} ({rec.name!r}, uploaded as {rec.filename!r}) is missing from "
                f"{path}. Upload the same file again to restore it, or delete the dataset."
            ) from None
        actual = hashlib.sha256(raw).hexdigest()
        if actual != rec.sha256:
            raise CorruptFileError(
                f"The file of dataset {rec.id} ({rec.name!r}) at {path} is corrupt: its SHA-256 is {actual}, "
                f"expected {rec.sha256}. Upload the original file again, or delete the dataset."
            )
        return raw

    def delete_dataset(self, dataset_id: int, *, with_evaluations: bool = False) -> None:
        """Delete a dataset's row and its file, all or nothing.

        Parameters
        ----------
        dataset_id : int
        with_evaluations : bool, default=False
            Also delete the evaluations stored for this dataset. Without it, a dataset
            that has evaluations is kept and ``DatasetInUseError`` is raised.

        Raises
        ------
        NotFoundError
            No such dataset.
        DatasetInUseError
            Evaluations refer to it and ``with_evaluations`` is False, or a decision was recorded on
            it (decisions are never deleted, so neither is their dataset).
        """
        aside: Path | None = None
        path: Path | None = None
        try:
            with self._write() as session:
                row = self._get_dataset_row(session, dataset_id)
                from board.store.decisions import _Decision

                n_dec = session.scalar(
                    sa.select(sa.func.count()).select_from(_Decision).where(_Decision.dataset_id == dataset_id)
                )
                if n_dec:  # decisions are the meeting's record: kept, like approved versions
                    raise DatasetInUseError(
                        f"Dataset {dataset_id} ({row.name!r}) has {n_dec} recorded decision(s), which are kept for "
                        "the record with the board they were taken on; nothing was deleted. Upload the next data as "
                        "a new dataset instead."
                    )
                n_eval = session.scalar(
                    sa.select(sa.func.count()).select_from(_Evaluation).where(_Evaluation.dataset_id == dataset_id)
                )
                if n_eval and not with_evaluations:
                    raise DatasetInUseError(
                        f"Dataset {dataset_id} ({row.name!r}) has {n_eval} stored evaluation(s); nothing was "
                        "deleted. Pass with_evaluations=True to delete them as well."
                    )
                session.execute(sa.delete(_Evaluation).where(_Evaluation.dataset_id == dataset_id))
                # settings belong to the dataset: they go with it (a later re-upload starts from defaults)
                session.execute(sa.delete(_DatasetSetting).where(_DatasetSetting.dataset_id == dataset_id))
                # so do its meeting links: a link to a deleted dataset could never open again
                session.execute(sa.delete(_MeetingLink).where(_MeetingLink.dataset_id == dataset_id))
                path = self.upload_path(row.sha256)
                session.delete(row)
                session.flush()
                if path.exists():
                    # Rename aside rather than unlink: a rename can be undone if the commit fails.
                    aside = path.with_name(f".{path.name}.{uuid.uuid4().hex}.deleting")
                    os.replace(path, aside)
                session.commit()
        except BaseException:
            if aside is not None and path is not None:
                os.replace(aside, path)
            raise
        if aside is not None:
            aside.unlink(missing_ok=True)

    def remove_stale_temp_files(self, *, older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
        """Clean up after a crash: the store's own temporary files in the upload directory that
        nobody has written for ``older_than`` seconds (run when the store opens).

        A partial upload (``.<sha256>.<id>.tmp``) is removed. A file set aside by an interrupted
        delete (``.<sha256>.<id>.deleting``) is put back when its dataset row still exists and its
        file is missing (the delete did not commit), else removed. Younger files may belong to a
        writer in another process and are left alone, as is any name the store does not write.

        Returns
        -------
        list of Path
            The files removed or put back.
        """
        cutoff = time.time() - older_than
        done = []
        for path in self.uploads_dir.glob("*/.*"):
            match = _TEMP_NAME.match(path.name)
            if match is None or path.parent.name != match["sha"][:2]:
                continue
            try:
                if path.stat().st_mtime >= cutoff:
                    continue
                target = self.upload_path(match["sha"])
                if match["kind"] == "deleting" and not target.exists() and self.find_dataset_by_sha(match["sha"]):
                    os.replace(path, target)
                else:
                    path.unlink()
            except FileNotFoundError:  # another process cleaned it up first
                continue
            done.append(path)
        return done

    # ----------------------------------------------------------------- value-table binding

    def get_dataset_value_table(self, dataset_id: int) -> str | None:
        """The name of the value table dataset ``dataset_id`` is priced with; None = the default
        table (never bound). ``NotFoundError`` if there is no such dataset."""
        with self._reading() as session:
            return self._get_dataset_row(session, dataset_id).value_table

    def dataset_value_tables(self) -> dict[int, str | None]:
        """Every dataset's bound value table by dataset id (None = the default table)."""
        with self._reading() as session:
            return {i: name for i, name in session.execute(sa.select(_Dataset.id, _Dataset.value_table))}

    def set_dataset_value_table(self, dataset_id: int, name: str | None, *, audit: Audit = None) -> None:
        """Bind dataset ``dataset_id`` to value table ``name`` (None: back to the default table);
        ``audit`` (an entry) in the same transaction.

        Raises
        ------
        evalcore.InputError
            ``name`` blank.
        NotFoundError
            No such dataset, or no value table ``name``.
        board.store.StateError
            The table is archived (restore it first).
        """
        if name is not None:
            problems = ProblemList()
            _check_text(problems, "name", name, required=True)
            problems.raise_if_any()
        with self._write() as session:
            row = self._get_dataset_row(session, dataset_id)
            if name is not None:
                table = session.scalars(sa.select(_ValueTable).where(_ValueTable.name == name)).one_or_none()
                if table is None:
                    raise NotFoundError(f"No value table named {name!r}; create it on the Value table page first.")
                if table.archived_at is not None and row.value_table != name:
                    raise StateError(f"Value table {name!r} is archived; restore it before binding a dataset to it.")
            row.value_table = name
            session.flush()
            _add_audit(session, audit)
            session.commit()

    def last_bound_value_table(self, *, label: str | None = None) -> str | None:
        """The value table of the most recently stored dataset that is bound to one that is not
        archived — preferring datasets with the same label column ``label`` (the same kind of
        data); None if no dataset is bound."""
        with self._reading() as session:
            rows = session.execute(
                sa.select(_Dataset.value_table, _Dataset.mapping)
                .join(_ValueTable, _ValueTable.name == _Dataset.value_table)
                .where(_ValueTable.archived_at.is_(None))
                .order_by(_Dataset.created_at.desc(), _Dataset.id.desc())
            ).all()
        if label is not None:
            for name, mapping in rows:
                if json.loads(mapping).get("label") == label:
                    return name
        return rows[0][0] if rows else None

    # ----------------------------------------------------------------- dataset settings

    def get_dataset_settings(self, dataset_id: int, key: str) -> dict | None:
        """The settings saved with a dataset under ``key``; None when none were saved
        (or the dataset does not exist)."""
        rec = self.get_dataset_settings_record(dataset_id, key)
        return None if rec is None else rec.value

    def get_dataset_settings_record(self, dataset_id: int, key: str) -> DatasetSettingsRecord | None:
        """Like :meth:`get_dataset_settings`, with the time of the last save."""
        with self._reading() as session:
            row = session.scalars(
                sa.select(_DatasetSetting).where(_DatasetSetting.dataset_id == dataset_id, _DatasetSetting.key == key)
            ).one_or_none()
            if row is None:
                return None
            return DatasetSettingsRecord(
                dataset_id=row.dataset_id, key=row.key, value=json.loads(row.value), updated_at=row.updated_at
            )

    def save_dataset_settings(self, dataset_id: int, key: str, value: dict, *, audit: Audit = None) -> DatasetSettingsRecord:
        """Save (insert or replace) the settings of a dataset under ``key``.

        Parameters
        ----------
        dataset_id : int
        key : str
            What the settings are for, e.g. ``"drift"`` (non-blank).
        value : dict
            JSON values only (NaN must be None); replaces what was saved under ``key``.
        audit : entry or callable, optional
            Audit-log entry, or a callable of the saved record, written in the same transaction.

        Returns
        -------
        DatasetSettingsRecord

        Raises
        ------
        evalcore.InputError
            ``key`` blank or ``value`` not a JSON dict (every problem listed). Nothing is written.
        NotFoundError
            No such dataset.
        """
        problems = ProblemList()
        _check_text(problems, "key", key, required=True)
        _check_json(problems, "value", value, want_dict=True)
        problems.raise_if_any()
        text = _dumps(value)
        for attempt in (1, 2):
            with self._write() as session:
                self._get_dataset_row(session, dataset_id)
                now = _now()
                row = session.scalars(
                    sa.select(_DatasetSetting).where(_DatasetSetting.dataset_id == dataset_id, _DatasetSetting.key == key)
                ).one_or_none()
                if row is None:
                    row = _DatasetSetting(dataset_id=dataset_id, key=key, value=text, updated_at=now)
                    session.add(row)
                else:
                    row.value = text
                    row.updated_at = now
                try:
                    session.flush()
                except sa.exc.IntegrityError:
                    # A concurrent first save of the same key (possible where BEGIN IMMEDIATE does
                    # not serialise writers): the row exists now, so the second attempt updates it.
                    if attempt == 2:
                        raise
                    continue
                record = DatasetSettingsRecord(dataset_id=dataset_id, key=key, value=json.loads(text), updated_at=now)
                _add_audit(session, audit, record)
                session.commit()
            return record
        raise AssertionError("unreachable")  # pragma: no cover
