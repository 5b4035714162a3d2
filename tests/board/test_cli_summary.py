"""The CLI's text output (issue 14 item 5): with --json OUT the terminal gets a plain summary whose
numbers are the one formatter's; the JSON keeps the raw numbers; without --json stdout stays JSON."""

import json
import re

import pytest

from board.cli import main
from board.services import demo
from board.words import fmt

ARGS = ["--label", "is_fraud", "--score", "old=score_old", "--score", "new=score_new"]
TABLE = ["--tp", "18500", "--fp", "-3200", "--fn", "-22000", "--tn", "120", "--unit", "EUR"]


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli-summary") / "demo.csv"
    path.write_bytes(demo.demo_csv_bytes())
    return path


def test_summary_numbers_are_the_formatter_s_and_the_json_stays_raw(demo_csv, tmp_path, capsys):
    out = tmp_path / "board.json"
    argv = ["evaluate", "--predictions", str(demo_csv), *ARGS, *TABLE, "--threshold", "new=0.1", "--n-resamples", "200"]
    assert main([*argv, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    d = json.loads(out.read_text())
    new, old = d["models"]["new"], d["models"]["old"]
    assert isinstance(new["at_threshold"]["ev"], float)  # the JSON: raw numbers, full precision
    lines = text.splitlines()
    line = next(ln for ln in lines if ln.startswith("new at threshold"))
    ev_ci = new["at_threshold"]["ev_ci"]
    assert line.startswith(
        f"new at threshold {fmt.score(0.1)}: {fmt.money(new['at_threshold']['ev'], 'EUR', signed=True)} value per decision"
    )
    assert f"95% interval {fmt.money(ev_ci[0], 'EUR', signed=True)} to {fmt.money(ev_ci[1], 'EUR', signed=True)}" in line
    assert f"best threshold {fmt.score(new['curve']['t_opt'])}" in line and f"AUC {fmt.number(new['auc'])}" in line
    assert any(
        ln.startswith(f"old at threshold {fmt.score(0.5)}: {fmt.money(old['at_threshold']['ev'], 'EUR', signed=True)}")
        for ln in lines
    )
    comp = next(ln for ln in lines if ln.startswith("new − old:"))
    assert comp.startswith(f"new − old: {fmt.money(d['comparison']['diff_ev'], 'EUR', signed=True)} value per decision")
    assert f"Data: {fmt.count(d['n_rows'])} decisions" in text
    # what a person reads: no raw float, no scientific notation, no NaN
    assert not re.search(r"\d\.0*[1-9]\d{4,}", text), text
    assert not re.search(r"\d(?:\.\d+)?[eE][+-]?\d+", text) and "nan" not in text.lower()
    assert text.rstrip().endswith(f"The board (raw numbers) is in {out}.")


def test_without_json_file_stdout_is_only_the_json(demo_csv, capsys):
    assert main(["evaluate", "--predictions", str(demo_csv), *ARGS, *TABLE, "--n-resamples", "50"]) == 0
    d = json.loads(capsys.readouterr().out)  # nothing but the JSON: pipelines keep parsing it
    assert set(d["models"]) == {"old", "new"}


def test_summary_of_one_model(demo_csv, tmp_path, capsys):
    out = tmp_path / "one.json"
    argv = ["evaluate", "--predictions", str(demo_csv), "--label", "is_fraud", "--score", "new=score_new", *TABLE]
    assert main([*argv, "--n-resamples", "50", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    d = json.loads(out.read_text())
    assert text.splitlines()[0].startswith("new at threshold")  # the verdict of a single model names it
    assert f"{fmt.money(d['models']['new']['at_threshold']['ev'], 'EUR', signed=True)} value per decision" in text
    assert " − " not in text  # no comparison line


def test_the_summary_and_the_html_as_expected_loss(demo_csv, tmp_path, capsys):
    """--display loss (issue 14 item 8): the summary and the HTML show expected loss (the negative
    of the JSON's value; interval ends swapped); the JSON keeps expected value."""
    out, page = tmp_path / "board.json", tmp_path / "board.html"
    argv = ["evaluate", "--predictions", str(demo_csv), *ARGS, *TABLE, "--n-resamples", "200", "--display", "loss"]
    assert main([*argv, "--json", str(out), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    new = json.loads(out.read_text())["models"]["new"]["at_threshold"]
    line = next(ln for ln in text.splitlines() if ln.startswith("new at threshold"))
    assert f"{fmt.money(-new['ev'], 'EUR', signed=True)} expected loss per decision" in line
    lo, hi = -new["ev_ci"][1], -new["ev_ci"][0]
    assert f"interval {fmt.money(lo, 'EUR', signed=True)} to {fmt.money(hi, 'EUR', signed=True)}" in line
    assert "expected loss per decision" in page.read_text(encoding="utf-8")
