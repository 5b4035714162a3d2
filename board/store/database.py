"""Persistence for evalboard: datasets, value-table drafts and evaluations.

One :class:`Store` wraps one database (SQLAlchemy 2; a SQLite file under the data
directory by default, ``EVALBOARD_DB_URL`` for anything else, e.g. PostgreSQL) and one
upload directory where each uploaded file is kept once, content-addressed by its
SHA-256: ``<data_dir>/uploads/<sha256[:2]>/<sha256>``.

Every public method is one transaction in a fresh session, so one ``Store`` can be
shared by the threads Streamlit runs scripts in. Methods return frozen record
dataclasses, never live ORM objects. JSON payloads (mappings, reports, amounts,
results) are stored as text, ``json.dumps`` (insertion order kept: the first model is A, the current one), for portability.

Files and rows move together: an upload writes its file to a temporary file in the
target directory, fsyncs it and renames it into place *inside* the database
transaction; if anything fails before the commit succeeds, the file is removed again
-- but only if this call created it, so the file of an earlier identical upload stays.
A delete first renames the file aside and only unlinks it once the row is gone.

Examples
--------
>>> store = Store(data_dir=tmp)                                   # doctest: +SKIP
>>> rec = store.save_dataset(name="Oct", filename="oct.csv", raw=b"y,s\\n1,0.9\\n",
...                          mapping={"label": "y"}, report={}, n_rows=1)  # doctest: +SKIP
>>> store.load_bytes(rec.id)                                      # doctest: +SKIP
b'y,s\\n1,0.9\\n'
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from board.store import migrations
from board.store._common import _create_engine, default_data_dir, default_url
from board.store.accounts import _AccountsPart
from board.store.audit import _AuditPart
from board.store.datasets import _DatasetsPart
from board.store.decisions import _DecisionsPart
from board.store.errors import ConflictError, CorruptFileError, DatasetInUseError, MissingFileError, NotFoundError
from board.store.evaluations import _EvaluationsPart
from board.store.meetings import _MeetingsPart
from board.store.sessions import _SessionsPart
from board.store.value_tables import _ValueTablesPart

__all__ = ["Store"]

# --------------------------------------------------------------------------- the store


class Store(
    _DatasetsPart,
    _ValueTablesPart,
    _EvaluationsPart,
    _AccountsPart,
    _AuditPart,
    _MeetingsPart,
    _SessionsPart,
    _DecisionsPart,
):
    """The evalboard database plus its content-addressed upload directory.

    Parameters
    ----------
    url : str, optional
        SQLAlchemy URL. Default: ``$EVALBOARD_DB_URL``, else
        ``sqlite:///<data_dir>/evalboard.sqlite``.
    data_dir : str or Path, optional
        Directory for the SQLite file and ``uploads/``. Default: ``$EVALBOARD_DATA_DIR``,
        else ``data``. Created if missing.

    Notes
    -----
    Opening runs every pending migration (one transaction; see ``board.store.migrations``) and
    removes the temporary upload files a crash left behind (untouched for an hour; see
    :meth:`remove_stale_temp_files`).
    SQLite connections get ``foreign_keys=ON``, WAL journaling and a 30 s busy timeout;
    writes start with ``BEGIN IMMEDIATE`` so concurrent writers queue rather than fail.
    Use as a context manager, or call :meth:`close`, to release the connections.
    """

    ConflictError = ConflictError
    NotFoundError = NotFoundError
    MissingFileError = MissingFileError
    CorruptFileError = CorruptFileError
    DatasetInUseError = DatasetInUseError

    def __init__(self, url: str | None = None, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.uploads_dir = self.data_dir / "uploads"
        self.uploads_dir.mkdir(parents=True, exist_ok=True)
        self.url = url if url is not None else default_url(self.data_dir)
        self.engine = _create_engine(self.url)
        try:
            #: versions applied when this store was opened (empty if it was current)
            self.applied_migrations: list[int] = migrations.migrate(self.engine)
        except BaseException:
            self.engine.dispose()
            raise
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(**{migrations.SQLITE_BEGIN_OPTION: "IMMEDIATE"}),
            expire_on_commit=False,
        )
        #: temporary upload files a crash left behind, removed (or put back) on opening
        self.removed_temp_files: list[Path] = self.remove_stale_temp_files()

    @classmethod
    def open(cls, url: str | None = None, data_dir: str | os.PathLike[str] | None = None) -> Store:
        """Same as ``Store(url, data_dir)``."""
        return cls(url, data_dir)

    def close(self) -> None:
        """Close all pooled connections. The store can still be used (it reconnects)."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store(url={self._safe_url()!r}, data_dir={str(self.data_dir)!r})"

    def _safe_url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def schema_version(self) -> int:
        """The database's current schema version."""
        with self.engine.connect() as conn:
            return migrations.current_version(conn)

    def upload_path(self, sha256: str) -> Path:
        """Where the file with this SHA-256 lives (whether or not it exists)."""
        return self.uploads_dir / sha256[:2] / sha256

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session
