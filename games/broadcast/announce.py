"""What the write path tells a room after a commit: each announcer renders once, through the
room's game kind, and posts the texts to the room's group (`outbox`).

Fragments are rendered once here and fanned out as text, so a room with a hundred spectators costs
one render per move, not a hundred; where screens differ (a race; bots reading JSON) once per
audience (`games.protocol.audiences`). Called after commit (see `games.rooms`), from any thread. A move's
announcer gets everything from the service (`MoveNews`) and queries nothing; the others (a new
game, presence, a hint, the bot) read the room as it is now.
"""

from django.template.loader import render_to_string

from .. import metrics
from ..kinds import kind_of
from ..kinds.roster import spectators
from ..kinds.table import Fragment, GameKind, MoveNews, NewGame
from ..protocol import audiences
from ..store import rows
from ..store.models import ChatMessage, Player, Room
from . import bot_events, chat_view, host_view, outbox

NEW_GAME_FOR_BOTS = {audiences.RESYNC: audiences.Control.RESYNC}
"""A new game, for bots: each gets a snapshot of its own (its seat's mark may have changed)."""


def move(kind: GameKind, news: MoveNews) -> None:
    """A move's fragments, by a person or (`news.mover` None) a computer or the clock."""
    metrics.MOVES.inc()
    texts = audiences.with_texts(kind.rendering.move_html(news), bot_events.move(kind, news))
    order = (news.game.number, news.game.version)
    controls = bot_events.move_controls(kind, news)
    outbox.send(news.room.pk, texts, metrics.move_started(), order, controls=controls)
    if kind.per_seat_boards is not None and news.game.is_over:
        chat_after_race(news.room.pk)


def ratings(room_id: int, number: int, changes: list[dict[str, object]]) -> None:
    """A rated game's end moved its players' ratings: the line on every screen, the event for
    every bot (`rating_changes`, as the room's JSON gives them)."""
    context = {"rating_changes": changes, "oob": True}
    html = render_to_string("games/partials.html#rating_changes", context)
    outbox.send(room_id, {audiences.ALL: html, audiences.JSON: bot_events.ratings(number, changes)})


def room_closed(room_id: int) -> None:
    """The host deleted the room: every socket in it says so and closes."""
    outbox.send(room_id, {}, controls=audiences.CLOSED)


def token_revoked(room_id: int, seat: int) -> None:
    outbox.send(room_id, {}, controls=audiences.revoked(seat))


def new_game(room_id: int, news: NewGame) -> None:
    """The room's next game for everyone, with a line saying who started it."""
    room = rows.get(Room, id=room_id)
    html = kind_of(room.kind).rendering.new_game_html(room, room.current_game(), news)
    outbox.send(room.pk, audiences.with_texts(html, {}), controls=NEW_GAME_FOR_BOTS)
    if room.settings.get("rated"):  # the last game's rating line goes with it
        empty = render_to_string("games/partials.html#rating_changes", {"oob": True})
        outbox.send(room.pk, {audiences.ALL: empty})


def snapshot_for(room: Room, seat: int | None, *, json: bool = False) -> str:
    """The whole game as the socket of `seat` (None: a spectator) shows it: a page's HTML, or a
    bot's JSON snapshot."""
    kind, game = kind_of(room.kind), room.current_game()
    if json:
        return bot_events.snapshot(kind, room, game, seat)
    if kind.per_seat_boards is not None:
        html = kind.per_seat_boards.viewer_snapshot_html(room, game, seat)
    else:
        html = kind.rendering.snapshot_html(room, game)
    watching = seat is None or seat in chat_view.watchers(room, game)
    return html + chat_view.logs_html(room, player=not watching)


def roster(room_id: int) -> None:
    """Who is in the room, to everyone in it: not rendered when nobody can hear it."""
    if outbox.anyone_hears(room_id):
        outbox.send(room_id, roster_html(room_id))


def roster_html(room_id: int) -> Fragment:
    room = rows.get(Room, id=room_id)
    return kind_of(room.kind).rendering.roster_html(room, room.current_game())


