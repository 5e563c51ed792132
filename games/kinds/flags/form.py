"""The home page's Flags fields: who holds X and O, the mine count and the turn timer."""

from typing import Any

from django import forms

from ..forms import RATED_LABEL, CreateRoomForm
from . import rules

SEAT_CHOICES = list(rules.PLAYER_LABELS.items())
TIMER_CHOICES = [(str(s), f"{s} seconds" if s else "No timer") for s in rules.TURN_SECONDS]


class CreateFlagsRoomForm(CreateRoomForm):
    """X and O are each a person or a computer; the creator takes the first person's seat."""

    x = forms.ChoiceField(choices=SEAT_CHOICES, initial="human", label="X (moves first)")
    o = forms.ChoiceField(choices=SEAT_CHOICES, initial="strong", label="O")
    mines = forms.IntegerField(
        required=False,
        initial=rules.STANDARD_MINES,
        label="Mines (odd)",
        error_messages={"invalid": "Mines must be a whole number."},
    )
    turn_seconds = forms.TypedChoiceField(
        choices=TIMER_CHOICES, coerce=int, initial="0", required=False, label="Turn timer"
    )
    rated = forms.BooleanField(required=False, initial=False, label=RATED_LABEL)

    def people(self) -> int:
        """How many of the chosen players are people (which hint the fields show)."""
        return sum(self[name].value() == rules.HUMAN for name in ("x", "o"))

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        mines = data.get("mines")
        return rules.validate_settings(
            data["x"],
            data["o"],
            rules.STANDARD_MINES if mines is None else mines,
            data.get("turn_seconds") or 0,
            data["rated"],
        )
