"""Time windows: rows cut into calendar days, the reference window and the sliding current
windows (:class:`Window`, :func:`windows`), and the time-column reader.

Data dated by whole years or months (every row on 1 January, or on the 1st of a month, at
midnight: an uploaded year such as 2015 or a year-month such as 202401) gets windows of whole
periods: the day counts of :class:`~evalcore.drift.DriftConfig` are read as that many periods
(rounded, at least one: 7 days → 1 month, 90 days → 3 months, 365 days → 1 year), so a window
never splits or skips a period (:func:`granularity`)."""

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
    granularity: str = "day"

    @property
    def label(self) -> str:
        last = self.end - pd.Timedelta(days=1)
        form = {"year": "%Y", "month": "%Y-%m"}.get(self.granularity, "%Y-%m-%d")
        first_text, last_text = self.start.strftime(form), last.strftime(form)
        return first_text if first_text == last_text else f"{first_text} – {last_text}"

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
    granularity: str = "day"  # "year" or "month" when the windows are whole periods


#: What :func:`granularity` can say, finest last.
GRANULARITIES = ("year", "month", "day", "timestamp")
_PERIOD_DAYS = {"year": 365.25, "month": 30.4375}


def granularity(time) -> str:
    """How finely a time column is dated: ``"year"`` when its values are at least two distinct
    1 Januaries at midnight, ``"month"`` when at least two distinct 1sts of a month at midnight,
    ``"day"`` when every value is a midnight, else ``"timestamp"`` (missing values are ignored).

    Examples
    --------
    >>> granularity(pd.to_datetime(["2015-01-01", "2016-01-01"])), granularity(pd.to_datetime(["2024-01-01", "2024-02-01"]))
    ('year', 'month')
    >>> granularity(pd.to_datetime(["2024-01-01", "2024-01-02"])), granularity(pd.to_datetime(["2024-01-01 08:30"]))
    ('day', 'timestamp')
    """
    t = pd.DatetimeIndex(pd.to_datetime(np.asarray(time).ravel(), errors="coerce")).dropna()
    if len(t) == 0:
        return "day"
    if not (t == t.normalize()).all():
        return "timestamp"
    if t.nunique() >= 2 and (t.day == 1).all():
        return "year" if (t.month == 1).all() else "month"
    return "day"


def periods(days: int, unit: str) -> int:
    """How many whole ``unit`` periods ("year" or "month") a day count of
    :class:`~evalcore.drift.DriftConfig` stands for on data dated by whole periods: rounded, at
    least one (what the page says: "windows of 1 month sliding by 1 month"); ``days`` itself
    for any other unit.

    Examples
    --------
    >>> periods(7, "month"), periods(90, "month"), periods(365, "year"), periods(7, "day")
    (1, 3, 1, 7)
    """
    if unit not in _PERIOD_DAYS:
        return int(days)
    return max(1, int(round(days / _PERIOD_DAYS[unit])))


def _period_starts(day0: pd.Timestamp, unit: str, j0: int, j1: int) -> np.ndarray:
    """Day numbers (from ``day0``, itself a period start) of the period starts j0..j1."""
    months = 12 if unit == "year" else 1
    starts = [day0 + pd.DateOffset(months=months * j) for j in range(j0, j1 + 1)]
    return np.array([(x - day0) // pd.Timedelta(days=1) for x in starts], np.int64)


def _periods_of_counts(day0: pd.Timestamp, counts: np.ndarray, config: DriftConfig, unit: str, day) -> _Days:
    """The windows of :func:`_days_of_counts` in whole years or months."""
    n_days = len(counts)
    cum = np.concatenate([[0], np.cumsum(counts)])

    def n_in(ds, de):
        a, b = min(max(ds, 0), n_days), min(max(de, 0), n_days)
        return int(cum[b] - cum[a])

    def k(days):
        return periods(days, unit)

    months = 12 if unit == "year" else 1
    last = day0 + pd.Timedelta(days=n_days - 1)
    n_periods = ((last.year - day0.year) * 12 + last.month - day0.month) // months + 1
    p0 = 0
    if config.reference_start is not None:
        rs = pd.Timestamp(config.reference_start)
        p0 = ((rs.year - day0.year) * 12 + rs.month - day0.month) // months
    k_ref, k_win, k_step = k(config.reference_days), k(config.window_days), k(config.step_days)
    lo = min(p0, 0)
    b = _period_starts(day0, unit, lo, max(n_periods, p0 + k_ref) + 1)

    def at(j):
        return int(b[j - lo])

    def window(kind, j0, j1):
        return Window(
            kind=kind,
            start=day0 + pd.Timedelta(days=at(j0)),
            end=day0 + pd.Timedelta(days=at(j1)),
            day_start=at(j0),
            day_end=at(j1),
            n=n_in(at(j0), at(j1)),
            granularity=unit,
        )

    ref = window("reference", p0, p0 + k_ref)
    cur = []
    e = n_periods
    while e - k_win >= p0 + k_ref:
        cur.append(window("current", e - k_win, e))
        e -= k_step
    return _Days(day=day, day0=day0, n_days=n_days, ref=ref, cur=tuple(cur[::-1]), granularity=unit)


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
    """Windows from rows per day (day 0 = ``day0``, a midnight); ``day`` per row when rows exist.
    Whole years or months when every day with rows starts one (:func:`granularity`)."""
    unit = granularity(day0 + pd.to_timedelta(np.flatnonzero(np.asarray(counts) > 0), unit="D"))
    if unit in _PERIOD_DAYS:
        return _periods_of_counts(day0, counts, config, unit, day)
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
