"""Tic-tac-toe rooms over real websockets: people, computers, refusals and rematches."""

import asyncio
import re
import threading

import pytest
from channels.db import database_sync_to_async

from games.engine import tictactoe as engine
from games.kinds.minesweeper import rules as ms_rules
from games.kinds.tictactoe import rules
from games.protocol import messages
from games.rooms import autoplay, dispatch, joining
from games.rooms import computers as rooms_computers
from games.store.models import Game, Move

from .helpers import connect, receive_until, refused, seats_taken_and_watched, send, settle

pytestmark = pytest.mark.django_db(transaction=True)

FINISHED = r'id="game-meta"[^>]*data-status="(won|draw)"'


@pytest.fixture(autouse=True)
async def quick_computers(monkeypatch):
    """The computers' half-second pause is for people; tests need no drama. Drivers still running
    when a test ends are stopped before its database goes away."""
    monkeypatch.setattr(autoplay, "PACE", 0.02)
    yield
    await autoplay.stop()


def make_room(x: str = "human", o: str = "human"):
    return joining.create_room("tictactoe", rules.validate_settings(x, o))


def current(room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


def squares(html: str) -> dict[int, str]:
    return {int(n): mark for n, mark in re.findall(r'id="square-(\d)" data-mark="([XO]?)"', html)}


def version(html: str) -> int:
    return int(re.search(r'id="game-meta"[^>]*data-version="(\d+)"', html)[1])


@pytest.fixture
def room():
    """A tic-tac-toe room: overrides the Minesweeper `room` of tests/web/conftest.py."""
    return make_room()


async def test_two_people_and_a_spectator_see_every_mark(room, ana, bo):
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    await send(sockets[0], action="mark", cell=4)
    for socket in sockets:
        message = await receive_until(socket, 'id="game-meta"')
        assert squares(message) == {4: "X"}
        assert "Ana placed X on square 5." in message
        assert "Bo (O) to move" in message
    await send(sockets[1], action="mark", cell="0", HEADERS={"HX-Request": "true"})
    for socket in sockets:
        message = await receive_until(socket, 'data-version="2"')
        assert squares(message) == {0: "O"}
    game = await database_sync_to_async(current)(room)
    assert game.version == 2
    for socket in sockets:
        await socket.disconnect()


async def test_the_snapshot_shows_the_board_scores_and_whose_turn(room, ana, bo):
    await database_sync_to_async(dispatch.play)(room, ana, messages.SquareMove(2))
    socket = await connect(room, watch=True)
    await send(socket, action="sync")
    snapshot = await receive_until(socket, 'id="board"')
    assert squares(snapshot) == {n: ("X" if n == 2 else "") for n in range(9)}
    assert 'aria-label="square 3, X"' in snapshot and 'aria-label="square 1, empty"' in snapshot
    assert 'id="scoreboard"' in snapshot and 'id="room-error"' in snapshot
    assert "Bo (O) to move" in snapshot
    assert re.search(
        r'id="game-meta"[^>]*data-turn-seat="1" data-x-seat="0" data-o-seat="1"', snapshot
    )
    await socket.disconnect()


async def test_refusals_reach_only_their_sender_and_change_nothing(room, ana, bo):
    everyone = await seats_taken_and_watched(room, ana, bo)
    first, second, third, spectator = everyone

    def others(socket):
        return [s for s in everyone if s is not socket]

    await refused(second, others(second), room, {"action": "mark", "cell": 4}, "not your turn")
    await send(first, action="mark", cell=4)
    for socket in everyone:
        await receive_until(socket, r'id="game-meta"[^>]*data-version="1"')
    await refused(second, others(second), room, {"action": "mark", "cell": 4}, "already taken by X")
    await refused(third, others(third), room, {"action": "mark", "cell": 0}, "no seat in this game")
    await refused(spectator, others(spectator), room, {"action": "mark", "cell": 0}, "Spectators")
    await refused(second, others(second), room, {"action": "mark", "cell": 9}, "off the board")
    await refused(second, others(second), room, {"action": "reveal", "x": 0, "y": 0}, "tic-tac-toe")
    for socket in everyone:
        await socket.disconnect()


async def test_a_visitor_without_a_seat_counts_as_a_spectator(room, ana, bo):
    """Cy joined after both seats were taken: Cy watches, and every page counts Cy, as it
    counts the watch link's spectator; when the spectator leaves, Cy is still counted."""
    ana_socket, bo_socket, cy_socket, spectator = await seats_taken_and_watched(room, ana, bo)
    await spectator.disconnect()
    await settle(ana_socket, bo_socket, cy_socket, online=3, watching=1)
    for socket in (ana_socket, bo_socket, cy_socket):
        await socket.disconnect()


async def test_the_perfect_computer_replies_to_a_person():
    room = await database_sync_to_async(make_room)("human", "perfect")
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    socket = await connect(room, ana)
    await send(socket, action="mark", cell=0)
    reply = await receive_until(socket, 'data-version="2"')
    assert squares(reply) == {4: "O"}  # the centre is the only drawing answer to a corner
    assert "Computer (perfect) placed O on square 5." in reply
    assert "Ana (X) to move" in reply
    move = await database_sync_to_async(Move.objects.get)(game__room=room, seq=2)
    assert (move.player_id, move.seat) == (None, rules.COMPUTER_SEAT)
    await socket.disconnect()


async def test_while_the_computer_thinks_the_page_says_so():
    room = await database_sync_to_async(make_room)("human", "random")
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    socket = await connect(room, ana)
    await send(socket, action="mark", cell=8)
    mine = await receive_until(socket, 'data-version="1"')
    assert "Computer (random) is thinking" in mine
    await receive_until(socket, 'data-version="2"')
    await socket.disconnect()


async def test_the_computer_opens_when_a_person_connects():
    """A computer holding X moves without anyone sending anything: on connect (or after a
    restart) the driver notices it is due."""
    room = await database_sync_to_async(make_room)("perfect", "human")
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    socket = await connect(room, ana)
    opening = await receive_until(socket, 'data-version="1"')
    assert list(squares(opening).values()) == ["X"]
    assert "Ana (O) to move" in opening
    await socket.disconnect()


def game_number(room, number: int) -> Game:
    return Game.objects.get(room=room, number=number)


async def test_computer_against_computer_plays_itself_while_someone_watches():
    room = await database_sync_to_async(make_room)("random", "perfect")
    spectator = await connect(room, watch=True)
    final = await receive_until(spectator, FINISHED)
    game = await database_sync_to_async(game_number)(room, 1)
    assert game.is_over and version(final) == game.version
    assert await database_sync_to_async(Move.objects.filter(game=game).count)() == game.version
    assert "Computer 1 (random) wins" not in final  # random never beats perfect
    await spectator.disconnect()


async def test_two_watchers_do_not_make_the_computers_move_twice():
    room = await database_sync_to_async(make_room)("perfect", "perfect")
    first, second = await connect(room, watch=True), await connect(room, watch=True)
    await receive_until(first, FINISHED)
    await receive_until(second, FINISHED)
    game = await database_sync_to_async(game_number)(room, 1)
    assert (game.status, game.version) == (Game.Status.DRAW, 9)
    seqs = await database_sync_to_async(list)(
        Move.objects.filter(game=game).values_list("seq", flat=True)
    )
    assert seqs == list(range(1, 10))
    await first.disconnect()
    await second.disconnect()


async def test_computer_against_computer_starts_the_next_game_by_itself():
    """After the pause (`Computer.next_game_after`, shortened by PACE) the rematch starts with
    nobody clicking, sides swapped; meanwhile everyone sees a countdown instead of Rematch."""
    room = await database_sync_to_async(make_room)("random", "perfect")
    spectator = await connect(room, watch=True)
    final = await receive_until(spectator, FINISHED)
    assert 'data-game="1"' in final
    assert re.search(r'class="next-game" data-next-at="\d+" data-next-in="5"', final)
    assert "Next game in <span" in final and 'value="new_game"' not in final
    # One countdown (the status line's); the narration says it once, with no number of its own.
    assert re.findall(r"Next game in", final) == ["Next game in"]
    assert "The next game starts by itself." in final
    snapshot = await receive_until(spectator, 'data-game="2" data-version="0"')
    assert 'class="next-game"' not in snapshot and "Computer 2 (perfect) is thinking" in snapshot
    assert "Next game: Computer 2 (perfect) plays X." in snapshot  # announced, by nobody
    opening = await receive_until(spectator, 'data-game="2" data-version="1"')
    assert "Computer 2 (perfect) placed X" in opening  # a rematch: entrant 2 holds X now
    game = await database_sync_to_async(game_number)(room, 2)
    assert game.params["X"]["entrant"] == 2 and game.params["O"]["player"] == "random"
    await spectator.disconnect()


async def test_the_next_game_waits_for_someone_to_watch(monkeypatch):
    """Game 1 ends with nobody connected (the API plays it at once). A spectator who leaves
    during the pause stops the driver: no game 2. The next one to connect resumes it."""
    room = await database_sync_to_async(make_room)("perfect", "perfect")
    await database_sync_to_async(rooms_computers.play_computer_turns)(room)
    entered, release = threading.Event(), threading.Event()
    real_due = rooms_computers.next_game_due

    def held_due(*args):
        if not entered.is_set():  # only the first driver's look waits for the test
            entered.set()
            release.wait(timeout=10)
        return real_due(*args)

    monkeypatch.setattr(rooms_computers, "next_game_due", held_due)
    spectator = await connect(room, watch=True)
    assert await asyncio.to_thread(entered.wait, 10), "the driver never looked at the room"
    await spectator.disconnect()
    release.set()
    await autoplay.idle(room)  # the driver woke after the pause, found nobody, and stopped
    games = await database_sync_to_async(Game.objects.filter(room=room).count)()
    assert games == 1
    spectator = await connect(room, watch=True)
    await receive_until(spectator, 'data-game="2" data-version="0"')
    await spectator.disconnect()


def test_only_games_the_computers_played_alone_start_the_next_by_themselves():
    """`start_next_game_by_computer` checks the kind's table, not the driver's word: a game
    with a person, a game still going, or a game already replaced starts nothing."""
    people = make_room("human", "perfect")
    ana = joining.join_room(people, "Ana")
    while not (game := current(people)).is_over:  # Ana takes the first free square each time
        free = engine.from_dict(game.state).squares.index(None)
        dispatch.play(people, ana, messages.SquareMove(free))
        rooms_computers.play_computer_turns(people)
    assert rooms_computers.next_game_due(people) is None
    assert rooms_computers.start_next_game_by_computer(people, replacing=1).game.number == 1
    computers = make_room("perfect", "random")
    assert rooms_computers.next_game_due(computers) is None  # still playing
    assert rooms_computers.start_next_game_by_computer(computers, replacing=1).game.number == 1
    rooms_computers.play_computer_turns(computers)
    assert rooms_computers.next_game_due(computers)[0] == 1
    assert rooms_computers.start_next_game_by_computer(computers, replacing=1).game.number == 2
    assert rooms_computers.start_next_game_by_computer(computers, replacing=1).game.number == 2
    assert Game.objects.filter(room=computers).count() == 2  # a second driver: nothing new
    minesweeper = joining.create_room("minesweeper", ms_rules.validate_settings(9, 9, 10))
    assert rooms_computers.next_game_due(minesweeper) is None


async def play_x_win(first, second) -> str:
    """X takes the top row while O plays the middle row; returns X's winning message."""
    for socket, cell in [(first, 0), (second, 3), (first, 1), (second, 4)]:
        await send(socket, action="mark", cell=cell)
        await receive_until(first, f'data-version="{version_after(cell)}"')
    await send(first, action="mark", cell=2)
    return await receive_until(second, FINISHED)


def version_after(cell: int) -> int:
    return {0: 1, 3: 2, 1: 3, 4: 4}[cell]


async def test_a_win_highlights_the_line_and_offers_a_rematch_that_swaps_sides(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    won = await play_x_win(first, second)
    for n in (0, 1, 2):
        assert re.search(rf'id="square-{n}" data-mark="X" data-cell="{n}" data-win="true"', won)
    assert 'id="strike"' in won and "<line" in won
    assert "Ana wins!" in won
    assert '"0": "You win!"' in won.replace("&quot;", '"')
    assert 'name="action" value="new_game"' in won and 'name="game" value="1"' in won
    await send(second, action="new_game", game="1")
    snapshot = await receive_until(first, 'id="board"')
    assert re.search(
        r'data-game="2" data-version="0"[^>]*data-turn-seat="1" data-x-seat="1"', snapshot
    )
    assert "Bo (X) to move" in snapshot
    await send(first, action="mark", cell=4)
    assert "not your turn" in await receive_until(first, 'id="room-error"')
    await send(second, action="mark", cell=4)
    assert squares(await receive_until(first, 'data-version="1"')) == {4: "X"}
    await first.disconnect()
    await second.disconnect()


async def test_a_rematch_against_the_computer_lets_it_open():
    room = await database_sync_to_async(make_room)("human", "perfect")
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    socket = await connect(room, ana)
    await send(socket, action="new_game", game="1")
    await receive_until(socket, 'data-game="2" data-version="0"')
    opening = await receive_until(socket, 'data-game="2" data-version="1"')
    assert list(squares(opening).values()) == ["X"]
    await socket.disconnect()


async def test_the_scoreboard_counts_wins_per_player_and_draws(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    won = await play_x_win(first, second)
    assert scores(won) == {"Ana": 1, "Bo": 0, "draws": 0}
    await send(first, action="new_game", game="1")
    await receive_until(second, 'data-game="2" data-version="0"')
    # Bo holds X now; Bo wins down the left column.
    for socket, cell, seq in [(second, 0, 1), (first, 1, 2), (second, 3, 3), (first, 4, 4)]:
        await send(socket, action="mark", cell=cell)
        await receive_until(first, f'data-game="2" data-version="{seq}"')
    await send(second, action="mark", cell=6)
    won = await receive_until(first, FINISHED)
    assert scores(won) == {"Ana": 1, "Bo": 1, "draws": 0}
    assert "Bo wins!" in won
    await first.disconnect()
    await second.disconnect()


def scores(html: str) -> dict[str, int]:
    names = re.findall(r'class="contender-name"[^>]*>([^<]+)<', html)
    wins = [int(n) for n in re.findall(r'class="contender-wins"[^>]*>(\d+)<', html)]
    draws = int(re.search(r'class="draws-count">(\d+)<', html)[1])
    return {**dict(zip(names, wins, strict=True)), "draws": draws}


async def test_a_person_joining_fills_the_open_seat_on_every_screen(room, ana):
    socket = await connect(room, ana)
    await settle(socket, online=1)  # the roster of Ana's own arrival, told apart from Bo's
    await send(socket, action="mark", cell=0)
    assert "Waiting for a second player to join as O" in await receive_until(
        socket, 'data-version="1"'
    )
    await database_sync_to_async(joining.join_room)(room, "Bo")
    roster = await receive_until(socket, 'id="roster"')
    assert "Bo (O) to move" in roster and "Open seat" not in roster
    await socket.disconnect()
