"""What a lobby socket may say, parsed once at the edge (docs/contracts.md, "Quick match"):
`seek` with the game wanted, `cancel`, and `accept` of an open seek. A malformed message is
a `BadSeek` whose text names the field at fault, which the socket sends back as is."""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

MAX_NAME = 24
MAX_FRAME = 2_000
"""Bytes of one lobby message: the longest valid one is about 150."""
SEEK_FIELDS = ("action", "game", "rated", "name")
"""The fields of every seek; the game's own (`Games.fields`) are the kinds' to say."""


class BadSeek(ValueError):
    """A lobby message that cannot be understood; its text names the field."""


@dataclass(frozen=True, slots=True)
class Wanted:
    """The game a seeker wants; two seekers pair only when these are equal (and rated ones by
    rating)."""

    game: str
    """The room's kind (`GameKind.name`)."""
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


class Games(Protocol):
    """The seekable kinds, as the parser asks them (`games.kinds.seekable.SEEKABLE`): the kinds
    sit above this layer (pyproject's import layers), so the socket hands them in."""

    @property
    def fields(self) -> frozenset[str]:
        """A seek's fields beyond `SEEK_FIELDS` that some kind takes."""
        ...

    def wanted(self, payload: Mapping[str, Any], rated: bool) -> Wanted:
        """The game `payload` names with its choices checked; BadSeek naming the field."""
        ...


def parse(text: str | None, games: Games) -> LobbyMessage:
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
        return parse_seek(payload, games)
    if action == "cancel":
        return Cancel()
    if action == "accept":
        seek = payload.get("seek")
        if isinstance(seek, bool) or not isinstance(seek, int) or seek < 1:
            raise BadSeek("seek: the id of an open seek (a whole number).")
        return Accept(seek, _name(payload))
    raise BadSeek(f"action: {str(action)[:40]!r} is not one of seek, cancel, accept.")


def parse_seek(payload: dict[str, Any], games: Games) -> Seek:
    """A seek's fields: `game` (and what its kind takes: `mode`, `preset`, `players`),
    `rated`, `name`."""
    known = {*SEEK_FIELDS, *games.fields}
    unknown = sorted(key for key in payload if key not in known)
    if unknown:
        raise BadSeek(f"{unknown[0][:40]}: not a field of a seek.")
    rated = payload.get("rated", False)
    if not isinstance(rated, bool):
        raise BadSeek("rated: true or false.")
    return Seek(games.wanted(payload, rated), _name(payload))


def _name(payload: dict[str, Any]) -> str | None:
    """The seat's name a guest asks for (the page's nickname; an account's is its username)."""
    name = payload.get("name")
    if name is not None and (not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME):
        raise BadSeek(f"name: from 1 to {MAX_NAME} characters.")
    return name
