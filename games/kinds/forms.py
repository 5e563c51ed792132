"""What every kind's create form asks (a nickname, public or not); each kind's own form adds its
fields and turns them into validated settings (`settings_from`)."""

from typing import Any

from django import forms

from ..store.models import MAX_NICKNAME
from .table import SettingsError

RATED_LABEL = "Rated: signed-in players only, no computers; the result moves ratings"


class CreateRoomForm(forms.Form):
    """What every create form asks; each game turns its own fields into validated settings."""

    nickname = forms.CharField(max_length=MAX_NICKNAME, strip=True)
    is_public = forms.BooleanField(
        required=False, initial=True, label="Public: listed on the home page for anyone to watch"
    )

    def settings_from(self, data: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def refuse_each(self, faults: list[SettingsError]) -> None:
        """Every fault under its field at once, not only the first (issue 35)."""
        for fault in faults[1:]:
            self.add_error(fault.field, str(fault))
        if faults:
            raise faults[0]  # `clean` shows it under its field, beside the others

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            data["settings"] = self.settings_from(data)
        except SettingsError as error:
            if error.field not in self.fields:
                raise forms.ValidationError(str(error)) from None
            self.add_error(error.field, str(error))  # shown next to the field at fault
        return data
