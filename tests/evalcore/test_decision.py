"""The action rules on constructed results (SPEC §3.9), including conflicting signals."""

import math

import pytest

from evalcore.decision import (
    MIN_SEGMENT_ROWS,
    SHARP_LIMIT,
    DecisionInputs,
    SegmentValue,
    action,
    rule_comparison,
    rule_red_lights,
    rule_sharp_curve,
    rule_worst_segment,
)


def inputs(**kw):
    base = dict(
        models=("A", "B"),
        thresholds={"A": 0.5, "B": 0.78},
        ev={"A": (1.0, 0.5, 1.5), "B": (2.45, 2.0, 2.9)},
        diff=(1.45, 0.30, 2.60),
        p_b_better=0.99,
        unit="EUR",
        sharpness={"A": (0.02, 0.02, 0.5, (0.4, 0.6)), "B": (0.03, 0.02, 0.78, (0.7, 0.85))},
    )
    base.update(kw)
    return DecisionInputs(**base)


def test_significant_win_rolls_out_b_with_its_numbers():
    a = action(inputs())
    assert a.verdict == "roll out"
    assert a.clauses[0].rule == "significant_win"
    assert a.text.startswith(
        "Roll out model B at threshold 0.78 (value +1.45 EUR per decision vs A at 0.5; "
        "95% CI [+0.30 EUR, +2.60 EUR] excludes 0; P(B better) = 99%)."
    )
    assert a.clauses[0].evidence["comparison.diff_ev_ci"] == [0.30, 2.60]


def test_no_significant_difference_keeps_the_current_model():
    a = action(inputs(diff=(0.4, -0.2, 1.0), p_b_better=0.8))
    assert a.verdict == "keep"
    assert a.clauses[0].rule == "no_significant_difference"
    assert "Keep model A at threshold 0.5" in a.text and "includes 0" in a.text


def test_significant_loss_keeps_a():
    a = action(inputs(diff=(-1.0, -1.5, -0.5), p_b_better=0.0))
    assert a.verdict == "keep"
    assert a.clauses[0].rule == "significant_loss"
    assert "B is worse by 1.00 EUR per decision" in a.text


def test_ci_touching_zero_is_not_a_win():
    # "B is better" is claimed only when the CI excludes 0
    assert rule_comparison(inputs(diff=(1.0, 0.0, 2.0))).rule == "no_significant_difference"


def test_red_light_holds_even_a_significant_win():
    a = action(inputs(red_lights=(("feature", "debt_ratio: KS 0.21, 0.19, 0.24"),)))
    assert a.verdict == "hold"
    assert a.clauses[0].rule == "red_light" and a.clauses[0].text.startswith("Hold:")
    win = next(c for c in a.clauses if c.rule == "significant_win")
    assert win.kind == "info" and "do not roll it out" in win.text
    assert "Roll out" not in a.text


def test_no_red_light_no_hold_clause():
    assert rule_red_lights(inputs(yellow_lights=(("label", "x"),))) is None


def test_sharp_curve_names_the_rollback_threshold():
    inp = inputs(sharpness={"A": (0.02, 0.02, 0.5, (0.4, 0.6)), "B": (0.35, 0.02, 0.78, (0.775, 0.79))})
    a = action(inp)
    sharp = next(c for c in a.clauses if c.rule == "sharp_curve")
    assert "up to 35%" in sharp.text and "roll back to A at threshold 0.5" in sharp.text


def test_flat_curve_says_nothing_about_monitoring():
    assert rule_sharp_curve(inputs(), "B", ("A", 0.5)) is None
    at_limit = inputs(sharpness={"B": (SHARP_LIMIT, 0.02, 0.78, (0.7, 0.8))})
    assert rule_sharp_curve(at_limit, "B", ("A", 0.5)) is None  # strictly above the limit counts as sharp


def test_worst_segment_is_where_the_candidate_loses_most_money():
    segs = {
        "B": (
            SegmentValue(column="night", level="yes", n=5000, ev=-3.0, ev_baseline=-2.0),  # loses 5000 in total
            SegmentValue(column="type", level="new", n=1000, ev=-9.0, ev_baseline=-4.0),  # loses 5000 too… tie broken
            SegmentValue(column="band", level=">10k", n=20000, ev=-1.0, ev_baseline=-0.9),  # loses 2000
            SegmentValue(column="tiny", level="x", n=MIN_SEGMENT_ROWS - 1, ev=-99.0, ev_baseline=0.0),
        )
    }
    c = rule_worst_segment(inputs(segments=segs), "B")
    assert c.rule == "worst_segment"
    assert "night=yes" in c.text or "type=new" in c.text
    assert "tiny" not in c.text  # too small to name
    a = action(inputs(segments=segs))
    assert any(cl.rule == "worst_segment" for cl in a.clauses)


def test_no_segment_named_when_the_candidate_wins_everywhere():
    segs = {"B": (SegmentValue(column="night", level="yes", n=5000, ev=-1.0, ev_baseline=-2.0),)}
    assert rule_worst_segment(inputs(segments=segs), "B") is None


def test_single_model_states_value_and_interval():
    a = action(DecisionInputs(models=("A",), thresholds={"A": 0.3}, ev={"A": (-438.31, -470.0, -410.5)}, unit="EUR"))
    assert a.text == "Model A at threshold 0.3 is worth -438.31 EUR per decision (95% CI [-470.00 EUR, -410.50 EUR])."


def test_single_model_without_bootstrap_says_so_and_its_evidence_is_json_safe():
    """No resamples: the interval is undefined — said in words, and None (not NaN) in the JSON
    (``json.dumps`` with allow_nan=False raised on the CLI's output before)."""
    import json

    a = action(DecisionInputs(models=("A",), thresholds={"A": 0.3}, ev={"A": (-438.31, math.nan, math.nan)}, unit="EUR"))
    assert a.text == "Model A at threshold 0.3 is worth -438.31 EUR per decision (no bootstrap interval)."
    evidence = json.loads(json.dumps(a.clauses[0].to_dict(), allow_nan=False))["evidence"]
    assert evidence["models.A.at_threshold.ev_ci"] == [None, None]


def test_undefined_comparison_says_why():
    a = action(inputs(diff=(math.nan, math.nan, math.nan), diff_undefined="one class in the data"))
    assert a.verdict == "undecided"
    assert "cannot be compared" in a.text and "one class" in a.text


@pytest.mark.parametrize("diff,verdict", [((1, 0.1, 2), "roll out"), ((0, -1, 1), "keep"), ((-1, -2, -0.1), "keep")])
def test_verdict_follows_the_interval(diff, verdict):
    assert action(inputs(diff=diff)).verdict == verdict
