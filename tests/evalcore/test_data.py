"""Tests of evalcore.data: reading uploads, validating a column mapping, guessing roles."""

from __future__ import annotations

import importlib.util
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore import InputError, threshold_counts
from evalcore._checks import check_binary_scores
from evalcore.data import (
    MISSING_LEVEL,
    PROBLEM_CODES,
    ColumnMapping,
    Predictions,
    guess_mapping,
    label_values,
    read_table,
    validate,
)

DATA = Path(__file__).resolve().parents[1] / "data"
BAD = DATA / "bad"
MANIFEST = json.loads((BAD / "manifest.json").read_text(encoding="utf-8"))

# What each problem's message must say (checked on every occurrence in the bad-file test).
MESSAGE = {
    "file_too_large": r"is \d+ bytes; the upload limit is 100 bytes",
    "too_many_rows": r"has 4 rows; the limit is 3 rows",
    "too_many_columns": r"has 3 columns; the limit is 2 columns",
    "limit_invalid": r"max_(rows|columns) must be a positive whole number",
    "empty_file": r"is empty|no content",
    "no_rows": r"no data rows|no rows",
    "encoding": r"not valid UTF-8.*GB18030",
    "unsupported_format": r"Excel workbook|gzip",
    "csv_parse": r"header has 7 fields .* 2 line\(s\) have a different number, first at line 4 \(8 fields\)",
    "parquet_invalid": r"Parquet",
    "duplicate_columns": r"more than one column named 'score_old'",
    "mapping_invalid": r"",
    "no_score": r"No score column is mapped",
    "too_many_scores": r"3 score columns are mapped",
    "score_kind_invalid": r"'logit'; it must be one of 'auto', 'probability', 'score', 'decision'",
    "missing_column": r"column '(is_fraud|score_v3)' is not in the file\. Available columns: .*'score_old'",
    "column_in_two_roles": r"'is_fraud' is mapped as label and as score of model A",
    "label_missing": r"label column '[^']+' is empty in \d+ of \d+ rows",
    "label_not_binary": r"exactly two distinct values; it has 3: '0' \(7 rows\), '1' \(3 rows\), '2' \(2 rows\)",
    "label_one_class": r"only one value, '0' \(in all 12 labelled rows\)",
    "positive_not_chosen": r"values 'ok', 'fraud'; which one is the positive class",
    "positive_not_found": r"positive label 'bad' is not a value .* 'no', 'yes'|'yes', 'no'",
    "score_missing": r"is missing \(empty or NaN\) in 1 row|is missing \(empty or NaN\) in 2 row",
    "score_not_finite": r"is infinite \(inf or -inf\) in \d row",
    "score_not_numeric": r"not numbers, e\.g\. ('high'|'0,0', '0,1', '0,2'|'n/a\?')",
    "probability_out_of_range": r"declared a probability but 1 value\(s\) lie outside \[0, 1\] \(range 0\.05 to 1\.3\)",
    # score_old = (7i mod 10)/10 for i = 0..11 is 0 only at i = 0 and 10, so 12 - 2 = 10 rows are not 0/1
    "decision_not_binary": r"declared a hard decision but 10 value\(s\) are neither 0 nor 1",
    "weight_invalid": r"weight column 'weight' (is negative|is missing)",
    "weight_all_zero": r"is 0 in every row",
    "time_unparseable": r"cannot be read as dates \(the format was inferred as %Y-%m-%d",
    "time_missing": r"time column 'application_date' is empty in 1 row",
    "group_missing": r"group column 'customer_id' is empty in 1 row",
    "segment_too_many_levels": r"'zip' has 150 distinct values .* at most 100",
    "label_known_invalid": r"label-known|labels complete until|No row has a known label",
}


def _frame_from(text: str | bytes, name: str = "x.csv") -> pd.DataFrame:
    return read_table(text.encode("utf-8") if isinstance(text, str) else text, name)


def _codes(err: pytest.ExceptionInfo) -> list[str]:
    return [p.code for p in err.value.problems]


def _problem(err, code):
    return next(p for p in err.value.problems if p.code == code)


# --------------------------------------------------------------------------- bad files


@pytest.mark.parametrize("case", MANIFEST, ids=[c["file"] for c in MANIFEST])
def test_bad_file_lists_expected_problems(case):
    raw = (BAD / case["file"]).read_bytes()
    mapping = ColumnMapping.from_dict(case["mapping"])
    kwargs = {"max_bytes": case["max_bytes"]} if case["max_bytes"] else {}
    with pytest.raises(InputError) as err:
        validate(read_table(raw, case["file"], **kwargs), mapping)
    codes = _codes(err)
    assert set(case["expect"]) <= set(codes), str(err.value)
    if case["exact"]:
        assert set(codes) == set(case["expect"]), str(err.value)
    for code, rows in case["rows"].items():
        assert list(_problem(err, code).rows) == rows, code
    for p in err.value.problems:
        assert re.search(MESSAGE[p.code], p.message), (p.code, p.message)
        assert p.fix, p.code
    # str(err) carries every problem, one per line
    assert len(str(err.value).splitlines()) == len(err.value.problems)


