"""A Minesweeper Flags bot for the Minesweeper Live JSON API (standard library only).

    python examples/flags_bot.py http://127.0.0.1:8000 [--opponent easy|strong] [--token TOKEN]

It makes a Flags room against the computer, prints its watch link and plays X. Finding a mine
claims it and keeps the turn, so it opens the hidden cell most likely to be a mine by the numbers
around it (a number whose hidden neighbours must all be mines gives a sure claim). While behind
it drops its one bomb where a 5x5 square should hold three mines or more. The computer's replies
are played before each answer, so the bot reads the board again and moves while `turn` is `you`.
With a personal token (`--token`, or `MINESWEEPER_TOKEN`) its seat is your account's.
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


def chances(board, mines_left):
    """Every hidden cell's chance of being a mine: the highest share a number around it gives
    (its unclaimed mines over its hidden neighbours), else the mines left over the cells left."""
    width, height = len(board[0]), len(board)
    hidden = [(x, y) for y, x in product(range(height), range(width)) if board[y][x] == "#"]
    shares = {}
    for y, x in product(range(height), range(width)):
        if board[y][x] in "12345678":
            around = [
                (x + dx, y + dy)
                for dx, dy in product((-1, 0, 1), repeat=2)
                if 0 <= x + dx < width and 0 <= y + dy < height
            ]
            unknown = [(cx, cy) for cx, cy in around if board[cy][cx] == "#"]
            claimed = sum(board[cy][cx] in "xo" for cx, cy in around)
            for cell in unknown:
                share = (int(board[y][x]) - claimed) / len(unknown)
                shares[cell] = max(share, shares.get(cell, 0))
    return {cell: shares.get(cell, mines_left / len(hidden)) for cell in hidden}


def best_bomb(odds):
    """The 5x5 square expected to hold the most mines: (expected mines, its centre)."""
    return max(
        (sum(odds.get((x + dx, y + dy), 0) for dx, dy in product(range(-2, 3), repeat=2)), (x, y))
        for x, y in odds
    )


def play(base, opponent="easy", account=None):
    body = {"game": "flags", "x": "human", "o": opponent, "name": "Bot"}
    room = call(base, "POST", "/api/rooms", body, account)  # `account`: a personal token
    code, token = room["code"], room["player_token"]
    print("Watch live:", urljoin(room["url"], "watch/"), flush=True)
    while (state := call(base, "GET", f"/api/rooms/{code}", token=token))["status"] == "playing":
        if state["turn"] != state["you"]:
            time.sleep(0.2)  # the computer is still thinking
            continue
        me, them = state["you"], "O" if state["you"] == "X" else "X"
        odds = chances(state["board"], state["mines"] - sum(state["scores"].values()))
        action, (x, y) = "reveal", max(odds, key=odds.get)
        if state["bombs"][me] and state["scores"][me] < state["scores"][them]:
            expected, centre = best_bomb(odds)
            if expected >= 3:
                action, (x, y) = "bomb", centre
        call(base, "POST", f"/api/rooms/{code}/moves", {"action": action, "x": x, "y": y}, token)
    won = state["winner"] == state["you"]
    score = f"{state['scores']['X']} to {state['scores']['O']}"
    print(f"You win, {score}!" if won else f"The computer wins, {score}.")
    return won


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Play Minesweeper Flags against the computer.")
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:8000", help="server URL")
    parser.add_argument("--opponent", choices=["easy", "strong"], default="easy")
    parser.add_argument("--token", default=os.environ.get("MINESWEEPER_TOKEN"))
    args = parser.parse_args()
    sys.exit(0 if play(args.base, args.opponent, args.token) else 1)
