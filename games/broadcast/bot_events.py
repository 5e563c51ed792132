"""What bots on the websocket read: JSON events, for every kind, from the kind's table.

The same facts the JSON API gives (`text_rows`, `changed_cells`), one event per message
(docs/contracts.md, "Bots on the websocket"): a `snapshot` on every connect and every new game, a `move`
for every version, so a bot follows the game as a page does and spots a gap by the version. A
bot sees what its seat may see: in a race (`GameKind.per_seat_boards`) only the mover's bot gets
the move's cells, and after a timed event every bot gets a snapshot of its own board.
"""

import json
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model

from ..kinds.table import COMPUTER_SEAT, GameKind, MoveNews
from ..protocol import audiences
from ..protocol.messages import MAX_MESSAGE_BYTES, echoable_id
from ..store.models import Game, RatingChange, Room


def room_view(kind: GameKind, room: Room, game: Game, seat: int | None) -> dict[str, Any]:
    """The game as `seat` (None: a spectator) may see it, as `GET /api/rooms/<code>` and a
    snapshot both give it: the kind's rows and extras, the room's `players`, whether the
    Solver bot is seated (`bot`, where the kind has one), and the seats its extras name with
    their names (`ApiView.named`: a race's racers and results)."""
    rows, extra = kind.api.text_rows(game.state, game.params, seat)
    seated = list(room.players.all())
    usernames = _usernames(p.account_id for p in seated)
    players = [
        {
            "name": p.nickname,
            "seat": p.number,
            "online": p.online,
            "username": usernames.get(p.account_id),
        }
        for p in seated
    ]
    view = {
        "game": kind.name,
        "number": game.number,
        "status": game.status,
        "version": game.version,
        "board": rows,
        "players": players,
        **extra,
    }
    if kind.bot is not None:
        view["bot"] = kind.bot.seated(game.params)
    if room.settings.get("rated"):
        view["rated"] = True
        view["rating_changes"] = rating_changes(game)
    if kind.api.named is not None:  # the kind knows only seats
        names = {p["seat"]: p["name"] for p in players}
        if kind.bot is not None:
            names[COMPUTER_SEAT] = kind.bot.name
        view.update(kind.api.named(extra, names))
    return view


def rating_changes(game: Game) -> list[dict[str, Any]]:
    """A rated game's `rating_changes` (none until it ends): one query, in rated rooms only."""
    rows = RatingChange.objects.filter(game=game).order_by("id")
    return [
        {"username": username, "before": before, "after": after}
        for username, before, after in rows.values_list("username", "before", "after")
    ]


def _usernames(accounts: Iterable[int | None]) -> dict[int | None, str]:
    """Signed-in seats' usernames by account id: one query, and none in a room of guests."""
    ids = {account for account in accounts if account is not None}
    if not ids:
        return {}
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))


def snapshot(kind: GameKind, room: Room, game: Game, seat: int | None) -> str:
    """The whole game as `seat` (None: a spectator) may see it."""
    return _text({"type": "snapshot", **room_view(kind, room, game, seat)})


def move(kind: GameKind, news: MoveNews) -> dict[str, str]:
    """The move's event per audience key: everyone's, and the mover's own when it differs."""
    applied, game = news.applied, news.game
    event: dict[str, Any] = {
        "type": "move",
        "game": kind.name,
        "number": game.number,
        "version": game.version,
        "status": applied.status,
        "seat": None if news.mover is None else news.mover.number,
        "cells": kind.api.changed_cells(applied),
    }
    for key in kind.api.public_summary:
        if key in applied.summary:
            event[key] = applied.summary[key]
    if kind.per_seat_boards is None:
        return {audiences.JSON: _text(event)}
    if news.mover is None:  # a resync instead (`move_controls`)
        return {}
    texts = {audiences.JSON: _text({**event, "cells": []})}
    if news.mover is not None:
        texts[audiences.json_seat(news.mover.number)] = _text(event)
    return texts


def move_controls(kind: GameKind, news: MoveNews) -> audiences.Controls | None:
    """A timed event (a race's start) may change every board: bots take a snapshot of their
    own instead of an event (`audiences.Control.RESYNC`)."""
    if kind.per_seat_boards is not None and news.mover is None:
        return {audiences.RESYNC: audiences.Control.RESYNC}
    return None


def ratings(number: int, changes: list[dict[str, Any]]) -> str:
    """A rated game ended: each player's rating before and after, to every bot."""
    return _text({"type": "ratings", "number": number, "rating_changes": changes})


def hint(number: int, asker: str, cell: tuple[int, int] | None) -> str:
    """A hint someone asked for, to every bot: the cell (null: a guess is needed)."""
    where = None if cell is None else {"x": cell[0], "y": cell[1]}
    return _text({"type": "hint", "number": number, "by": asker, "cell": where})


def bot(number: int, host: str, on: bool) -> str:
    """The host seated (`on`) or unseated the Solver bot (or changed its pace), to every bot."""
    return _text({"type": "bot", "number": number, "by": host, "on": on})


def chat(line: dict[str, str]) -> str:
    """A chat line (`chat_view.as_json`) to every bot that may read it."""
    return _text({"type": "chat", **line})


def host(action: str, host_seat: int | None, text: str) -> str:
    """A host command taken, or the host seat passed on by itself (`action` "away"), to every
    bot: the seat that hosts now and the notice pages show."""
    return _text({"type": "host", "action": action, "host": host_seat, "text": text})


def ack(action: str, request_id: Any, **facts: Any) -> str:
    """The answer to a bot's message that was taken (`error` answers one refused): every message
    gets one of the two, with the `id` it carried, so a bot waiting for a reply never hangs."""
    event: dict[str, Any] = {"type": "ack", "action": action}
    if request_id is not None:
        event["id"] = request_id
    return _text({**event, **facts})


def error(message: str, request_id: Any = None) -> str:
    event: dict[str, Any] = {"type": "error", "error": message}
    if request_id is not None:
        event["id"] = request_id
    return _text(event)


def request_id(text: str | bytes | None) -> Any:
    """The `id` a bot's message carries (a string of at most 64 characters or an integer), to be
    echoed in its answer; None when it has none, or the message is no JSON object."""
    try:
        data = json.loads(text) if text is not None and len(text) <= MAX_MESSAGE_BYTES else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    found = data.get("id") if isinstance(data, dict) else None
    return found if echoable_id(found) else None  # an error says why (`message_table.read_payload`)


def _text(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"))