def test_several_problems_are_all_listed_at_once():
    case = next(c for c in MANIFEST if c["file"] == "several_problems.csv")
    assert len(case["expect"]) == 7
    with pytest.raises(InputError) as err:
        validate(read_table((BAD / case["file"]).read_bytes(), case["file"]), ColumnMapping.from_dict(case["mapping"]))
    assert sorted(_codes(err)) == sorted(case["expect"])


def test_every_problem_code_is_exercised():
    # mapping_invalid and the row/column limits: tested below
    covered = {code for c in MANIFEST for code in c["expect"]} | {
        "mapping_invalid",
        "too_many_rows",
        "too_many_columns",
        "limit_invalid",
        "label_known_invalid",  # tests/evalcore/test_late_labels.py
    }
    assert set(PROBLEM_CODES) == covered
    assert set(MESSAGE) == set(PROBLEM_CODES)
    assert len(MANIFEST) >= 25


def test_bad_files_are_reproducible(tmp_path):
    spec = importlib.util.spec_from_file_location("make_bad", DATA / "make_bad.py")
    make_bad = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_bad)
    make_bad.write(tmp_path)
    for f in sorted(BAD.iterdir()):
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), f.name


def test_mapping_invalid_messages():
    with pytest.raises(InputError, match=r"Unknown key\(s\) in the column mapping: 'score'") as err:
        ColumnMapping.from_dict({"label": "y", "score": "p"})
    assert _codes(err) == ["mapping_invalid"]
    with pytest.raises(InputError, match="The column mapping has no 'label'"):
        ColumnMapping.from_dict({"scores": {"A": "p"}})
    with pytest.raises(InputError, match="must be a dict; got list"):
        ColumnMapping.from_dict(["y"])
    frame = pd.DataFrame({"y": [0, 1], "p": [0.1, 0.9]})
    with pytest.raises(InputError, match="mapping must be a ColumnMapping; got dict"):
        validate(frame, {"label": "y"})
    with pytest.raises(InputError, match=r"Model 'A' must name a score column; got ''") as err:
        validate(frame, ColumnMapping(label="y", scores={"A": ""}))
    assert _codes(err) == ["mapping_invalid"]


# --------------------------------------------------------------------------- reading: more problems