def spectators_html(room_id: int) -> str:
    room = rows.get(Room, id=room_id)
    kind = kind_of(room.kind)
    playing = None
    if kind.rules.playing_seats is not None:  # seated people with no part in the game watch too
        game = room.current_game()
        playing = kind.rules.playing_seats(game.state, game.params)
    return kind.rendering.spectators_html(spectators(room, playing))


def hint(room_id: int, asker: str, cell: tuple[int, int] | None) -> None:
    """A hint for everyone: the cell highlighted, who asked, the hint counter."""
    room = rows.get(Room, id=room_id)
    hints = kind_of(room.kind).hints
    assert hints is not None  # only kinds with hints have a hint to announce
    game = room.current_game()
    event = {audiences.JSON: bot_events.hint(game.number, asker, cell)}
    outbox.send(room.pk, audiences.with_texts(hints.hint_html(room, game, asker, cell), event))


def bot_changed(room_id: int, host: str, on: bool, stuck: bool) -> None:
    """The bot joined or left: the roster and a line saying so."""
    room = rows.get(Room, id=room_id)
    bot = kind_of(room.kind).bot
    assert bot is not None  # only kinds with a bot have one to seat
    game = room.current_game()
    html = bot.changed_html(room, game, host, on, stuck)
    event = {audiences.JSON: bot_events.bot(game.number, host, on)}
    outbox.send(room.pk, audiences.with_texts(html, event))


def chat(room_id: int, message_id: int) -> None:
    """A chat line to every screen that may read it: a spectator's line (or a line of a racer
    who stopped racing) reaches no racer's screen, page or bot, while a race runs
    (`chat_view.hides_spectators`); those who stopped hear it (`chat_view.watchers`)."""
    message = ChatMessage.objects.select_related("room").filter(pk=message_id).first()
    if message is None:  # fifty newer lines came first: screens get it with their next snapshot
        return
    html = chat_view.line_html(message)
    event = bot_events.chat(chat_view.as_json(message))
    spectators_only = message.channel == ChatMessage.Channel.SPECTATORS
    game = message.room.current_game() if spectators_only else None
    if spectators_only and chat_view.hides_spectators(message.room, game):
        texts = {audiences.SPECTATORS: html}
        for seat in chat_view.watchers(message.room, game):  # out of the race, watching
            texts[audiences.seat(seat)] = html
            texts[audiences.json_seat(seat)] = event
        outbox.send(room_id, texts)
    else:
        outbox.send(room_id, {audiences.ALL: html, audiences.JSON: event})
    if message.spectator:  # the host's menu lists who spoke, to mute or kick them
        room = message.room
        host = Player.objects.filter(pk=room.host_id).values_list("number", flat=True).first()
        if host is not None:
            outbox.send(room_id, {audiences.seat(host): host_view.menu_html(room)})


def chat_after_race(room_id: int) -> None:
    """The race is over: its players see the spectators' channel at last. A query in a move's
    announcer, once per race (the move that ends it)."""
    room = rows.get(Room, id=room_id)
    outbox.send(room_id, {audiences.PLAYERS: chat_view.logs_html(room, player=True)})


def host(
    room_id: int,
    action: str,
    notice: str,
    closes: tuple[str, ...],
    menus: tuple[int, ...],
    also: tuple[str, ...] = (),
) -> None:
    """A host command taken (`games.rooms.host`): the notice on the players' screens (and their live
    region) and on those of `also` (spectators concerned), the host's menu on the host's screens
    and gone from a former host's, the sockets of whom the host kicked closed; then the roster
    (who hosts) and the spectator count as they are, for everyone."""
    room = Room.objects.select_related("host").get(pk=room_id)
    line = render_to_string("games/host.html#notice", {"notice": notice, "action": action})
    texts = {audiences.PLAYERS: line, **dict.fromkeys(also, line)}
    for seat in menus:
        texts[audiences.seat(seat)] = line + host_view.no_menu_html()
    if room.host is not None:
        texts[audiences.seat(room.host.number)] = line + host_view.menu_html(room)
    host_seat = None if room.host is None else room.host.number
    texts[audiences.JSON] = bot_events.host(action, host_seat, notice)
    outbox.send(room_id, texts, controls=dict.fromkeys(closes, audiences.Control.KICKED))
    roster(room_id)
    outbox.send(room_id, spectators_html(room_id))
