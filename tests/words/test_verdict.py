"""The plain verdict (issue 14 item 1) on boards computed by the real engine: the word follows the
rules' decision, the sentence has at most 25 words and no statistics, the tiles never contradict
the verdict, a bootstrap share is never "100%"."""

import re

import numpy as np
import pandas as pd
import pytest

from board.words import fmt
from board.words.verdict import baseline_ev, plain_verdict
from evalcore import ColumnMapping, ValueTable, validate
from evalcore.board import BoardConfig, evaluate

TABLE = ValueTable.from_dict({"name": "t", "tp": 100.0, "fp": -20.0, "fn": -100.0, "tn": 0.0, "unit": "EUR"})
STATISTICS = re.compile(r"\b(CI|KS|O/E|p\s*[<=]|P\()")


def _frame(seed: int, *, gap: float, n: int = 4000) -> pd.DataFrame:
    """Two models on the same rows; B separates the classes better by ``gap`` (0: equally good)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(int)
    noise = rng.normal(0, 1, (2, n))
    a = 1 / (1 + np.exp(-(1.0 * (2 * y - 1) + noise[0])))
    b = 1 / (1 + np.exp(-((1.0 + gap) * (2 * y - 1) + noise[1])))
    seg = np.where(rng.random(n) < 0.5, "north", "south")
    return pd.DataFrame({"y": y, "a": a, "b": b, "region": seg})


def _board(frame, scores=("a", "b"), **config):
    mapping = ColumnMapping(label="y", scores={s: s for s in scores}, segments=["region"], positive="1")
    return evaluate(validate(frame, mapping), TABLE, BoardConfig(n_resamples=300, seed=1, **config))


def _plain(v):
    assert len(v.sentence.split()) <= 25, v.sentence
    assert not STATISTICS.search(v.sentence), v.sentence
    assert 1 <= len(v.because) <= 3
    assert "100%" not in " ".join([v.sentence, *(b.text for b in v.because), *(t.note for t in v.tiles)])


def test_a_clear_win_says_roll_out_b():
    r = _board(_frame(0, gap=1.5))
    assert r.action.verdict == "roll out" and r.comparison.diff.low > 0  # the rules' decision: B's CI above 0
    v = plain_verdict(r)
    _plain(v)
    assert (v.kind, v.word) == ("roll out", "ROLL OUT b")
    assert v.at == f"at threshold {fmt.score(r.comparison.threshold_b)}"
    gain = v.tiles[-1]
    assert not gain.muted and gain.value == fmt.money(r.comparison.diff.estimate, "EUR", signed=True, compact=True)
    # every replicate favoured B: the share is shown as "> 99.9%", never as certainty
    assert r.comparison.p_b_better == 1.0 and "> 99.9%" in gain.note


def test_no_reliable_difference_keeps_a_and_greys_the_gain():
    r = _board(_frame(1, gap=0.0))
    assert r.comparison.diff.low < 0 < r.comparison.diff.high
    v = plain_verdict(r)
    _plain(v)
    assert (v.kind, v.word) == ("keep", "KEEP a")
    assert v.tiles[-1].muted and v.tiles[-1].note == "not a reliable difference"


def test_a_red_drift_light_holds_and_the_uplift_is_not_actionable():
    from board.services import demo

    r = evaluate(
        validate(demo.demo_frame(), ColumnMapping.from_dict(demo.DEMO_MAPPING)),
        ValueTable.from_dict(demo.DEMO_VALUE_TABLE),
        BoardConfig(n_resamples=200, seed=0),
    )
    assert r.drift.any_red
    v = plain_verdict(r)
    _plain(v)
    assert (v.kind, v.word, v.at) == ("hold", "HOLD", "")
    assert v.tiles[-1].muted and v.tiles[-1].note == "not actionable: drift"
    assert v.because[0].page == "drift"
    # the heatmap is told the segment column the bullets talk about
    seg = next(c for c in r.action.clauses if c.rule == "worst_segment")
    assert v.segment_column == seg.facts["segment"].column
    assert any(seg.facts["segment"].column in b.text for b in v.because)


def test_one_model_is_priced_against_acting_on_no_one():
    r = _board(_frame(2, gap=0.0), scores=("a",))
    v = plain_verdict(r)
    _plain(v)
    m = r.models["a"]
    # acting on no one: every positive is a missed case (FN), every negative a TN
    prevalence = r.n_pos / r.n
    assert baseline_ev(m) == pytest.approx(prevalence * -100.0 + (1 - prevalence) * 0.0)
    assert v.kind == "single" and v.word == "a"
    assert fmt.money(m.ev - baseline_ev(m), "EUR", signed=True) in v.sentence


def test_small_evidence_is_said():
    """300 rows at 5% positives: about 15 positive cases, under the limit of 50 (issue 14 item 2)."""
    frame = _frame(3, gap=0.5, n=300)
    rng = np.random.default_rng(3)
    frame["y"] = (rng.random(300) < 0.05).astype(int)
    r = _board(frame)
    n_pos = int(frame["y"].sum())
    assert r.small_evidence.approximate and r.small_evidence.positives == n_pos  # rows: every row weighs 1
    v = plain_verdict(r)
    assert f"only {n_pos} positive cases (under 50)" in v.caveat
    assert v.caveat.endswith("The intervals are approximate.")
    big = plain_verdict(_board(_frame(4, gap=0.5)))  # 4,000 rows, ~800 positives
    assert big.caveat == ""


def test_the_loss_lens_shows_the_same_numbers_as_losses():
    """Under the loss lens every money figure is the negative of the value figure (positive = money
    lost), intervals swap ends, and the decision does not change (issue 14 item 8)."""
    from board.words.lens import Lens

    r = _board(_frame(0, gap=1.5))
    value, loss = plain_verdict(r), plain_verdict(r, lens=Lens("loss"))
    assert (loss.kind, loss.word, loss.at) == (value.kind, value.word, value.at)
    m = r.models["a"]
    assert loss.tiles[0].label == f"a at {fmt.score(m.threshold)}: expected loss per decision"
    assert loss.tiles[0].value == fmt.money(-m.ev, "EUR", compact=True)
    assert loss.tiles[-1].label == "b vs a: change in loss per decision"
    assert loss.tiles[-1].value == fmt.money(-r.comparison.diff.estimate, "EUR", signed=True, compact=True)
    d = r.comparison.diff
    lo, hi = fmt.money(-d.high, "EUR", signed=True), fmt.money(-d.low, "EUR", signed=True)
    assert f"{lo} to {hi}" in loss.tiles[-1].help  # (−high, −low): the loss interval
    assert "loses about" in loss.sentence and "less per decision" in loss.sentence
