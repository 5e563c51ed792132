"""The home page's race fields: Minesweeper's board choice (preset or custom, no-guess on by
default) and the race's own options, validated by the rules."""

from typing import Any

from django import forms

from ..forms import RATED_LABEL, CreateRoomForm
from . import rules

PRESET_CHOICES = [
    ("beginner", "Beginner · 9×9 · 10 mines"),
    ("intermediate", "Intermediate · 16×16 · 40 mines"),
    ("expert", "Expert · 30×16 · 99 mines"),
    ("custom", "Custom"),
]
PENALTY_CHOICES = [(str(s), f"Frozen {s} s") for s in rules.PENALTIES if s] + [
    ("out", "Out of the race")
]
TIME_LIMIT_CHOICES = [("0", "None")] + [(str(s), f"{s // 60} min") for s in rules.TIME_LIMITS if s]
DELAY_CHOICES = [("0", "Live (friends could coach)")] + [
    (str(s), f"{s} s late") for s in rules.DELAYS if s
]
PACE_CHOICES = [(str(p), f"{p} cell{'s' if p != 1 else ''}/s") for p in rules.PACES]
SIZE_FIELDS = ("width", "height", "mines")


class CreateRaceForm(CreateRoomForm):
    mode = forms.CharField(required=False)
    preset = forms.ChoiceField(choices=PRESET_CHOICES, initial="beginner", widget=forms.RadioSelect)
    width = forms.IntegerField(required=False, initial=20)
    height = forms.IntegerField(required=False, initial=12)
    mines = forms.IntegerField(required=False, initial=40)
    no_guess = forms.BooleanField(
        required=False, initial=True, label="No guessing: always solvable by logic"
    )
    penalty = forms.ChoiceField(choices=PENALTY_CHOICES, initial="5", label="Mine hit")
    time_limit = forms.ChoiceField(choices=TIME_LIMIT_CHOICES, initial="0", label="Time limit")
    spectator_delay = forms.ChoiceField(choices=DELAY_CHOICES, initial="3", label="Spectators")
    bot_pace = forms.ChoiceField(choices=PACE_CHOICES, initial="2", label="Solver bot")
    rated = forms.BooleanField(required=False, initial=False, label=RATED_LABEL)

    def clean(self) -> dict[str, Any]:
        if self.cleaned_data.get("preset", "custom") != "custom":
            for name in SIZE_FIELDS:  # hidden on the page: a leftover there must not stop it
                self.errors.pop(name, None)
        return super().clean()

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        size: dict[str, Any] = rules.PRESETS.get(data["preset"]) or {
            key: data.get(key) for key in SIZE_FIELDS
        }
        self.refuse_each(rules.size_faults(size["width"], size["height"], size["mines"]))
        out = data["penalty"] == "out"
        return rules.validate_settings(
            size["width"],
            size["height"],
            size["mines"],
            data["no_guess"],
            penalty=5 if out else int(data["penalty"]),
            eliminate=out,
            time_limit=int(data["time_limit"]),
            spectator_delay=int(data["spectator_delay"]),
            bot_pace=int(data["bot_pace"]),
            rated=data["rated"],
        )
