"""Host controls (`games.rooms.host`): every command by the API and the room socket, each refusal with
its own message for the sender alone, a kicked person kept out by every door, and the host seat
passing on by itself when the host has been away."""

import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from django.utils.html import escape
from jsonschema import Draft202012Validator

from config.asgi import application
from games.kinds import KINDS
from games.kinds.flags import rules as flags_rules
from games.protocol.flood import TOO_FAST
from games.protocol.messages import HostCommand
from games.rooms import chat, host, joining, signals
from games.store.models import ChatMessage, Player, Room
from games.web import events_schema, on_now
from games.web.views import live_rooms_context
from tests.helpers.bots import bot, event
from tests.helpers.environment import ORIGIN, session_cookie
from tests.helpers.host import HANDLE
from tests.helpers.web import (
    TIMEOUT,
    before_echo,
    connect,
    make_room,
    receive_until,
    send,
    settle,
    two_seats_and_a_watcher,
)

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = Draft202012Validator(events_schema.assembled(KINDS.values()))


def api_room(client) -> tuple[str, str, str]:
    """A public co-op room by the API: Ana (seat 0) hosts, Bo (seat 1) plays."""
    body = {"game": "minesweeper", "preset": "beginner", "name": "Ana", "public": True}
    created = client.post("/api/rooms", body, content_type="application/json").json()
    code = created["code"]
    bo = client.post(f"/api/rooms/{code}/join", {"name": "Bo"}, content_type="application/json")
    return code, created["player_token"], bo.json()["player_token"]


def post(client, path: str, token: str | None, body: dict):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(path, json.dumps(body), content_type="application/json", headers=headers)


def command(client, code: str, token: str, **body):
    return post(client, f"/api/rooms/{code}/host", token, body)


def join(client, code: str, name: str):
    return post(client, f"/api/rooms/{code}/join", None, {"name": name})


def room_row(code: str) -> dict:
    fields = ("locked", "player_cap", "is_public", "spectators_muted", "spectator_count_shown")
    return Room.objects.filter(code=code).values(*fields, "host__number", "kicked").get()


# The API.


def test_a_non_host_gets_403_for_every_command_and_nothing_changes(client):
    code, ana, bo = api_room(client)
    before = room_row(code)
    bodies = [
        {"action": "kick", "seat": 0},
        {"action": "lock"},
        {"action": "unlock"},
        {"action": "cap", "players": 3},
        {"action": "visibility", "public": False},
        {"action": "mute", "seat": 0},
        {"action": "mute", "spectators": True},
        {"action": "unmute", "seat": 0},
        {"action": "transfer", "seat": 1},
        {"action": "spectator_count", "shown": False},
    ]
    for body in bodies:
        answer = command(client, code, bo, **body)
        assert answer.status_code == 403, body
        assert answer.json()["error"] == host.NOT_HOST
    assert room_row(code) == before
    assert not Player.objects.filter(room__code=code, muted=True).exists()
    assert command(client, code, "not-a-token", action="lock").status_code == 403
    assert post(client, f"/api/rooms/{code}/host", None, {"action": "lock"}).status_code == 401


def test_lock_refuses_new_players_with_409_and_unlock_lets_them_in(client):
    code, ana, _ = api_room(client)
    answer = command(client, code, ana, action="lock")
    assert answer.status_code == 200
    assert answer.json() == {
        "action": "lock",
        "notice": "Ana locked the room: no new players (spectators welcome).",
        "host": 0,
    }
    refused = join(client, code, "Cy")
    assert refused.status_code == 409 and refused.json()["error"] == joining.ROOM_LOCKED
    assert command(client, code, ana, action="lock").status_code == 409  # already
    page = Client().post(f"/r/{code}/join/", {"nickname": "Cy"})
    assert page.status_code == 409 and "locked this room" in page.content.decode()
    assert Client().get(f"/r/{code}/watch/").status_code == 200  # spectators welcome
    assert command(client, code, ana, action="unlock").status_code == 200
    assert join(client, code, "Cy").status_code == 200


def test_the_player_cap_refuses_joins_past_it_and_keeps_to_2_to_50(client):
    code, ana, _ = api_room(client)
    assert room_row(code)["player_cap"] == 8  # the default
    for wrong in (1, 51, -3):
        answer = command(client, code, ana, action="cap", players=wrong)
        assert answer.status_code == 400 and "2 to 50" in answer.json()["error"]
    assert command(client, code, ana, action="cap", players=3).status_code == 200
    assert join(client, code, "Cy").status_code == 200
    refused = join(client, code, "Di")
    assert refused.status_code == 409 and "allows 3 players" in refused.json()["error"]
    assert Player.objects.filter(room__code=code).count() == 3


