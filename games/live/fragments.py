"""HTML the socket itself sends, whatever the game kind: an error for its sender alone, and the
pointer outline a player's hover shows the others."""

from django.template.loader import render_to_string

from ..store.models import Player


def error_html(message: str) -> str:
    return render_to_string("games/partials.html#error", {"error": message, "oob": True})


def cursor_html(player: Player, x: int, y: int) -> str:
    return render_to_string("games/partials.html#cursor", {"player": player, "x": x, "y": y})
