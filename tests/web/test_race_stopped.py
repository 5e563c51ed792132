"""A racer who stops racing while others still race (gave up, out on a mine with the "out"
rule, finished) watches like a spectator until the race is over (issue 33, item 2): no rival's
cell reaches their screens sooner than the room's spectator delay after the move that opened
it, on their old socket, on a `sync` and on a socket opened afterwards; and their chat, said on
the socket or through the API, reaches no racer still racing, page or bot.

Every socket is read in the background from the moment it opens, so each frame carries the time
it arrived, and every frame is checked: Ana's (the racer who stops) for rival cells against when
those cells were opened, Bo's and Cy's (still racing) and Bo's bot's for Ana's words.
"""

import asyncio
import json
import re
import time

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from config.asgi import application
from games.engine import race as engine
from games.kinds.race import rules
from games.rooms import joining
from games.store.models import ChatMessage, Player, Room
from tests.helpers.environment import ORIGIN, session_cookie
from tests.helpers.web import TIMEOUT, send

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 3
RIVAL_CELL = re.compile(
    r'id="cell-(\d+)-(\d+)-(\d+)" data-x="\d+" data-y="\d+" data-state="([a-z-]+)"'
)
RESULTS = re.compile(r'id="results"[^>]*>\s*<h2')
SAID = ("psst, socket", "psst, api", "psst, bot")
ROOMY_SEED = 15
"""A 9x9 race's layout whose start opening leaves 59 safe cells: Bo and Cy open three each
and race on. A random seed left three once in 40 (seed 11), so a racer could finish the board
under the test and have nothing left to open."""


class Frames:
    """A socket and every frame it received, with the time it arrived (read in the background,
    so a frame's time is its arrival, not when the test got round to it)."""

    def __init__(self, socket: WebsocketCommunicator) -> None:
        self.socket = socket
        self.frames: list[tuple[float, str]] = []
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:  # a long timeout: the communicator cancels its socket on one
            text = await self.socket.receive_from(timeout=600)
            self.frames.append((time.monotonic(), text))
            self.arrived.set()

    async def until(self, pattern: str, since: int = 0) -> int:
        """The index of the first frame from `since` on that matches, waiting for it."""
        async with asyncio.timeout(TIMEOUT):
            while True:
                for index in range(since, len(self.frames)):
                    if re.search(pattern, self.frames[index][1]):
                        return index
                since = len(self.frames)
                self.arrived.clear()
                await self.arrived.wait()

    async def close(self) -> None:
        self.task.cancel()
        await self.socket.disconnect()


async def page(room: Room, player: Player) -> Frames:
    """A player's page socket; its snapshot is its first frame (not waited for)."""
    cookie = await database_sync_to_async(session_cookie)({room.code: player.token})
    headers = [(b"origin", ORIGIN.encode()), (b"cookie", cookie)]
    socket = WebsocketCommunicator(application, f"/ws/r/{room.code}/", headers=headers)
    assert (await socket.connect(timeout=TIMEOUT))[0]
    return Frames(socket)


async def watch(room: Room) -> Frames:
    socket = WebsocketCommunicator(
        application, f"/ws/r/{room.code}/?watch=1", headers=[(b"origin", ORIGIN.encode())]
    )
    assert (await socket.connect(timeout=TIMEOUT))[0]
    return Frames(socket)


async def bot(room: Room, player: Player) -> Frames:
    """A bot's JSON socket on `player`'s seat."""
    headers = [(b"authorization", f"Bearer {player.token}".encode())]
    socket = WebsocketCommunicator(
        application, f"/ws/r/{room.code}/", headers=headers, subprotocols=["json"]
    )
    assert (await socket.connect(timeout=TIMEOUT))[0]
    return Frames(socket)


def _race(room: Room) -> engine.Race:
    return rules.load(Room.objects.get(pk=room.pk).current_game().state)