def test_host_commands_past_the_seats_move_budget_get_429_and_change_nothing(client, settings):
    """Each command tells every screen in the room, so the API holds them to the seat's move
    budget, as the socket holds them to its message budget."""
    settings.MOVES_BURST, settings.MOVES_PER_SECOND = 5, 0.01
    code, ana, _ = api_room(client)
    answers = [command(client, code, ana, action=action) for action in ("lock", "unlock") * 3]
    assert [answer.status_code for answer in answers] == [200] * 5 + [429]
    assert int(answers[-1].headers["Retry-After"]) >= 1
    assert answers[-1].json() == {"error": TOO_FAST}
    assert room_row(code)["locked"] is True  # the fifth (lock) held; the refused unlock did not


def test_a_two_seat_game_refuses_a_player_cap_by_its_table(client):
    room = joining.create_room("flags", flags_rules.validate_settings("human", "human"))
    ana = joining.join_room(room, "Ana")
    answer = command(client, room.code, ana.token, action="cap", players=4)
    assert answer.status_code == 409
    assert "A Flags room has 2 seats to play" in answer.json()["error"]
    assert command(client, room.code, ana.token, action="lock").status_code == 200


def test_a_private_room_leaves_the_live_list(client):
    code, ana, _ = api_room(client)
    Player.objects.filter(room__code=code, number=0).update(connections=1)  # online: listed

    def listed() -> bool:
        return any(room.code == code for room, *_ in live_rooms_context()["live_rooms"])

    assert listed()
    assert command(client, code, ana, action="visibility", public=False).status_code == 200
    assert not listed() and not room_row(code)["is_public"]
    assert command(client, code, ana, action="visibility", public=True).status_code == 200
    assert listed()


def test_a_muted_seat_or_spectators_get_their_own_refusal_and_nothing_is_kept(client):
    code, ana, bo = api_room(client)
    room = Room.objects.get(code=code)
    assert command(client, code, ana, action="mute", seat=1).status_code == 200
    said = post(client, f"/api/rooms/{code}/chat", bo, {"text": "hi"})
    assert said.status_code == 403 and said.json()["error"] == chat.MUTED
    assert command(client, code, ana, action="mute", seat=0).status_code == 400  # oneself
    assert command(client, code, ana, action="unmute", seat=1).status_code == 200
    assert post(client, f"/api/rooms/{code}/chat", bo, {"text": "hi"}).status_code == 201
    assert command(client, code, ana, action="mute", spectators=True).status_code == 200
    with pytest.raises(chat.Muted, match="muted the spectators"):
        chat.say(room, None, "coach", address="a", sender="s", spectator=HANDLE)
    assert command(client, code, ana, action="unmute", spectators=True).status_code == 200
    assert command(client, code, ana, action="mute", spectator=HANDLE).status_code == 200
    with pytest.raises(chat.Muted, match="muted you"):
        chat.say(room, None, "coach", address="a", sender="s", spectator=HANDLE)
    chat.say(room, None, "another", address="a", sender="t", spectator="ba9876543210")
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["hi", "another"]


def test_transfer_hands_the_host_seat_on_and_the_old_host_is_a_player(client):
    code, ana, bo = api_room(client)
    assert command(client, code, ana, action="transfer", seat=0).status_code == 400  # already
    assert command(client, code, ana, action="transfer", seat=9).status_code == 400
    answer = command(client, code, ana, action="transfer", seat=1)
    assert answer.status_code == 200 and answer.json()["host"] == 1
    assert answer.json()["notice"] == "Ana made Bo the host."
    assert command(client, code, ana, action="lock").status_code == 403
    assert command(client, code, bo, action="lock").status_code == 200