def test_file_too_large_message_says_size_and_limit():
    with pytest.raises(InputError, match=r"big\.csv is 2\.0 MB; the upload limit is 1\.0 MB") as err:
        read_table(b"y,p\n" + b"1,0.5\n" * (2 * 2**20 // 6), "big.csv", max_bytes=2**20)
    assert _codes(err) == ["file_too_large"]


# --------------------------------------------------------------------------- reading: row and column limits
# A 4-row, 3-column file: "y,p,q" then 4 lines, each one row (no quotes, no blank lines).
WIDE_LONG = b"y,p,q\n1,0.9,a\n0,0.2,b\n1,0.7,c\n0,0.1,d\n"


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_rows_and_columns_over_the_limits_are_both_listed(fmt):
    raw = WIDE_LONG if fmt == "csv" else _parquet_bytes(read_table(WIDE_LONG, "w.csv"))
    with pytest.raises(InputError) as err:
        read_table(raw, f"w.{fmt}", max_rows=3, max_columns=2)
    assert _codes(err) == ["too_many_rows", "too_many_columns"]
    assert _problem(err, "too_many_rows").message == f"w.{fmt} has 4 rows; the limit is 3 rows."
    assert _problem(err, "too_many_columns").message == f"w.{fmt} has 3 columns; the limit is 2 columns."
    for p in err.value.problems:
        assert re.search(MESSAGE[p.code], p.message) and "register it as a path" in p.fix, p


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_file_exactly_at_the_limits_is_read(fmt):
    raw = WIDE_LONG if fmt == "csv" else _parquet_bytes(read_table(WIDE_LONG, "w.csv"))
    frame = read_table(raw, f"w.{fmt}", max_rows=4, max_columns=3)
    assert frame.shape == (4, 3)


NAMED = b" y ,p,note,when\n1,0.9,a,2026-10-01\n0,0.2,b,2026-10-02\n"


@pytest.mark.parametrize("fmt", ["csv", "parquet", "parquet with an index"])
def test_only_the_named_columns_are_read(fmt):
    """``columns=`` (what the CLI passes: the columns its options name) converts those columns
    only, in the file's order, with the same values as a full read; a name the file lacks reads
    every column, so the message about it can list them."""
    full = read_table(NAMED, "n.csv")
    if fmt == "csv":
        raw = NAMED
    else:
        buf = io.BytesIO()
        full.set_index("note").to_parquet(buf) if fmt.endswith("index") else full.to_parquet(buf, index=False)
        raw = buf.getvalue()
    frame = read_table(raw, "n", columns=["when", "y"])
    kept = ["y", "when"] + (["note"] if fmt.endswith("index") else [])  # a stored pandas index comes along
    assert sorted(frame.columns) == sorted(kept)
    pd.testing.assert_frame_equal(frame[["y", "when"]], full[["y", "when"]])
    assert sorted(read_table(raw, "n", columns=["y", "missing"]).columns) == ["note", "p", "when", "y"]


def test_csv_limits_are_checked_before_parsing(monkeypatch):
    import evalcore.data as data

    def parse(*a, **k):
        raise AssertionError("the CSV was parsed")

    monkeypatch.setattr(data, "_parse_csv", parse)
    with pytest.raises(InputError, match=r"has 3 columns; the limit is 2 columns"):
        read_table(WIDE_LONG, "w.csv", max_columns=2)
    with pytest.raises(InputError, match=r"has 4 rows; the limit is 3 rows"):
        read_table(WIDE_LONG, "w.csv", max_rows=3)
    # CRLF line ends and no trailing newline: still one row per line
    with pytest.raises(InputError, match=r"has 4 rows; the limit is 3 rows"):
        read_table(WIDE_LONG.replace(b"\n", b"\r\n").rstrip(), "w.csv", max_rows=3)


def test_csv_rows_that_span_lines_are_counted_as_parsed():
    # 4 rows on 6 lines (a quoted value spans lines) and a blank line: the line count would say
    # 7, so the rows are counted after parsing — 4 rows pass a limit of 4 and fail a limit of 3.
    raw = b'y,p,note\n1,0.9,"two\nlines"\n0,0.2,b\n\n1,0.7,"x\ny"\n0,0.1,d\n'
    assert len(read_table(raw, "q.csv", max_rows=4)) == 4
    with pytest.raises(InputError, match=r"q\.csv has 4 rows; the limit is 3 rows") as err:
        read_table(raw, "q.csv", max_rows=3)
    assert _codes(err) == ["too_many_rows"]


def test_parquet_limits_are_checked_from_the_metadata_before_decoding(monkeypatch):
    raw = _parquet_bytes(pd.DataFrame({f"c{i}": np.zeros(10, dtype=np.int8) for i in range(5)}))

    def read(*a, **k):
        raise AssertionError("the rows were decoded")

    monkeypatch.setattr(pq.ParquetFile, "read", read)
    with pytest.raises(InputError, match=r"x\.parquet has 10 rows; the limit is 9 rows"):
        read_table(raw, "x.parquet", max_rows=9)
    with pytest.raises(InputError, match=r"x\.parquet has 5 columns; the limit is 4 columns"):
        read_table(raw, "x.parquet", max_columns=4)


def test_default_limits_are_five_million_rows_and_two_thousand_columns():
    from evalcore.data import MAX_COLUMNS, MAX_ROWS

    assert (MAX_ROWS, MAX_COLUMNS) == (5_000_000, 2_000)
    header = ",".join(f"c{i}" for i in range(2_001)).encode()
    with pytest.raises(InputError, match=r"has 2,001 columns; the limit is 2,000 columns"):
        read_table(header + b"\n" + b",".join([b"1"] * 2_001) + b"\n", "wide.csv")


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True, None])
def test_a_limit_that_is_not_a_positive_int_is_refused(bad):
    with pytest.raises(InputError, match=r"read_table: max_rows must be a positive whole number; got ") as err:
        read_table(WIDE_LONG, "w.csv", max_rows=bad)
    assert _codes(err) == ["limit_invalid"]
    with pytest.raises(InputError, match=r"read_table: max_columns must be a positive whole number"):
        read_table(WIDE_LONG, "w.csv", max_columns=bad)


def test_header_only_without_trailing_newline():
    with pytest.raises(InputError, match=r"has a header \('y', 'p'\) but no data rows"):
        read_table(b"y,p", "h.csv")


def test_duplicate_header_detected_from_raw_header_not_renamed():
    # pandas would rename the second 'p' to 'p.1'; we refuse instead.
    with pytest.raises(InputError, match=r"more than one column named 'p'"):
        read_table(b"y;p;p\n1;0.2;0.3\n", "d.csv")


