"""Leaving a room (issue 35, point 3; DESIGN.md "Leaving, names and sharing"): by the API, the
socket and the page, the seat is freed at once (the roster drops it, everyone is told), its
token stops working, a race under way counts it as giving up, and in a two-sided game under way
the other side may claim the win. A host who leaves hands the room on."""

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from games.engine import race as race_engine
from games.kinds.race import rules as race_rules
from games.kinds.tictactoe import rules as tictactoe_rules
from games.rooms import autoplay, joining, playing
from games.rooms.leaving import LEFT
from games.store.models import Move, Player, Room
from tests.helpers.flags import make_flags_room
from tests.helpers.web import TIMEOUT, connect, receive_until, send, settle

pytestmark = pytest.mark.django_db(transaction=True)
JSON = "application/json"


def post(client, path: str, token: str, body: dict | None = None):
    return client.post(
        path,
        json.dumps(body or {}),
        content_type=JSON,
        headers={"Authorization": f"Bearer {token}"},
    )


def api_room(client, **body) -> tuple[str, str, str]:
    body = {"game": "minesweeper", "preset": "beginner", "name": "Ana", **body}
    created = client.post("/api/rooms", body, content_type=JSON).json()
    bo = client.post(f"/api/rooms/{created['code']}/join", {"name": "Bo"}, content_type=JSON)
    return created["code"], created["player_token"], bo.json()["player_token"]


def seated(code: str) -> list[str]:
    room = Room.objects.get(code=code)
    return list(room.players.filter(role=Player.Role.PLAYER).values_list("nickname", flat=True))


def test_leaving_by_the_api_frees_the_seat_and_the_token_is_refused_after(client):
    code, ana, bo = api_room(client)
    left = post(client, f"/api/rooms/{code}/leave", bo)
    assert left.status_code == 200
    assert left.json() == {"seat": 1, "name": "Bo", "host": 0}
    assert seated(code) == ["Ana"]
    move = {"action": "flag", "x": 0, "y": 0}
    assert post(client, f"/api/rooms/{code}/moves", bo, move).status_code == 403
    assert post(client, f"/api/rooms/{code}/leave", bo).status_code == 403
    assert post(client, f"/api/rooms/{code}/moves", ana, move).status_code == 200
    watch = client.get(f"/r/{code}/watch/").content.decode()
    assert "Ana" in watch and not re.search(r">Bo<", watch)  # the roster dropped Bo


def test_a_host_who_leaves_hands_the_room_to_the_one_who_stays(client):
    code, ana, bo = api_room(client)
    left = post(client, f"/api/rooms/{code}/leave", ana)
    assert left.json()["host"] == 1
    assert Room.objects.get(code=code).host.nickname == "Bo"
    assert post(client, f"/api/rooms/{code}/leave", bo).json()["host"] is None
    cy = client.post(f"/api/rooms/{code}/join", {"name": "Cy"}, content_type=JSON)
    assert cy.status_code == 200
    assert Room.objects.get(code=code).host.nickname == "Cy"  # the next to join hosts


def test_leaving_an_unknown_room_is_404_and_without_a_token_401(client):
    code, _, bo = api_room(client)
    assert post(client, f"/api/rooms/{'x' * 22}/leave", bo).status_code == 404
    assert client.post(f"/api/rooms/{code}/leave").status_code == 401


def test_a_racer_who_leaves_a_race_under_way_gives_up(client, settings):
    settings.RACE_COUNTDOWN_SECONDS = 0
    body = {"game": "minesweeper", "mode": "race", "width": 9, "height": 9, "mines": 10}
    created = client.post("/api/rooms", {**body, "name": "Ana"}, content_type=JSON).json()
    code, ana = created["code"], created["player_token"]
    bo, cy = (
        client.post(f"/api/rooms/{code}/join", {"name": n}, content_type=JSON).json()
        for n in ("Bo", "Cy")
    )
    assert post(client, f"/api/rooms/{code}/moves", ana, {"action": "start"}).status_code == 200
    playing.tick(Room.objects.get(code=code))  # Go (no countdown)
    assert post(client, f"/api/rooms/{code}/leave", bo["player_token"]).status_code == 200
    game = Room.objects.get(code=code).current_game()
    race = race_rules.load(game.state)
    assert race.racer(1).standing is race_engine.Standing.GAVE_UP
    assert race.phase is race_engine.Phase.RACING  # Ana and Cy race on
    last = Move.objects.filter(game=game).order_by("-seq").first()
    assert (last.action, last.seat) == ("give_up", 1)


