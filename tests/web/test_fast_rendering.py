"""Snapshots and move fragments built from kept cells are byte for byte what the templates give.

`games.kinds.minesweeper.render` renders each cell once and places kept cells where the template's loop would
have put them (see its docstring). Whole games, won and lost, with flags, chords and cascades,
are played through the service while every fragment and snapshot is also rendered plainly.
"""

import random

import pytest

from games.broadcast import announce, outbox
from games.engine import minesweeper as engine
from games.kinds.minesweeper import render as rendering
from games.kinds.table import Invalid, Refused
from games.protocol.messages import CellMove
from games.rooms import dispatch, joining
from games.store.models import Game

from .helpers import make_room

pytestmark = pytest.mark.django_db(transaction=True)


def fast_and_plain(render):
    """The same rendering through kept cells, then plainly through the templates."""
    kinds = ("snapshot", "move", "midgame move")
    rendering._verified.update(dict.fromkeys(kinds, True))
    fast = render()
    rendering._verified.update(dict.fromkeys(kinds, False))
    return fast, render()


@pytest.fixture
def fragments(monkeypatch):
    """Every move fragment, checked against the plain rendering as it is made."""
    sent = []

    def checked_move(kind, news):
        fast, plain = fast_and_plain(lambda: rendering.move_html(news))
        assert fast == plain
        sent.append(fast)

    monkeypatch.setattr(announce, "move", checked_move)
    monkeypatch.setattr(outbox, "send", lambda room_id, html: None)
    monkeypatch.setattr(rendering, "_verified", {})
    return sent


def current(room) -> tuple[Game, engine.GameState]:
    game = room.current_game()
    return game, engine.from_dict(game.state)


def play(room, player, action: str, cell: int, width: int) -> None:
    try:
        dispatch.play(room, player, CellMove(action, cell % width, cell // width))
    except (Invalid, Refused):
        return  # a chord whose flags do not match its number: nothing changes
    game = room.current_game()
    fast, plain = fast_and_plain(lambda: rendering.snapshot_html(room, game))
    assert fast == plain


@pytest.mark.parametrize("ending", ["won", "lost"])
def test_kept_cells_render_exactly_as_the_templates(fragments, ending):
    rng = random.Random(ending)
    room = make_room(16, 16, 40)
    host = joining.join_room(room, "Ada")
    joining.join_room(room, "Grace")
    width = 16
    game, _ = current(room)
    fast, plain = fast_and_plain(lambda: rendering.snapshot_html(room, game))
    assert fast == plain
    play(room, host, "reveal", 8 * width + 8, width)
    for moves in range(400):
        game, state = current(room)
        if state.is_over:
            break
        hidden = [c for c in range(width * 16) if c not in state.revealed]
        mines = state.field.mines
        safe = [c for c in hidden if c not in mines and c not in state.flags]
        unflagged_mines = [c for c in hidden if c in mines and c not in state.flags]
        if ending == "lost" and moves > 60:
            play(room, host, "reveal", unflagged_mines[0], width)
        elif ending == "lost" and rng.random() < 0.1:
            play(room, host, "flag", rng.choice(safe), width)  # shown as a wrong flag at the end
        elif unflagged_mines and rng.random() < 0.3:
            play(room, host, "flag", rng.choice(unflagged_mines), width)
        elif state.revealed and rng.random() < 0.2:
            play(room, host, "chord", rng.choice(list(state.revealed)), width)
        else:
            play(room, host, "reveal", rng.choice(safe), width)
    assert current(room)[1].status.value == ending
    assert any('data-state="revealed" data-count="0"' in html for html in fragments)
    assert sum(html.count('id="cell-') for html in fragments) > 100


def test_a_template_change_falls_back_to_plain_rendering(monkeypatch):
    room = make_room()
    joining.join_room(room, "Ada")
    game = room.current_game()
    monkeypatch.setattr(rendering, "_verified", {})
    plain = rendering.snapshot_html(room, game)
    assert rendering._verified == {"snapshot": True}
    monkeypatch.setattr(rendering, "_verified", {})
    monkeypatch.setattr(rendering, "_fill", lambda *args: None)  # as if the template changed
    assert rendering.snapshot_html(room, game) == plain
    assert rendering._verified == {"snapshot": False}
    assert rendering.snapshot_html(room, game) == plain
    assert 'id="cell-8-8"' in plain
