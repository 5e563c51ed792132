"""Prometheus metrics (`games.metrics`) and `/metrics`, which only a scraper with the token reads."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from prometheus_client import REGISTRY

from games.rooms import joining

from .helpers import connect, make_room, receive_until, send

TOKEN = "scrape-me"


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def eventually(name: str, expected: float, **labels: str) -> None:
    """The figure reaches `expected` soon: some are counted just after what the test sees (the
    broadcast is timed once the layer has taken it, a socket leaves the gauges after its close)."""
    for _ in range(100):
        if value(name, **labels) == expected:
            return
        await asyncio.sleep(0.02)
    assert value(name, **labels) == expected


def scrape(token: str | None) -> tuple[int, str]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    response = Client().get("/metrics", headers=headers)
    return response.status_code, response.content.decode()


@pytest.mark.django_db
def test_metrics_are_a_404_without_the_token(settings):
    settings.METRICS_TOKEN = ""
    assert scrape(None)[0] == 404
    assert scrape("")[0] == 404  # no token set: nothing opens it
    settings.METRICS_TOKEN = TOKEN
    assert scrape(None)[0] == 404
    assert scrape("wrong")[0] == 404
    status, text = scrape(TOKEN)
    assert status == 200 and "minesweeper_moves_total" in text


@pytest.mark.django_db(transaction=True)
async def test_a_socket_a_move_and_a_flood_show_in_the_metrics(settings):
    settings.METRICS_TOKEN = TOKEN
    before = {
        "players": value("minesweeper_sockets_open", role="player"),
        "rooms": value("minesweeper_rooms_live"),
        "moves": value("minesweeper_moves_total"),
        "timed": value("minesweeper_move_broadcast_seconds_count"),
        "messages": value("minesweeper_message_bytes_count"),
        "snapshots": value("minesweeper_snapshot_bytes_count"),
        "floods": value("minesweeper_refusals_total", reason="flood"),
        "1008": value("minesweeper_socket_closes_total", code="1008"),
    }
    room = await sync_to_async(make_room)()
    player = await sync_to_async(joining.join_room)(room, "Counted")
    socket = await connect(room, player)
    assert value("minesweeper_sockets_open", role="player") == before["players"] + 1
    assert value("minesweeper_rooms_live") == before["rooms"] + 1
    assert value("minesweeper_snapshot_bytes_count") >= before["snapshots"] + 1

    await send(socket, action="reveal", x=4, y=4)
    assert 'data-version="1"' in await receive_until(socket, 'id="game-meta"')
    assert value("minesweeper_moves_total") == before["moves"] + 1
    await eventually("minesweeper_move_broadcast_seconds_count", before["timed"] + 1)
    assert value("minesweeper_message_bytes_count") >= before["messages"] + 1

    for _ in range(200):
        await send(socket, action="sync")
    while (await socket.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    assert value("minesweeper_refusals_total", reason="flood") == before["floods"] + 1
    assert value("minesweeper_socket_closes_total", code="1008") == before["1008"] + 1

    status, text = await sync_to_async(scrape)(TOKEN)
    assert status == 200
    assert 'minesweeper_refusals_total{reason="flood"}' in text
    assert 'minesweeper_socket_closes_total{code="1008"}' in text

    await socket.disconnect()
    await eventually("minesweeper_sockets_open", before["players"], role="player")
    assert value("minesweeper_rooms_live") == before["rooms"]
    # The peer's close after the server's is not counted twice.
    assert value("minesweeper_socket_closes_total", code="1008") == before["1008"] + 1


@pytest.mark.django_db(transaction=True)
async def test_refusals_are_counted_by_reason():
    room = await sync_to_async(make_room)()
    spectator = await connect(room, watch=True)
    size = value("minesweeper_refusals_total", reason="size")
    move = value("minesweeper_refusals_total", reason="move")
    await spectator.send_to(text_data="x" * 10_000)
    await receive_until(spectator, 'id="room-error"')
    await send(spectator, action="reveal", x=1, y=1)
    await receive_until(spectator, 'id="room-error"')
    assert value("minesweeper_refusals_total", reason="size") == size + 1
    assert value("minesweeper_refusals_total", reason="move") == move + 1
    await spectator.disconnect()