@pytest.fixture(params=["tictactoe", "flags"])
def two_sided(request):
    if request.param == "flags":
        return make_flags_room()
    return joining.create_room("tictactoe", tictactoe_rules.validate_settings("human", "human"))


async def test_in_a_two_sided_game_the_other_side_may_claim_the_win_at_once(two_sided, settings):
    settings.SEAT_GRACE_SECONDS = 3600  # no waiting: leaving frees the seat now
    room = two_sided
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    bo = await database_sync_to_async(joining.join_room)(room, "Bo")
    mine, his = await connect(room, ana), await connect(room, bo)
    await settle(mine, his, online=2)
    await send(his, action="leave")
    closed = await his.receive_output(timeout=TIMEOUT)
    while closed["type"] != "websocket.close":
        closed = await his.receive_output(timeout=TIMEOUT)
    assert closed["code"] == LEFT
    await receive_until(mine, "Bo left the room.")
    game = await database_sync_to_async(lambda: room.current_game())()
    assert game.state["away"]["O"]["free"] is True and game.status == "playing"
    await send(mine, action="claim_win")
    await receive_until(mine, 'id="game-meta"[^>]*data-status="won"')
    await mine.disconnect()
    await autoplay.stop()


async def test_leaving_by_the_socket_tells_everyone_and_closes_the_seats_sockets():
    room = await database_sync_to_async(joining.create_room)(
        "minesweeper", {"width": 9, "height": 9, "mines": 10, "no_guess": False}
    )
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    bo = await database_sync_to_async(joining.join_room)(room, "Bo")
    mine, his, watcher = (
        await connect(room, ana),
        await connect(room, bo),
        await connect(room, watch=True),
    )
    await settle(mine, his, watcher, online=2, watching=1)
    await send(his, action="leave")
    reason = await receive_until(his, "You left the room")
    assert 'id="room-error"' in reason
    closed = await his.receive_output(timeout=TIMEOUT)
    assert (closed["type"], closed["code"]) == ("websocket.close", LEFT)
    for socket in (mine, watcher):
        await receive_until(socket, "Bo left the room.")
    bo_after = await database_sync_to_async(Player.objects.get)(pk=bo.pk)
    assert bo_after.role == Player.Role.SPECTATOR and bo_after.token != bo.token
    await send(watcher, action="leave")  # a spectator has no seat: told so, alone
    assert "no seat of yours" in await receive_until(watcher, 'id="room-error"')
    for socket in (mine, watcher):
        await socket.disconnect()


def test_the_pages_leave_button_forgets_the_seat_and_goes_to_the_watch_page():
    browser = Client()
    code, _, _ = api_room(browser)
    page = browser.post(f"/r/{code}/join/", {"nickname": "Cy"})
    assert page.status_code == 302
    room_page = browser.get(f"/r/{code}/").content.decode()
    assert f'action="/r/{code}/leave/"' in room_page and "Leave room" in room_page
    left = browser.post(f"/r/{code}/leave/")
    assert left.status_code == 302 and left["Location"] == f"/r/{code}/watch/"
    assert code not in browser.session.get("players", {})
    assert seated(code) == ["Ana", "Bo"]
    invite = browser.get(f"/r/{code}/").content.decode()  # the join page, the name offered
    assert 'name="nickname"' in invite and 'value="Cy"' in invite
    watch = browser.get(f"/r/{code}/watch/").content.decode()
    assert "Leave room" not in watch and 'name="name"' in watch  # a spectator takes a name


def test_a_guest_is_offered_the_last_name_they_used_and_may_change_it():
    browser = Client()
    first, second, third = (api_room(Client())[0] for _ in range(3))
    browser.post(f"/r/{first}/join/", {"nickname": "Ana"})
    browser.post(f"/r/{second}/join/", {"nickname": "Bea"})
    offered = browser.get(f"/r/{third}/").content.decode()
    assert 'value="Bea"' in offered and 'value="Ana"' not in offered
    changed = browser.post(f"/r/{third}/join/", {"nickname": "Cy"})
    assert changed.status_code == 302
    assert Room.objects.get(code=third).players.filter(nickname="Cy").exists()