def test_a_kicked_seat_is_refused_everywhere_and_its_seat_and_moves_stay(client):
    code, ana, bo = api_room(client)
    move = {"action": "flag", "x": 0, "y": 0}
    assert post(client, f"/api/rooms/{code}/moves", bo, move).status_code == 200
    assert command(client, code, ana, action="kick", seat=0).status_code == 400  # oneself
    assert command(client, code, ana, action="kick", seat=5).status_code == 400
    assert command(client, code, ana, action="kick", seat=1).status_code == 200
    for path, body in (("moves", move), ("chat", {"text": "hi"}), ("host", {"action": "lock"})):
        answer = post(client, f"/api/rooms/{code}/{path}", bo, body)
        assert answer.status_code == 403, path
        assert "The host removed you from this room" in answer.json()["error"]
        assert "10 minutes" in answer.json()["error"]
    assert Player.objects.filter(room__code=code, nickname="Bo").exists()  # the seat stays
    log = client.get(f"/api/rooms/{code}/games/1").json()
    assert [m["seat"] for m in log["moves"]] == [1]  # and its move
    assert command(client, code, ana, action="transfer", seat=1).status_code == 409
    # Ten minutes later the token works again.
    Player.objects.filter(room__code=code, nickname="Bo").update(
        kicked_until=timezone.now() - timedelta(seconds=1)
    )
    assert post(client, f"/api/rooms/{code}/moves", bo, move).status_code == 200


def test_a_kicked_browser_session_gets_a_403_page_on_every_room_door(client):
    room = make_room()
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    browser = Client()
    browser.cookies.load({"sessionid": session_cookie({room.code: bo.token}).decode()[10:]})
    assert browser.get(f"/r/{room.code}/").status_code == 200
    host.apply(room, ana, HostCommand("kick", seat=1))
    for page in (
        browser.get(f"/r/{room.code}/"),
        browser.get(f"/r/{room.code}/watch/"),
        browser.post(f"/r/{room.code}/join/", {"nickname": "Bo again"}),
    ):
        assert page.status_code == 403
        assert "The host removed you from this room" in page.content.decode()
    assert Player.objects.filter(room=room).count() == 2  # no new seat under another name


def test_a_kicked_spectators_cookie_is_refused_and_the_kick_list_is_bounded(client, monkeypatch):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    browser = Client()
    assert browser.get(f"/r/{room.code}/watch/").status_code == 200
    watcher = browser.cookies[host.COOKIE].value  # every room page sets it
    handle = host.handle(room.code, watcher)
    host.apply(room, ana, HostCommand("kick", spectator=handle))
    page = browser.get(f"/r/{room.code}/watch/")
    assert page.status_code == 403 and "come back in 10 minutes" in page.content.decode()
    assert Client().get(f"/r/{room.code}/watch/").status_code == 200  # another browser
    monkeypatch.setattr(host, "KICKS_KEPT", 3)  # the bound, made small to reach
    for n in range(5):
        host.apply(room, ana, HostCommand("kick", spectator=f"{n:012d}"))
    room.refresh_from_db()
    assert sorted(room.kicked) == ["000000000002", "000000000003", "000000000004"]


def test_the_host_can_hide_the_spectator_count(client):
    code, ana, _ = api_room(client)
    assert 'class="spectators"' in Client().get(f"/r/{code}/watch/").content.decode()
    assert command(client, code, ana, action="spectator_count", shown=False).status_code == 200
    html = Client().get(f"/r/{code}/watch/").content.decode()
    assert "Spectator count hidden by the host" in html and " watching</p>" not in html


def test_a_muted_player_made_host_is_unmuted_and_may_unmute_themselves(client):
    code, ana, bo = api_room(client)
    chat_path = f"/api/rooms/{code}/chat"
    assert command(client, code, ana, action="mute", seat=1).status_code == 200
    assert command(client, code, ana, action="transfer", seat=1).status_code == 200
    assert post(client, chat_path, bo, {"text": "free"}).status_code == 201
    # A host muted anyway (a room from before this rule) lifts it: muting oneself stays refused.
    Player.objects.filter(room__code=code, nickname="Bo").update(muted=True)
    assert command(client, code, bo, action="unmute", seat=1).status_code == 200
    assert post(client, chat_path, bo, {"text": "again"}).status_code == 201
    assert command(client, code, bo, action="mute", seat=1).status_code == 400
    # The seat passed on from an away host is unmuted too.
    assert command(client, code, bo, action="mute", seat=0).status_code == 200
    long_ago = timezone.now() - timedelta(minutes=5)
    Player.objects.filter(room__code=code, nickname="Bo").update(away_since=long_ago)
    Player.objects.filter(room__code=code, nickname="Ana").update(connections=1)
    assert host.pass_from_away_hosts(60) == [Room.objects.get(code=code).pk]
    assert post(client, chat_path, ana, {"text": "host now"}).status_code == 201


