"""Quick match (issue 37, points 1, 2 and 4): seekers of the same game are paired into one new
room over `/ws/lobby/`, each told `matched` with a seat's token that works; the queue's rules
(one open seek a person, seeks per address, rated for accounts only, 10 minutes), the open
seeks over the API, and pairing under concurrency (no seeker in two rooms)."""

import asyncio
import threading
import uuid
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection, connections
from django.test import Client
from django.utils import timezone

from config.asgi import application
from games.engine import race as race_engine
from games.protocol.seeks import Wanted
from games.rooms import lobby as rooms_lobby
from games.rooms.lobby import Seeker, Waiting
from games.store.models import Player, Rating, Room, Seek
from games.web import daily as daily_pages
from tests.helpers.bots import bot, event
from tests.helpers.lobby import lobby, reply, seek
from tests.helpers.web import signed_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def no_race_left_waiting():
    """A matched race's wait (15 s) must not outlive its test's database."""
    yield
    await rooms_lobby.stop()


async def matched_pair(game: dict) -> tuple[dict, dict]:
    ana, bo = await lobby(), await lobby()
    await seek(ana, **game)
    waiting = await reply(ana)
    assert waiting["type"] == "waiting" and waiting["queue"] == 1
    await seek(bo, **game)
    first, second = await reply(ana), await reply(bo)
    for socket in (ana, bo):
        await socket.disconnect()
    return first, second


async def test_two_flags_seekers_play_in_one_room_with_working_tokens():
    ana, bo = await matched_pair({"game": "flags"})
    assert ana["type"] == bo["type"] == "matched"
    assert ana["room"] == bo["room"] and ana["url"] == f"/r/{ana['room']}/"
    assert ana["player_token"] != bo["player_token"]
    room = await Room.objects.aget(code=ana["room"])
    assert room.kind == "flags" and room.settings["o"] == "human" and room.locked
    seated = [p async for p in Player.objects.filter(room=room).order_by("number")]
    assert [p.token for p in seated] == [ana["player_token"], bo["player_token"]]
    socket = await bot(room, bo["player_token"])  # the token opens the room as that seat
    snapshot = await event(socket, "snapshot")
    assert snapshot["game"] == "flags"
    await socket.disconnect()
    assert not await Seek.objects.filter(room__isnull=True).aexists()


async def test_a_race_for_three_waits_until_its_third_racer_seeks():
    race = {"game": "minesweeper", "mode": "race", "preset": "beginner"}
    ana, bo, cy = await lobby(), await lobby(), await lobby()
    await seek(ana, **race, players=3)
    assert (await reply(ana))["type"] == "waiting"
    await seek(bo, **race, players=3)
    assert (await reply(bo)) == {"type": "waiting", "seek": (await _open_ids())[1], "queue": 2}
    await seek(cy, **race, players=3)
    told = [await reply(socket) for socket in (ana, bo, cy)]
    assert {m["type"] for m in told} == {"matched"} and len({m["room"] for m in told}) == 1
    room = await Room.objects.aget(code=told[0]["room"])
    assert room.kind == "race" and (room.settings["width"], room.settings["mines"]) == (9, 10)
    assert await Player.objects.filter(room=room).acount() == 3
    for socket in (ana, bo, cy):
        await socket.disconnect()


async def matched(socket) -> dict:
    """The `matched` a socket gets, after its `waiting` if it waited."""
    while (told := await reply(socket))["type"] == "waiting":
        pass
    assert told["type"] == "matched", told
    return told


async def _open_ids() -> list[int]:
    seeks = Seek.objects.filter(room__isnull=True).order_by("pk").values_list("pk", flat=True)
    return [pk async for pk in seeks]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"game": "flags"}, {"game": "tictactoe"}),
        (
            {"game": "minesweeper", "mode": "race", "preset": "beginner"},
            {"game": "minesweeper", "mode": "race", "preset": "expert"},
        ),
        (
            {"game": "minesweeper", "mode": "race", "preset": "beginner", "players": 2},
            {"game": "minesweeper", "mode": "race", "preset": "beginner", "players": 3},
        ),
    ],
)
async def test_different_settings_do_not_pair(first, second):
    ana, bo = await lobby(), await lobby()
    await seek(ana, **first)
    await seek(bo, **second)
    assert (await reply(ana))["type"] == (await reply(bo))["type"] == "waiting"
    assert await Seek.objects.filter(room__isnull=True).acount() == 2
    for socket in (ana, bo):
        await socket.disconnect()


