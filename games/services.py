"""The one place where rooms and games are written.

Every move, whether from a socket, the JSON API or the terminal, goes through `play`: read the
game, run the engine, then save the state, the move log row and the new version in one
transaction that succeeds only if the game is still at the version read, and broadcast only after
the commit, so no screen ever shows a move the database does not have. A move that loses that race
is played again with the game row locked from the read on, as the other commands
always are. Reading without the lock saves three of a move's five round trips to PostgreSQL
(`rowsql.write_move`), and starting from the game this process wrote last (`kept_games`), which
the write checks against the row, saves the read as well.
"""

import copy
import secrets
import time
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import regex
from django.db import transaction
from django.db.models import Case, F, Value, When
from django.db.models.functions import Greatest
from django.utils import timezone

from . import announce, hint_cache, kept_games, names, rowsql
from .kinds import kind_of, seats_away
from .kinds.table import (
    COMPUTER_SEAT,
    HINTED,
    Applied,
    GameKind,
    Invalid,
    Lineup,
    MoveNews,
    NewGame,
    Refused,
    Restart,
)
from .messages import CellMove, Command, Message, SquareMove
from .models import (
    MAX_NICKNAME,
    Game,
    Player,
    Presence,
    Room,
    ServerProcess,
    new_player_token,
)
from .names import NicknameError as NicknameError  # raised here, caught by the doors
from .palette import colour_for_seat


class Forbidden(PermissionError):
    """The sender may not do this here (a spectator moving, a wrong token): HTTP 403."""


SPECTATORS_CANNOT_PLAY = "Spectators can watch but not play. Open the invite link to join."
SPECTATORS_CANNOT_START = "Spectators can watch but not start games."
SPECTATORS_CANNOT_SET_BOT = "Spectators can watch but not add or remove the Solver bot."
_SPECTATOR_COMMANDS = {
    "new_game": SPECTATORS_CANNOT_START,
    "add_bot": SPECTATORS_CANNOT_SET_BOT,
    "remove_bot": SPECTATORS_CANNOT_SET_BOT,
}


def refuse_spectator(room: Room, player: Player | None, message: Message) -> None:
    """Forbidden, without the database, when a spectator sends a move or a command only a seat
    may send: the room socket refuses it on the event loop, so a flood of refused moves never
    queues on the one database thread in front of the room's real moves (issue 26). The
    services check the same again for their other callers (the API, the terminal)."""
    if player is not None and not player.is_spectator:
        return
    text = None
    if isinstance(message, Command):
        commands = kind_of(room.kind).commands
        plays = message.name in commands  # a kind's own command (a race's start)
        text = SPECTATORS_CANNOT_PLAY if plays else _SPECTATOR_COMMANDS.get(message.name)
    elif isinstance(message, CellMove | SquareMove):
        text = SPECTATORS_CANNOT_PLAY
    if text is not None:
        raise Forbidden(text)


class RoomFull(Exception):
    """Every seat of the room is taken (`MAX_PLAYERS_PER_ROOM`): watching is still open."""


MAX_PLAYERS_PER_ROOM = 50
"""Seats per room. Each seat is a row, a roster entry and a share of every broadcast; without a
cap anyone with the code could join until the room could no longer be sent (issue 14;
docs/operations.md, "Limits"). Spectators are not seats: they are counted, not capped."""

ROOM_FULL = (
    f"This room is full: all {MAX_PLAYERS_PER_ROOM} seats are taken. You can still watch the game."
)
ROOM_LOCKED = "The host locked this room: no new players. You can still watch the game."
ROOM_CAPPED = (
    "This room is full: its host allows {cap} players and all their seats are taken. "
    "You can still watch the game."
)


def join_refused(locked: bool, cap: int, players: int) -> str | None:
    """Why nobody may take a new seat (host controls: a lock, the player cap; the hard cap of
    `MAX_PLAYERS_PER_ROOM`), or None."""
    if locked:
        return ROOM_LOCKED
    if players >= MAX_PLAYERS_PER_ROOM:
        return ROOM_FULL
    if players >= cap:
        return ROOM_CAPPED.format(cap=cap)
    return None


