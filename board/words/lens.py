"""Loss or value, as the reader thinks (issue 14 item 8).

The engine computes expected **value** per decision (gains positive; SPEC's sign convention).
Risk teams think in expected **loss** per decision (positive = money lost) and a
threshold–loss curve. A :class:`Lens` shows the same numbers either way: ``lens.amount(ev)``
is the number to display, ``lens.interval(low, high)`` its interval (ends swapped under loss),
and the words name the quantity and its baseline ("compared with acting on no one").
Optima do not change: the threshold that maximises value minimises loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from board.words.i18n import t

__all__ = ["DISPLAYS", "Lens", "lens_for"]

DISPLAYS = ("value", "loss")


@dataclass(frozen=True, slots=True)
class Lens:
    display: str = "value"  # "value" | "loss"
    locale: str = "en"

    def __post_init__(self):
        if self.display not in DISPLAYS:
            raise ValueError(f"display must be one of {DISPLAYS}, got {self.display!r}")

    @property
    def loss(self) -> bool:
        return self.display == "loss"

    @property
    def sign(self) -> int:
        """+1 for value, −1 for loss: displayed = sign × value."""
        return -1 if self.loss else 1

    def amount(self, ev):
        """A value-per-decision figure as displayed (None/NaN stay undefined)."""
        if ev is None or (isinstance(ev, float) and math.isnan(ev)):
            return ev
        return self.sign * ev

    def interval(self, low, high) -> tuple:
        """An interval of value as displayed: under loss the ends swap (−high, −low)."""
        if self.loss:
            return self.amount(high), self.amount(low)
        return low, high

    @property
    def quantity(self) -> str:
        """The quantity's name: "value per decision" / "expected loss per decision"."""
        return t("expected loss per decision", self.locale) if self.loss else t("value per decision", self.locale)

    @property
    def Quantity(self) -> str:  # noqa: N802 - the capitalised form for titles and labels
        q = self.quantity
        return q[:1].upper() + q[1:]

    @property
    def convention(self) -> str:
        """The sign convention in words, for axis titles and tooltips."""
        return t("positive = money lost", self.locale) if self.loss else t("gains positive", self.locale)

    @property
    def series(self) -> str:
        """What a threshold curve plots, as its legend names it: "EV(t)" / "expected loss"."""
        return t("expected loss", self.locale) if self.loss else "EV(t)"

    @property
    def curve(self) -> str:
        return t("threshold–loss curve", self.locale) if self.loss else t("threshold–value curve", self.locale)

    def better(self, diff_value) -> bool:
        """Whether a difference in value is an improvement (the same under either lens)."""
        return diff_value > 0


def lens_for(table_display: str | None, user_display: str | None = None, *, locale: str = "en") -> Lens:
    """The lens a user sees: their own choice if they made one, else the value table's, else value."""
    display = user_display or table_display or "value"
    return Lens(display if display in DISPLAYS else "value", locale)
