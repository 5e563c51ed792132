"""The home page's tic-tac-toe fields: who holds X and who holds O."""

from typing import Any

from django import forms

from ..forms import RATED_LABEL, CreateRoomForm
from . import rules

SEAT_CHOICES = [(player, label) for player, label in rules.PLAYER_LABELS.items()]


class CreateTicTacToeRoomForm(CreateRoomForm):
    """X and O are each a person or a computer; the creator takes the first person's seat."""

    x = forms.ChoiceField(choices=SEAT_CHOICES, initial="human", label="X (moves first)")
    o = forms.ChoiceField(choices=SEAT_CHOICES, initial="perfect", label="O")
    rated = forms.BooleanField(required=False, initial=False, label=RATED_LABEL)

    def people(self) -> int:
        """How many of the chosen players are people (which hint the fields show)."""
        return sum(self[name].value() == rules.HUMAN for name in ("x", "o"))

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        return rules.validate_settings(data["x"], data["o"], data["rated"])
