"""Whole races over the websocket, with the live clock: every frame a racer receives while they
race is scanned, and none carries any cell of another racer's board, not even "opened" (the
boards share one seed, so an opened cell there is a known-safe cell here), nor a board in full:
rivals are progress cards until the race is over or the racer is out. The same holds for a
bot's JSON events on a racer's seat. A spectator's frames, snapshot included, arrive no earlier
than the room's delay.

Racers play from the server's layout (the test knows where the mines are and hits some on
purpose); the countdown, penalties and the end run on the real clock, as in production.
"""

import json
import random
import re
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from games.engine import race as engine
from games.kinds.race import rules
from games.rooms import joining
from games.store.models import Room

from .helpers import TIMEOUT, connect, send
from .test_bot_sockets import bot

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 3
OTHER_CELL = re.compile(r'<[^>]*\bid="cell-(\d+)-(\d+)-(\d+)"[^>]*>([^<]*)')
VERSION = re.compile(r'id="game-meta"[^>]*data-game="(\d+)" data-version="(\d+)"')


class Screen:
    """A socket and every frame it received, with when."""

    def __init__(self, socket, seat: int | None):
        self.socket, self.seat = socket, seat
        self.frames: list[tuple[float, str]] = []
        self.read = 0
        """Frames up to here were looked at by `until`; `mark` lets a later `until` look again."""

    def mark(self) -> None:
        self.mark_at = len(self.frames)

    async def until(self, pattern: str, since_mark: bool = False) -> str:
        """The first frame matching `pattern` after the last one `until` returned (or, with
        `since_mark`, received after `mark`), waiting for more as needed."""
        start = self.mark_at if since_mark else self.read
        for index in range(start, len(self.frames)):
            if re.search(pattern, self.frames[index][1]):
                self.read = max(self.read, index + 1)
                return self.frames[index][1]
        while True:
            text = await self.socket.receive_from(timeout=TIMEOUT)
            self.frames.append((time.monotonic(), text))
            if re.search(pattern, text):
                self.read = len(self.frames)
                return text


STILL_RACING = re.compile(r'data-phase="(countdown|racing)"')
OVER = re.compile(r'data-phase="over"')


def _out(screen: Screen, frame: str) -> bool:
    """Whether this frame tells its racer they no longer race (out, finished, the race over)."""
    own = re.search(rf'id="status-{screen.seat}"[^>]*data-standing="([\w-]+)"', frame)
    return bool(OVER.search(frame)) or (own is not None and own[1] != "racing")


def assert_no_leak(screen: Screen) -> None:
    """No frame carries a rival's cell while its racer races; afterwards the boards come."""
    racing, seen_progress, seen_after = False, False, False
    for _, frame in screen.frames:
        if STILL_RACING.search(frame):
            racing = True
        if racing and _out(screen, frame):
            racing = False
        if racing:
            assert not OTHER_CELL.search(frame), OTHER_CELL.search(frame)
            assert 'data-view="full"' not in frame
            for state in ("mine", "flagged", "exploded", "wrong-flag", "revealed"):
                for tag in re.findall(rf'<[^>]*data-state="{state}"[^>]*>', frame):
                    assert re.search(r'\bid="cell-\d+-\d+"', tag), f"{state} elsewhere: {tag}"
        rivals = rf'id="status-(?!{screen.seat}")\d+"[^>]*data-progress="[1-9]'
        seen_progress = seen_progress or (racing and bool(re.search(rivals, frame)))
        seen_after = seen_after or (not racing and bool(OTHER_CELL.search(frame)))
    assert seen_progress  # the scan saw the rivals' progress while racing
    assert seen_after  # and their boards once out or over


def assert_no_json_leak(events: list[dict], moved: set[tuple[int, int]]) -> None:
    """A racer's bot gets cells only for its own seat's moves, and no other board."""
    assert any(e["type"] == "move" for e in events)
    for event in events:
        if event["type"] == "move" and event["cells"]:
            assert (event["number"], event["version"]) in moved, event
        if event["type"] == "snapshot":
            assert set(event) >= {"board", "race"} and "boards" not in event


def _race(room: Room) -> engine.Race:
    return rules.load(Room.objects.get(pk=room.pk).current_game().state)


