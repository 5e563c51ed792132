"""A tic-tac-toe player who leaves: after the grace period everyone is told their seat is free
and the one who stayed may claim the win; coming back in time changes nothing."""

import re

import pytest
from channels.db import database_sync_to_async

from games.kinds.tictactoe import rules
from games.protocol.messages import Command
from games.rooms import autoplay, dispatch, joining, playing, presence
from games.store.models import Game, Move, Room

from . import helpers
from .flags_helpers import make_flags_room
from .helpers import receive_until, refused, send, settle

pytestmark = pytest.mark.django_db(transaction=True)

FREE = "Bo left — the seat is free."


OPEN: list = []
"""The test's sockets, closed when it ends (`stop_drivers`)."""


async def connect(*args, **kwargs):
    """`helpers.connect`, remembered so the test's end can close it."""
    socket = await helpers.connect(*args, **kwargs)
    OPEN.append(socket)
    return socket


@pytest.fixture(autouse=True)
async def stop_drivers():
    """The test's sockets are closed and the clock drivers they started stopped before its
    database goes: a socket left open closes as the event loop ends, and its presence write then
    met the database's flush (PostgreSQL: "deadlock detected")."""
    yield
    while OPEN:
        await OPEN.pop().disconnect()
    await autoplay.stop()


@pytest.fixture(params=["tictactoe", "flags"])
def room(request):
    """A room for two people, of each two-sided kind."""
    if request.param == "flags":
        return make_flags_room()
    return joining.create_room("tictactoe", rules.validate_settings("human", "human"))


@pytest.fixture
def short_grace(settings):
    settings.SEAT_GRACE_SECONDS = 0.2