_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})
"""Control, format (zero-width, bidirectional), private-use, surrogate and line/paragraph
separator characters: invisible or disruptive in a name, and PostgreSQL refuses NUL in text."""
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern)."""
_VISIBLE = ("L", "N", "P", "S")
"""Unicode category classes that draw something: letters, digits, punctuation, symbols."""
_GRAPHEME = regex.compile(r"\X")
"""One user-perceived character (a grapheme cluster, Unicode's rules as `regex` keeps them)."""
_JOINERS = "\u200c\u200d"


@dataclass(frozen=True)
class Outcome:
    game: Game
    applied: Applied
    replaced: int | None = None
    """`new_game` only: the game the sender named, when another click had replaced it already
    (nothing started; `game` is the current one)."""


def new_seed() -> int:
    return secrets.randbits(62)


def _drawn(cluster: str) -> str:
    """One grapheme cluster without what draws nothing. An emoji sequence (a cluster that starts
    with a symbol) keeps its joiners and tags, which make 👩‍👩‍👧‍👦 one family rather than four
    faces, but not one left dangling at its end; elsewhere every invisible character goes."""
    if len(cluster) > 1 and unicodedata.category(cluster[0]) == "So":
        return cluster.rstrip(_JOINERS)
    return "".join(
        " " if char.isspace() else char
        for char in cluster
        if char.isspace()
        or (unicodedata.category(char) not in _INVISIBLE and char not in _BLANK_LETTERS)
    )


def cut_to(name: str, limit: int) -> str:
    """`name`'s first whole grapheme clusters that fit in `limit` characters (code points, what
    the database counts): a cut never splits an emoji or a letter from its accents."""
    kept, size = [], 0
    for cluster in _GRAPHEME.findall(name):
        size += len(cluster)
        if size > limit:
            break
        kept.append(cluster)
    return "".join(kept)


def clean_nickname(raw: object) -> str:
    """Without invisible characters (`_drawn`), NFKC-normalised (so full-width and other
    compatibility look-alikes become the plain letters), single-spaced, 1..24 characters with at
    least one visible one; escaping is the templates' job. Grapheme clusters stay whole."""
    if not isinstance(raw, str):
        raise NicknameError("Choose a nickname.")
    kept = "".join(_drawn(cluster) for cluster in _GRAPHEME.findall(raw))
    name = " ".join(unicodedata.normalize("NFKC", kept).split())
    if not name:
        raise NicknameError("Choose a nickname.")
    if not any(
        unicodedata.category(char)[0] in _VISIBLE and char not in _BLANK_LETTERS for char in name
    ):
        raise NicknameError("Choose a nickname with at least one letter, digit or symbol.")
    if len(name) > MAX_NICKNAME:
        raise NicknameError(f"Nicknames are at most {MAX_NICKNAME} characters.")
    names.check_marks(name)
    names.check_reserved(name)
    return name


@transaction.atomic
def create_room(
    kind: str, settings: dict[str, Any], *, is_public: bool = True, seed: int | None = None
) -> Room:
    """A room with its first game; `settings` must already be validated by the kind's rules.
    `seed` deals the first game (reproducible boards); None: a random one, as every later game."""
    room = Room.objects.create(kind=kind, settings=settings, is_public=is_public)
    _create_game(room, number=1, seed=seed)
    return room


@transaction.atomic
def open_room(
    kind: str,
    settings: dict[str, Any],
    creator: str | None,
    *,
    is_public: bool = True,
    seed: int | None = None,
    account: Any = None,
) -> tuple[Room, Player | None]:
    """A room and its creator's seat (none when `creator` is None; `account`'s, a signed-in
    creator's), together or not at all: a nickname refused, or any error on the way, leaves no
    room without its host behind."""
    room = create_room(kind, settings, is_public=is_public, seed=seed)
    return room, None if creator is None else join_room(room, creator, account)


def _create_game(
    room: Room, number: int, previous: Game | None = None, seed: int | None = None
) -> Game:
    """A new game; its params come from the room's settings and the previous game (tic-tac-toe
    swaps sides on a rematch)."""
    kind = kind_of(room.kind)
    params = kind.game_params(room.settings, None if previous is None else previous.params)
    seed = new_seed() if seed is None else seed
    state = kind.initial_state(params, seed)
    if previous is not None and kind.carry_over is not None:
        online = Player.objects.filter(room=room, connections__gt=0).values_list(
            "number", flat=True
        )
        state = kind.carry_over(previous.state, previous.params, state, params, set(online))
    kept_games.forget(room.pk)  # the write would find the newer game anyway: skip the try
    return Game.objects.create(room=room, number=number, params=params, seed=seed, state=state)


def unique_nickname(name: str, taken: set[str]) -> str:
    """`name`, or the first of "name 2", "name 3"… that no one in the room has (`taken`, case
    folded), cut to fit the length limit: the room's narration must say who did what."""
    if name.casefold() not in taken:
        return name
    number = 2
    while True:
        suffix = f" {number}"
        candidate = cut_to(name, MAX_NICKNAME - len(suffix)).rstrip() + suffix
        if candidate.casefold() not in taken:
            return candidate
        number += 1


def join_refusal(room: Room) -> str | None:
    """Why the invite cannot seat anyone now (`join_refused`), read without a lock."""
    people = Player.objects.filter(room=room, role=Player.Role.PLAYER).count()
    return join_refused(room.locked, room.player_cap, people)


def seats_taken(room: Room) -> str | None:
    """Why a newcomer cannot take a seat that plays (every seat taken), for the invite to say
    before it asks a name; None while one is free. A read, not a lock: `join_room` decides."""
    refused = join_refusal(room)
    if refused is not None:
        return refused
    people = Player.objects.filter(room=room, role=Player.Role.PLAYER).count()
    seats = kind_of(room.kind).seats_for_people
    if seats is None or people < seats(room.settings):
        return None
    current = room.current_game()
    if current is not None and seats_away.free_mark(current.state) is not None:
        return None  # its player left long ago: whoever joins may take the seat
    taken = "Both seats are taken" if seats(room.settings) == 2 else "The seat is taken"
    return f"{taken} — you can watch."


class SeatKicked(PermissionError):
    """The account's seat in the room was kicked by the host: no new seat until `until`."""

    def __init__(self, until: datetime) -> None:
        super().__init__(until.isoformat())
        self.until = until


def account_seat(room: Room, account: Any) -> Player | None:
    """The seat a signed-in person (`account`, a `User`) holds in the room already, if any."""
    if account is None:
        return None
    return Player.objects.filter(room=room, account=account).order_by("-number").first()


@transaction.atomic
def join_room(room: Room, nickname: str, account: Any = None) -> Player:
    """A new seat, under a name no one else in the room has (see `unique_nickname`); the first
    player to join hosts the room. `RoomFull` in a locked room, or past its player cap (or
    `MAX_PLAYERS_PER_ROOM` seats). A signed-in person (`account`, a `User`) who holds a seat
    here already gets that seat back, so a kick or a mute binds to the account, not to a
    browser's cookie: `SeatKicked` while the kick lasts."""
    wanted = clean_nickname(nickname)
    # Lock the room, not its last seat: PostgreSQL re-reads only the row it waited for, so two
    # joins locking the old last seat would both take the next number (IntegrityError, a 500).
    # The lock also keeps the seat cap exact when many join at once.
    locked, cap = (
        Room.objects.select_for_update()
        .filter(pk=room.pk)
        .values_list("locked", "player_cap")
        .get()
    )
    kept = account_seat(room, account)  # after the lock: two joins at once make one seat
    if kept is not None:
        if kept.kicked_until is not None and kept.kicked_until > timezone.now():
            raise SeatKicked(kept.kicked_until)
        return kept
    seats = list(Player.objects.filter(room=room).values_list("number", "nickname", "role"))
    people = sum(1 for seat in seats if seat[2] == Player.Role.PLAYER)
    refused = join_refused(locked, cap, people)
    if refused is not None:
        raise RoomFull(refused)
    number = max((seat[0] for seat in seats), default=-1) + 1
    names.check_lookalike(wanted, (seat[1] for seat in seats))
    taken = {seat[1].casefold() for seat in seats}
    name = unique_nickname(wanted, taken)
    player = Player.objects.create(
        room=room, number=number, nickname=name, colour=colour_for_seat(number), account=account
    )
    if room.host_id is None:
        Room.objects.filter(pk=room.pk, host__isnull=True).update(host=player)
    transaction.on_commit(partial(announce.roster, room.pk))
    return player


def play(room: Room, player: Player | None, message: Message) -> Outcome:
    """Apply one move or command for `player` (None for a spectator)."""
    kind = kind_of(room.kind)
    if isinstance(message, Command) and message.name in kind.commands:
        return _command(room, player, message, kind)
    if isinstance(message, Command) and message.name == "new_game":
        return start_next_game(room, player, replacing=message.game)
    if isinstance(message, Command) and message.name == "hint":
        return ask_hint(room, player)
    if isinstance(message, Command) and message.name in ("add_bot", "remove_bot"):
        return set_bot(room, player, message.name == "add_bot", message.pace)
    if not isinstance(message, CellMove | SquareMove):
        raise Invalid("That is not a move.")
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_PLAY)
    outcome = _kept_move(room, player, message)
    if outcome is None:
        outcome = _move(room, player, message, rowsql.current_game(room.pk, locked=False))
    if outcome is None:  # another move got in between: again, the row locked from the read on
        with transaction.atomic():
            outcome = _move(room, player, message, _lock_current_game(room))
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
) -> Outcome | None:
    """The move applied to `game` and recorded, its broadcast due after the commit; None, and
    nothing written, when another move changed the game since it was read (`unchanged`: the
    state's text if `game` is a kept copy, `rowsql.write_move`)."""
    kind = kind_of(room.kind)
    applied = kind.apply(game.state, message, player.number, game.params)
    if applied.changed:
        written = _record(game, player, message, applied, unchanged=unchanged)
        if written is None:
            return None
        _announce_move(kind, room, game, player, applied, written)
    return Outcome(game, applied)


