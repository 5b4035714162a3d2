"""A drift light's reason (evalcore.drift, English) in the reader's language
(:mod:`board.words.patterns`); a reason no template matches stays English. Pure."""

from __future__ import annotations

from board.words.i18n import N_, is_chinese, t
from board.words.patterns import Templates

__all__ = ["light_reason", "version_label"]

_PARTS = Templates(
    [
        N_("threshold {red}"),
        N_("thresholds {yellow}/{red}"),
        N_("in the last {n} daily windows"),
        N_("in the last {n} windows"),
        N_("in the latest window"),
        N_("band {low}–{high}"),
    ]
)


def _part(name: str, value: str, locale: str) -> str:
    if name in ("thr", "where", "band"):
        return _PARTS.say(value, locale)
    if name == "reason":
        return light_reason(value, locale)
    if name == "color":
        return t(value, locale)
    return value


_REASONS = Templates(
    [
        N_("No feature columns mapped."),
        N_("No label column."),
        N_("No probabilities (raw scores need recalibration first)."),
        N_("No current window yet."),
        N_("No current window yet: the data span is shorter than reference + one window."),
        N_("No feature drift in the latest window (largest: {reason})"),
        N_("{reason} (+{n} more {color})"),
        N_(
            "{model}: O/E {oe} in the latest window vs {roe} reference (ratio {ratio}, {level} CI {lo}–{hi}), within "
            "{band}; ECE {ece} vs {rece}"
        ),
        N_(
            "{model}: O/E ratio to reference {ratios} {where} (red needs {k}), outside {band} (latest O/E {oe} vs "
            "{roe}, {level} CI {lo}–{hi}); ECE {ece} vs {rece}"
        ),
        N_(
            "{model}: O/E ratio to reference {ratios} {where}, outside {band} (latest O/E {oe} vs {roe}, {level} CI "
            "{lo}–{hi}); ECE {ece} vs {rece}"
        ),
        N_(
            "{model}: Too few rows: expected positives {e} in the latest window, {re} in the reference (need {min}), "
            "reference positives {ro}."
        ),
        N_("{model}: No current window yet."),
        N_("{name}: no current window"),
        N_("{name}: too few rows — latest window {n} rows, {stat} {value} below its noise floor {floor}, which is above {thr}"),
        N_("{name}: too few rows — {stat} undefined in the latest window ({n} rows)"),
        N_("{name}: {stat} {values} {where} (red needs {k}), {thr}"),
        N_("{name}: {stat} {values} {where}, {thr}"),
        N_("Too few rows: latest window {n} rows, reference {ref} rows (expected count below {min})."),
        N_("Positive rate {rate} in the latest window vs {ref} reference (p = {p})"),
        N_("Positive rate {rates} {where} (red needs {k}) vs {ref} reference, two-proportion test p < {alpha}"),
        N_("Positive rate {rates} {where} vs {ref} reference, two-proportion test p < {alpha}"),
        N_(
            "Positive rate {rates} {where} (red needs {k}) vs {ref} reference, two-proportion test p < {alpha} — no "
            "feature drift: possible label-definition change"
        ),
        N_(
            "Positive rate {rates} {where} vs {ref} reference, two-proportion test p < {alpha} — no feature drift: "
            "possible label-definition change"
        ),
        N_(
            "Too few rows: expected positives {e} in the latest window, {re} in the reference (need {min}), reference "
            "positives {ro}."
        ),
        N_(
            "O/E {oe} in the latest window vs {roe} reference (ratio {ratio}, {level} CI {lo}–{hi}), within {band}; ECE {ece} vs {rece}"
        ),
        N_(
            "O/E ratio to reference {ratios} {where} (red needs {k}), outside {band} (latest O/E {oe} vs {roe}, "
            "{level} CI {lo}–{hi}); ECE {ece} vs {rece}"
        ),
        N_(
            "O/E ratio to reference {ratios} {where}, outside {band} (latest O/E {oe} vs {roe}, {level} CI "
            "{lo}–{hi}); ECE {ece} vs {rece}"
        ),
    ],
    values=_part,
)


def light_reason(reason, locale: str) -> str:
    """A light's reason in ``locale``."""
    text = str(reason or "")
    if not is_chinese(locale):
        return text
    found = _REASONS.params(text)
    if found is None:
        return text
    tpl, kw = found
    return t(tpl, locale, **{k: _part(k, v, locale) for k, v in kw.items()})


_VERSION = Templates(
    [
        N_("{label} (approved)"),
        N_("draft r{n} (not approved)"),
        N_("{label} (pending, not approved)"),
        N_("{label} (rejected, not approved)"),
        N_("{label} (superseded, not approved)"),
        N_("{label} ({status}, not approved)"),
        N_("unsaved edits (not approved)"),
        N_("{label} (not approved)"),
    ]
)


def version_label(label, locale: str) -> str:
    """A value-table version label of ``board.services.table_version`` ("draft r3 (not approved)")
    in ``locale``; the version's own name is kept."""
    return _VERSION.say(str(label or ""), locale)