async def test_cancel_and_a_closed_socket_end_the_seek_and_the_list_follows():
    watcher, ana, bo = await lobby(), await lobby(), await lobby()
    await seek(ana, game="flags", name="Ana")
    seek_id = (await reply(ana))["seek"]
    listed = await event(watcher, "seeks")
    assert [s["name"] for s in listed["seeks"]] == ["Ana"] and "Ana" in listed["html"]
    await ana.send_json_to({"action": "cancel"})
    assert (await reply(ana)) == {"type": "cancelled", "seek": seek_id}
    assert (await event(watcher, "seeks"))["seeks"] == []
    await ana.send_json_to({"action": "cancel"})
    assert "no open seek" in (await reply(ana))["error"]
    await seek(bo, game="tictactoe")
    assert (await reply(bo))["type"] == "waiting"
    assert len((await event(watcher, "seeks"))["seeks"]) == 1
    await bo.disconnect()
    assert (await event(watcher, "seeks"))["seeks"] == []
    assert not await Seek.objects.aexists()
    for socket in (ana, watcher):
        await socket.disconnect()


async def test_one_open_seek_a_person_even_from_two_tabs():
    browser = uuid.uuid4().hex
    tab, other_tab = await lobby(browser=browser), await lobby(browser=browser)
    await seek(tab, game="flags")
    assert (await reply(tab))["type"] == "waiting"
    await seek(tab, game="tictactoe")
    assert "one open seek" in (await reply(tab))["error"]
    await seek(other_tab, game="flags")  # the same person: not paired with themself
    assert "one open seek" in (await reply(other_tab))["error"]
    assert await Seek.objects.acount() == 1
    for socket in (tab, other_tab):
        await socket.disconnect()


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"action": "seek", "game": "chess"}, "game"),
        ({"action": "seek", "game": "minesweeper"}, "mode"),
        ({"action": "seek", "game": "minesweeper", "mode": "race", "preset": "huge"}, "preset"),
        (
            {
                "action": "seek",
                "game": "minesweeper",
                "mode": "race",
                "preset": "expert",
                "players": 9,
            },
            "players",
        ),
        ({"action": "seek", "game": "flags", "rated": "yes"}, "rated"),
        ({"action": "seek", "game": "flags", "preset": "expert"}, "preset"),
        ({"action": "seek", "game": "flags", "colour": "red"}, "colour"),
        ({"action": "seek", "game": "flags", "name": ""}, "name"),
        ({"action": "dance"}, "action"),
        ({"action": "accept", "seek": "x"}, "seek"),
    ],
)
async def test_a_malformed_seek_gets_an_error_naming_its_field(message, field):
    socket = await lobby()
    await socket.send_json_to(message)
    error = await reply(socket)
    assert error["type"] == "error" and error["error"].startswith(field), error
    assert not await Seek.objects.aexists()
    await socket.disconnect()


async def test_a_guest_may_not_seek_rated_and_accounts_pair_rated_only_with_rated():
    guest = await lobby(browser=uuid.uuid4().hex)
    await seek(guest, game="flags", rated=True)
    assert (await reply(guest))["error"] == "Sign in to play rated games."
    _, ana_user = await sync_to_async(signed_in)("ana_k")
    _, bo_user = await sync_to_async(signed_in)("bo_k")
    _, cy_user = await sync_to_async(signed_in)("cy_k")
    ana, bo, cy = [await lobby(user=u) for u in (ana_user, bo_user, cy_user)]
    await seek(ana, game="flags", rated=True)
    await seek(cy, game="flags")  # casual: not paired with a rated seek
    assert (await reply(ana))["type"] == (await reply(cy))["type"] == "waiting"
    await seek(bo, game="flags", rated=True)
    ana_seat, bo_seat = await reply(ana), await reply(bo)
    assert ana_seat["type"] == "matched" and ana_seat["room"] == bo_seat["room"]
    names = Player.objects.filter(room__code=ana_seat["room"]).values_list("nickname", "account")
    assert {n async for n in names} == {("ana_k", ana_user.pk), ("bo_k", bo_user.pk)}
    for socket in (guest, ana, bo, cy):
        await socket.disconnect()