def _command(room: Room, player: Player | None, message: Command, kind: GameKind) -> Outcome:
    """A kind's own command (a race's start), with the room's seats, under the game's lock;
    logged and announced as a move when it changes the game."""
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_PLAY)
    with transaction.atomic():
        game = _lock_current_game(room)
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
            written = _record(game, player, message, applied)
            _announce_move(kind, room, game, player, applied, written)
    return Outcome(game, applied)


def _announce_move(
    kind: GameKind,
    room: Room,
    game: Game,
    player: Player | None,
    applied: Applied,
    written: str | None,
) -> None:
    """After the commit, the move's fragments for everyone in the room, then the game kept for
    the room's next move (`kept_games`, with `written`, the state's text as `_record` wrote it):
    in that order, so that copying the game (about 60 µs on a move after a pause) does not hold
    up the broadcast. What the fragments show beyond the move (seats, scores) is read now,
    inside the transaction, so the renderer gets all it needs from here and queries nothing."""
    facts = kind.rendering.gather(room, game, applied)
    news = MoveNews(room, game, applied, player, facts)
    transaction.on_commit(partial(announce.move, kind, news))
    if written is not None:
        transaction.on_commit(partial(_keep, game, written))


def _keep(game: Game, written: str) -> None:
    kept_games.keep(copy.copy(game), written)


