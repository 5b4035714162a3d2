"""Generate the bad-upload fixtures in tests/data/bad/ and their manifest.

Run from the repository root::

    .venv/bin/python tests/data/make_bad.py

Deterministic: the same bytes every run (no randomness; Parquet written without
compression statistics that depend on time). ``tests/evalcore/test_data.py`` reads
``tests/data/bad/manifest.json`` and checks that every file raises ``InputError``
whose problem codes include ``expect`` (exactly ``expect`` when ``exact`` is true),
with the example row numbers in ``rows`` where given.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

BAD = Path(__file__).resolve().parent / "bad"


def _csv(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _base(n: int = 12) -> list[str]:
    """A clean little table: label, two probability scores, a segment, a date, a customer id, a weight."""
    rows = ["is_fraud,score_old,score_new,channel,application_date,customer_id,weight"]
    for i in range(n):
        y = 1 if i % 4 == 0 else 0
        rows.append(
            f"{y},{(i * 7 % 10) / 10:.1f},{(i * 3 % 10) / 10 + 0.05:.2f},{'app' if i % 2 else 'web'},"
            f"2025-01-{i % 28 + 1:02d},C{i % 5},1"
        )
    return rows


M = {"label": "is_fraud", "scores": {"A": "score_old", "B": "score_new"}}
FULL = {**M, "segments": ["channel"], "time": "application_date", "group": "customer_id", "weight": "weight"}


def _replace(lines: list[str], line_no: int, column: int, value: str) -> None:
    """Set field ``column`` of file line ``line_no`` (1-based, header = 1)."""
    fields = lines[line_no - 1].split(",")
    fields[column] = value
    lines[line_no - 1] = ",".join(fields)


def _edited(*edits: tuple[int, int, str], n: int = 12) -> str:
    """The CSV of ``_base(n)`` with each ``(line_no, column, value)`` edit applied (see ``_replace``)."""
    lines = _base(n)
    for line_no, column, value in edits:
        _replace(lines, line_no, column, value)
    return _csv(lines)


def _column(column: int, value_of_line, n: int = 12) -> str:
    """The CSV of ``_base(n)`` with field ``column`` of every data line set to ``value_of_line(line_no)``."""
    return _edited(*((i, column, value_of_line(i)) for i in range(2, n + 2)), n=n)


def _parquet(columns: dict, names: list[str] | None = None) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [pa.array(v) for v in columns.values()]
    table = pa.Table.from_arrays(arrays, names=names or list(columns))
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="NONE")
    return buf.getvalue()


def cases() -> list[dict]:
    """Every bad file: name, content (bytes), mapping, expected codes, example rows."""
    out: list[dict] = []

    def add(file, content, mapping, expect, *, rows=None, exact=True, max_bytes=None, note=""):
        if isinstance(content, str):
            content = content.encode("utf-8")
        out.append(
            {
                "file": file,
                "content": content,
                "mapping": mapping,
                "expect": expect,
                "rows": rows or {},
                "exact": exact,
                "max_bytes": max_bytes,
                "note": note,
            }
        )

    # --- reading -------------------------------------------------------------------
    add("empty.csv", b"", M, ["empty_file"], note="0 bytes")
    add("whitespace_only.csv", b"  \n\n \t \r\n", M, ["empty_file"])
    add("header_only.csv", "is_fraud,score_old,score_new\n", M, ["no_rows"])
    lines = _base()
    lines[3] += ",extra"  # line 4: one field too many
    lines[5] = "0,0.3"  # line 6: too few fields
    add("ragged_rows.csv", _csv(lines), M, ["csv_parse"], rows={"csv_parse": [4, 6]})
    add("duplicate_columns.csv", _csv(["is_fraud,score_old,score_old", "1,0.9,0.8", "0,0.1,0.2"]), M, ["duplicate_columns"])
    add("too_large.csv", _csv(_base()), M, ["file_too_large"], max_bytes=100)
    add(
        "latin1_encoding.csv",
        "is_fraud,score_old,drink\n1,0.9,café\n0,0.2,thé\n".encode("latin-1"),
        {"label": "is_fraud", "scores": {"A": "score_old"}},
        ["encoding"],
        rows={"encoding": [2]},
    )
    add("workbook.xlsx", b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(64)), M, ["unsupported_format"])
    add("compressed.csv.gz", gzip.compress(_csv(_base()).encode(), mtime=0), M, ["unsupported_format"])
    good_parquet = _parquet({"is_fraud": [1, 0, 0, 1], "score_old": [0.9, 0.1, 0.3, 0.7], "score_new": [0.8, 0.2, 0.4, 0.6]})
    add("corrupt.parquet", good_parquet[: len(good_parquet) // 2], M, ["parquet_invalid"], note="truncated")
    add("corrupt_named_parquet.parquet", _csv(_base()), M, ["parquet_invalid"], note="a CSV named .parquet")
    add(
        "duplicate_columns.parquet",
        _parquet({"a": [1, 0], "b": [0.1, 0.2], "c": [0.3, 0.4]}, names=["is_fraud", "score_old", "score_old"]),
        M,
        ["duplicate_columns"],
    )

    # --- mapping ---------------------------------------------------------------------
    lines = _base()
    lines[0] = lines[0].replace("is_fraud", "target")
    add("missing_label_column.csv", _csv(lines), M, ["missing_column"])
    add(
        "missing_score_column.csv",
        _csv(_base()),
        {"label": "is_fraud", "scores": {"A": "score_old", "B": "score_v3"}},
        ["missing_column"],
    )
    add("label_also_score.csv", _csv(_base()), {"label": "is_fraud", "scores": {"A": "is_fraud"}}, ["column_in_two_roles"])
    add("no_score.csv", _csv(_base()), {"label": "is_fraud", "scores": {}}, ["no_score"])
    add(
        "three_scores.csv",
        _csv(_base()),
        {"label": "is_fraud", "scores": {"A": "score_old", "B": "score_new", "C": "weight"}},
        ["too_many_scores"],
    )
    add("bad_score_kind.csv", _csv(_base()), {**M, "score_kinds": {"A": "logit"}}, ["score_kind_invalid"])

    # --- label -----------------------------------------------------------------------
    add("label_three_values.csv", _edited((3, 0, "2"), (8, 0, "2")), M, ["label_not_binary"])
    add("label_one_class.csv", _column(0, lambda i: "0"), M, ["label_one_class"])
    add("string_labels_no_positive.csv", _column(0, lambda i: "fraud" if i % 3 == 0 else "ok"), M, ["positive_not_chosen"])
    add(
        "positive_not_present.csv",
        _column(0, lambda i: "yes" if i % 3 == 0 else "no"),
        {**M, "positive": "bad"},
        ["positive_not_found"],
    )
    add("missing_labels.csv", _edited((4, 0, ""), (7, 0, "NA")), M, ["label_missing"], rows={"label_missing": [4, 7]})

    # --- scores ----------------------------------------------------------------------
    add("nan_scores.csv", _edited((5, 1, ""), (9, 1, "NaN")), M, ["score_missing"], rows={"score_missing": [5, 9]})
    add("inf_scores.csv", _edited((3, 2, "inf"), (6, 2, "-inf")), M, ["score_not_finite"], rows={"score_not_finite": [3, 6]})
    add("text_in_score.csv", _edited((10, 1, "high")), M, ["score_not_numeric"], rows={"score_not_numeric": [10]})
    add(
        "probability_1_3.csv",
        _edited((6, 2, "1.3")),
        {**M, "score_kinds": {"B": "probability"}},
        ["probability_out_of_range"],
        rows={"probability_out_of_range": [6]},
    )
    add("decision_not_binary.csv", _csv(_base()), {**M, "score_kinds": {"A": "decision"}}, ["decision_not_binary"])

    # --- weight, time, group, segment --------------------------------------------------
    add("negative_weight.csv", _edited((5, 6, "-2")), {**M, "weight": "weight"}, ["weight_invalid"], rows={"weight_invalid": [5]})
    add("nan_weight.csv", _edited((8, 6, "")), {**M, "weight": "weight"}, ["weight_invalid"], rows={"weight_invalid": [8]})
    add("weight_all_zero.csv", _column(6, lambda i: "0"), {**M, "weight": "weight"}, ["weight_all_zero"])
    add(
        "unparseable_dates.csv",
        _edited((4, 4, "2025-02-30"), (11, 4, "next tuesday")),
        {**M, "time": "application_date"},
        ["time_unparseable"],
        rows={"time_unparseable": [4, 11]},
    )
    add("missing_dates.csv", _edited((6, 4, "")), {**M, "time": "application_date"}, ["time_missing"], rows={"time_missing": [6]})
    add("group_missing.csv", _edited((12, 5, "")), {**M, "group": "customer_id"}, ["group_missing"], rows={"group_missing": [12]})
    lines = ["is_fraud,score_old,zip"] + [f"{i % 2},{(i % 10) / 10},{10000 + i}" for i in range(150)]
    add(
        "segment_too_many_levels.csv",
        _csv(lines),
        {"label": "is_fraud", "scores": {"A": "score_old"}, "segments": ["zip"]},
        ["segment_too_many_levels"],
    )

    # --- encodings and delimiters, each with a problem ----------------------------------
    gbk = ["是否欺诈,旧模型分,新模型分,渠道,申请日期"]
    for i in range(10):
        gbk.append(
            f"{1 if i % 3 == 0 else 0},{i / 10:.1f},{'' if i == 4 else f'{(9 - i) / 10:.1f}'},"
            f"{'线上' if i % 2 else '门店'},2025-03-{i + 1:02d}"
        )
    add(
        "gbk_nan_score.csv",
        _csv(gbk).encode("gbk"),
        {"label": "是否欺诈", "scores": {"A": "旧模型分", "B": "新模型分"}, "segments": ["渠道"], "time": "申请日期"},
        ["score_missing"],
        rows={"score_missing": [6]},
        note="GBK encoded, Chinese header, empty score on line 6",
    )
    semi = ["is_fraud;score_old;score_new;channel"]
    for i in range(10):
        semi.append(f"{1 if i % 3 == 0 else 0};0,{i};{(9 - i) / 10};{'app' if i % 2 else 'web'}")
    add(
        "semicolon_decimal_comma.csv",
        _csv(semi),
        M,
        ["score_not_numeric"],
        note="semicolon-delimited with decimal commas in score_old",
    )
    add(
        "utf8_bom_missing_label.csv",
        b"\xef\xbb\xbf" + _edited((7, 0, "")).encode(),
        M,
        ["label_missing"],
        rows={"label_missing": [7]},
    )
    add(
        "problem.parquet",
        _parquet(
            {
                "is_fraud": [1, 0, 0, 1, 0],
                "score_old": [0.9, float("inf"), 0.3, 0.7, 0.2],
                "score_new": [0.8, 0.2, 0.4, 0.6, 0.1],
                "weight": [1.0, 1.0, -1.0, 1.0, 1.0],
            }
        ),
        {**M, "weight": "weight"},
        ["score_not_finite", "weight_invalid"],
        rows={"score_not_finite": [3], "weight_invalid": [4]},
    )

    # --- several problems at once ---------------------------------------------------------
    several = _edited(
        (3, 0, ""),  # label missing
        (5, 1, ""),  # score A missing
        (6, 2, "n/a?"),  # score B text
        (7, 6, "-1"),  # negative weight
        (8, 4, "31/31/2025"),  # bad date
        (9, 5, ""),  # group missing
        (10, 2, "inf"),  # score B infinite
        n=20,
    )
    add(
        "several_problems.csv",
        several,
        FULL,
        [
            "label_missing",
            "score_missing",
            "score_not_numeric",
            "score_not_finite",
            "weight_invalid",
            "time_unparseable",
            "group_missing",
        ],
        rows={
            "label_missing": [3],
            "score_missing": [5],
            "score_not_numeric": [6],
            "weight_invalid": [7],
            "time_unparseable": [8],
            "group_missing": [9],
            "score_not_finite": [10],
        },
    )
    return out


def write(directory: Path = BAD) -> list[dict]:
    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for case in cases():
        (directory / case["file"]).write_bytes(case["content"])
        manifest.append({k: v for k, v in case.items() if k != "content"})
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else BAD
    print(f"wrote {len(write(target))} files to {target}")
