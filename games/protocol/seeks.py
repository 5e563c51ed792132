"""What a lobby socket may say, parsed once at the edge (docs/contracts.md, "Quick match"):
`seek` with the game wanted, `cancel`, and `accept` of an open seek. A malformed message is
a `BadSeek` whose text names the field at fault, which the socket sends back as is."""

import json
from dataclasses import dataclass
from typing import Any

PRESETS = ("beginner", "intermediate", "expert")
MIN_RACERS = 2
MAX_RACERS = 8
MAX_NAME = 24
MAX_FRAME = 2_000
"""Bytes of one lobby message: the longest valid one is about 150."""

GAMES = {"flags": "flags", "tictactoe": "tictactoe"}
"""The API's `game` of a two-player kind → the room's kind; a race is `minesweeper` + `race`."""


class BadSeek(ValueError):
    """A lobby message that cannot be understood; its text names the field."""


@dataclass(frozen=True, slots=True)
class Wanted:
    """The game a seeker wants; two seekers pair only when these are equal (and rated ones by
    rating)."""

    game: str
    """The room's kind: "race", "flags" or "tictactoe"."""
    preset: str = ""
    players: int = 2
    rated: bool = False


@dataclass(frozen=True, slots=True)
class Seek:
    wanted: Wanted
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Cancel:
    pass


@dataclass(frozen=True, slots=True)
class Accept:
    seek: int
    name: str | None = None


LobbyMessage = Seek | Cancel | Accept


def parse(text: str | None) -> LobbyMessage:
    if text is None or len(text) > MAX_FRAME:
        raise BadSeek(f"Send one JSON object of at most {MAX_FRAME} bytes.")
    try:
        payload = json.loads(text)
    except ValueError:
        raise BadSeek("Send one JSON object.") from None
    if not isinstance(payload, dict):
        raise BadSeek("Send one JSON object.")
    action = payload.get("action")
    if action == "seek":
        return parse_seek(payload)
    if action == "cancel":
        return Cancel()
    if action == "accept":
        seek = payload.get("seek")
        if isinstance(seek, bool) or not isinstance(seek, int) or seek < 1:
            raise BadSeek("seek: the id of an open seek (a whole number).")
        return Accept(seek, _name(payload))
    raise BadSeek(f"action: {str(action)[:40]!r} is not one of seek, cancel, accept.")


def parse_seek(payload: dict[str, Any]) -> Seek:
    """A seek's fields: `game` (and for a race `mode`, `preset`, `players`), `rated`, `name`."""
    known = {"action", "game", "mode", "preset", "players", "rated", "name"}
    unknown = sorted(key for key in payload if key not in known)
    if unknown:
        raise BadSeek(f"{unknown[0][:40]}: not a field of a seek.")
    rated = payload.get("rated", False)
    if not isinstance(rated, bool):
        raise BadSeek("rated: true or false.")
    return Seek(_wanted(payload, rated), _name(payload))


def _name(payload: dict[str, Any]) -> str | None:
    """The seat's name a guest asks for (the page's nickname; an account's is its username)."""
    name = payload.get("name")
    if name is not None and (not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME):
        raise BadSeek(f"name: from 1 to {MAX_NAME} characters.")
    return name


def _wanted(payload: dict[str, Any], rated: bool) -> Wanted:
    game = payload.get("game")
    if game in GAMES:
        for field in ("mode", "preset", "players"):
            if field in payload:
                raise BadSeek(f"{field}: only a race takes it.")
        return Wanted(GAMES[game], rated=rated)
    if game != "minesweeper":
        raise BadSeek("game: one of minesweeper (with mode race), flags, tictactoe.")
    if payload.get("mode") != "race":
        raise BadSeek('mode: "race" (co-op Minesweeper is played with friends, not strangers).')
    preset = payload.get("preset")
    if preset not in PRESETS:
        raise BadSeek(f"preset: one of {', '.join(PRESETS)}.")
    players = payload.get("players", 2)
    if isinstance(players, bool) or not isinstance(players, int):
        raise BadSeek(f"players: a whole number from {MIN_RACERS} to {MAX_RACERS}.")
    if not MIN_RACERS <= players <= MAX_RACERS:
        raise BadSeek(f"players: a whole number from {MIN_RACERS} to {MAX_RACERS}.")
    return Wanted("race", preset, players, rated)