def _lock_current_game(room: Room) -> Game:
    """The room's current game, locked until the transaction ends (a no-op lock on SQLite,
    where the immediate transaction already serialises writers)."""
    return rowsql.current_game(room.pk, locked=True)


def _record(
    game: Game,
    player: Player | None,
    message: Message,
    applied: Applied,
    seat: int | None = None,
    unchanged: str | None = None,
) -> str | None:
    """Save the new state and append the move; the state's text as written (for `kept_games`,
    through `_announce_move`). None, and nothing written, when another move changed the game
    since it was read (never under the row lock). A computer's move has no player, only a seat.
    The row's time is the one the rules used when they read the clock (`Applied.at`), so the
    log replays to the same times to the millisecond; else now."""
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
    return rowsql.write_move(game, fields, move, read_version, unchanged)


def _action_of(message: Message) -> str:
    """`Move.action`: a cell move's own, a command's name (a race's `start`, the clock's `tick`),
    or `mark` for a tic-tac-toe square."""
    if isinstance(message, Command):
        return message.name
    return getattr(message, "action", "mark")


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
        current = _lock_current_game(room)
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
        written = _record(current, None, logged, applied, seat=COMPUTER_SEAT)
        _announce_move(kind, room, current, None, applied, written)
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
        current = _lock_current_game(room)
        if replacing is not None and replacing != current.number:
            return Outcome(current, Applied(current.state, current.status, ()), replacing)
        room.refresh_from_db(fields=["settings", "host"])  # the host may have added the bot
        check = kind_of(room.kind).may_restart
        under_way = not current.is_over and current.version > 0
        asker = Restart(player.number, room.host_id == player.pk, under_way)
        refusal = None if check is None else check(current.state, current.params, asker)
        if refusal is not None:
            raise Refused(refusal)
        game = _create_game(room, number=current.number + 1, previous=current)
        news = NewGame(player.nickname, interrupted=under_way)
        transaction.on_commit(partial(announce.new_game, room.pk, news))
    return Outcome(game, Applied(game.state, game.status, ()))


def next_game_due(room: Room) -> tuple[int, datetime] | None:
    """(number, finished_at) of the room's current game when it is over and the next one starts
    by itself (`Computer.next_game_after`: computers hold every side), else None."""
    game = room.current_game()
    if game is None or not _starts_next_by_itself(kind_of(room.kind), game):
        return None
    return game.number, game.finished_at or game.created_at


