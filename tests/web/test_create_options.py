"""One strict schema per kind for the create body (issue 29): unknown fields and a preset that
disagrees with the size are refused by name, each kind's options are documented in OpenAPI with
their bounds, `seed` deals a reproducible board, and `new_game`'s `game` guard holds over HTTP."""

import pytest

from games.engine import minesweeper as engine
from games.kinds import KINDS
from games.kinds.race import rules as race_rules
from games.protocol import message_table, messages
from games.store.models import Room
from games.web.api import MoveIn

pytestmark = pytest.mark.django_db


def create(client, **body):
    return client.post("/api/rooms", body, content_type="application/json")


def move(client, code, token, **body):
    return client.post(
        f"/api/rooms/{code}/moves",
        body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"preset": "beginner", "nogess": True}, "unknown field 'nogess'."),
        ({"game": "tictactoe", "mines": 10, "width": 9}, "unknown fields 'mines', 'width'."),
        ({"game": "flags", "mode": "race"}, "flags has no mode 'race'"),
        ({"game": "flags", "preset": "expert"}, "unknown field 'preset'."),
        ({"preset": "beginner", "width": 16}, "preset 'beginner' is width 9"),
        ({"preset": "expert", "width": 30, "height": 16, "mines": 40}, "mines 99"),
        (
            {"mode": "race", "width": 31, "height": 16, "mines": 40},
            "width must be a whole number from 4 to 30, got 31.",
        ),
        ({"mode": "race", "preset": "beginner", "bot_pace": 3}, "pace must be one of 1, 2, 4"),
        ({"seed": -1, "preset": "beginner"}, "seed must be a whole number from 0"),
        (
            {"mode": "race", "preset": "beginner", "seed": 7},
            "seed: not offered in minesweeper race",
        ),
        ({"game": "flags", "seed": 7}, "seed: not offered in flags, where players compete"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"mode": "duel"}, "minesweeper has no mode 'duel'"),
    ],
)
def test_a_body_the_kind_does_not_take_is_refused_by_name_and_makes_no_room(client, body, error):
    response = create(client, **body)
    assert response.status_code == 400, response.content
    assert error in response.json()["error"]
    assert not Room.objects.exists()


def test_a_preset_with_the_same_size_spelt_out_is_taken(client):
    body = {"preset": "intermediate", "width": 16, "height": 16, "mines": 40}
    assert create(client, **body).status_code == 201
    assert Room.objects.get().settings["width"] == 16


def test_openapi_shows_every_kinds_options_with_descriptions_and_their_bounds(client):
    schema = client.get("/api/openapi.json").json()
    body = schema["paths"]["/api/rooms"]["post"]["requestBody"]["content"]["application/json"]
    members = {ref["$ref"].rsplit("/", 1)[1] for ref in body["schema"]["oneOf"]}
    models = {kind.setup.options.__name__ for kind in KINDS.values()}
    assert members == models
    schemas = schema["components"]["schemas"]
    for name in models:
        for field, spec in schemas[name]["properties"].items():
            assert spec.get("description"), (name, field)
    race = schemas["RaceOptions"]["properties"]
    assert bounds(race["width"]) == (4, race_rules.MAX_WIDTH)
    assert race["penalty_seconds"]["enum"] == list(race_rules.PENALTIES)
    assert bounds(schemas["MinesweeperOptions"]["properties"]["width"]) == (2, 50)


def bounds(spec: dict) -> tuple[int, int]:
    """An optional number's (minimum, maximum): the schema of `int | None` is an anyOf."""
    number = next(s for s in spec.get("anyOf", [spec]) if s.get("type") == "integer")
    return number["minimum"], number["maximum"]


def first_board(client, **body) -> frozenset[int]:
    """The mines game 1 dealt, after the same first click, read from the engine's state."""
    created = create(client, name="Ana", **body).json()
    revealed = move(client, created["code"], created["player_token"], action="reveal", x=0, y=0)
    assert revealed.status_code == 200
    state = Room.objects.get(code=created["code"]).current_game().state
    mines = engine.from_dict(state).field
    assert mines is not None
    return frozenset(mines.mines)


def test_the_same_seed_and_settings_deal_the_same_board(client):
    body = {"width": 16, "height": 16, "mines": 40, "seed": 12345}
    first, second = first_board(client, **body), first_board(client, **body)
    assert first == second and len(first) == 40
    assert first_board(client, **{**body, "seed": 54321}) != first


def test_a_stale_new_game_over_http_starts_nothing_and_answers_409(client):
    created = create(client, preset="beginner", name="Ana").json()
    code, token = created["code"], created["player_token"]
    assert move(client, code, token, action="new_game", game=1).status_code == 200
    stale = move(client, code, token, action="new_game", game=1)  # a retry, or a second player
    assert stale.status_code == 409
    assert stale.json()["error"].startswith("Game 1 was replaced already: game 2")
    assert Room.objects.get(code=code).games.count() == 2
    assert move(client, code, token, action="new_game", gmae=2).status_code == 400  # a typo


def test_a_kinds_own_command_is_unknown_in_another_kind(client):
    """`start` is the race's: a co-op room answers it as an unknown action, naming what it takes."""
    created = create(client, preset="beginner", name="Ana").json()
    refused = move(client, created["code"], created["player_token"], action="start")
    assert refused.status_code == 400
    assert "Unknown action 'start'" in refused.json()["error"]
    assert "give_up" not in refused.json()["error"]


def test_the_socket_and_the_api_take_the_same_message_fields():
    assert set(MoveIn.model_fields) == set(messages.FIELDS)
    with pytest.raises(messages.BadMessage, match="Unknown field 'gmae'"):
        message_table.parse_message('{"action": "new_game", "gmae": 1}')
    page = '{"action": "new_game", "game": "2", "HEADERS": {"HX-Trigger": "face"}}'
    assert message_table.parse_message(page) == messages.Command("new_game", 2)
