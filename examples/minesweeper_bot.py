"""A complete Minesweeper bot for the Minesweeper Live JSON API (standard library only).

    python examples/minesweeper_bot.py http://127.0.0.1:8000 [--delay SECONDS] [--token TOKEN]

It creates a no-guess beginner room, prints its watch link (open it to see the bot play live, a
few moves a second; `--delay 0` plays flat out), then plays by logic: a number whose flags are
all found opens its other neighbours; a number that needs every hidden neighbour flags them; two
numbers whose hidden cells nest tell about the rest.
When logic runs dry it asks the server for a hint, which proves a cell safe from the public board.
With a personal token (`--token`, or `MINESWEEPER_TOKEN`; POST /api/accounts/token gives one) its
seat is your account's, under your username; without one it plays as the guest "Bot".
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from itertools import product
from urllib.parse import urljoin

DELAY = 0.3
"""Seconds between moves: flat out, a beginner board is over before a watcher sees it."""


def call(base, method, path, body=None, token=None):
    """One API call; past the move budget (429) it waits as long as `Retry-After` says, then
    asks again."""
    request = urllib.request.Request(base + path, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    data = None if body is None else json.dumps(body).encode()
    while True:
        try:
            with urllib.request.urlopen(request, data) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(float(error.headers.get("Retry-After", 1)))


def neighbours(x, y, width, height):
    for dx, dy in product((-1, 0, 1), repeat=2):
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height:
            yield x + dx, y + dy


def constraints(board):
    """For every revealed number: (its hidden neighbours, mines still missing among them)."""
    width, height = len(board[0]), len(board)
    for y, x in product(range(height), range(width)):
        if board[y][x] in "12345678":
            around = list(neighbours(x, y, width, height))
            hidden = frozenset(c for c in around if board[c[1]][c[0]] == "#")
            flags = sum(board[c[1]][c[0]] == "F" for c in around)
            if hidden:
                yield hidden, int(board[y][x]) - flags


def deduce(board, mines_left):
    """Cells proved safe and cells proved to be mines."""
    rules = set(constraints(board))
    hidden = frozenset(
        (x, y) for y, row in enumerate(board) for x, ch in enumerate(row) if ch == "#"
    )
    rules.add((hidden, mines_left))  # the mine counter is one more constraint
    for a, need_a in list(rules):
        for b, need_b in list(rules):
            if a < b:  # a's cells nest in b's: the rest of b holds the difference
                rules.add((b - a, need_b - need_a))
    safe = {c for cells, need in rules if need == 0 for c in cells}
    mines = {c for cells, need in rules if need == len(cells) for c in cells}
    return safe, mines - safe


def play(base, delay=DELAY, account=None):
    body = {"preset": "beginner", "no_guess": True, "name": "Bot"}
    room = call(base, "POST", "/api/rooms", body, account)  # `account`: a personal token
    code, token = room["code"], room["player_token"]
    print("Watch live:", urljoin(room["url"], "watch/"), flush=True)

    def move(action, x, y):
        time.sleep(delay)
        body = {"action": action, "x": x, "y": y}
        return call(base, "POST", f"/api/rooms/{code}/moves", body, token)

    state = move("reveal", 4, 4)
    while state["status"] == "playing":
        view = call(base, "GET", f"/api/rooms/{code}")
        safe, mines = deduce(view["board"], view["mines_left"])
        for x, y in mines:
            move("flag", x, y)
        if not safe and not mines:
            hint = call(base, "POST", f"/api/rooms/{code}/hint", {}, token)
            safe = {(hint["x"], hint["y"])}
        for x, y in sorted(safe):
            state = move("reveal", x, y)
            if state["status"] != "playing":
                break
    print("You win!" if state["status"] == "won" else "You lose!")
    return state["status"]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="Play a Minesweeper Live room by logic.")
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:8000", help="server URL")
    parser.add_argument(
        "--delay", type=float, default=DELAY, help=f"seconds between moves (default {DELAY})"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("MINESWEEPER_TOKEN"),
        help="your personal token: the seat is your account's (default: $MINESWEEPER_TOKEN)",
    )
    args = parser.parse_args(argv)
    if args.delay < 0:
        parser.error("--delay must be 0 or more")
    return args


if __name__ == "__main__":
    args = parse_args()
    sys.exit(0 if play(args.base, args.delay, args.token) == "won" else 1)
