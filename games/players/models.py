"""What an account adds to Django's `User`: the looks of its username (so no one can sign up
as a look-alike) and its API tokens. The seat a signed-in person takes points at the `User`
itself (`games.store.models.Player.account`)."""

from django.conf import settings
from django.db import models


class NameLook(models.Model):
    """One skeleton of a username (`games.rooms.nicknames.looks`: as written and in small letters).
    Unique, so two sign-ups at once of `Ana` and `ANA` (or `l1ly` and `I1ly`) cannot both
    succeed: the database refuses the second, whoever checked first."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    look = models.CharField(max_length=80, unique=True)

    def __str__(self) -> str:
        return f"{self.look} ({self.user_id})"


class ApiToken(models.Model):
    """A personal token for the API (`Authorization: Bearer`): only its SHA-256 is kept, so a
    copy of the database seats no one; `hint` (its first characters) tells them apart on the
    account page."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    digest = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"token {self.hint}… of {self.user_id}"


class Profile(models.Model):
    """What an account is beyond Django's `User`: for now only whether it is a bot account.
    Made when first needed (`accounts.mark_bot`), so an account without one is a person's.
    A bot account is shown as one (rosters, its profile, the API) and rated on its own list on
    the leaderboard, so people are not ranked against programs (docs/contracts.md)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="profile"
    )
    bot = models.BooleanField(
        default=False, help_text="A bot account, marked by staff: shown and rated as a bot."
    )

    class Meta:
        indexes = [
            models.Index(fields=["bot"], condition=models.Q(bot=True), name="bot_accounts"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}{' (bot)' if self.bot else ''}"
