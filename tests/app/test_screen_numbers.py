"""Issue 14 item 5: every table a page shows has plain column names and formatted numbers.

For each page (on the demo data, after the interactions that reveal its tables), every
st.dataframe / st.data_editor — except the previews of the user's own file, which show it as it
is — must

- name its columns in words: no code name (no "_"), no column titled "undefined";
- show numbers as text through the formatter (no scientific notation, no raw float with more
  significant digits than the formatter's 3–4 — "0.14285714285714285" — never "nan"/"None"/"inf"),
  or as a number column with a display format.

:func:`screen_problems` is the check; its own test feeds it the issue's examples, so it fails
when they come back.
"""

import json
import re

import pandas as pd
import pytest

from board.app import ui
from board.words import glossary

SCIENTIFIC = re.compile(r"\d(?:\.\d+)?[eE][+-]?\d+")
# a raw float: 5 or more significant digits after the point ("0.14285714", "12.50001"); the
# formatter's tiny numbers keep 3–4 ("0.0000250" for 2.503e-05) and pass
RAW_FLOAT = re.compile(r"\d\.0*[1-9]\d{4,}")
RAW = {"nan", "NaN", "None", "inf", "-inf", "<NA>", "NaT"}
BAD_FORMATS = {None, "", "plain", "scientific", "engineering"}
PREVIEWS = ("upload_preview", "register_preview", "stab_training_preview", "dc_training_preview", "stab_worst_rows")


def _config(df) -> dict:
    return json.loads(df.proto.columns) if df.proto.columns else {}


def screen_problems(frame: pd.DataFrame, config: dict, where: str = "") -> list[str]:
    """What a person would see as code on screen in one table (empty when it reads as words)."""
    problems = []
    for name in frame.columns:
        cfg = config.get(str(name), {})
        if cfg.get("hidden"):
            continue
        shown = str(cfg.get("label") or name)
        if "_" in shown or shown.strip().lower() == "undefined":
            problems.append(f"{where}: column {shown!r} is a code name")
        col = frame[name]
        if pd.api.types.is_bool_dtype(col):
            continue
        if pd.api.types.is_numeric_dtype(col):
            fmt = (cfg.get("type_config") or {}).get("format")
            if fmt in BAD_FORMATS:
                problems.append(f"{where}: number column {shown!r} has no display format ({fmt!r})")
            continue
        for v in col:
            text = "" if v is None else str(v)
            if isinstance(v, float) or text in RAW or SCIENTIFIC.search(text) or RAW_FLOAT.search(text):
                problems.append(f"{where}: column {shown!r} shows {text!r}")
                break
    return problems


def _problems(at) -> list[str]:
    previews = []
    for key in PREVIEWS:
        try:
            previews += [d.proto for d in at.container(key=key).dataframe]
        except KeyError:
            pass
    out = []
    for i, d in enumerate(at.dataframe):
        if any(d.proto == p for p in previews):
            continue
        out += screen_problems(d.value, _config(d), f"table {i} ({list(d.value.columns)[:3]}…)")
    return out


def test_the_check_catches_the_issue_s_examples():
    bad = pd.DataFrame(
        {
            "n_rows": ["1329.0"],
            "oe_ratio": ["2.503e-05"],
            "undefined": ["0.14285714285714285"],
            "estimate": [0.5],
            "Share": ["nan"],
        }
    )
    problems = screen_problems(bad, {}, "bad")
    assert len(problems) == 7, problems  # three code names, "e-05", the long float, a bare float column, "nan"
    good = pd.DataFrame({"Rows": ["1,329"], "Observed ÷ expected": ["0.0000250"], "Why undefined": [""], "ECE": [0.01]})
    assert screen_problems(good, {"ECE": {"type_config": {"type": "number", "format": "%.4f"}}}) == []
    # a column config label counts as the name the screen shows
    assert (
        screen_problems(pd.DataFrame({"n_pos": [1]}), {"n_pos": {"label": "Positives", "type_config": {"format": "%,d"}}}) == []
    )


def test_ui_formatters_delegate_to_the_one_formatter():
    from board.words import fmt

    assert ui.fmt(0.14285714285714285) == "0.143"
    assert ui.fmt(2.503e-05) == "0.0000250"
    assert ui.fmt(-467.98, unit="EUR") == "-468.0 EUR"
    assert ui.fmt(44.8, unit="EUR", signed=True) == "+44.80 EUR"
    assert ui.fmt(float("nan"), unit="EUR") == ui.fmt(None) == "—"
    assert ui.percent(0.1234) == "12.3%" and ui.percent(float("nan")) == "—"
    assert ui.cell(1329) == "1,329" and ui.cell(0.14285714285714285) == "0.143" and ui.cell(float("nan")) == "—"
    assert ui.cell({"new": 0.090000001, "rows": 3}) == "new: 0.0900, rows: 3"
    assert ui.level(0.95) == "95%" and ui.level(0.9) == "90%" and ui.level(0.995) == "99.5%"
    assert ui.exact(1e-4) == "0.0001" and ui.exact(0.5) == "0.5" and ui.exact(1e-15) == fmt.number(1e-15, 4).rstrip("0")


def test_glossary_has_one_line_for_each_term():
    for key in (
        "ev",
        "threshold",
        "tp",
        "fp",
        "fn",
        "tn",
        "calibration",
        "drift",
        "confidence_interval",
        "bootstrap",
        "segment",
        "oe",
    ):
        text = glossary.term(key)
        assert "\n" not in text and 20 < len(text) < 200, key
    assert glossary.terms("tp", "fn").count("\n") == 1