async def _play(
    room: Room,
    racers: list[Screen],
    rng: random.Random,
    sent: dict[tuple[int, int], float],
    movers: dict[tuple[int, int], int],
) -> None:
    """Moves until the race is over: mostly safe reveals, some flags, one mine per racer."""
    hit: set[int] = set()
    for _ in range(400):
        race = await sync_to_async(_race)(room)
        if race.is_over:
            return
        assert race.field is not None
        moved = False
        for screen in racers:
            assert screen.seat is not None
            racer = race.racer(screen.seat)
            if racer is None or not racer.is_racing or racer.frozen(rules.now_ms()):
                continue
            grid = race.grid
            hidden = [
                c
                for c in range(grid.size)
                if c not in racer.board.revealed and c not in racer.board.flags
            ]
            safe = [c for c in hidden if c not in race.field.mines]
            mines = [c for c in hidden if c in race.field.mines]
            roll = rng.random()
            if screen.seat not in hit and mines and roll < 0.15:
                hit.add(screen.seat)
                action, cell = "reveal", rng.choice(mines)
            elif mines and roll < 0.3:
                action, cell = "flag", rng.choice(mines)
            else:
                action, cell = "reveal", rng.choice(safe)
            x, y = grid.xy(cell)
            started = time.monotonic()
            await send(screen.socket, action=action, x=x, y=y)
            echo = await screen.until(rf'id="cell-{x}-{y}"|id="room-error"[^>]*><span')
            version = VERSION.search(echo)
            if version is not None:
                sent[(int(version[1]), int(version[2]))] = started
                movers[(int(version[1]), int(version[2]))] = screen.seat
            moved = True
            race = await sync_to_async(_race)(room)
        if not moved:
            await racers[0].until(r"data-version")  # everyone frozen: wait for the clock
    pytest.fail("the race did not end")


async def _whole_race(
    room: Room,
    host: Screen,
    racers: list[Screen],
    watcher: Screen,
    seed: int,
    movers: dict[tuple[int, int], int],
) -> dict[tuple[int, int], float]:
    sent: dict[tuple[int, int], float] = {}
    for screen in [*racers, watcher]:
        screen.mark()
    await send(host.socket, action="start")
    for screen in racers:
        await screen.until('data-phase="countdown"')
    for screen in racers:
        await screen.until('data-phase="racing"')  # Go, from the clock
    await _play(room, racers, random.Random(seed), sent, movers)
    for screen in [*racers, watcher]:
        await screen.until(r'id="results"[^>]*>\s*<h2', since_mark=True)
    return sent


@override_settings(RACE_COUNTDOWN_SECONDS=0.5)  # the clock is real; the 3 s wait adds nothing
async def test_whole_races_leak_nothing_to_racers_and_spectators_trail_by_the_delay():
    settings = rules.validate_settings(9, 9, 10, True, penalty=3, spectator_delay=DELAY)
    room = await sync_to_async(joining.create_room)("race", settings)
    players = [await sync_to_async(joining.join_room)(room, name) for name in ("Ana", "Bo", "Cy")]
    racers = [Screen(await connect(room, p), p.number) for p in players]
    ana_bot = await bot(room, players[0].token)  # Ana's seat, as a bot reads it
    asked = time.monotonic()
    watcher = Screen(await connect(room, watch=True), None)
    assert time.monotonic() - asked >= DELAY  # the snapshot too comes late
    movers: dict[tuple[int, int], int] = {}
    sent = await _whole_race(room, racers[0], racers, watcher, seed=1, movers=movers)
    # The rematch: a new race on a new seed, this time a mine puts a racer out.
    await send(racers[1].socket, action="new_game")
    for screen in racers:
        await screen.until('data-phase="lobby"')
    game = await sync_to_async(lambda: Room.objects.get(pk=room.pk).current_game())()
    game.params = {**game.params, "eliminate": True}
    game.state = rules.initial_state(game.params, game.seed)
    await sync_to_async(game.save)(update_fields=["params", "state"])
    sent.update(await _whole_race(room, racers[0], racers, watcher, seed=2, movers=movers))
    for screen in racers:
        assert_no_leak(screen)
    events = []
    while not await ana_bot.receive_nothing(timeout=0.5):
        events.append(json.loads(await ana_bot.receive_from()))
    assert_no_json_leak(events, {v for v, seat in movers.items() if seat == players[0].number})
    # Spectators: every move's frame came no earlier than the delay after the move was sent.
    arrivals: dict[int, float] = {}
    for at, frame in watcher.frames:
        version = VERSION.search(frame)
        if version is not None:
            arrivals.setdefault((int(version[1]), int(version[2])), at)
    checked = 0
    for version, started in sent.items():
        if version in arrivals:
            assert arrivals[version] - started >= DELAY, version
            checked += 1
    assert checked >= 10
    assert any(
        re.search(
            r'id="cell-\d+-\d+-\d+" data-x="\d+" data-y="\d+" data-state="revealed" data-count', f
        )
        for _, f in watcher.frames
    )
    for screen in [*racers, watcher]:
        await screen.socket.disconnect()
    await ana_bot.disconnect()
