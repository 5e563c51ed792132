"""Races through the API and the websocket: create with mode "race", join, the host's start,
the countdown and Go (the clock), moves on one's own board, penalties (409 while frozen),
finishing, results, rematch, the computer racer and the views each screen gets."""

import re
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games.engine import race as engine
from games.kinds import table
from games.kinds.race import rules
from games.live import heartbeat
from games.rooms import autoplay, joining, playing
from games.store.models import Game, Move, Presence, Room, ServerProcess
from tests.helpers.race import (
    JSON,
    api_race,
    create,
    fast_forward,
    go_now,
    move,
    race_of,
    racing_pair,
    safe_and_mine,
)
from tests.helpers.web import connect, receive_until, send

pytestmark = pytest.mark.django_db(transaction=True)


def read(client, code, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/api/rooms/{code}", headers=headers).json()


def test_a_race_is_created_by_game_and_mode_with_no_guess_on_by_default(client):
    created = create(client, name="Ana")
    assert created.status_code == 201
    room = Room.objects.get(code=created.json()["code"])
    assert room.kind == "race"
    assert room.settings["no_guess"] is True and room.settings["penalty"] == 5
    assert room.settings["spectator_delay"] == 3
    off = create(client, no_guess=False, penalty_seconds=10, time_limit_seconds=300)
    assert Room.objects.get(code=off.json()["code"]).settings["no_guess"] is False
    big = create(client, width=31, height=16, mines=99)
    assert big.status_code == 400 and "from 4 to 30" in big.json()["error"]
    bad = create(client, penalty_seconds=7)
    assert bad.status_code == 400 and "penalty" in bad.json()["error"]
    assert create(client, mode="duel").status_code == 400
    tictactoe = client.post("/api/rooms", {"game": "tictactoe", "mode": "race"}, content_type=JSON)
    assert tictactoe.status_code == 400 and "mode" in tictactoe.json()["error"]
    coop = client.post(
        "/api/rooms", {"game": "minesweeper", "preset": "beginner"}, content_type=JSON
    )
    assert Room.objects.get(code=coop.json()["code"]).kind == "minesweeper"


def test_the_host_starts_with_two_racers_and_moves_wait_for_go(client):
    code, (ana, bo) = api_race(client)
    assert move(client, code, bo, action="start").status_code == 403  # not the host
    early = move(client, code, ana, action="reveal", x=0, y=0)
    assert early.status_code == 409 and "not started" in early.json()["error"]
    started = move(client, code, ana, action="start")
    assert started.status_code == 200, started.content
    assert read(client, code, ana)["race"]["phase"] == "countdown"
    assert move(client, code, ana, action="start").status_code == 409
    assert move(client, code, bo, action="reveal", x=0, y=0).status_code == 409
    fast_forward(code)
    state = read(client, code, ana)
    assert state["race"]["phase"] == "racing"
    refused = move(client, code, bo, action="new_game")
    assert refused.status_code == 409 and "race is on" in refused.json()["error"]
    assert state["board"] == read(client, code, bo)["board"]  # the same start cell for both
    assert any(c != "#" for row in state["board"] for c in row)
    logged = list(Move.objects.filter(game__room__code=code).values_list("action", "seat"))
    assert logged == [("start", 0), ("tick", table.COMPUTER_SEAT)]


def test_one_racer_alone_cannot_start(client):
    code, (ana,) = api_race(client, racers=1)
    refused = move(client, code, ana, action="start")
    assert refused.status_code == 409 and "two racers" in refused.json()["error"]


def test_a_racer_moves_only_their_own_board_and_a_mine_freezes_it(client):
    code, (ana, bo) = api_race(client)
    move(client, code, ana, action="start")
    fast_forward(code)
    before = read(client, code, bo)["board"]
    safe, mine = safe_and_mine(code, 0)
    x, y = safe[0]
    answer = move(client, code, ana, action="reveal", x=x, y=y)
    assert answer.status_code == 200 and answer.json()["changed"]
    assert read(client, code, bo)["board"] == before
    hit = move(client, code, ana, action="reveal", x=mine[0], y=mine[1])
    assert hit.status_code == 200
    assert read(client, code, ana)["board"][mine[1]][mine[0]] == "!"
    frozen = move(client, code, ana, action="reveal", x=safe[1][0], y=safe[1][1])
    assert frozen.status_code == 409 and "frozen" in frozen.json()["error"]
    me = read(client, code, ana)["race"]["you"]
    assert me["mines_hit"] == 1 and 0 < me["frozen_ms"] <= 5000
    during = client.get(f"/api/rooms/{code}/games/1").json()
    assert during["moves"] == []  # a race under way keeps each racer's moves (their flags) theirs
    fast_forward(code)  # the penalty ends
    assert move(client, code, ana, action="reveal", x=safe[1][0], y=safe[1][1]).status_code == 200


def test_a_reader_without_a_racers_token_sees_no_board(client):
    code, (ana, bo) = api_race(client)
    move(client, code, ana, action="start")
    fast_forward(code)
    anyone = read(client, code)
    assert all(set(row) == {"#"} for row in anyone["board"])
    assert [r["seat"] for r in anyone["race"]["racers"]] == [0, 1]


def test_a_whole_race_to_the_results_and_a_rematch(client):
    code, (ana, bo) = api_race(client)
    move(client, code, ana, action="start")
    fast_forward(code)
    for x, y in safe_and_mine(code, 1)[0]:
        if race_of(code).racer(1).is_racing:  # type: ignore[union-attr]
            assert move(client, code, bo, action="reveal", x=x, y=y).status_code in (200, 409)
    assert race_of(code).racer(1).standing is engine.Standing.FINISHED  # type: ignore[union-attr]
    done = move(client, code, bo, action="reveal", x=0, y=0)
    assert done.status_code == 409 and "finished" in done.json()["error"]
    assert move(client, code, ana, action="give_up").status_code == 200
    state = read(client, code, ana)
    assert state["status"] == "won" and state["race"]["phase"] == "over"
    first, second = state["race"]["results"]
    assert (first["seat"], first["place"], second["place"]) == (1, 1, 2)
    assert first["time_ms"] is not None and first["three_bv"] > 0 and first["ioe"] > 0
    log = client.get(f"/api/rooms/{code}/games/1").json()["moves"]
    assert [m["action"] for m in log][:2] == ["start", "tick"]  # public once the race is over
    rematch = move(client, code, ana, action="new_game")
    assert rematch.status_code == 200
    again = read(client, code, ana)
    assert again["number"] == 2 and again["race"]["phase"] == "lobby"
    game1, game2 = Game.objects.filter(room__code=code).order_by("number")
    assert game1.seed != game2.seed and game1.params == game2.params


def test_a_race_replays_from_its_seed_and_move_log(client, settings):
    settings.RACE_COUNTDOWN_SECONDS = 0.2  # the production 3 s would be slept through below
    code, (ana, bo) = api_race(client, penalty_seconds=3)
    started = rules.now_ms()
    move(client, code, ana, action="start")
    go_at = race_of(code).go_at
    assert go_at is not None and 200 <= go_at - started <= 200 + (rules.now_ms() - started)
    # The real countdown: a replay checks the times the log holds, so nothing is shifted here.
    time.sleep(max(0, engine.due(race_of(code)) - rules.now_ms()) / 1000)  # type: ignore[operator]
    assert playing.tick(Room.objects.get(code=code)) is not None
    safe, mine = safe_and_mine(code, 0)
    move(client, code, ana, action="flag", x=mine[0], y=mine[1])
    move(client, code, bo, action="reveal", x=mine[0], y=mine[1])  # a penalty for Bo
    for x, y in safe[:4]:
        move(client, code, ana, action="reveal", x=x, y=y)
    move(client, code, bo, action="give_up")
    for x, y in safe_and_mine(code, 0)[0]:
        move(client, code, ana, action="reveal", x=x, y=y)
    game = Room.objects.get(code=code).current_game()
    rows = [
        (m.seat, m.action, m.x, m.y, m.created_at.timestamp())
        for m in Move.objects.filter(game=game).order_by("seq")
    ]
    again = rules.replay(game.params, game.seed, game.state, rows)
    final = rules.load(game.state)
    assert again.is_over and final.is_over
    for a, b in zip(again.racers, final.racers, strict=True):
        assert (a.seat, a.standing, a.hits, a.clicks) == (b.seat, b.standing, b.hits, b.clicks)
        assert a.board.revealed == b.board.revealed and a.board.flags == b.board.flags
    assert engine.places(again) == engine.places(final)
    # Each row is stamped with the time its rules used: the replay's times are the live ones.
    assert engine.results(again) == engine.results(final)
    assert [r.finished_at for r in again.racers] == [r.finished_at for r in final.racers]
    assert again.ended_at == final.ended_at and again.go_at == final.go_at
    assert final.racers[0].finished_at is not None


def test_the_solver_bot_races_at_its_pace_on_its_own_board(client):
    code, (ana,) = api_race(client, racers=1, bot_pace=4)
    assert move(client, code, ana, action="add_bot").status_code == 200
    assert move(client, code, ana, action="start").status_code == 200
    assert race_of(code).seats == (0, table.COMPUTER_SEAT)
    fast_forward(code)  # Go
    fast_forward(code)  # the bot's first move, a quarter second later
    bot = race_of(code).racer(table.COMPUTER_SEAT)
    assert bot is not None and bot.clicks == 2 and bot.next_at is not None
    me = race_of(code).racer(0)
    assert me is not None and len(me.board.revealed) < len(bot.board.revealed)


def test_a_spectator_cannot_start_or_move(client):
    code, (ana, bo) = api_race(client)
    spectator = joining.join_room(Room.objects.get(code=code), "Cy")
    spectator.role = spectator.Role.SPECTATOR
    spectator.save()
    assert move(client, code, spectator.token, action="start").status_code == 403


# The websocket ----------------------------------------------------------------------------------


async def test_racers_and_a_spectator_each_get_their_own_view_over_the_websocket():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await connect(room, ana), await connect(room, bo)
    watcher = await connect(room, watch=True)
    await send(b, action="start")
    assert "Only the host" in await receive_until(b, 'id="room-error"[^>]*><span')
    await send(a, action="start")
    for socket in (a, b, watcher):
        text = await receive_until(socket, 'data-phase="countdown"')
        assert 'id="board-0"' in text and 'id="board-1"' in text
    await sync_to_async(go_now)(room)
    mine = await receive_until(a, 'data-phase="racing"')
    assert re.search(
        r'id="cell-\d+-\d+" data-x="\d+" data-y="\d+" data-state="revealed" data-count', mine
    )
    assert not re.search(r'id="cell-1-\d+-\d+"', mine)  # Bo's board: a progress card, no cells
    assert re.search(r'id="board-1" class="progress-card"[^>]*data-progress="[1-9]', mine)
    seen = await receive_until(watcher, 'data-phase="racing"')
    assert re.search(r'id="cell-1-\d+-\d+" data-x="\d+" data-y="\d+" data-state="revealed"', seen)
    race = await sync_to_async(lambda: rules.load(room.current_game().state))()
    assert race.field is not None
    x, y = race.grid.xy(
        next(
            c
            for c in range(race.grid.size)
            if c not in race.field.mines and c not in race.racer(0).board.revealed
        )
    )  # type: ignore[union-attr]
    await send(a, action="reveal", x=x, y=y)
    own = await receive_until(a, 'data-version="3"')
    assert f'id="cell-{x}-{y}" data-x="{x}" data-y="{y}" data-state="revealed"' in own
    other = await receive_until(b, 'data-version="3"')
    assert re.search(r'id="status-0"[^>]*data-progress="[1-9]', other)
    assert "cell-" not in other  # Ana's progress alone
    full = await receive_until(watcher, 'data-version="3"')
    assert f'id="cell-0-{x}-{y}" data-x="{x}" data-y="{y}" data-state="revealed"' in full
    for socket in (a, b, watcher):
        await socket.disconnect()


async def test_a_racer_whose_socket_closes_is_away_and_back_when_it_opens_again():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await connect(room, ana), await connect(room, bo)
    await send(a, action="start")
    await receive_until(a, 'data-phase="countdown"')
    await sync_to_async(go_now)(room)
    await receive_until(a, 'data-phase="racing"')
    await b.disconnect()
    away = await receive_until(a, 'id="status-1"[^>]*data-away="true"')
    assert "away" in away
    racer = (await sync_to_async(race_of)(room.code)).racer(1)
    assert racer is not None and racer.away_since is not None  # the 60 s grace runs
    b = await connect(room, bo)
    await receive_until(a, 'id="status-1"[^>]*data-away="false"')
    actions = await sync_to_async(
        lambda: list(Move.objects.filter(game__room=room).values_list("action", flat=True))
    )()
    assert actions == ["start", "tick", "away", "back"]
    for socket in (a, b):
        await socket.disconnect()


async def test_a_racer_whose_socket_closes_is_out_after_the_grace_with_no_further_move(
    monkeypatch,
):
    """The away move wakes the room's clock: the grace period is timed by itself, not only
    once someone moves again (grace shortened here; 60 s in play)."""
    monkeypatch.setattr(engine, "GRACE_MS", 300)
    room, a, b = await racing_pair()
    await b.disconnect()
    await receive_until(a, 'id="status-1"[^>]*data-away="true"')
    await receive_until(a, "did not finish")
    assert (await sync_to_async(race_of)(room.code)).racer(1).standing is engine.Standing.DNF  # type: ignore[union-attr]
    await a.disconnect()


async def test_a_racer_swept_from_a_killed_process_is_out_after_the_grace_by_itself(
    monkeypatch,
):
    """After kill -9, the survivor's sweep marks the racer away and wakes the room's clock, so
    the race ends them after the grace period with no further move (issue 26, item 2)."""
    monkeypatch.setattr(engine, "GRACE_MS", 300)
    room, a, b = await racing_pair()
    await sync_to_async(_moved_to_a_dead_process)(room, b)
    await heartbeat.sweep(autoplay.schedule)
    await receive_until(a, 'id="status-1"[^>]*data-away="true"')
    await receive_until(a, "did not finish")
    for socket in (a, b):
        await socket.disconnect()


def _moved_to_a_dead_process(room: Room, socket) -> None:
    """Count `socket`'s racer under a process killed long ago instead of this one, as if their
    socket had been served there (the socket itself stays, unseen by the counts)."""
    Presence.objects.filter(player=socket.player).update(process="killed")
    ServerProcess.objects.create(pk="killed", last_seen=timezone.now() - timedelta(days=1))


async def test_the_solver_bot_races_live_on_the_clock():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0, bot_pace=4)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    a = await connect(room, ana)
    await send(a, action="add_bot")
    await receive_until(a, "Solver bot")
    await send(a, action="start")
    await receive_until(a, 'data-phase="countdown"')
    await receive_until(a, 'data-phase="racing"')  # Go, from the live clock
    seat = table.COMPUTER_SEAT
    moved = await receive_until(a, f'id="status-{seat}"[^>]*data-progress="[1-9]')
    assert "cell-" not in moved  # progress only
    bot = (await sync_to_async(race_of)(room.code)).racer(seat)
    assert bot is not None and bot.clicks >= 2
    await a.disconnect()