def test_ragged_short_row_is_not_padded():
    # pandas' C parser pads short rows with NaN silently; a short row is a parse problem.
    with pytest.raises(InputError) as err:
        read_table(b"y,p,q\n1,0.2,3\n0,0.1\n1,0.3,4\n", "r.csv")
    p = _problem(err, "csv_parse")
    assert p.rows == (3,) and "line 3 (2 fields)" in p.message


def test_random_bytes_are_refused_as_an_encoding_problem():
    # 200 random bytes are neither UTF-8 nor GB18030: every seed must be an InputError naming the
    # encoding (any other exception, or a "successful" read of noise, fails the test)
    for seed in range(30):
        raw = np.random.default_rng(seed).integers(0, 256, size=200, dtype=np.uint8).tobytes()
        with pytest.raises(InputError) as err:
            read_table(raw, "noise.csv")
        assert "cannot be read as text" in _problem(err, "encoding").message, seed


def _assert_documented_refusal(err: InputError):
    """A refusal says what is wrong with a documented code and a message (never a bare error)."""
    assert err.problems
    for p in err.problems:
        assert p.code in PROBLEM_CODES and p.message, p


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.text(alphabet=st.sampled_from(list('ab1,;\t|"\n\r .-é中')), max_size=80))
def test_any_text_reads_or_raises_input_error(text):
    try:
        frame = read_table(text.encode("utf-8"), "fuzz.csv")
    except InputError as err:
        _assert_documented_refusal(err)
        return
    assert frame.index.name == "row" and len(frame) > 0
    rows = frame.index.to_numpy()  # file line numbers: blank lines are skipped, not renumbered
    assert rows.min() >= 2 and np.all(np.diff(rows) > 0)
    try:
        validate(frame, ColumnMapping(label=str(frame.columns[0]), scores={"A": str(frame.columns[-1])}))
    except InputError as err:
        _assert_documented_refusal(err)


# cells no reader may mistake for a missing value, a number or a delimiter
_TEXT_CELL = st.from_regex(r"v[a-zA-Zé中_]{0,6}", fullmatch=True)
_COLUMN = {
    "int": st.integers(-(10**12), 10**12),
    "float": st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: x + 0.5),
    "text": _TEXT_CELL,
}


@st.composite
def csv_tables(draw):
    """``(text, delimiter, names, columns)``: a well-formed CSV and the values written into it."""
    names = draw(st.lists(st.from_regex(r"c_[a-z0-9]{1,6}", fullmatch=True), min_size=1, max_size=5, unique=True))
    n = draw(st.integers(1, 12))
    kinds = [draw(st.sampled_from(sorted(_COLUMN))) for _ in names]
    columns = [draw(st.lists(_COLUMN[k], min_size=n, max_size=n)) for k in kinds]
    delim = draw(st.sampled_from([",", ";", "\t", "|"]))
    lines = [delim.join(names)] + [
        delim.join(repr(c[i]) if not isinstance(c[i], str) else c[i] for c in columns) for i in range(n)
    ]
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"])), delim, names, columns


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(csv_tables(), st.sampled_from(["utf-8", "utf-8-sig", "gb18030"]))
def test_well_formed_csv_is_read_to_the_values_written(table, encoding):
    # the other half of the fuzz test: a reader refusing every file would pass that one
    text, delim, names, columns = table
    frame = read_table(text.encode(encoding), "gen.csv")
    assert frame.columns.tolist() == names
    assert frame.index.tolist() == list(range(2, len(columns[0]) + 2))
    if len(names) > 1:
        assert frame.attrs["source"]["delimiter"] == delim
    for name, values in zip(names, columns):
        assert frame[name].tolist() == values, name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1000).map(lambda i: i / 1000)), min_size=2, max_size=30).filter(
        lambda rows: len({y for y, _ in rows}) == 2
    )
)
def test_well_formed_labels_and_scores_validate_to_the_values_written(rows):
    text = "y,p\n" + "".join(f"{y},{p!r}\n" for y, p in rows)
    pred = validate(read_table(text.encode(), "gen.csv"), ColumnMapping(label="y", scores={"A": "p"}))
    assert pred.y_true.tolist() == [y for y, _ in rows] and pred.positive_label == "1"
    assert pred.scores["A"].tolist() == [p for _, p in rows]


# --------------------------------------------------------------------------- good reads


def test_gb18030_chinese_header_and_segments():
    text = "是否欺诈,模型分,渠道\n1,0.9,线上\n0,0.2,门店\n0,0.4,线上\n"
    frame = read_table(text.encode("gbk"), "cn.csv")
    assert frame.attrs["source"]["encoding"] == "gb18030"
    assert frame.columns.tolist() == ["是否欺诈", "模型分", "渠道"]
    pred = validate(frame, ColumnMapping(label="是否欺诈", scores={"A": "模型分"}, segments=("渠道",)))
    assert pred.segments["渠道"].tolist() == ["线上", "门店", "线上"]
    assert pred.summary()["segments"] == {"渠道": {"线上": 2, "门店": 1}}


