"""A featured game draws a crowd (issue 28): 2,000 spectators on one room, production shape.

    python -m bench.crowd [--spectators 2000] [--seconds 40] [--ports 9640-9641]
    python -m bench --only crowd

Two Daphnes, PostgreSQL and Redis (the pub/sub layer), as the production section starts them.
One public expert room, the home page's "On now": 4 players who joined through the pages, two
on each process, each moving once a second (4 moves a second in all, spread evenly, each move
on cells of its own so every move changes exactly one cell), and the spectators split evenly
over both processes. Printed:

- move → the last of the room's screens (every spectator and player) showing it: p50 / p95 /
  p99 / max, against the target p99 ≤ 250 ms;
- memory per spectator socket: the Daphnes' resident memory after the crowd connected, less
  before (players and 10 spectators connected), over the sockets added; target ≤ 30 KB;
- the home page's "On now" cost per view with 10 and with the whole crowd watching: the time of
  a `GET /` over HTTP (p50 of 40, alternating processes) and the database queries a view makes
  when its process reads the pick afresh and when it reuses it (`bench.djangoside home_cost`).

The spectators look like clients behind the production proxy: each handshake carries an
`X-Forwarded-For` from 198.18.0.0/15 (the benchmarking range), 50 sockets per address, which
Daphne's `--proxy-headers` (as the Dockerfile and compose run it) reads as the client address;
the per-address socket cap (200 per process) is not raised. Everything is on 127.0.0.1, the
client is one asyncio process (picows: frames parsed in C), the moves are bounded by
`--seconds`, and the Daphnes die with the bench.
"""

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from . import procs
from .clients import (
    Client,
    Tracker,
    close_all,
    first_cell,
    gather_limited,
    http,
    join,
    percentiles,
    source,
)
from .scenarios import Matcher, Room, load_step, size_spec, start_games

PLAYERS = 4
MOVES_PER_SECOND = 4.0
"""Four players at one move a second each."""
FEW = 10
HOME_VIEWS = 40
TARGET_P99_MS = 250.0
TARGET_KB_PER_SOCKET = 30.0
WATCHING = re.compile(r'class="on-now-watching">(\d+) watching')


class ByProcess(Tracker):
    """The room's tracker, and two beside it: a move's time to the last screen on the mover's
    Daphne, and on the other one (which hears it through Redis), so the two show apart. A bench
    move changes one cell, owned by seat `cell % players` (`Board.choose`), so the cell names
    the move and its mover on every screen."""

    def __init__(self, room: Room) -> None:
        super().__init__()
        self.room = room
        self.sides = {"mover's process": Tracker(), "the other process": Tracker()}
        self.mover_port: dict[object, int] = {}

    def sent(self, key, screens, phase=0, at=None) -> None:  # type: ignore[no-untyped-def]
        super().sent(key, screens, phase, at)
        _, x, y = key
        mover = self.room.players[(x + y * self.room.width) % len(self.room.players)].port
        self.mover_port[key] = mover
        here = sum(1 for c in self.room.clients if c.port == mover)
        when = self.pending[key].sent
        self.sides["mover's process"].sent(key, here, phase, when)
        self.sides["the other process"].sent(key, len(self.room.clients) - here, phase, when)

    def screen(self, client: Client, message: str, now: float) -> None:
        cell = first_cell(message)
        if cell is None:
            return
        key = (client.room, *cell)
        self.arrived(key, now)
        side = "mover's process" if self.mover_port.get(key) == client.port else "the other process"
        self.sides[side].arrived(key, now)

    def split(self, phase: int) -> dict[str, object]:
        return {
            side: {k: v for k, v in percentiles(t.samples.get(phase, [])).items() if k != "moves"}
            for side, t in self.sides.items()
        }


async def home_cost(server: procs.Server, code: str) -> dict[str, object]:
    """`GET /` over HTTP, timed, alternating processes; and the queries one view makes."""
    times = []
    watching = None
    for n in range(HOME_VIEWS):
        port = server.ports[n % len(server.ports)]
        started = time.perf_counter()
        page = await http("GET", port, "/")
        times.append(time.perf_counter() - started)
        if page.status != 200 or f"/r/{code}/watch/" not in page.body:
            raise RuntimeError(f"the home page does not feature the room (HTTP {page.status})")
        found = WATCHING.search(page.body)
        watching = int(found.group(1)) if found else None
    queries = await asyncio.to_thread(procs.django_side, server.shape, "home_cost", code)
    return {
        "watching_shown": watching,
        "http_p50_ms": round(statistics.median(times) * 1e3, 2),
        "http_mean_ms": round(statistics.fmean(times) * 1e3, 2),
        **queries,
    }


async def settled_rss(server: procs.Server) -> int:
    await asyncio.sleep(3.0)
    return sum(server.rss())


