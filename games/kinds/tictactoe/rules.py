"""Tic-tac-toe rooms: who sits where, engine moves, and the computer's choices.

A room is made for two *entrants*: entrant 1 holds X in game 1 and entrant 2 holds O. Each is a
person or a computer (`random` or `perfect`). People sit in seats by the order they join (the
`Player.number`): the first person to join takes the first entrant who is a person (X if X is a
person, else O), the next person takes the other one when it is a person too, and anyone after that
is in the room without a seat: they watch, and their moves are refused.

Every game stores its own seat-to-mark assignment in `Game.params`, so the move log reads without
looking at any other game:

    {"X": {"entrant": 1, "player": "human", "seat": 0},
     "O": {"entrant": 2, "player": "perfect", "seat": null}}

A rematch swaps the two entries (X always moves first, so who opens alternates). Computer moves
come from an rng seeded with the game's seed and version, so a game replays from its move log.
"""

import random
import time
from dataclasses import dataclass
from typing import Any

from games.engine import tictactoe as engine
from games.engine.errors import GameOverError, OutOfBoundsError
from games.engine.tictactoe_ai import Strategy, choose_move

from ...protocol.messages import Message, SquareMove
from .. import seats_away
from .. import sides as two_sided
from ..table import COMPUTER_SEAT as COMPUTER_SEAT  # rooms.playing logs computer moves with it
from ..table import Applied, Invalid, Lineup, Refused, SettingsError

HUMAN = two_sided.HUMAN
PLAYERS = (HUMAN, *(strategy.value for strategy in Strategy))
"""What may sit in a seat: "human", "random" or "perfect" (the API's names)."""

PLAYER_LABELS = {"human": "Person", "random": "Computer (random)", "perfect": "Computer (perfect)"}


@dataclass(frozen=True, slots=True)
class Side:
    """Who holds one mark in one game."""

    mark: engine.Mark
    entrant: int
    player: str
    seat: int | None

    @property
    def is_computer(self) -> bool:
        return self.player != HUMAN

    @property
    def label(self) -> str:
        return PLAYER_LABELS[self.player]


def validate_settings(x: Any, o: Any, rated: Any = False) -> dict[str, Any]:
    """Room settings: what sits at X and at O, or a SettingsError that names the choices."""
    for mark, value in (("X", x), ("O", o)):
        if value not in PLAYERS:
            raise SettingsError(
                f"{mark} must be one of {', '.join(PLAYERS)}, got {str(value)[:40]!r}."
            )
    return {"x": x, "o": o, **two_sided.rated_sides(x, o, rated)}


creator_sits = two_sided.creator_sits


