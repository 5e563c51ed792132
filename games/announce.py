"""What the write path tells a room after a commit: each announcer renders once, through the
room's game kind, and posts the HTML to the room's group (`outbox`).

Fragments are rendered once here and fanned out as text, so a room with a hundred spectators costs
one render per move, not a hundred. Called after commit (see `services`), from any thread. A move's
announcer gets everything from the service (`MoveNews`) and queries nothing; the others (a new
game, presence, a hint, the bot) read the room as it is now.
"""

from . import metrics, outbox
from .kinds import kind_of
from .kinds.table import GameKind, MoveNews, NewGame
from .models import Room


def move(kind: GameKind, news: MoveNews) -> None:
    """A move's fragments, by a person or (`news.mover` None) a computer."""
    metrics.MOVES.inc()
    outbox.send(news.room.pk, kind.rendering.move_html(news), metrics.move_started())


def snapshot(room_id: int) -> None:
    room = Room.objects.get(pk=room_id)
    outbox.send(room.pk, snapshot_html(room))


def new_game(room_id: int, news: NewGame) -> None:
    """The room's next game for everyone, with a line saying who started it."""
    room = Room.objects.get(pk=room_id)
    html = kind_of(room.kind).rendering.new_game_html(room, room.current_game(), news)
    outbox.send(room.pk, html)


def snapshot_html(room: Room) -> str:
    return kind_of(room.kind).rendering.snapshot_html(room, room.current_game())


def roster(room_id: int) -> None:
    outbox.send(room_id, roster_html(room_id))


def roster_html(room_id: int) -> str:
    room = Room.objects.get(pk=room_id)
    return kind_of(room.kind).rendering.roster_html(room, room.current_game())


def spectators_html(room_id: int) -> str:
    room = Room.objects.only("kind", "spectators").get(pk=room_id)
    return kind_of(room.kind).rendering.spectators_html(room.spectators)


def hint(room_id: int, asker: str, cell: tuple[int, int] | None) -> None:
    """A hint for everyone: the cell highlighted, who asked, the hint counter."""
    room = Room.objects.get(pk=room_id)
    hints = kind_of(room.kind).hints
    assert hints is not None  # only kinds with hints have a hint to announce
    outbox.send(room.pk, hints.hint_html(room, room.current_game(), asker, cell))


def bot_changed(room_id: int, host: str, on: bool, stuck: bool) -> None:
    """The bot joined or left: the roster and a line saying so."""
    room = Room.objects.get(pk=room_id)
    bot = kind_of(room.kind).bot
    assert bot is not None  # only kinds with a bot have one to seat
    outbox.send(room.pk, bot.changed_html(room, room.current_game(), host, on, stuck))
