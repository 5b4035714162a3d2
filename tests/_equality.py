"""Shared by the aggregate and engine tests: two board JSONs must agree number for number."""

import pytest

# numbers computed from float sums whose order differs between rows and cells (and engines)
FLOAT_SUMS = ("calibration", "ev_se_analytic")


def assert_same_board(rows: dict, agg: dict, *, skip=(), path=""):
    """Every number equal (not approximately), except float sums of calibration (1e-12 relative)."""
    if isinstance(rows, dict):
        for k, v in rows.items():
            if k in ("drift_undefined", "aggregate") or k in skip:
                continue
            assert k in agg, f"{path}.{k} missing"
            assert_same_board(v, agg[k], skip=skip, path=f"{path}.{k}")
    elif isinstance(rows, list):
        assert len(rows) == len(agg), path
        for i, (u, v) in enumerate(zip(rows, agg)):
            assert_same_board(u, v, skip=skip, path=f"{path}[{i}]")
    elif any(f in path for f in FLOAT_SUMS) and isinstance(rows, float):
        assert agg == pytest.approx(rows, rel=1e-12, abs=1e-15), path
    else:
        assert rows == agg, f"{path}: {rows!r} != {agg!r}"
