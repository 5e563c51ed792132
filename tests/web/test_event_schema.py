"""/api/events.schema.json describes every event a bot's socket receives: real games of each kind
(co-op with the Solver bot and hints, a race to its results, tic-tac-toe and Flags against the
computer) are played over JSON sockets, and every event they sent is checked against it. The
schema is strict (no field it does not name), so a field added to an event and not to the
schema fails here (docs/api.md, "Writing a bot")."""

import json
from collections import Counter
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from jsonschema import Draft202012Validator

from games.engine import minesweeper as ms
from games.kinds.race import rules as race_rules
from games.kinds.tictactoe.options import TicTacToeOptions
from games.rooms import joining
from games.store.models import Room

from .flags_helpers import make_flags_room
from .flags_helpers import mines as flags_mines
from .flags_helpers import safe as flags_safe
from .helpers import TIMEOUT, current, make_room, racer_safe_hidden
from .test_bot_sockets import bot
from .test_race import _go

pytestmark = pytest.mark.django_db(transaction=True)


class Recorder:
    """A bot's socket that keeps every event it received."""

    def __init__(self, socket: WebsocketCommunicator, seen: list[dict[str, Any]]) -> None:
        self.socket, self.seen = socket, seen

    async def next(self, kind: str) -> dict[str, Any]:
        while True:
            received = json.loads(await self.socket.receive_from(timeout=TIMEOUT))
            self.seen.append(received)
            if received["type"] == kind:
                return received

    async def ask(self, **message: Any) -> dict[str, Any]:
        """Send, and wait for the answer (`ack` or `error`), recording all that comes first."""
        asked = len(self.seen)
        await self.socket.send_to(text_data=json.dumps({**message, "id": asked}))
        while True:
            received = json.loads(await self.socket.receive_from(timeout=TIMEOUT))
            self.seen.append(received)
            if received["type"] in ("ack", "error"):
                assert received["id"] == asked
                return received

    async def drain(self) -> None:
        """Whatever is still on its way (a computer's reply, an event after its ack)."""
        await self.ask(action="sync")
        await self.next("snapshot")


async def recorder(room: Room, token: str | None, seen: list[dict[str, Any]]) -> Recorder:
    found = Recorder(await bot(room, token, how="header" if token else "query"), seen)
    await found.next("snapshot")
    return found


