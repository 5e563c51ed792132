"""Tokenless sockets flooding Daphne with ping frames, another room's moves timed (issue 33,
item 1).

    python -m bench.ping_flood [--shape embedded|production] [--sockets 4] [--seconds 10]
                               [--attack-seconds 10] [--writes 50]

One embedded Daphne (SQLite, in-memory layer: `make run`), or production's two (PostgreSQL,
Redis; the attack aims at the first, where room A's player is too). Room A: an expert board, one
player moving at 20 moves a second, timed from send to screen. Room B: a beginner board that
`--sockets` tokenless spectator sockets, all from one address behind the proxy
(`X-Forwarded-For`), send masked ping frames to, 200 per write, `--writes` writes a second each
(the review's attack, issue 33). They read what comes back (pongs, the snapshot); a socket
the server closes is opened again at once, as an attacker would, and one the server stops
reading is not written more until it does. Prints room A's move p50/p99 and the attacked
Daphne's CPU before (`--seconds`) and during the flood (`--attack-seconds`), the pings sent and
the closes seen (by code). The attacker is a process of its own, so its work does not delay
room A's client. 127.0.0.1 only, bounded (about the two phases plus 30 s); the Daphnes die with the bench.
"""

import argparse
import asyncio
import json
import multiprocessing
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from . import procs
from .clients import Tracker, percentiles
from .hint_pressure import moves
from .scenarios import Matcher, make_rooms, size_spec, start_games
from .slow_readers import SHAPES, non_reading_socket

PINGS_PER_WRITE = 200
ATTACKER = "198.51.100.7"
"""The attacking sockets' address (`X-Forwarded-For`; a documentation range): apart from room
A's player, so only what the flood costs the server is measured, not what an address budget
shared with the attacker would refuse the player."""
PING = bytes([0x89, 0x80 | 4]) + b"\0\0\0\0" + b"ping"
"""A client's ping frame: masked (RFC 6455 clients must; a zero mask leaves the payload as is)."""


def closes_in(buffer: bytearray) -> list[int]:
    """The close codes of the server's close frames that `buffer` holds whole, which are taken
    off it with every whole frame before them (pongs, the snapshot)."""
    codes = []
    while len(buffer) >= 2:
        length, start = buffer[1] & 0x7F, 2
        if length == 126:
            length, start = int.from_bytes(buffer[2:4]), 4
        elif length == 127:
            length, start = int.from_bytes(buffer[2:10]), 10
        if len(buffer) < start + length:
            break
        if buffer[0] & 0x0F == 0x8:
            codes.append(int.from_bytes(buffer[start : start + 2]) if length >= 2 else 1005)
        del buffer[: start + length]
    return codes


