"""What the store raises: every error a :class:`~board.store.Store` method can raise on purpose."""

from __future__ import annotations

from board.store.records import ValueTableVersionRecord

# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Base class of the store's own errors (invalid input raises ``InputError``)."""


class NotFoundError(StoreError, KeyError):
    """No row with that id or name. A ``KeyError``, with a readable ``str()``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ConflictError(StoreError):
    """Someone saved the draft since the caller loaded it; nothing was written.

    Attributes
    ----------
    current : ValueTableVersionRecord or None
        The draft as stored now (its ``amounts``, ``author``, ``row_version``), or None
        when there is no open draft any more.
    expected_row_version : int
        What the caller believed the stored ``row_version`` was.
    """

    def __init__(self, message: str, *, current: ValueTableVersionRecord | None, expected_row_version: int):
        super().__init__(message)
        self.current = current
        self.expected_row_version = expected_row_version


class StateError(StoreError):
    """The value-table version is not in the status this step needs (e.g. signing a draft)."""


class MissingFileError(StoreError, FileNotFoundError):
    """The dataset's row exists but its uploaded file is gone from the upload directory."""


class CorruptFileError(StoreError):
    """The uploaded file no longer has the SHA-256 it was stored under."""


class DatasetInUseError(StoreError):
    """The dataset has stored evaluations; delete refuses unless asked to remove them too."""