def test_utf8_bom_is_stripped():
    frame = read_table(b"\xef\xbb\xbfy,p\n1,0.9\n0,0.1\n", "bom.csv")
    assert frame.columns.tolist() == ["y", "p"]  # not '\ufeffy'
    assert frame.attrs["source"]["encoding"] == "utf-8-sig"


def test_utf8_is_checked_piece_by_piece_across_character_boundaries():
    from evalcore.data import _is_utf8

    text = "是否欺诈,é,x\n".encode()  # 3-byte and 2-byte characters
    for piece in range(1, 8):  # every cut, through the middle of each character
        assert _is_utf8(text, piece)
        assert not _is_utf8(text[:-3] + b"\xe6\x98", piece)  # a character cut off at the end
        assert not _is_utf8(b"\xff" + text, piece)
    assert _is_utf8(b"") and _is_utf8(b"plain ascii")


def test_a_large_utf8_file_with_chinese_reads_as_its_text():
    """Past the first MB (the part read as text for the header and the delimiter) and with a
    3-byte character cut at that MB, the file still reads to the values written."""
    n = 2**20 // 10 + 7
    body = "".join(f"{i % 2},0.{i % 9}{i % 7},{'线上' if i % 3 else '门店'}\n" for i in range(n))
    raw = ("是否欺诈,模型分,渠道xxxx\n" + body).encode("utf-8")
    assert raw[2**20] & 0xC0 == 0x80  # byte 2**20 continues a character: the cut falls inside one
    frame = read_table(raw, "big.csv")
    assert frame.attrs["source"] == {"format": "csv", "encoding": "utf-8", "delimiter": ",", "filename": "big.csv"}
    assert len(frame) == n and frame.index[-1] == n + 1
    assert frame.columns.tolist() == ["是否欺诈", "模型分", "渠道xxxx"]
    assert frame["渠道xxxx"].tolist() == ["线上" if i % 3 else "门店" for i in range(n)]
    assert frame["模型分"].iloc[-1] == float(f"0.{(n - 1) % 9}{(n - 1) % 7}")


def test_utf16_with_bom():
    frame = read_table("y\tp\n1\t0.9\n0\t0.1\n".encode("utf-16"), "excel_unicode.txt")
    assert frame.columns.tolist() == ["y", "p"] and frame["p"].tolist() == [0.9, 0.1]


@pytest.mark.parametrize("delim", [";", "\t", "|", ","])
def test_delimiters_are_sniffed(delim):
    text = (
        delim.join(["y", "p", "city"])
        + "\n"
        + "\n".join(
            delim.join([str(i % 2), f"0.{i}", '"Paris, France"' if delim == "," else "Paris, France"]) for i in range(1, 8)
        )
        + "\n"
    )
    frame = read_table(text.encode(), "d.csv")
    assert frame.attrs["source"]["delimiter"] == delim
    assert frame.columns.tolist() == ["y", "p", "city"]
    assert frame["city"].iloc[0] == "Paris, France"


def test_parquet_detected_by_magic_whatever_the_extension():
    table = pa.table({"y": [1, 0, 1], "p": [0.7, 0.2, 0.9], "day": pa.array([19000, 19001, 19002], pa.date32())})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    frame = read_table(buf.getvalue(), "upload.bin")
    assert frame.attrs["source"]["format"] == "parquet"
    assert frame.index.tolist() == [2, 3, 4]
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, time="day"))
    # 19000 days after 1970-01-01 is 2022-01-08 (date32 counts days since the epoch)
    assert str(pred.time[0])[:10] == "2022-01-08" and pred.time.dtype == np.dtype("datetime64[ns]")


def test_parquet_written_by_pandas_with_index_keeps_it_as_column():
    df = pd.DataFrame({"y": [1, 0], "p": [0.6, 0.1]}, index=pd.Index(["a", "b"], name="app_id"))
    buf = io.BytesIO()
    df.to_parquet(buf)
    frame = read_table(buf.getvalue(), "x.parquet")
    assert frame.columns.tolist() == ["app_id", "y", "p"]


def test_boolean_labels():
    pred = validate(_frame_from("y,p\ntrue,0.9\nfalse,0.1\nTRUE,0.8\n"), ColumnMapping(label="y", scores={"A": "p"}))
    assert pred.y_true.tolist() == [1, 0, 1] and pred.positive_label == "True"
    frame = pd.DataFrame({"y": [True, False], "p": [0.5, 0.4]})
    assert validate(frame, ColumnMapping(label="y", scores={"A": "p"})).y_true.tolist() == [1, 0]


