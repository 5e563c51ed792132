"""What a player's arrival costs the server, step by step, and what an idle second costs.

    python -m bench.arrivals [--players 20] [--rounds 3]

One embedded Daphne (`make run`'s shape, bench/procs.py). Each round opens a room by the API,
then takes every step for all its players in turn, 20 ms apart, as the peer probe's browsers do:
the invite page (GET /r/<code>/), the nickname form (POST /r/<code>/join/), the room socket
(handshake, seat check, snapshot, presence), a spectator's socket, and the sockets' close. The
Daphne's CPU (user + system, psutil) over each step, less the idle rate measured with the room's
sockets open, is printed per arrival. The peer's players arrive by one socket.io message each,
so this is the part of `make bench-peer`'s CPU per run that is ours alone (docs/performance.md,
issue 34). About a minute a round.
"""

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path

import psutil

from . import clients, probe, procs

PAUSE_S = 0.02
SETTLE_S = 0.5
"""After the last step: the presence messages it set off (at most one each 0.25 s) are told."""
IDLE_SETTLE_S = 6.0
IDLE_S = 15.0


def api(port: int, path: str, body: dict[str, object], token: str = "") -> dict[str, object]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        f"http://{procs.HOST}:{port}{path}", json.dumps(body).encode(), headers, method="POST"
    )
    with urllib.request.urlopen(request) as answer:
        found: dict[str, object] = json.loads(answer.read())
        return found


class Meter:
    """The server's CPU seconds over a step, less what it spends idle in the same time."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.idle_per_second = 0.0

    def cpu(self) -> float:
        times = self.process.cpu_times()
        return float(times.user + times.system)

    async def idle(self, seconds: float) -> float:
        """The CPU rate over `seconds`, after a pause for what the last step set off (presence
        messages, the heartbeat's first beat): psutil counts in 10 ms ticks, so a long window."""
        await asyncio.sleep(IDLE_SETTLE_S)
        before, started = self.cpu(), time.monotonic()
        await asyncio.sleep(seconds)
        self.idle_per_second = (self.cpu() - before) / (time.monotonic() - started)
        return self.idle_per_second

    async def step(self, each: Callable[[int], Awaitable[None]], count: int) -> float:
        """Milliseconds of server CPU per call of `each`, `count` calls `PAUSE_S` apart."""
        before, started = self.cpu(), time.monotonic()
        for index in range(count):
            await each(index)
            await asyncio.sleep(PAUSE_S)
        await asyncio.sleep(SETTLE_S)
        spent = self.cpu() - before - self.idle_per_second * (time.monotonic() - started)
        return 1000 * spent / count


async def one_round(port: int, pid: int, players: int) -> dict[str, float]:
    made = api(port, "/api/rooms", {"game": "minesweeper", "width": 32, "height": 16, "mines": 20})
    code, token = str(made["code"]), str(made["player_token"])
    api(port, f"/api/rooms/{code}/host", {"action": "cap", "players": 50}, token)
    meter, figures = Meter(pid), {}
    pages: list[clients.Reply] = []
    cookies: list[str] = []
    sockets: list[clients.Client] = []

    async def page(index: int) -> None:
        pages.append(await clients.http("GET", port, f"/r/{code}/"))

    async def form(index: int) -> None:
        reply = pages[index]
        csrf_field = clients.CSRF_FIELD.search(reply.body)
        assert reply.status == 200 and csrf_field is not None, reply.status
        csrf = f"csrftoken={reply.cookies['csrftoken']}"
        fields = {"csrfmiddlewaretoken": csrf_field.group(1), "nickname": f"p{index}"}
        joined = await clients.http("POST", port, f"/r/{code}/join/", fields, cookies=csrf)
        assert joined.status == 302, joined.status
        cookies.append(f"{csrf}; sessionid={joined.cookies['sessionid']}")

    def socket(cookie: Callable[[int], str]) -> Callable[[int], Awaitable[None]]:
        async def open_one(index: int) -> None:
            client = clients.Client(room=0, code=code, port=port, cookie=cookie(index))
            sockets.append(await client.connect())

        return open_one

    await meter.idle(IDLE_S)  # nothing open yet: the process's own timers
    figures["idle, no socket (ms/s)"] = 1000 * meter.idle_per_second
    figures["invite page"] = await meter.step(page, players)
    figures["nickname form"] = await meter.step(form, players)
    figures["player's socket"] = await meter.step(socket(cookies.__getitem__), players)
    figures["spectator's socket"] = await meter.step(socket(lambda index: ""), players)
    figures["idle, sockets open (ms/s)"] = 1000 * await meter.idle(IDLE_S)

    async def close(index: int) -> None:
        await sockets[index].close()

    figures["a socket's close"] = await meter.step(close, len(sockets))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.arrivals", description=__doc__)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="minesweeper-arrivals-") as tmp:
        logdir = Path(tmp) / "logs"
        logdir.mkdir()
        shape = probe.make_shape("embedded", Path(tmp))
        procs.prepare(shape)
        server = procs.Server(shape, logdir).start()
        try:
            for _ in range(args.rounds):
                rounds.append(asyncio.run(one_round(server.ports[0], server.pids[0], args.players)))
        finally:
            server.stop()
            procs.stop_all()
    print(f"Server CPU per arrival, ms ({args.players} players a round, {PAUSE_S * 1000:.0f} ms")
    print("apart, the idle rate taken out); idle rates in ms of CPU a second:")
    for name in rounds[0]:
        print(f"  {name:<28} " + "  ".join(f"{figures[name]:6.2f}" for figures in rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
