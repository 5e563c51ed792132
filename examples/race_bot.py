"""A racing bot for the Minesweeper Live JSON API (standard library only).

    python examples/race_bot.py http://127.0.0.1:8000 [--pace 1|2|4]

It creates a race on a no-guess beginner board, seats the Solver bot as its rival (`--pace` safe
cells a second), prints the watch link, starts the race and waits for Go. Then it plays its own
board by logic as fast as it can: a number whose flags are all found opens its other neighbours,
a number that needs every hidden neighbour flags them, two numbers whose hidden cells nest tell
about the rest. A mine freezes its board for a few seconds (409 until then); it waits and goes on.
It prints its place and time when the race is over.
"""

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from itertools import product
from urllib.parse import urljoin


def call(base, method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(request, data) as response:
        return json.load(response)


def neighbours(x, y, width, height):
    for dx, dy in product((-1, 0, 1), repeat=2):
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height:
            yield x + dx, y + dy


def deduce(board, mines_left):
    """Cells proved safe and cells proved to be mines on our own board (`!` is a mine we hit)."""
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
        (x, y) for y, row in enumerate(board) for x, ch in enumerate(row) if ch == "#"
    )
    rules.add((hidden, mines_left))
    for a, need_a in list(rules):
        for b, need_b in list(rules):
            if a < b:
                rules.add((b - a, need_b - need_a))
    safe = {c for cells, need in rules if need == 0 for c in cells}
    mines = {c for cells, need in rules if need == len(cells) for c in cells}
    return safe, mines - safe, hidden


def race(base, pace=1):
    body = {"game": "minesweeper", "mode": "race", "preset": "beginner", "name": "RaceBot"}
    room = call(base, "POST", "/api/rooms", {**body, "bot_pace": pace})
    code, token = room["code"], room["player_token"]
    print("Watch live:", urljoin(room["url"], "watch/"), flush=True)
    call(base, "POST", f"/api/rooms/{code}/moves", {"action": "add_bot"}, token)
    call(base, "POST", f"/api/rooms/{code}/moves", {"action": "start"}, token)

    def view():
        return call(base, "GET", f"/api/rooms/{code}", token=token)

    state = view()
    while state["race"]["phase"] == "countdown":
        time.sleep(state["race"]["go_in_ms"] / 1000 + 0.05)
        state = view()
    while state["race"]["phase"] == "racing" and state["race"]["you"]["standing"] == "racing":
        you = state["race"]["you"]
        if you["frozen_ms"]:
            time.sleep(you["frozen_ms"] / 1000)
        else:
            safe, mines, hidden = deduce(state["board"], state["mines_left"])
            moves = [("flag", c) for c in sorted(mines)] + [("reveal", c) for c in sorted(safe)]
            if not moves:  # no-guess boards never get here; other boards sometimes do
                moves = [("reveal", random.choice(sorted(hidden)))]
            for action, (x, y) in moves:
                body = {"action": action, "x": x, "y": y}
                try:
                    call(base, "POST", f"/api/rooms/{code}/moves", body, token)
                except urllib.error.HTTPError as error:
                    if error.code != 409:  # 409: frozen by a mine, finished, or the race is over
                        raise
                    break
        state = view()
    while state["race"]["phase"] != "over":  # finished first: wait for the rival
        time.sleep(0.5)
        state = view()
    me = next(r for r in state["race"]["results"] if r["seat"] == state["race"]["you"]["seat"])
    time_s = "-" if me["time_ms"] is None else f"{me['time_ms'] / 1000:.2f} s"
    print(f"Place {me['place']} of {len(state['race']['results'])}, time {time_s}.")
    return me["place"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Race the Solver bot on a Minesweeper Live board.")
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:8000", help="server URL")
    parser.add_argument("--pace", type=int, choices=[1, 2, 4], default=1)
    args = parser.parse_args()
    sys.exit(0 if race(args.base, args.pace) == 1 else 1)
