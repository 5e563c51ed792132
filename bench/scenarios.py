"""The measured scenarios: latency to every screen, throughput across rooms, bytes on the wire,
memory per connection. Each takes a running `Server` and returns plain figures."""

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from . import procs
from .clients import (
    Board,
    Client,
    Tracker,
    cells_in,
    close_all,
    connect_all,
    first_cell,
    gather_limited,
    join,
    percentiles,
    source,
    version_of,
)

PRESETS = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (30, 16, 99),
    "custom 50x50": (50, 50, 500),
}


@dataclass
class Room:
    index: int
    code: str
    width: int
    height: int
    players: list[Client] = field(default_factory=list)
    spectators: list[Client] = field(default_factory=list)
    board: Board | None = None

    @property
    def clients(self) -> list[Client]:
        return self.players + self.spectators


def size_spec(preset: str) -> dict[str, int]:
    width, height, mines = PRESETS[preset]
    return {"width": width, "height": height, "mines": mines}


async def make_rooms(
    server: procs.Server,
    specs: list[dict[str, int]],
    players: int,
    spectators: int,
    port_of: Callable[[int, int], int],
) -> list[Room]:
    """Rooms in the database, players joined through the pages (a session each), every
    socket open and its snapshot read. `port_of(room, seat)` picks the process of each tab;
    spectators take seats after the players."""
    codes = await asyncio.to_thread(procs.django_side, server.shape, "rooms", specs)
    rooms = [
        Room(index, code, spec["width"], spec["height"])
        for index, (code, spec) in enumerate(zip(codes, specs, strict=True))
    ]

    async def seat_players(room: Room) -> None:
        # One after another: concurrent joins of one room collide on the seat number (see
        # docs/performance.md), and browsers rarely join the same second.
        for seat in range(players):
            port, name = port_of(room.index, seat), f"r{room.index}p{seat}"
            cookie = await join(port, room.code, name)
            room.players.append(Client(room.index, room.code, port, cookie, name))

    await gather_limited((seat_players(room) for room in rooms), 4)
    for room in rooms:
        room.spectators = [
            Client(room.index, room.code, port_of(room.index, players + n))
            for n in range(spectators)
        ]
    await connect_all([c for room in rooms for c in room.clients])
    await asyncio.sleep(0.5)  # let the presence broadcasts of the last connections settle
    return rooms


