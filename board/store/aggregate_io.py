"""Serialise an :class:`evalcore.aggregate.Aggregate` to bytes and back, exactly.

The store keeps a registered (path) dataset as these bytes, content-addressed like an
upload: a zip with ``manifest.json`` (format version, one entry per dataclass field) plus
one Parquet file per DataFrame field. Generic over ``dataclasses.fields(Aggregate)``, so a
field the aggregate gains later is written without a change here.

Exact round trip: DataFrames keep their dtypes, index and float bits (Parquet stores IEEE
doubles; the dtypes are recorded and re-applied); other fields are JSON with tags for what
JSON cannot say itself — tuples, non-finite floats, numpy scalars and dicts with non-string
keys — so ``None`` stays ``None``, NaN stays NaN and a tuple stays a tuple. The bytes are
deterministic (fixed zip timestamps; dicts keep their order, which matters: the first model is A), so registering the same data twice
stores one file.

Examples
--------
>>> import pandas as pd
>>> from evalcore.aggregate import aggregate_predictions
>>> from evalcore.data import ColumnMapping, validate
>>> f = pd.DataFrame({"y": [0, 1, 1, 0], "s": [0.1, 0.8, 0.6, 0.3]})
>>> agg = aggregate_predictions(validate(f, ColumnMapping(label="y", scores={"m": "s"})), resolution=None)
>>> back = from_bytes(to_bytes(agg))
>>> back.cells.equals(agg.cells), back.resolution == agg.resolution, back.segments == agg.segments
(True, True, True)
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import zipfile

import numpy as np
import pandas as pd

from evalcore.aggregate import Aggregate

__all__ = ["FORMAT", "to_bytes", "from_bytes"]

FORMAT = "evalboard-aggregate/1"
_DATE = (1980, 1, 1, 0, 0, 0)  # fixed zip timestamps: the same aggregate gives the same bytes


def _enc(x):
    """A JSON-safe, tagged form of ``x`` that :func:`_dec` turns back into an equal object."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, np.generic):
        return {"__np__": x.dtype.str, "v": _enc(x.item())}
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else {"__float__": repr(x)}
    if isinstance(x, tuple):
        return {"__tuple__": [_enc(v) for v in x]}
    if isinstance(x, list):
        return [_enc(v) for v in x]
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x) and not any(k.startswith("__") for k in x):
            return {k: _enc(v) for k, v in x.items()}
        return {"__dict__": [[_enc(k), _enc(v)] for k, v in x.items()]}
    raise TypeError(f"aggregate_io cannot store a {type(x).__name__} value; add a tag for it.")


def _dec(x):
    if isinstance(x, list):
        return [_dec(v) for v in x]
    if not isinstance(x, dict):
        return x
    if "__float__" in x:
        return float(x["__float__"])
    if "__tuple__" in x:
        return tuple(_dec(v) for v in x["__tuple__"])
    if "__np__" in x:
        return np.dtype(x["__np__"]).type(_dec(x["v"]))
    if "__dict__" in x:
        return {_dec(k): _dec(v) for k, v in x["__dict__"]}
    return {k: _dec(v) for k, v in x.items()}


def _frame_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, engine="pyarrow", index=True)
    return buf.getvalue()


def to_bytes(agg: Aggregate) -> bytes:
    """The aggregate as deterministic zip bytes (see the module docstring)."""
    if not isinstance(agg, Aggregate):
        raise TypeError(f"to_bytes needs an Aggregate; got {type(agg).__name__}.")
    manifest: dict = {"format": FORMAT, "fields": {}}
    files: dict[str, bytes] = {}
    for f in dataclasses.fields(Aggregate):
        value = getattr(agg, f.name)
        if isinstance(value, pd.DataFrame):
            name = f"{f.name}.parquet"
            files[name] = _frame_bytes(value)
            manifest["fields"][f.name] = {
                "frame": name,
                "dtypes": [str(t) for t in value.dtypes],
                "columns": [str(c) for c in value.columns],
            }
        else:
            manifest["fields"][f.name] = {"json": _enc(value)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("manifest.json", _DATE), json.dumps(manifest, allow_nan=False))
        for name in sorted(files):
            info = zipfile.ZipInfo(name, _DATE)
            info.compress_type = zipfile.ZIP_STORED  # Parquet is compressed already
            z.writestr(info, files[name])
    return buf.getvalue()


def from_bytes(raw: bytes) -> Aggregate:
    """The aggregate :func:`to_bytes` wrote.

    Raises
    ------
    ValueError
        The bytes are not an evalboard aggregate (or of an unknown format version).
    """
    try:
        z = zipfile.ZipFile(io.BytesIO(raw))
        manifest = json.loads(z.read("manifest.json"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as err:
        raise ValueError(f"not an evalboard aggregate: {err}") from None
    if manifest.get("format") != FORMAT:
        raise ValueError(f"unknown aggregate format {manifest.get('format')!r}; this evalboard reads {FORMAT}.")
    known = {f.name for f in dataclasses.fields(Aggregate)}
    kwargs = {}
    with z:
        for name, entry in manifest["fields"].items():
            if name not in known:  # written by a newer evalboard: a field this code cannot use
                continue
            if "frame" in entry:
                frame = pd.read_parquet(io.BytesIO(z.read(entry["frame"])), engine="pyarrow")
                for col, dtype in zip(entry["columns"], entry["dtypes"]):
                    if str(frame[col].dtype) != dtype:
                        frame[col] = frame[col].astype(dtype)
                kwargs[name] = frame
            else:
                kwargs[name] = _dec(entry["json"])
    return Aggregate(**kwargs)
