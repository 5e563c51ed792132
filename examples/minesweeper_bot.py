"""A complete Minesweeper bot for the Minesweeper Live JSON API (standard library only).

    python examples/minesweeper_bot.py http://127.0.0.1:8000

It creates a no-guess beginner room, prints the invite link (open it to watch the bot play live),
then plays by logic: a number whose flags are all found opens its other neighbours; a number that
needs every hidden neighbour flags them; two numbers whose hidden cells nest tell about the rest.
When logic runs dry it asks the server for a hint, which proves a cell safe from the public board.
"""

import json
import sys
import urllib.request
from itertools import product


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


def play(base):
    room = call(base, "POST", "/api/rooms", {"preset": "beginner", "no_guess": True, "name": "Bot"})
    code, token = room["code"], room["player_token"]
    print("Watch live:", room["url"])
    state = call(
        base, "POST", f"/api/rooms/{code}/moves", {"action": "reveal", "x": 4, "y": 4}, token
    )
    while state["status"] == "playing":
        view = call(base, "GET", f"/api/rooms/{code}")
        safe, mines = deduce(view["board"], view["mines_left"])
        for x, y in mines:
            call(
                base, "POST", f"/api/rooms/{code}/moves", {"action": "flag", "x": x, "y": y}, token
            )
        if not safe and not mines:
            hint = call(base, "POST", f"/api/rooms/{code}/hint", {}, token)
            safe = {(hint["x"], hint["y"])}
        for x, y in sorted(safe):
            move = {"action": "reveal", "x": x, "y": y}
            state = call(base, "POST", f"/api/rooms/{code}/moves", move, token)
            if state["status"] != "playing":
                break
    print("You win!" if state["status"] == "won" else "You lose!")
    return state["status"]


if __name__ == "__main__":
    sys.exit(
        0 if play(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000") == "won" else 1
    )