def test_yes_no_labels_with_positive_chosen():
    frame = _frame_from("y,p\nyes,0.9\nno,0.1\nno,0.3\n")
    # "no" is chosen as the positive class on purpose: the choice must override the yes/no default
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, positive="no"))
    assert pred.y_true.tolist() == [0, 1, 1] and pred.positive_label == "no"
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}))
    assert pred.y_true.tolist() == [1, 0, 0]


def test_string_labels_with_positive_chosen_and_numeric_positive():
    frame = _frame_from("y,p\nfraud,0.9\nok,0.1\n")
    assert validate(frame, ColumnMapping(label="y", scores={"A": "p"}, positive="fraud")).y_true.tolist() == [1, 0]
    frame = pd.DataFrame({"y": [2.0, 1.0, np.nan], "p": [0.3, 0.2, 0.1]})
    m = ColumnMapping(label="y", scores={"A": "p"}, positive="2.0", drop_missing_labels=True)
    pred = validate(frame, m)
    assert pred.y_true.tolist() == [1, 0] and pred.positive_label == "2"


def test_score_kinds_auto():
    frame = _frame_from("y,dec,risk,prob\n1,1,87,0.9\n0,0,12,0.2\n0,1,55,0.5\n1,0,100,1\n")
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "dec", "B": "risk"}))
    assert pred.score_kinds == {"A": "decision", "B": "score"}
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "prob"}))
    assert pred.score_kinds == {"A": "probability"}
    # a declared kind wins over auto: 0/1 values may be declared a probability
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "dec"}, score_kinds={"A": "probability"}))
    assert pred.score_kinds == {"A": "probability"} and pred.scores["A"].dtype == np.float64


def test_missing_labels_dropped_only_when_confirmed():
    text = "y,p,seg\n1,0.9,a\n,0.8,b\n0,0.1,\n,0.7,a\n0,0.3,b\n"
    frame = _frame_from(text)
    with pytest.raises(InputError, match=r"empty in 2 of 5 rows") as err:
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}))
    p = _problem(err, "label_missing")
    assert p.rows == (3, 5) and p.n_rows == 2 and "confirm dropping these 2 rows" in p.fix
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, segments=("seg",), drop_missing_labels=True))
    assert pred.dropped_rows == 2
    assert pred.row_numbers.tolist() == [2, 4, 6]  # file rows of the kept data (header is row 1)
    assert pred.y_true.tolist() == [1, 0, 0]
    assert pred.scores["A"].tolist() == [0.9, 0.1, 0.3]
    assert pred.segments["seg"].tolist() == ["a", MISSING_LEVEL, "b"]


def test_problems_in_dropped_rows_are_not_reported_after_confirmation():
    frame = _frame_from("y,p\n1,0.9\n,oops\n0,0.1\n")
    with pytest.raises(InputError) as err:
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}))
    assert sorted(_codes(err)) == ["label_missing", "score_not_numeric"]
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, drop_missing_labels=True))
    assert pred.scores["A"].tolist() == [0.9, 0.1] and pred.row_numbers.tolist() == [2, 4]


def test_segment_nan_becomes_missing_level_never_dropped():
    frame = pd.DataFrame(
        {"y": [1, 0, 0, 1], "p": [0.9, 0.1, 0.2, 0.8], "seg": ["a", None, "  ", "a"], "flag": [1.0, 0.0, np.nan, 1.0]}
    )
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, segments=("seg", "flag")))
    assert pred.segments["seg"].tolist() == ["a", MISSING_LEVEL, MISSING_LEVEL, "a"]
    assert pred.segments["flag"].tolist() == ["1", "0", MISSING_LEVEL, "1"]  # 1.0 is shown as '1'
    assert pred.n_rows == 4


def test_interior_blank_lines_keep_file_row_numbers():
    frame = _frame_from("y,p\n1,0.9\n\n0,oops\n0,0.1\n")
    assert frame.index.tolist() == [2, 4, 5]
    with pytest.raises(InputError) as err:
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}))
    assert _problem(err, "score_not_numeric").rows == (4,)


def test_row_numbers_of_plain_frame_are_position_plus_two():
    frame = pd.DataFrame({"y": [1, 0, 1], "p": [0.9, np.nan, 0.8]}, index=[10, 11, 12])
    with pytest.raises(InputError) as err:
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}))
    assert _problem(err, "score_missing").rows == (3,)