def start_next_game_by_computer(room: Room, replacing: int) -> Outcome:
    """The rematch of a finished game that computers alone played, nobody asking: for the live
    driver, once `Computer.next_game_after` has passed.

    Nothing happens unless game `replacing` is still the current one, over, with computers on
    every side, so drivers in several processes (or a driver after a restart) start it once.
    """
    kind = kind_of(room.kind)
    with transaction.atomic():
        current = _lock_current_game(room)
        if current.number != replacing or not _starts_next_by_itself(kind, current):
            return Outcome(current, Applied(current.state, current.status, ()))
        game = _create_game(room, number=current.number + 1, previous=current)
        news = NewGame(starter=None, interrupted=False)
        transaction.on_commit(partial(announce.new_game, room.pk, news))
    return Outcome(game, Applied(game.state, game.status, ()))


def _starts_next_by_itself(kind: GameKind, game: Game) -> bool:
    computer = kind.computer
    return (
        computer is not None
        and computer.next_game_after is not None
        and game.is_over
        and computer.computers_only(game.params)
    )


def ask_hint(room: Room, player: Player | None) -> Outcome:
    """A provably safe hidden cell for everyone in the room: `summary["hint"]` is its (x, y), or
    None when the public board proves no cell safe (then a guess is needed).

    The hint is not a move: no state, move log or version changes (see `Hints.hint`); the room's
    counter goes up, also when the answer is "guess", because that answer tells the room something
    too. Everyone sees the cell highlighted and a line saying who asked. The answer is worked out
    once per game version and process (`hint_cache`); the room's socket works it out off the
    database thread (`live.hints`), through the same three steps as here.
    """
    board = read_hint_board(room, player)
    outcome = record_hint(room, player, board, work_out_hint(room, board))
    if outcome is None:  # the game ended or was replaced meanwhile: again, under the lock
        with transaction.atomic():
            game = _lock_current_game(room)
            board = HintBoard(game.pk, game.version, game.state)
            outcome = record_hint(room, player, board, work_out_hint(room, board))
    assert outcome is not None  # under the lock nothing can get in between
    return outcome


@dataclass(frozen=True)
class HintBoard:
    """The game a hint is worked out for, as read: its id, version and state."""

    game_id: int
    version: int
    state: dict[str, Any]


def check_hint(room: Room, player: Player | None) -> None:
    """Whether `player` may ask for a hint here at all: no database needed."""
    if kind_of(room.kind).hints is None:
        raise Invalid("Hints are for Minesweeper rooms.")
    if player is None or player.is_spectator:
        raise Forbidden("Spectators can watch but not ask for hints. Open the invite link to join.")


def read_hint_board(room: Room, player: Player | None) -> HintBoard:
    """The room's current game, read without a lock: one quick query."""
    check_hint(room, player)
    game = rowsql.current_game(room.pk, locked=False)
    return HintBoard(game.pk, game.version, game.state)


def known_hint(board: HintBoard) -> object:
    """The hint already worked out in this process for this game version, or
    `hint_cache.MISSING`."""
    return hint_cache.get(board.game_id, board.version)


def work_out_hint(room: Room, board: HintBoard) -> tuple[int, int] | None:
    """The kind's hint for `board` (the solver, 15-25 ms on a 50x50 mid-game), once per game
    version and process. No database: safe on any thread. Refused when the game is over."""
    cell = known_hint(board)
    if cell is hint_cache.MISSING:
        hints = kind_of(room.kind).hints
        assert hints is not None
        cell = hints.hint(board.state)  # Refused when the game is over: nothing kept or counted
        hint_cache.put(board.game_id, board.version, cell)
    return cell  # type: ignore[return-value]


def record_hint(
    room: Room, player: Player, board: HintBoard, cell: tuple[int, int] | None
) -> Outcome | None:
    """Count the hint, keep its cell in the game's params (`HINTED`: the kind's computer leaves
    it for the people) and announce it after the commit; None, and nothing written, when the
    game read is over or no longer the room's, or a move that landed meanwhile opened the cell
    (the hint would show nothing). Another move changes nothing: mines do not move, so a cell
    proved safe stays safe."""
    hints = kind_of(room.kind).hints
    assert hints is not None
    with transaction.atomic():
        game = _lock_current_game(room)
        if game.pk != board.game_id or (game.version != board.version and game.is_over):
            return None
        if cell is not None and game.version != board.version and hints.opened(game.state, cell):
            return None
        Room.objects.filter(pk=room.pk).update(hints_used=F("hints_used") + 1)
        game.params = {**game.params, HINTED: cell}
        Game.objects.filter(pk=game.pk).update(params=game.params)
        transaction.on_commit(partial(announce.hint, room.pk, player.nickname, cell))
    return Outcome(game, Applied(game.state, game.status, (), {"hint": cell}))


