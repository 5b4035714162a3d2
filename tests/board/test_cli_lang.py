"""The CLI in Simplified Chinese (issue 15): ``--lang zh-CN`` prints the verdict, its sentence and
the summary in Chinese and lists input problems in Chinese; the JSON keeps its keys and numbers,
only its text fields are in Chinese."""

import json

import pytest

from board.cli import main
from board.services import demo
from board.words import fmt

ARGS = ["--label", "is_fraud", "--score", "old=score_old", "--score", "new=score_new"]
TABLE = ["--tp", "18500", "--fp", "-3200", "--fn", "-22000", "--tn", "120", "--unit", "元"]


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli-lang") / "demo.csv"
    path.write_bytes(demo.demo_csv_bytes())
    return path


def _strip_text(d):
    """The JSON without its text fields (the action's sentences)."""
    d = json.loads(json.dumps(d))
    d.pop("action")
    d["action_detail"].pop("text")
    for c in d["action_detail"]["clauses"]:
        c.pop("text")
    return d


def test_lang_zh_prints_the_verdict_in_chinese_and_keeps_the_json(demo_csv, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("EVALBOARD_LANG", raising=False)
    argv = ["evaluate", "--predictions", str(demo_csv), *ARGS, *TABLE, "--threshold", "new=0.1", "--n-resamples", "200"]
    en_json, zh_json = tmp_path / "en.json", tmp_path / "zh.json"
    assert main([*argv, "--json", str(en_json)]) == 0
    en = capsys.readouterr().out
    assert main([*argv, "--json", str(zh_json), "--lang", "zh-CN"]) == 0
    zh = capsys.readouterr().out
    d_en, d_zh = json.loads(en_json.read_text()), json.loads(zh_json.read_text())
    assert _strip_text(d_en) == _strip_text(d_zh)  # keys and numbers unchanged
    assert d_en["action_detail"]["verdict"] == d_zh["action_detail"]["verdict"]  # codes stay English (an API)
    assert d_zh["action"] != d_en["action"] and d_zh["action"] == d_zh["action_detail"]["text"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in d_zh["action"])
    first = zh.splitlines()[0]
    word = {"roll out": "上线", "keep": "保留", "hold": "暂缓"}[d_en["action_detail"]["verdict"]]
    assert first.startswith(word), first  # the verdict word in Chinese, then its sentence
    assert "每笔决策" in first
    assert not any(w in first for w in ("ROLL OUT", "KEEP", "HOLD", "per decision"))
    assert "  - 因为" in zh and "数据：" in zh
    # the same numbers as the English summary, through the one formatter (Chinese unit: no space)
    new = d_en["models"]["new"]
    assert fmt.money(new["at_threshold"]["ev"], "元", signed=True) in zh
    assert fmt.money(new["at_threshold"]["ev"], "元", signed=True) in en
    assert en.splitlines()[0].split(" ")[0] in ("ROLL", "KEEP", "HOLD")


def test_lang_from_evalboard_lang(demo_csv, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EVALBOARD_LANG", "zh")
    out = tmp_path / "b.json"
    argv = ["evaluate", "--predictions", str(demo_csv), *ARGS, *TABLE, "--n-resamples", "0", "--json", str(out)]
    assert main(argv) == 0
    assert "数据：" in capsys.readouterr().out
    assert main([*argv, "--lang", "en"]) == 0  # --lang wins over the deployment's default
    assert "Data:" in capsys.readouterr().out


def test_problems_in_chinese(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("EVALBOARD_LANG", raising=False)
    bad = tmp_path / "bad.csv"
    bad.write_text("y,s\n1,0.5\n0,0.1\n1,0.2\n")
    argv = ["validate", "--predictions", str(bad), "--label", "y", "--score", "a=s", "--time", "nope", "--lang", "zh-CN"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "发现 1 个问题："
    assert "文件中没有时间列 'nope'" in err  # the column the user named, inside the Chinese sentence


def test_unknown_lang_is_refused(demo_csv, capsys):
    with pytest.raises(SystemExit) as e:
        main(["validate", "--predictions", str(demo_csv), *ARGS, "--lang", "fr"])
    assert e.value.code == 2
