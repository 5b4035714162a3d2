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


def _rows_of_case(case: str, scratch):
    """(y, scores, thresholds, weights, strata, groups) of a golden case, read from its CSV."""
    import pandas as pd

    data, args = make_golden.CASES[case]
    f = pd.read_csv(make_golden.data_path(data, scratch))
    opts: dict = {}
    for flag, value in zip(args, args[1:]):
        opts.setdefault(flag, []).append(value)
    scores = dict(pair.split("=", 1) for pair in opts["--score"])
    thresholds = {name: 0.5 for name in scores}  # probabilities: the CLI's default
    thresholds.update({n: float(t) for n, t in (p.split("=", 1) for p in opts.get("--threshold", []))})
    stratified = opts.get("--scheme") == ["stratified"]
    return (
        f[opts["--label"][0]].to_numpy(),
        {name: f[col].to_numpy() for name, col in scores.items()},
        thresholds,
        f[opts["--weight"][0]].to_numpy() if "--weight" in opts else None,
        f[opts["--strata"][0]].to_numpy() if stratified else None,
        f[opts["--group"][0]].to_numpy() if "--group" in opts and not stratified else None,
    )


@pytest.mark.parametrize("case", sorted(make_golden.CASES))
def test_golden_small_evidence_is_counted_from_the_rows(case, scratch):
    """The pinned small-evidence numbers, derived again from the case's rows with pandas (the
    oracle of tests/evalcore/_oracle.py), not from the aggregate's cells."""
    from evalcore import ValueTable
    from tests.evalcore._oracle import small_evidence_from_rows

    golden = json.loads((GOLDEN / f"{case}.json").read_text(encoding="utf-8"))
    se = golden["small_evidence"]
    y, scores, thresholds, w, strata, groups = _rows_of_case(case, scratch)
    table = ValueTable.from_dict(golden["value_table"])
    pos, basis, stratum, nu, interval, model, raw, cell, cell_model = small_evidence_from_rows(
        y, scores, thresholds, table, sample_weight=w, strata=strata, groups=groups
    )
    assert (se["positives_basis"], se["stratum"], se["interval"], se["model"]) == (basis, stratum, interval, model)
    assert (se["confusion_cell"], se["confusion_model"]) == (cell, cell_model)
    assert se["positives"] == pytest.approx(pos, rel=1e-12)
    assert se["min_expected_cell"] == pytest.approx(nu, rel=1e-12)
    assert se["min_confusion_cell"] == pytest.approx(raw, rel=1e-12)
    assert se["approximate"] == (pos < 50 or nu < 10)
