"""The game-kind table: a kind the shell has never heard of plays through the websocket and the API
once it is registered, and a move's fragments are rendered without a query of their own.

The toy kind is one-dimensional Lights Out: a row of lights, all lit; marking a light toggles it
and its neighbours, the command `invert` toggles them all, and the game is won when every light
is off. Its one option is the row's `size`. It is registered for the test only (`KINDS`
patched), with nothing edited in services, the consumer, the API, the views or the computer
driver.
"""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.contrib.staticfiles import finders
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

import games
from games.broadcast import announce, outbox
from games.engine import minesweeper as engine
from games.kinds import KINDS, kind_of
from games.kinds.seeking import Seeking
from games.kinds.table import (
    GameKind,
    MoveNews,
)
from games.protocol.messages import CellMove, SquareMove
from games.rooms import computers, dispatch, joining
from games.rooms import lobby as rooms_lobby
from games.store.models import Room
from games.web import events_schema
from games.web.api.schemas import RoomState, room_state
from tests.helpers import toy_kind
from tests.helpers.lobby import lobby, reply, seek
from tests.helpers.toy_kind.kind import (
    LIGHTS,
    LIGHTS_OUT,
    initial_state,
    settings_from,
    text_rows,
)
from tests.helpers.web import connect, make_room, receive_until, send

"""Lit lights of a new game: marking 0, then 3, turns them all off."""


@pytest.fixture
def lights_out(monkeypatch):
    monkeypatch.setitem(KINDS, LIGHTS, LIGHTS_OUT)
    return LIGHTS_OUT


@pytest.mark.django_db
def test_a_registered_kind_is_created_read_and_played_through_the_api(client, lights_out):
    created = client.post(
        "/api/rooms", {"game": LIGHTS, "name": "Ana"}, content_type="application/json"
    )
    assert created.status_code == 201, created.content
    code, token = created.json()["code"], created.json()["player_token"]
    headers = {"Authorization": f"Bearer {token}"}

    def move(**body):
        return client.post(
            f"/api/rooms/{code}/moves", body, content_type="application/json", headers=headers
        )

    assert client.get(f"/api/rooms/{code}").json()["board"] == ["*****"]
    first = move(action="mark", cell=0)
    assert first.status_code == 200
    assert first.json()["changed"] == [{"cell": 0, "on": False}, {"cell": 1, "on": False}]
    assert move(action="reveal", x=1, y=0).status_code == 400  # not a move of this kind
    assert move(action="mark", cell=9).json()["error"] == "Light 9 is not in the row."
    last = move(action="mark", cell=3)
    assert last.json()["status"] == "won"
    assert client.get(f"/api/rooms/{code}").json()["board"] == ["....."]
    assert move(action="mark", cell=1).status_code == 409  # the game is over
    assert move(action="hint").status_code == 400  # no hints in this kind
    hint = client.post(f"/api/rooms/{code}/hint", headers=headers)
    assert hint.status_code == 400 and "Hints" in hint.json()["error"]


@pytest.mark.django_db
def test_an_unknown_game_is_refused_by_name(client):
    created = client.post("/api/rooms", {"game": "chess"}, content_type="application/json")
    assert created.status_code == 400
    assert "unknown game 'chess'" in created.json()["error"]