def test_rated_seeks_pair_within_a_window_that_widens_with_waiting():
    _, ana = signed_in("ana_k")
    _, bo = signed_in("bo_k")
    Rating.objects.create(account=bo, kind="flags", mu=30.0, sigma=4.0, rating=1800, games=9)
    assert rooms_lobby.seek_rating(ana, "flags") == 1500.0  # no rated game yet
    assert rooms_lobby.seek_rating(bo, "flags") == 1800.0
    wanted = Wanted("flags", rated=True)
    first = rooms_lobby.seek(Seeker("10.0.0.1", account=ana), wanted)
    assert isinstance(first, Waiting)
    assert isinstance(rooms_lobby.seek(Seeker("10.0.0.2", account=bo), wanted), Waiting)
    assert rooms_lobby.window(0) == 100 and rooms_lobby.window(20) == 300
    Seek.objects.filter(account=bo).delete()
    waited = timezone.now() - timedelta(seconds=31)  # 100 + 6 × 50 ≥ 300 apart
    Seek.objects.filter(pk=first.seek).update(created_at=waited)
    seat = rooms_lobby.seek(Seeker("10.0.0.2", account=bo), wanted)
    assert not isinstance(seat, Waiting)
    assert Seek.objects.get(pk=first.seek).room.code == seat.code
    assert Room.objects.get(code=seat.code).settings["rated"] is True  # the game rates them


async def test_seeks_per_address_are_bounded(monkeypatch):
    monkeypatch.setattr(rooms_lobby, "SEEKS_PER_ADDRESS", 2)
    sockets = [await lobby(address="203.0.113.9") for _ in range(3)]
    for number, socket in enumerate(sockets):
        await seek(socket, game="minesweeper", mode="race", preset="expert", players=8)
        answer = await reply(socket)
        assert answer["type"] == ("waiting" if number < 2 else "error")
    assert "Too many open seeks" in answer["error"]
    for socket in sockets:
        await socket.disconnect()


async def test_a_seek_ends_after_ten_minutes_and_its_socket_is_told():
    ana, bo = await lobby(), await lobby()
    await seek(ana, game="flags")
    seek_id = (await reply(ana))["seek"]
    old = timezone.now() - timedelta(minutes=11)
    await Seek.objects.filter(pk=seek_id).aupdate(created_at=old)
    await seek(bo, game="flags")  # not paired with the stale seek
    assert (await reply(bo))["type"] == "waiting"
    expired = await reply(ana)
    assert expired["type"] == "expired" and expired["seek"] == seek_id
    assert await Seek.objects.acount() == 1
    for socket in (ana, bo):
        await socket.disconnect()


async def test_a_matched_race_starts_once_both_racers_are_connected():
    race = {"game": "minesweeper", "mode": "race", "preset": "beginner"}
    ana, bo = await matched_pair(race)
    room = await Room.objects.aget(code=ana["room"])
    sockets = [await bot(room, seat["player_token"]) for seat in (ana, bo)]
    for _ in range(40):
        game = await room.games.alast()
        if race_engine.from_dict(game.state).phase is not race_engine.Phase.LOBBY:
            break
        await asyncio.sleep(0.25)
    assert race_engine.from_dict(game.state).phase is not race_engine.Phase.LOBBY
    for socket in sockets:
        await socket.disconnect()


async def test_a_matched_race_starts_without_the_absent_after_the_wait():
    race = {"game": "minesweeper", "mode": "race", "preset": "beginner", "players": 3}
    sockets = [await lobby() for _ in range(3)]
    for socket in sockets:
        await seek(socket, **race)
    seats = [await matched(socket) for socket in sockets]
    room = await Room.objects.aget(code=seats[0]["room"])
    numbers = [(await Player.objects.aget(token=seat["player_token"])).number for seat in seats]
    racers = [await bot(room, seat["player_token"]) for seat in seats[1:]]  # one is absent
    assert await rooms_lobby.start_when_ready(room.pk, wait=0.3)
    game = await room.games.alast()
    started = race_engine.from_dict(game.state)
    assert started.phase is not race_engine.Phase.LOBBY
    absent = await Player.objects.aget(room=room, number=numbers[0])  # left: watching
    assert sorted(r.seat for r in started.racers) == sorted(numbers[1:]) and absent.is_spectator
    assert not await rooms_lobby.start_when_ready(room.pk, wait=0)  # started once
    for socket in [*racers, *sockets]:
        await socket.disconnect()


