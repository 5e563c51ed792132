"""The kinds quick match offers, asked for what the lobby needs (`GameKind.seeking`): which
seek a message names, how a seek is labelled, the body of a matched room. The lobby's parser,
pairing, list and page go through here and name no kind (docs/architecture.md, "Adding a
game kind").

Read from the registry on every call, so a kind registered at test time is sought as any.
"""

import json
from collections.abc import Mapping
from typing import Any

from ..protocol.seeks import BadSeek, Wanted
from .table import GameKind

GAME_FIELDS = ("mode", "preset", "players")
"""A seek's fields that only some kinds take, in the order a refusal names them."""


def seekable() -> list[GameKind]:
    """The kinds offered to strangers, in the home page's order (`INSTALLED_APPS`'s)."""
    from . import KINDS

    return [kind for kind in KINDS.values() if kind.seeking is not None]


def seeking_kind(name: str) -> GameKind | None:
    """The seekable kind a stored seek names (`Seek.game`), None for one no longer offered."""
    return next((kind for kind in seekable() if kind.name == name), None)


def taken_fields(kind: GameKind) -> tuple[str, ...]:
    """The fields of `GAME_FIELDS` a seek of `kind` takes."""
    assert kind.seeking is not None
    taken = {
        "mode": kind.mode is not None,
        "preset": bool(kind.seeking.presets),
        "players": kind.seeking.picks_players,
    }
    return tuple(name for name in GAME_FIELDS if taken[name])


class Seekable:
    """The seekable kinds as the lobby's parser asks them (`protocol.seeks.Games`): that
    parser sits below the kinds, so its caller hands this in."""

    @property
    def fields(self) -> frozenset[str]:
        """The game's fields any seekable kind takes."""
        return frozenset(name for kind in seekable() for name in taken_fields(kind))

    def wanted(self, payload: Mapping[str, Any], rated: bool) -> Wanted:
        """The game a seek's `game` and `mode` name, with the seeker's choices checked;
        BadSeek naming the field at fault."""
        kind = _named_kind(payload)
        for name in GAME_FIELDS:
            if name in payload and name not in taken_fields(kind):
                raise BadSeek(f"{name}: only {_takers(name)} takes it.")
        return Wanted(kind.name, _preset(kind, payload), _players(kind, payload), rated)


SEEKABLE = Seekable()


def _named_kind(payload: Mapping[str, Any]) -> GameKind:
    game, mode = payload.get("game"), payload.get("mode")
    kinds = seekable()
    same_game = [kind for kind in kinds if kind.api_game == game]
    if not same_game:
        games = ", ".join(_called(kind) for kind in kinds)
        raise BadSeek(f"game: one of {games}.")
    moded = {kind.mode: kind for kind in same_game if kind.mode is not None}
    if "mode" in payload and isinstance(mode, str) and mode in moded:
        return moded[mode]
    plain = next((kind for kind in same_game if kind.mode is None), None)
    if plain is not None:
        return plain  # a `mode` given is refused as a field it does not take
    modes = " or ".join(json.dumps(name) for name in moded)
    reasons = "; ".join(k.seeking.why_this_mode for k in moded.values() if k.seeking)
    raise BadSeek(f"mode: {modes}" + (f" ({reasons})." if reasons else "."))


def _called(kind: GameKind) -> str:
    """A kind as the refusal of an unknown `game` lists it."""
    return kind.api_game + ("" if kind.mode is None else f" (with mode {kind.mode})")


def _takers(name: str) -> str:
    """The kinds that take the field `name`, each as "a race"."""
    labels = [k.seeking.label.lower() for k in seekable() if k.seeking and name in taken_fields(k)]
    return " or ".join(f"a {label}" for label in labels)


def _preset(kind: GameKind, payload: Mapping[str, Any]) -> str:
    assert kind.seeking is not None
    presets = kind.seeking.presets
    if not presets:
        return ""
    preset = payload.get("preset")
    if not isinstance(preset, str) or preset not in presets:
        raise BadSeek(f"preset: one of {', '.join(presets)}.")
    return preset


def _players(kind: GameKind, payload: Mapping[str, Any]) -> int:
    assert kind.seeking is not None
    counts = kind.seeking.players
    if not kind.seeking.picks_players:
        return counts[0]
    players = payload.get("players", counts[0])
    if isinstance(players, bool) or not isinstance(players, int) or players not in counts:
        raise BadSeek(f"players: a whole number from {counts[0]} to {counts[-1]}.")
    return players


def label(kind: GameKind, preset: str, players: int) -> str:
    """A seek as the open seeks name it: "Flags", or "Race · expert · 5 players"."""
    assert kind.seeking is not None
    shown = kind.seeking.label
    if kind.seeking.presets:
        shown += f" · {preset}"
    if kind.seeking.picks_players:
        shown += f" · {players} players"
    return shown


def room_body(wanted: Wanted) -> dict[str, Any]:
    """The API's create body of the room a match of `wanted` opens."""
    kind = next(kind for kind in seekable() if kind.name == wanted.game)
    assert kind.seeking is not None
    body: dict[str, Any] = {"game": kind.api_game, **kind.seeking.room_options}
    if kind.mode is not None:
        body["mode"] = kind.mode
    if wanted.preset:
        body["preset"] = wanted.preset
    if wanted.rated:  # rated seeks are signed-in people's alone, and pair into a rated room
        body["rated"] = True
    return body


def api_descriptions() -> dict[str, str]:
    """What the API's open seeks say of their `game`, `mode`, `preset` and `players`, from the
    kinds offered (the OpenAPI schema's descriptions)."""
    kinds = seekable()
    nouns = {kind.name: f"a {kind.seeking.label.lower()}" for kind in kinds if kind.seeking}
    games = [
        f'"{kind.api_game}"' + ("" if kind.mode is None else f" ({nouns[kind.name]})")
        for kind in kinds
    ]
    modes = [f'"{kind.mode}" for {nouns[kind.name]}' for kind in kinds if kind.mode is not None]
    boards = [
        f"{nouns[kind.name].capitalize()}'s board: {_or(list(kind.seeking.presets))}."
        for kind in kinds
        if kind.seeking and kind.seeking.presets
    ]
    counts = [
        f"{nouns[kind.name]}: {kind.seeking.players[0]} to {kind.seeking.players[-1]}"
        for kind in kinds
        if kind.seeking and kind.seeking.picks_players
    ]
    return {
        "game": _or(games) + ".",
        "mode": ", ".join([*modes, "else null."]),
        "preset": " ".join(boards),
        "players": "Players the game is for" + (f" ({'; '.join(counts)})." if counts else "."),
    }


def _or(words: list[str]) -> str:
    """`words` as "a, b or c"."""
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
