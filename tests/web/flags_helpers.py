"""Flags rooms for tests: made through the services, with the mines read from the stored game
(the state keeps the whole layout; tests may look, players never can)."""

from games.engine import flags as engine
from games.kinds.flags import rules
from games.rooms import joining
from games.store.models import Game, Room


def make_flags_room(x: str = "human", o: str = "human", mines: int = 51, **options) -> Room:
    settings = rules.validate_settings(x, o, mines, options.pop("turn_seconds", 0))
    return joining.create_room("flags", settings, **options)


def current(room: Room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


def board(room: Room) -> engine.State:
    return engine.from_dict(current(room).state)


def mines(room: Room) -> list[tuple[int, int]]:
    """Every mine nobody has claimed yet, as (x, y), in cell order."""
    state = board(room)
    return [state.grid.xy(c) for c in sorted(state.field.mines) if state.is_hidden(c)]


def safe(room: Room, *, number: bool = True) -> tuple[int, int]:
    """A hidden safe cell: with `number`, one that touches a mine, so revealing it opens that
    cell alone; else one with no mine around (a flood)."""
    state = board(room)
    for cell in range(state.grid.size):
        hidden_safe = state.is_hidden(cell) and cell not in state.field.mines
        if hidden_safe and bool(state.field.counts[cell]) == number:
            return state.grid.xy(cell)
    raise AssertionError("no such cell")