@pytest.mark.django_db(transaction=True)
async def test_a_registered_kind_plays_live_through_the_websocket(lights_out):
    room = await sync_to_async(joining.create_room)(LIGHTS, settings_from({}))
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    player = await connect(room, ana)
    watcher = await connect(room, watch=True)
    await send(player, action="mark", cell=0)
    for socket in (player, watcher):
        fragment = await receive_until(socket, 'id="light-0"')
        assert 'data-version="1"' in fragment
        assert 'id="light-0" data-on="false"' in fragment
        assert 'id="light-1" data-on="false"' in fragment
    await send(player, action="flag", x=0, y=0)
    error = await receive_until(player, 'id="room-error"')
    assert "Lights Out room" in error
    await send(watcher, action="mark", cell=3)
    assert "Spectators" in await receive_until(watcher, 'id="room-error"')
    await send(player, action="mark", cell=3)
    won = await receive_until(player, 'id="light-3"')
    assert 'data-status="won"' in won
    game = await sync_to_async(Room.current_game)(room)
    assert game.state == {"lights": [False] * 5} and game.version == 2
    for socket in (player, watcher):
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["minesweeper", "tictactoe"])
def test_a_moves_fragments_are_rendered_after_the_commit_without_a_query(kind, monkeypatch):
    """The service hands the renderer everything (`MoveNews`): the announcer that runs after the
    commit renders the move's HTML with no query of its own, in every kind and on every path
    (a game's first move, its last, and a tic-tac-toe computer's reply)."""
    announced: list[tuple[int, str]] = []
    rendered: list[int] = []

    def counted_move(kind_table: GameKind, news: MoveNews) -> None:
        with CaptureQueriesContext(connection) as queries:
            announce_move(kind_table, news)
        rendered.append(len(queries))

    announce_move = announce.move
    monkeypatch.setattr(announce, "move", counted_move)
    monkeypatch.setattr(
        outbox, "send", lambda room_id, html, *timing, **controls: announced.append((room_id, html))
    )
    if kind == "minesweeper":
        room = make_room(9, 9, 10)
        player = joining.join_room(room, "Ana")
        dispatch.play(room, player, CellMove("reveal", 4, 4))  # the first move
        state = engine.from_dict(room.current_game().state)
        first, second = sorted(state.field.mines)[:2]
        dispatch.play(room, player, CellMove("flag", *state.grid.xy(first)))  # mid-game
        dispatch.play(room, player, CellMove("reveal", *state.grid.xy(second)))  # the last
    else:
        settings = kind_of("tictactoe").setup.options(game="tictactoe", o="perfect").settings()
        room = joining.create_room("tictactoe", settings)
        player = joining.join_room(room, "Ana")
        dispatch.play(room, player, SquareMove(4))
        computers.play_computer_turns(room)  # the computer's reply, as the API plays it
    assert rendered == [0] * (3 if kind == "minesweeper" else 2)
    pages = [html if isinstance(html, str) else html["all"] for _, html in announced]
    moves = [html for html in pages if 'id="game-meta"' in html]
    assert len(moves) == len(rendered) and all(room_id == room.pk for room_id, _ in announced)


def test_every_registered_kind_fills_its_table():
    """Every kind says what its page and its home-page fields are, and every optional ability is
    either absent or complete (a computer needs a positive pace, a bot needs a computer or a clock)."""
    for name, kind in KINDS.items():
        assert kind.name == name
        assert kind.rendering.page_template.startswith("games/")
        assert kind.rendering.create_template.startswith("games/")
        if kind.computer is not None:
            assert kind.computer.delay > 0
        if kind.bot is not None:  # played by the computer driver, or by the clock (a race)
            assert kind.computer is not None or kind.clock is not None
    assert replace(LIGHTS_OUT, hints=None).hints is None
    assert json.dumps(text_rows(initial_state({"size": 5}, 0), {}, None)[0]) == '["*****"]'


def test_every_logged_action_fits_the_move_logs_column():
    """Commands and clock events are logged under their names: PostgreSQL refuses a name longer
    than the column (SQLite does not check, so only a PostgreSQL run found "seat_free")."""
    from games.kinds import KINDS, seats_away
    from games.store.models import Move

    width = Move._meta.get_field("action").max_length
    names = {name for kind in KINDS.values() for name in kind.commands}
    names |= {"away", "back", "tick", seats_away.FREED, "new_game", "reveal", "flag", "chord"}
    assert max(map(len, names)) <= width, sorted(n for n in names if len(n) > width)