async def test_the_api_lists_and_takes_a_seek_and_the_seeker_is_told():
    ana = await lobby()
    await seek(ana, game="tictactoe", name="Ana")
    seek_id = (await reply(ana))["seek"]
    client = Client()
    listed = (await sync_to_async(client.get)("/api/seeks")).json()["seeks"]
    assert listed == [
        {
            "id": seek_id,
            "game": "tictactoe",
            "mode": None,
            "preset": None,
            "players": 2,
            "rated": False,
            "name": "Ana",
            "rating": None,
        }
    ]
    post = sync_to_async(client.post)
    taken = await post(f"/api/seeks/{seek_id}/accept", {"name": "Bo"}, "application/json")
    assert taken.status_code == 201, taken.content
    body = taken.json()
    told = await reply(ana)
    assert told["type"] == "matched" and told["room"] == body["room"]
    assert body["url"].endswith(f"/r/{body['room']}/")
    seat = await Player.objects.aget(token=body["player_token"])
    assert seat.nickname == "Bo" and (await Room.objects.aget(pk=seat.room_id)).kind == "tictactoe"
    again = await post(f"/api/seeks/{seek_id}/accept", content_type="application/json")
    assert again.status_code == 404 and "gone" in again.json()["error"]
    await ana.disconnect()


async def test_the_api_refuses_your_own_seek_and_a_rated_one_to_a_guest():
    client = Client()
    await sync_to_async(client.get)("/play/")  # the page gives the browser its key
    browser = await sync_to_async(lambda: client.session[daily_pages.BROWSER_KEY])()
    mine = await lobby(browser=browser)
    await seek(mine, game="flags")
    seek_id = (await reply(mine))["seek"]
    post = sync_to_async(Client.post)
    own = await post(client, f"/api/seeks/{seek_id}/accept", content_type="application/json")
    assert own.status_code == 409 and "your own" in own.json()["error"]
    _, user = await sync_to_async(signed_in)("ana_k")
    rated = await lobby(user=user)
    await seek(rated, game="flags", rated=True)
    rated_id = (await reply(rated))["seek"]
    guest = await post(Client(), f"/api/seeks/{rated_id}/accept", content_type="application/json")
    assert guest.status_code == 403 and "Sign in" in guest.json()["error"]
    for socket in (mine, rated):
        await socket.disconnect()


