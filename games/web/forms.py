"""The home page's create-room form: presets or a custom size, validated by the game's own rules."""

from typing import Any

from django import forms

from ..kinds.minesweeper import rules as minesweeper
from ..kinds.table import SettingsError
from ..kinds.tictactoe import rules as tictactoe
from ..models import MAX_NICKNAME

PRESET_CHOICES = [
    ("beginner", "Beginner · 9×9 · 10 mines"),
    ("intermediate", "Intermediate · 16×16 · 40 mines"),
    ("expert", "Expert · 30×16 · 99 mines"),
    ("custom", "Custom"),
]


class CreateRoomForm(forms.Form):
    """What every create form asks; each game turns its own fields into validated settings."""

    nickname = forms.CharField(max_length=MAX_NICKNAME, strip=True)
    is_public = forms.BooleanField(
        required=False, initial=True, label="Public: listed on the home page for anyone to watch"
    )

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            data["settings"] = self.settings_from(data)
        except SettingsError as error:
            raise forms.ValidationError(str(error)) from None
        return data


class CreateMinesweeperRoomForm(CreateRoomForm):
    preset = forms.ChoiceField(choices=PRESET_CHOICES, initial="beginner", widget=forms.RadioSelect)
    width = forms.IntegerField(required=False, initial=20)
    height = forms.IntegerField(required=False, initial=12)
    mines = forms.IntegerField(required=False, initial=40)
    no_guess = forms.BooleanField(required=False, label="No guessing: always solvable by logic")

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        size = minesweeper.PRESETS.get(data["preset"]) or {
            key: data.get(key) for key in ("width", "height", "mines")
        }
        return minesweeper.validate_settings(
            size["width"], size["height"], size["mines"], data["no_guess"]
        )


SEAT_CHOICES = [
    ("human", "Person"),
    ("random", "Computer (random)"),
    ("perfect", "Computer (perfect)"),
]


class CreateTicTacToeRoomForm(CreateRoomForm):
    """X and O are each a person or a computer; the creator takes the first person's seat."""

    x = forms.ChoiceField(choices=SEAT_CHOICES, initial="human", label="X (moves first)")
    o = forms.ChoiceField(choices=SEAT_CHOICES, initial="perfect", label="O")

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        return tictactoe.validate_settings(data["x"], data["o"])


class NicknameForm(forms.Form):
    nickname = forms.CharField(max_length=MAX_NICKNAME, strip=True)
