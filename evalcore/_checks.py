"""Validation at the public boundary of evalcore (private: helpers trust their inputs)."""

from __future__ import annotations

import numpy as np

from ._errors import ProblemList


def positive_number(x) -> float:
    """``float(x)`` when x is a positive finite number (not a bool), else NaN: the check
    behind every "must be a positive finite number" problem.

    Examples
    --------
    >>> positive_number(1e-4), positive_number("x"), positive_number(True), positive_number(-1)
    (0.0001, nan, nan, nan)
    """
    if isinstance(x, bool):
        return float("nan")
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    return v if np.isfinite(v) and v > 0 else float("nan")


def check_binary_scores(y_true, y_score, sample_weight=None):
    """Return canonical ``(y_true int8 0/1, y_score float64, weight float64)`` or raise.

    Every problem is collected and raised at once as :class:`InputError`.
    """
    problems = ProblemList()
    y = np.asarray(y_true)
    s = np.asarray(y_score)
    if y.ndim != 1:
        problems.add(
            "y_true_shape", f"y_true must be one-dimensional; got shape {y.shape}.", "Pass one label per row.", column="y_true"
        )
    if s.ndim != 1:
        problems.add(
            "y_score_shape", f"y_score must be one-dimensional; got shape {s.shape}.", "Pass one score per row.", column="y_score"
        )
    problems.raise_if_any()
    if len(y) != len(s):
        problems.add(
            "length_mismatch",
            f"y_true has {len(y)} rows but y_score has {len(s)}.",
            "Pass labels and scores of the same rows.",
            column="y_score",
        )
    if y.dtype == bool:
        y = y.astype(np.int8)
    elif y.dtype.kind in "iuf":
        bad = ~np.isin(y, (0, 1))
        if bad.any():
            problems.add(
                "y_true_not_binary",
                f"y_true must hold only 0 and 1; {int(bad.sum())} values are something else (e.g. {y[bad][:3].tolist()}).",
                "Map the label to 0/1 (the positive class to 1).",
                column="y_true",
                n_rows=int(bad.sum()),
            )
        else:
            y = y.astype(np.int8)
    else:
        problems.add(
            "y_true_dtype",
            f"y_true must be numeric 0/1 or boolean; got dtype {y.dtype}.",
            "Map the label to 0/1.",
            column="y_true",
        )
    if s.dtype.kind not in "iufb":
        problems.add("y_score_dtype", f"y_score must be numeric; got dtype {s.dtype}.", "Pass numeric scores.", column="y_score")
    else:
        s = s.astype(np.float64)
        bad = ~np.isfinite(s)
        if bad.any():
            problems.add(
                "y_score_not_finite",
                f"y_score must be finite; {int(bad.sum())} values are NaN or infinite.",
                "Remove or fix those rows.",
                column="y_score",
                n_rows=int(bad.sum()),
            )
    if sample_weight is None:
        w = np.ones(len(s), dtype=np.float64)
    else:
        w = np.asarray(sample_weight)
        if w.ndim != 1 or len(w) != len(s):
            problems.add(
                "weight_shape",
                f"sample_weight must have one value per row ({len(s)}); got shape {w.shape}.",
                "Pass one weight per row.",
                column="sample_weight",
            )
        elif w.dtype.kind not in "iufb":
            problems.add(
                "weight_dtype",
                f"sample_weight must be numeric; got dtype {w.dtype}.",
                "Pass numeric weights.",
                column="sample_weight",
            )
        else:
            w = w.astype(np.float64)
            bad = ~np.isfinite(w) | (w < 0)
            if bad.any():
                problems.add(
                    "weight_invalid",
                    f"sample_weight must be finite and >= 0; {int(bad.sum())} values are not.",
                    "Fix or remove those weights.",
                    column="sample_weight",
                    n_rows=int(bad.sum()),
                )
    problems.raise_if_any()
    return y, s, w


def _shown(x) -> str:
    """What arrived, said briefly: the value of a number or short string, else its type."""
    if x is None or isinstance(x, (bool, int, float, np.number)) or (isinstance(x, str) and len(x) <= 40):
        return repr(x)
    return type(x).__name__


