"""The race lobby: the host seats the Solver bot as a racer at a pace (1, 2 or 4 safe cells a
second) from the room or the API, others get a specific refusal; the roster says who will race,
and during a race who only watches until the next one; the room page's rules in three lines."""

import re

import pytest
from asgiref.sync import sync_to_async

from games.kinds import table
from games.kinds.race import rules
from games.rooms import joining, presence
from games.store.models import Room
from tests.helpers.race import JSON, api_race, create, fast_forward, move, race_of
from tests.helpers.web import connect, receive_until, send

pytestmark = pytest.mark.django_db(transaction=True)


def settings_of(code: str) -> dict:
    return Room.objects.get(code=code).settings


def test_the_host_seats_the_solver_bot_at_a_pace_and_it_races_at_it(client):
    code, (ana, bo) = api_race(client)
    assert move(client, code, ana, action="add_bot", pace=4).status_code == 200
    assert settings_of(code)["bot"] is True and settings_of(code)["bot_pace"] == 4
    assert move(client, code, ana, action="add_bot", pace=1).status_code == 200  # a new pace
    game = Room.objects.get(code=code).current_game()
    assert game.params["bot_pace"] == 1 and settings_of(code)["bot_pace"] == 1
    assert move(client, code, ana, action="start").status_code == 200
    entrants = race_of(code).entrants
    assert [(e.seat, e.pace) for e in entrants][-1] == (table.COMPUTER_SEAT, 1)


def test_a_pace_not_offered_or_a_non_host_is_refused_and_changes_nothing(client):
    code, (ana, bo) = api_race(client)
    before = settings_of(code)
    wrong = move(client, code, ana, action="add_bot", pace=3)
    assert wrong.status_code == 400
    assert wrong.json()["error"] == "The Solver bot races at 1, 2, 4 cells a second."
    text = move(client, code, ana, action="add_bot", pace="fast")
    assert text.status_code == 400
    guest = move(client, code, bo, action="add_bot", pace=2)
    assert guest.status_code == 403
    assert guest.json()["error"] == "Only the host can add or remove the Solver bot."
    assert move(client, code, bo, action="remove_bot").status_code == 403
    assert settings_of(code) == before


def test_a_co_op_solver_bot_has_one_pace(client):
    body = {"game": "minesweeper", "width": 9, "height": 9, "mines": 10, "name": "Ana"}
    created = client.post("/api/rooms", body, content_type=JSON).json()
    code, token = created["code"], created["player_token"]
    refused = move(client, code, token, action="add_bot", pace=2)
    assert refused.status_code == 400 and "one pace" in refused.json()["error"]
    assert not settings_of(code).get("bot")
    assert move(client, code, token, action="add_bot").status_code == 200


async def test_from_the_room_the_host_sets_the_pace_and_a_spectator_is_told_why_not():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    host, guest = await connect(room, ana), await connect(room, bo)
    watcher = await connect(room, watch=True)
    await send(host, action="add_bot", pace="4")  # a form's select sends text
    roster = await receive_until(host, "set the Solver bot to race at 4 cells a second")
    assert re.search(r'<option value="4" selected>', roster)
    assert 'value="remove_bot"' in roster
    await send(watcher, action="add_bot", pace=1)
    refused = await receive_until(watcher, 'id="room-error"')
    assert "Spectators can watch but not add or remove the Solver bot." in refused
    await send(guest, action="remove_bot")
    refused = await receive_until(guest, 'id="room-error"')
    assert "Only the host can add or remove the Solver bot." in refused
    fresh = await sync_to_async(Room.objects.get)(pk=room.pk)
    assert fresh.settings["bot"] is True and fresh.settings["bot_pace"] == 4
    for socket in (host, guest, watcher):
        await socket.disconnect()


async def test_one_cell_a_second_is_said_in_the_singular():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    host = await connect(room, await sync_to_async(joining.join_room)(room, "Ana"))
    await send(host, action="add_bot", pace="1")
    roster = await receive_until(host, "set the Solver bot to race at 1 cell a second")
    assert '<span class="presence">1 cell/s</span>' in roster
    assert re.search(r'<option value="1" selected>1 cell/s</option>', roster)
    await host.disconnect()


def _roster(client, code: str) -> str:
    from games.kinds.race import render

    room = Room.objects.get(code=code)
    return render.roster_html(room, room.current_game())


