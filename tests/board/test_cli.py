"""The CLI end to end: exit codes, every problem listed, JSON numbers equal independent computations."""

import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from board.cli import main
from board.services import demo


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "demo.csv"
    path.write_bytes(demo.demo_csv_bytes())
    return path


ARGS = ["--label", "is_fraud", "--score", "old=score_old", "--score", "new=score_new", "--segment", "customer_type"]
TABLE = ["--tp", "18500", "--fp", "-3200", "--fn", "-22000", "--tn", "120", "--unit", "EUR"]


def test_validate_prints_summary(demo_csv, capsys):
    assert main(["validate", "--predictions", str(demo_csv), *ARGS]) == 0
    out = json.loads(capsys.readouterr().out)
    f = demo.demo_frame()
    assert out["rows"] == len(f) and out["positives"] == int(f.is_fraud.sum())


def test_validate_bad_file_lists_all_problems_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("y,s\n1,0.5\n0,abc\n3,0.2\n")
    assert main(["validate", "--predictions", str(bad), "--label", "y", "--score", "a=s", "--time", "nope"]) == 2
    err = capsys.readouterr().err
    assert "problems found" in err
    assert "nope" in err and "abc" in err  # the missing time column and the text score, together


def test_evaluate_lists_data_and_table_problems_together(demo_csv, capsys):
    assert main(["evaluate", "--predictions", str(demo_csv), "--label", "is_fraud", "--score", "a=missing", "--tp", "1"]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "--fp" in err


def test_bad_arguments_exit_2_without_traceback(demo_csv):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "board",
            "evaluate",
            "--predictions",
            str(demo_csv),
            "--label",
            "is_fraud",
            "--score",
            "no-equals-sign",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "NAME=VALUE" in r.stderr


def test_evaluate_json_numbers_match_direct_computation(demo_csv, tmp_path):
    out = tmp_path / "board.json"
    assert (
        main(
            [
                "evaluate",
                "--predictions",
                str(demo_csv),
                *ARGS,
                *TABLE,
                "--threshold",
                "new=0.1",
                "--n-resamples",
                "200",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    d = json.loads(out.read_text())
    f = demo.demo_frame()
    y = f.is_fraud.to_numpy()
    for name, col, t in (("new", "score_new", 0.1), ("old", "score_old", 0.5)):
        s = f[col].to_numpy()
        act = s >= t
        tp, fp = np.sum(act & (y == 1)), np.sum(act & (y == 0))
        fn, tn = np.sum(~act & (y == 1)), np.sum(~act & (y == 0))
        at = d["models"][name]["at_threshold"]
        assert (at["tp"], at["fp"], at["fn"], at["tn"]) == (tp, fp, fn, tn)
        ev = (18500 * tp - 3200 * fp - 22000 * fn + 120 * tn) / len(y)
        assert at["ev"] == pytest.approx(ev, rel=1e-12)
        assert d["models"][name]["auc"] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
        seg = d["models"][name]["segments"]["customer_type"]
        for level in ("new", "returning"):
            m = f.customer_type.to_numpy() == level
            a, yy = act[m], y[m]
            ev_l = (
                18500 * np.sum(a & (yy == 1))
                - 3200 * np.sum(a & (yy == 0))
                - 22000 * np.sum(~a & (yy == 1))
                + 120 * np.sum(~a & (yy == 0))
            ) / m.sum()
            assert seg[level]["n"] == m.sum() and seg[level]["ev"] == pytest.approx(ev_l, rel=1e-12)
    for key in ("n", "n_pos", "value_table", "models"):
        assert key in d
    assert set(d["models"]["new"]["curve"]) >= {"t_opt", "t_opt_interval", "ev_opt", "flatness", "sharpness"}


def test_evaluate_keeps_freed_memory_for_reuse_on_glibc():
    """issue 18: the board's arrays are reused from the heap, not faulted in from the kernel again
    each time (mallopt accepted every setting); elsewhere nothing is changed."""
    import platform

    from board.cli import _keep_freed_memory

    if platform.libc_ver()[0] != "glibc":
        assert _keep_freed_memory() is False
        return

    def faults(setup: str) -> list[str]:
        """(what setup printed, page faults of 50 rounds of three 16-MB arrays freed together:
        past glibc's own trim threshold) in a fresh interpreter."""
        code = (
            "import resource, numpy as np\n"
            "from board.cli import _keep_freed_memory\n"
            f"ok = {setup}\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
            "for _ in range(50):\n"
            "    a, b, c = np.ones(2_000_000), np.ones(2_000_000), np.ones(2_000_000); del a, b, c\n"
            "print(ok, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n"
        )
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()

    tuned, plain = faults("_keep_freed_memory()"), faults("None")
    assert tuned[0] == "True"
    # without: the 48 MB go back to the kernel and fault in again each time (about 73,000 faults);
    # with: faulted in once (about 1,500)
    assert int(tuned[1]) * 10 < int(plain[1]), (tuned, plain)
