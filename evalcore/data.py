"""Reading and validating the predictions upload (SPEC §2.1).

Two steps, both raising :class:`~evalcore.InputError` with *every* problem found:

1. :func:`read_table` turns the uploaded bytes (CSV in any common encoding and
   delimiter, or Parquet) into a :class:`pandas.DataFrame`. The frame's index holds
   the file's own row numbers (header = row 1, first data row = row 2), so problems
   found later can point at the row a user sees in a spreadsheet.
2. :func:`validate` checks the frame against a :class:`ColumnMapping` (which column is
   the label, the score(s), segments, ...) and returns canonical :class:`Predictions`.

Nothing is dropped silently: rows with a missing label are only dropped when the
mapping says the user confirmed it (``drop_missing_labels=True``), and they are counted.

Every problem has a stable ``code`` (see :data:`PROBLEM_CODES`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._checks import POSITIVE_SPELLINGS, positive_index, positive_rule
from ._errors import InputError, ProblemList
from ._json import json_float as _json_float
from .drift.timewindows import granularity as _granularity

__all__ = [
    "SCORE_KINDS",
    "PROBLEM_CODES",
    "MISSING_LEVEL",
    "ColumnMapping",
    "Predictions",
    "read_table",
    "guess_mapping",
    "validate",
    "LateLabels",
    "late_labels",
    "label_known_rows",
    "label_known_until",
    "label_values",
    "default_positive",
    "binary_label",
    "POSITIVE_SPELLINGS",
    "NOTE_MESSAGES",
]

SCORE_KINDS = ("auto", "probability", "score", "decision")

#: The level that replaces a missing segment (or categorical feature) value.
MISSING_LEVEL = "(missing)"

#: Segment columns with more distinct levels than this are rejected (a per-segment
#: curve over thousands of levels is noise, and the column is probably an id or a number).
MAX_SEGMENT_LEVELS = 100

#: :func:`read_table`'s default limits on what one upload may hold. Checked before the rows are
#: parsed (a 1 MB Parquet file can decode to gigabytes); the app and the CLI pass their
#: configured limits (``EVALBOARD_MAX_ROWS``, ``EVALBOARD_MAX_COLUMNS``, read in ``board``).
MAX_ROWS = 5_000_000
MAX_COLUMNS = 2_000

#: Every problem code this module can raise, with what it means.
PROBLEM_CODES = {
    # read_table
    "file_too_large": "the upload is larger than the size limit",
    "too_many_rows": "the file has more data rows than the row limit",
    "too_many_columns": "the file has more columns than the column limit",
    "limit_invalid": "a row or column limit passed to read_table is not a positive whole number",
    "empty_file": "the file has no bytes, or only whitespace",
    "no_rows": "there is a header (or a schema) but no data rows",
    "encoding": "the text is neither UTF-8 (with or without BOM), UTF-16 with BOM, nor GB18030/GBK",
    "unsupported_format": "an Excel, zip or gzip file instead of CSV/Parquet",
    "csv_parse": "the CSV cannot be parsed, e.g. a row with more or fewer fields than the header",
    "parquet_invalid": "the Parquet file is corrupt or truncated",
    "duplicate_columns": "two columns have the same header name",
    # validate: the mapping itself
    "mapping_invalid": "the mapping is malformed (wrong type, empty names)",
    "no_score": "no score column is mapped",
    "too_many_scores": "more than two score columns are mapped",
    "score_kind_invalid": "a score kind is not one of SCORE_KINDS, or names an unknown model",
    "missing_column": "a mapped column is not in the file",
    "column_in_two_roles": "one column is mapped to two roles that exclude each other",
    # label
    "label_missing": "some labels are missing (drop them only with the user's confirmation)",
    "label_not_binary": "the label has more than two distinct values",
    "label_one_class": "the label has only one class (or one class has zero total weight)",
    "positive_not_chosen": "the label values are not 0/1, true/false or yes/no, so the positive one must be picked",
    "positive_not_found": "the chosen positive value is not among the label values",
    # scores
    "score_not_numeric": "a score column holds text that is not a number",
    "score_missing": "a score is missing (NaN or empty)",
    "score_not_finite": "a score is +inf or -inf",
    "probability_out_of_range": "a score declared a probability lies outside [0, 1]",
    "decision_not_binary": "a score declared a hard decision holds values other than 0 and 1",
    # other roles
    "weight_invalid": "a weight is negative, missing, infinite or not a number",
    "weight_all_zero": "all weights are zero",
    "time_unparseable": "a time value cannot be read as a date or timestamp",
    "time_missing": "a time value is missing",
    "group_missing": "a group id is missing",
    "segment_too_many_levels": "a segment column has too many distinct levels to be a segment",
    # labels that arrive late
    "label_known_invalid": "the label-known rule is unusable: both or an unreadable date, or a maturity value that is not yes/no",
}

#: What :meth:`Predictions.summary` says about the choices made for the user, in English: each
#: note in ``summary()["notes"]`` is ``{"code": key, "params": {...}}``, and the presentation layer
#: renders ``NOTE_MESSAGES[code]`` with the params through its translation function.
NOTE_MESSAGES = {
    "positive_chosen": "{positive} is the positive class (the event to act on), as chosen; {negative} is the negative class.",
    "positive_family": "{positive} is the positive class (the event to act on): of the label values {positive} and "
    "{negative}, it is the one that means yes.",
    "positive_event": "{positive} is the positive class (the event to act on): it names the event ({word}); "
    "{negative} is the negative class.",
    "time_year": "{column} holds years ({first} to {last}): each row counts as 1 January of its year, and drift "
    "windows are whole years.",
    "time_month": "{column} holds year-months ({first} to {last}): each row counts as the 1st of its month, and "
    "drift windows are whole months.",
    "time_day": "{column} holds dates ({first} to {last}); drift windows are whole days.",
    "time_timestamp": "{column} holds timestamps ({first} to {last}); drift windows are whole days.",
}

_DELIMITERS = ",;\t|"
_DELIM_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
_N_EXAMPLES = 5


# --------------------------------------------------------------------------- mapping


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ColumnMapping:
    """Which column of the upload plays which role.

    Attributes
    ----------
    label : str
        The binary outcome column.
    scores : dict of str to str
        Model name -> score column; one or two entries, e.g. ``{"A": "score_old", "B": "score_new"}``.
    score_kinds : dict of str to str, default={}
        Model name -> one of :data:`SCORE_KINDS`; a missing entry means ``"auto"``.
    positive : str or None, default=None
        The label value (compared as ``str(value)``) that is the positive class. None picks
        it automatically for 0/1, true/false, yes/no (and y/n, t/f, 是/否).
    segments : tuple of str, default=()
        Categorical columns to break results down by.
    time : str or None, default=None
        Date or timestamp column.
    group : str or None, default=None
        Cluster id (e.g. customer id) for the cluster bootstrap.
    features : tuple of str, default=()
        Columns used for drift only.
    weight : str or None, default=None
        Non-negative sample weight column.
    drop_missing_labels : bool, default=False
        The user's explicit confirmation that rows with a missing label may be dropped.
    label_known : str or None, default=None
        Labels that arrive late: a maturity column (true/false, 1/0, yes/no; empty = not yet).
        Rows whose label is not known yet may have an empty label; :func:`validate` returns the
        other rows, :func:`late_labels` all of them with the flag.
    labels_complete_until : str or None, default=None
        Labels that arrive late, the other rule: rows of days after this ISO day (by the time
        column) have no label yet. At most one of the two rules.
    """

    label: str
    scores: dict = field(default_factory=dict)
    score_kinds: dict = field(default_factory=dict)
    positive: str | None = None
    segments: tuple = ()
    time: str | None = None
    group: str | None = None
    features: tuple = ()
    weight: str | None = None
    drop_missing_labels: bool = False
    label_known: str | None = None
    labels_complete_until: str | None = None

    def __post_init__(self):
        # Normalise friendly inputs (lists, a single string, "" for "none") so that the
        # dataclass always holds the documented types; malformed values are left for
        # validate() to report with the other problems.
        def _tuple(v):
            if v is None:
                return ()
            if isinstance(v, str):
                return (v,) if v else ()
            return tuple(dict.fromkeys(v))  # de-duplicate, keep order

        object.__setattr__(self, "scores", dict(self.scores) if isinstance(self.scores, dict) else self.scores)
        object.__setattr__(
            self, "score_kinds", dict(self.score_kinds or {}) if isinstance(self.score_kinds or {}, dict) else self.score_kinds
        )
        object.__setattr__(self, "segments", _tuple(self.segments))
        object.__setattr__(self, "features", _tuple(self.features))
        for name in ("time", "group", "weight", "positive", "label_known", "labels_complete_until"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, None)
        if self.positive is not None and not isinstance(self.positive, str):
            object.__setattr__(self, "positive", str(self.positive))

    def to_dict(self) -> dict:
        """JSON-safe dict; :meth:`from_dict` reverses it."""
        return {
            "label": self.label,
            "scores": dict(self.scores) if isinstance(self.scores, dict) else self.scores,
            "score_kinds": dict(self.score_kinds) if isinstance(self.score_kinds, dict) else self.score_kinds,
            "positive": self.positive,
            "segments": list(self.segments),
            "time": self.time,
            "group": self.group,
            "features": list(self.features),
            "weight": self.weight,
            "drop_missing_labels": bool(self.drop_missing_labels),
            # the late-label rule only when set: mappings stored before it existed stay byte-equal
            **({"label_known": self.label_known} if self.label_known is not None else {}),
            **({"labels_complete_until": self.labels_complete_until} if self.labels_complete_until is not None else {}),
        }

    @property
    def late(self) -> bool:
        """Whether a label-known rule is mapped (labels that arrive late)."""
        return self.label_known is not None or self.labels_complete_until is not None

    @classmethod
    def from_dict(cls, d: dict) -> "ColumnMapping":
        """Build a mapping from :meth:`to_dict` output (unknown keys are an error).

        Examples
        --------
        >>> m = ColumnMapping(label="y", scores={"A": "p"}, segments=["region"])
        >>> ColumnMapping.from_dict(m.to_dict()).to_dict() == m.to_dict()
        True
        """
        if not isinstance(d, dict):
            raise InputError(
                _problem(
                    "mapping_invalid",
                    f"A column mapping must be a dict; got {type(d).__name__}.",
                    "Pass the output of ColumnMapping.to_dict().",
                )
            )
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        problems = ProblemList()
        if unknown:
            problems.add(
                "mapping_invalid",
                f"Unknown key(s) in the column mapping: {', '.join(map(repr, unknown))}.",
                f"Use only {', '.join(sorted(known))}.",
            )
        if "label" not in d:
            problems.add("mapping_invalid", "The column mapping has no 'label'.", "Choose the label column.", column="label")
        problems.raise_if_any()
        return cls(**d)


def _problem(code, message, fix="", **kw):
    p = ProblemList()
    p.add(code, message, fix, **kw)
    return p.problems[0]


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Predictions:
    """A validated upload: canonical arrays, one entry per kept row, in file order.

    Attributes
    ----------
    y_true : ndarray of shape (n,), int8
        1 for the positive class, 0 otherwise.
    scores : dict of str to ndarray of shape (n,), float64
        Model name -> finite scores.
    score_kinds : dict of str to str
        Model name -> ``"probability"``, ``"score"`` or ``"decision"`` (never ``"auto"``).
    sample_weight : ndarray of shape (n,), float64, or None
    segments : dict of str to ndarray of shape (n,), object (str)
        Column -> level of each row; missing values are the level :data:`MISSING_LEVEL`.
    time : ndarray of shape (n,), datetime64[ns], or None
    groups : ndarray of shape (n,), object (str), or None
    features : DataFrame of shape (n, n_features)
        Numeric features keep their dtype (NaN stays NaN); the others are categorical
        with missing values as :data:`MISSING_LEVEL`. Index 0..n-1.
    row_numbers : ndarray of shape (n,), int64
        The kept rows' numbers in the file (header = row 1, first data row = row 2).
    positive_label : str
        The label value taken as positive.
    dropped_rows : int
        Rows dropped because their label was missing (only with the user's confirmation).
    mapping : ColumnMapping
    positive_note : dict or None
        Why ``positive_label`` is the positive class: a note of :data:`NOTE_MESSAGES`
        (``positive_chosen``, ``positive_family`` or ``positive_event``) with its params.
    time_granularity : str or None
        How finely the time column is dated (:func:`evalcore.drift.timewindows.granularity`:
        year, month, day or timestamp); None without a time column.
    """

    y_true: np.ndarray
    scores: dict
    score_kinds: dict
    sample_weight: np.ndarray | None
    segments: dict
    time: np.ndarray | None
    groups: np.ndarray | None
    features: pd.DataFrame
    row_numbers: np.ndarray
    positive_label: str
    dropped_rows: int
    mapping: ColumnMapping
    positive_note: dict | None = None
    time_granularity: str | None = None
    pending_rows: int = 0
    labels_complete_until: str | None = None

    @property
    def n_rows(self) -> int:
        """Number of kept rows."""
        return int(self.y_true.shape[0])

    @property
    def n_pos_rows(self) -> int:
        """Number of positive rows (unweighted)."""
        return int(np.count_nonzero(self.y_true))

    @property
    def n(self) -> float:
        """Total weight (the number of rows when there are no weights)."""
        return float(self.n_rows if self.sample_weight is None else self.sample_weight.sum())

    @property
    def n_pos(self) -> float:
        """Weight of the positive rows (their number when there are no weights)."""
        if self.sample_weight is None:
            return float(self.n_pos_rows)
        return float(self.sample_weight[self.y_true == 1].sum())

    @property
    def positive_rate(self) -> float:
        """Weighted share of positives (NaN if the total weight is 0, which validation prevents)."""
        n = self.n
        return self.n_pos / n if n > 0 else float("nan")

    def summary(self) -> dict:
        """JSON-safe overview for the upload page and the stored validation report."""
        models = {}
        for name, s in self.scores.items():
            models[name] = {
                "column": self.mapping.scores.get(name),
                "kind": self.score_kinds[name],
                "min": float(s.min()) if len(s) else None,
                "max": float(s.max()) if len(s) else None,
                "n_distinct": int(pd.unique(s).shape[0]),
            }
        out = {
            "rows": self.n_rows,
            "positives": self.n_pos_rows,
            "positive_rate": _json_float(self.positive_rate),
            "label": {"column": self.mapping.label, "positive": self.positive_label},
            "weighted": None
            if self.sample_weight is None
            else {"column": self.mapping.weight, "total": self.n, "positive": self.n_pos},
            "models": models,
            "time": None,
            "segments": {},
            "n_groups": None,
            "features": list(self.features.columns),
            "dropped_rows": int(self.dropped_rows),
            # why the positive class is what it is and how finely the time is dated: codes of
            # NOTE_MESSAGES with their params, rendered in the user's language by the presentation
            "notes": [] if self.positive_note is None else [self.positive_note],
            "positive_rule": None if self.positive_note is None else self.positive_note["code"].removeprefix("positive_"),
            "time_granularity": None,
        }
        if self.time is not None and len(self.time):
            first, last = self.time.min(), self.time.max()
            gran = self.time_granularity or _granularity(self.time)
            out["time"] = {
                "column": self.mapping.time,
                "first": str(pd.Timestamp(first).isoformat()),
                "last": str(pd.Timestamp(last).isoformat()),
                "days": float((last - first) / np.timedelta64(1, "D")),
            }
            out["time_granularity"] = gran
            form = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}.get(gran, "%Y-%m-%d %H:%M:%S")
            out["notes"].append(
                {
                    "code": f"time_{gran}",
                    "params": {
                        "column": self.mapping.time,
                        "first": pd.Timestamp(first).strftime(form),
                        "last": pd.Timestamp(last).strftime(form),
                    },
                }
            )
        for col, levels in self.segments.items():
            vc = pd.Series(levels).value_counts(sort=True)
            out["segments"][col] = {str(k): int(v) for k, v in vc.items()}
        if self.groups is not None:
            out["n_groups"] = int(pd.unique(self.groups).shape[0])
        if getattr(self.mapping, "late", False):  # labels that arrive late: these rows are the labelled ones
            out["late_labels"] = {
                "label_known": self.mapping.label_known,
                "labels_complete_until": self.labels_complete_until,
                "pending_rows": int(self.pending_rows),
            }
        return out


# --------------------------------------------------------------------------- read_table


def _fmt_size(n: int) -> str:
    if n < 2**10:
        return f"{n} bytes"
    if n < 2**20:
        return f"{n / 2**10:.1f} KB"
    if n < 2**30:
        return f"{n / 2**20:.1f} MB"
    return f"{n / 2**30:.2f} GB"


def read_table(
    raw: bytes,
    filename: str,
    *,
    max_bytes: int = 200 * 2**20,
    max_rows: int = MAX_ROWS,
    max_columns: int = MAX_COLUMNS,
    columns=None,
) -> pd.DataFrame:
    """Read an uploaded CSV or Parquet file into a DataFrame, or raise every problem.

    Parameters
    ----------
    raw : bytes
        The file's content.
    filename : str
        The uploaded name; used in messages and to recognise a file meant as Parquet.
        The format itself is decided by the content (Parquet starts with ``b"PAR1"``).
    max_bytes : int, default=200 MiB
        Size limit of the upload.
    max_rows : int, default=MAX_ROWS (5,000,000)
        Most data rows the file may hold. Parquet: ``num_rows`` of the file's metadata,
        checked before any row is decoded. CSV: the line count, checked before parsing when
        every line is one row (no quotes, no blank lines), else the parsed row count.
    max_columns : int, default=MAX_COLUMNS (2,000)
        Most columns the file may hold: Parquet ``num_columns`` (leaf columns) from its
        metadata, CSV the fields of the header line; both checked before parsing.
    columns : sequence of str, default=None
        Only these columns are converted (e.g. those a mapping names; a CSV's other fields are
        split but never parsed into values, a Parquet file's other columns are not decoded).
        When the header lacks one of them every column is read, so a message about the missing
        column can list the file's columns.

    Returns
    -------
    DataFrame
        Columns named as in the header (surrounding whitespace stripped; an empty header
        cell becomes ``"Unnamed: <i>"``). The index, named ``"row"``, holds the file's row
        numbers: the header is row 1, the first data row is row 2 (for Parquet too).
        ``frame.attrs["source"]`` says how the file was read (format, encoding, delimiter).

    Raises
    ------
    InputError
        Codes ``file_too_large``, ``too_many_rows``, ``too_many_columns``, ``empty_file``,
        ``no_rows``, ``encoding``, ``unsupported_format``, ``csv_parse``, ``parquet_invalid``,
        ``duplicate_columns``.

    Notes
    -----
    Text is decoded as UTF-8 (a BOM is stripped), UTF-16 when it has a BOM, then
    GB18030 (a superset of GBK/GB2312). The delimiter is sniffed among ``, ; TAB |`` on
    the first 64 KB, and checked by counting fields per line. CSV is parsed with
    pyarrow (strict: every row must have as many fields as the header), falling back to
    pandas' C parser only when pyarrow fails for another reason. Empty cells and the
    usual NA spellings (``NA``, ``NaN``, ``null``, ``#N/A`` ...) are missing values.

    Examples
    --------
    >>> df = read_table(b"y;p\\n1;0.9\\n0;0.2\\n", "x.csv")
    >>> df.columns.tolist(), df.index.tolist(), df.attrs["source"]["delimiter"]
    (['y', 'p'], [2, 3], ';')
    """
    if isinstance(raw, (bytearray, memoryview)):
        raw = bytes(raw)
    if not isinstance(raw, bytes):
        raise InputError(
            _problem(
                "unsupported_format",
                f"read_table expects the file's bytes; got {type(raw).__name__}.",
                "Pass the uploaded file's content, e.g. uploaded.getvalue().",
            )
        )
    name = str(filename or "the file")
    if len(raw) > max_bytes:
        raise InputError(
            _problem(
                "file_too_large",
                f"{name} is {_fmt_size(len(raw))}; the upload limit is {_fmt_size(max_bytes)}.",
                "Upload a smaller file (fewer rows or only the needed columns), or save it as Parquet, which is much smaller.",
            )
        )
    for what, limit in (("max_rows", max_rows), ("max_columns", max_columns)):
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise InputError(
                _problem(
                    "limit_invalid",
                    f"read_table: {what} must be a positive whole number; got {limit!r}.",
                    f"Pass {what} as an int, e.g. {what}=1_000_000.",
                )
            )
    if raw[:4] == b"PAR1":
        return _read_parquet(raw, name, int(max_rows), int(max_columns), columns)
    if name.lower().endswith((".parquet", ".parq", ".pq")):
        raise InputError(
            _problem(
                "parquet_invalid",
                f"{name} is named like a Parquet file but does not start with the Parquet "
                "signature (PAR1), so it is not a Parquet file or it is damaged.",
                "Export the Parquet file again, or upload the data as CSV.",
            )
        )
    if raw[:4] == b"PK\x03\x04" or raw[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise InputError(
            _problem(
                "unsupported_format",
                f"{name} looks like an Excel workbook (or a zip archive), not CSV or Parquet.",
                "In Excel use File > Save As > 'CSV UTF-8 (comma delimited)', then upload the .csv.",
            )
        )
    if raw[:2] == b"\x1f\x8b":
        raise InputError(
            _problem("unsupported_format", f"{name} is gzip-compressed.", "Decompress it and upload the .csv inside.")
        )
    return _read_csv(raw, name, int(max_rows), int(max_columns), columns)


_AS_PATH = (
    "save it as Parquet on the server and register it as a path instead (Upload > Register a path, for "
    "large data: DuckDB aggregates it without loading the rows)"
)


def _shape_problems(name: str, n_rows: int | None, n_columns: int, max_rows: int, max_columns: int) -> list:
    """The row and column limit problems of a file (none when it is within both)."""
    out = []
    if n_rows is not None and n_rows > max_rows:
        out.append(
            _problem(
                "too_many_rows",
                f"{name} has {n_rows:,} rows; the limit is {max_rows:,} rows.",
                f"Upload fewer rows (e.g. one period or a sample), or {_AS_PATH}.",
            )
        )
    if n_columns > max_columns:
        out.append(
            _problem(
                "too_many_columns",
                f"{name} has {n_columns:,} columns; the limit is {max_columns:,} columns.",
                f"Keep only the columns the board needs (label, scores, segments, time, group, weight, features), or {_AS_PATH}.",
            )
        )
    return out


def _read_parquet(raw: bytes, name: str, max_rows: int = MAX_ROWS, max_columns: int = MAX_COLUMNS, columns=None) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pfile = pq.ParquetFile(io.BytesIO(raw))
        meta = pfile.metadata  # the footer only: nothing is decoded yet
        too_large = _shape_problems(name, int(meta.num_rows), int(meta.num_columns), max_rows, max_columns)
        stored = [] if too_large else [str(c) for c in pfile.schema_arrow.names]
        names = [c.strip() for c in stored]
        dups = _duplicates(names)
        # only the named columns are decoded, as for a CSV (and a pandas index stored with them);
        # all of them when one is missing, so the message about it can list the file's columns
        want = set(columns) if columns is not None else None
        pick = [c for c, n in zip(stored, names, strict=True) if n in want] if want is not None and want <= set(names) else None
        if pick is not None:
            names = [c.strip() for c in pick]
        table = None if dups or too_large else pfile.read(columns=pick, use_pandas_metadata=True)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(
            _problem(
                "parquet_invalid",
                f"{name} starts like a Parquet file but cannot be read: {_short(exc)}.",
                "The file is probably truncated or damaged; export it again (or upload a CSV).",
            )
        ) from None
    if too_large:
        raise InputError(too_large)
    if dups:
        raise InputError(_dup_problem(dups, name))
    try:
        frame = table.to_pandas(date_as_object=False)
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise InputError(
            _problem(
                "parquet_invalid",
                f"{name} was read but its columns cannot be converted: {_short(exc)}.",
                "Write the file with plain column types (numbers, text, dates).",
            )
        ) from None
    if not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
        names = [str(c).strip() for c in frame.columns]
        dups = _duplicates(names)
        if dups:
            raise InputError(_dup_problem(dups, name))
    frame.columns = [n if n else f"Unnamed: {i}" for i, n in enumerate(names)]
    if frame.shape[1] == 0:
        raise InputError(_problem("empty_file", f"{name} is a Parquet file without columns.", "Upload a file with data."))
    if len(frame) == 0:
        raise InputError(
            _problem(
                "no_rows",
                f"{name} has the columns {_list(frame.columns)} but no rows.",
                "Upload a file with at least one data row.",
            )
        )
    frame.index = pd.RangeIndex(2, len(frame) + 2, name="row")
    frame.attrs["source"] = {"format": "parquet", "encoding": None, "delimiter": None, "filename": name}
    return frame


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _list(items, limit: int = 30) -> str:
    items = [str(i) for i in items]
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f", … ({len(items)} in all)" if len(items) > limit else "")


def _duplicates(names) -> list[str]:
    seen, dups = set(), []
    for n in names:
        if n in seen and n not in dups:
            dups.append(n)
        seen.add(n)
    return dups


def _dup_problem(dups, name):
    return _problem(
        "duplicate_columns",
        f"{name} has more than one column named {_list(dups)}; the columns cannot be told apart.",
        "Rename or remove the duplicated columns so that every header is unique.",
        column=dups[0],
    )


def _utf8_bytes(raw: bytes, name: str) -> tuple[bytes, str]:
    """Return ``(data, encoding)``: the file as UTF-8 bytes without a BOM, and the encoding it
    was read in. UTF-8 input is returned as it is, checked without building a string (pure
    ASCII by one ``isascii``, else decoded piece by piece and the pieces dropped): decoding a
    1.4 GB file to one ``str`` took 5 s of a 45 s 10M-row board (issue 18). GB18030/GBK and
    UTF-16 are decoded and re-encoded, so one parser path serves every encoding."""
    if raw[:3] == b"\xef\xbb\xbf":
        body = raw[3:]
        if _is_utf8(body):
            return body, "utf-8-sig"
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            _raise_encoding(body, exc, name)
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return raw.decode("utf-16").encode("utf-8"), "utf-16"
        except UnicodeDecodeError as exc:
            _raise_encoding(raw, exc, name)
    if _is_utf8(raw):
        return raw, "utf-8"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as utf8_exc:  # where it fails, for the message
        first_error = utf8_exc
    if b"\x00" not in raw:
        try:
            return raw.decode("gb18030").encode("utf-8"), "gb18030"
        except UnicodeDecodeError:
            pass
    _raise_encoding(raw, first_error, name)


def _is_utf8(raw: bytes, piece: int = 1 << 24) -> bool:
    """Whether ``raw`` is valid UTF-8, without holding it as one string."""
    if raw.isascii():
        return True
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    try:
        for i in range(0, len(raw), piece):
            decoder.decode(view[i : i + piece])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _raise_encoding(raw: bytes, exc: UnicodeDecodeError, name: str):
    line = raw.count(b"\n", 0, exc.start) + 1
    bad = raw[exc.start : exc.start + 4].hex(" ")
    binary = b"\x00" in raw[:4096]
    what = (
        "it looks like a binary file (or UTF-16 without a byte-order mark)"
        if binary
        else f"at line {line} the bytes {bad} are not valid UTF-8, and the file is not GB18030/GBK text either"
    )
    raise InputError(
        _problem(
            "encoding",
            f"{name} cannot be read as text: {what}.",
            "Save the file as 'CSV UTF-8' (in Excel: File > Save As > CSV UTF-8) and upload it again.",
            rows=(line,) if not binary else (),
            n_rows=1 if not binary else 0,
        )
    ) from None


def _records(sample: str, delimiter: str, limit: int = 50) -> list[list[str]]:
    reader = csv.reader(io.StringIO(sample), delimiter=delimiter)
    out = []
    try:
        for rec in reader:
            if rec:
                out.append(rec)
            if len(out) >= limit:
                break
    except csv.Error:
        pass
    return out


def _consistency(records) -> tuple[float, int]:
    """(share of records with the header's field count, header field count)."""
    if not records:
        return 0.0, 0
    width = len(records[0])
    if width < 2:
        return 0.0, width
    rest = records[1:] or records
    return sum(len(r) == width for r in rest) / len(rest), width


def _sniff_delimiter(text: str) -> str:
    sample = text[: 2**16]
    if len(text) > len(sample):  # drop the partial last line
        cut = sample.rfind("\n")
        sample = sample[:cut] if cut > 0 else sample
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        sniffed = None
    if sniffed is not None:
        share, width = _consistency(_records(sample, sniffed))
        if share >= 0.9 and width >= 2:
            return sniffed
    # Fallback: count fields per line for every candidate; the best delimiter splits
    # the header into the most columns that the data lines agree with.
    best, best_key = ",", (0.0, 0)
    for d in _DELIMITERS:
        share, width = _consistency(_records(sample, d))
        key = (share, width) if width >= 2 else (0.0, 0)
        if key > best_key:
            best, best_key = d, key
    return best


_INTERIOR_BLANK = re.compile(r"\n[ \t]*\r?\n(?=[ \t\r\n]*\S)")


def _read_csv(raw: bytes, name: str, max_rows: int = MAX_ROWS, max_columns: int = MAX_COLUMNS, columns=None) -> pd.DataFrame:
    if not raw[:4096].strip() and not raw.strip():
        raise InputError(
            _problem(
                "empty_file",
                f"{name} is empty" + (" (only whitespace)." if raw else "."),
                "Upload the file that holds the predictions (a header row and at least one data row).",
            )
        )
    data, encoding = _utf8_bytes(raw, name)
    # Leading blank lines are skipped but still count in the row numbers. The scans below run on
    # the UTF-8 bytes: newline, carriage return, quote and delimiter bytes never occur inside a
    # multi-byte character, so each count equals the count over the text.
    stripped = data.lstrip(b"\r\n")
    lead = data[: len(data) - len(stripped)]
    offset = lead.count(b"\n") + lead.replace(b"\r\n", b"").count(b"\r")
    data = stripped
    head = data[: 2**20].decode("utf-8", errors="ignore")  # the first MB as text (a cut character dropped)
    if not head[:4096].strip() and not data.decode("utf-8").strip():
        raise InputError(
            _problem(
                "empty_file",
                f"{name} has no content (only whitespace).",
                "Upload the file that holds the predictions (a header row and at least one data row).",
            )
        )
    delimiter = _sniff_delimiter(head)
    header_reader = csv.reader(io.StringIO(head), delimiter=delimiter)
    try:
        header = next(header_reader)
    except (csv.Error, StopIteration) as exc:
        raise InputError(
            _problem(
                "csv_parse",
                f"The header line of {name} cannot be parsed: {_short(exc)}.",
                "Check the first line: column names separated by a comma, semicolon, tab or |.",
                rows=(offset + 1,),
                n_rows=1,
            )
        ) from None
    # Shape before parsing: a wide or long file is refused without building a frame. A header
    # longer than the 1 MB read above is cut, so its count is a lower bound (still refuses).
    # Without quotes (no value spans lines) and blank lines, every line after the header is a row.
    lines = data.count(b"\n") - (1 if data.endswith(b"\n") else 0)
    # Whole-file scans cost 0.05–1 s per GB each (a search for "\n\n" the most), so only those
    # needed are made: a file without \r skips the \r scans; a file without quotes or \r, whose
    # lines are its rows, learns whether it has empty lines from the parser (it skips them: fewer
    # rows than lines) unless its line count passes the limit. blank_lines is kept for the row
    # numbers below.
    has_cr = b"\r" in data
    quoted = b'"' in data
    plain = not quoted and not has_cr
    blank_lines = None if plain and lines <= max_rows else _has_empty_lines(data, has_cr)
    exact = not quoted and (not has_cr or data.count(b"\r") == data.count(b"\r\n")) and not blank_lines
    too_large = _shape_problems(name, lines if exact else None, len(header), max_rows, max_columns)
    if too_large:
        raise InputError(too_large)
    names = [h.strip() for h in header]
    names = [n if n else f"Unnamed: {i}" for i, n in enumerate(names)]
    dups = _duplicates(names)
    if dups:
        raise InputError(_dup_problem(dups, name))

    want = set(columns) if columns is not None else None
    include = [n for n in names if n in want] if want is not None and want <= set(names) else None
    frame = _parse_csv(data, quoted, delimiter, names, name, offset, include)

    if len(frame) == 0:
        raise InputError(
            _problem(
                "no_rows",
                f"{name} has a header ({_list(names, 12)}) but no data rows.",
                "Upload a file with at least one data row below the header.",
            )
        )
    if len(frame) > max_rows:  # quoted or blank lines: the row count is only known now
        raise InputError(_shape_problems(name, len(frame), len(names), max_rows, max_columns))
    if blank_lines is None:  # a plain file: a line without a row was empty
        blank_lines = len(frame) < lines
    # Row numbers as a spreadsheet shows them. Interior blank lines are skipped by the
    # parser but still occupy a row, so only then do we pay for a scan.
    text = data.decode("utf-8") if blank_lines else ""  # the rare file with blank lines is read as text
    if blank_lines and _INTERIOR_BLANK.search(text, text.find("\n")):
        numbers = _record_row_numbers(text, delimiter) + offset
        if len(numbers) == len(frame):
            frame.index = pd.Index(numbers, name="row")
        else:  # pragma: no cover - defensive: parser and scanner disagree
            frame.index = pd.RangeIndex(2 + offset, len(frame) + 2 + offset, name="row")
    else:
        frame.index = pd.RangeIndex(2 + offset, len(frame) + 2 + offset, name="row")
    frame.attrs["source"] = {"format": "csv", "encoding": encoding, "delimiter": delimiter, "filename": name}
    return frame


def _has_empty_lines(data: bytes, has_cr: bool) -> bool:
    """Whether ``data`` holds an empty line (a \\n, \\r\\n or \\r line ending right after another)."""
    return b"\n\n" in data or (has_cr and (b"\n\r\n" in data or b"\r\r" in data))


def _record_row_numbers(text: str, delimiter: str) -> np.ndarray:
    """1-based row number of every non-blank data record (blank lines count as rows)."""
    out = []
    row = 0
    for rec in csv.reader(io.StringIO(text), delimiter=delimiter):
        row += 1
        if row == 1:
            continue
        if rec and any(f.strip() for f in rec):
            out.append(row)
    return np.asarray(out, dtype=np.int64)


def _parse_csv(
    data: bytes, quoted: bool, delimiter: str, names: list[str], name: str, offset: int, include: list | None = None
) -> pd.DataFrame:
    """The frame pyarrow parses from ``data`` (UTF-8; ``quoted``: it holds a double quote, so a
    value may span lines); a file pyarrow refuses is read again as text to say which lines are
    wrong."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=quoted),
            convert_options=pacsv.ConvertOptions(strings_can_be_null=True, include_columns=include),
        )
        return table.to_pandas(date_as_object=False)
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        arrow_error = exc
    text = data.decode("utf-8")
    ragged = _ragged_lines(text, delimiter, len(names))
    if ragged is not None:
        raise InputError(ragged(name, offset)) from None
    try:  # pyarrow failed for a reason other than the field count; try the C parser
        return pd.read_csv(
            io.StringIO(text),
            sep=delimiter,
            header=0,
            names=names,
            usecols=include,
            dtype=None,
            on_bad_lines="error",
            low_memory=False,
        )
    except Exception as exc:  # noqa: BLE001 - any parser failure becomes a readable problem
        raise InputError(
            _problem(
                "csv_parse",
                f"{name} cannot be parsed as {_DELIM_NAMES[delimiter]}-separated values: {_short(exc)} "
                f"(pyarrow said: {_short(arrow_error, 200)}).",
                "Open the file in a text editor and check the quoting and the number of fields per line.",
            )
        ) from None


def _ragged_lines(text: str, delimiter: str, width: int):
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    bad, count = [], 0
    try:
        next(reader)
        for rec in reader:
            if not rec:
                continue
            if len(rec) != width:
                count += 1
                if len(bad) < _N_EXAMPLES:
                    bad.append((reader.line_num, len(rec)))
    except csv.Error as exc:
        line, why = reader.line_num, _short(exc)

        def make_err(name, offset):
            return _problem(
                "csv_parse",
                f"{name} cannot be parsed at line {line + offset}: {why}.",
                "Check the quotes on that line (a field that contains the delimiter must be quoted).",
                rows=(line + offset,),
                n_rows=1,
            )

        return make_err
    if not count:
        return None

    def make(name, offset):
        first_line, first_n = bad[0]
        return _problem(
            "csv_parse",
            f"{name}: the header has {width} fields ({_DELIM_NAMES[delimiter]}-separated) but {count} line(s) have a "
            f"different number, first at line {first_line + offset} ({first_n} fields).",
            "Make every line have as many fields as the header; quote fields that contain the delimiter.",
            rows=[ln + offset for ln, _ in bad],
            n_rows=count,
        )

    return make


# --------------------------------------------------------------------------- helpers for validate


def _row_numbers(frame: pd.DataFrame) -> np.ndarray:
    idx = frame.index
    if idx.name == "row" and pd.api.types.is_integer_dtype(idx.dtype):
        return np.asarray(idx, dtype=np.int64)
    return np.arange(2, len(frame) + 2, dtype=np.int64)


def _level_strings(uniques: pd.Index) -> np.ndarray:
    """Canonical string for each distinct value: 1.0 -> '1', True -> 'True', text stripped."""
    dtype = uniques.dtype
    kind = getattr(dtype, "kind", "O")
    if pd.api.types.is_bool_dtype(dtype):
        return np.array([str(bool(v)) for v in uniques], dtype=object)
    if kind in "iu":
        return np.asarray(uniques).astype(str).astype(object)
    if kind == "f":
        a = np.asarray(uniques, dtype=np.float64)
        integral = np.isfinite(a) & (np.abs(a) < 2**53)
        integral &= a == np.round(np.where(integral, a, 0))
        as_int = np.where(integral, a, 0).astype(np.int64).astype(str)
        return np.where(integral, as_int, a.astype(str)).astype(object)
    if kind == "M":
        return np.asarray(pd.Index(uniques).astype(str), dtype=object)
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return np.asarray(uniques.str.strip(), dtype=object)
    return np.array([v.strip() if isinstance(v, str) else str(v) for v in uniques], dtype=object)


def _factorize(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes with -1 for missing, levels as str); blank strings count as missing."""
    codes, uniques = series.factorize(use_na_sentinel=True)
    if not isinstance(uniques, pd.Index):
        uniques = pd.Index(uniques)
    strs = _level_strings(uniques)
    if getattr(uniques.dtype, "kind", "O") in "iu":  # distinct integers print distinctly, never blank
        return np.asarray(codes, dtype=np.int64), strs
    canon_codes, levels = pd.factorize(strs)
    levels = np.asarray(levels, dtype=object)
    blank = np.flatnonzero(levels == "")
    if blank.size:  # "" (or only spaces) is a missing value, like an empty cell
        canon_codes = np.where(canon_codes == blank[0], -1, canon_codes)
        canon_codes = canon_codes - (canon_codes > blank[0])
        levels = np.delete(levels, blank[0])
    canon_codes = np.asarray(canon_codes, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    out = np.full(codes.shape, -1, dtype=np.int64)
    ok = codes >= 0
    out[ok] = canon_codes[codes[ok]]
    return out, levels


def _examples(rows: np.ndarray, mask: np.ndarray) -> tuple[list[int], int]:
    idx = np.flatnonzero(mask)
    return rows[idx[:_N_EXAMPLES]].tolist(), int(idx.size)


def _value_examples(values, mask: np.ndarray, limit: int = 3) -> str:
    idx = np.flatnonzero(mask)[:50]
    seen = []
    for v in np.asarray(values, dtype=object)[idx]:
        r = repr(v.strip() if isinstance(v, str) else v)
        if r not in seen:
            seen.append(r)
        if len(seen) >= limit:
            break
    return ", ".join(seen)


def _to_numeric(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values with NaN for missing/non-numeric, mask of non-numeric text)."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_object_dtype(dtype)):
        return series.to_numpy(dtype=np.float64, na_value=np.nan), np.zeros(len(series), dtype=bool)
    if dtype.kind == "M" or isinstance(dtype, pd.DatetimeTZDtype):
        vals = np.full(len(series), np.nan)
        return vals, series.notna().to_numpy()
    stripped = (
        series.astype("str").str.strip()
        if not pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype)
        else series.str.strip()
    )
    present = series.notna().to_numpy() & (stripped.fillna("") != "").to_numpy()
    conv = pd.to_numeric(stripped.where(present, None), errors="coerce")
    vals = conv.to_numpy(dtype=np.float64, na_value=np.nan)
    return vals, present & np.isnan(vals) & ~_is_nan_text(stripped, present)


def _is_nan_text(stripped: pd.Series, present: np.ndarray) -> np.ndarray:
    # "nan" written out is a missing value, not text
    return present & stripped.fillna("").str.lower().isin(["nan", "-nan", "na", "n/a", "null", "none"]).to_numpy()


_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")


def _numeric_fix(examples_text: str, default: str) -> str:
    if re.search(r"'[+-]?\d+,\d+'", examples_text):
        return (
            "The values look like they use a decimal comma (e.g. 0,75): save the file with a point as the "
            "decimal separator, or " + default[0].lower() + default[1:]
        )
    return default


# --------------------------------------------------------------------------- validate


def validate(frame: pd.DataFrame, mapping: ColumnMapping) -> Predictions:
    """Check an uploaded table against a column mapping; return canonical predictions.

    Parameters
    ----------
    frame : DataFrame
        Usually the output of :func:`read_table`, whose index holds the file's row
        numbers. For any other frame, row numbers are its position + 2 (as if it had been
        read from a file with a header row).
    mapping : ColumnMapping

    Returns
    -------
    Predictions

    Raises
    ------
    InputError
        Lists every problem at once (see :data:`PROBLEM_CODES`), each with a few example
        row numbers, the count of affected rows and the fix.

    Notes
    -----
    Score kind ``"auto"`` resolves to ``"decision"`` when every value is 0 or 1, to
    ``"probability"`` when every value lies in [0, 1], and to ``"score"`` otherwise.
    Rows whose label is missing are problems unless ``mapping.drop_missing_labels`` is
    True; then they are dropped, counted in ``dropped_rows``, and the other columns are
    checked on the remaining rows only.

    Examples
    --------
    >>> frame = read_table(b"y,p\\nyes,0.9\\nno,0.2\\nno,0.4\\n", "x.csv")
    >>> pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}))
    >>> pred.y_true.tolist(), pred.positive_label, pred.score_kinds, pred.row_numbers.tolist()
    ([1, 0, 0], 'yes', {'A': 'probability'}, [2, 3, 4])
    """
    if not isinstance(mapping, ColumnMapping):
        raise InputError(
            _problem(
                "mapping_invalid",
                f"mapping must be a ColumnMapping; got {type(mapping).__name__}.",
                "Build it with ColumnMapping(label=..., scores={...}) or ColumnMapping.from_dict(...).",
            )
        )
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            _problem(
                "mapping_invalid",
                f"frame must be a pandas DataFrame; got {type(frame).__name__}.",
                "Read the upload with read_table first.",
            )
        )
    if mapping.late:  # labels that arrive late: the rows whose label is known (late_labels has them all)
        return late_labels(frame, mapping).labelled
    problems = ProblemList()
    rows = _row_numbers(frame)
    n = len(frame)
    columns = {str(c): c for c in frame.columns}

    # --- the mapping and the columns it names ------------------------------------
    _check_mapping_shape(mapping, problems)
    dups = _duplicates([str(c) for c in frame.columns])
    if dups:
        problems.add(
            "duplicate_columns",
            f"The table has more than one column named {_list(dups)}.",
            "Rename or remove the duplicated columns so that every header is unique.",
            column=dups[0],
        )
    roles = _roles(mapping)
    available = [c for c in columns]
    present = set()
    for role, col in roles:
        if not isinstance(col, str) or not col:
            continue
        if col in columns:
            present.add(col)
        elif not any(p.code == "missing_column" and p.column == col for p in problems.problems):
            problems.add(
                "missing_column",
                f"The {role} column {col!r} is not in the file. Available columns: {_list(available)}.",
                f"Choose the {role} column among the file's columns, or add a column named {col!r}.",
                column=col,
            )
    _check_roles(roles, problems)
    if n == 0:
        problems.add("no_rows", "The table has no rows.", "Upload a file with at least one data row.")
        problems.raise_if_any()

    def col(name):
        return frame[columns[name]] if isinstance(name, str) and name in present and name not in dups else None

    # --- label --------------------------------------------------------------------
    keep = np.ones(n, dtype=bool)
    y_true = None
    positive_label = None
    positive_note = None
    label = col(mapping.label)
    if label is not None:
        y_true, positive_label, keep, positive_note = _check_label(label, mapping, rows, problems)
    n_dropped = int(n - keep.sum())
    krows = rows[keep]

    def kept(series):
        return series if n_dropped == 0 else series[keep]

    # --- scores -------------------------------------------------------------------
    scores, kinds = {}, {}
    if isinstance(mapping.scores, dict):
        for model, cname in mapping.scores.items():
            s = col(cname)
            if s is None:
                continue
            kind = mapping.score_kinds.get(model, "auto") if isinstance(mapping.score_kinds, dict) else "auto"
            res = _check_score(kept(s), str(model), cname, kind if kind in SCORE_KINDS else "auto", krows, problems)
            if res is not None:
                scores[model], kinds[model] = res

    # --- weight -------------------------------------------------------------------
    weight = None
    w = col(mapping.weight)
    if w is not None:
        weight = _check_weight(kept(w), mapping.weight, krows, problems)
        if weight is not None and y_true is not None:
            yk = y_true[keep]
            for cls, cname in ((1, "positive"), (0, "negative")):
                if (yk == cls).any() and weight[yk == cls].sum() == 0:
                    problems.add(
                        "label_one_class",
                        f"Every {cname} row ({positive_label!r} is positive) has weight 0, so in "
                        f"the weighted data there is only one class.",
                        "Check the weight column; both classes need some weight.",
                        column=mapping.weight,
                    )

    # --- time, group, segments, features ---------------------------------------------
    time, time_form = None, None
    t = col(mapping.time)
    if t is not None:
        time, time_form = _check_time(kept(t), mapping.time, krows, problems)
    groups = None
    g = col(mapping.group)
    if g is not None:
        codes, levels = _factorize(kept(g))
        miss = codes < 0
        if miss.any():
            ex, cnt = _examples(krows, miss)
            problems.add(
                "group_missing",
                f"The group column {mapping.group!r} is empty in {cnt} row(s); every row needs "
                "a group id for the cluster bootstrap.",
                "Fill in the group ids, or unmap the group column.",
                column=mapping.group,
                rows=ex,
                n_rows=cnt,
            )
        else:
            groups = levels[codes]
    segments = {}
    for cname in mapping.segments:
        s = col(cname)
        if s is None:
            continue
        codes, levels = _factorize(kept(s))
        if len(levels) > MAX_SEGMENT_LEVELS:
            problems.add(
                "segment_too_many_levels",
                f"The segment column {cname!r} has {len(levels)} distinct values (e.g. {_list(levels[:3])}); "
                f"a segment may have at most {MAX_SEGMENT_LEVELS}.",
                "Use a categorical column (e.g. channel, region, new_user) or bin this one first; a numeric "
                "column can be mapped as a feature instead.",
                column=cname,
            )
            continue
        lv = np.append(levels, MISSING_LEVEL) if MISSING_LEVEL not in set(levels) else levels
        miss_code = int(np.flatnonzero(lv == MISSING_LEVEL)[0])
        segments[cname] = lv[np.where(codes < 0, miss_code, codes)]

    problems.raise_if_any()

    features = _features(frame, [c for c in mapping.features if c in present], columns, keep, n_dropped)
    return Predictions(
        y_true=y_true[keep] if n_dropped else y_true,
        scores=scores,
        score_kinds=kinds,
        sample_weight=weight,
        segments=segments,
        time=time,
        groups=groups,
        features=features,
        row_numbers=krows.astype(np.int64, copy=False),
        positive_label=positive_label,
        dropped_rows=n_dropped,
        mapping=mapping,
        positive_note=positive_note,
        time_granularity=None if time is None else (time_form or _granularity(time)),
    )


# --------------------------------------------------------------------------- late labels

_TRUE = {"true", "1", "yes", "y", "t", "1.0", "是"}
_FALSE = {"false", "0", "no", "n", "f", "0.0", "否", ""}


def label_known_until(time, until) -> np.ndarray:
    """Rows whose labels have arrived under "labels are complete up to date D": the rows of
    days up to and including D (time in UTC, as the drift windows)."""
    d = _complete_day(until)
    if d is None:
        raise InputError(
            _problem("label_known_invalid", f"labels complete until {until!r}: not a date.", "Use a day such as 2026-10-31.")
        )
    t = pd.DatetimeIndex(pd.to_datetime(np.asarray(time)))
    if t.tz is not None:
        t = t.tz_convert("UTC").tz_localize(None)
    return np.asarray(t.normalize() <= d)


def _complete_day(until):
    try:
        d = pd.Timestamp(until)
    except (TypeError, ValueError):
        return None
    return None if pd.isna(d) else d.tz_localize(None).normalize() if d.tz is not None else d.normalize()


def label_known_rows(frame: pd.DataFrame, mapping, label_known: str | None, complete_until=None) -> pd.Series:
    """Which rows' labels have arrived, by one rule: a column (true/false, 1/0, yes/no; empty
    means not yet) or "labels are complete up to day D" (by the mapped time column, read as
    :func:`validate` reads it).

    Returns a boolean Series on ``frame``'s index; raises InputError listing every problem
    (both rules or none, unknown column, values that are not yes/no with their rows, an
    unreadable date). Rows whose time cannot be read count as not known (validation lists them).
    """
    p = ProblemList()
    if (label_known is None) == (complete_until is None):
        p.add(
            "label_known_invalid",
            "give one label-known rule: a maturity column or a date up to which labels are complete.",
            "Use --label-known COL or --labels-complete-until D (in the app: one of the two).",
        )
        p.raise_if_any()
    rows = _row_numbers(frame)
    if label_known is not None:
        if label_known not in frame.columns:
            p.add(
                "missing_column",
                f"The label-known column {label_known!r} is not in the file. Available columns: {_list(frame.columns)}.",
                "Choose the label-known column among the file's columns.",
                column=label_known,
            )
            p.raise_if_any()
        col = frame[label_known]
        text = col.astype(object).where(col.notna(), "").astype(str).str.strip().str.lower()
        bad = ~(text.isin(_TRUE) | text.isin(_FALSE))
        if bad.any():
            ex, cnt = _examples(rows, bad.to_numpy())
            p.add(
                "label_known_invalid",
                f"The label-known column {label_known!r} has {cnt} value(s) that are not yes/no, "
                f"e.g. {_value_examples(col, bad.to_numpy())}.",
                "Use true/false, 1/0 or yes/no; leave it empty while the label has not arrived.",
                column=label_known,
                rows=ex,
                n_rows=cnt,
            )
            p.raise_if_any()
        return pd.Series(text.isin(_TRUE).to_numpy(), index=frame.index)
    d = _complete_day(complete_until)
    if d is None:
        p.add(
            "label_known_invalid",
            f"labels complete until {complete_until!r}: not a date.",
            "Use a day such as 2026-10-31.",
        )
    if mapping.time is None or mapping.time not in frame.columns:
        p.add(
            "label_known_invalid",
            "labels complete until a date needs the time column.",
            "Map the time column (--time COL).",
            column="time",
        )
    p.raise_if_any()
    parsed, failed, _ = _parse_time(frame[mapping.time])
    if parsed is None:
        return pd.Series(np.zeros(len(frame), bool), index=frame.index)
    day = pd.DatetimeIndex(parsed).normalize()
    return pd.Series(np.asarray(day <= d) & ~np.isnat(np.asarray(parsed)), index=frame.index)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class LateLabels:
    """An upload whose labels arrive late, validated (:func:`late_labels`).

    Attributes
    ----------
    every : Predictions
        Every row; the label of a row whose label is not known yet is a placeholder, never read.
    known : ndarray of shape (every.n_rows,), bool
        Whose label has arrived.
    labelled : Predictions
        The rows whose label is known (what the board evaluates), with ``pending_rows`` and
        ``labels_complete_until`` set.
    complete_until : str or None
        The last day (ISO) up to which every row's label is known; None without a time column.
    """

    every: Predictions
    known: np.ndarray
    labelled: Predictions
    complete_until: str | None

    @property
    def pending(self) -> int:
        """Rows whose label has not arrived (estimated by value over time, not on the board)."""
        return int(self.known.size - np.count_nonzero(self.known))


def _take(p: Predictions, mask: np.ndarray, **kw) -> Predictions:
    idx = np.flatnonzero(mask)

    def cut(a):
        return None if a is None else a[idx]

    return dataclasses.replace(
        p,
        y_true=p.y_true[idx],
        scores={k: v[idx] for k, v in p.scores.items()},
        sample_weight=cut(p.sample_weight),
        segments={k: v[idx] for k, v in p.segments.items()},
        time=cut(p.time),
        groups=cut(p.groups),
        features=p.features.iloc[idx].reset_index(drop=True),
        row_numbers=p.row_numbers[idx],
        **kw,
    )


def late_labels(frame: pd.DataFrame, mapping: ColumnMapping) -> LateLabels:
    """Validate an upload whose labels arrive late (``mapping.label_known`` or
    ``mapping.labels_complete_until``).

    A row whose label is not known yet may have an empty label (any label it has is ignored);
    every other problem is listed as :func:`validate` lists it — a known row with an empty label
    is ``label_missing`` as always — together with the rule's own problems, all at once.

    Examples
    --------
    >>> f = read_table(b"y,p,t\\n1,0.9,2026-10-01\\n0,0.2,2026-10-02\\n,0.4,2026-10-09\\n", "x.csv")
    >>> ll = late_labels(f, ColumnMapping(label="y", scores={"A": "p"}, time="t", labels_complete_until="2026-10-05"))
    >>> ll.known.tolist(), ll.labelled.n_rows, ll.pending, ll.complete_until
    ([True, True, False], 2, 1, '2026-10-05')
    """
    if not mapping.late:
        preds = validate(frame, mapping)
        return LateLabels(every=preds, known=np.ones(preds.n_rows, bool), labelled=preds, complete_until=None)
    if not (frame.index.name == "row" and pd.api.types.is_integer_dtype(frame.index.dtype)):
        frame = frame.set_axis(pd.RangeIndex(2, len(frame) + 2, name="row"))  # file row numbers, as read_table
    base = dataclasses.replace(mapping, label_known=None, labels_complete_until=None)
    problems = ProblemList()
    known = None
    try:
        known = label_known_rows(frame, mapping, mapping.label_known, mapping.labels_complete_until)
    except InputError as err:
        problems.problems.extend(err.problems)
    if known is not None and mapping.label in frame.columns:
        filled = frame
        if not known.all():
            seen = frame.loc[known.to_numpy(), mapping.label].dropna()
            seen = seen[seen.astype(str).str.strip() != ""]
            if len(seen):
                filled = frame.copy()
                filled[mapping.label] = filled[mapping.label].astype(object)
                filled.loc[~known.to_numpy(), mapping.label] = seen.iloc[0]  # a placeholder: never read
            else:
                problems.add(
                    "label_known_invalid",
                    f"No row has a known label yet: all {len(frame)} rows are marked as not arrived "
                    f"({_rule_words(mapping)}), or the known rows' labels are empty.",
                    "Upload once some labels have arrived, or check the label-known rule.",
                    column=mapping.label_known or mapping.time,
                )
                known = None
    else:
        filled = frame
    every = None
    try:  # without a usable rule, the other columns are still checked (every missing label is then listed)
        every = validate(filled, base)
    except InputError as err:
        problems.problems.extend(q for q in err.problems if not (known is None and q.code == "label_missing" and problems))
    problems.raise_if_any()
    flag = known.loc[every.row_numbers].to_numpy()
    if every.time is not None and mapping.labels_complete_until is not None:
        until = _complete_day(mapping.labels_complete_until).date().isoformat()
    elif every.time is not None and not flag.all():
        first = pd.Timestamp(np.min(every.time[~flag])).normalize()
        until = (first - pd.Timedelta(days=1)).date().isoformat()
    elif every.time is not None:
        until = pd.Timestamp(np.max(every.time)).date().isoformat()
    else:
        until = None
    labelled = _take(every, flag, mapping=mapping, pending_rows=int((~flag).sum()), labels_complete_until=until)
    p = ProblemList()
    if labelled.n_rows and np.unique(labelled.y_true).size < 2:
        p.add(
            "label_one_class",
            f"The {labelled.n_rows} rows whose label is known all have the same label; the board needs both classes.",
            "Wait for more labels, or check the label-known rule.",
            column=mapping.label,
        )
    p.raise_if_any()
    return LateLabels(every=dataclasses.replace(every, mapping=mapping), known=flag, labelled=labelled, complete_until=until)


def _rule_words(m: ColumnMapping) -> str:
    if m.label_known is not None:
        return f"label-known column {m.label_known!r}"
    return f"labels complete until {m.labels_complete_until}"


def _check_mapping_shape(m: ColumnMapping, problems: ProblemList) -> None:
    if not isinstance(m.label, str) or not m.label:
        problems.add(
            "mapping_invalid",
            f"The label column must be a column name; got {m.label!r}.",
            "Choose the label column.",
            column="label",
        )
    if not isinstance(m.scores, dict):
        problems.add(
            "mapping_invalid",
            f"scores must map model names to columns, e.g. {{'A': 'score'}}; got {type(m.scores).__name__}.",
            "Pass a dict of model name -> score column.",
            column="scores",
        )
        return
    if len(m.scores) == 0:
        problems.add(
            "no_score",
            "No score column is mapped; at least one model's score is needed.",
            "Choose the column that holds model A's score (and optionally model B's).",
            column="scores",
        )
    elif len(m.scores) > 2:
        problems.add(
            "too_many_scores",
            f"{len(m.scores)} score columns are mapped ({_list(m.scores.values())}); the board compares at most two models.",
            "Keep one or two score columns (model A and model B).",
            column="scores",
        )
    for model, cname in m.scores.items():
        if not isinstance(cname, str) or not cname or not str(model):
            problems.add(
                "mapping_invalid",
                f"Model {model!r} must name a score column; got {cname!r}.",
                "Choose a column for each model.",
                column="scores",
            )
    if not isinstance(m.score_kinds, dict):
        problems.add(
            "score_kind_invalid",
            "score_kinds must map model names to a kind.",
            f"Use a dict like {{'A': 'probability'}} with kinds among {SCORE_KINDS}.",
            column="score_kinds",
        )
        return
    for model, kind in m.score_kinds.items():
        if model not in m.scores:
            problems.add(
                "score_kind_invalid",
                f"A score kind is given for model {model!r}, which has no score column (models: {_list(m.scores)}).",
                "Use the same model names in scores and score_kinds.",
                column="score_kinds",
            )
        elif kind not in SCORE_KINDS:
            problems.add(
                "score_kind_invalid",
                f"The score kind of model {model!r} is {kind!r}; it must be one of {', '.join(map(repr, SCORE_KINDS))}.",
                "Pick 'auto' to let the data decide.",
                column="score_kinds",
            )


_EXCLUSIVE = ("label", "score", "time", "weight", "group")


def _roles(m: ColumnMapping) -> list[tuple[str, str]]:
    roles = [("label", m.label)]
    if isinstance(m.scores, dict):
        roles += [(f"score of model {model}", c) for model, c in m.scores.items()]
    roles += [("time", m.time), ("group", m.group), ("weight", m.weight)]
    roles += [("segment", c) for c in m.segments]
    roles += [("feature", c) for c in m.features]
    return [(r, c) for r, c in roles if c is not None]


def _check_roles(roles, problems: ProblemList) -> None:
    by_col: dict = {}
    for role, c in roles:
        if isinstance(c, str):
            by_col.setdefault(c, []).append(role)
    for c, rs in by_col.items():
        if len(rs) < 2:
            continue
        base = [r.split(" ")[0] for r in rs]
        exclusive = [r for r, b in zip(rs, base) if b in _EXCLUSIVE]
        # allowed: segment + feature (a categorical used both ways), score + feature (score drift)
        if not exclusive:
            continue
        if len(exclusive) == 1 and exclusive[0].startswith("score") and set(base) <= {"score", "feature"}:
            continue
        problems.add(
            "column_in_two_roles",
            f"The column {c!r} is mapped as {' and as '.join(rs)}; a column can play "
            "only one of the roles label, score, time, weight and group (and is then neither segment nor feature).",
            f"Choose a different column for one of the roles of {c!r}.",
            column=c,
        )


def _check_label(series: pd.Series, m: ColumnMapping, rows: np.ndarray, problems: ProblemList):
    n = len(series)
    codes, levels = _factorize(series)
    missing = codes < 0
    n_missing = int(missing.sum())
    keep = ~missing if (m.drop_missing_labels and n_missing) else np.ones(n, dtype=bool)
    cname = m.label
    if n_missing == n:
        problems.add(
            "label_missing",
            f"Every label in column {cname!r} is missing ({n} rows).",
            "Choose the column that holds the outcome.",
            column=cname,
            rows=rows[:_N_EXAMPLES],
            n_rows=n,
        )
        return None, None, keep, None
    if n_missing and not m.drop_missing_labels:
        ex, cnt = _examples(rows, missing)
        problems.add(
            "label_missing",
            f"The label column {cname!r} is empty in {cnt} of {n} rows; without a label these rows cannot be evaluated.",
            f"Fill in the labels, or confirm dropping {'this row' if cnt == 1 else f'these {cnt} rows'} "
            "(dropped rows are counted and reported).",
            column=cname,
            rows=ex,
            n_rows=cnt,
        )
    counts = np.bincount(codes[codes >= 0], minlength=len(levels))
    pos_code = binary_label(levels, counts, m.positive, cname, problems)
    if pos_code is None:
        return None, None, keep, None
    y = (codes == pos_code).astype(np.int8)
    return y, str(levels[pos_code]), keep, positive_note(levels, pos_code)


def positive_note(levels, pos_code: int) -> dict:
    """Why ``levels[pos_code]`` is the positive class of a two-valued label, as a note of
    :data:`NOTE_MESSAGES`: the rule's own choice (a known pair, or the value naming the event)
    or, when the rule would pick otherwise or nothing, the user's.

    Examples
    --------
    >>> positive_note(["否", "是"], 1)["code"], positive_note(["正常", "违约"], 1)["params"]["word"]
    ('positive_family', '违约')
    >>> positive_note(["ok", "fraud"], 1)
    {'code': 'positive_chosen', 'params': {'positive': 'fraud', 'negative': 'ok'}}
    """
    values = [str(v) for v in levels]
    params = {"positive": values[pos_code], "negative": values[1 - pos_code]}
    rule = positive_rule(values)
    if rule is None or rule[0] != pos_code:
        return {"code": "positive_chosen", "params": params}
    return {"code": f"positive_{rule[1]}", "params": {**params, "word": rule[2]}}


def binary_label(levels, counts, positive, cname: str, problems: ProblemList) -> int | None:
    """The index of the positive class among a label column's distinct ``levels`` (with their row
    ``counts``), or None after adding the problem: not exactly two values (``label_not_binary``,
    ``label_one_class``), or no positive class decided (``positive_not_chosen``,
    ``positive_not_found``). The one label rule of the reader (:func:`validate`) and of the
    DuckDB/Spark engines, which pass the distinct values their SQL found.

    Examples
    --------
    >>> p = ProblemList(); binary_label(["ok", "fraud"], [90, 10], "fraud", "y", p), p.problems
    (1, [])
    >>> p = ProblemList(); binary_label(["a", "b", "c"], [1, 1, 1], None, "y", p), [x.code for x in p.problems]
    (None, ['label_not_binary'])
    """
    counts = np.asarray(counts)
    if len(levels) > 2:
        order = np.argsort(-counts, kind="stable")
        shown = ", ".join(f"{levels[i]!r} ({counts[i]} rows)" for i in order[:10])
        more = f", … ({len(levels)} values in all)" if len(levels) > 10 else ""
        problems.add(
            "label_not_binary",
            f"The label column {cname!r} must have exactly two distinct values; it has {len(levels)}: {shown}{more}.",
            "Choose a binary outcome column, or recode the label to two values (e.g. 1 = positive, 0 = negative).",
            column=cname,
        )
        return None
    if len(levels) == 1:
        problems.add(
            "label_one_class",
            f"The label column {cname!r} has only one value, {levels[0]!r} (in all {int(counts[0])} "
            "labelled rows); evaluating a classifier needs both positives and negatives.",
            "Upload a validation set that contains both classes.",
            column=cname,
        )
        return None
    return _positive_code(levels, positive, cname, problems)


def _positive_code(levels, positive, cname, problems):
    values = [str(v) for v in levels]
    code = positive_index(values, positive)
    if code is not None:
        return code
    if positive is None:
        problems.add(
            "positive_not_chosen",
            f"The label column {cname!r} has the values {_list(values)}; which one is the "
            "positive class (the event to act on, e.g. fraud, default, churn)?",
            "Pick the positive label value.",
            column=cname,
        )
    else:
        problems.add(
            "positive_not_found",
            f"The positive label {positive!r} is not a value of the label column {cname!r}, whose values are {_list(values)}.",
            "Pick the positive label among these values.",
            column=cname,
        )
    return None


def default_positive(values) -> str | None:
    """The positive class a label's ``values`` imply, or None when the user must pick it: the
    one rule of the reader (:func:`validate`), the training table
    (:func:`evalcore.stability.prepare_training`) and the positive-class picker.

    Examples
    --------
    >>> default_positive(["no", "yes"]), default_positive(["0", "1"]), default_positive(["fraud", "ok"])
    ('yes', '1', None)
    """
    values = list(values)
    i = positive_index(values)
    return None if i is None else values[i]


def _float_or_none(v):
    try:
        return float(v)
    except ValueError:
        return None


def _check_score(series, model, cname, kind, rows, problems):
    vals, nonnum = _to_numeric(series)
    bad = False
    who = f"The score column {cname!r} (model {model})"
    if nonnum.any():
        ex, cnt = _examples(rows, nonnum)
        shown = _value_examples(series, nonnum)
        problems.add(
            "score_not_numeric",
            f"{who} holds {cnt} value(s) that are not numbers, e.g. {shown}.",
            _numeric_fix(shown, "Correct those cells so that every score is a number."),
            column=cname,
            rows=ex,
            n_rows=cnt,
        )
        bad = True
    miss = np.isnan(vals) & ~nonnum
    if miss.any():
        ex, cnt = _examples(rows, miss)
        problems.add(
            "score_missing",
            f"{who} is missing (empty or NaN) in {cnt} row(s).",
            "Fill in the scores, or remove those rows from the file.",
            column=cname,
            rows=ex,
            n_rows=cnt,
        )
        bad = True
    inf = np.isinf(vals)
    if inf.any():
        ex, cnt = _examples(rows, inf)
        problems.add(
            "score_not_finite",
            f"{who} is infinite (inf or -inf) in {cnt} row(s).",
            "Replace the infinite scores with finite numbers (e.g. clip them).",
            column=cname,
            rows=ex,
            n_rows=cnt,
        )
        bad = True
    if bad:
        return None
    if kind == "probability":
        out = (vals < 0) | (vals > 1)
        if out.any():
            ex, cnt = _examples(rows, out)
            problems.add(
                "probability_out_of_range",
                f"{who} is declared a probability but {cnt} value(s) lie outside [0, 1] "
                f"(range {vals.min():g} to {vals.max():g}).",
                "Declare the kind 'score' (thresholds stay in the score's own units), or rescale the scores to [0, 1].",
                column=cname,
                rows=ex,
                n_rows=cnt,
            )
            return None
    elif kind == "decision":
        out = (vals != 0) & (vals != 1)
        if out.any():
            ex, cnt = _examples(rows, out)
            problems.add(
                "decision_not_binary",
                f"{who} is declared a hard decision but {cnt} value(s) are neither 0 nor 1, e.g. {_value_examples(vals, out)}.",
                "Declare the kind 'score' or 'probability', or recode the decision to 0/1.",
                column=cname,
                rows=ex,
                n_rows=cnt,
            )
            return None
    else:
        if kind == "auto":
            if np.all((vals == 0) | (vals == 1)):
                kind = "decision"
            elif np.all((vals >= 0) & (vals <= 1)):
                kind = "probability"
            else:
                kind = "score"
    return np.ascontiguousarray(vals, dtype=np.float64), kind


def _check_weight(series, cname, rows, problems):
    vals, nonnum = _to_numeric(series)
    who = f"The weight column {cname!r}"
    checks = (
        (nonnum, lambda cnt: f"holds {cnt} value(s) that are not numbers, e.g. {_value_examples(series, nonnum)}"),
        (np.isnan(vals) & ~nonnum, lambda cnt: f"is missing (empty or NaN) in {cnt} row(s)"),
        (np.isinf(vals), lambda cnt: f"is infinite in {cnt} row(s)"),
        (vals < 0, lambda cnt: f"is negative in {cnt} row(s), e.g. {_value_examples(vals, vals < 0)}"),
    )
    bad = False
    for mask, text in checks:
        if mask.any():
            ex, cnt = _examples(rows, mask)
            problems.add(
                "weight_invalid",
                f"{who} {text(cnt)}; weights must be finite numbers >= 0.",
                "Fix those weights (use 0 to exclude a row on purpose), or unmap the weight column.",
                column=cname,
                rows=ex,
                n_rows=cnt,
            )
            bad = True
    if bad:
        return None
    if not (vals > 0).any():
        problems.add(
            "weight_all_zero",
            f"{who} is 0 in every row, so nothing would count.",
            "Choose the right weight column, or unmap it to weigh every row equally.",
            column=cname,
        )
        return None
    return np.ascontiguousarray(vals, dtype=np.float64)


_NS_MIN = np.datetime64("1677-09-22")
_NS_MAX = np.datetime64("2262-04-11")


def _check_time(series, cname, rows, problems):
    parsed, failed, how = _parse_time(series)
    present = series.notna().to_numpy()
    if pd.api.types.is_string_dtype(series.dtype) or pd.api.types.is_object_dtype(series.dtype):
        present = present & (series.astype("str").str.strip().fillna("") != "").to_numpy()
    arr = parsed
    if arr is not None:
        out_of_range = ~np.isnat(arr) & ((arr < _NS_MIN) | (arr > _NS_MAX))
        if out_of_range.any():
            failed = failed | out_of_range
            arr = np.where(out_of_range, np.datetime64("NaT"), arr)
    if failed.any():
        ex, cnt = _examples(rows, failed)
        problems.add(
            "time_unparseable",
            f"The time column {cname!r} has {cnt} value(s) that cannot be read as dates "
            f"({how}), e.g. {_value_examples(series, failed)}.",
            "Write every time in one form: a year (2015), a year-month (202401 or 2024-01) or a date "
            "(2025-01-31, 2025-01-31 14:05:00, 20250131 or 2025年1月31日), between 1678 and 2261; or unmap the time column.",
            column=cname,
            rows=ex,
            n_rows=cnt,
        )
    missing = ~present
    if missing.any():
        ex, cnt = _examples(rows, missing)
        problems.add(
            "time_missing",
            f"The time column {cname!r} is empty in {cnt} row(s); drift windows need a time for every row.",
            "Fill in the missing times, or unmap the time column.",
            column=cname,
            rows=ex,
            n_rows=cnt,
        )
    if failed.any() or missing.any():
        return None, None
    # years and year-months are said as such even when only one of them occurs
    form = "year" if "years (yyyy)" in how else "month" if "year-months" in how else None
    return arr.astype("datetime64[ns]"), form


def _parse_time(series: pd.Series):
    """(datetime64 array or None, failed mask, description of the rule used)."""
    dtype = series.dtype
    present = series.notna().to_numpy()
    if isinstance(dtype, pd.DatetimeTZDtype):
        return series.dt.tz_localize(None).to_numpy(), np.zeros(len(series), bool), "timestamps"
    if dtype.kind == "M":
        return series.to_numpy(), np.zeros(len(series), bool), "timestamps"
    if pd.api.types.is_bool_dtype(dtype):
        return None, present, "true/false is not a date"
    if pd.api.types.is_numeric_dtype(dtype):
        v = series.to_numpy(dtype=np.float64, na_value=np.nan)
        fin = v[np.isfinite(v)]
        whole = bool(fin.size) and bool(np.all(fin == np.round(fin)))
        if whole and np.all((fin >= 1678) & (fin <= 2261)):
            y = np.where(np.isfinite(v), v, 1970).astype(np.int64)
            months = ((y - 1970) * 12).astype("datetime64[M]")  # via months: numpy's years convert slowly
            years = np.where(np.isfinite(v), months, np.datetime64("NaT")).astype("datetime64[ns]")
            return years, present & np.isnat(years), "numbers read as years (yyyy)"
        if whole and np.all((fin >= 167801) & (fin <= 226112)):
            ym = np.where(np.isfinite(v), v, 197001).astype(np.int64)
            month = ym % 100
            ok = np.isfinite(v) & (month >= 1) & (month <= 12)
            months = ((ym // 100 - 1970) * 12 + month - 1).astype("datetime64[M]")
            ym_time = np.where(ok, months, np.datetime64("NaT")).astype("datetime64[ns]")
            return ym_time, present & np.isnat(ym_time), "numbers read as year-months (yyyymm)"
        if whole and np.all((fin >= 19000101) & (fin <= 22611231)):
            ymd = pd.to_datetime(pd.Series(v).astype("Int64").astype("str"), format="%Y%m%d", errors="coerce").to_numpy()
            return ymd, present & np.isnat(ymd), "numbers read as yyyymmdd"
        if fin.size and np.all((fin >= 1e8) & (fin <= 4.1e9)):
            secs = np.where(np.isfinite(v), v, 0).astype(np.int64).astype("datetime64[s]")
            secs = np.where(np.isfinite(v), secs, np.datetime64("NaT"))
            return secs, np.isinf(v), "numbers read as epoch seconds"
        return (
            None,
            present,
            "numbers that are neither epoch seconds (1973–2099) nor yyyymmdd dates, years (yyyy) or year-months (yyyymm)",
        )
    text = (
        series.astype("str").str.strip()
        if pd.api.types.is_object_dtype(dtype) or not pd.api.types.is_string_dtype(dtype)
        else series.str.strip()
    )
    text = text.where(present & (text.fillna("") != "").to_numpy(), None)
    present = text.notna().to_numpy()
    period = _parse_period_text(text, present)
    if period is not None:
        return period
    best = None
    for fmt in (None, "ISO8601"):
        parsed = _to_datetime(text, fmt)
        failed = present & np.isnat(parsed)
        if best is None or failed.sum() < best[1].sum():
            best = (parsed, failed, fmt)
        if not failed.any():
            break
    parsed, failed, fmt = best
    first = text.dropna()
    guessed = None
    if fmt is None and len(first):
        from pandas.tseries.api import guess_datetime_format

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the dayfirst hint; the format is only named in a message
            guessed = guess_datetime_format(str(first.iloc[0]))
    how = (
        f"the format was inferred as {guessed} from the first value"
        if guessed
        else ("ISO 8601 format" if fmt == "ISO8601" else "no date format could be inferred")
    )
    return parsed, failed, how


# Years, year-months and Chinese dates written as text (the forms pandas does not read itself):
# (pattern, ISO replacement, pandas format, what the message calls them)
_PERIOD_TEXT = (
    (re.compile(r"^(\d{4})\s*年?$"), r"\1", "%Y", "years (yyyy)"),
    (re.compile(r"^(\d{4})(0[1-9]|1[0-2])$"), r"\1-\2", "%Y-%m", "year-months (yyyymm)"),
    (re.compile(r"^(\d{4})\s*[-/.年]\s*(\d{1,2})\s*月?$"), r"\1-\2", "%Y-%m", "year-months (yyyy-mm)"),
    (re.compile(r"^(\d{4})(\d{2})(\d{2})$"), r"\1-\2-\3", "%Y-%m-%d", "dates (yyyymmdd)"),
    (
        re.compile(r"^(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]?$"),
        r"\1-\2-\3",
        "%Y-%m-%d",
        "dates (yyyy年m月d日)",
    ),
)


def _parse_period_text(text: pd.Series, present: np.ndarray):
    """A text column of years, year-months or Chinese dates: ``(parsed, failed, how)`` when most
    present values take one of the forms of :data:`_PERIOD_TEXT` (the others fail, so the message
    names the form), else None (the general date reader takes over). Each distinct value is read
    once (a time column of months has a handful of them, however many rows)."""
    values = text[present].astype(str)
    if values.empty:
        return None
    sample = values.head(1000)
    for pattern, iso, fmt, what in _PERIOD_TEXT:
        if sample.str.match(pattern).mean() < 0.5:  # most of (a sample of) the rows take this form
            continue
        codes, uniques = pd.factorize(values)
        uniques = pd.Series(uniques)
        hit = uniques.str.match(pattern)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read = pd.to_datetime(uniques.str.replace(pattern, iso, regex=True).where(hit), format=fmt, errors="coerce")
        out = np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
        out[np.flatnonzero(present)] = read.to_numpy(dtype="datetime64[ns]")[codes]
        return out, present & np.isnat(out), f"text read as {what}"
    return None


def _to_datetime(text: pd.Series, fmt):
    with warnings.catch_warnings():
        # "Could not infer format" warnings are expected for messy columns; failures are reported as problems.
        warnings.simplefilter("ignore")
        try:
            parsed = pd.to_datetime(text, errors="coerce", format=fmt)
        except (ValueError, TypeError, OverflowError):
            try:  # mixed UTC offsets: compare in UTC
                parsed = pd.to_datetime(text, errors="coerce", format=fmt, utc=True).dt.tz_convert(None)
            except (ValueError, TypeError, OverflowError):
                return np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
    if isinstance(parsed.dtype, pd.DatetimeTZDtype):
        parsed = parsed.dt.tz_localize(None)  # keep local wall time: day boundaries as the user sees them
    if parsed.dtype.kind != "M":
        return np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
    return parsed.to_numpy()


def _features(frame, names, columns, keep, n_dropped) -> pd.DataFrame:
    out = {}
    for c in names:
        s = frame[columns[c]]
        if n_dropped:
            s = s[keep]
        dtype = s.dtype
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            plain = isinstance(dtype, np.dtype) and dtype.kind in "iuf"
            out[c] = s.to_numpy() if plain else s.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            codes, levels = _factorize(s)
            lv = list(levels) + ([MISSING_LEVEL] if MISSING_LEVEL not in set(levels) else [])
            miss_code = lv.index(MISSING_LEVEL)
            out[c] = pd.Categorical.from_codes(np.where(codes < 0, miss_code, codes), categories=pd.Index(lv, dtype=object))
    n = int(keep.sum())
    return pd.DataFrame(out, index=pd.RangeIndex(n), columns=list(names)) if names else pd.DataFrame(index=pd.RangeIndex(n))


# --------------------------------------------------------------------------- helpers for the mapping UI


def label_values(frame: pd.DataFrame, column: str) -> list[str]:
    """Distinct non-missing values of a label column, as strings (for the positive-class picker).

    Numbers are sorted numerically, other values alphabetically.

    Examples
    --------
    >>> label_values(pd.DataFrame({"y": ["no", "yes", None, "no"]}), "y")
    ['no', 'yes']
    >>> label_values(pd.DataFrame({"y": [1.0, 0.0, float("nan")]}), "y")
    ['0', '1']
    """
    columns = {str(c): c for c in frame.columns}
    if column not in columns:
        raise InputError(
            _problem(
                "missing_column",
                f"The label column {column!r} is not in the file. Available columns: {_list(columns)}.",
                "Choose the label column among the file's columns.",
                column=column,
            )
        )
    s = frame[columns[column]]
    if isinstance(s, pd.DataFrame):
        raise InputError(
            _problem(
                "duplicate_columns",
                f"The table has more than one column named {column!r}.",
                "Rename or remove the duplicated columns.",
                column=column,
            )
        )
    _, levels = _factorize(s)
    values = [str(v) for v in levels]
    nums = [_float_or_none(v) for v in values]
    if all(x is not None for x in nums):
        return [v for _, v in sorted(zip(nums, values))]
    return sorted(values)


_LABEL_NAMES = (
    "label",
    "target",
    "y",
    "y_true",
    "outcome",
    "class",
    "ground_truth",
    "truth",
    "actual",
    "response",
    "is_fraud",
    "fraud",
    "default",
    "is_default",
    "churn",
    "churned",
    "bad",
    "is_bad",
    "flag",
    "event",
    "标签",
    "目标",
    "目标变量",
    "结果",
    "表现",
)
# Name parts of a label (the event), strongest first after the exact names; "is_"/"是否" (a yes/no
# column of any kind, such as 是否新客) only when no column names an event.
_LABEL_HINTS = (
    "label",
    "target",
    "fraud",
    "default",
    "churn",
    "outcome",
    "is_bad",
    "_flag",
    "overdue",
    "delinq",
    "标签",
    "违约",
    "逾期",
    "欺诈",
    "坏",
    "拒付",
    "流失",
    "目标",
)
_LABEL_PREFIXES = ("is_", "是否")
_SCORE_HINTS = (
    "score",
    "prob",
    "proba",
    "pred",
    "risk",
    "pd_",
    "_pd",
    "model",
    "p_hat",
    "yhat",
    "y_hat",
    "y_pred",
    "评分",
    "分数",
    "得分",
    "打分",
    "概率",
    "预测",
    "模型",
)
_TIME_HINTS = (
    "date",
    "time",
    "timestamp",
    "_dt",
    "dt_",
    "day",
    "month",
    "year",
    "period",
    "_at",
    "created",
    "日期",
    "时间",
    "年份",
    "年度",
    "月份",
    "年月",
)
# a number is only a time (a year 2015, a year-month 202401, a date 20240105) under one of these
# names: a count of days or an income can hold the same numbers
_NUMERIC_TIME_HINTS = (
    "date",
    "time",
    "year",
    "month",
    "period",
    "vintage",
    "cohort",
    "yyyymm",
    "日期",
    "时间",
    "年份",
    "年度",
    "月份",
    "年月",
)
_GROUP_HINTS = (
    "customer",
    "cust",
    "user",
    "client",
    "account",
    "acct",
    "member",
    "household",
    "device",
    "merchant",
    "group",
    "客户",
    "用户",
    "账户",
    "商户",
    "设备",
)
# a numeric column with a few levels under one of these names is a segment (a coded channel or
# region), not a feature
_SEGMENT_HINTS = (
    "channel",
    "region",
    "segment",
    "band",
    "tier",
    "grade",
    "渠道",
    "地区",
    "区域",
    "区间",
    "类型",
    "类别",
    "等级",
    "分群",
    "分组",
    "城市",
    "省",
)
_WEIGHT_NAMES = ("weight", "weights", "sample_weight", "w", "wt", "wgt", "权重", "样本权重")
_ID_HINT = re.compile(r"(^id$|_id$|^id_|uuid|_no$|编号|[\u4e00-\u9fff](id|号|号码)$)", re.IGNORECASE)


def guess_mapping(frame: pd.DataFrame) -> dict:
    """Guess column roles from names and dtypes (a suggestion for the mapping form).

    English and Chinese names are understood (是否违约 is a label, 现行模型分数 a score, 申请时间
    a time, 客户编号 a group, 渠道 a segment). A column is guessed for one role only, and a
    guessed time column reads as times, so the guess never fails validation for being a guess:
    any problem validating it lists is about the data (a label with three values, a text score).
    Columns whose name appears twice are left out (they cannot be mapped).

    Returns
    -------
    dict
        ``{"label": col | None, "scores": [col, ...] (at most 2), "segments": [...],
        "time": col | None, "group": col | None, "features": [...], "weight": col | None}``.

    Examples
    --------
    >>> frame = pd.DataFrame({"is_fraud": [0, 1, 0, 1], "score_old": [.1, .8, .3, .6],
    ...                       "channel": ["app", "web", "app", "web"], "income": [1.5, 2.5, 3.5, 4.5]})
    >>> g = guess_mapping(frame)
    >>> g["label"], g["scores"], g["segments"], g["features"]
    ('is_fraud', ['score_old'], ['channel'], ['income'])
    >>> g = guess_mapping(pd.DataFrame({"是否违约": ["是", "否"], "现行模型分数": [0.7, 0.2], "收入区间": ["高", "低"],
    ...                                 "申请时间": [202401, 202402]}))
    >>> g["label"], g["scores"], g["segments"], g["time"]
    ('是否违约', ['现行模型分数'], ['收入区间'], '申请时间')
    """
    sample = frame.head(100_000)
    names = [str(c) for c in frame.columns]
    dups = set(_duplicates(names))
    by_name = {str(c): c for c in frame.columns}
    cols = [c for c in dict.fromkeys(names) if c not in dups]
    lower = {c: c.lower().strip() for c in cols}
    nunique = {c: int(sample[by_name[c]].nunique(dropna=True)) for c in cols}
    dtypes = {c: sample[by_name[c]].dtype for c in cols}

    def is_num(c):
        d = dtypes[c]
        return pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d)

    def is_time(c):
        d = dtypes[c]
        return d.kind == "M" or isinstance(d, pd.DatetimeTZDtype)

    def has(c, hints):
        return any(h in lower[c] for h in hints)

    used: set = set()
    two = [c for c in cols if nunique[c] == 2]
    label = (
        next((c for c in two if lower[c] in _LABEL_NAMES), None)
        or next((c for h in _LABEL_HINTS for c in two if h in lower[c]), None)
        or next((c for c in two if lower[c].startswith(_LABEL_PREFIXES)), None)
        # a column plainly named as the label is still the label when its values are wrong:
        # guessing it lets validation say what is wrong with it instead of hiding it
        or next((c for c in cols if lower[c] in _LABEL_NAMES), None)
    )
    if label:
        used.add(label)
    named_score = [c for c in cols if c not in used and has(c, _SCORE_HINTS) and not _ID_HINT.search(lower[c])]
    # numeric score columns first; a named score column holding text is still offered (validation explains it)
    scores = ([c for c in named_score if is_num(c) and nunique[c] > 1] + [c for c in named_score if not is_num(c)])[:2]
    used.update(scores)
    time = next((c for c in cols if c not in used and is_time(c)), None)
    if time is None:
        for c in cols:
            if c in used or not has(c, _TIME_HINTS) or (is_num(c) and not has(c, _NUMERIC_TIME_HINTS)):
                continue
            s = sample[by_name[c]].dropna()
            s = s if is_num(c) else s.head(200)  # a number's reading depends on the range of the whole column
            if len(s):
                parsed, failed, _ = _parse_time(s)
                if parsed is not None and not failed.any():
                    time = c
                    break
    if time:
        used.add(time)
    weight = next((c for c in cols if c not in used and lower[c] in _WEIGHT_NAMES and is_num(c)), None)
    if weight:
        used.add(weight)
    group = next((c for c in cols if c not in used and _ID_HINT.search(lower[c]) and has(c, _GROUP_HINTS)), None)
    if group is None:
        group = next((c for c in cols if c not in used and lower[c] in ("group", "group_id", "cluster", "cluster_id")), None)
    if group:
        used.add(group)
    segments, features = [], []
    for c in cols:
        if c in used or _ID_HINT.search(lower[c]):
            continue
        k = nunique[c]
        if k < 2:
            continue
        if not is_num(c) and not is_time(c):
            if k <= 20:
                segments.append(c)
        elif k == 2 or (is_num(c) and k <= 20 and has(c, _SEGMENT_HINTS)):
            segments.append(c)  # a 0/1 flag such as new_user, a coded channel
        elif is_num(c):
            features.append(c)
    return {
        "label": label,
        "scores": scores,
        "segments": segments,
        "time": time,
        "group": group,
        "features": features,
        "weight": weight,
    }