def _entry(roster: str, seat: int) -> str:
    found = re.search(rf'<li class="roster-player[^"]*" data-seat="{seat}".*?</li>', roster, re.S)
    assert found, roster
    return found.group(0)


def test_the_lobby_lists_who_will_race_and_a_late_joiner_watches_until_the_next(client):
    code, (ana, bo) = api_race(client, racers=2)
    move(client, code, ana, action="add_bot", pace=2)
    lobby = _roster(client, code)
    assert "Who will race" in lobby
    for seat in (0, 1):
        entry = _entry(lobby, seat)
        assert 'data-role="racer"' in entry and re.search(r"colour-\d+", entry)
        assert 'data-online="false"' in entry and ">away<" in entry  # no socket open here
    assert 'data-seat="bot" data-role="racer"' in lobby and "2 cells/s" in lobby
    chips = re.search(r'<div id="lobby-racers".*?</div>', lobby, re.S)
    assert chips is not None  # over the board too, where a phone shows it
    assert re.findall(r'class="lobby-racer colour-(\w+)"', chips.group(0)) == ["0", "1", "bot"]
    move(client, code, ana, action="start")
    fast_forward(code)
    late = client.post(f"/api/rooms/{code}/join", {"name": "Dee"}, content_type=JSON).json()
    assert late["player_token"]
    racing = _roster(client, code)
    assert "racing · away" in _entry(racing, 0)
    assert re.search(r'<div id="lobby-racers" class="lobby-racers"[^>]*></div>', racing)
    dee = _entry(racing, 2)
    assert 'data-role="watching"' in dee and "races in the next one" in dee and "watching · " in dee


@pytest.mark.parametrize(
    "body",
    [
        {"game": "minesweeper", "mode": "race", "width": 9, "height": 9, "mines": 10},
        {"game": "flags", "x": "human", "o": "easy"},
    ],
)
def test_the_room_page_explains_the_rules_in_three_lines(client, body):
    created = (
        create(client, name="Ana")
        if body.get("mode")
        else client.post("/api/rooms", {**body, "name": "Ana"}, content_type=JSON)
    ).json()
    page = client.get(f"/r/{created['code']}/watch/").content.decode()
    rules_box = re.search(r'<section class="rules".*?</section>', page, re.S)
    assert rules_box is not None
    assert len(re.findall(r"<li>", rules_box.group(0))) == 3


def test_a_move_that_passes_a_racer_updates_every_racers_place(client, monkeypatch):
    """Every card's place stays true: the mover's status in full, the others' places alone."""
    from games.broadcast import outbox
    from tests.helpers.race import safe_and_mine

    code, (ana, bo, cy) = api_race(client, racers=3)
    move(client, code, ana, action="start")
    fast_forward(code)
    sent: list[dict] = []
    monkeypatch.setattr(
        outbox, "send", lambda room_id, texts, *timing, **controls: sent.append(texts)
    )
    x, y = next(c for c in safe_and_mine(code, 1)[0])
    assert move(client, code, bo, action="reveal", x=x, y=y).status_code == 200
    (texts,) = sent
    for key in ("players", "spectators", "seat:1"):
        assert re.search(r'id="status-1"[^>]*data-place="1"', texts[key])
        for seat in (0, 2):
            assert (
                f'<span class="racer-place" id="place-{seat}" hx-swap-oob="true">#2</span>'
                in (texts[key])
            )


def test_a_late_joiner_online_is_counted_with_those_watching(client):
    """Dee joined once the race was named: Dee watches it, and the count says so, beside the
    watch link's spectators."""
    code, (ana, _bo) = api_race(client, racers=2)
    move(client, code, ana, action="start")
    fast_forward(code)
    client.post(f"/api/rooms/{code}/join", {"name": "Dee"}, content_type=JSON)
    room = Room.objects.get(code=code)
    presence.presence_changed(room, room.players.get(nickname="Dee"), +1, "test")
    assert re.search(r'id="spectators"[^>]*>.*?1 watching<', _roster(client, code), re.S)
    presence.presence_changed(room, None, +1, "test")  # and one by the watch link
    assert re.search(r'id="spectators"[^>]*>.*?2 watching<', _roster(client, code), re.S)
