"""Moves and the clock: the write of one move, a kind's own command, a timed event, a new game.

Every move, whether from a socket, the JSON API or the terminal, goes through `play_move`
(`dispatch.play` sends it here): read the
game, run the engine, then save the state, the move log row and the new version in one
transaction that succeeds only if the game is still at the version read, and broadcast only after
the commit, so no screen ever shows a move the database does not have. A move that loses that race
is played again with the game row locked from the read on, as the other commands
always are. Reading without the lock saves three of a move's five round trips to PostgreSQL
(`rowsql.write_move`), and starting from the game this process wrote last (`kept_games`), which
the write checks against the row, saves the read as well.
"""

import copy
import time
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial

from django.db import transaction
from django.utils import timezone

from ..broadcast import announce
from ..kinds import kind_of
from ..kinds.table import (
    COMPUTER_SEAT,
    Applied,
    GameKind,
    Invalid,
    Lineup,
    MoveNews,
    NewGame,
    Refused,
    Restart,
)
from ..protocol.messages import CellMove, Command, Message, SquareMove
from ..store import daily, kept_games, rowsql
from ..store.models import Game, Player, Room
from . import joining, ratings
from .base import SPECTATORS_CANNOT_PLAY, SPECTATORS_CANNOT_START, Forbidden, Outcome


def play_move(room: Room, player: Player | None, message: CellMove | SquareMove) -> Outcome:
    """One move on the board for `player`: played on the game this process wrote last when
    the row still holds it, else on the row read without a lock, else (another move got in
    between) on the row locked from the read on."""
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_PLAY)
    outcome = _kept_move(room, player, message)
    if outcome is None:
        outcome = _move(room, player, message, rowsql.current_game(room.pk, locked=False))
    if outcome is None:  # another move got in between: again, the row locked from the read on
        with transaction.atomic():
            outcome = _move(room, player, message, lock_current_game(room), locked=True)
    assert outcome is not None  # under the lock nothing can get in between
    return outcome


def _kept_move(room: Room, player: Player, message: CellMove | SquareMove) -> Outcome | None:
    """The move played on the game this process wrote last, if the row still holds it; None
    (nothing written) when there is none, it is stale, or the move changes nothing or is
    refused there: the row read afresh decides those, so a stale copy never answers anyone."""
    kept = kept_games.take(room.pk)
    if kept is None:
        return None
    try:
        outcome = _move(room, player, message, kept.game, kept.state_text)
    except (Invalid, Refused):
        return None
    return outcome if outcome is not None and outcome.applied.changed else None


def _move(
    room: Room,
    player: Player,
    message: CellMove | SquareMove,
    game: Game,
    unchanged: str | None = None,
    locked: bool = False,
) -> Outcome | None:
    """The move applied to `game` and recorded, its broadcast due after the commit; None, and
    nothing written, when another move changed the game since it was read (`unchanged`: the
    state's text if `game` is a kept copy, `rowsql.write_move`), or when the move ends a rated
    game and the row is not `locked`: that end is written under the lock, in the transaction
    that rates it (`ratings.settle`), once a game."""
    kind = kind_of(room.kind)
    applied = kind.rules.apply(game.state, message, player.number, game.params)
    ends_rated = applied.status != Game.Status.PLAYING and ratings.is_rated(room.settings)
    if ends_rated and not locked:
        return None
    if applied.changed:
        written = record(game, player, message, applied, unchanged=unchanged)
        if written is None:
            return None
        announce_move(kind, room, game, player, applied, written)
    return Outcome(game, applied)


def command(room: Room, player: Player | None, message: Command, kind: GameKind) -> Outcome:
    """A kind's own command (a race's start), with the room's seats, under the game's lock;
    logged and announced as a move when it changes the game."""
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_PLAY)
    with transaction.atomic():
        game = lock_current_game(room)
        host = Room.objects.filter(pk=room.pk).values_list("host_id", flat=True).get()
        seated = Player.objects.filter(room=room, role=Player.Role.PLAYER).order_by("number")
        rows = list(seated.values_list("pk", "number", "connections"))
        seats = tuple((number, connections > 0) for _, number, connections in rows)
        host_online = any(pk == host and connections > 0 for pk, _, connections in rows)
        lineup = Lineup(player.number, host == player.pk, seats, host_online)
        applied = kind.commands[message.name](game.state, lineup, game.params)
        if applied.params is not None:  # a side changed hands (a free seat taken)
            game.params = applied.params
            Game.objects.filter(pk=game.pk).update(params=applied.params)
        if applied.changed:
            written = record(game, player, message, applied)
            announce_move(kind, room, game, player, applied, written)
    return Outcome(game, applied)


def announce_move(
    kind: GameKind,
    room: Room,
    game: Game,
    player: Player | None,
    applied: Applied,
    written: str | None,
) -> None:
    """After the commit, the move's fragments for everyone in the room, then the game kept for
    the room's next move (`kept_games`, with `written`, the state's text as `record` wrote it):
    in that order, so that copying the game (about 60 µs on a move after a pause) does not hold
    up the broadcast. What the fragments show beyond the move (seats, scores) is read now,
    inside the transaction, so the renderer gets all it needs from here and queries nothing.
    A rated game's end moves its players' ratings here, in the same transaction (every path
    that records a move comes here: a move, a command, the clock, a player leaving), and
    announces the changes after the move."""
    facts = kind.rendering.gather(room, game, applied)
    news = MoveNews(room, game, applied, player, facts)
    transaction.on_commit(partial(announce.move, kind, news))
    if game.is_over and ratings.is_rated(room.settings):
        changes = ratings.settle(game)
        if changes:
            transaction.on_commit(partial(announce.ratings, room.pk, game.number, changes))
    if written is not None:
        transaction.on_commit(partial(_keep, game, written))