def test_a_hidden_spectator_count_is_hidden_on_the_home_page_too(client):
    code, ana, _ = api_room(client)
    Player.objects.filter(room__code=code).update(connections=1)
    Room.objects.filter(code=code).update(spectators=7)

    def home() -> tuple[str, on_now.Featured | None]:
        on_now.forget()
        cache.delete(on_now.PICK_KEY)
        return client.get("/").content.decode(), on_now.featured()

    page, featured = home()
    assert "2 playing · 7 watching" in page and featured is not None
    assert featured.spectators == 7
    assert command(client, code, ana, action="spectator_count", shown=False).status_code == 200
    page, featured = home()
    assert "2 playing" in page and "7 watching" not in page
    assert featured is not None and featured.code == code and featured.spectators is None
    assert "7 watching" not in client.get("/rooms/live/").content.decode()
    on_now.forget()


# The room socket.


async def page(
    room: Room, player: Player | None = None, *, watcher: str | None = None, watch=False
):
    """A page's socket with its session (a seat) and its `watcher` cookie, after its snapshot."""
    cookies = []
    if player is not None:
        cookies.append(await database_sync_to_async(session_cookie)({room.code: player.token}))
    if watcher is not None:
        cookies.append(f"{host.COOKIE}={watcher}".encode())
    headers = [(b"origin", ORIGIN.encode())]
    if cookies:
        headers.append((b"cookie", b"; ".join(cookies)))
    path = f"/ws/r/{room.code}/" + ("?watch=1" if watch else "")
    socket = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    return socket


async def closed_with(socket, code: int, reason: str) -> None:
    """The socket hears `reason` and then closes with `code`."""
    heard = []
    while (output := await socket.receive_output(timeout=TIMEOUT))["type"] != "websocket.close":
        heard.append(output.get("text", ""))
    assert output["code"] == code
    assert any(reason in text for text in heard), heard


async def test_the_host_locks_by_socket_the_players_are_told_and_bots_get_an_event(room, ana, bo):
    a, b, watcher = (
        await connect(room, ana),
        await connect(room, bo),
        await connect(room, watch=True),
    )
    bo_bot = await bot(room, bo.token)
    await event(bo_bot, "snapshot")
    await settle(a, b, watcher, online=2, watching=1)
    await send(a, action="lock", HEADERS={})
    notice = "Ana locked the room: no new players"
    mine = await receive_until(a, 'id="host-notice"')
    assert (
        notice in mine
        and 'id="host-menu"' in mine
        and re.search(r'data-host-key="lock" aria-pressed="true"', mine)
    )
    theirs = await receive_until(b, 'id="host-notice"')
    assert notice in theirs and 'id="host-menu"' not in theirs
    assert not any("host-notice" in m for m in await before_echo(watcher))  # not theirs
    news = await event(bo_bot, "host")
    assert news["action"] == "lock" and news["host"] == 0 and notice in news["text"]
    EVENTS.validate(news)  # the served schema names the event (docs/api.md, "Writing a bot")
    assert await sync_to_async(lambda: Room.objects.get(pk=room.pk).locked)()
    for socket in (a, b, watcher, bo_bot):
        await socket.disconnect()


async def test_a_non_host_command_gets_its_error_alone_and_nothing_changes(room, ana, bo):
    a, b, watcher = await two_seats_and_a_watcher(room, ana, bo)
    for sender, text in ((b, host.NOT_HOST), (watcher, host.SPECTATORS_NOT_HOST)):
        await send(sender, action="kick", seat=0)
        error = await receive_until(sender, 'id="room-error"')
        assert escape(text) in error
    await send(a, action="cap", players=99)
    assert "2 to 50" in await receive_until(a, 'id="room-error"')
    for other in (a, b, watcher):
        assert not any("host-notice" in m for m in await before_echo(other))
    after = await sync_to_async(Room.objects.get)(pk=room.pk)
    assert (after.player_cap, after.locked, after.host_id) == (8, False, ana.pk)
    for socket in (a, b, watcher):
        await socket.disconnect()


async def test_a_bots_host_command_is_acknowledged_or_refused_with_its_id(room, ana, bo):
    ana_bot, bo_bot = await bot(room, ana.token), await bot(room, bo.token)
    for socket in (ana_bot, bo_bot):
        await event(socket, "snapshot")
    await bo_bot.send_to(text_data=json.dumps({"action": "lock", "id": 7}))
    refused = await event(bo_bot, "error")
    assert refused == {"type": "error", "error": host.NOT_HOST, "id": 7}
    await ana_bot.send_to(text_data=json.dumps({"action": "cap", "players": 4, "id": "c"}))
    taken = await event(ana_bot, "ack")
    assert taken == {"type": "ack", "action": "cap", "id": "c"}
    for answer in (refused, taken, await event(bo_bot, "host")):
        EVENTS.validate(answer)
    for socket in (ana_bot, bo_bot):
        await socket.disconnect()


