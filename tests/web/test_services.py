"""The one write path: move log, versions, replay, refusals, and writers racing for one game."""

import threading

import pytest
from django.db import connection

from games.engine import minesweeper as engine
from games.kinds.table import Invalid, Refused
from games.protocol.messages import CellMove, Command
from games.rooms import base, dispatch, joining, nicknames
from games.store import kept_games, rowsql
from games.store.models import Game, Move

from .helpers import current, hidden_cells, make_room


def replay(game: Game) -> engine.GameState:
    settings = game.params
    config = engine.Config(settings["width"], settings["height"], settings["mines"])
    moves = [
        engine.Move(engine.Action(m.action), m.x, m.y, m.seat)
        for m in Move.objects.filter(game=game).order_by("seq")
    ]
    return engine.replay(config, game.seed, moves)


@pytest.mark.django_db
def test_moves_are_logged_with_contiguous_sequence_numbers_and_replay_exactly():
    room = make_room()
    ana = joining.join_room(room, "Ana")
    bo = joining.join_room(room, "Bo")
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    (x1, y1), (x2, y2) = hidden_cells(room)[:2]
    dispatch.play(room, bo, CellMove("flag", x1, y1))
    dispatch.play(room, ana, CellMove("flag", x1, y1))  # toggles the flag off again
    dispatch.play(room, bo, CellMove("flag", x2, y2))
    game = current(room)
    assert game.version == 4
    assert list(Move.objects.filter(game=game).values_list("seq", flat=True)) == [1, 2, 3, 4]
    assert engine.to_dict(replay(game)) == game.state
    assert game.started_at is not None and game.finished_at is None


@pytest.mark.django_db
def test_a_move_that_changes_nothing_is_not_logged():
    room = make_room()
    ana = joining.join_room(room, "Ana")
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    outcome = dispatch.play(room, ana, CellMove("reveal", 4, 4))  # a click on an opened cell
    assert not outcome.applied.changed
    with pytest.raises(Refused, match="nothing to chord"):  # could never change its cell
        dispatch.play(room, ana, CellMove("chord", 4, 4))
    assert current(room).version == 1
    assert Move.objects.count() == 1


@pytest.mark.django_db
def test_spectators_and_finished_games_are_refused_without_change():
    room = make_room()
    ana = joining.join_room(room, "Ana")
    with pytest.raises(base.Forbidden):
        dispatch.play(room, None, CellMove("reveal", 1, 1))
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    with pytest.raises(Invalid, match="off the board"):
        dispatch.play(room, ana, CellMove("reveal", 9, 0))
    mine = min(engine.from_dict(current(room).state).field.mines)
    dispatch.play(room, ana, CellMove("reveal", mine % 9, mine // 9))
    lost = current(room)
    assert lost.status == "lost" and lost.finished_at is not None
    with pytest.raises(Refused, match="game is over"):
        dispatch.play(room, ana, CellMove("reveal", 0, 0))
    assert current(room).version == lost.version == 2


@pytest.mark.django_db
def test_new_game_keeps_settings_and_starts_once_per_click():
    room = make_room(16, 16, 40)
    ana = joining.join_room(room, "Ana")
    dispatch.play(room, ana, Command("new_game", game=1))
    dispatch.play(room, ana, Command("new_game", game=1))  # the same click twice
    game = current(room)
    assert game.number == 2
    assert (game.params["width"], game.params["mines"]) == (16, 40)
    assert game.seed != Game.objects.get(room=room, number=1).seed


@pytest.mark.django_db
def test_a_taken_nickname_gets_the_next_free_number_regardless_of_case():
    room = make_room()
    names = [joining.join_room(room, name).nickname for name in ("Ana", " ana ", "ANA")]
    assert names == ["Ana", "ana 2", "ANA 3"]
    assert joining.join_room(make_room(), "ana").nickname == "ana"  # per room
    taken = {"x" * 24} | {("x" * 22 + f" {n}") for n in range(2, 10)}
    assert nicknames.unique_nickname("X" * 24, taken) == "X" * 21 + " 10"  # still 24 characters


@pytest.mark.django_db(transaction=True)
def test_joins_at_once_under_one_name_each_get_their_own():
    room = make_room()
    names, errors = [], []

    def worker():
        try:
            names.append(joining.join_room(room, "Ana").nickname)
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(names) == ["Ana", "Ana 2", "Ana 3", "Ana 4"]


@pytest.mark.django_db
def test_nicknames_are_trimmed_and_limited():
    room = make_room()
    assert joining.join_room(room, "  Ana   Lee ").nickname == "Ana Lee"
    for bad in ("", "   ", "x" * 25, None):
        with pytest.raises(nicknames.NicknameError):
            joining.join_room(room, bad)


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_lose_no_update():
    """Threads with their own connections toggle flags at once: every move lands exactly once."""
    room = make_room(20, 20, 40)
    players = [joining.join_room(room, f"P{n}") for n in range(4)]
    dispatch.play(room, players[0], CellMove("reveal", 10, 10))
    hidden = hidden_cells(room)
    errors = []

    def worker(player, cells):
        try:
            for x, y in cells:
                dispatch.play(room, player, CellMove("flag", x, y))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=worker, args=(p, hidden[n * 15 : n * 15 + 15]))
        for n, p in enumerate(players)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    game = current(room)
    assert game.version == 1 + 60
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, 62))
    assert len(engine.from_dict(game.state).flags) == 60
    assert engine.to_dict(replay(game)) == game.state


@pytest.mark.django_db
def test_a_move_that_loses_the_race_to_its_write_is_played_again_in_line(monkeypatch):
    """Another move commits between `play`'s read and its write: the write finds the game
    changed and writes nothing, and the move is played again on the game as it now is."""
    room = make_room(20, 20, 40)
    ana, bob = joining.join_room(room, "Ana"), joining.join_room(room, "Bob")
    dispatch.play(room, ana, CellMove("reveal", 10, 10))
    kept_games.forget(room.pk)  # the move reads the row (a kept game: the test below)
    (x, y), (other_x, other_y) = hidden_cells(room)[:2]
    real_write = rowsql.write_move
    written = []

    def bob_moves_first(game, names, move, read_version, unchanged=None):
        if not written:
            written.append("bob")
            dispatch.play(room, bob, CellMove("flag", other_x, other_y))
        result = real_write(game, names, move, read_version, unchanged)
        written.append(result is not None)
        return result

    monkeypatch.setattr(rowsql, "write_move", bob_moves_first)
    outcome = dispatch.play(room, ana, CellMove("flag", x, y))
    # Bob's move went in; Ana's first write failed and her move was written in line, once.
    assert written == ["bob", True, False, True]
    game = current(room)
    assert game.version == outcome.game.version == 3
    assert list(Move.objects.filter(game=game).values_list("seq", "player__nickname")) == [
        (1, "Ana"),
        (2, "Bob"),
        (3, "Ana"),
    ]
    flags = {x + y * 20: ana.number, other_x + other_y * 20: bob.number}
    assert dict(engine.from_dict(game.state).flags) == flags
    assert dict(engine.from_dict(outcome.game.state).flags) == flags
    assert engine.to_dict(replay(game)) == game.state
