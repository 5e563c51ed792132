"""Minesweeper rooms: validated settings, engine moves, the changed-cell summary, hints and the
Solver bot.

Hints and the bot see only what every player sees: the revealed numbers and the total mine count.
Never the mine layout (that would leak it), and never flags (a player's flag can be wrong, and a
proof built on a wrong flag is wrong).
"""

from dataclasses import replace
from typing import Any

from games.engine import ascii, solver
from games.engine import minesweeper as engine
from games.engine.errors import EngineError, GameOverError, GenerationError

from ...protocol.messages import CellMove, Message
from ...store.identity_memo import IdentityMemo
from ..options import size_faults as table_size_faults
from ..table import COMPUTER_SEAT as COMPUTER_SEAT  # rooms.playing logs the bot's moves with it
from ..table import HINTED, Applied, Invalid, Refused, SettingsError, whole

MAX_WIDTH = 50
MAX_HEIGHT = 50
"""Rooms render every cell in the page, so they stop well below the engine's 1000x1000."""
NO_GUESS_MAX_DENSITY = 0.25
"""Above about a quarter mines, no-guess boards get rare and generation would give up."""

ACTIONS = frozenset(action.value for action in engine.Action)
"""The cell moves Minesweeper takes (reveal, flag, chord); other kinds' (a bomb) are Invalid."""

PRESETS = {
    name: {"width": c.width, "height": c.height, "mines": c.mines}
    for name, c in engine.PRESETS.items()
}


def size_message(field: str) -> str:
    """What a width or height must be (the form says it for a number it cannot read, too)."""
    limit = MAX_WIDTH if field == "width" else MAX_HEIGHT
    return f"{field.capitalize()} must be a whole number from 2 to {limit}."


def size_faults(width: Any, height: Any, mines: Any) -> list[SettingsError]:
    """Every fault of a custom size the home form can show at once (see `table.size_faults`)."""
    return table_size_faults(
        (("width", width, 2, MAX_WIDTH), ("height", height, 2, MAX_HEIGHT)), mines
    )


def validate_settings(width: Any, height: Any, mines: Any, no_guess: Any = False) -> dict[str, Any]:
    """Room settings within the limits, or a SettingsError that says what is allowed."""
    for field, value, limit in (("width", width, MAX_WIDTH), ("height", height, MAX_HEIGHT)):
        if not whole(value) or not 2 <= value <= limit:
            raise SettingsError(size_message(field), field)
    most = engine.max_mines(width, height)
    if most < 1:  # 2×2 to 3×3: "1 to 0 mines" would make no sense
        raise SettingsError(
            f"A {width}×{height} board is too small for mines: the first click and its "
            "neighbours cover it. Make it at least 4 cells wide or high.",
            "width",  # the size is at fault, not the mines: the form shows it at Width
        )
    if not whole(mines) or not 1 <= mines <= most:
        raise SettingsError(
            f"A {width}×{height} board takes 1 to {most} mines "
            "(the first click and its neighbours are always clear).",
            "mines",
        )
    if not isinstance(no_guess, bool):
        raise SettingsError("no_guess must be true or false.", "no_guess")
    if no_guess and mines > NO_GUESS_MAX_DENSITY * width * height:
        raise SettingsError(
            f"No-guess boards allow at most {int(NO_GUESS_MAX_DENSITY * 100)}% mines: "
            f"{int(NO_GUESS_MAX_DENSITY * width * height)} on {width}×{height}.",
            "mines",
        )
    return {"width": width, "height": height, "mines": mines, "no_guess": no_guess}


def creator_sits(settings: dict[str, Any]) -> bool:
    return True


def config(settings: dict[str, Any]) -> engine.Config:
    return engine.Config(
        settings["width"], settings["height"], settings["mines"], settings.get("no_guess", False)
    )