def as_generator(rng, problems: ProblemList | None = None, *, name: str = "rng") -> np.random.Generator | None:
    """The ``numpy.random.Generator`` behind every ``rng=`` option of evalcore.

    A Generator is used as it is (its state advances); None, a non-negative int or a
    ``SeedSequence`` seeds ``numpy.random.default_rng``. Anything else is the problem
    ``rng_invalid``: added to ``problems`` (and None returned) when given, else raised.

    Examples
    --------
    >>> bool(as_generator(0).integers(10) == np.random.default_rng(0).integers(10))
    True
    >>> as_generator(-1)
    Traceback (most recent call last):
    ...
    evalcore._errors.InputError: rng must be a non-negative int seed, a numpy Generator or None; got -1. Fix: Pass e.g. rng=0 for reproducible draws.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if (
        rng is None
        or isinstance(rng, np.random.SeedSequence)
        or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0)
    ):
        return np.random.default_rng(rng)
    own = ProblemList() if problems is None else problems
    own.add(
        "rng_invalid",
        f"{name} must be a non-negative int seed, a numpy Generator or None; got {_shown(rng)}.",
        f"Pass e.g. {name}=0 for reproducible draws.",
        column=name,
    )
    if problems is None:
        own.raise_if_any()
    return None


def check_level(level, problems: ProblemList, *, name: str = "level") -> float:
    """A confidence level strictly between 0 and 1 (a number, not a bool or text), else the
    problem ``level_invalid``. Returns ``float(level)``, NaN when invalid.

    Examples
    --------
    >>> p = ProblemList(); check_level(0.9, p), check_level(95, p), check_level("x", p)
    (0.9, nan, nan)
    >>> [str(q) for q in p.problems][0]
    'level must be a confidence level strictly between 0 and 1; got 95. Fix: Pass e.g. 0.95 for a 95% interval.'
    """
    number = isinstance(level, (int, float, np.integer, np.floating)) and not isinstance(level, bool)
    v = float(level) if number else float("nan")  # text such as "0.95" too: it would fail later, in arithmetic
    if 0.0 < v < 1.0:
        return v
    problems.add(
        "level_invalid",
        f"{name} must be a confidence level strictly between 0 and 1; got {_shown(level)}.",
        "Pass e.g. 0.95 for a 95% interval.",
        column=name,
    )
    return float("nan")


# The one positive-class rule. (positive, negative) spellings of a two-valued label,
# compared case-insensitively after trimming; a whole number reads as its integer
# (1.0, "1.0", numpy 1 → "1"; True → "true").
BINARY_FAMILIES = (("1", "0"), ("true", "false"), ("yes", "no"), ("y", "n"), ("t", "f"), ("是", "否"))
POSITIVE_SPELLINGS = tuple(pos for pos, _ in BINARY_FAMILIES)


def _label_number(v) -> float | None:
    try:
        f = float(str(v).strip())
    except (TypeError, ValueError, OverflowError):
        return None
    return f if np.isfinite(f) else None


def _label_text(v) -> str:
    f = _label_number(v)
    return str(int(f)) if f is not None and f == int(f) else str(v).strip().lower()


# Words that name the event of a two-valued label (the positive class) when the pair is no known
# family: a value is the event when its text (trimmed, case-insensitive) is one of EVENT_WORDS, or
# holds one of EVENT_STEMS and none of NEGATIONS (逾期 and 已逾期 are events, 未逾期 is not).
EVENT_WORDS = ("是", "违约", "逾期", "欺诈", "坏", "bad", "yes", "true", "y", "t")
EVENT_STEMS = ("违约", "逾期", "欺诈", "坏")
NEGATIONS = ("未", "不", "非", "无", "没", "否", "正常", "好")


def event_word(v) -> str | None:
    """The event word a label value names (see :data:`EVENT_WORDS`), or None; numbers never do
    (1/0 is a family of its own, 1/2 must be chosen)."""
    if _label_number(v) is not None:
        return None
    text = str(v).strip().lower()
    if text in EVENT_WORDS:
        return text
    if any(n in text for n in NEGATIONS):
        return None
    return next((stem for stem in EVENT_STEMS if stem in text), None)


def positive_rule(values) -> tuple[int, str, str] | None:
    """Why the default positive class of two-valued ``values`` is what it is: ``(index, rule,
    word)`` with rule ``"family"`` (a known pair such as 1/0, yes/no, 是/否; word = the positive's
    canonical spelling) or ``"event"`` (exactly one value names the event; word = the event word
    it names), or None when the user must choose.

    Examples
    --------
    >>> positive_rule(["否", "是"]), positive_rule(["正常", "违约"]), positive_rule(["未逾期", "已逾期"])
    ((1, 'family', '是'), (1, 'event', '违约'), (1, 'event', '逾期'))
    >>> positive_rule(["good", "Bad"]), positive_rule(["ok", "fraud"]), positive_rule([1, 2])
    ((1, 'event', 'bad'), None, None)
    """
    values = list(values)
    canon = [_label_text(v) for v in values]
    for pos, neg in BINARY_FAMILIES:
        if sorted(canon) == sorted([pos, neg]):
            return canon.index(pos), "family", pos
    if len(values) != 2 or any(_label_number(v) is not None for v in values):
        return None  # a number beside a word ("yes"/"1") is no pair the user meant: ask
    words = [event_word(v) for v in values]
    hits = [i for i, w in enumerate(words) if w is not None]
    if len(hits) == 1:
        return hits[0], "event", words[hits[0]]
    return None


def positive_index(values, positive=None) -> int | None:
    """Which of a label's distinct ``values`` is the positive class, or None when undecided.

    ``positive`` given (the user's choice): the value equal to it as text, else equal
    ignoring case, else equal as a number ("1.0" picks the label 1) — None when no single
    value matches. ``positive`` None: the positive of a known two-value family
    (:data:`BINARY_FAMILIES`: 1/0, true/false, yes/no, y/n, t/f, 是/否), else the one value
    that names the event (:func:`event_word`: 违约/正常, 逾期/未逾期, 坏/好, bad/good) — None
    for any other pair (e.g. "fraud"/"ok", 1/2), which the user must choose.

    Examples
    --------
    >>> positive_index(["No", "Yes"]), positive_index([1.0, 0.0]), positive_index([False, True])
    (1, 0, 1)
    >>> positive_index(["ok", "fraud"]), positive_index(["ok", "fraud"], "FRAUD"), positive_index([0, 1], "1.0")
    (None, 1, 1)
    """
    texts = [str(v).strip() for v in values]
    if positive is None:
        rule = positive_rule(values)
        return None if rule is None else rule[0]
    p = str(positive).strip()
    num = _label_number(p)
    for same in (lambda v: v == p, lambda v: v.lower() == p.lower(), lambda v: num is not None and _label_number(v) == num):
        hits = [i for i, v in enumerate(texts) if same(v)]
        if len(hits) == 1:
            return hits[0]
    return None