async def test_a_kicked_player_is_closed_with_4403_and_refused_on_reconnect(room, ana, bo):
    a, b = await connect(room, ana), await connect(room, bo)
    bo_bot = await bot(room, bo.token)
    await event(bo_bot, "snapshot")
    await settle(a, b, online=2)
    await send(a, action="kick", seat=1)
    await closed_with(b, 4403, "The host removed you from this room")
    await closed_with(bo_bot, 4403, "The host removed you from this room")
    assert "Ana removed Bo from the room." in await receive_until(a, 'id="host-notice"')
    for again in (
        await page(room, bo),
        await page(room, bo, watch=True),
        await bot(room, bo.token),
    ):
        await closed_with(again, 4403, "come back in 10 minutes")
    await a.disconnect()


async def test_a_spectator_is_kicked_by_the_handle_on_their_chat_line(room, ana):
    a = await connect(room, ana)
    watcher = await page(room, watcher="their-browser", watch=True)
    await receive_until(watcher, 'id="board"')
    await send(watcher, action="chat", text="boo")
    line = await receive_until(a, "boo")
    handle = re.search(r'data-spectator="([0-9a-f]{12})"', line).group(1)
    assert handle == host.handle(room.code, "their-browser")
    await send(a, action="mute", spectator=handle)
    await receive_until(a, 'id="host-notice"')
    await send(watcher, action="chat", text="again")
    assert chat.MUTED in await receive_until(watcher, 'id="room-error"')
    await send(a, action="kick", spectator=handle)
    await closed_with(watcher, 4403, "The host removed you from this room")
    again = await page(room, watcher="their-browser", watch=True)
    await closed_with(again, 4403, "come back in 10 minutes")
    other = await page(room, watcher="another-browser", watch=True)
    assert 'id="board"' in await receive_until(other, 'id="board"')
    for socket in (a, other):
        await socket.disconnect()


async def test_host_notices_reach_only_those_concerned(room, ana, bo):
    """Issue 35: "Ana muted Bo." reached the spectators. A seat's mute is told to the players
    (Bo among them); a spectator's to the players and that spectator; the spectators' chat's to
    everyone."""
    a, b = await connect(room, ana), await connect(room, bo)
    one = await page(room, watcher="one-browser", watch=True)
    other = await page(room, watcher="other-browser", watch=True)
    await settle(a, b, one, other, online=2, watching=2)
    await send(a, action="mute", seat=1)
    assert "Ana muted Bo." in await receive_until(b, 'id="host-notice"')
    for spectator in (one, other):
        assert not any("host-notice" in m for m in await before_echo(spectator))
    await send(a, action="mute", spectator=host.handle(room.code, "one-browser"))
    assert "Ana muted a spectator." in await receive_until(one, 'id="host-notice"')
    await receive_until(b, 'id="host-notice"')
    assert not any("host-notice" in m for m in await before_echo(other))
    await send(a, action="mute", spectators=True)
    for socket in (a, b, one, other):
        notice = await receive_until(socket, "muted the spectators")
        assert 'id="host-notice"' in notice
    for socket in (a, b, one, other):
        await socket.disconnect()


async def test_a_muted_seat_is_muted_on_its_watch_link_and_in_pings_and_reactions(room, ana, bo):
    """The mute holds the seat and its browser session: the watch link opened in the same
    browser talks in the spectators' channel no more than the seat in the players'."""
    a, b = await connect(room, ana), await connect(room, bo)
    bo_watching = await connect(room, bo, watch=True)  # Bo's browser, on the watch link
    await send(a, action="mute", seat=1)
    await receive_until(a, 'id="host-notice"')
    await send(bo_watching, action="chat", text="coach")
    assert escape(chat.MUTED) in await receive_until(bo_watching, 'id="room-error"')
    for signal in ({"action": "ping", "x": 1, "y": 1}, {"action": "react", "emote": "clap"}):
        await send(b, **signal)
        assert escape(signals.MUTED) in await receive_until(b, 'id="room-error"')
    heard = await before_echo(a)
    assert not any('class="ping"' in m or 'class="reaction"' in m for m in heard)
    assert not await sync_to_async(ChatMessage.objects.exists)()
    other = await connect(room, watch=True)  # another browser watching is not muted
    await send(other, action="chat", text="hello")
    assert "hello" in await receive_until(a, "hello")
    await send(a, action="unmute", seat=1)
    await receive_until(a, 'id="host-notice"')
    await send(b, action="react", emote="clap")
    assert 'data-emote="clap"' in await receive_until(a, 'class="reaction"')
    for socket in (a, b, bo_watching, other):
        await socket.disconnect()