@pytest.mark.django_db
def test_a_registered_kinds_option_is_taken_checked_and_documented_by_the_api(client, lights_out):
    def create(**body):
        return client.post("/api/rooms", body, content_type="application/json")

    created = create(game=LIGHTS, name="Ana", size=3)
    assert created.status_code == 201, created.content
    assert client.get(f"/api/rooms/{created.json()['code']}").json()["board"] == ["***"]
    too_long = create(game=LIGHTS, size=10)
    assert too_long.status_code == 400 and "size" in too_long.json()["error"]
    unknown = create(game=LIGHTS, size=3, colour="red")
    assert unknown.status_code == 400
    assert unknown.json()["error"] == "unknown field 'colour'."
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    size = schemas["LightsOptions"]["properties"]["size"]
    assert size["description"] == "Lights in the row, all lit at first."
    assert (size["minimum"], size["maximum"]) == (3, 9)


@pytest.mark.django_db(transaction=True)
async def test_a_registered_kinds_command_plays_through_the_websocket(lights_out):
    room = await sync_to_async(joining.create_room)(LIGHTS, settings_from({"size": 4}))
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    player = await connect(room, ana)
    await send(player, action="invert")
    won = await receive_until(player, 'id="light-3"')
    assert 'data-status="won"' in won and 'id="light-0" data-on="false"' in won
    game = await sync_to_async(Room.current_game)(room)
    assert game.state == {"lights": [False] * 4} and game.version == 1
    await send(player, action="invert")
    assert "All lights are off already." in await receive_until(player, 'id="room-error"')
    await player.disconnect()


def test_no_shell_module_names_the_toy_kind():
    """Its option, its state field and its command reach the API and the socket through the
    table alone, and its page and script are its own: no shell module, template, script or
    schema (everything outside games/kinds and games/engine) names it."""
    root = Path(games.__file__).parent
    project = root.parent
    shell = [
        path
        for folder in (root, project / "templates", project / "static")
        for suffix in (".py", ".html", ".js", ".json")
        for path in folder.glob(f"**/*{suffix}")
        if not path.is_relative_to(root / "kinds") and not path.is_relative_to(root / "engine")
    ]
    assert any(path.suffix == ".json" for path in shell) and len(shell) > 100
    for path in shell:
        text = path.read_text().lower()
        assert "lights" not in text and "invert" not in text, path
        assert not re.search(r"\blit\b", text), path


LOBBY = (
    "games/protocol/seeks.py",
    "games/rooms/lobby.py",
    "games/broadcast/lobby.py",
    "games/live/lobby.py",
    "games/web/play.py",
    "templates/games/play.html",
    "static/games/lobby.js",
)
"""Quick match's parser, pairing, news, socket, page and script. (`web/api/seeks.py`'s fields
are described by the kinds too, but its accept endpoint's prose, served in the OpenAPI schema,
takes a race as its example.)"""


def test_the_lobby_names_no_kind():
    """Quick match offers the kinds that declare `seeking` and asks them the rest (the fields
    of a seek, its label, the room a match opens, whether it starts by itself): no lobby
    module, template or script names a registered kind (the site's own name aside)."""
    project = Path(games.__file__).parent.parent
    names = {
        word.lower()
        for kind in KINDS.values()
        for word in (
            kind.name,
            kind.api_game,
            kind.mode,
            kind.label,
            getattr(kind.seeking, "label", None),
        )
        if word
    }
    assert {"race", "flags", "tic-tac-toe", "tictactoe", "minesweeper"} <= names
    named = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    for path in LOBBY:
        text = (project / path).read_text().lower().replace("minesweeper live", "")
        assert not named.search(text), (path, named.search(text))


