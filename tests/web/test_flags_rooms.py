"""Flags rooms over real websockets: both players and spectators see every claim and turn, the
markup keeps the contract, refusals reach their sender alone, and computers play live."""

import re
import time

import pytest
from channels.db import database_sync_to_async

from games.kinds import kind_of
from games.kinds.flags import render, rules
from games.protocol.messages import CellMove
from games.rooms import autoplay, dispatch, joining, playing
from games.store.models import Game, Move

from .flags_helpers import current, make_flags_room, mines, safe
from .helpers import connect, receive_until, refused, seats_taken_and_watched, send

pytestmark = pytest.mark.django_db(transaction=True)

FINISHED = r'id="game-meta"[^>]*data-status="won"'


@pytest.fixture(autouse=True)
async def quick_computers(monkeypatch):
    """The computers' pause is for people; drivers still running when a test ends are stopped
    before its database goes away."""
    monkeypatch.setattr(autoplay, "PACE", 0.01)
    yield
    await autoplay.stop()


@pytest.fixture
def room():
    """A Flags room for two people: overrides the Minesweeper `room` of tests/web/conftest.py."""
    return make_flags_room()


def cells(html: str) -> dict[tuple[int, int], dict[str, str]]:
    found = {}
    for match in re.finditer(r'<button type="button" class="cell" ([^>]*)>', html):
        attributes = dict(re.findall(r'(data-[a-z]+)="([^"]*)"', match[1]))
        found[int(attributes["data-x"]), int(attributes["data-y"])] = attributes
    return found


def meta(html: str) -> dict[str, str]:
    tag = re.search(r'<div id="game-meta"[^>]*>', html)[0]
    return dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', tag))


def score(html: str, mark: str) -> int:
    return int(re.search(rf'id="score-{mark}"[^>]*>(\d+)<', html)[1])


async def test_the_snapshot_follows_the_markup_contract(room, ana, bo):
    socket = await connect(room, watch=True)
    await send(socket, action="sync")
    snapshot = await receive_until(socket, 'id="board"')
    board = re.search(r'<div id="board"[^>]*>', snapshot)[0]
    assert 'data-turn="X"' in board and 'data-version="0"' in board
    assert 'data-status="playing"' in board
    shown = cells(snapshot)
    assert len(shown) == 256
    assert {c["data-state"] for c in shown.values()} == {"hidden"}
    assert score(snapshot, "X") == 0 and score(snapshot, "O") == 0
    assert 'id="bomb"' in snapshot and 'id="bomb-toggle"' in snapshot
    assert "Ana (X) to move" in snapshot
    assert meta(snapshot)["data-turn-seat"] == "0" and meta(snapshot)["data-bomb-seat"] == ""
    await socket.disconnect()


async def test_both_players_and_a_spectator_see_claims_and_turns(room, ana, bo):
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    mine = (await database_sync_to_async(mines)(room))[0]
    await send(sockets[0], action="reveal", x=mine[0], y=str(mine[1]))
    for socket in sockets:
        message = await receive_until(socket, r'id="game-meta"[^>]*data-version="1"')
        claimed = cells(message)[mine]
        assert claimed["data-state"] == "claimed" and claimed["data-seat"] == "X"
        assert claimed["data-fresh"] == "true"
        assert score(message, "X") == 1
        assert meta(message)["data-turn"] == "X"
        assert "Ana claimed a mine at" in message and "goes again" in message
    at = await database_sync_to_async(safe)(room)
    await send(sockets[0], action="reveal", x=at[0], y=at[1])
    for socket in sockets:
        message = await receive_until(socket, r'id="game-meta"[^>]*data-version="2"')
        opened = cells(message)[at]
        assert opened["data-state"] == "revealed" and opened["data-count"] != "0"
        assert meta(message)["data-turn"] == "O" and meta(message)["data-turn-seat"] == "1"
        # O is behind, so O may bomb: the page shows the button to seat 1 only.
        assert meta(message)["data-bomb-seat"] == "1"
        assert "Bo (O) to move" in message
    for socket in sockets:
        await socket.disconnect()


