"""AppTest: the Drift page's "Value over time" section shows evalcore's numbers (issue 19)."""

import pytest

from board.app import over_time_view
from board.services import demo
from board.words import fmt
from evalcore import ValueTable
from evalcore.board import BoardConfig
from evalcore.data import ColumnMapping, validate
from evalcore.over_time import value_over_time


@pytest.mark.slow
def test_value_over_time_section_shows_evalcore_numbers(app, tmp_path):
    at = app("views/drift.py")
    assert not at.exception
    assert any(h.value == "Value over time" for h in at.subheader)
    # weekly windows by default: the demo's reference period holds one week, so no alert line, said why
    assert any("no alert line" in c.value and "needs at least 2" in c.value for c in at.caption)
    at.segmented_control(key=over_time_view.K_WINDOW).set_value("day").run()
    assert not at.exception
    rows = validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING))
    from board import services
    from board.store import Store

    with Store(data_dir=tmp_path / "data") as st:  # the app fixture's store: the table the page prices with
        table, _ = services.load_value_table(st, services.DEFAULT_TABLE_NAME)
    assert isinstance(table, ValueTable)
    cfg = BoardConfig(
        thresholds={m: 0.5 for m in rows.scores},
        n_resamples=over_time_view.N_RESAMPLES,
        scheme="cluster",
    )
    r = value_over_time(rows, table, cfg, window="day")
    for m in rows.scores:
        line = r.alert_line[m]["line"]
        want = fmt.money(line, table.unit)
        assert any(c.value.startswith(f"{m}: alert line {want}") for c in at.caption), [c.value for c in at.caption]