@pytest.mark.django_db(transaction=True)
async def test_a_registered_kind_that_seeks_strangers_is_offered_and_matched(monkeypatch):
    """The toy kind with a `seeking` part: `/play/` offers it, a seek takes only its own fields,
    and two seekers are matched into a room of it with the options it asked for."""
    seeking = Seeking(label="Lights", room_options={"size": 4})
    monkeypatch.setitem(KINDS, LIGHTS, replace(LIGHTS_OUT, seeking=seeking))
    page = (await sync_to_async(Client().get)("/play/")).content.decode()
    assert f'<button type="button" class="button seek" data-game="{LIGHTS}">Lights</button>' in page
    ana, bo = await lobby(), await lobby()
    await seek(ana, game=LIGHTS, players=3)
    assert (await reply(ana))["error"] == "players: only a race takes it."
    await seek(ana, game=LIGHTS)
    assert (await reply(ana))["type"] == "waiting"
    await seek(bo, game=LIGHTS)
    told = [await reply(socket) for socket in (ana, bo)]
    assert {m["type"] for m in told} == {"matched"} and told[0]["room"] == told[1]["room"]
    room = await Room.objects.aget(code=told[0]["room"])
    assert (room.kind, room.settings, room.locked) == (LIGHTS, {"size": 4}, True)
    for socket in (ana, bo):
        await socket.disconnect()
    await rooms_lobby.stop()


def test_the_api_declares_every_field_a_kind_gives():
    """`GET /api/rooms/<code>` keeps only what its schema declares: every kind's extras are
    declared, the toy's own `lit` as soon as it is registered, with its description."""
    declared = set(room_state([*KINDS.values(), LIGHTS_OUT]).model_fields)
    for kind in [*KINDS.values(), LIGHTS_OUT]:
        body = {"game": kind.api_game, **({"mode": kind.mode} if kind.mode else {})}
        if "preset" in kind.setup.options.model_fields:
            body["preset"] = "beginner"
        params = kind.setup.game_params(kind.setup.options(**body).settings(), None)
        state = kind.setup.initial_state(params, 1)
        for seat in (0, None):
            extra = kind.api.text_rows(state, params, seat)[1]
            assert set(extra) <= declared, (kind.name, set(extra) - declared)
    lit = room_state([LIGHTS_OUT]).model_json_schema()["properties"]["lit"]
    assert lit["description"] == "Lights Out: the lights still on."
    assert "lit" not in RoomState.model_fields  # the registered kinds' alone are served


@pytest.fixture
def lights_app(lights_out, settings):
    """The toy kind installed as the app every kind is, for this test only: Django's app
    loaders find its template and its script (served as they are: collectstatic never saw it)."""
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "tests.helpers.toy_kind"]
    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    settings.STORAGES = {**settings.STORAGES, "staticfiles": plain}
    return lights_out


@pytest.mark.django_db
def test_a_registered_kind_brings_its_own_page_and_script(client, lights_app):
    folder = Path(toy_kind.__file__).parent
    assert finders.find("games/lights.js") == str(folder / "static" / "games" / "lights.js")
    created = client.post(
        "/api/rooms", {"game": LIGHTS, "name": "Ana", "size": 4}, content_type="application/json"
    )
    assert created.status_code == 201, created.content
    page = client.get(f"/r/{created.json()['code']}/watch/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Lights Out, 4 lights</h1>" in html
    assert '<script src="/static/games/lights.js" defer></script>' in html
    assert html.count('data-on="true"') == 4


def test_the_events_schema_is_assembled_from_the_kinds():
    """The bots' schema lists every registered kind and takes each kind's part: the toy's
    snapshot carries its `lit`; two kinds may share a definition, never redefine one."""
    served = Client().get("/api/events.schema.json").json()
    assert served["$defs"]["kind"]["enum"] == list(KINDS)
    lit = {"required": ["lit"], "properties": {"lit": {"type": "integer", "minimum": 0}}}
    toy = replace(LIGHTS_OUT, api=replace(LIGHTS_OUT.api, events_schema={"snapshot": lit}))
    schema = events_schema.assembled([*KINDS.values(), toy])
    assert schema["$defs"]["kind"]["enum"][-1] == LIGHTS
    when = {"if": {"properties": {"game": {"const": LIGHTS}}}, "then": lit}
    assert schema["$defs"]["snapshot"]["allOf"][-1] == when
    redefined = {"$defs": {"minesweeperCell": {"type": "string"}}}
    clash = replace(LIGHTS_OUT, api=replace(LIGHTS_OUT.api, events_schema=redefined))
    with pytest.raises(ValueError, match="minesweeperCell"):
        events_schema.assembled([*KINDS.values(), clash])