class Matcher:
    """Routes each move fragment to the tracker under a key: (room, version) while one player
    moves per room, (room, x, y) when several do (every bench move changes exactly one cell)."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        self.by_cell = False
        self.sizes: dict[tuple[int, int], tuple[int, int]] = {}
        self.keep_sizes = False

    def __call__(self, client: Client, message: str, now: float) -> None:
        if self.by_cell:
            cell = first_cell(message)
            if cell is not None:
                self.tracker.arrived((client.room, *cell), now)
            return
        version = version_of(message)
        if self.keep_sizes:
            self.sizes[(client.room, version)] = (len(message.encode()), cells_in(message))
        self.tracker.arrived((client.room, version), now)


async def latency(
    server: procs.Server,
    clients: int,
    rate: float = 20.0,
    seconds: float = 12.0,
    preset: str = "expert",
    during: Callable[[int], object] | None = None,
) -> dict[str, object]:
    """One room, `clients` tabs (a tenth of them players, at least two), one player moving at
    `rate`; the time from sending a move to its fragment on every screen."""
    players = max(2, clients // 10)
    ports = server.ports

    def port_of(room: int, seat: int) -> int:
        return ports[seat % len(ports)]  # the mover on the first process, the rest alternate

    tracker = Tracker()
    matcher = Matcher(tracker)
    (room,) = await make_rooms(server, [size_spec(preset)], players, clients - players, port_of)
    for client in room.clients:
        client.listen(matcher)
    try:
        await start_games(server, [room], tracker)
        busy = await procs.wait_quiet()
        if during is not None:
            during(0)
        figures = await steady_moves(server, room, tracker, rate, seconds)
        figures["busy_before_pct"] = busy
    finally:
        await close_all(room.clients)
    return {
        "clients": clients,
        "players": players,
        "spectators": clients - players,
        "processes": len(ports),
        "rate": rate,
        "preset": preset,
        **figures,
    }


async def watched_expert_room(
    server: procs.Server, players: int, spectators: int
) -> tuple[Room, Tracker]:
    """One expert room on the server's first port, every screen's messages matched to the
    moves: the room of the benches that time moves beside something else a room does (chat,
    pings), each run on a fresh one."""
    port = server.ports[0]
    tracker = Tracker()
    matcher = Matcher(tracker)
    (room,) = await make_rooms(
        server, [size_spec("expert")], players, spectators, lambda r, s: port
    )
    for client in room.clients:
        client.listen(matcher)
    return room, tracker


async def start_games(server: procs.Server, rooms: list[Room], tracker: Tracker) -> None:
    """The first reveal (in the centre) places the mines; then learn each board."""
    for room in rooms:
        tracker.sent((room.index, 1), len(room.clients), phase=-1)
        await room.players[0].send("reveal", room.width // 2, room.height // 2)
    await tracker.drain(-1, timeout=30)
    if tracker.drop(-1):
        raise RuntimeError("some first reveals never reached every screen")
    states = await asyncio.to_thread(
        procs.django_side, server.shape, "boards", [r.code for r in rooms]
    )
    for room in rooms:
        room.board = Board.from_state(states[room.code])


async def steady_moves(
    server: procs.Server, room: Room, tracker: Tracker, rate: float, seconds: float
) -> dict[str, object]:
    assert room.board is not None
    mover = room.players[0]
    rng = random.Random(7)
    version = 1
    count = int(rate * seconds)
    meter = procs.CpuMeter(server.pids).start()
    started = time.perf_counter()
    for k in range(count):
        delay = started + k / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        action, x, y = room.board.choose(rng)
        version += 1
        tracker.sent((room.index, version), len(room.clients))
        await mover.send(action, x, y)
    await tracker.drain(0, timeout=5)
    cpu = meter.stop()
    lost = tracker.drop(0)
    return {
        **percentiles(tracker.samples.get(0, [])),
        "lost": lost,
        "errors": sum(c.errors for c in room.clients),
        "gaps": sum(c.gaps for c in room.clients),
        "stale": sum(c.stale for c in room.clients),
        "server_cpu_ms_per_move": round(1e3 * cpu["server_cpu_s"] / max(1, count), 2),
        **cpu,
    }


async def throughput(
    server: procs.Server,
    rooms: int = 100,
    players: int = 2,
    steps: tuple[int, ...] = (100, 200, 300, 400, 500, 600, 800, 1000),
    seconds: float = 6.0,
    limit_ms: float = 100.0,
    preset: str = "expert",
    deadline: float = float("inf"),
    during: Callable[[int], object] | None = None,
) -> dict[str, object]:
    """`rooms` rooms of `players` players, every player making random valid moves; the offered
    load rises step by step until the p99 to every screen passes `limit_ms` (or moves get lost).
    """
    ports = server.ports

    def port_of(room: int, seat: int) -> int:
        return ports[(room + seat) % len(ports)]  # every room spans both processes

    tracker = Tracker()
    matcher = Matcher(tracker)
    started = time.perf_counter()
    all_rooms = await make_rooms(server, [size_spec(preset)] * rooms, players, 0, port_of)
    clients = [c for room in all_rooms for c in room.clients]
    for client in clients:
        client.listen(matcher)
    results = []
    try:
        await start_games(server, all_rooms, tracker)
        setup = time.perf_counter() - started
        matcher.by_cell = True
        busy = await procs.wait_quiet()
        for phase, offered in enumerate(steps):
            if time.perf_counter() + seconds > deadline:
                break
            busy = await procs.wait_quiet(max_wait=2.0)
            step = await load_step(server, all_rooms, tracker, phase, offered, seconds, during)
            step["busy_before_pct"] = busy
            results.append(step)
            if step.get("p99_ms", 1e9) > limit_ms or step["lost"] > 0.01 * step["sent"]:
                break
            await asyncio.sleep(0.5)
    finally:
        await close_all(clients)
    passed = [s for s in results if s.get("p99_ms", 1e9) <= limit_ms and s["lost"] == 0]
    best = max(passed, key=lambda s: s["achieved"], default=None)
    return {
        "rooms": rooms,
        "players": players,
        "processes": len(ports),
        "preset": preset,
        "setup_s": round(setup, 1),
        "busy_before_pct": busy,
        "limit_ms": limit_ms,
        "steps": results,
        "sustained_moves_per_s": best["achieved"] if best else 0,
        "at_offered": best["offered"] if best else 0,
    }


async def load_step(
    server: procs.Server,
    rooms: list[Room],
    tracker: Tracker,
    phase: int,
    offered: float,
    seconds: float,
    during: Callable[[int], object] | None,
) -> dict[str, object]:
    seats = [(room, seat) for room in rooms for seat in range(len(room.players))]
    interval = len(seats) / offered
    rng = random.Random(phase)
    sent = [0]
    everyone = [c for room in rooms for c in room.clients]

    def totals() -> tuple[int, int, int]:
        return (
            sum(c.errors for c in everyone),
            sum(c.gaps for c in everyone),
            sum(c.stale for c in everyone),
        )

    before = totals()
    meter = procs.CpuMeter(server.pids).start()
    started = time.perf_counter()
    end = started + seconds

    async def play(room: Room, seat: int, offset: float) -> None:
        assert room.board is not None
        player = room.players[seat]
        owners = len(room.players)
        width = room.board.width

        def cell_busy(cell: int) -> bool:
            return (room.index, cell % width, cell // width) in tracker.pending

        k = 0
        while True:
            due = started + offset + k * interval
            if due >= end:
                return
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            action, x, y = room.board.choose(rng, seat, owners, cell_busy)
            tracker.sent((room.index, x, y), len(room.clients), phase)
            sent[0] += 1
            await player.send(action, x, y)
            k += 1

    if during is not None:
        during(phase)
    # Seats start evenly spread over one interval (in a shuffled order), so the step sends
    # exactly `offered` moves a second; random starts made it 1-2 % more or less.
    starts = [n * interval / len(seats) for n in range(len(seats))]
    rng.shuffle(starts)
    await asyncio.gather(*(play(r, s, start) for (r, s), start in zip(seats, starts, strict=True)))
    await tracker.drain(phase, timeout=3)
    cpu = meter.stop()
    lost = tracker.drop(phase)
    samples = tracker.samples.get(phase, [])
    errors, gaps, stale = (after - first for after, first in zip(totals(), before, strict=True))
    return {
        "offered": offered,
        "sent": sent[0],
        "achieved": round(len(samples) / seconds, 1),
        **percentiles(samples),
        "lost": lost,
        "errors": errors,
        "gaps": gaps,
        "stale": stale,
        "server_cpu_ms_per_move": round(1e3 * cpu["server_cpu_s"] / max(1, sent[0]), 2),
        **cpu,
    }


async def payload(server: procs.Server) -> dict[str, object]:
    """Bytes of each kind of move's message against the cells it changed, and snapshots."""
    port = server.ports[0]
    moves: list[dict[str, object]] = []
    snapshots: list[dict[str, object]] = []
    for preset in PRESETS:
        moves += await payload_room(server, port, preset, snapshots)
    for label, spec in (
        ("big cascade 30x16/10", {"width": 30, "height": 16, "mines": 10}),
        ("big cascade 50x50/10", {"width": 50, "height": 50, "mines": 10}),
    ):
        moves += await cascade_only(server, port, label, spec)
    return {"moves": moves, "snapshots": snapshots}


