"""Helpers for the daily board's tests (web and browser): a copy's mines and a copy played to
its end through the same write path as every move."""

from games.engine import minesweeper as engine
from games.protocol.messages import CellMove
from games.rooms import playing
from games.store.models import Game, Player, Room


def mines_of(code: str) -> frozenset[tuple[int, int]]:
    """(x, y) of the mines of the room's first game, read from the database."""
    game = Game.objects.get(room__code=code, number=1)
    board = engine.from_dict(game.state)
    assert board.field is not None, "a daily copy is dealt with its opening"
    return frozenset(board.grid.xy(cell) for cell in board.field.mines)


def finish(code: str, *, win: bool = True) -> Game:
    """The copy's first game played to a win (every hidden safe cell revealed) or a loss (a
    mine revealed) by its seat, and read back."""
    room = Room.objects.get(code=code)
    player = Player.objects.get(room=room, number=0)
    mines = mines_of(code)
    if not win:
        x, y = min(mines)
        playing.play_move(room, player, CellMove("reveal", x, y))
        return Game.objects.get(room=room, number=1)
    while True:
        game = Game.objects.get(room=room, number=1)
        board = engine.from_dict(game.state)
        if board.is_over:
            return game
        hidden = next(
            board.grid.xy(cell)
            for cell in range(board.grid.size)
            if cell not in board.revealed and board.grid.xy(cell) not in mines
        )
        playing.play_move(room, player, CellMove("reveal", *hidden))
