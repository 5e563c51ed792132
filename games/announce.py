"""What the write path tells a room after a commit: each announcer renders once, through the
room's game kind, and posts the HTML to the room's group (`outbox`).

Fragments are rendered once here and fanned out as text, so a room with a hundred spectators costs
one render per move, not a hundred. Called after commit (see `services`), from any thread.
"""

from types import ModuleType

from . import outbox
from .kinds.table import Applied
from .models import Game, Player, Room


def renderer(kind: str) -> ModuleType:
    if kind == Room.Kind.TICTACTOE:
        from .kinds.tictactoe import render

        return render
    from .kinds.minesweeper import render as minesweeper_render

    return minesweeper_render


def move(room: Room, game: Game, player: Player | None, applied: Applied) -> None:
    """A move's fragments; `player` is None for a computer's move. `room` is the mover's copy,
    maybe minutes old: renderers take from it only what never changes, and fetch the rest."""
    outbox.send(room.pk, renderer(room.kind).move_html(room, game, applied, player))


def snapshot(room_id: int) -> None:
    room = Room.objects.get(pk=room_id)
    outbox.send(room.pk, snapshot_html(room))


def snapshot_html(room: Room) -> str:
    return renderer(room.kind).snapshot_html(room, room.current_game())


def roster(room_id: int) -> None:
    outbox.send(room_id, roster_html(room_id))


def roster_html(room_id: int) -> str:
    room = Room.objects.get(pk=room_id)
    return renderer(room.kind).roster_html(room, room.current_game())


def hint(room_id: int, asker: str, cell: tuple[int, int] | None) -> None:
    """A hint for everyone (Minesweeper): the cell highlighted, who asked, the hint counter."""
    room = Room.objects.get(pk=room_id)
    outbox.send(room.pk, renderer(room.kind).hint_html(room, room.current_game(), asker, cell))


def bot_changed(room_id: int, host: str, on: bool, stuck: bool) -> None:
    """The Solver bot joined or left (Minesweeper): the roster and a line saying so."""
    room = Room.objects.get(pk=room_id)
    outbox.send(room.pk, renderer(room.kind).bot_html(room, room.current_game(), host, on, stuck))
