"""Minesweeper Flags rooms: who sits where, engine moves, the computer's choices.

As in tic-tac-toe, a room is made for two *entrants*: entrant 1 holds X in game 1 and entrant 2
holds O; each is a person or a computer (`easy` or `strong`). People take the entrants who are
people in the order they join (`Player.number`); anyone after that watches. Every game stores
its own side-to-entrant assignment in `Game.params`, with the board's mine count and the turn
timer, so the move log reads without any other game:

    {"X": {"entrant": 1, "player": "human", "seat": 0},
     "O": {"entrant": 2, "player": "strong", "seat": null},
     "mines": 51, "turn_seconds": 0}

A rematch swaps the sides (X always moves first). Computer moves come from an rng seeded with
the game's seed and version, so a game replays from its move log.
"""

import random
import time
from dataclasses import dataclass, replace
from typing import Any

from games.engine import flags as engine
from games.engine.errors import GameOverError, OutOfBoundsError
from games.engine.flags_ai import Strategy, choose_move

from ...protocol.messages import CellMove, Message
from .. import seats_away
from .. import sides as two_sided
from ..table import Applied, Invalid, Lineup, Refused, SettingsError

HUMAN = two_sided.HUMAN
PLAYERS = (HUMAN, *(strategy.value for strategy in Strategy))
"""What may sit in a seat: "human", "easy" or "strong" (the API's names)."""
PLAYER_LABELS = {"human": "Person", "easy": "Computer (easy)", "strong": "Computer (strong)"}

WIDTH = HEIGHT = 16
"""The board of the standard game; only the mine count is a room option."""
STANDARD_MINES = engine.STANDARD.mines
MAX_MINES = 99
"""Most mines a room takes: past about 40% of the board, claims are luck, not reading."""
TURN_SECONDS = (0, 15, 30, 60)
"""The turn timer's choices, in seconds; 0 is no timer."""
ACTIONS = ("reveal", "bomb")
HOW_TO_MOVE = 'This is a Flags room: send {"action": "reveal" or "bomb", "x": X, "y": Y}.'


@dataclass(frozen=True, slots=True)
class Side:
    """Who holds one side (X or O) in one game."""

    mark: engine.Seat
    entrant: int
    player: str
    seat: int | None

    @property
    def is_computer(self) -> bool:
        return self.player != HUMAN

    @property
    def label(self) -> str:
        return PLAYER_LABELS[self.player]


def validate_settings(
    x: Any, o: Any, mines: Any = STANDARD_MINES, turn_seconds: Any = 0, rated: Any = False
) -> dict[str, Any]:
    """Room settings, or a SettingsError naming the field at fault and what it may be."""
    for name, value in (("x", x), ("o", o)):
        if value not in PLAYERS:
            raise SettingsError(
                f"{name.upper()} must be one of {', '.join(PLAYERS)}, got {str(value)[:40]!r}.",
                name,
            )
    if (
        not isinstance(mines, int)
        or isinstance(mines, bool)
        or not 1 <= mines <= MAX_MINES
        or mines % 2 == 0
    ):
        raise SettingsError(
            f"Mines must be an odd number from 1 to {MAX_MINES} (odd, so nobody ties); "
            f"the standard game has {STANDARD_MINES}.",
            "mines",
        )
    if turn_seconds not in TURN_SECONDS or isinstance(turn_seconds, bool):
        choices = ", ".join(str(s) for s in TURN_SECONDS)
        raise SettingsError(
            f"The turn timer must be one of {choices} seconds (0: no timer).", "turn_seconds"
        )
    rating = two_sided.rated_sides(x, o, rated)
    return {"x": x, "o": o, "mines": mines, "turn_seconds": turn_seconds, **rating}


creator_sits = two_sided.creator_sits


