"""The home page's Minesweeper fields: a preset or a custom size, validated by the rules."""

from typing import Any

from django import forms

from ..forms import CreateRoomForm
from . import rules

PRESET_CHOICES = [
    ("beginner", "Beginner · 9×9 · 10 mines"),
    ("intermediate", "Intermediate · 16×16 · 40 mines"),
    ("expert", "Expert · 30×16 · 99 mines"),
    ("custom", "Custom"),
]


class CreateMinesweeperRoomForm(CreateRoomForm):
    preset = forms.ChoiceField(choices=PRESET_CHOICES, initial="beginner", widget=forms.RadioSelect)
    width = forms.IntegerField(required=False, initial=20)
    height = forms.IntegerField(required=False, initial=12)
    mines = forms.IntegerField(required=False, initial=40)
    no_guess = forms.BooleanField(required=False, label="No guessing: always solvable by logic")

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        size = rules.PRESETS.get(data["preset"]) or {
            key: data.get(key) for key in ("width", "height", "mines")
        }
        return rules.validate_settings(
            size["width"], size["height"], size["mines"], data["no_guess"]
        )
