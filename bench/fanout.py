"""The relay's fan-out of one move to a room's sockets, in CPU time of the event loop's thread
(so a busy machine barely moves it): `relay.Subscription._forward_each` with a move's texts
(pages' HTML, bots' JSON) to N-1 `Output` sockets, each a Daphne websocket over one end of a
socket pair, written as in a server (`daphne_frames`, the kernel's `send` included).

    python -m bench.fanout [--clients 100] [--moves 400] [--no-send]

`--no-send` swaps the kernel for a stub that takes every byte: what is left is the Python of a
socket. Prints the median of seven rounds, per move and per socket. Run old and new code in
turn (a worktree each, `PYTHONPATH` set to it): the figures are for comparing, on one machine.
"""

import argparse
import asyncio
import gc
import os
import socket
import statistics
import time
from typing import Any

ROUNDS = 7
MOVE_HTML = '<div id="game-meta" data-game="1" data-version="{}"></div><div id="c-3-7">1</div>'
MOVE_JSON = '{{"event":"move","version":{},"cells":[[3,7,"open",1]]}}'


class Kernel:
    """A socket that takes every byte at once (`--no-send`)."""

    def send(self, data: bytes) -> int:
        return len(data)


class Plain:
    """A plain-TCP Twisted transport as `daphne_frames._write_now` reads it."""

    TLS = False
    connected = True
    disconnecting = False
    _writeDisconnected = False
    _tempDataLen = 0
    offset = 0
    dataBuffer = b""

    def __init__(self, sock: Any) -> None:
        self.socket = sock

    def write(self, data: bytes) -> None:
        raise RuntimeError("the kernel's buffer filled: drain more often")


def sockets(clients: int, send: bool) -> tuple[list[Any], list[socket.socket]]:
    """N-1 open room sockets (two seats, the rest spectators) and the far ends to drain."""
    from autobahn.twisted.websocket import WebSocketServerFactory
    from daphne.ws_protocol import WebSocketProtocol

    from games.live.output import Output
    from games.protocol import audiences

    factory, outputs, far = WebSocketServerFactory(), [], []
    for number in range(clients - 1):
        near, other = socket.socketpair()
        near.setblocking(False)
        other.setblocking(False)
        far.append(other)
        protocol = WebSocketProtocol()
        protocol.factory, protocol.send_queue = factory, []
        protocol.transport = Plain(near if send else Kernel())
        protocol.state = WebSocketProtocol.STATE_OPEN
        protocol.maxMessagePayloadSize = 1024 * 1024
        output = Output()
        output.connection = protocol
        seat = number + 1 if number < 2 else None
        output.audience = audiences.order(seat, spectator=None if seat else f"h{number}")
        outputs.append(output)
    return outputs, far


def drain(far: list[socket.socket]) -> None:
    for end in far:
        try:
            while end.recv(1 << 16):
                pass
        except BlockingIOError:
            pass


async def measure(clients: int, moves: int, send: bool) -> float:
    """The median CPU seconds of one move's fan-out."""
    from games.live import relay
    from games.protocol import audiences

    outputs, far = sockets(clients, send)
    subscription = object.__new__(relay.Subscription)  # no layer: the fan-out alone
    subscription.sockets, subscription.group = set(outputs), "room-1"
    rounds = []
    for _ in range(ROUNDS):
        spent = 0.0
        for version in range(moves):
            texts = {
                audiences.ALL: MOVE_HTML.format(version),
                audiences.JSON: MOVE_JSON.format(version),
            }
            started = time.thread_time()
            await subscription._forward_each(texts)
            spent += time.thread_time() - started
            if version % 50 == 0:
                drain(far)
        drain(far)
        rounds.append(spent / moves)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--no-send", action="store_true", help="a stub instead of the kernel")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    gc.disable()  # a collection in one round would be noise, not the fan-out's
    seconds = asyncio.run(measure(args.clients, args.moves, not args.no_send))
    per_socket = seconds / (args.clients - 1)
    kernel = "a stub kernel" if args.no_send else "socket pairs"
    print(
        f"fan-out, N={args.clients} ({kernel}): {1e6 * seconds:.1f} us a move, "
        f"{1e6 * per_socket:.2f} us a socket (median of {ROUNDS} rounds of {args.moves})"
    )


if __name__ == "__main__":
    main()
