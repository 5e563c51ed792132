"""Forms of the pages themselves; each game kind's create form lives with the kind."""

from django import forms

from ..store.models import MAX_NICKNAME


class NicknameForm(forms.Form):
    nickname = forms.CharField(max_length=MAX_NICKNAME, strip=True)