def _upload(at, csv: bytes, name="tiny.csv"):
    at.file_uploader(key="upload_file").set_value((name, csv, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


PAGES = [
    "views/threshold_value.py",
    "views/uncertainty.py",
    "views/calibration.py",
    "views/drift.py",
    "views/value_table.py",
    "views/audit.py",
    "views/accounts.py",
]


@pytest.mark.parametrize("page", PAGES)
def test_every_table_of_the_page_reads_as_words(app, page):
    at = app(page)
    assert at.dataframe, f"{page} shows no table"
    assert _problems(at) == []


def test_value_tools_tables_read_as_words(app):
    at = app("views/value_tools.py")
    at.button(key="vt_tools_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.dataframe) == 2  # the AHP amounts and the one-at-a-time sensitivity rows
    assert _problems(at) == []
    sens = at.dataframe[1].value
    assert sens["Amount after the change"].str.endswith(" EUR").all()


def test_upload_report_reads_as_words(app):
    at = app("views/upload.py")
    _upload(at, b"label,score,when,seg\n1,0.9,2026-01-01,a\n0,0.2,2026-01-02,b\n1,0.7,2026-01-03,a\n0,0.4,2026-01-04,b\n")
    assert not at.json  # the validation report is shown in words, not as JSON
    facts = at.dataframe[1].value.set_index("Fact")["Value"]  # after the file's own preview
    assert facts["Rows"] == "4" and facts["Positive rate"] == "50.00%"
    assert _problems(at) == []
    bad = app("views/upload.py")
    _upload(bad, b"label,score\n1,0.9\n0,abc\n2,0.7\n", "bad.csv")
    assert list(bad.dataframe[-1].value.columns) == ["Problem", "Column", "Rows (file line numbers)", "How to fix"]
    assert _problems(bad) == []


def test_threshold_table_shows_counts_shares_money_and_thresholds(app):
    from board.services import demo
    from board.words import fmt
    from evalcore import ValueTable, price_curve, score_counts

    at = app("views/threshold_value.py")
    f = demo.demo_frame()
    c = price_curve(score_counts(f.is_fraud.to_numpy(), f.score_new.to_numpy()), ValueTable.from_dict(demo.DEMO_VALUE_TABLE))
    m = c.confusion_at(0.5)
    table = at.dataframe[0].value.set_index("Measure")["new"]
    assert table["True positives (TP)"] == fmt.count(m.tp) and table["False negatives (FN)"] == fmt.count(m.fn)
    assert table["Precision (positives among cases acted on)"] == fmt.share(m.precision)
    assert table["EV per decision at the deployed threshold"] == fmt.money(c.ev_at(0.5), "EUR", signed=True)
    assert table["Best threshold"] == fmt.score(c.t_opt)
    # the glossary is on the heading of the table and on the metric cards
    heading = next(h for h in at.subheader if h.value.startswith("At the deployed"))
    assert glossary.term("tp") in heading.proto.help and glossary.term("threshold") in heading.proto.help
    assert all(m.help == glossary.term("ev") for m in at.metric)


def test_stability_tables_read_as_words(app):
    at = app("views/stability.py")
    at.radio(key="stab_source").set_value("Uploaded scores").run()
    csv = b"a,b\n0.80,0.78\n0.82,0.80\n0.81,0.80\n0.83,0.80\n0.79,0.79\n0.84,0.81\n"
    at.file_uploader(key="stab_scores_file").set_value(("scores.csv", csv, "text/csv")).run()
    at.multiselect(key="stab_score_cols").set_value(["a", "b"]).run()
    assert not at.exception, [e.value for e in at.exception]
    summary = at.dataframe[0].value.set_index("Statistic")
    assert summary.loc["Runs", "a"] == "6" and summary.loc["Mean", "a"] == "0.8150"
    assert _problems(at) == []


def test_data_conditions_tables_read_as_words(app):
    from tests.app.test_stability_page import _until

    at = app("views/data_conditions.py")
    at.number_input(key="dc_repeats").set_value(1)
    at.button(key="dc_run_lc").click().run()
    _until(at, lambda a: any(x.value.startswith("On this data") for x in [*a.success, *a.warning]))
    mad = next(d.value for d in at.dataframe if "Spread" in d.value.columns)
    assert list(mad.columns) == ["Spread", "Raw", "Normalized", "Robust"]
    assert _problems(at) == []


def test_validation_report_with_weights_time_and_segments():
    from streamlit.testing.v1 import AppTest

    def script():
        from board.app import ui

        ui.show_validation(
            {
                "rows": 1329,
                "positives": 7,
                "positive_rate": 7 / 1329,
                "label": {"column": "is_fraud", "positive": "1"},
                "weighted": {"column": "w", "total": 2503.123456, "positive": 12.987654},
                "models": {
                    "new": {"column": "score_new", "kind": "probability", "min": 2.503e-05, "max": 0.98765432, "n_distinct": 1300}
                },
                "time": {"column": "t", "first": "2026-01-01T00:00:00", "last": "2026-02-01T00:00:00", "days": 31.0},
                "segments": {"seg": {f"level {i}": 100 + i for i in range(10)}},
                "n_groups": 400,
                "features": ["amount"],
                "dropped_rows": 2,
            }
        )

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    facts, models, segments = (d.value for d in at.dataframe)
    facts = facts.set_index("Fact")["Value"]
    assert facts["Rows"] == "1,329" and facts["Positive rate"] == "0.53%"
    assert facts["Sample weight column"] == "w (total weight 2,503, positives 12.99)"
    assert models.loc[0, "Lowest score"] == "0.00002503" and models.loc[0, "Distinct scores"] == "1,300"
    assert segments.loc[0, "Levels (rows)"].endswith("· … (2 more)")
    assert _problems(at) == []