def flood(port: int, code: str, count: int, writes: float, seconds: float, out) -> None:
    """`count` sockets send PINGS_PER_WRITE pings `writes` times a second each for `seconds`;
    a socket the server closed is replaced. A socket whose last write the server has not taken
    yet (its buffers full: the server is not reading) is not written more. Puts the figures on
    `out` (a process of its own)."""
    burst, sent, closes = PING * PINGS_PER_WRITE, 0, Counter()
    sockets: list[socket.socket | None] = [None] * count
    buffers = [bytearray() for _ in sockets]
    unsent = [b""] * count
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        turn = time.monotonic()
        for index, client in enumerate(sockets):
            try:
                if client is None:
                    client = sockets[index] = non_reading_socket(port, code, ATTACKER)
                    client.setblocking(False)  # past the handshake, nothing waits
                    buffers[index], unsent[index] = bytearray(), b""
                waiting = unsent[index] or burst
                taken = send_now(client, waiting)
                sent += taken
                unsent[index] = waiting[taken:]
                gone = drain(client, buffers[index], closes)
            except OSError:
                closes["reset"] += 1
                gone = True
            if gone and client is not None:
                client.close()
                sockets[index] = None
        time.sleep(max(0.0, 1 / writes - (time.monotonic() - turn)))
    for client in sockets:
        if client is not None:
            client.close()
    out.put({"pings_sent": sent // len(PING), "closes": dict(closes)})


def send_now(client: socket.socket, data: bytes) -> int:
    """Bytes of `data` the kernel took without waiting."""
    try:
        return client.send(data)
    except BlockingIOError:
        return 0


def drain(client: socket.socket, buffer: bytearray, closes: Counter) -> bool:
    """Read what the server sent so far; True once it closed (a close frame or end of stream)."""
    while True:
        try:
            chunk = client.recv(65536)
        except BlockingIOError:
            return False
        if not chunk:
            closes["no close frame"] += 1
            return True
        buffer += chunk
        codes = closes_in(buffer)
        if codes:
            closes.update(str(code) for code in codes)
            return True


async def run(
    shape_name: str, count: int, seconds: float, attack_seconds: float, writes: float
) -> dict[str, object]:
    workdir = Path(tempfile.mkdtemp(prefix="ping-flood-"))
    shape = procs.embedded(workdir) if shape_name == "embedded" else procs.production(workdir)
    procs.prepare(shape)
    server = procs.Server(shape, workdir).start()
    rooms = []
    try:
        port = server.ports[0]
        tracker = Tracker()
        (a,) = await make_rooms(server, [size_spec("expert")], 1, 0, lambda r, s: port)
        (b,) = await make_rooms(server, [size_spec("beginner")], 1, 0, lambda r, s: port)
        rooms = [a, b]
        b.index = 1
        for client in b.clients:
            client.room = 1
        matcher = Matcher(tracker)
        for client in a.clients + b.clients:
            client.listen(matcher)
        await start_games(server, rooms, tracker)
        load = await procs.wait_quiet()
        meter = procs.CpuMeter(server.pids[:1]).start()
        version = await moves(a, tracker, 1, seconds, phase=0)
        quiet_cpu, lost = meter.stop(), tracker.drop(0)

        spawn = multiprocessing.get_context("spawn")
        out = spawn.Queue()
        attacker = spawn.Process(
            target=flood, args=(port, b.code, count, writes, attack_seconds + 2.0, out)
        )
        attacker.start()
        await asyncio.sleep(1.0)  # past the first bursts: the steady state is what is measured
        meter = procs.CpuMeter(server.pids[:1]).start()
        await moves(a, tracker, version, attack_seconds, phase=1)
        flooded_cpu = meter.stop()
        attacked = await asyncio.to_thread(out.get, True, 60)
        await asyncio.to_thread(attacker.join, 10)
        return {
            "shape": shape.label,
            "sockets": count,
            "pings_per_write": PINGS_PER_WRITE,
            "writes_per_second": writes,
            "attack_seconds": attack_seconds,
            "busy_before_pct": load,
            "quiet": {**percentiles(tracker.samples.get(0, [])), **quiet_cpu, "unanswered": lost},
            "flooded": {
                **percentiles(tracker.samples.get(1, [])),
                **flooded_cpu,
                "unanswered": tracker.drop(1),
            },
            **attacked,
        }
    finally:
        every = [c for room in rooms for c in room.clients]
        await asyncio.gather(*(c.close() for c in every), return_exceptions=True)
        print(server.log_tail(3), file=sys.stderr)
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=SHAPES, default="embedded")
    parser.add_argument("--sockets", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0, help="quiet moves before")
    parser.add_argument("--attack-seconds", type=float, default=10.0, help="moves under flood")
    parser.add_argument("--writes", type=float, default=50.0, help="writes a second a socket")
    args = parser.parse_args()
    flooding = run(args.shape, args.sockets, args.seconds, args.attack_seconds, args.writes)
    try:
        figures = asyncio.run(asyncio.wait_for(flooding, args.seconds + args.attack_seconds + 150))
    finally:
        procs.stop_all()
    print(json.dumps(figures, indent=1))
    for phase in ("quiet", "flooded"):
        figure = figures[phase]
        print(
            f"room A moves, {phase}: p50 {figure.get('p50_ms')} ms  p99 {figure.get('p99_ms')} ms"
            f"  max {figure.get('max_ms')} ms, {figure['unanswered']} of "
            f"{figure['unanswered'] + figure['moves']} unanswered after 5 s; "
            f"attacked Daphne {figure['server_cpu_pct']} % CPU"
        )
    print(f"pings sent {figures['pings_sent']}, closes {figures['closes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
