"""A racing bot for Minesweeper Live that plays on the room's websocket.

    pip install websockets
    python examples/race_bot.py http://127.0.0.1:8000 [--pace 1|2|4] [--token TOKEN]

It creates a race on a no-guess beginner board (HTTP, once), then holds the room's websocket with
its seat's token, asking for JSON events. On the socket it seats the Solver bot as its rival
(`--pace` safe cells a second), starts the race and plays its own board by logic, one move at a
time, as fast as the answers come: a number whose mines are all known opens its other
neighbours, a number that needs every hidden neighbour marks them as mines (kept here, never
flagged: that saves clicks), two numbers whose hidden cells nest tell about the rest.
Its board comes from the events: a `snapshot` is the whole of it (one comes on connect and after
every timed event: Go, a penalty's end, the Solver bot's moves); a `move` of ours carries the
cells it changed. A mine freezes our board for a few seconds: we wait for the snapshot that says
it thawed. It prints its place and time when the race is over. A socket that closes is opened
again after a growing pause, unless its close code says the room or our seat is gone.
With a personal token (`--token`, or `MINESWEEPER_TOKEN`) its seat is your account's.
"""

import argparse
import asyncio
import json
import os
import random
import sys
import urllib.request
from itertools import product

import websockets

CHARS = {"hidden": "#", "flagged": "F", "exploded": "!", "mine": "*", "wrong-flag": "X"}


def create_race(base, account=None):
    body = {"game": "minesweeper", "mode": "race", "preset": "beginner", "name": "RaceBot"}
    request = urllib.request.Request(base + "/api/rooms", json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if account:  # a personal token: the seat is the account's
        request.add_header("Authorization", f"Bearer {account}")
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def neighbours(x, y, width, height):
    for dx, dy in product((-1, 0, 1), repeat=2):
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height:
            yield x + dx, y + dy


def deduce(board, mines_left):
    """Cells proved safe and cells proved to be mines (`F` and `!` are mines already known)."""
    width, height = len(board[0]), len(board)
    rules = set()
    for y, x in product(range(height), range(width)):
        if board[y][x] in "12345678":
            around = list(neighbours(x, y, width, height))
            hidden = frozenset(c for c in around if board[c[1]][c[0]] == "#")
            known = sum(board[c[1]][c[0]] in "F!" for c in around)
            if hidden:
                rules.add((hidden, int(board[y][x]) - known))
    hidden = frozenset(
        (x, y) for y, x in product(range(height), range(width)) if board[y][x] == "#"
    )
    rules.add((hidden, mines_left))
    for a, need_a in list(rules):
        for b, need_b in list(rules):
            if a < b:
                rules.add((b - a, need_b - need_a))
    safe = {c for cells, need in rules if need == 0 for c in cells}
    mines = {c for cells, need in rules if need == len(cells) for c in cells}
    return safe, mines - safe, hidden


class Racer:
    """Our board as the events tell it, and whether we may move now."""

    def __init__(self):
        self.board, self.mines, self.total = None, set(), 0
        self.version, self.phase, self.standing = 0, "lobby", "racing"
        self.frozen = self.waiting = False

    def snapshot(self, event):
        self.board = [list(row) for row in event["board"]]
        self.version, race = event["version"], event["race"]
        you = race["you"] or {"standing": "racing", "frozen_ms": 0}  # None in the lobby
        self.phase, self.standing = race["phase"], you["standing"]
        self.frozen = you["frozen_ms"] > 0
        if event["mines_left"] is not None:  # mines minus flags and the mines we hit
            self.total = event["mines_left"] + sum(r.count("F") + r.count("!") for r in self.board)

    def move(self, event):
        """Someone's move: ours carries our cells (also when a snapshot showed them already)."""
        if event["cells"]:
            self.waiting = False
        if event["version"] <= self.version:
            return
        self.version = event["version"]
        for cell in event["cells"]:
            state = cell["state"]
            shown = str(cell["count"] or "_") if state == "revealed" else CHARS[state]
            self.board[cell["y"]][cell["x"]] = shown
            self.frozen = self.frozen or state == "exploded"  # the penalty starts

    def next_move(self):
        """(x, y) to reveal, or None when there is nothing to do now."""
        if self.phase != "racing" or self.standing != "racing" or self.frozen or self.waiting:
            return None
        view = [
            ["F" if (x, y) in self.mines else c for x, c in enumerate(row)]
            for y, row in enumerate(self.board)
        ]
        known = sum(row.count("F") + row.count("!") for row in view)
        safe, mines, hidden = deduce(view, self.total - known)
        self.mines |= mines
        if safe:
            return min(safe)
        unknown = sorted(hidden - mines)
        return random.choice(unknown) if unknown else None  # a guess; no-guess boards need none


STOP = {4403: "the token is not a player's of this room", 4404: "the room is gone"}
"""Close codes after which reconnecting cannot help (docs/api.md, "Writing a bot")."""


async def race(base, pace=1, account=None):
    room = create_race(base, account)
    print("Watch live:", room["url"] + "watch/", flush=True)
    url = base.replace("http", "ws", 1) + f"/ws/r/{room['code']}/"
    token = {"Authorization": f"Bearer {room['player_token']}"}
    me, first, pause = Racer(), True, 1
    while True:  # a dropped socket is opened again: its first snapshot gives us everything back
        try:
            async with websockets.connect(
                url, subprotocols=["json"], additional_headers=token
            ) as ws:
                if first:
                    await ws.send(json.dumps({"action": "add_bot", "pace": pace}))
                    await ws.send(json.dumps({"action": "start"}))
                    first = False
                return await play(ws, me)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else 1006
            if code in STOP:
                raise SystemExit(f"Closed ({code}): {STOP[code]}.") from None
            print(f"Closed ({code}): reconnecting in {pause} s.", flush=True)
            await asyncio.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, 60)


async def play(ws, me):
    """Our moves, from the events, until the race is over: its place."""

    async def send(**body):
        await ws.send(json.dumps(body))

    while True:
        event = json.loads(await ws.recv())
        if event["type"] == "error":  # refused (frozen, say): read the board again first
            if me.phase == "lobby":
                raise SystemExit(event["error"])  # the start was refused
            print("Refused:", event["error"], flush=True)
            me.waiting, me.frozen = False, True
            await send(action="sync")
        elif event["type"] == "snapshot":
            me.snapshot(event)
            if me.phase == "over":
                return report(event["race"])
        elif event["type"] == "move":
            gap = event["version"] > me.version + 1
            me.move(event)
            if gap or event["status"] != "playing":  # a lost message, or the end: read it all
                await send(action="sync")
        else:
            continue  # an `ack` of a message (its move comes as a `move`), a `bot` event
        cell = me.next_move()
        if cell is not None:
            await send(action="reveal", x=cell[0], y=cell[1])
            me.waiting = True


def report(race):
    me = next(r for r in race["results"] if r["seat"] == race["you"]["seat"])
    time_s = "-" if me["time_ms"] is None else f"{me['time_ms'] / 1000:.2f} s"
    print(f"Place {me['place']} of {len(race['results'])}, time {time_s}.")
    return me["place"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Race the Solver bot on a Minesweeper Live board.")
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:8000", help="server URL")
    parser.add_argument("--pace", type=int, choices=[1, 2, 4], default=1)
    parser.add_argument("--token", default=os.environ.get("MINESWEEPER_TOKEN"))
    args = parser.parse_args()
    sys.exit(0 if asyncio.run(race(args.base, args.pace, args.token)) == 1 else 1)