def revoke_token(room: Room, host: Player, seat: int) -> Player:
    """A new token for seat `seat`, asked by the room's host: the old one is refused from now on
    (403 in the API, 4403 on a socket) and the seat's open sockets close with 4403. Tokens
    otherwise never expire: this is how a leaked one (a bot's, a shared link's) stops working.
    The seat keeps its name and its moves; nobody holds it until the host hands its new token
    over (the answer carries it)."""
    with transaction.atomic():
        fresh = Room.objects.select_for_update().get(pk=room.pk)
        if fresh.host_id != host.pk:
            raise Forbidden("Only the host can revoke a seat's token.")
        player = Player.objects.filter(room=room, number=seat).first()
        if player is None:
            raise Invalid(f"This room has no seat {seat}.")
        if player.pk == host.pk:
            raise Invalid("The host's own token cannot be revoked.")
        player.token = new_player_token()
        player.save(update_fields=["token"])
        transaction.on_commit(partial(announce.token_revoked, room.pk, seat))
    return player


def delete_room(room: Room, host: Player) -> None:
    """The room, its seats, games and moves deleted, asked by its host: its code answers 404
    from now on, and every socket in it is told and closed (4404) after the commit. A bot that
    makes a room per game would otherwise leave every one behind for good."""
    with transaction.atomic():
        fresh = Room.objects.select_for_update().filter(pk=room.pk).first()
        if fresh is None:
            return  # deleted meanwhile: the same result
        if fresh.host_id != host.pk:
            raise Forbidden("Only the host can delete the room.")
        fresh.delete()
        transaction.on_commit(partial(announce.room_closed, room.pk))
        transaction.on_commit(partial(kept_games.forget, room.pk))


def set_bot(room: Room, player: Player | None, on: bool, pace: int | None = None) -> Outcome:
    """Seat (`on`) or unseat the Solver bot, at `pace` where the kind's bot offers paces (seated
    already: only its pace changes): the host only, Minesweeper rooms only.

    Kept in the room's settings, so every later game has it, and in the current game's params,
    which is what the live driver (`autoplay`) and a race's start read. Not a move: the version
    stays.
    """
    kind = kind_of(room.kind)
    bot = kind.bot
    if bot is None:
        raise Invalid("The Solver bot plays Minesweeper rooms only.")
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_SET_BOT)
    if pace is not None and (not on or bot.with_pace is None):
        raise Invalid("This Solver bot has one pace: send add_bot without a pace.")
    paced = bot.with_pace if pace is not None else None
    with transaction.atomic():
        game = _lock_current_game(room)
        fresh = Room.objects.select_for_update().get(pk=room.pk)
        if fresh.host_id != player.pk:
            raise Forbidden("Only the host can add or remove the Solver bot.")
        settings, params = {**fresh.settings, "bot": on}, {**game.params, "bot": on}
        if paced is not None and pace is not None:
            settings, params = paced(settings, pace), paced(params, pace)  # Invalid: not offered
        if settings != fresh.settings or params != game.params:
            room.settings = fresh.settings = settings
            fresh.save(update_fields=["settings"])
            game.params = params
            game.save(update_fields=["params"])
            kept_games.forget(room.pk)
            computer = kind.computer
            stuck = (
                on
                and computer is not None
                and not game.is_over
                and computer.to_move(game.state, game.params) is None
            )
            tell = partial(announce.bot_changed, room.pk, player.nickname, on, stuck)
            transaction.on_commit(tell)
    return Outcome(game, Applied(game.state, game.status, ()))


def computer_turn(room: Room) -> tuple[int, int] | None:
    """(game number, version) while the room's current game waits for a computer, else None."""
    computer = kind_of(room.kind).computer
    game = room.current_game()
    if game is None or computer is None:
        return None
    if computer.to_move(game.state, game.params) is None:
        return None
    return game.number, game.version


def computer_move(room: Room, expected_version: int, *, game: int | None = None) -> Outcome | None:
    """Play the computer's move, through the same path as a person's: lock the game, run the
    engine, log the move (no player, the computer seat), bump the version, broadcast after commit.

    Nothing happens unless the current game (number `game`, when given) is still at
    `expected_version` with a computer to move, so drivers racing in several processes (or a
    person starting a rematch meanwhile) apply each computer move once.
    """
    kind = kind_of(room.kind)
    computer = kind.computer
    if computer is None:
        return None
    with transaction.atomic():
        current = _lock_current_game(room)
        if current is None or current.version != expected_version:
            return None
        if game is not None and current.number != game:
            return None
        chosen = computer.move(current.state, current.params, current.seed, current.version)
        if chosen is None:
            return None
        message, applied = chosen
        written = _record(current, None, message, applied, seat=COMPUTER_SEAT)
        _announce_move(kind, room, current, None, applied, written)
    return Outcome(current, applied)