def game_params(settings: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """Every game of a room plays the room's settings."""
    return settings


def initial_state(settings: dict[str, Any], seed: int) -> dict[str, Any]:
    return engine.to_dict(engine.new_game(config(settings), seed))


def load(state: dict[str, Any]) -> engine.GameState:
    return engine.from_dict(state)


_boards: IdentityMemo[dict[str, Any], engine.GameState] = IdentityMemo(limit=64)
"""The boards of the stored forms the last moves made (a few dozen rooms'), so the next move of
a room, which starts from that very form (`games.store.kept_games`), does not load it again."""


def _board_of(state: dict[str, Any]) -> engine.GameState:
    board = _boards.get(state)
    return engine.from_dict(state) if board is None else board


def apply(
    state: dict[str, Any], message: Message, seat: int, params: dict[str, Any] | None = None
) -> Applied:
    if not isinstance(message, CellMove) or message.action not in ACTIONS:
        raise Invalid("This is a Minesweeper room: send reveal, flag or chord with x and y.")
    game = _board_of(state)
    move = engine.Move(engine.Action(message.action), message.x, message.y, seat)
    try:
        new, events = engine.apply_move(game, move)
    except GameOverError as error:
        raise Refused(f"The game is over ({game.status.value}). Start a new game.") from error
    except GenerationError as error:  # no-guess generation gave up
        raise Refused(str(error)) from error
    except EngineError as error:
        raise Invalid(str(error).capitalize() + ".") from error
    if not events:
        pointless = pointless_move(game, move)
        if pointless is not None:
            raise Refused(pointless)
        return Applied(state, game.status.value, ())
    revealed = sum(len(e.cells) for e in events if isinstance(e, engine.CellsRevealed))
    summary = {"revealed": revealed, "first": game.field is None and new.field is not None}
    stored = engine.to_dict(new, previous=(game, state))
    _boards.put(stored, new)
    return Applied(stored, new.status.value, events, summary, board=new)


def pointless_move(game: engine.GameState, move: engine.Move) -> str | None:
    """Why a move that changed nothing could never change anything on that cell, else None.

    The engine answers such moves with no events, as it does every legal move that happens to
    change nothing; people and bots are better served by a reason (the API's 409, the same
    error on the sender's socket). The page never sends these: it flags only hidden cells,
    never reveals a flag and never sends a chord. A reveal on a revealed cell is not refused: it
    is what a click on a number sends (it chords when the flags around match), so a click in an
    opened area, or on a number whose flags do not match yet, still passes quietly. An explicit
    chord is refused when it cannot happen (a covered cell, a 0, flags that do not match), not
    when it is done already (every neighbour open or flagged).
    """
    cell = game.grid.index(move.x, move.y)
    if move.action is engine.Action.FLAG and cell in game.revealed:
        return "That cell is already revealed: only hidden cells can be flagged."
    if move.action is engine.Action.REVEAL and cell in game.flags:
        return "That cell is flagged: take the flag off before revealing it."
    if move.action is engine.Action.CHORD and cell not in game.revealed:
        return "Only a revealed number can be chorded: that cell is still covered."
    if move.action is not engine.Action.CHORD or game.field is None:
        return None
    number = game.field.counts[cell]
    if number == 0:
        return "That cell has no mines around it: there is nothing to chord."
    flags = sum(1 for n in game.grid.neighbours(cell) if n in game.flags)
    if flags != number:
        return (
            f"That {number} has {flags} flag{'' if flags == 1 else 's'} around it: "
            f"a chord needs exactly {number}."
        )
    return None  # every neighbour is open or flagged already: done, not wrong


def text_rows(
    state: dict[str, Any], params: dict[str, Any] | None = None, seat: int | None = None
) -> tuple[list[str], dict[str, Any]]:
    """The board as the terminal prints it, plus its size and the mines left: the same for
    every reader of a co-op board."""
    game = engine.from_dict(state)
    extra = {
        "width": game.config.width,
        "height": game.config.height,
        "mines_left": game.mines_left,
    }
    return ascii.render(game).split("\n"), extra


def changed_cells(applied: Applied) -> list[dict[str, Any]]:
    """What one move changed, cell by cell: never more than the players may see."""
    if not applied.events:
        return []
    grid = applied.loaded(engine.from_dict).grid
    return [
        {"x": x, "y": y, "state": state.value, "count": count}
        for x, y, state, count in engine.changed_cell_values(grid, applied.events)
    ]


# Hints and the Solver bot ------------------------------------------------------------------------

BOT_NAME = "Solver bot"
NO_SAFE_CELL = "No cell can be proved safe: this one is a guess."
FIRST_CLICK_SAFE = "Your first click is always safe — click anywhere."


def has_bot(params: dict[str, Any]) -> bool:
    """Whether the Solver bot plays this game (or, given the room's settings, the room's games)."""
    return bool(params.get("bot"))


def _clues(game: engine.GameState) -> dict[int, int]:
    """The public board as the solver takes it: every revealed cell's number."""
    assert game.field is not None
    return {cell: game.field.counts[cell] for cell in game.revealed}


def hint(state: dict[str, Any]) -> tuple[int, int] | None:
    """(x, y) of a hidden cell the public board proves safe (`solver.hint`), or None.

    A hint is not a move: it changes no cell, so it stays out of the engine's state and the move
    log, and replaying a game gives the same board with or without it. Only the room's counter
    (`Room.hints_used`) remembers it. The cell may carry a (wrong) flag: flags are not evidence.
    Refused before the first reveal: every cell is safe then (mines are placed around the first
    click), so a hint would tell nothing and must not be counted.
    """
    game = engine.from_dict(state)
    if game.is_over:
        raise Refused(f"The game is over ({game.status.value}). Start a new game.")
    if game.field is None:
        raise Refused(FIRST_CLICK_SAFE)
    cell = solver.hint(game.grid, _clues(game), frozenset(), game.config.mines)
    return None if cell is None else game.grid.xy(cell)


def hint_opened(state: dict[str, Any], at: tuple[int, int]) -> bool:
    """Whether the cell hinted at `at` is open on this board: a move that got in while the hint
    was worked out opened it, so showing it would tell nobody anything."""
    game = engine.from_dict(state)
    return game.grid.index(*at) in game.revealed


def bot_cell(game: engine.GameState, leave: int | None = None) -> int | None:
    """The Solver bot's next cell: the lowest one the public board proves safe, or None.

    None before the first reveal: the first click of every game is a person's (where it falls
    decides the board), so a bot seated in an empty room does not start games by itself. Flags
    placed before it change nothing: there is still no board to prove anything on.
    Flagged cells are skipped: revealing a flag does nothing, and lifting a person's flag (even a
    wrong one) is theirs to do. With no flags this is exactly `solver.hint` on the public board.
    `leave` (the cell hinted to a person) is skipped too: the hint was asked for so that a
    person opens it, and the bot taking it first would waste the hint.
    """
    if game.is_over or game.field is None:
        return None
    safe = solver.deduce(game.grid, _clues(game), frozenset(), game.config.mines).safe
    unflagged = safe.difference(game.flags, () if leave is None else (leave,))
    return min(unflagged) if unflagged else None


def computer_to_move(state: dict[str, Any], params: dict[str, Any]) -> int | None:
    """The cell the Solver bot would open now, or None: no bot, no first reveal yet, game over,
    or it would guess."""
    if not has_bot(params):
        return None
    game = engine.from_dict(state)
    return bot_cell(game, _hinted(game, params))


def _hinted(game: engine.GameState, params: dict[str, Any]) -> int | None:
    """The cell last hinted to a person in this game (`HINTED`), or None."""
    at = params.get(HINTED)
    return None if at is None else game.grid.index(*at)


def computer_move(
    state: dict[str, Any], params: dict[str, Any], seed: int, version: int
) -> tuple[CellMove, Applied] | None:
    """The Solver bot's reveal, when it has a provably safe cell, else None.

    It depends on the public board alone (`seed` and `version` are unused; the signature is the
    one every kind's computer shares). The summary says `stuck` when the bot has nothing left to
    prove after this move, so the room hears it once, with the move, not on every later look.
    """
    cell = computer_to_move(state, params)
    if cell is None:
        return None
    x, y = engine.from_dict(state).grid.xy(cell)
    message = CellMove("reveal", x, y)
    applied = apply(state, message, COMPUTER_SEAT)
    after = applied.loaded(engine.from_dict)
    stuck = applied.status == "playing" and bot_cell(after, _hinted(after, params)) is None
    return message, replace(applied, summary={**applied.summary, "stuck": stuck})


def grid(settings: dict[str, Any]) -> tuple[int, int]:
    """The room's board size: every game of the room has its settings' width and height."""
    return settings["width"], settings["height"]