def test_summary_by_hand():
    text = (
        "y,a,b,seg,day,cust,w,f1,f2\n"
        "1,0.9,80,x,2025-01-01,c1,1,0.5,u\n"
        "0,0.2,20,y,2025-01-03,c2,2,1.5,v\n"
        ",0.5,50,x,2025-01-02,c1,1,2.5,u\n"
        "0,0.4,40,,2025-01-11,c3,1,,\n"
        "1,0.7,90,x,2025-01-05,c2,3,4.5,v\n"
    )
    m = ColumnMapping(
        label="y",
        scores={"A": "a", "B": "b"},
        segments=("seg",),
        time="day",
        group="cust",
        weight="w",
        features=("f1", "f2"),
        drop_missing_labels=True,
    )
    pred = validate(_frame_from(text), m)
    s = pred.summary()
    # kept rows: 2, 3, 5, 6 (row 4 has no label); labels 1, 0, 0, 1; weights 1, 2, 1, 3
    assert s["rows"] == 4 and s["positives"] == 2 and s["dropped_rows"] == 1
    # weighted positive rate = (1 + 3) / (1 + 2 + 1 + 3) = 4/7
    assert s["positive_rate"] == pytest.approx(4 / 7)
    assert s["weighted"] == {"column": "w", "total": 7.0, "positive": 4.0}
    assert s["models"]["A"] == {"column": "a", "kind": "probability", "min": 0.2, "max": 0.9, "n_distinct": 4}
    assert s["models"]["B"] == {"column": "b", "kind": "score", "min": 20.0, "max": 90.0, "n_distinct": 4}
    # kept days: Jan 1, 3, 11, 5 -> first Jan 1, last Jan 11, 10 days apart
    assert s["time"] == {"column": "day", "first": "2025-01-01T00:00:00", "last": "2025-01-11T00:00:00", "days": 10.0}
    assert s["segments"] == {"seg": {"x": 2, "y": 1, MISSING_LEVEL: 1}}
    assert s["n_groups"] == 3  # c1, c2, c3
    assert s["features"] == ["f1", "f2"]
    assert s["label"] == {"column": "y", "positive": "1"}
    json.dumps(s)  # JSON-safe
    assert pred.features["f1"].tolist()[:2] == [0.5, 1.5] and np.isnan(pred.features["f1"].iloc[2])
    assert pred.features["f2"].tolist() == ["u", "v", MISSING_LEVEL, "v"]
    assert pred.groups.tolist() == ["c1", "c2", "c3", "c2"]
    assert pred.sample_weight.tolist() == [1.0, 2.0, 1.0, 3.0]
    assert pred.n == 7.0 and pred.n_pos == 4.0 and pred.n_pos_rows == 2


def test_predictions_feed_the_counts_primitive():
    pred = validate(_frame_from("y,p\nyes,0.8\nno,0.4\nno,0.35\nyes,0.1\n"), ColumnMapping(label="y", scores={"A": "p"}))
    y, s, w = check_binary_scores(pred.y_true, pred.scores["A"], pred.sample_weight)
    c = threshold_counts(y, s)
    assert c.tp.tolist() == [1.0, 1.0, 1.0, 2.0] and c.n_pos == 2.0


# --------------------------------------------------------------------------- time parsing


@pytest.mark.parametrize(
    "values, first",
    [
        (["2025-01-31", "2025-02-01"], "2025-01-31T00:00:00"),
        (["2025/01/31 13:05", "2025/02/01 08:00"], "2025-01-31T13:05:00"),
        (["31.01.2025", "01.02.2025"], "2025-01-31T00:00:00"),
        ([20250131, 20250201], "2025-01-31T00:00:00"),  # yyyymmdd numbers
        ([1738281600, 1738368000], "2025-01-31T00:00:00"),  # epoch seconds: 20119 days * 86400
        (["2025-01-31T08:00:00+08:00", "2025-02-01T09:00:00+08:00"], "2025-01-31T08:00:00"),  # local wall time kept
    ],
)
def test_time_formats(values, first):
    frame = pd.DataFrame({"y": [1, 0], "p": [0.2, 0.3], "t": values})
    pred = validate(frame, ColumnMapping(label="y", scores={"A": "p"}, time="t"))
    assert pred.summary()["time"]["first"] == first
    assert pred.time.dtype == np.dtype("datetime64[ns]")


def test_time_numbers_that_are_not_dates():
    frame = pd.DataFrame({"y": [1, 0], "p": [0.2, 0.3], "t": [3, 4]})
    with pytest.raises(InputError, match="neither epoch seconds .* nor yyyymmdd"):
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}, time="t"))


def test_time_out_of_nanosecond_range_is_reported_not_overflowing():
    frame = _frame_from("y,p,t\n1,0.2,2025-01-01\n0,0.3,9999-12-31\n")
    with pytest.raises(InputError) as err:
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}, time="t"))
    assert _problem(err, "time_unparseable").rows == (3,)


# --------------------------------------------------------------------------- roles and mapping


