"""`{% emotes as list %}`: the reactions a room page offers, the fixed set the socket takes."""

from django import template

from games.rooms.signals import EMOTES

register = template.Library()


@register.simple_tag
def emotes() -> list[tuple[str, tuple[str, str]]]:
    """(name, (symbol, words)) for each emote, in the set's order."""
    return list(EMOTES.items())
