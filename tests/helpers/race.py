"""Races over the API and the socket: create, seat racers, give Go at once, read the state.

Moved out of tests/web/test_race.py, tests/web/test_race_watch.py (issue 34): test modules share
helpers from here, never from each other."""

from asgiref.sync import sync_to_async

from games.engine import race as engine
from games.kinds.race import rules
from games.rooms import joining, playing
from games.store.models import Room
from tests.helpers.web import connect, receive_until, send

JSON = "application/json"


def create(client, **body):
    body = {"game": "minesweeper", "mode": "race", "width": 9, "height": 9, "mines": 10, **body}
    return client.post("/api/rooms", body, content_type=JSON)


def api_race(client, racers=2, **body):
    created = create(client, name="Ana", **body)
    assert created.status_code == 201, created.content
    code = created.json()["code"]
    tokens = [created.json()["player_token"]]
    for n in range(1, racers):
        joined = client.post(f"/api/rooms/{code}/join", {"name": f"R{n}"}, content_type=JSON)
        tokens.append(joined.json()["player_token"])
    return code, tokens


def move(client, code, token, **body):
    headers = {"Authorization": f"Bearer {token}"}
    return client.post(f"/api/rooms/{code}/moves", body, content_type=JSON, headers=headers)


def fast_forward(code: str, to_ms: int | None = None) -> None:
    """Bring the race's next timed event to now (the clock would fire it), then tick."""
    room = Room.objects.get(code=code)
    game = room.current_game()
    race = rules.load(game.state)
    due = engine.due(race)
    assert due is not None
    shift = due - (to_ms if to_ms is not None else rules.now_ms())
    game.state = _shifted(game.state, shift)
    game.save(update_fields=["state"])
    assert playing.tick(room) is not None


def _shifted(state: dict, shift: int) -> dict:
    """Every time in the race moved `shift` ms earlier."""
    out = dict(state)
    for key in ("go_at", "ended_at"):
        if out[key] is not None:
            out[key] -= shift
    racers = []
    for racer in out["racers"]:
        racer = dict(racer)
        for key in ("frozen_until", "away_since", "finished_at", "next_at"):
            if racer[key] is not None:
                racer[key] -= shift
        racers.append(racer)
    out["racers"] = racers
    return out


def race_of(code: str) -> engine.Race:
    return rules.load(Room.objects.get(code=code).current_game().state)


def safe_and_mine(code: str, seat: int) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    race = race_of(code)
    racer = race.racer(seat)
    assert race.field is not None and racer is not None
    grid = race.grid
    safe = [
        grid.xy(c)
        for c in range(grid.size)
        if c not in race.field.mines and c not in racer.board.revealed
    ]
    return safe, grid.xy(min(race.field.mines))


def go_now(room: Room) -> None:
    game = room.current_game()
    game.state = _shifted(game.state, engine.due(rules.load(game.state)) - rules.now_ms())  # type: ignore[operator]
    game.save(update_fields=["state"])
    playing.tick(room)


async def racing_pair():
    """A race under way, Ana (seat 0) and Bo (seat 1) each on a socket of this process."""
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await connect(room, ana), await connect(room, bo)
    b.player = bo
    await send(a, action="start")
    await receive_until(a, 'data-phase="countdown"')
    await sync_to_async(go_now)(room)
    await receive_until(a, 'data-phase="racing"')
    return room, a, b


DELAY = 3


async def racing():
    """Ana and Bo racing, past Go, in a room whose spectators watch DELAY seconds behind."""
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=DELAY)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await connect(room, ana), await connect(room, bo)
    await send(a, action="start")
    await receive_until(b, 'data-phase="countdown"')
    await sync_to_async(go_now)(room)
    await receive_until(b, 'data-phase="racing"')
    return room, bo, (a, b)