def _api_chat(room: Room, player: Player, text: str) -> dict:
    headers = {"Authorization": f"Bearer {player.token}"}
    answer = Client().post(
        f"/api/rooms/{room.code}/chat",
        {"text": text},
        content_type="application/json",
        headers=headers,
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


async def _reveal(room: Room, screen: Frames, seat: int, cell: int) -> float:
    """`seat` reveals `cell` on its own board; returns when the move was sent, once the mover's
    screen shows it."""
    race = await sync_to_async(_race)(room)
    x, y = race.grid.xy(cell)
    since = len(screen.frames)
    sent = time.monotonic()
    await send(screen.socket, action="reveal", x=x, y=y)
    await screen.until(rf'id="cell-{x}-{y}"', since)
    return sent


async def _finish(room: Room, screen: Frames, seat: int) -> None:
    """`seat` reveals safe cells until every one is open."""
    while True:
        race = await sync_to_async(_race)(room)
        racer = race.racer(seat)
        assert racer is not None and race.field is not None
        if not racer.is_racing:
            assert racer.standing is engine.Standing.FINISHED
            return
        hidden = [
            c
            for c in range(race.grid.size)
            if c not in race.field.mines and c not in racer.board.revealed
        ]
        await _reveal(room, screen, seat, hidden[0])


async def _stop(how: str, room: Room, ana: Player, screen: Frames, ana_bot: Frames) -> None:
    if how == "give_up":  # through her bot's socket: a bot seat that gave up is checked too
        await send(ana_bot.socket, action="give_up")
    elif how == "out":
        race = await sync_to_async(_race)(room)
        assert race.field is not None
        await _reveal(room, screen, ana.number, min(race.field.mines))
    else:
        await _finish(room, screen, ana.number)
    standing = {"give_up": "gave-up", "out": "eliminated", "finished": "finished"}[how]
    await screen.until(rf'id="status-{ana.number}"[^>]*data-standing="{standing}"')


def _safe_hidden(race: engine.Race, seat: int) -> list[int]:
    """The racer's hidden safe cells, those showing a number first: one of them opens alone,
    where a zero's cascade could finish the board and end the race under the test."""
    racer = race.racer(seat)
    field = race.field
    assert racer is not None and field is not None
    hidden = (
        c for c in range(race.grid.size) if c not in field.mines and c not in racer.board.revealed
    )
    return sorted(hidden, key=lambda c: field.counts[c] == 0)


@pytest.mark.parametrize("how", ["give_up", "out", "finished"])
@override_settings(RACE_COUNTDOWN_SECONDS=0.5)
async def test_a_racer_who_stopped_sees_rivals_no_sooner_than_spectators_and_coaches_nobody(how):
    settings = rules.validate_settings(
        9, 9, 10, True, spectator_delay=DELAY, eliminate=how == "out"
    )
    room = await sync_to_async(joining.create_room)("race", settings, seed=ROOMY_SEED)
    ana, bo, cy = [
        await sync_to_async(joining.join_room)(room, name) for name in ("Ana", "Bo", "Cy")
    ]
    a, b, c = await page(room, ana), await page(room, bo), await page(room, cy)
    ana_bot, bo_bot = await bot(room, ana), await bot(room, bo)
    watcher = await watch(room)
    await send(a.socket, action="start")
    for screen in (a, b, c):
        await screen.until('data-phase="racing"')
    race = await sync_to_async(_race)(room)
    assert all(len(_safe_hidden(race, seat)) > 6 for seat in (bo.number, cy.number))
    stopping = time.monotonic()
    await _stop(how, room, ana, a, ana_bot)
    seen_stop = len(a.frames)
    # Ana talks, on her socket, through the API and on her bot's socket.
    await send(a.socket, action="chat", text=SAID[0])
    line = await sync_to_async(_api_chat)(room, ana, SAID[1])
    assert line["channel"] == "spectators" and line["author"] == "Ana"
    await send(ana_bot.socket, action="chat", text=SAID[2])
    # Bo and Cy race on: each cell they open is known with the time its move was sent.
    opened: dict[tuple[int, int, int], float] = {}
    for _ in range(3):
        for seat, screen in ((bo.number, b), (cy.number, c)):
            race = await sync_to_async(_race)(room)
            before = set(race.racer(seat).board.revealed)  # type: ignore[union-attr]
            sent = await _reveal(room, screen, seat, _safe_hidden(race, seat)[0])
            after = (await sync_to_async(_race)(room)).racer(seat).board.revealed  # type: ignore[union-attr]
            for cell in set(after) - before:
                opened[(seat, *race.grid.xy(cell))] = sent
    # Ana asks for a snapshot on her socket, and opens another one.
    await send(a.socket, action="sync")
    again = await page(room, ana)
    # Her screens get the rivals' boards (late), the last move's cells too; then the race ends.
    last = max(opened, key=opened.__getitem__)
    for screen in (a, again):
        await screen.until(rf'id="cell-{last[0]}-{last[1]}-{last[2]}" [^>]*data-state="revealed"')
    ending = time.monotonic()
    for screen in (b, c):
        await send(screen.socket, action="give_up")
    for screen in (a, b, c, again, watcher):
        await screen.until(RESULTS.pattern)
    for screen in (a, again):  # the race is over: Ana's screens caught up at once
        assert screen.frames[await screen.until(RESULTS.pattern)][0] - ending < DELAY
    # Spectators heard her, late; the line is kept in their channel.
    for text in SAID:
        await watcher.until(re.escape(text))
    kept = await sync_to_async(lambda: set(ChatMessage.objects.values_list("channel", "text")))()
    assert kept == {("spectators", text) for text in SAID}

    # Every rival cell on Ana's screens came no sooner than the delay after it was opened;
    # cells opened before she stopped, no sooner than the delay after she stopped.
    checked = 0
    for screen in (a, again):
        for index, (at, frame) in enumerate(screen.frames):
            if at >= ending:
                break  # the race is over: every board is everyone's now
            for seat, x, y, state in RIVAL_CELL.findall(frame):
                if int(seat) == ana.number or state == "hidden":
                    continue
                assert screen is again or index >= seen_stop, "a rival's cell while racing"
                since = opened.get((int(seat), int(x), int(y)), stopping)
                assert at - since >= DELAY, (how, seat, x, y, state, at - since)
                checked += 1
    assert checked > 0
    # Ana's bots never get a rival's cells: moves of other seats come without cells.
    for _, text in ana_bot.frames:
        event = json.loads(text)
        if event["type"] == "move" and event["seat"] != ana.number:
            assert event["cells"] == [], event
    # Nothing Ana said reached Bo or Cy, page or bot, while they raced.
    for screen in (b, c, bo_bot):
        for at, frame in screen.frames:
            if at >= ending:
                break
            assert not any(text in frame for text in SAID), frame
    for screen in (a, b, c, again, ana_bot, bo_bot, watcher):
        await screen.close()


@override_settings(RACE_COUNTDOWN_SECONDS=0.5)
async def test_a_racer_who_stopped_hears_a_rematch_and_the_next_race_at_once():
    """The host, who gave up, calls the race off: her screen, late while she watched, is live
    again for the rematch's lobby and her own moves in the next race."""
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=DELAY)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana, bo = [await sync_to_async(joining.join_room)(room, name) for name in ("Ana", "Bo")]
    a, b = await page(room, ana), await page(room, bo)
    await send(a.socket, action="start")
    for screen in (a, b):
        await screen.until('data-phase="racing"')
    await send(a.socket, action="give_up")
    await a.until(rf'id="status-{ana.number}"[^>]*data-standing="gave-up"')
    since, said = len(a.frames), time.monotonic()
    await send(b.socket, action="chat", text="still racing")
    assert a.frames[await a.until("still racing", since)][0] - said >= DELAY  # she is behind
    asked = time.monotonic()
    await send(a.socket, action="new_game")
    lobby = await a.until('data-phase="lobby"', since)
    assert a.frames[lobby][0] - asked < DELAY
    await send(a.socket, action="start")
    await a.until('data-phase="racing"', lobby)
    race = await sync_to_async(_race)(room)
    x, y = race.grid.xy(_safe_hidden(race, ana.number)[0])
    since, sent = len(a.frames), time.monotonic()
    await send(a.socket, action="reveal", x=x, y=y)
    assert a.frames[await a.until(rf'id="cell-{x}-{y}"', since)][0] - sent < DELAY
    for screen in (a, b):
        await screen.close()
