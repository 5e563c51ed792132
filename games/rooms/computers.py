"""Computer players: the Solver bot the host seats (`set_bot`), a computer's move through the same
path as a person's (`computer_move`), every due move at once for the JSON API
(`play_computer_turns`), and the rematch computers start by themselves. The live driver that
paces them is `autoplay`.
"""

from datetime import datetime
from functools import partial

from django.db import transaction

from ..broadcast import announce
from ..kinds import kind_of
from ..kinds.table import (
    COMPUTER_SEAT,
    RATED_NO_COMPUTERS,
    Applied,
    GameKind,
    Invalid,
    NewGame,
    Refused,
)
from ..store import kept_games
from ..store.models import Game, Player, Room
from . import joining, playing
from .base import SPECTATORS_CANNOT_SET_BOT, Forbidden, Outcome


def next_game_due(room: Room) -> tuple[int, datetime] | None:
    """(number, finished_at) of the room's current game when it is over and the next one starts
    by itself (`Computer.next_game_after`: computers hold every side), else None."""
    game = room.current_game()
    if game is None or not starts_next_by_itself(kind_of(room.kind), game):
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
        current = playing.lock_current_game(room)
        if current.number != replacing or not starts_next_by_itself(kind, current):
            return Outcome(current, Applied(current.state, current.status, ()))
        game = joining.create_game(room, number=current.number + 1, previous=current)
        news = NewGame(starter=None, interrupted=False)
        transaction.on_commit(partial(announce.new_game, room.pk, news))
    return Outcome(game, Applied(game.state, game.status, ()))


def starts_next_by_itself(kind: GameKind, game: Game) -> bool:
    computer = kind.computer
    return (
        computer is not None
        and computer.next_game_after is not None
        and game.is_over
        and computer.computers_only(game.params)
    )


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
    if on and room.settings.get("rated"):
        raise Refused(RATED_NO_COMPUTERS)  # a computer has no account to rate
    paced = bot.with_pace if pace is not None else None
    with transaction.atomic():
        game = playing.lock_current_game(room)
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
        current = playing.lock_current_game_if_any(room)
        if current is None or current.version != expected_version:
            return None
        if game is not None and current.number != game:
            return None
        chosen = computer.move(current.state, current.params, current.seed, current.version)
        if chosen is None:
            return None
        message, applied = chosen
        written = playing.record(current, None, message, applied, seat=COMPUTER_SEAT)
        playing.announce_move(kind, room, current, None, applied, written)
    return Outcome(current, applied)


def play_computer_turns(room: Room) -> list[Outcome]:
    """Every computer move now due, at once (no pause), in kinds whose computer `plays_at_once`:
    for the JSON API, so a bot playing the computer gets the reply in the same response. Computer
    against computer plays to the end. Other computers (the Minesweeper Solver bot) play only
    live, at a person's pace, from the websocket process (`rooms.autoplay`)."""
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