async def test_a_racers_pointer_reaches_nobody():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await connect(room, ana), await connect(room, bo)
    await send(a, action="hover", x=3, y=3)
    await send(a, action="sync")  # b hears everything a's messages caused before this answer
    await receive_until(a, 'id="board"')
    await send(b, action="sync")
    heard = []
    while 'id="board"' not in (text := await b.receive_from(timeout=15)):
        heard.append(text)
    assert not any("cursor-feed" in text for text in heard)
    for socket in (a, b):
        await socket.disconnect()


async def test_a_bot_races_on_the_websocket_with_its_token_and_reads_only_its_own_board():
    from tests.helpers.bots import bot, event

    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    page = await connect(room, ana)
    socket = await bot(room, robo.token)
    first = await event(socket, "snapshot")
    assert first["game"] == "race" and first["race"]["phase"] == "lobby"
    await send(page, action="start")
    await receive_until(page, 'data-phase="countdown"')
    await sync_to_async(go_now)(room)
    go = await event(socket, "snapshot")  # a timed event: each bot reads its own board again
    assert go["race"]["phase"] == "racing" and go["race"]["you"]["seat"] == robo.number
    race = await sync_to_async(race_of)(room.code)
    assert race.field is not None
    racer = race.racer(robo.number)
    assert racer is not None
    cell = next(c for c in range(81) if c not in race.field.mines and c not in racer.board.revealed)
    x, y = race.grid.xy(cell)
    await send(socket, action="reveal", x=x, y=y)
    mine = await event(socket, "move")
    assert {"x": x, "y": y} == {k: mine["cells"][0][k] for k in ("x", "y")}
    hers = race.racer(ana.number)
    assert hers is not None
    hidden = next(c for c in range(81) if c not in hers.board.revealed)
    await send(page, action="flag", x=hidden % 9, y=hidden // 9)
    theirs = await event(socket, "move")
    assert theirs["cells"] == []  # Ana's flag is hers alone
    for s in (page, socket):
        await s.disconnect()


def test_a_move_is_rendered_as_three_texts_whatever_the_number_of_screens(client, monkeypatch):
    """The mover's own board, the other racers' progress-only view, the spectators' full view:
    each rendered once (the bots' JSON aside), and a late joiner sees the race as a watcher."""
    from games.broadcast import outbox

    code, (ana, bo, cy) = api_race(client, racers=3)
    move(client, code, ana, action="start")
    fast_forward(code)
    late = client.post(f"/api/rooms/{code}/join", {"name": "Dee"}, content_type=JSON).json()
    refused = move(client, code, late["player_token"], action="reveal", x=0, y=0)
    assert refused.status_code == 409 and "next one" in refused.json()["error"]
    sent: list[dict] = []
    monkeypatch.setattr(
        outbox, "send", lambda room_id, texts, *timing, **controls: sent.append(texts)
    )
    x, y = safe_and_mine(code, 1)[0][0]
    assert move(client, code, bo, action="reveal", x=x, y=y).status_code == 200
    (texts,) = sent
    html = {key for key in texts if not key.startswith(("json", "resync"))}
    assert html == {"seat:1", "players", "spectators"}
    assert f'id="cell-{x}-{y}"' in texts["seat:1"] and f'id="cell-{x}-{y}"' not in texts["players"]
    assert texts["seat:1"].startswith(texts["players"])  # the mover's is the others' plus theirs


def test_the_time_limit_shows_and_ends_the_race_for_everyone_still_racing(client):
    from games.kinds.race import render

    code, (ana, bo) = api_race(client, time_limit_seconds=60)
    move(client, code, ana, action="start")
    fast_forward(code)
    room = Room.objects.get(code=code)
    page = render.viewer_snapshot_html(room, room.current_game(), 0)
    left = int(re.search(r'id="race-limit"[^>]*data-ms="(\d+)"', page)[1])  # type: ignore[index]
    assert 55_000 < left <= 60_000
    for seat, token in enumerate((ana, bo)):  # a move shows a racer is here (no socket: a bot)
        x, y = safe_and_mine(code, seat)[0][0]
        assert move(client, code, token, action="reveal", x=x, y=y).status_code == 200
    assert all(r.away_since is None for r in race_of(code).racers)
    fast_forward(code)  # the limit
    state = read(client, code, ana)
    assert state["race"]["phase"] == "over" and state["status"] == "lost"  # nobody finished
    assert {r["standing"] for r in state["race"]["results"]} == {"timed-out"}


async def test_when_the_host_has_left_the_others_may_start():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    host = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    cy = await sync_to_async(joining.join_room)(room, "Cy")
    a, b, c = [await connect(room, p) for p in (host, bo, cy)]
    await send(b, action="start")
    assert "Only the host" in await receive_until(b, 'id="room-error"[^>]*><span')
    await a.disconnect()
    left = await receive_until(b, 'data-seat="0" data-online="false"')
    assert "anyone here may start" in left
    await send(b, action="start")
    await receive_until(c, 'data-phase="countdown"')
    race = await sync_to_async(race_of)(room.code)
    assert race.seats == (1, 2, 0)  # online racers first; the host may still come back in time
    for socket in (b, c):
        await socket.disconnect()


async def test_a_racers_mines_left_counts_their_own_flags():
    """Issue 35: the counter stayed at 010 after flags; each flag (and unflag) of the racer's own
    board sends them the counter again, and no rival's screen gets it."""
    room, a, b = await racing_pair()
    race = await sync_to_async(lambda: rules.load(room.current_game().state))()
    hidden = [c for c in range(race.grid.size) if c not in race.racer(0).board.revealed]
    for n, cell in enumerate(hidden[:4], start=1):
        x, y = race.grid.xy(cell)
        await send(a, action="flag", x=x, y=y)
        own = await receive_until(a, 'id="mines-left"')
        assert re.search(rf'id="mines-left"[^>]*>{10 - n:03d}<', own)
    x, y = race.grid.xy(hidden[0])
    await send(a, action="flag", x=x, y=y)  # unflag
    assert re.search(r'id="mines-left"[^>]*>007<', await receive_until(a, 'id="mines-left"'))
    rival = await receive_until(b, 'data-version="7"')
    assert 'id="mines-left"' not in rival
    for socket in (a, b):
        await socket.disconnect()
