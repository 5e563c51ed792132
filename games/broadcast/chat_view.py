"""What a screen shows of a room's chat: the kept lines it may see, as HTML or JSON.

Read by the write path (`chat`), the announcer and the snapshot (`announce`) alike, so the rule
"no spectators' line to a racer while the race runs" lives in one place (`hides_spectators`), and
so does who counts as a spectator meanwhile (`watchers`: a racer who stopped racing).
"""

from django.template.loader import render_to_string

from ..kinds import kind_of
from ..store.models import ChatMessage, Game, Room

KEPT = 50
"""Lines kept per channel of a room (players', spectators'), and sent with every snapshot:
older ones are deleted as new ones come (`chat._make_room`)."""
PER_ADDRESS_KEPT = 10
"""Lines of one client address a full channel keeps, while others' lines are there to keep:
past it, the address's new line replaces its own oldest (issue 33: a dozen tokenless sockets
of one address had pushed every player's line out)."""


def hides_spectators(room: Room, game: Game | None = None) -> bool:
    """Whether the room's players may not hear the spectators now: boards are private to each
    seat (`GameKind.per_seat_boards`) and the game is not over, so nobody can coach."""
    if kind_of(room.kind).per_seat_boards is None:
        return False
    return not (game or room.current_game()).is_over


def watchers(room: Room, game: Game | None = None) -> frozenset[int]:
    """The seats that watch the game with the spectators now: out of a race others still run
    (`PerSeatBoards.watching`). They hear the spectators' channel and talk in it, so nothing
    they say reaches anyone still racing."""
    per_seat = kind_of(room.kind).per_seat_boards
    if per_seat is None:
        return frozenset()
    game = game or room.current_game()
    return per_seat.watching(game.state, game.params)


def visible(room: Room, *, player: bool, channel: str | None = None) -> list[ChatMessage]:
    """The room's kept lines, oldest first, as a screen may see them (`player`: a seat's
    screen), of one `channel` or both: the last `KEPT` of each."""
    channels = list(ChatMessage.Channel) if channel is None else [ChatMessage.Channel(channel)]
    if player and hides_spectators(room):
        channels = [c for c in channels if c == ChatMessage.Channel.PLAYERS]
    lines = ChatMessage.objects.filter(room=room).order_by("-id")
    kept = [line for c in channels for line in lines.filter(channel=c)[:KEPT]]
    return sorted(kept, key=lambda line: line.pk)


def as_json(message: ChatMessage) -> dict[str, str]:
    """A line as the API and bots read it."""
    return {
        "author": message.author,
        "channel": message.channel,
        "text": message.text,
        "at": message.at.isoformat(),
    }


def line_html(message: ChatMessage) -> str:
    """One new line, appended to its channel's log on every screen that takes it."""
    return render_to_string("games/chat.html#line_oob", {"m": message})


def logs_html(room: Room, *, player: bool) -> str:
    """Both channels' logs as a screen may see them, replacing what it shows (a snapshot)."""
    lines = visible(room, player=player)
    held = player and hides_spectators(room)
    context = {
        "players": [m for m in lines if m.channel == ChatMessage.Channel.PLAYERS],
        "spectators": [m for m in lines if m.channel == ChatMessage.Channel.SPECTATORS],
        "held": held,
        "oob": True,
    }
    return render_to_string("games/chat.html#logs", context)
