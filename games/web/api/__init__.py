"""The JSON API for bots and scripts: the same actions as the browser (`games.rooms`), so moves
made here appear live on every screen in the room. Schema and interactive docs at /api/docs.

One module per resource: `accounts` (a personal token, a player's figures), `rooms` (create,
join, read, revoke, leave, delete, a past game), `moves` (moves and hints), `host` (the host
controls), `chat`, `daily` (the daily board), `seeks` (quick match's open seeks); `base` holds the frame they share (the `api`
object, JSON-only bodies, errors and their statuses, the bearer token), `schemas` the answers'
shapes.
"""

from . import accounts, chat, daily, host, moves, rooms, seeks  # noqa: F401  (each registers its routes on `api`)
from .base import api
from .moves import MoveIn

__all__ = ["MoveIn", "api"]
