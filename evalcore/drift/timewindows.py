"""Time windows: rows cut into calendar days, the reference window and the sliding current
windows (:class:`Window`, :func:`windows`), and the time-column reader."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import ProblemList
from ._common import _DAY
from .config import DriftConfig


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Window:
    """One time window ``[start, end)`` (whole days).

    Attributes
    ----------
    kind : {"reference", "current"}
    start, end : pandas.Timestamp
        Inclusive start and exclusive end (midnights).
    day_start, day_end : int
        The same as day numbers relative to the first day with data.
    n : int
        Rows in the window.
    """

    kind: str
    start: pd.Timestamp
    end: pd.Timestamp
    day_start: int
    day_end: int
    n: int

    @property
    def label(self) -> str:
        last = self.end - pd.Timedelta(days=1)
        if last == self.start:
            return f"{self.start:%Y-%m-%d}"
        return f"{self.start:%Y-%m-%d} – {last:%Y-%m-%d}"

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "label": self.label,
            "n": int(self.n),
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class _Days:
    day: np.ndarray | None  # int64 day number per row (None when built from per-day counts)
    day0: pd.Timestamp  # midnight of day 0
    n_days: int  # day numbers are 0..n_days-1
    ref: Window
    cur: tuple  # of Window


def _as_time(time, n_expected=None, problems=None) -> pd.DatetimeIndex | None:
    own = problems is None
    p = ProblemList() if own else problems
    try:
        arr = np.asarray(time) if not isinstance(time, (pd.Series, pd.Index)) else time
        if getattr(arr, "ndim", 1) != 1:
            p.add(
                "time_shape",
                f"time must be one-dimensional; got shape {np.shape(time)}.",
                "Pass one timestamp per row.",
                column="time",
            )
            t = None
        else:
            t = pd.DatetimeIndex(pd.to_datetime(arr, errors="coerce"))
    except (TypeError, ValueError) as exc:
        p.add("time_invalid", f"time could not be read as dates ({exc}).", "Map a date or timestamp column.", column="time")
        t = None
    if t is not None:
        if t.tz is not None:
            t = t.tz_convert("UTC").tz_localize(None)
        bad = np.asarray(t.isna())
        if bad.any():
            rows = (np.flatnonzero(bad)[:5] + 2).tolist()
            p.add(
                "time_unparseable",
                f"time has {int(bad.sum())} missing or unparseable values.",
                "Fix or remove those rows.",
                column="time",
                rows=rows,
                n_rows=int(bad.sum()),
            )
        if n_expected is not None and len(t) != n_expected:
            p.add(
                "length_mismatch",
                f"time has {len(t)} rows but the other inputs have {n_expected}.",
                "Pass the same rows.",
                column="time",
            )
        if len(t) == 0:
            p.add("time_empty", "time is empty.", "Pass at least one row.", column="time")
    if own:
        p.raise_if_any()
    return t


def _days(t: pd.DatetimeIndex, config: DriftConfig) -> _Days:
    day0 = t.min().normalize()
    day = ((t.values - day0.to_datetime64()) // _DAY).astype(np.int64)
    return _days_of_counts(day0, np.bincount(day, minlength=int(day.max()) + 1), config, day=day)


def _days_of_counts(day0: pd.Timestamp, counts: np.ndarray, config: DriftConfig, *, day=None) -> _Days:
    """Windows from rows per day (day 0 = ``day0``, a midnight); ``day`` per row when rows exist."""
    n_days = len(counts)
    cum = np.concatenate([[0], np.cumsum(counts)])

    def n_in(ds, de):
        a, b = min(max(ds, 0), n_days), min(max(de, 0), n_days)
        return int(cum[b] - cum[a])

    rs = (
        0
        if config.reference_start is None
        else int((pd.Timestamp(config.reference_start).normalize() - day0) // pd.Timedelta(days=1))
    )
    re = rs + config.reference_days
    ref = Window(
        kind="reference",
        start=day0 + pd.Timedelta(days=rs),
        end=day0 + pd.Timedelta(days=re),
        day_start=rs,
        day_end=re,
        n=n_in(rs, re),
    )
    cur = []
    e = n_days
    while e - config.window_days >= re:
        s = e - config.window_days
        cur.append(
            Window(
                kind="current",
                start=day0 + pd.Timedelta(days=s),
                end=day0 + pd.Timedelta(days=e),
                day_start=s,
                day_end=e,
                n=n_in(s, e),
            )
        )
        e -= config.step_days
    return _Days(day=day, day0=day0, n_days=n_days, ref=ref, cur=tuple(cur[::-1]))


def windows(time, config: DriftConfig | None = None) -> list[Window]:
    """The reference window followed by the current windows, oldest first.

    Parameters
    ----------
    time : array-like of datetime-like, shape (n,)
        One timestamp per row (tz-aware times are taken in UTC).
    config : DriftConfig, default=None
        ``reference_start``, ``reference_days``, ``window_days`` and ``step_days`` are used.

    Returns
    -------
    list of Window
        ``[reference, current_1, ..., current_W]``; current windows are whole, do not overlap
        the reference, and the last ends at the end of the last day with data.

    Examples
    --------
    >>> t = pd.date_range("2026-10-05", periods=28, freq="D")
    >>> ws = windows(t)
    >>> ws[0].label, len(ws) - 1, ws[1].label, ws[-1].label
    ('2026-10-05 – 2026-10-11', 15, '2026-10-12 – 2026-10-18', '2026-10-26 – 2026-11-01')
    """
    config = config or DriftConfig()
    d = _days(_as_time(time), config)
    return [d.ref, *d.cur]