async def payload_room(
    server: procs.Server, port: int, preset: str, snapshots: list[dict[str, object]]
) -> list[dict[str, object]]:
    tracker = Tracker()
    matcher = Matcher(tracker)
    matcher.keep_sizes = True
    (room,) = await make_rooms(server, [size_spec(preset)], 1, 1, lambda r, s: port)
    for client in room.clients:
        client.listen(matcher)
    spectator = room.spectators[0]
    snapshots.append({"preset": preset, "when": "new game", "bytes": spectator.snapshot_bytes})
    player = room.players[0]
    rows = []
    version = [0]

    async def move(label: str, action: str, cell: int, record: bool = True) -> None:
        assert room.board is not None or action == "reveal"
        width = room.board.width if room.board else PRESETS[preset][0]
        version[0] += 1
        tracker.sent((room.index, version[0]), 2)
        await player.send(action, cell % width, cell // width)
        await tracker.drain(timeout=10)
        size, cells = matcher.sizes[(room.index, version[0])]
        if record:
            rows.append({"preset": preset, "move": label, "cells": cells, "bytes": size})

    try:
        width, height, _ = PRESETS[preset]
        await move("first reveal (cascade)", "reveal", (height // 2) * width + width // 2)
        states = await asyncio.to_thread(procs.django_side, server.shape, "boards", [room.code])
        board = room.board = Board.from_state(states[room.code])
        hidden = sorted(board.hidden)
        await move("flag", "flag", hidden[0])
        await move("unflag", "flag", hidden[0], record=False)
        numbered = [c for c in hidden if c not in board.mines and board.count(c) > 0]
        await move("reveal one cell", "reveal", numbered[0])
        board.hidden.discard(numbered[0])
        late = await Client(room.index, room.code, port).connect()
        snapshots.append({"preset": preset, "when": "mid-game", "bytes": late.snapshot_bytes})
        await late.close()
        chord = chord_target(board)
        if chord is not None:
            centre, mines = chord
            for mine in mines:
                await move("flag", "flag", mine, record=False)
            await move("chord", "chord", centre)
        mine = sorted(board.mines - board.flags)[0]
        await move("loss (reveal a mine)", "reveal", mine)
    finally:
        await close_all(room.clients)
    return rows


def chord_target(board: Board) -> tuple[int, list[int]] | None:
    """A revealed number with covered safe neighbours: flag its mines, then chord it."""
    for cell in range(board.width * board.height):
        if cell in board.hidden or cell in board.mines or board.count(cell) == 0:
            continue
        around = neighbours(board, cell)
        mines = [c for c in around if c in board.mines]
        safe_hidden = [c for c in around if c in board.hidden and c not in board.mines]
        if safe_hidden and all(c not in board.flags for c in around):
            board.flags.update(mines)
            return cell, mines
    return None


def neighbours(board: Board, cell: int) -> list[int]:
    x, y = cell % board.width, cell // board.width
    return [
        (x + dx) + (y + dy) * board.width
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < board.width and 0 <= y + dy < board.height
    ]


async def cascade_only(
    server: procs.Server, port: int, label: str, spec: dict[str, int]
) -> list[dict[str, object]]:
    tracker = Tracker()
    matcher = Matcher(tracker)
    matcher.keep_sizes = True
    (room,) = await make_rooms(server, [spec], 1, 1, lambda r, s: port)
    for client in room.clients:
        client.listen(matcher)
    try:
        tracker.sent((room.index, 1), 2)
        await room.players[0].send("reveal", spec["width"] // 2, spec["height"] // 2)
        await tracker.drain(timeout=10)
        size, cells = matcher.sizes[(room.index, 1)]
    finally:
        await close_all(room.clients)
    return [{"preset": label, "move": "first reveal (cascade)", "cells": cells, "bytes": size}]


async def memory(
    server: procs.Server, counts: tuple[int, ...] = (100, 1000), per_room: int = 10
) -> dict[str, object]:
    """Resident memory of the Daphne processes per idle connection: rooms of one player and
    spectators; the growth over the idle baseline, divided by the connections."""
    ports = server.ports
    rooms_needed = max(counts) // per_room

    def port_of(room: int, seat: int) -> int:
        return ports[(room + seat) % len(ports)]

    codes = await asyncio.to_thread(
        procs.django_side, server.shape, "rooms", [size_spec("intermediate")] * rooms_needed
    )
    cookies = await gather_limited(
        (join(port_of(i, 0), code, f"m{i}") for i, code in enumerate(codes)), 4
    )
    tabs = []
    for index, code in enumerate(codes):
        tabs.append(Client(index, code, port_of(index, 0), cookies[index], f"m{index}"))
        tabs += [  # watchers from many addresses, as a crowd's are (200 sockets per address)
            Client(index, code, port_of(index, s), source=source(len(tabs) + s))
            for s in range(1, per_room)
        ]
    await asyncio.sleep(1.0)
    baseline = sum(server.rss())
    points = []
    opened = 0
    try:
        for count in sorted(counts):
            started = time.perf_counter()
            await connect_all(tabs[opened:count], limit=25)
            took = time.perf_counter() - started
            opened = count
            await asyncio.sleep(2.0)
            rss = sum(server.rss())
            points.append(
                {
                    "connections": count,
                    "rss_mb": round(rss / 2**20, 1),
                    "kb_per_connection": round((rss - baseline) / count / 1024, 1),
                    "connect_s": round(took, 2),
                }
            )
    finally:
        await close_all(tabs[:opened])
    await asyncio.sleep(2.0)
    return {
        "baseline_mb": round(baseline / 2**20, 1),
        "after_close_mb": round(sum(server.rss()) / 2**20, 1),
        "per_room": per_room,
        "points": points,
    }


async def race(
    server: procs.Server,
    racers: int = 8,
    spectators: int = 20,
    rate: float = 20.0,
    seconds: float = 10.0,
    preset: str = "expert",
    delay: int = 0,
) -> dict[str, object]:
    """One race room (issue 15): `racers` racers joined through the pages and `spectators`
    watching, the racers taking turns to move on their own boards at `rate` moves a second in
    all; the time from sending a move to its text on every screen (the mover's own board, the
    other racers' progress-only view, the spectators' full view), split by audience. Spectators
    watch live (`delay` 0) unless asked: a delay adds exactly itself, by design."""
    width, height, mines = PRESETS[preset]
    spec = {"width": width, "height": height, "mines": mines, "delay": delay}
    ports = server.ports
    (code,) = await asyncio.to_thread(procs.django_side, server.shape, "races", [spec])
    room = Room(0, code, width, height)
    for seat in range(racers):
        port = ports[seat % len(ports)]
        cookie = await join(port, code, f"racer{seat}")
        room.players.append(Client(0, code, port, cookie, f"racer{seat}"))
    room.spectators = [Client(0, code, ports[(racers + n) % len(ports)]) for n in range(spectators)]
    await connect_all(room.clients)
    trackers = {"all": Tracker(), "racers": Tracker(), "spectators": Tracker()}

    racing: set[int] = set()

    def on_move(client: Client, message: str, now: float) -> None:
        if 'data-phase="racing"' in message:
            racing.add(id(client))
        key = (0, version_of(message))
        trackers["all"].arrived(key, now)
        trackers["racers" if client.is_player else "spectators"].arrived(key, now)

    for client in room.clients:
        client.listen(on_move)
    try:
        await room.players[0].send_json({"action": "start"})
        deadline = time.perf_counter() + 30
        while len(racing) < len(room.clients):  # the start, then Go 3 s later
            if time.perf_counter() > deadline:
                raise RuntimeError("the race never reached Go on every screen")
            await asyncio.sleep(0.05)
        states = await asyncio.to_thread(procs.django_side, server.shape, "race_boards", [code])
        boards = [Board.from_state(states[str(seat)]) for seat in range(racers)]
        busy = await procs.wait_quiet()
        figures = await _race_moves(server, room, boards, trackers, rate, seconds)
    finally:
        await close_all(room.clients)
    return {
        "racers": racers,
        "spectators": spectators,
        "processes": len(ports),
        "rate": rate,
        "preset": preset,
        "spectator_delay": delay,
        "busy_before_pct": busy,
        **figures,
    }


async def _race_moves(
    server: procs.Server,
    room: Room,
    boards: list[Board],
    trackers: dict[str, Tracker],
    rate: float,
    seconds: float,
) -> dict[str, object]:
    rng = random.Random(7)
    version = max(c.version for c in room.clients)
    count = int(rate * seconds)
    racers = len(room.players)
    meter = procs.CpuMeter(server.pids).start()
    started = time.perf_counter()
    for k in range(count):
        delay = started + k / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        seat = k % racers
        action, x, y = boards[seat].choose(rng)
        version += 1
        at = time.perf_counter()
        trackers["all"].sent((0, version), len(room.clients), at=at)
        trackers["racers"].sent((0, version), racers, at=at)
        trackers["spectators"].sent((0, version), len(room.spectators), at=at)
        await room.players[seat].send(action, x, y)
    for tracker in trackers.values():
        await tracker.drain(0, timeout=5)
    cpu = meter.stop()
    out: dict[str, object] = {}
    for name, tracker in trackers.items():
        lost = tracker.drop(0)
        figures = percentiles(tracker.samples.get(0, []))
        out[name] = {**figures, "lost": lost}
    sample = next((c.last for c in room.clients if c.errors), "")
    return {
        **out,
        "error_sample": sample[:300],
        "errors": sum(c.errors for c in room.clients),
        "gaps": sum(c.gaps for c in room.clients),
        "stale": sum(c.stale for c in room.clients),
        "server_cpu_ms_per_move": round(1e3 * cpu["server_cpu_s"] / max(1, count), 2),
        **cpu,
    }
