"""Labels that arrive late in the mapping (issue 19 item 2): ColumnMapping's label-known rule,
validate() returning the labelled rows, late_labels() every row with its flag."""

import numpy as np
import pytest

from evalcore import InputError
from evalcore.data import ColumnMapping, late_labels, read_table, validate

CSV = (
    "y,p,t,k\n"
    "1,0.9,2026-10-01,yes\n"  # row 2
    "0,0.2,2026-10-02,1\n"  # row 3
    "0,0.3,2026-10-03,true\n"  # row 4
    "1,0.7,2026-10-04,1\n"  # row 5
    ",0.4,2026-10-09,\n"  # row 6: not arrived, empty label accepted
    "1,0.8,2026-10-10,no\n"  # row 7: not arrived, its label is ignored
)


def _frame(text=CSV):
    return read_table(text.encode(), "x.csv")


def test_old_mappings_load_and_dump_unchanged():
    old = {"label": "y", "scores": {"A": "p"}, "time": "t"}
    m = ColumnMapping.from_dict(old)
    assert not m.late and "label_known" not in m.to_dict() and "labels_complete_until" not in m.to_dict()
    new = ColumnMapping(label="y", scores={"A": "p"}, time="t", label_known="k")
    assert ColumnMapping.from_dict(new.to_dict()).label_known == "k"
    assert ColumnMapping.from_dict({**old, "labels_complete_until": "2026-10-05"}).late


@pytest.mark.parametrize(
    "rule",
    [{"label_known": "k"}, {"labels_complete_until": "2026-10-05"}],
    ids=["column", "date"],
)
def test_validate_keeps_the_labelled_rows_and_late_labels_all(rule):
    m = ColumnMapping(label="y", scores={"A": "p"}, time="t", **rule)
    preds = validate(_frame(), m)
    # rows 2..5 are known (by the column: yes/1/true/1; by the date: days 1-4 ≤ 5 October)
    assert preds.row_numbers.tolist() == [2, 3, 4, 5]
    assert preds.y_true.tolist() == [1, 0, 0, 1]
    assert preds.pending_rows == 2
    # the first day with a pending row is 9 October, so labels are complete until the 8th (column
    # rule); the date rule says its own date
    until = "2026-10-08" if "label_known" in rule else "2026-10-05"
    assert preds.labels_complete_until == until
    assert preds.summary()["late_labels"] == {
        "label_known": rule.get("label_known"),
        "labels_complete_until": until,
        "pending_rows": 2,
    }
    ll = late_labels(_frame(), m)
    assert ll.every.row_numbers.tolist() == [2, 3, 4, 5, 6, 7]
    assert ll.known.tolist() == [True] * 4 + [False] * 2 and ll.pending == 2
    np.testing.assert_array_equal(ll.every.scores["A"], [0.9, 0.2, 0.3, 0.7, 0.4, 0.8])


def test_a_known_row_without_label_is_still_a_problem_listed_with_the_others():
    bad = CSV.replace("0,0.2,2026-10-02,1", ",0.2,2026-10-02,1").replace("0,0.4", "x0.4").replace(",0.4,", ",abc,")
    m = ColumnMapping(label="y", scores={"A": "p"}, time="t", label_known="k")
    with pytest.raises(InputError) as err:
        validate(_frame(bad), m)
    got = {p.code: list(p.rows) for p in err.value.problems}
    # row 3 is known and empty; row 6 (not arrived) has a score that is not a number: both listed
    assert got == {"label_missing": [3], "score_not_numeric": [6]}


def test_rule_problems_are_listed_with_rows():
    m = ColumnMapping(label="y", scores={"A": "p"}, time="t", label_known="k")
    with pytest.raises(InputError) as err:
        validate(_frame(CSV.replace("2026-10-03,true", "2026-10-03,maybe")), m)
    (p,) = err.value.problems
    assert p.code == "label_known_invalid" and list(p.rows) == [4] and "not yes/no" in p.message
    with pytest.raises(InputError, match="not in the file"):
        validate(_frame(), ColumnMapping(label="y", scores={"A": "p"}, label_known="nope"))
    with pytest.raises(InputError, match="needs the time column"):
        validate(_frame(), ColumnMapping(label="y", scores={"A": "p"}, labels_complete_until="2026-10-05"))
    with pytest.raises(InputError, match="not a date"):
        validate(_frame(), ColumnMapping(label="y", scores={"A": "p"}, time="t", labels_complete_until="soon"))
    with pytest.raises(InputError, match="No row has a known label"):
        validate(_frame(), ColumnMapping(label="y", scores={"A": "p"}, time="t", labels_complete_until="2026-09-01"))
    with pytest.raises(InputError, match="one label-known rule"):
        validate(
            _frame(), ColumnMapping(label="y", scores={"A": "p"}, time="t", label_known="k", labels_complete_until="2026-10-05")
        )