async def crowd(
    server: procs.Server, spectators: int, seconds: float, preset: str = "expert"
) -> dict[str, object]:
    spec = size_spec(preset)
    (code,) = await asyncio.to_thread(procs.django_side, server.shape, "rooms", [spec])
    await asyncio.to_thread(procs.django_side, server.shape, "publish", [code])
    room = Room(0, code, spec["width"], spec["height"])
    ports = server.ports
    for seat in range(PLAYERS):  # one after another, as make_rooms seats them
        port, name = ports[seat % len(ports)], f"player{seat}"
        room.players.append(Client(0, code, port, await join(port, code, name), name))
    tabs = [Client(0, code, ports[n % len(ports)], source=source(n)) for n in range(spectators)]
    room.spectators, rest = tabs[:FEW], tabs[FEW:]  # a room's clients: those connected
    tracker = Tracker()
    matcher = Matcher(tracker)
    await gather_limited((c.connect() for c in room.clients), 25)
    for client in room.clients:
        client.listen(matcher)
    try:
        await start_games(server, [room], tracker)
        await asyncio.sleep(1.5)  # the spectator counts reach the database (rosters)
        few = await home_cost(server, code)
        print(json.dumps({"home, 10 watching": few}), flush=True)
        before = await settled_rss(server)
        parts_before = server.rss_parts()
        started = time.perf_counter()
        try:
            await gather_limited((c.connect() for c in rest), 50)
        finally:
            room.spectators += [c for c in rest if c.transport is not None]
        connect_s = time.perf_counter() - started
        for client in rest:
            client.listen(matcher)
        after = await settled_rss(server)
        parts_after = server.rss_parts()
        added = spectators - FEW
        memory = {
            "rss_before_mb": round(before / 2**20, 1),
            "rss_after_mb": round(after / 2**20, 1),
            "kb_per_spectator_socket": round((after - before) / added / 1024, 1),
            "connect_s": round(connect_s, 1),
            "snapshot_bytes": room.spectators[-1].snapshot_bytes,
            "growth_mb_by_kind": {
                kind: round(parts_after[kind] - parts_before[kind], 1) for kind in parts_after
            },
        }
        print(json.dumps({"memory": memory}), flush=True)
        many = await home_cost(server, code)
        print(json.dumps({f"home, {spectators} watching": many}), flush=True)
        split = ByProcess(room)  # four players move at once: each move is known by its cell
        for client in room.clients:
            client.screen.on_message = None  # listen again, to the split tracker
            client.listen(split.screen)
        busy = await procs.wait_quiet(max_wait=5.0)
        moves = await load_step(server, [room], split, 1, MOVES_PER_SECOND, seconds, None)
        moves["busy_before_pct"] = busy
        moves["by_process"] = split.split(1)
        print(json.dumps({"moves": moves}), flush=True)
    finally:
        await close_all(room.clients)
    return {
        "spectators": spectators,
        "players": PLAYERS,
        "moves_per_second": MOVES_PER_SECOND,
        "seconds": seconds,
        "processes": len(ports),
        "moves": moves,
        "memory": memory,
        "home": {"few": few, "many": many},
    }


def verdicts(result: dict[str, object]) -> list[str]:
    moves, memory, home = result["moves"], result["memory"], result["home"]
    p99 = moves.get("p99_ms", float("inf"))
    kb = memory["kb_per_spectator_socket"]
    few, many = home["few"], home["many"]
    return [
        f"Crowd: {result['spectators']} spectators over {result['processes']} Daphnes"
        f" (PostgreSQL, Redis pub/sub), {result['players']} players at"
        f" {result['moves_per_second']:g} moves/s for {result['seconds']:g} s",
        f"  move -> last screen: p50 {moves.get('p50_ms')} p95 {moves.get('p95_ms')}"
        f" p99 {p99} max {moves.get('max_ms')} ms over {moves.get('moves')} moves"
        f" (lost {moves.get('lost')}, gaps {moves.get('gaps')}, stale {moves.get('stale')});"
        f" target p99 <= {TARGET_P99_MS:g} ms: {'met' if p99 <= TARGET_P99_MS else 'MISSED'}",
        "  the last screen on "
        + "; on ".join(
            f"{side}: p50 {f.get('p50_ms')} p99 {f.get('p99_ms')} ms"
            for side, f in moves.get("by_process", {}).items()
        ),
        f"  Daphne CPU {moves.get('server_cpu_pct')} % of a core,"
        f" {moves.get('server_cpu_ms_per_move')} ms per move; client {moves.get('client_cpu_pct')} %;"
        f" other work on the machine {moves.get('other_cpu_pct')} % (of 100 x cores)",
        f"  memory per spectator socket: {kb} KB ({memory['rss_before_mb']} -> "
        f"{memory['rss_after_mb']} MB, connected in {memory['connect_s']} s);"
        f" target <= {TARGET_KB_PER_SOCKET:g} KB: {'met' if kb <= TARGET_KB_PER_SOCKET else 'MISSED'}",
        f"  home page, {few['watching_shown']} watching: {few['http_p50_ms']} ms p50,"
        f" {few['queries_fresh']} queries (pick read afresh) / {few['queries_kept']} (kept);"
        f" {many['watching_shown']} watching: {many['http_p50_ms']} ms,"
        f" {many['queries_fresh']} / {many['queries_kept']} queries",
    ]


async def run(
    spectators: int, seconds: float, ports: str | None = None, preset: str = "expert"
) -> dict[str, object]:
    if ports:
        procs.PORTS = ports
    workdir = Path(tempfile.mkdtemp(prefix="crowd-"))
    shape = procs.production(workdir)
    procs.prepare(shape)
    server = procs.Server(shape, workdir).start()
    try:
        return await crowd(server, spectators, seconds, preset)
    finally:
        server.stop()


def main() -> None:
    from .__main__ import raise_fd_limit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--ports", default=None, help="first-last, e.g. 9640-9641")
    parser.add_argument(
        "--preset", default="expert", choices=("beginner", "intermediate", "expert")
    )
    parser.add_argument("--priority", action="store_true", help="nice -10 (root only)")
    args = parser.parse_args()
    if args.priority:  # as `python -m bench --priority`: the Daphnes inherit it
        os.nice(-10)
    raise_fd_limit(3 * args.spectators + 1024)
    try:
        result = asyncio.run(run(args.spectators, args.seconds, args.ports, args.preset))
    finally:
        procs.stop_all()
    print("\n".join(verdicts(result)))


if __name__ == "__main__":
    main()