def _keep(game: Game, written: str) -> None:
    kept_games.keep(copy.copy(game), written)


def lock_current_game(room: Room) -> Game:
    """The room's current game, locked until the transaction ends (a no-op lock on SQLite,
    where the immediate transaction already serialises writers)."""
    return rowsql.current_game(room.pk, locked=True)


def lock_current_game_if_any(room: Room) -> Game | None:
    """`lock_current_game`, or None once the room is gone: a computer's or a clock's turn
    that fires as the host deletes the room finds nothing to do, and no error to log."""
    try:
        return lock_current_game(room)
    except Game.DoesNotExist:
        return None


def record(
    game: Game,
    player: Player | None,
    message: Message,
    applied: Applied,
    seat: int | None = None,
    unchanged: str | None = None,
) -> str | None:
    """Save the new state and append the move; the state's text as written (for `kept_games`,
    through `announce_move`). None, and nothing written, when another move changed the game
    since it was read (never under the row lock). A computer's move has no player, only a seat.
    The row's time is the one the rules used when they read the clock (`Applied.at`), so the
    log replays to the same times to the millisecond; else now. The one place a game's end is
    written: a daily copy's result is recorded here, in the same transaction."""
    now = timezone.now() if applied.at is None else datetime.fromtimestamp(applied.at, UTC)
    read_version = game.version
    game.state = applied.state
    game.status = applied.status
    game.version += 1
    if game.started_at is None:
        game.started_at = now
    if applied.status != Game.Status.PLAYING:
        game.finished_at = now
    move = {
        "game_id": game.pk,
        "seq": game.version,
        "player_id": None if player is None else player.pk,
        "seat": player.number if player is not None else seat,
        "action": _action_of(message),
        "x": getattr(message, "x", None),
        "y": getattr(message, "y", None),
        "cell": getattr(message, "cell", None),
        "created_at": now,
    }
    fields = ["state", "status", "version", "started_at", "finished_at"]
    if applied.status == Game.Status.PLAYING or not daily.is_daily(game.params):
        return rowsql.write_move(game, fields, move, read_version, unchanged)
    with transaction.atomic():  # a daily copy's end and its result: both or neither
        written = rowsql.write_move(game, fields, move, read_version, unchanged)
        if written is not None:
            daily.record_end(game)
    return written


def _action_of(message: Message) -> str:
    """`Move.action`: a cell move's own, a command's name (a race's `start`, the clock's `tick`),
    or `mark` for a tic-tac-toe square."""
    return message.action


TICK = Command("tick")
"""The clock's move in the log: what `GameKind.clock` changed when its time came."""


def clock_due(room: Room) -> tuple[int, int, float] | None:
    """(game number, version, Unix time) of the current game's next timed event, or None."""
    clock = kind_of(room.kind).clock
    game = room.current_game()
    if clock is None or game is None:
        return None
    due = clock.due(game.state, game.params)
    return None if due is None else (game.number, game.version, due)


def tick(room: Room) -> Outcome | None:
    """The room's timed events now due (a countdown ending, a turn timer, a penalty or a grace
    period running out), applied through the same path as a move: locked, logged as a `tick`
    of the computer seat, announced after the commit. None when nothing was due: drivers in
    several processes may all fire at the same moment, and only the first finds work."""
    kind = kind_of(room.kind)
    if kind.clock is None:
        return None
    with transaction.atomic():
        current = lock_current_game_if_any(room)
        if current is None:
            return None
        now = time.time()
        applied = kind.clock.tick(current.state, current.params, now)
        if applied is None or not applied.changed:
            return None
        if applied.at is None:  # logged at the time the rules were given, whatever the kind
            applied = replace(applied, at=now)
        # A kind may name its timed event in the log (a seat freed is no turn timing out).
        logged = Command(applied.summary.get("action", TICK.name))
        written = record(current, None, logged, applied, seat=COMPUTER_SEAT)
        announce_move(kind, room, current, None, applied, written)
    return Outcome(current, applied)


def start_next_game(room: Room, player: Player | None, replacing: int | None = None) -> Outcome:
    """The next game with the room's settings, shown live to everyone in the room.

    `replacing` names the game the sender saw; if another click already replaced it, nothing
    happens, so a double click or two players at once start one new game, not two. Everyone is
    told who started it, and whether it cut a game under way short. The page asks its player to
    confirm that (the smiley); the socket and the API do not, so bots keep one-step restarts.
    """
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_START)
    with transaction.atomic():
        current = lock_current_game(room)
        if replacing is not None and replacing != current.number:
            return Outcome(current, Applied(current.state, current.status, ()), replacing)
        room.refresh_from_db(fields=["settings", "host"])  # the host may have added the bot
        check = kind_of(room.kind).rules.may_restart
        under_way = not current.is_over and current.version > 0
        asker = Restart(player.number, room.host_id == player.pk, under_way)
        refusal = None if check is None else check(current.state, current.params, asker)
        if refusal is not None:
            raise Refused(refusal)
        game = joining.create_game(room, number=current.number + 1, previous=current)
        news = NewGame(player.nickname, interrupted=under_way)
        transaction.on_commit(partial(announce.new_game, room.pk, news))
    return Outcome(game, Applied(game.state, game.status, ()))