def test_allowed_and_forbidden_role_overlaps():
    frame = pd.DataFrame({"y": [1, 0], "p": [0.2, 0.3], "c": ["a", "b"], "t": ["2025-01-01", "2025-01-02"]})
    # a categorical column may be both segment and feature; a score may also be a drift feature
    validate(frame, ColumnMapping(label="y", scores={"A": "p"}, segments=("c",), features=("c", "p")))
    with pytest.raises(InputError, match="'t' is mapped as time and as feature"):
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}, time="t", features=("t",)))
    with pytest.raises(InputError, match="'p' is mapped as score of model A and as score of model B"):
        validate(frame, ColumnMapping(label="y", scores={"A": "p", "B": "p"}))


def test_missing_column_lists_available_columns_and_other_problems_still_found():
    frame = pd.DataFrame({"y": [1, 0, 2], "p": [0.2, 0.3, 0.4]})
    with pytest.raises(InputError) as err:
        validate(frame, ColumnMapping(label="y", scores={"A": "p", "B": "q"}))
    assert sorted(_codes(err)) == ["label_not_binary", "missing_column"]
    assert "Available columns: 'y', 'p'" in _problem(err, "missing_column").message


def test_mapping_round_trip_and_normalisation():
    m = ColumnMapping(
        label="y",
        scores={"A": "p", "B": "q"},
        score_kinds={"B": "score"},
        positive=1,
        segments="region",
        time="",
        features=["f", "f", "g"],
        weight="w",
        drop_missing_labels=True,
    )
    assert m.segments == ("region",) and m.time is None and m.features == ("f", "g") and m.positive == "1"
    d = m.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert ColumnMapping.from_dict(d).to_dict() == d


def test_label_values():
    frame = pd.DataFrame({"y": ["b", "a", None, " a", ""], "n": [10, 2, 2, np.nan, 1]})
    assert label_values(frame, "y") == ["a", "b"]  # stripped, blanks are missing
    assert label_values(frame, "n") == ["1", "2", "10"]  # numeric order, integral floats as ints
    with pytest.raises(InputError, match="'z' is not in the file"):
        label_values(frame, "z")


def test_weighted_single_class():
    frame = pd.DataFrame({"y": [1, 0, 0], "p": [0.2, 0.3, 0.4], "w": [0.0, 1.0, 1.0]})
    with pytest.raises(InputError, match="Every positive row .* has weight 0"):
        validate(frame, ColumnMapping(label="y", scores={"A": "p"}, weight="w"))


# --------------------------------------------------------------------------- guess_mapping


def test_guess_mapping_typical_names():
    n = 40
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "application_id": [f"A{i}" for i in range(n)],
            "is_fraud": rng.integers(0, 2, n),
            "score_old": rng.random(n),
            "score_new": rng.random(n),
            "application_date": pd.date_range("2025-01-01", periods=n).strftime("%Y-%m-%d"),
            "customer_id": [f"C{i % 13}" for i in range(n)],
            "weight": rng.random(n) + 0.5,
            "channel": rng.choice(["app", "web", "branch"], n),
            "new_user": rng.integers(0, 2, n),
            "income": rng.normal(size=n),
            "age": rng.integers(18, 80, n),
        }
    )
    g = guess_mapping(frame)
    assert g == {
        "label": "is_fraud",
        "scores": ["score_old", "score_new"],
        "segments": ["channel", "new_user"],
        "time": "application_date",
        "group": "customer_id",
        "features": ["income", "age"],
        "weight": "weight",
    }
    # the guess is a valid mapping for this frame
    validate(
        frame,
        ColumnMapping(
            label=g["label"],
            scores=dict(zip("AB", g["scores"])),
            segments=g["segments"],
            time=g["time"],
            group=g["group"],
            features=g["features"],
            weight=g["weight"],
        ),
    )


def test_guess_mapping_nothing_obvious():
    g = guess_mapping(pd.DataFrame({"a": [1.5, 2.5, 3.5], "b": ["x", "y", "z"]}))
    assert g["label"] is None and g["scores"] == [] and g["time"] is None and g["group"] is None


def test_predictions_is_frozen():
    pred = validate(pd.DataFrame({"y": [1, 0], "p": [0.2, 0.3]}), ColumnMapping(label="y", scores={"A": "p"}))
    assert isinstance(pred, Predictions)
    with pytest.raises(AttributeError):
        pred.dropped_rows = 3


def test_guess_keeps_plainly_named_columns_even_when_their_values_are_wrong():
    # a 3-valued "label" and a "score" holding text are still guessed, so validation can say what is wrong
    frame = read_table(b"label,score\n1,0.9\n0,abc\n2,0.7\n", "x.csv")
    g = guess_mapping(frame)
    assert g["label"] == "label" and g["scores"] == ["score"]