def current(room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


async def bo_leaves(room, ana, bo):
    """Ana (X) and a spectator in the room, Bo (O) gone once everyone saw him come."""
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    await settle(*sockets, online=2, watching=1)
    await sockets[1].disconnect()
    return sockets[0], sockets[2]


async def test_after_the_grace_everyone_is_told_the_seat_is_free(room, ana, bo, short_grace):
    mine, watcher = await bo_leaves(room, ana, bo)
    for socket in (mine, watcher):
        message = await receive_until(socket, FREE)
        assert f'class="claim-win" ws-send data-for-seat="{ana.number}" hidden' in message
        # The watch link's spectators are offered the invite page, which asks a name again.
        assert 'class="button take-seat-join" href="../" data-for-spectator hidden' in message
    game = await database_sync_to_async(current)(room)
    assert game.state["away"]["O"]["free"] is True and game.status == "playing"
    assert await database_sync_to_async(joining.seats_taken)(room) is None


async def test_the_invite_says_the_seats_are_taken_while_the_one_away_may_come_back(
    room, ana, bo, settings
):
    settings.SEAT_GRACE_SECONDS = 3600
    await bo_leaves(room, ana, bo)
    game = await database_sync_to_async(current)(room)
    assert game.state["away"]["O"]["free"] is False
    assert "taken" in await database_sync_to_async(joining.seats_taken)(room)


async def test_claiming_the_win_ends_the_game_for_the_one_who_stayed(room, ana, bo, short_grace):
    mine, watcher = await bo_leaves(room, ana, bo)
    await receive_until(mine, FREE)
    await send(mine, action="claim_win")
    for socket in (mine, watcher):
        message = await receive_until(socket, 'id="game-meta"[^>]*data-status="won"')
        assert re.search(r"Ana (\(X\) )?wins(! \(|: )Bo left", message)
        assert "Bo left: Ana claimed the win." in message
    game = await database_sync_to_async(current)(room)
    assert (game.state["winner"], game.state["forfeited"]) == ("X", "O")
    assert game.status == "won"
    actions = await database_sync_to_async(
        lambda: list(Move.objects.filter(game=game).values_list("action", flat=True))
    )()
    assert actions[-1] == "claim_win"


async def test_coming_back_before_the_grace_ends_cancels_it(room, ana, bo, settings):
    settings.SEAT_GRACE_SECONDS = 30
    mine, watcher = await bo_leaves(room, ana, bo)
    await receive_until(mine, "Bo went away.")
    back = await connect(room, bo)
    for socket in (mine, watcher):
        await receive_until(socket, "Bo is back.")
    await settle(mine, watcher, back, online=2, watching=1)
    game = await database_sync_to_async(current)(room)
    assert "away" not in game.state or not game.state["away"]
    await refused(mine, [watcher, back], room, {"action": "claim_win"}, "O has not left")


async def test_a_player_who_is_here_cannot_be_claimed_against(room, ana, bo, short_grace):
    sockets = [await connect(room, ana), await connect(room, bo)]
    await settle(*sockets, online=2)
    await refused(sockets[0], sockets[1:], room, {"action": "claim_win"}, "O has not left")


async def test_only_the_player_who_stayed_may_claim(room, ana, bo, short_grace):
    cy = await database_sync_to_async(joining.join_room)(room, "Cy")
    mine, watcher = await bo_leaves(room, ana, bo)
    await receive_until(mine, FREE)
    before = await database_sync_to_async(current)(room)
    third = await connect(room, cy)
    for socket, text in (
        (third, "Only a player in this game can claim the win."),
        (watcher, "Spectators can watch but not play."),
    ):
        await send(socket, action="claim_win")
        assert 'id="room-error"' in await receive_until(socket, text)
    after = await database_sync_to_async(current)(room)
    assert (after.version, after.status) == (before.version, "playing")


def test_a_bot_claims_the_win_over_the_api_once_the_seat_is_free(client, settings):
    """Bo's page closes (his only socket leaves the presence counts); the API applies the clock's
    due events before a move, so Ana's claim first finds Bo present, then his seat free."""
    settings.SEAT_GRACE_SECONDS = 0
    body = {"game": "tictactoe", "x": "human", "o": "human", "name": "Ana"}
    created = client.post("/api/rooms", body, content_type="application/json").json()
    room = Room.objects.get(code=created["code"])
    bo = joining.join_room(room, "Bo")
    headers = {"Authorization": f"Bearer {created['player_token']}"}

    def claim():
        return client.post(
            f"/api/rooms/{room.code}/moves",
            {"action": "claim_win"},
            content_type="application/json",
            headers=headers,
        )

    presence.presence_changed(room, bo, +1, "test-process")
    refusal = claim()
    assert (refusal.status_code, refusal.json()["error"][:14]) == (409, "O has not left")
    presence.presence_changed(room, bo, -1, "test-process")
    answer = claim()
    assert (answer.status_code, answer.json()["status"]) == (200, "won")
    read = client.get(f"/api/rooms/{room.code}").json()
    assert (read["status"], read["winner"]) == ("won", "X")


def test_a_claimed_win_replays_with_who_left(room, client, settings):
    """The replay page plays the log's claim as the forfeit it was (and passes over the seat's
    away and freed events, which a Flags replay must not take for a turn timing out)."""
    settings.SEAT_GRACE_SECONDS = 0
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    presence.presence_changed(room, bo, +1, "test-process")
    presence.presence_changed(room, bo, -1, "test-process")
    playing.tick(room)  # the grace period is over: the clock frees Bo's seat
    dispatch.play(room, ana, Command("claim_win"))
    actions = list(Move.objects.filter(game__room=room).values_list("action", flat=True))
    assert actions == ["away", "seat_free", "claim_win"]
    html = client.get(f"/r/{room.code}/games/1/").content.decode()
    assert re.search(r"<dt>Result</dt><dd>Ana won</dd>", html)
    if room.kind == "tictactoe":
        assert "claimed the win: O left, X wins" in html


def move_for(room) -> dict:
    """A move that any side could make on a new game of the room's kind."""
    if room.kind == "flags":
        return {"action": "reveal", "x": 0, "y": 0}
    return {"action": "mark", "cell": 0}


async def test_a_visitor_without_a_side_takes_the_free_seat_and_plays_it(
    room, ana, bo, short_grace
):
    cy = await database_sync_to_async(joining.join_room)(room, "Cy")
    mine, watcher = await bo_leaves(room, ana, bo)
    await receive_until(mine, FREE)
    third = await connect(room, cy)
    await send(third, action="sync")
    assert "Take Bo's seat" in await receive_until(third, 'class="take-seat"')
    await send(third, action="take_seat")
    for socket in (mine, watcher, third):
        message = await receive_until(socket, "Cy took the free seat and plays O.")
        assert f'data-o-seat="{cy.number}"' in message
        assert re.search(r'id="roster"', message)  # the roster says who holds O now
    # Cy holds O now: out of turn is the refusal, not "no seat"; Bo's token has no side.
    await send(third, **move_for(room))
    assert 'id="room-error"' in await receive_until(third, "It is not your turn")
    back = await connect(room, bo)
    await send(back, **move_for(room))
    assert 'id="room-error"' in await receive_until(back, "You have no seat in this game")
    game = await database_sync_to_async(current)(room)
    assert game.params["O"]["seat"] == cy.number and not game.state["away"]
    if room.kind == "tictactoe":  # and on their turn, Cy's move is played
        await send(mine, action="mark", cell=4)
        await receive_until(third, "Cy \\(O\\) to move")
        await send(third, action="mark", cell=0)
        assert "Cy placed O on square 1." in await receive_until(mine, "Cy placed O")


async def test_no_seat_can_be_taken_while_both_players_are_here(room, ana, bo, short_grace):
    cy = await database_sync_to_async(joining.join_room)(room, "Cy")
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, cy)]
    for socket, text in (
        (sockets[2], "No seat is free"),
        (sockets[0], "You already play in this game"),
    ):
        await send(socket, action="take_seat")
        assert 'id="room-error"' in await receive_until(socket, text)
    game = await database_sync_to_async(current)(room)
    assert (game.version, game.params["O"]["seat"]) == (0, bo.number)


