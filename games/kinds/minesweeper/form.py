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


SIZE_FIELDS = ("width", "height", "mines")
MINES_MESSAGE = "Mines must be a whole number."


class CreateMinesweeperRoomForm(CreateRoomForm):
    preset = forms.ChoiceField(choices=PRESET_CHOICES, initial="beginner", widget=forms.RadioSelect)
    # Not bounded here: `rules.validate_settings` says what fits, as it does for the API.
    width = forms.IntegerField(
        required=False, initial=20, error_messages={"invalid": rules.size_message("width")}
    )
    height = forms.IntegerField(
        required=False, initial=12, error_messages={"invalid": rules.size_message("height")}
    )
    mines = forms.IntegerField(
        required=False, initial=40, error_messages={"invalid": MINES_MESSAGE}
    )
    no_guess = forms.BooleanField(required=False, label="No guessing: always solvable by logic")

    def clean(self) -> dict[str, Any]:
        if self.cleaned_data.get("preset", "custom") != "custom":
            # A preset ignores the custom size, which the page hides: what is left there (say a
            # 9.5 typed before choosing Beginner) must not stop the room with an unseen error.
            for name in SIZE_FIELDS:
                self.errors.pop(name, None)
        return super().clean()

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        size: dict[str, Any] = rules.PRESETS.get(data["preset"]) or {
            key: data.get(key) for key in ("width", "height", "mines")
        }
        self.refuse_each(rules.size_faults(size["width"], size["height"], size["mines"]))
        return rules.validate_settings(
            size["width"], size["height"], size["mines"], data["no_guess"]
        )