async def test_refusals_reach_only_their_sender_and_change_nothing(room, ana, bo):
    everyone = await seats_taken_and_watched(room, ana, bo)
    first, second, third, spectator = everyone

    def others(socket):
        return [s for s in everyone if s is not socket]

    at = await database_sync_to_async(safe)(room)
    reveal = {"action": "reveal", "x": at[0], "y": at[1]}
    await refused(second, others(second), room, reveal, "It is not your turn: X is to move")
    await refused(first, others(first), room, {"action": "bomb", "x": 8, "y": 8}, "behind")
    await refused(
        first, others(first), room, {"action": "reveal", "x": 16, "y": 2}, "off the board"
    )
    await refused(third, others(third), room, reveal, "no seat in this game")
    await refused(spectator, others(spectator), room, reveal, "Spectators can watch")
    await refused(first, others(first), room, {"action": "mark", "cell": 1}, "This is a Flags room")
    await send(first, **reveal)
    for socket in everyone:
        await receive_until(socket, r'id="game-meta"[^>]*data-version="1"')
    await refused(second, others(second), room, reveal, r"already open")
    for socket in everyone:
        await socket.disconnect()


async def test_a_bomb_claims_for_the_player_behind_and_passes_the_turn(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    mine = (await database_sync_to_async(mines)(room))[0]
    await send(first, action="reveal", x=mine[0], y=mine[1])
    at = await database_sync_to_async(safe)(room)
    await send(first, action="reveal", x=at[0], y=at[1])
    await receive_until(second, r'id="game-meta"[^>]*data-version="2"')
    target = (await database_sync_to_async(mines)(room))[0]
    await send(second, action="bomb", x=target[0], y=target[1])
    message = await receive_until(first, r'id="game-meta"[^>]*data-version="3"')
    claimed = [c for c in cells(message).values() if c["data-state"] == "claimed"]
    assert claimed and {c["data-seat"] for c in claimed} == {"O"}
    assert f"Bo bombed around row {target[1] + 1}, column {target[0] + 1}" in message
    assert score(message, "O") == len(claimed)
    assert meta(message)["data-bomb-seat"] in ("", "0")  # O's bomb is spent
    assert "bomb used" in message
    for socket in (first, second):
        await socket.disconnect()


async def test_the_end_shows_every_mine_and_offers_a_rematch(room, ana, bo):
    first = await connect(room, ana)
    all_mines = await database_sync_to_async(mines)(room)
    for at in all_mines[:26]:
        await send(first, action="reveal", x=at[0], y=at[1])
    final = await receive_until(first, FINISHED)
    shown = cells(final)
    assert sum(c["data-state"] == "mine" for c in shown.values()) == 51 - 26
    assert "Ana (X) wins, 26 to 0!" in final
    assert "Rematch" in final and meta(final)["data-turn"] == ""
    await send(first, action="new_game")
    rematch = await receive_until(first, r'id="game-meta"[^>]*data-game="2"')
    assert "Rematch started by Ana: Bo plays X and opens." in rematch
    await first.disconnect()


async def test_the_computer_replies_to_a_person():
    room = await database_sync_to_async(make_flags_room)("human", "easy")
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    socket = await connect(room, ana)
    at = await database_sync_to_async(safe)(room)
    await send(socket, action="reveal", x=at[0], y=at[1])
    mine = await receive_until(socket, r'id="game-meta"[^>]*data-version="1"')
    assert "Computer (easy) is thinking" in mine
    reply = await receive_until(socket, r'id="game-meta"[^>]*data-version="2"')
    assert "Computer (easy)" in reply
    move = await database_sync_to_async(Move.objects.get)(game__room=room, seq=2)
    assert move.player_id is None
    await socket.disconnect()


def game_number(room, number: int) -> Game:
    return Game.objects.get(room=room, number=number)


async def test_computer_against_computer_plays_on_for_a_spectator(monkeypatch):
    room = await database_sync_to_async(make_flags_room)("easy", "strong", mines=11)
    spectator = await connect(room, watch=True)
    final = await receive_until(spectator, FINISHED)
    # One countdown (the status line's), and the narration gives no second number beside it.
    assert re.findall(r"Next game in", final) == ["Next game in"]
    assert re.search(r'Next game in <span class="next-game-count">\d+</span> s<', final)
    assert "wins, " in final and "The next game starts by itself." in final
    game = await database_sync_to_async(game_number)(room, 1)
    assert game.is_over
    assert await database_sync_to_async(Move.objects.filter(game=game).count)() == game.version
    await receive_until(spectator, r'id="game-meta"[^>]*data-game="2"')
    await spectator.disconnect()


def start_turn_ago(room, seconds: float) -> None:
    """Make the current turn have started `seconds` ago (as if its player had been idle)."""
    game = current(room)
    state = {**game.state, rules.TURN_STARTED: time.time() - seconds}
    Game.objects.filter(pk=game.pk).update(state=state)


async def test_the_turn_timer_passes_the_turn_to_the_other_player():
    room = await database_sync_to_async(make_flags_room)(turn_seconds=15)
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    bo = await database_sync_to_async(joining.join_room)(room, "Bo")
    mine = (await database_sync_to_async(mines)(room))[0]
    await database_sync_to_async(dispatch.play)(room, ana, CellMove("reveal", *mine))
    game = await database_sync_to_async(current)(room)
    assert rules.turn_due(game.state, game.params) == pytest.approx(time.time() + 15, abs=5)
    await database_sync_to_async(start_turn_ago)(room, 16)
    socket = await connect(room, bo)
    timed_out = await receive_until(socket, r'id="game-meta"[^>]*data-version="2"')
    assert "Ana ran out of time: Bo (O) to move." in timed_out
    assert meta(timed_out)["data-turn"] == "O"
    assert re.search(r'id="turn-timer" data-seconds="15" data-left-ms="1[45]\d\d\d"', timed_out)
    tick = await database_sync_to_async(Move.objects.get)(game__room=room, seq=2)
    assert (tick.action, tick.player_id, tick.x) == ("tick", None, None)
    await socket.disconnect()


async def test_a_timed_out_person_hands_the_turn_to_the_computer():
    room = await database_sync_to_async(make_flags_room)("human", "easy", turn_seconds=15)
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    mine = (await database_sync_to_async(mines)(room))[0]
    await database_sync_to_async(dispatch.play)(room, ana, CellMove("reveal", *mine))
    await database_sync_to_async(start_turn_ago)(room, 20)
    socket = await connect(room, ana)
    await receive_until(socket, "Ana ran out of time")
    reply = await receive_until(socket, r'id="game-meta"[^>]*data-version="3"')
    assert "Computer (easy)" in reply
    await socket.disconnect()


async def test_without_a_timer_nothing_is_timed(room, ana, bo):
    mine = (await database_sync_to_async(mines)(room))[0]
    await database_sync_to_async(dispatch.play)(room, ana, CellMove("reveal", *mine))
    game = await database_sync_to_async(current)(room)
    assert rules.TURN_STARTED not in game.state
    assert rules.turn_due(game.state, game.params) is None
    assert rules.tick(game.state, game.params, time.time() + 3600) is None


async def test_a_bot_on_the_websocket_plays_flags_from_json_events(room, ana, bo):
    """A bot with Bo's token reads JSON: its side, whose turn, the scores and claimed cells."""
    from .test_bot_sockets import bot, event

    socket = await bot(room, bo.token)
    snapshot = await event(socket)
    assert (snapshot["game"], snapshot["you"], snapshot["turn"]) == ("flags", "O", "X")
    assert snapshot["board"] == ["#" * 16] * 16 and snapshot["scores"] == {"X": 0, "O": 0}
    page = await connect(room, ana)
    mine = (await database_sync_to_async(mines)(room))[0]
    await send(page, action="reveal", x=mine[0], y=mine[1])
    claimed = await event(socket, "move")
    assert claimed["cells"] == [{"x": mine[0], "y": mine[1], "state": "claimed", "seat": "X"}]
    assert (claimed["turn"], claimed["scores"]) == ("X", {"X": 1, "O": 0})
    await send(socket, action="reveal", x=0, y=0)
    assert (await event(socket, "error"))["error"] == "It is not your turn: X is to move."
    at = await database_sync_to_async(safe)(room)
    await send(page, action="reveal", x=at[0], y=at[1])
    passed = await event(socket, "move")
    assert passed["turn"] == "O" and passed["cells"][0]["state"] == "revealed"
    target = (await database_sync_to_async(mines)(room))[0]
    await send(socket, action="bomb", x=target[0], y=target[1])
    bombed = await event(socket, "move")
    assert {"x": target[0], "y": target[1], "state": "claimed", "seat": "O"} in bombed["cells"]
    for communicator in (socket, page):
        await communicator.disconnect()


def bomb_words(html: str) -> dict[str, str]:
    """Each contender's bomb line as the scoreboard shows it, by mark."""
    return dict(
        re.findall(
            r'data-mark="([XO])"(?:(?!data-mark=").)*?class="bomb-state"[^>]*>([^<]+)<', html, re.S
        )
    )


def test_bomb_ready_shows_only_for_the_player_behind_on_their_turn(room, ana, bo):
    snapshot = lambda: render.snapshot_html(room, current(room))  # noqa: E731
    assert bomb_words(snapshot()) == {"X": "bomb unused", "O": "bomb unused"}  # 0-0: nobody
    dispatch.play(room, ana, CellMove("reveal", *mines(room)[0]))  # X leads and goes again
    dispatch.play(room, ana, CellMove("reveal", *safe(room)))  # O's turn, one behind
    assert bomb_words(snapshot()) == {"X": "bomb unused", "O": "bomb ready"}


def test_before_the_first_move_the_turn_timer_says_it_starts_with_that_move():
    room = make_flags_room(turn_seconds=15)
    ana = joining.join_room(room, "Ana")
    joining.join_room(room, "Bo")
    waiting = render.snapshot_html(room, current(room))
    timer = re.search(r'<p class="turn-timer"[^>]*>.*?</p>', waiting)[0]
    assert "data-left-ms" not in timer  # nothing counts down before the clock starts
    assert re.sub(r"<[^>]+>", "", timer) == "15 s a turn, from the first move"
    dispatch.play(room, ana, CellMove("reveal", *safe(room)))
    running = re.search(
        r'<p class="turn-timer"[^>]*>.*?</p>', render.snapshot_html(room, current(room))
    )[0]
    assert "data-left-ms" in running and "from the first move" not in running


def test_the_turn_timer_pauses_after_passes_with_nobody_moving_until_someone_moves():
    """An abandoned timed room (a spectator's socket still open) stops ticking: each pass would
    log a move, every 15 s for as long as the room is watched."""
    room = make_flags_room(turn_seconds=15)
    ana, bo = (joining.join_room(room, name) for name in ("Ana", "Bo"))
    dispatch.play(room, ana, CellMove("reveal", *mines(room)[0]))
    for _ in range(rules.IDLE_LIMIT):
        start_turn_ago(room, 16)
        assert playing.tick(room) is not None
    game = current(room)
    assert rules.turn_due(game.state, game.params) is None
    assert playing.tick(room) is None  # paused, however long nobody moves
    assert Move.objects.filter(game=game, action="tick").count() == rules.IDLE_LIMIT
    assert "Timer paused until someone moves" in kind_of("flags").rendering.snapshot_html(
        room, game
    )
    mover = ana if rules.load(game.state).turn.value == "X" else bo
    dispatch.play(room, mover, CellMove("reveal", *safe(room)))
    game = current(room)
    assert rules.turn_due(game.state, game.params) == pytest.approx(time.time() + 15, abs=5)
    assert "Timer paused until someone moves" not in kind_of("flags").rendering.snapshot_html(
        room, game
    )