async def test_the_host_seat_passes_to_the_longest_present_after_the_host_is_away(
    room, ana, bo, settings
):
    """`HOST_AWAY_SECONDS` shortened; the heartbeat, not a timer of the host's socket, does it.

    Shortened only once Ana's socket is counted: a host who has never had one is away since
    joining (`host.pass_from_away_hosts`), so with 0.3 s from the start the first beat after
    Bo's socket (the fixtures made Ana more than 0.3 s before on a busy machine) handed Bo the
    seat before Ana came, and `settle` swallowed the notice this test waits for."""
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.1
    cy = await database_sync_to_async(joining.join_room)(room, "Cy")
    b = await connect(room, bo)  # Bo came first: present the longest
    c = await connect(room, cy)
    a = await connect(room, ana)
    await settle(a, b, c, online=3)
    settings.HOST_AWAY_SECONDS = 0.3
    assert await sync_to_async(lambda: Room.objects.get(pk=room.pk).host_id)() == ana.pk
    await a.disconnect()
    news = await receive_until(b, "is the host now")
    assert "Ana has been away: Bo is the host now." in news and 'id="host-menu"' in news
    assert "is the host now" in await receive_until(c, 'id="host-notice"')
    assert await sync_to_async(lambda: Room.objects.get(pk=room.pk).host_id)() == bo.pk
    for socket in (b, c):
        await socket.disconnect()


def test_an_away_host_keeps_the_seat_while_nobody_else_is_there(room, ana, bo):
    Player.objects.filter(pk=ana.pk).update(away_since=timezone.now() - timedelta(minutes=5))
    assert host.pass_from_away_hosts(60) == []  # nobody online to take it
    Player.objects.filter(pk=bo.pk).update(connections=1, online_since=timezone.now())
    assert host.pass_from_away_hosts(60) == [room.pk]
    assert Room.objects.get(pk=room.pk).host_id == bo.pk
    assert host.pass_from_away_hosts(60) == []  # Bo is online: nothing to do


def test_a_host_playing_by_the_api_alone_keeps_the_seat_while_it_calls(client):
    """A room made and played over the API: the host's calls, moves and reads with the token,
    are presence, so Bo's socket does not take the room after a minute (issue 33)."""
    code, ana, bo = api_room(client)
    room = Room.objects.get(code=code)
    long_ago = timezone.now() - timedelta(minutes=5)
    Player.objects.filter(room=room).update(joined_at=long_ago)
    Player.objects.filter(room=room, nickname="Bo").update(connections=1, online_since=long_ago)
    move = {"action": "flag", "x": 0, "y": 0}
    assert post(client, f"/api/rooms/{code}/moves", ana, move).status_code == 200
    assert host.pass_from_away_hosts(60) == []
    Player.objects.filter(room=room, nickname="Ana").update(away_since=long_ago)
    read = client.get(f"/api/rooms/{code}", headers={"Authorization": f"Bearer {ana}"})
    assert read.status_code == 200
    assert host.pass_from_away_hosts(60) == []
    # Calls that come faster than `API_SEEN_SECONDS` cost no write.
    marked = Player.objects.get(room=room, nickname="Ana").away_since
    assert post(client, f"/api/rooms/{code}/moves", ana, move).status_code == 200
    assert Player.objects.get(room=room, nickname="Ana").away_since == marked
    # A minute without a call: away, and the seat passes to Bo.
    Player.objects.filter(room=room, nickname="Ana").update(away_since=long_ago)
    assert host.pass_from_away_hosts(60) == [room.pk]
    assert command(client, code, ana, action="lock").status_code == 403


async def test_a_host_whose_bot_holds_a_socket_is_present(room, ana, bo):
    ana_bot = await bot(room, ana.token)
    await event(ana_bot, "snapshot")
    b = await connect(room, bo)
    await settle(b, online=2)
    long_ago = timezone.now() - timedelta(minutes=5)
    await sync_to_async(Player.objects.filter(room=room).update)(joined_at=long_ago)
    assert await sync_to_async(host.pass_from_away_hosts)(60) == []
    for socket in (ana_bot, b):
        await socket.disconnect()
