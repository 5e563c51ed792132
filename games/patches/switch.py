"""`SPEED_SHORTCUTS`, read where each shortcut is taken (a test may change it)."""

from django.conf import settings


def shortcut(name: str) -> bool:
    """Whether the speed shortcut `name` is on in this process (`SPEED_SHORTCUTS`)."""
    return name in settings.SPEED_SHORTCUTS
