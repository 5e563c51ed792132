"""The sign-up form: Django's `UserCreationForm` (its field names are the contract: `username`,
`password1`, `password2`; its password validators), with the app's username rules."""

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from . import accounts


class SignupForm(UserCreationForm):
    username = forms.CharField(
        max_length=20,
        help_text=accounts.USERNAME_RULE,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        try:
            accounts.check_username(username)
        except accounts.UsernameError as error:
            raise forms.ValidationError(str(error)) from None
        return username

    def save(self, commit: bool = True) -> Any:
        """The user and its looks, together (`accounts.sign_up`): `UsernameError` when a
        look-alike signed up in the meantime."""
        return accounts.sign_up(self.cleaned_data["username"], self.cleaned_data["password1"])
