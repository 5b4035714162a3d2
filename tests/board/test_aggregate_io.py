"""board.store.aggregate_io: an Aggregate survives to_bytes/from_bytes exactly (dtypes, float bits,
None vs NaN, tuples), the bytes are deterministic, and foreign bytes are refused."""

import dataclasses
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from board import engines
from board.services import demo
from board.store import aggregate_io
from evalcore import ValueTable
from evalcore.aggregate import Aggregate, aggregate_predictions, evaluate_aggregate
from evalcore.board import BoardConfig, evaluate
from evalcore.data import ColumnMapping, read_table, validate
from tests._equality import assert_same_board


def _assert_identical(a: Aggregate, b: Aggregate) -> None:
    for f in dataclasses.fields(Aggregate):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y, check_exact=True)
            assert list(x.dtypes) == list(y.dtypes), f.name
            for c in x.columns:  # float bits, not only values (-0.0, NaN payloads compare equal otherwise)
                if x[c].dtype == np.float64:
                    assert x[c].to_numpy().view(np.int64).tolist() == y[c].to_numpy().view(np.int64).tolist(), (f.name, c)
        else:
            # repr tells a tuple from a list, NaN from None, -0.0 from 0.0 and np.float64 from float
            assert repr(x) == repr(y), f.name


@pytest.fixture(scope="module")
def demo_aggregate(tmp_path_factory):
    """The demo (two models, segments, groups, time) aggregated by DuckDB from Parquet."""
    path = tmp_path_factory.mktemp("lake") / "demo.parquet"
    demo.demo_frame(n=2000).to_parquet(path)
    m = demo.DEMO_MAPPING
    q = engines.Query(
        label=m["label"],
        scores=m["scores"],
        score_kinds=m["score_kinds"],
        positive=m["positive"],
        segments=tuple(m["segments"]),
        group=m["group"],
        time=m["time"],
    )
    return engines.aggregate_source(str(path), q, scheme="cluster")


def test_engine_aggregate_round_trips_exactly(demo_aggregate):
    raw = aggregate_io.to_bytes(demo_aggregate)
    back = aggregate_io.from_bytes(raw)
    _assert_identical(demo_aggregate, back)
    assert back.paired is not None and back.group_cells is not None  # the fixture covers the optional frames
    assert isinstance(back.segments, tuple) and back.segments == ("amount_band", "customer_type", "night_application")


def test_bytes_are_deterministic(demo_aggregate):
    raw = aggregate_io.to_bytes(demo_aggregate)
    assert aggregate_io.to_bytes(aggregate_io.from_bytes(raw)) == raw == aggregate_io.to_bytes(demo_aggregate)


def test_tricky_values_survive():
    """None vs NaN, ±inf, -0.0, tuples inside dicts, numpy scalars, non-string keys, and a
    DataFrame with a non-range index, an all-NaN column, int8, bool, category and UTC datetimes."""
    cells = aggregate_predictions(
        validate(pd.DataFrame({"y": [0, 1, 1, 0], "s": [0.1, 0.8, 0.6, 0.3]}), ColumnMapping(label="y", scores={"m": "s"})),
        resolution=None,
    ).cells
    odd = pd.DataFrame(
        {
            "date": pd.to_datetime(["2026-11-01", "2026-11-02"], utc=True),
            "x": [np.nan, -0.0],
            "k": np.array([1, -2], dtype=np.int8),
            "b": [True, False],
            "c": pd.Categorical(["a", "b"]),
            "s": ["u", None],
        },
        index=[7, 3],
    )
    agg = Aggregate(
        cells=cells,
        score_kinds={"m": "probability"},
        resolution={"m": None},
        segments=(),
        paired_thresholds={"m": float("nan")},
        source={
            "engine": "duckdb",
            "bits": (1, 2.5, None),
            "inf": float("-inf"),
            "np": np.float64(0.1),
            "__tuple__": "a key that looks like a tag",
        },
        day_cells=odd,
        feature_refs={"f": {"edges": (0.0, 1e-300, float("inf")), "n": np.int64(3)}},
        drift_fit={1: "int key"},
    )
    back = aggregate_io.from_bytes(aggregate_io.to_bytes(agg))
    _assert_identical(agg, back)
    assert back.paired_thresholds["m"] != back.paired_thresholds["m"]  # NaN, not None
    assert back.strata_column is None and back.group_cells is None  # None, not NaN or an empty frame
    assert back.source["bits"] == (1, 2.5, None) and type(back.source["np"]) is np.float64
    assert back.feature_refs["f"]["edges"] == (0.0, 1e-300, float("inf")) and type(back.feature_refs["f"]["n"]) is np.int64
    assert back.drift_fit == {1: "int key"}
    assert list(back.day_cells.index) == [7, 3] and str(back.day_cells["date"].dtype) == str(odd["date"].dtype)


def test_aggregate_equals_the_row_path_after_a_round_trip():
    """What is stored evaluates like the rows: the pandas aggregate round-trips exactly, and the
    board from the stored bytes equals the board from the rows, number for number."""
    f = demo.demo_frame(n=1500)
    preds = validate(read_table(f.to_csv(index=False).encode(), "d.csv"), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    agg = aggregate_predictions(preds, resolution=None, groups=True)
    back = aggregate_io.from_bytes(aggregate_io.to_bytes(agg))
    _assert_identical(agg, back)
    table, cfg = ValueTable.from_dict(demo.DEMO_VALUE_TABLE), BoardConfig(n_resamples=50, scheme="rows")
    assert_same_board(evaluate(preds, table, cfg).to_dict(), evaluate_aggregate(back, table, cfg).to_dict())


def test_foreign_bytes_are_refused():
    with pytest.raises(ValueError, match="not an evalboard aggregate"):
        aggregate_io.from_bytes(b"label,score\n1,0.9\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("manifest.json", json.dumps({"format": "something/9", "fields": {}}))
    with pytest.raises(ValueError, match="unknown aggregate format 'something/9'"):
        aggregate_io.from_bytes(buf.getvalue())
    with pytest.raises(TypeError, match="needs an Aggregate"):
        aggregate_io.to_bytes({"cells": None})
