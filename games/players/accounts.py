"""Accounts' write path: a username checked, a user made with its looks (all or nothing), API
tokens issued, found and revoked. Limits and figures: docs/operations.md ("Limits")."""

import hashlib
import re
import secrets

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..limits import Limit, Shared
from ..rooms import nicknames
from .models import ApiToken, NameLook, Profile

USERNAME = re.compile(r"[A-Za-z0-9_-]{3,20}")
USERNAME_RULE = "3 to 20 letters (A–Z), digits, '_' or '-'."


class UsernameError(ValueError):
    """A username refused, with the reason for the person who chose it."""


def check_username(username: str) -> None:
    """The shape, the app's own words, and no look-alike (nor the same name in other capitals)
    of a username someone has. The look-alike check is repeated by the database (`NameLook`)
    when the user is made: this one only names the reason sooner."""
    if not USERNAME.fullmatch(username):
        raise UsernameError(f"A username is {USERNAME_RULE}")
    try:
        nicknames.check_reserved(username)
    except nicknames.NicknameError as error:
        raise UsernameError(str(error)) from None
    if NameLook.objects.filter(look__in=nicknames.looks(username)).exists():
        raise UsernameError(taken(username))


def taken(username: str) -> str:
    return f'"{username}" is taken, or looks like a username someone has: choose another.'


@transaction.atomic
def sign_up(username: str, password: str) -> User:
    """A user and its looks together: a look-alike that got in first (`IntegrityError` on a
    look) leaves no user behind (`UsernameError`)."""
    check_username(username)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username, password=password)
            NameLook.objects.bulk_create(
                NameLook(user=user, look=look) for look in nicknames.looks(username)
            )
    except IntegrityError:
        raise UsernameError(taken(username)) from None
    return user


def signups() -> Shared:
    """New accounts per client address and hour (`SIGNUPS_PER_HOUR`), across processes."""
    return Shared(Limit("signups", settings.SIGNUPS_PER_HOUR, 3600))


TOKEN_BYTES = 32
TOKENS_KEPT = 10
"""Tokens one account may hold; past it the oldest is revoked (docs/operations.md, Limits)."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def issue_token(user: User) -> str:
    """A new personal token, shown once: only its digest is kept."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    ApiToken.objects.create(user=user, digest=digest(token), hint=token[:6])
    old = ApiToken.objects.filter(user=user).values_list("pk", flat=True)[TOKENS_KEPT:]
    ApiToken.objects.filter(pk__in=list(old)).delete()
    return token


def user_for_token(token: str) -> User | None:
    """The active account a personal token belongs to, or None."""
    if not token:
        return None
    found = ApiToken.objects.filter(digest=digest(token)).select_related("user").first()
    if found is None or not found.user.is_active:
        return None
    ApiToken.objects.filter(pk=found.pk).update(last_used_at=timezone.now())
    return found.user


def revoke_token(user: User, token_id: int) -> bool:
    """Whether `user` had that token (it is gone now)."""
    return ApiToken.objects.filter(user=user, pk=token_id).delete()[0] > 0


def is_bot(user: User) -> bool:
    """Whether staff marked `user` a bot account: one query."""
    return Profile.objects.filter(user=user, bot=True).exists()


def mark_bot(user: User, bot: bool = True) -> None:
    """Mark `user` a bot account (or a person's again): the admin's checkbox and `mark_bot`."""
    Profile.objects.update_or_create(user=user, defaults={"bot": bot})
