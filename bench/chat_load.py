"""Chat at its rate limit against moves (issue 28): move → every screen, with and without chat.

    python -m bench.chat_load [--seconds 8] [--rounds 2] [--port 9617]
    python -m bench --only chat

One Daphne, SQLite, in-memory layer (the embedded shape, `make run`'s). One expert room, 20
clients (2 players, 18 spectators), a player moving at 20 moves a second, timed from the send to
the move's fragment on every screen. Runs alternate: quiet, then with chat going (every
spectator and the second player sending a line every 2 s, each sender's own limit; the room's
limit, 30 then 3 a second, and the address's, 20 then 2 a second (every client here shares
127.0.0.1), refuse the rest), so both see the same machine. 127.0.0.1 only, on `--port`; each
run is bounded by `--seconds`, the Daphne dies with the bench.
"""

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from picows import WSMsgType

from . import procs
from .clients import Client, close_all
from .scenarios import start_games, steady_moves, watched_expert_room

CLIENTS = 20
PLAYERS = 2
MOVES_PER_SECOND = 20.0
LINE_EVERY = 2.0
"""Seconds between one sender's lines: a sender's own limit (5, then one every 2 s)."""


async def chatter(senders: list[Client], seconds: float) -> int:
    """Each sender says a line every LINE_EVERY seconds, staggered, for `seconds`."""
    sent = 0

    async def one(client: Client, offset: float) -> None:
        nonlocal sent
        await asyncio.sleep(offset)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            assert client.transport is not None
            line = json.dumps({"action": "chat", "text": f"line {sent} from a screen"})
            client.transport.send(WSMsgType.TEXT, line.encode())
            sent += 1
            await asyncio.sleep(LINE_EVERY)

    step = LINE_EVERY / len(senders)
    await asyncio.gather(*(one(c, i * step) for i, c in enumerate(senders)))
    return sent


async def one_run(server: procs.Server, seconds: float, chat: bool) -> dict[str, object]:
    room, tracker = await watched_expert_room(server, PLAYERS, CLIENTS - PLAYERS)
    try:
        await start_games(server, [room], tracker)
        await procs.wait_quiet()
        talk = None
        if chat:
            talk = asyncio.ensure_future(chatter(room.clients[1:], seconds))
        figures = await steady_moves(server, room, tracker, MOVES_PER_SECOND, seconds)
        lines = await talk if talk is not None else 0
    finally:
        await close_all(room.clients)
    keep = ("moves", "p50_ms", "p95_ms", "p99_ms", "max_ms", "lost", "server_cpu_ms_per_move")
    return {"chat": chat, "lines_sent": lines, **{k: figures.get(k) for k in keep}}


async def run(seconds: float, rounds: int, port: int | None) -> list[dict[str, object]]:
    """`port`: the one this bench may use (None: any free one, as `python -m bench` picks)."""
    workdir = Path(tempfile.mkdtemp(prefix="chat-load-"))
    if port is not None:
        procs.free_port = lambda: port
    shape = procs.embedded(workdir)
    procs.prepare(shape)
    server = procs.Server(shape, workdir).start()
    runs = []
    try:
        for _ in range(rounds):
            for chat in (False, True):
                runs.append(await one_run(server, seconds, chat))
                print(json.dumps(runs[-1]), flush=True)
    finally:
        server.stop()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--port", type=int, default=9617)
    args = parser.parse_args()
    asyncio.run(run(args.seconds, args.rounds, args.port))


if __name__ == "__main__":
    main()