def play_computer_turns(room: Room) -> list[Outcome]:
    """Every computer move now due, at once (no pause), in kinds whose computer `plays_at_once`:
    for the JSON API, so a bot playing the computer gets the reply in the same response. Computer
    against computer plays to the end. Other computers (the Minesweeper Solver bot) play only
    live, at a person's pace, from the websocket process (`live.autoplay`)."""
    computer = kind_of(room.kind).computer
    if computer is None or not computer.plays_at_once:
        return []
    outcomes: list[Outcome] = []
    for _ in range(AT_ONCE_LIMIT):
        turn = computer_turn(room)
        if turn is None:
            break
        outcome = computer_move(room, turn[1], game=turn[0])
        if outcome is not None:
            outcomes.append(outcome)
    return outcomes


AT_ONCE_LIMIT = 100
"""Computer moves one API request plays at most: a guard against a kind whose computers never
finish, far above any real game's length (tic-tac-toe has nine moves)."""


def presence_changed(room: Room, player: Player | None, delta: int, process: str) -> None:
    """Count an opened (+1) or closed (-1) socket of `process` (a `ServerProcess` id). Telling
    the room is left to the live layer, which gathers a room's changes into a few messages a
    second (`live.rosters`); from here it would hop back onto the event loop, which during
    shutdown has stopped, and the process would never exit.

    The count changes only by what the process's own part (`Presence`) held: a socket closing
    after its process was taken for dead (`forget_dead_processes`) was already taken out."""
    with transaction.atomic():
        player_id = None if player is None else player.pk
        applied = _change_share(process, room.pk, player_id, delta)
        if player_id is None:
            _change_counts({}, {room.pk: applied})
        else:
            _change_counts({player_id: applied}, {})
            if applied and kind_of(room.kind).presence is not None:
                _seat_presence(room, player_id)


def _seat_presence(room: Room, player_id: int) -> None:
    """Tell the game a seat's first socket opened or its last one closed (a racer's grace
    period), as a move when that changes the game; sockets in between change nothing."""
    hook = kind_of(room.kind).presence
    seat = Player.objects.filter(pk=player_id).values_list("number", "connections").first()
    if hook is None or seat is None:
        return
    number, connections = seat
    game = _lock_current_game(room)
    applied = hook(game.state, game.params, number, connections > 0)
    if applied is not None and applied.changed:
        player = Player.objects.get(pk=player_id)
        written = _record(game, player, Command("back" if connections else "away"), applied)
        _announce_move(kind_of(room.kind), room, game, player, applied, written)


def spectators_counted(
    room_id: int, came: int, left: int, process: str, crowd: int | None = None
) -> None:
    """Spectator sockets of `process` in a room since its last presence message, in one
    transaction (`live.rosters`): `left` were written before and are taken out first, as far as
    the process's part still holds them (it may have been taken for dead meanwhile), then `came`
    are added; `crowd`, when it changed, is how many addresses they come from now."""
    with transaction.atomic():
        applied = _change_share(process, room_id, None, -left) if left else 0
        if came:
            applied += _change_share(process, room_id, None, came)
        if crowd is not None:
            Presence.objects.filter(process=process, room_id=room_id, player__isnull=True).update(
                crowd=crowd
            )
        _change_counts({}, {room_id: applied})


def sockets_closed(players: dict[int, int], spectators: dict[int, int], process: str) -> None:
    """Many sockets of `process` gone at once (the process stopping, or its channel layer lost):
    per player id and per room id (spectators), how many. No roster is rendered; each room gets
    a fresh one as its clients reconnect."""
    with transaction.atomic():
        players = {pk: _change_share(process, None, pk, -n) for pk, n in players.items()}
        spectators = {pk: _change_share(process, pk, None, -n) for pk, n in spectators.items()}
        _change_counts(players, spectators)
        _seats_left(pk for pk, taken in players.items() if taken)