def test_a_game_whose_seat_changed_hands_still_replays(room, client, settings):
    """The log's take_seat changes nothing on the board: the replay passes over it."""
    settings.SEAT_GRACE_SECONDS = 0
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    cy = joining.join_room(room, "Cy")
    presence.presence_changed(room, bo, +1, "test-process")
    presence.presence_changed(room, bo, -1, "test-process")
    playing.tick(room)
    dispatch.play(room, cy, Command("take_seat"))
    dispatch.play(room, ana, Command("new_game"))  # game 1 ends unfinished, kept with its log
    response = client.get(f"/r/{room.code}/games/1/")
    assert response.status_code == 200
    actions = list(
        Move.objects.filter(game__number=1, game__room=room).values_list("action", flat=True)
    )
    assert actions == ["away", "seat_free", "take_seat"]


async def test_a_rematch_notes_again_who_is_still_away(room, ana, bo, short_grace):
    """Bo never came back: in the next game (sides swapped) his seat is freed again."""
    mine, watcher = await bo_leaves(room, ana, bo)
    for socket in (mine, watcher):
        await receive_until(socket, FREE)
    await send(mine, action="claim_win")
    for socket in (mine, watcher):
        await receive_until(socket, 'data-status="won"')
    await send(mine, action="new_game")
    await receive_until(watcher, 'id="game-meta" hidden data-game="2"')
    message = await receive_until(watcher, FREE)
    assert f'data-for-seat="{ana.number}"' in message
    game = await database_sync_to_async(current)(room)
    assert (game.number, game.params["X"]["seat"], game.state["away"]["X"]["free"]) == (
        2,
        bo.number,
        True,
    )


async def test_a_rematch_forgets_who_came_back_after_the_end(room, ana, bo, short_grace):
    mine, watcher = await bo_leaves(room, ana, bo)
    await receive_until(mine, FREE)
    await send(mine, action="claim_win")
    await receive_until(mine, 'data-status="won"')
    back = await connect(room, bo)
    await settle(mine, watcher, back, online=2, watching=1)
    await send(mine, action="new_game")
    await receive_until(back, 'id="game-meta" hidden data-game="2"')
    game = await database_sync_to_async(current)(room)
    assert game.number == 2 and not game.state.get("away")
