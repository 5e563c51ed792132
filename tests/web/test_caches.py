"""The caches docs/caches.md lists that no other test watched: each keeps what it says, under the
key it says, and lets go when it says (docs/caches.md names the tests of the others)."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.engine import minesweeper as engine
from games.engine import solver
from games.engine.grid import Grid
from games.kinds.flags import render as flags_render
from games.kinds.minesweeper import history as minesweeper_history
from games.kinds.minesweeper import render as minesweeper_render
from games.kinds.minesweeper import rules as minesweeper_rules
from games.protocol.messages import CellMove
from games.rooms import joining
from games.store import hint_cache
from games.store.models import Game
from tests.helpers.replays import win
from tests.helpers.web import make_room

pytestmark = pytest.mark.django_db


def test_a_hint_is_kept_per_game_and_version_and_nothing_provable_is_kept_too():
    hint_cache.clear()
    assert hint_cache.get(7, 3) is hint_cache.MISSING
    hint_cache.put(7, 3, (2, 5))
    hint_cache.put(7, 4, None)  # "nothing can be proved" is an answer, not a miss
    assert hint_cache.get(7, 3) == (2, 5)
    assert hint_cache.get(7, 4) is None
    assert hint_cache.get(7, 5) is hint_cache.MISSING  # the next version asks the solver again
    assert hint_cache.get(8, 3) is hint_cache.MISSING
    for version in range(hint_cache.SIZE):  # bounded: the least recently used goes first
        hint_cache.put(9, version, (0, 0))
    assert hint_cache.get(7, 3) is hint_cache.MISSING
    hint_cache.clear()
    assert hint_cache.get(9, hint_cache.SIZE - 1) is hint_cache.MISSING


def test_a_finished_games_banner_figures_read_its_log_once_per_version():
    room = make_room()
    win(room, joining.join_room(room, "Ana"))
    game = room.current_game()
    minesweeper_history._kept.clear()  # the winning move's banner already kept them
    with CaptureQueriesContext(connection) as first:
        figures = minesweeper_history.end_stats(game)
    with CaptureQueriesContext(connection) as again:
        assert minesweeper_history.end_stats(game) is figures
    assert len(first) == 1 and len(again) == 0
    game.version += 1  # another version (a game's id and seed alike): read again
    with CaptureQueriesContext(connection) as other:
        minesweeper_history.end_stats(game)
    assert len(other) == 1


def test_a_boards_cells_are_kept_by_what_they_show_so_an_edit_in_place_shows_at_once():
    room = make_room()
    other = make_room()  # a fresh board of the same size shares the kept markup
    minesweeper_render._boards.clear()
    first = minesweeper_render.snapshot_html(room, room.current_game())
    assert len(minesweeper_render._boards) == 1
    assert minesweeper_render.snapshot_html(other, other.current_game()).count(
        'data-state="hidden"'
    ) == first.count('data-state="hidden"')
    assert len(minesweeper_render._boards) == 1
    game = room.current_game()
    applied = minesweeper_rules.apply(game.state, CellMove("reveal", 4, 4), 0)
    Game.objects.filter(pk=game.pk).update(state=applied.state)  # an edit, version unchanged
    edited = minesweeper_render.snapshot_html(room, room.current_game())
    assert len(minesweeper_render._boards) == 2
    opened = sum(1 for _ in re.finditer(r'data-state="revealed"', edited))
    assert opened == len(engine.from_dict(applied.state).revealed) > 0


def test_the_next_move_starts_from_the_board_the_last_move_made():
    """The stored form a move wrote is the key (by identity): the next move of the room, which
    starts from that very form (`kept_games`), does not load the board again; an equal copy,
    as a read of the row gives, does."""
    room = make_room()
    game = room.current_game()
    applied = minesweeper_rules.apply(game.state, CellMove("reveal", 4, 4), 0)
    assert minesweeper_rules._board_of(applied.state) is applied.board
    copy = {**applied.state}
    assert minesweeper_rules._board_of(copy) is not applied.board
    assert minesweeper_rules._board_of(copy) == applied.board


def test_a_flags_cells_markup_is_rendered_once_per_look():
    cell = {"x": 3, "y": 4, "state": "hidden", "count": None, "seat": None, "fresh": False}
    flags_render._kept.clear()
    first = flags_render.cells_html([cell], oob=True)
    key = (3, 4, "hidden", None, None, False, True)
    kept = flags_render._kept[key]
    assert kept in first
    assert flags_render.cells_html([dict(cell)], oob=True) == first
    assert flags_render._kept[key] is kept and len(flags_render._kept) == 1
    flags_render.cells_html([cell], oob=False)  # another look: its own entry
    assert len(flags_render._kept) == 2


def test_the_engines_memos_share_one_minefield_per_layout_and_one_table_per_grid():
    """Pure functions of their arguments, kept least recently used first: never stale."""
    grid = Grid(9, 9)
    mines = (0, 10, 20)
    field = engine._stored_field(grid, mines)
    assert engine._stored_field(Grid(9, 9), (0, 10, 20)) is field  # an equal layout
    assert engine._stored_field(grid, (0, 10, 21)) is not field
    assert engine._stored_field.cache_info().maxsize == 256
    table = solver._neighbour_table(grid)
    assert solver._neighbour_table(Grid(9, 9)) is table
    assert table[0] == tuple(grid.neighbours(0))


def test_kept_boards_stay_within_their_bound_the_least_recently_used_going_first():
    minesweeper_render._boards.clear()
    config = engine.Config(50, 50, 10)
    boards = [
        engine.apply_move(engine.new_game(config, 0), engine.Move(engine.Action.FLAG, x, 0, 0))[0]
        for x in range(20)  # a 50x50 board's markup is some 270 KB: twenty pass the bound
    ]
    for board in boards:
        minesweeper_render._board_cells(board, compact=True)
    kept = minesweeper_render._boards
    assert kept.maxsize == minesweeper_render.BOARDS_KEPT_BYTES
    assert 0 < kept.currsize <= kept.maxsize
    assert len(kept) < len(boards)
    first, last = (frozenset(board.flags) for board in (boards[0], boards[-1]))
    assert not any(first in key for key in kept) and any(last in key for key in kept)
