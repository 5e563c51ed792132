"""The toy kind's table (Lights Out): adding a kind needs no shell change.

Its own template and script sit beside it (templates/games/lights_room.html, static/games/lights.js),
its own state field (`lit`) reaches the API's room state, and its own command (`invert`) the
socket and the API."""

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from games.kinds import KINDS
from games.kinds.table import (
    ApiView,
    Applied,
    CreateOptions,
    GameKind,
    Invalid,
    Lineup,
    MoveNews,
    Refused,
    Rendering,
    Rules,
    Setup,
    StateField,
)
from games.protocol.messages import Message, SquareMove
from games.store.models import Game, Room

LIGHTS = "lights"


START = (True, True, True, True, True)


class LightsOptions(CreateOptions):
    game: Literal["lights"]
    size: int = Field(len(START), ge=3, le=9, description="Lights in the row, all lit at first.")

    def settings(self) -> dict[str, Any]:
        return {"size": self.size}


def settings_from(body: Mapping[str, Any]) -> dict[str, Any]:
    return LightsOptions(game=LIGHTS, **body).settings()


def initial_state(params: dict[str, Any], seed: int) -> dict[str, Any]:
    return {"lights": [True] * params["size"]}


def invert(state: dict[str, Any], lineup: Lineup, params: dict[str, Any]) -> Applied:
    if not any(state["lights"]):
        raise Refused("All lights are off already.")
    lights = [not on for on in state["lights"]]
    return Applied(
        {"lights": lights}, "playing" if any(lights) else "won", tuple(range(len(lights)))
    )


def apply(state: dict[str, Any], message: Message, seat: int, params: dict[str, Any]) -> Applied:
    if not isinstance(message, SquareMove):
        raise Invalid('This is a Lights Out room: send {"action": "mark", "cell": N}.')
    lights = list(state["lights"])
    if not any(lights):
        raise Refused("All lights are off already.")
    if not 0 <= message.cell < len(lights):
        raise Invalid(f"Light {message.cell} is not in the row.")
    toggled = [
        n for n in (message.cell - 1, message.cell, message.cell + 1) if 0 <= n < len(lights)
    ]
    for n in toggled:
        lights[n] = not lights[n]
    status = "playing" if any(lights) else "won"
    return Applied({"lights": lights}, status, tuple(toggled))


def text_rows(
    state: dict[str, Any], params: dict[str, Any], seat: int | None
) -> tuple[list[str], dict[str, Any]]:
    lights = state["lights"]
    row = "".join("*" if on else "." for on in lights)
    return [row], {"width": len(lights), "height": 1, "lit": sum(lights)}


def changed_cells(applied: Applied) -> list[dict[str, Any]]:
    return [{"cell": n, "on": applied.state["lights"][n]} for n in applied.events]


def light_html(n: int, on: bool) -> str:
    return f'<span id="light-{n}" data-on="{str(on).lower()}" hx-swap-oob="true"></span>'


def meta_html(game: Game, status: str) -> str:
    return f'<div id="game-meta" data-version="{game.version}" data-status="{status}"></div>'


def snapshot_html(room: Room, game: Game) -> str:
    lights = "".join(light_html(n, on) for n, on in enumerate(game.state["lights"]))
    return f'{meta_html(game, game.status)}<div id="board" hx-swap-oob="true">{lights}</div>'


def move_html(news: MoveNews) -> str:
    lights = news.applied.state["lights"]
    changed = "".join(light_html(n, lights[n]) for n in news.applied.events)
    return meta_html(news.game, news.applied.status) + changed


LIT = StateField("lit", int | None, "Lights Out: the lights still on.")
"""The toy's own state field, which the API's room state must carry."""


def game_context(room: Room, game: Game) -> dict[str, Any]:
    return {"size": room.settings["size"], "lights": game.state["lights"]}


LIGHTS_OUT = GameKind(
    name=LIGHTS,
    label="Lights Out",
    tagline="turn every light off",
    setup=Setup(
        create_form=KINDS["minesweeper"].setup.create_form,  # the home page is not under test
        options=LightsOptions,
        game_params=lambda settings, previous: settings,
        initial_state=initial_state,
    ),
    rules=Rules(apply=apply),
    api=ApiView(text_rows=text_rows, changed_cells=changed_cells, state_fields=(LIT,)),
    commands={"invert": invert},
    rendering=Rendering(
        page_template="games/lights_room.html",
        create_template="games/lights_create.html",
        game_context=game_context,
        snapshot_html=snapshot_html,
        new_game_html=lambda room, game, news: snapshot_html(room, game),
        roster_html=lambda room, game: '<ul id="roster" hx-swap-oob="true"></ul>',
        spectators_html=lambda count: f'<p id="spectators" hx-swap-oob="true">{count}</p>',
        gather=lambda room, game, applied: None,
        move_html=move_html,
        describe_settings=lambda settings: f"{settings['size']} lights",
    ),
)
KIND = LIGHTS_OUT
"""Where `KindConfig.kind` looks for a kind's table."""