def game_params(settings: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """The next game's sides: game 1 from the room's settings, every later one swapped."""
    board = {"mines": settings["mines"], "turn_seconds": settings.get("turn_seconds", 0)}
    return two_sided.with_rated(settings, {**two_sided.next_sides(settings, previous), **board})


def sides(params: dict[str, Any]) -> dict[engine.Seat, Side]:
    return two_sided.sides_of(params, engine.Seat, Side)


def side_of_seat(params: dict[str, Any], seat: int) -> Side | None:
    """The side a person's seat holds this game, or None when they have no seat in it."""
    return two_sided.side_of_seat(sides(params), seat)


def config(params: dict[str, Any]) -> engine.Config:
    return engine.Config(WIDTH, HEIGHT, params["mines"])


def initial_state(params: dict[str, Any], seed: int) -> dict[str, Any]:
    return engine.to_dict(engine.new_game(config(params), seed))


def load(state: dict[str, Any]) -> engine.State:
    return engine.from_dict(state)


def apply(state: dict[str, Any], message: Message, seat: int, params: dict[str, Any]) -> Applied:
    """A person's reveal or bomb: Invalid for a message that can never work here (another
    kind's move, a cell off the board), Refused for one the game's state or the sender's seat
    refuses (no seat, game over, not your turn, already open, bomb not allowed)."""
    if not isinstance(message, CellMove) or message.action not in ACTIONS:
        raise Invalid(HOW_TO_MOVE)
    board = engine.from_dict(state)
    if not board.grid.contains(message.x, message.y):
        raise Invalid(off_board(board, message.x, message.y))
    side = side_of_seat(params, seat)
    if side is None:
        raise Refused("You have no seat in this game: both sides are taken. You can still watch.")
    applied = play(board, engine.Action(message.action), message.x, message.y, side.mark)
    return seats_away.carried(state, stamped(applied, params, time.time()))


def off_board(board: engine.State, x: int, y: int) -> str:
    width, height = board.config.width, board.config.height
    return f"Cell ({x}, {y}) is off the board: x is 0 to {width - 1}, y is 0 to {height - 1}."


def play(board: engine.State, action: engine.Action, x: int, y: int, mark: engine.Seat) -> Applied:
    """One move for `mark`, each refusal of the engine worded for the player."""
    try:
        new, events = engine.apply_move(board, engine.Move(action, x, y, mark))
    except OutOfBoundsError as error:
        raise Invalid(off_board(board, x, y)) from error
    except GameOverError as error:
        raise Refused(
            f"The game is over ({result(board)}). Press Rematch to play again."
        ) from error
    except engine.NotYourTurnError as error:
        raise Refused(f"It is not your turn: {board.turn.value} is to move.") from error
    except engine.AlreadyRevealedError as error:
        owner = board.claimed.get(board.grid.index(x, y))
        what = "open" if owner is None else f"a mine {owner.value} claimed"
        raise Refused(f"Cell ({x}, {y}) is already {what}: pick a hidden cell.") from error
    except engine.BombNotAllowedError as error:
        raise Refused(bomb_refusal(board, mark, error.reason)) from error
    summary = {
        "action": action.value,
        "x": x,
        "y": y,
        "mark": mark.value,
        "claimed": sum(isinstance(e, engine.MineClaimed) for e in events),
        "revealed": sum(len(e.cells) for e in events if isinstance(e, engine.CellsRevealed)),
        **public_summary(new),
    }
    return Applied(engine.to_dict(new), new.status.value, events, summary, board=new)


PUBLIC_SUMMARY = ("turn", "scores", "winner")
"""What bots on the websocket get with every move's cells: whose turn it is now, the scores."""


def public_summary(board: engine.State) -> dict[str, Any]:
    playing = board.status is engine.Status.PLAYING
    return {
        "turn": board.turn.value if playing else None,
        "scores": {mark.value: board.score(mark) for mark in engine.Seat},
        "winner": None if board.winner is None else board.winner.value,
    }


def bomb_refusal(board: engine.State, mark: engine.Seat, reason: engine.BombRefusal) -> str:
    if reason is engine.BombRefusal.USED:
        return "You have used your bomb: each player has one per game."
    if reason is engine.BombRefusal.NOT_BEHIND:
        mine, theirs = board.score(mark), board.score(mark.other)
        return (
            f"The bomb is only for the player behind: you lead or are level ({mine} to {theirs})."
        )
    return "Nothing is hidden around that cell: aim the bomb where cells are still covered."


def result(board: engine.State) -> str:
    return "nobody has won yet" if board.winner is None else f"{board.winner.value} won"


def text_rows(
    state: dict[str, Any], params: dict[str, Any], seat: int | None
) -> tuple[list[str], dict[str, Any]]:
    """The public board (`#` hidden, `_` and `1`-`8` open, `x`/`o` claimed by X/O), whose turn,
    the scores, who still holds a bomb, the winner, the side the reader's seat holds this game
    (`you`, None without one: rematches swap sides), and with a turn timer when the current
    turn runs out (`turn_deadline`, Unix seconds; None before the first move)."""
    board = engine.from_dict(state)
    side = None if seat is None else side_of_seat(params, seat)
    playing = board.status is engine.Status.PLAYING
    extra = {
        "width": board.config.width,
        "height": board.config.height,
        "mines": board.config.mines,
        "to_win": board.config.to_win,
        "turn": board.turn.value if playing else None,
        "scores": {mark.value: board.score(mark) for mark in engine.Seat},
        "bombs": {mark.value: mark not in board.bombs_used for mark in engine.Seat},
        "winner": None if board.winner is None else board.winner.value,
        "you": None if side is None else side.mark.value,
        "turn_seconds": params.get("turn_seconds") or 0,
        "turn_deadline": turn_due(state, params),
    }
    return list(engine.rows(board)), extra


def changed_cells(applied: Applied) -> list[dict[str, Any]]:
    """Cells a move opened (with their counts) and mines it claimed (with who claimed them)."""
    board = applied.loaded(engine.from_dict)
    changed: list[dict[str, Any]] = []
    for event in applied.events:
        if isinstance(event, engine.CellsRevealed):
            for cell, count in zip(event.cells, event.counts, strict=True):
                x, y = board.grid.xy(cell)
                changed.append({"x": x, "y": y, "state": "revealed", "count": count})
        elif isinstance(event, engine.MineClaimed):
            changed.append(
                {"x": event.x, "y": event.y, "state": "claimed", "seat": event.seat.value}
            )
    return changed


def may_bomb(board: engine.State, mark: engine.Seat) -> bool:
    """Whether `mark` could bomb now: its turn, the game on, its bomb unused, and behind."""
    return board.status is engine.Status.PLAYING and board.turn is mark and board.can_bomb(mark)


# Computer players ------------------------------------------------------------------------------

NEXT_GAME_AFTER = 8.0
"""Seconds a computer-against-computer room shows the final board before the rematch starts
itself: long enough to see who won and where the mines were."""


def has_computer(params: dict[str, Any]) -> bool:
    """Whether a computer holds a side (of a game's params, or of a room's settings)."""
    if "X" in params:
        return any(side.is_computer for side in sides(params).values())
    return any(params.get(key, HUMAN) != HUMAN for key in ("x", "o"))


def computers_only(params: dict[str, Any]) -> bool:
    return all(side.is_computer for side in sides(params).values())


def computer_to_move(state: dict[str, Any], params: dict[str, Any]) -> Side | None:
    """The computer side whose turn it is, or None (a person's turn, or the game is over)."""
    board = engine.from_dict(state)
    return two_sided.computer_at(sides(params), board.turn, board.status is engine.Status.PLAYING)


def computer_move(
    state: dict[str, Any], params: dict[str, Any], seed: int, version: int
) -> tuple[CellMove, Applied] | None:
    """The computer's move when it is a computer's turn, else None; the rng comes from the
    game's seed and version, so every process (and a replay) picks the same move."""
    side = computer_to_move(state, params)
    if side is None:
        return None
    board = engine.from_dict(state)
    move = choose_move(board, Strategy(side.player), random.Random(f"{seed}:{version}"))
    message = CellMove(move.action.value, move.x, move.y)
    applied = stamped(play(board, move.action, move.x, move.y, side.mark), params, time.time())
    return message, seats_away.carried(state, applied)


# The turn timer --------------------------------------------------------------------------------
#
# A room option: when a turn takes longer than `turn_seconds`, the turn passes (`engine.time_out`,
# applied by the live driver through `rooms.playing.tick` and logged as a `tick`). The engine keeps
# no clock, so the time the current turn started is kept beside the engine's state, under
# `TURN_STARTED`, and only in timed games. The clock starts with a game's first move: before
# it, X may wait for a friend to take O.

TURN_STARTED = "turn_started"
"""Key of `Game.state` with the Unix time (seconds) at which the current turn started."""
IDLE_PASSES = "idle_passes"
"""Key of `Game.state`: turns the timer passed in a row with nobody moving (a move drops it)."""
IDLE_LIMIT = 3
"""Passes in a row after which the timer pauses until a player moves: an abandoned room with a
socket still open (a spectator's) would otherwise tick and log a move every turn, for ever."""


def stamped(applied: Applied, params: dict[str, Any], now: float) -> Applied:
    """`applied` with the clock restarted at `now`, in timed games: every move starts a turn
    (a claim starts the same player's next one)."""
    if not params.get("turn_seconds") or applied.status != engine.Status.PLAYING.value:
        return applied
    return replace(applied, state={**applied.state, TURN_STARTED: now})


def turn_due(state: dict[str, Any], params: dict[str, Any]) -> float | None:
    """When the current turn runs out (Unix seconds), or None: no timer, no move yet, or over."""
    seconds = params.get("turn_seconds") or 0
    started = state.get(TURN_STARTED)
    if not seconds or started is None or state.get("status") != engine.Status.PLAYING.value:
        return None
    return float(started) + seconds


def tick(state: dict[str, Any], params: dict[str, Any], now: float) -> Applied | None:
    """The turn passes when its time is up; None before that (or with no timer)."""
    due = turn_due(state, params)
    if due is None or now < due:
        return None
    board = engine.from_dict(state)
    new, events = engine.time_out(board)
    summary = {
        "action": "tick",
        "mark": board.turn.value,
        "claimed": 0,
        "revealed": 0,
        **public_summary(new),
    }
    applied = Applied(engine.to_dict(new), new.status.value, events, summary, board=new)
    passes = int(state.get(IDLE_PASSES, 0)) + 1
    if passes < IDLE_LIMIT:
        applied = stamped(applied, params, now)
    # At the limit no new turn starts: `turn_due` is None until a move stamps one.
    return replace(applied, state={**applied.state, IDLE_PASSES: passes})


def timer_paused(state: dict[str, Any]) -> bool:
    """Whether the turn timer stopped after `IDLE_LIMIT` passes with nobody moving."""
    return int(state.get(IDLE_PASSES, 0)) >= IDLE_LIMIT


# A player who leaves (`seats_away`) -------------------------------------------------------------
#
# The clock serves both the turn timer and a seat's grace period: its next event is the earlier.


def presence(
    state: dict[str, Any], params: dict[str, Any], seat: int, online: bool
) -> Applied | None:
    return seats_away.presence(state, params, seat, online, time.time())


def due(state: dict[str, Any], params: dict[str, Any]) -> float | None:
    times = [at for at in (turn_due(state, params), seats_away.due(state)) if at is not None]
    return min(times, default=None)


def clock_tick(state: dict[str, Any], params: dict[str, Any], now: float) -> Applied | None:
    """A seat freed first, else the turn passing; the turn timer keeps who is away."""
    freed = seats_away.tick(state, now)
    if freed is not None:
        return freed
    passed = tick(state, params, now)
    return None if passed is None else seats_away.carried(state, passed)


def forfeit(state: dict[str, Any], mark: str) -> Applied:
    """`mark`'s player left: the other side wins (the engine's forfeit)."""
    new, events = engine.forfeit(engine.from_dict(state), engine.Seat(mark))
    summary = {"action": "claim_win", "forfeited": mark, **public_summary(new)}
    return Applied(engine.to_dict(new), new.status.value, events, summary, board=new)


def claim_win(state: dict[str, Any], lineup: Lineup, params: dict[str, Any]) -> Applied:
    return seats_away.claim_win(state, lineup, params, forfeit)


COMMANDS = {seats_away.CLAIM: claim_win, seats_away.TAKE: seats_away.take_seat}


def grid(settings: dict[str, Any]) -> tuple[int, int]:
    """Flags is always played on one board size."""
    return WIDTH, HEIGHT