def _change_share(process: str, room_id: int | None, player_id: int | None, delta: int) -> int:
    """Add `delta` sockets to the process's part of a player's (or a room's spectators') count;
    returns the change made, which for a closing socket is never more than the part held."""
    if player_id is None:
        shares = Presence.objects.filter(process=process, room_id=room_id, player__isnull=True)
    else:
        shares = Presence.objects.filter(process=process, player_id=player_id)
    if delta > 0:
        if not shares.update(sockets=F("sockets") + delta):
            Presence.objects.create(
                process=process, room_id=room_id, player_id=player_id, sockets=delta
            )
        return delta
    share = shares.first()
    if share is None:
        return 0
    taken = min(-delta, share.sockets)
    if taken == share.sockets:
        share.delete()
    else:
        shares.update(sockets=F("sockets") - taken)
    return -taken


def _change_counts(players: dict[int, int], spectators: dict[int, int]) -> None:
    """The counts, and for a seat whose count leaves or reaches zero, since when it is online
    or away (the host seat passes on by itself after a while away: `host`). Every expression of
    one UPDATE reads the row as it was."""
    now = timezone.now()
    for pk, delta in players.items():
        if delta:
            when = (
                {"online_since": Case(When(connections=0, then=Value(now)), default="online_since")}
                if delta > 0
                else {
                    "away_since": Case(
                        When(connections__lte=-delta, then=Value(now)), default="away_since"
                    )
                }
            )
            Player.objects.filter(pk=pk).update(
                connections=Greatest(F("connections") + delta, Value(0)), **when
            )
    for pk, delta in spectators.items():
        if delta:
            Room.objects.filter(pk=pk).update(
                spectators=Greatest(F("spectators") + delta, Value(0))
            )


def process_seen(process: str) -> bool:
    """A server process's heartbeat. False when its row was missing: a new process, or one
    taken for dead (its sockets are no longer counted; see `forget_dead_processes`)."""
    now = timezone.now()
    if ServerProcess.objects.filter(pk=process).update(last_seen=now):
        return True
    ServerProcess.objects.create(pk=process, last_seen=now)
    return False


def process_stopped(process: str) -> None:
    """A clean stop: the process's row and whatever it still counted go at once."""
    with transaction.atomic():
        _take_out(process)
        ServerProcess.objects.filter(pk=process).delete()


def forget_dead_processes(expiry_seconds: float) -> dict[int, bool]:
    """Take out of the counts the sockets of every process that has not beaten for
    `expiry_seconds` (killed without a goodbye), and of sockets counted under no process row.
    Safe in several processes at once: each dead process's part is taken out once. Returns the
    rooms that changed, each with whether a player (not only spectators) went offline."""
    cutoff = timezone.now() - timedelta(seconds=expiry_seconds)
    dead = set(ServerProcess.objects.filter(last_seen__lt=cutoff).values_list("pk", flat=True))
    alive = ServerProcess.objects.values("pk")
    dead.update(Presence.objects.exclude(process__in=alive).values_list("process", flat=True))
    rooms: dict[int, bool] = {}
    for process in dead:
        with transaction.atomic():
            gone = ServerProcess.objects.filter(pk=process, last_seen__lt=cutoff).delete()[0]
            if not gone and ServerProcess.objects.filter(pk=process).exists():
                continue  # it beat meanwhile
            for room_id, player in _take_out(process):
                rooms[room_id] = rooms.get(room_id, False) or player
    return rooms


def _take_out(process: str) -> list[tuple[int, bool]]:
    """Delete the process's parts and subtract them from the counts; the rows are locked first,
    so two processes sweeping the same one subtract it once (on SQLite, writes are serial)."""
    shares = list(Presence.objects.select_for_update().filter(process=process))
    Presence.objects.filter(pk__in=[share.pk for share in shares]).delete()
    players = {s.player_id: -s.sockets for s in shares if s.player_id is not None}
    spectators = {s.room_id: -s.sockets for s in shares if s.player_id is None}
    _change_counts(players, spectators)
    _seats_left(players)
    return [(s.room_id, s.player_id is not None) for s in shares]


def _seats_left(player_ids: Iterable[int]) -> None:
    """Tell each game whose seat lost its last socket in a sweep (a killed process, a lost
    channel layer), as a closing socket does (`_seat_presence`): else a racer whose process died
    is never away, and a race with no time limit never ends."""
    gone = Player.objects.filter(pk__in=list(player_ids), connections=0).select_related("room")
    for player in gone:
        if kind_of(player.room.kind).presence is not None:
            _seat_presence(player.room, player.pk)


def find_player(room: Room, token: object) -> Player | None:
    if not isinstance(token, str) or not token:
        return None
    return Player.objects.filter(room=room, token=token).first()