def minesweeper_cells(room: Room) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(mines, hidden safe cells) of the room's current co-op game."""
    state = ms.from_dict(current(room).state)
    width = state.config.width
    hidden = [
        (c % width, c // width)
        for c in range(state.grid.size)
        if state.cell_state(c)[0] is ms.CellState.HIDDEN
    ]
    mines = {(c % width, c // width) for c in state.field.mines}
    return [c for c in hidden if c in mines], [c for c in hidden if c not in mines]


async def play_co_op(seen: list[dict[str, Any]]) -> None:
    room = await sync_to_async(make_room)(16, 16, 40)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await recorder(room, ana.token, seen), await recorder(room, bo.token, seen)
    assert (await a.ask(action="add_bot"))["type"] == "ack"
    await b.next("bot")
    await a.ask(action="reveal", x=8, y=8)
    mines, safe = await sync_to_async(minesweeper_cells)(room)
    await a.ask(action="flag", x=mines[0][0], y=mines[0][1])
    await a.ask(action="flag", x=mines[0][0], y=mines[0][1])  # lifted: hidden again
    await a.ask(action="flag", x=safe[0][0], y=safe[0][1])  # a wrong flag, shown at the end
    await a.ask(action="hint")
    await b.next("hint")
    await a.ask(action="ping", x=3, y=3)
    await b.next("ping")
    await b.ask(action="react", emote="wave")
    await a.next("reaction")
    await a.ask(action="chat", text="nice one")
    await b.next("chat")
    await a.ask(action="reveal", x=99, y=0)
    await a.ask(action="remove_bot")
    await b.ask(action="reveal", x=mines[1][0], y=mines[1][1])  # lost: mines and the wrong flag
    await a.ask(action="new_game", game=1)
    for recorded in (a, b):
        await recorded.drain()
        await recorded.socket.disconnect()


def race_cells(room: Room, seat: int) -> list[tuple[int, int]]:
    """A racer's hidden safe cells."""
    return racer_safe_hidden(race_rules.load(current(room).state), seat)


async def play_race(seen: list[dict[str, Any]]) -> None:
    settings = race_rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await recorder(room, ana.token, seen), await recorder(room, bo.token, seen)
    watcher = await recorder(room, None, seen)
    await a.ask(action="start")
    await sync_to_async(_go)(room)
    await a.next("snapshot")
    while cells := await sync_to_async(race_cells)(room, ana.number):
        answer = await a.ask(action="reveal", x=cells[0][0], y=cells[0][1])
        assert answer["type"] == "ack"
    assert (await b.ask(action="give_up"))["type"] == "ack"  # Ana finished: the race is over
    for recorded in (a, b, watcher):
        await recorded.drain()
        await recorded.socket.disconnect()


async def play_tictactoe(seen: list[dict[str, Any]]) -> None:
    """A win, then (marks swapped) a draw: X, O, X, ... by whoever holds each mark."""
    settings = TicTacToeOptions(game="tictactoe", x="human", o="human").settings()
    room = await sync_to_async(joining.create_room)("tictactoe", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await recorder(room, ana.token, seen), await recorder(room, bo.token, seen)
    for first, second, squares in ((a, b, [0, 3, 1, 4, 2]), (b, a, [0, 1, 2, 4, 3, 5, 7, 6, 8])):
        for turn, square in enumerate(squares):
            answer = await (first if turn % 2 == 0 else second).ask(action="mark", cell=square)
            assert answer["type"] == "ack"
        assert answer["status"] == ("won" if len(squares) == 5 else "draw")
        await a.ask(action="new_game")
    for recorded in (a, b):
        await recorded.drain()
        await recorded.socket.disconnect()


async def play_flags(seen: list[dict[str, Any]]) -> None:
    room = await sync_to_async(make_flags_room)("human", "easy")
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    a = await recorder(room, ana.token, seen)
    x, y = (await sync_to_async(flags_mines)(room))[0]
    await a.ask(action="reveal", x=x, y=y)  # claimed: Ana moves again
    x, y = await sync_to_async(flags_safe)(room)
    await a.ask(action="reveal", x=x, y=y)  # the turn passes: the computer replies
    while (await a.next("move"))["seat"] is not None:
        pass
    await a.ask(action="bomb", x=8, y=8)  # refused: not behind, or not the turn
    await a.drain()
    await a.socket.disconnect()


async def test_every_event_of_every_kind_fits_the_served_schema():
    answer = await sync_to_async(Client().get)("/api/events.schema.json")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/schema+json"
    schema = json.loads(answer.content)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    seen: list[dict[str, Any]] = []
    for play in (play_co_op, play_race, play_tictactoe, play_flags):
        await play(seen)
    for received in seen:
        errors = sorted(validator.iter_errors(received), key=str)
        assert not errors, (received, [e.message for e in errors][:3])
    kinds = Counter((e["type"], e.get("game")) for e in seen)
    for game in ("minesweeper", "race", "tictactoe", "flags"):
        assert kinds["snapshot", game] and kinds["move", game], game
    for kind in ("ack", "error", "hint", "bot", "ping", "reaction", "chat"):
        assert kinds[kind, None], kind
    states = {c["state"] for e in seen if e["type"] == "move" for c in e["cells"] if "state" in c}
    assert {"hidden", "flagged", "revealed", "mine", "exploded", "wrong-flag", "claimed"} <= states
    statuses = {e["status"] for e in seen if "status" in e}
    assert {"playing", "won", "lost", "draw"} <= statuses
    results = [e for e in seen if e["type"] == "snapshot" and (e.get("race") or {}).get("results")]
    assert results and all(r["name"] for r in results[-1]["race"]["results"])


def test_the_schema_refuses_what_no_event_carries():
    schema = json.loads(Client().get("/api/events.schema.json").content)
    validator = Draft202012Validator(schema)
    move = {
        "type": "move",
        "game": "minesweeper",
        "number": 1,
        "version": 1,
        "status": "playing",
        "seat": 0,
        "cells": [{"x": 0, "y": 0, "state": "revealed", "count": 1}],
    }
    assert validator.is_valid(move)
    assert not validator.is_valid({**move, "surprise": 1})
    assert not validator.is_valid({**move, "cells": [{"x": 0, "y": 0, "state": "boom"}]})
    assert not validator.is_valid({**move, "status": "winning"})


def test_the_openapi_document_types_changed_cells_status_and_race():
    """The HTTP side of the same facts: no untyped `dict` where a bot has to guess."""
    document = Client().get("/api/openapi.json").json()
    schemas = document["components"]["schemas"]
    changed = schemas["MoveOut"]["properties"]["changed"]["items"]
    refs = {ref["$ref"].rsplit("/", 1)[1] for ref in changed["anyOf"] if "$ref" in ref}
    assert refs == {"CellOut", "ClaimedOut", "SquareOut"}
    # ... and a kind added later lists objects of its own (the kind table's promise)
    assert [ref for ref in changed["anyOf"] if "$ref" not in ref] == [
        {"additionalProperties": True, "type": "object"}
    ]
    assert "wrong-flag" in schemas["CellOut"]["properties"]["state"]["enum"]
    for name in ("MoveOut", "RoomState", "GameOut"):
        assert schemas[name]["properties"]["status"]["enum"] == ["playing", "won", "lost", "draw"]
    assert "name" in schemas["RacerOut"]["required"] and "name" in schemas["ResultOut"]["required"]
    assert "RaceOut" in json.dumps(schemas["RoomState"]["properties"]["race"])
    assert document["paths"]["/api/rooms/{code}"]["delete"]["responses"].keys() >= {"204", "403"}