def test_concurrent_seekers_are_each_matched_once():
    """Seekers in parallel threads (on PostgreSQL in CI: parallel transactions): every one
    ends in exactly one room of two."""
    seekers = 16
    results: dict[int, object] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(seekers)

    def one(number: int) -> None:
        try:
            start.wait()
            seeker = Seeker(f"10.0.{number}.1", browser=f"b{number}", name=f"P{number}")
            results[number] = rooms_lobby.seek(seeker, Wanted("flags"))
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(n,)) for n in range(seekers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    connections.close_all()
    assert not errors
    assert Seek.objects.filter(room__isnull=True).count() == 0
    rooms = {}
    for row in Seek.objects.all():
        rooms.setdefault(row.room_id, []).append(row.person)
    assert len(rooms) == seekers // 2
    assert all(len(people) == 2 for people in rooms.values())
    people = [person for group in rooms.values() for person in group]
    assert len(people) == len(set(people)) == seekers
    assert Player.objects.count() == seekers


def test_the_play_page_offers_the_games_and_a_matched_page_takes_its_seat():
    client = Client()
    page = client.get("/play/").content.decode()
    for label in ("Race · beginner", "Race · intermediate", "Race · expert", "Flags"):
        assert label in page
    assert "Tic-tac-toe" in page and 'id="seek-rated"' not in page  # rated: signed in
    home = client.get("/").content.decode()
    assert 'href="/play/"' in home and "Play a stranger" in home
    seat = rooms_lobby.seek(Seeker("10.0.0.1", browser="x", name="Ana"), Wanted("flags"))
    assert isinstance(seat, Waiting)
    other = rooms_lobby.seek(Seeker("10.0.0.2", browser="y", name="Bo"), Wanted("flags"))
    assert not isinstance(other, Waiting)
    taken = client.post("/play/seat/", {"room": other.code, "player_token": other.token})
    assert taken.status_code == 302 and taken["Location"] == f"/r/{other.code}/"
    assert client.session["players"][other.code] == other.token
    wrong = client.post("/play/seat/", {"room": other.code, "player_token": "nope"})
    assert wrong.status_code == 404
    signed, _ = signed_in("ana_k")
    assert 'id="seek-rated"' in signed.get("/play/").content.decode()


def test_the_lobby_and_the_daily_board_share_the_browser_key():
    assert rooms_lobby.BROWSER_KEY == daily_pages.BROWSER_KEY


async def test_a_lobby_socket_obeys_the_room_sockets_flood_rules(monkeypatch):
    from games.protocol import flood

    flooder = await lobby()
    for _ in range(flood.MESSAGES.count + 5):
        await flooder.send_json_to({"action": "cancel"})
    while (output := await flooder.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    assert output["code"] == 1008
    await flooder.disconnect()  # before the cap is swapped: it gives its count back
    monkeypatch.setattr(flood, "SOCKETS", flood.OpenSockets(1))
    first = await lobby()
    second = WebsocketCommunicator(application, "/ws/lobby/", subprotocols=["json"])
    await second.connect()
    assert "Too many open connections" in (await event(second))["error"]
    assert (await second.receive_output(timeout=5))["code"] == 4429
    await first.disconnect()
    await second.disconnect()


async def test_the_open_seeks_are_read_and_rendered_once_per_change_for_every_viewer(monkeypatch):
    from games.broadcast import lobby as news

    viewers = [await lobby() for _ in range(5)]
    reads, renders = [], []
    read, render = news.open_seeks, news.seeks_html
    monkeypatch.setattr(news, "open_seeks", lambda: reads.append(1) or read())
    monkeypatch.setattr(news, "seeks_html", lambda seeks: renders.append(1) or render(seeks))
    seeker = await lobby()
    reads.clear(), renders.clear()  # the seeker's own first list, on its connect
    await seek(seeker, game="flags", name="Ana")
    assert (await reply(seeker))["type"] == "waiting"
    for viewer in viewers:
        assert [s["name"] for s in (await event(viewer, "seeks"))["seeks"]] == ["Ana"]
    assert (len(reads), len(renders)) == (1, 1)
    for socket in [*viewers, seeker]:
        await socket.disconnect()


async def test_a_lobby_socket_closes_with_1013_when_the_channel_layer_fails(monkeypatch):
    from channels.layers import get_channel_layer

    from games.protocol import flood

    async def unreachable(*args):
        raise OSError("Redis is down")

    monkeypatch.setattr(get_channel_layer(), "group_add", unreachable)
    held = dict(flood.SOCKETS.counts)
    socket = WebsocketCommunicator(application, "/ws/lobby/", subprotocols=["json"])
    connected, code = await socket.connect(timeout=5)
    assert (connected, code) == (False, 1013)
    assert flood.SOCKETS.counts == held  # its address's count given back
    await socket.disconnect()


def test_the_database_keeps_one_open_seek_a_person_when_two_seeks_race(monkeypatch):
    """Two seeks of one person for two games at once hold two different queues' locks, so
    neither sees the other's row: the unique constraint refuses the second."""
    monkeypatch.setattr(rooms_lobby, "_may_seek", lambda seeker: None)  # both past the check
    ana = Seeker("10.0.0.1", browser="ana", name="Ana")
    assert isinstance(rooms_lobby.seek(ana, Wanted("flags")), Waiting)
    with pytest.raises(rooms_lobby.SeekError, match="one open seek"):
        rooms_lobby.seek(ana, Wanted("tictactoe"))
    assert Seek.objects.count() == 1