def game_params(settings: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """The next game's sides: game 1 from the room's settings, every later one swapped."""
    return two_sided.with_rated(settings, two_sided.next_sides(settings, previous))


def sides(params: dict[str, Any]) -> dict[engine.Mark, Side]:
    return two_sided.sides_of(params, engine.Mark, Side)


def side_of_seat(params: dict[str, Any], seat: int) -> Side | None:
    """The side a person's seat holds this game, or None when they have no seat."""
    return two_sided.side_of_seat(sides(params), seat)


def initial_state(params: dict[str, Any], seed: int) -> dict[str, Any]:
    return engine.to_dict(engine.new_game())


def load(state: dict[str, Any]) -> engine.State:
    return engine.from_dict(state)


def apply(state: dict[str, Any], message: Message, seat: int, params: dict[str, Any]) -> Applied:
    """A person's mark: Invalid for a message that can never work here, Refused for one that the
    game's state or the sender's seat refuses."""
    if not isinstance(message, SquareMove):
        raise Invalid('This is a tic-tac-toe room: send {"action": "mark", "cell": 0..8}.')
    if not 0 <= message.cell < engine.SIZE:
        raise Invalid(f"Square {message.cell} is off the board: squares are 0 to 8.")
    side = side_of_seat(params, seat)
    if side is None:
        raise Refused("You have no seat in this game: both sides are taken. You can still watch.")
    return seats_away.carried(state, place(engine.from_dict(state), message.cell, side.mark))


def place(board: engine.State, cell: int, mark: engine.Mark) -> Applied:
    try:
        new, events = engine.apply_move(board, engine.Move(cell, mark))
    except OutOfBoundsError as error:
        raise Invalid(f"Square {cell} is off the board: squares are 0 to 8.") from error
    except GameOverError as error:
        raise Refused(
            f"The game is over ({result(board)}). Press Rematch to play again."
        ) from error
    except engine.NotYourTurnError as error:
        raise Refused(f"It is not your turn: {board.turn.value} is to move.") from error
    except engine.SquareTakenError as error:
        taken = board.squares[cell]
        assert taken is not None  # the engine said the square is taken
        raise Refused(f"Square {cell} is already taken by {taken.value}.") from error
    winner = None if new.winner is None else new.winner.value
    summary = {"square": cell, "mark": mark.value, "winner": winner}
    return Applied(engine.to_dict(new), new.status.value, events, summary)


# A player who leaves (`seats_away`) -------------------------------------------------------------


def presence(
    state: dict[str, Any], params: dict[str, Any], seat: int, online: bool
) -> Applied | None:
    return seats_away.presence(state, params, seat, online, time.time())


def due(state: dict[str, Any], params: dict[str, Any]) -> float | None:
    return seats_away.due(state)


def tick(state: dict[str, Any], params: dict[str, Any], now: float) -> Applied | None:
    return seats_away.tick(state, now)


def forfeit(state: dict[str, Any], mark: str) -> Applied:
    """`mark`'s player left: the other side wins (the engine's forfeit)."""
    new, events = engine.forfeit(engine.from_dict(state), engine.Mark(mark))
    winner = None if new.winner is None else new.winner.value
    summary = {"forfeited": mark, "winner": winner}
    return Applied(engine.to_dict(new), new.status.value, events, summary)


def claim_win(state: dict[str, Any], lineup: Lineup, params: dict[str, Any]) -> Applied:
    return seats_away.claim_win(state, lineup, params, forfeit)


COMMANDS = {seats_away.CLAIM: claim_win, seats_away.TAKE: seats_away.take_seat}


def text_rows(
    state: dict[str, Any], params: dict[str, Any], seat: int | None
) -> tuple[list[str], dict[str, Any]]:
    """Three rows of `X`, `O` and `.`, as the API shows them, with the winner's mark (None while
    playing and after a draw) and the mark the reader's seat holds this game (None without one:
    rematches swap marks, so a bot cannot keep it from the game before)."""
    board = engine.from_dict(state)
    side = None if seat is None else side_of_seat(params, seat)
    extra = {
        "width": 3,
        "height": 3,
        "winner": None if board.winner is None else board.winner.value,
        "you": None if side is None else side.mark.value,
    }
    return list(engine.rows(board)), extra


def changed_cells(applied: Applied) -> list[dict[str, Any]]:
    return [
        {"cell": event.square, "mark": event.mark.value}
        for event in applied.events
        if isinstance(event, engine.SquarePlaced)
    ]


def result(board: engine.State) -> str:
    return "a draw" if board.winner is None else f"{board.winner.value} won"


NEXT_GAME_AFTER = 5.0
"""Seconds a computer-against-computer room shows the result before the rematch starts itself:
long enough to see who won, short enough that a spectator from the lobby sees play."""


def computers_only(params: dict[str, Any]) -> bool:
    """Whether computers hold both sides: nobody in the room could ask for the rematch."""
    return all(side.is_computer for side in sides(params).values())


def computer_to_move(state: dict[str, Any], params: dict[str, Any]) -> Side | None:
    """The computer side whose turn it is, or None (a person's turn, or the game is over)."""
    board = engine.from_dict(state)
    return two_sided.computer_at(sides(params), board.turn, board.status is engine.Status.PLAYING)


def computer_move(
    state: dict[str, Any], params: dict[str, Any], seed: int, version: int
) -> tuple[SquareMove, Applied] | None:
    """The computer's move when it is a computer's turn, else None.

    The rng is seeded from the game's seed and version: the same position in the same game always
    gets the same reply, whichever process plays it, so replays and racing drivers agree.
    """
    side = computer_to_move(state, params)
    if side is None:
        return None
    board = engine.from_dict(state)
    cell = choose_move(board, Strategy(side.player), random.Random(f"{seed}:{version}"))
    return SquareMove(cell), place(board, cell, side.mark)
