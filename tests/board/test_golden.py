"""Behaviour pinned across refactors (issue 20): the board JSON of the demo and of validation
sets built from scikit-learn's datasets equals the golden files written before the rows and
aggregate paths became one (``tests/golden/make_golden.py``).

Numbers are compared exactly, except float sums whose summation order may differ (calibration,
the analytic standard error) at 1e-12 relative — the rule the engine-equality tests use.
"""

import json
import sys
from pathlib import Path

import pytest

from tests._equality import assert_same_board

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(GOLDEN))
import make_golden  # noqa: E402


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("golden")


@pytest.mark.parametrize("case", sorted(make_golden.CASES))
def test_board_json_equals_golden(case, scratch):
    golden = json.loads((GOLDEN / f"{case}.json").read_text(encoding="utf-8"))
    now = make_golden.run_case(case, scratch / f"{case}.json", scratch)
    assert_same_board(golden, now)
    assert set(now) == set(golden), "keys added or removed"


def test_golden_cases_cover_the_schemes():
    """The pinned runs span every bootstrap scheme, weights, BCa, one and two models, and drift."""
    args = [" ".join(a) for _, a in make_golden.CASES.values()]
    for needle in ("--group", "--scheme stratified", "--weight", "--method bca", "--time"):
        assert any(needle in a for a in args), needle
