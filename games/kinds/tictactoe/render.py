"""HTML for tic-tac-toe rooms: the page and the websocket fragments share the same partials.

Fragments go to everyone in the room, so nothing here depends on who is looking. What differs per
viewer ("Your turn", "You win!", which squares you may click) rides along as data attributes
(`data-you`, the seats in `#game-meta`) that `tictactoe.js` applies in the browser.
"""

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string

from games.engine import tictactoe as engine

from ...store.models import Game, Player, Room
from .. import seats_away
from .. import side_pages as two_sided
from ..table import Applied, MoveNews, NewGame
from . import rules

TEMPLATE = "games/tictactoe.html"

CELL = 100
"""Each square is 100 units of the strike line's viewBox (300 x 300)."""


def square(board: engine.State, n: int, fresh: bool = False) -> dict[str, Any]:
    mark = board.squares[n]
    win = board.winning_line is not None and n in board.winning_line
    what = "empty" if mark is None else mark.value
    label = f"square {n + 1}, {what}" + (", winning line" if win else "")
    return {
        "n": n,
        "mark": "" if mark is None else mark.value,
        "win": win,
        "label": label,
        "fresh": fresh,
    }


def strike(board: engine.State) -> dict[str, int] | None:
    """The line drawn through a win, from beyond its first square to beyond its last."""
    if board.winning_line is None:
        return None
    first, _, last = board.winning_line
    (x1, y1), (x2, y2) = _centre(first), _centre(last)
    dx, dy = (x2 - x1) // 5, (y2 - y1) // 5  # reach a little past the centres
    return {"x1": x1 - dx, "y1": y1 - dy, "x2": x2 + dx, "y2": y2 + dy}


def _centre(n: int) -> tuple[int, int]:
    return (n % 3) * CELL + CELL // 2, (n // 3) * CELL + CELL // 2


@dataclass(frozen=True, slots=True)
class Score:
    """Wins per entrant and draws over the room's finished games."""

    wins: Counter[int]
    draws: int


@dataclass(frozen=True, slots=True)
class Facts:
    """What a move's fragments show beyond the move: names on the seats, and the score."""

    room: Room
    score: Score


def views(room: Room, game: Game) -> dict[engine.Mark, dict[str, Any]]:
    return two_sided.views(room, rules.sides(game.params))


def score(room: Room) -> Score:
    """Entrants swap marks each game, so a win counts for whoever held the winning mark in that
    game."""
    wins: Counter[int] = Counter()
    draws = 0
    finished = room.games.exclude(status=Game.Status.PLAYING).values_list("state", "params")
    for state, params in finished:
        winner = state.get("winner")
        if winner is None:
            draws += 1
        else:
            wins[params[winner]["entrant"]] += 1
    return Score(wins, draws)


def scoreboard(board: engine.State, sides: dict[engine.Mark, dict[str, Any]], tally: Score) -> dict:
    """Each entrant's wins and whether they are to move, and the draws."""
    wins, draws = tally.wins, tally.draws
    entrants = sorted(sides.values(), key=lambda view: view["entrant"])
    playing = board.status is engine.Status.PLAYING
    cards = [
        {
            **view,
            "wins": wins[view["entrant"]],
            "to_move": playing and view["mark"] == board.turn.value,
        }
        for view in entrants
    ]
    return {"entrants": cards, "draws": draws, "games_played": sum(wins.values()) + draws}


def status(
    board: engine.State, sides: dict[engine.Mark, dict[str, Any]], free: str | None = None
) -> dict[str, Any]:
    """The line above the board: whose turn, or how it ended; `you` holds per-seat variants.
    `free` is the mark whose player left long enough ago that their seat is free."""
    if board.status is engine.Status.PLAYING and free is not None:
        return two_sided.seat_free_status(sides, engine.Mark(free))
    if board.status is engine.Status.DRAW:
        return {"kind": "draw", "text": "It's a draw!", "you": {}}
    if board.status is engine.Status.WON:
        assert board.winner is not None  # a won game has one
        winner, loser = sides[board.winner], sides[board.winner.other]
        you = {}
        if winner["seat"] is not None:
            you[winner["seat"]] = "You win!"
        if loser["seat"] is not None:
            you[loser["seat"]] = f"{winner['name']} wins this one."
        left = "" if board.forfeited is None else f" ({loser['name']} left)"
        return {
            "kind": "won",
            "text": f"{winner['name']} wins!{left}",
            "you": you,
            "mark": winner["mark"],
        }
    side = sides[board.turn]
    if side["is_computer"]:
        return {
            "kind": "thinking",
            "text": f"{side['name']} is thinking",
            "you": {},
            "mark": side["mark"],
        }
    if side["waiting"]:
        text = f"Waiting for a second player to join as {side['mark']}"
        return {"kind": "waiting", "text": text, "you": {}, "mark": side["mark"]}
    text = f"{side['name']} ({side['mark']}) to move"
    return {"kind": "turn", "text": text, "you": {side["seat"]: "Your turn"}, "mark": side["mark"]}


def next_game(game: Game) -> dict[str, int] | None:
    return two_sided.next_game(game, rules.computers_only(game.params), rules.NEXT_GAME_AFTER)


def roster(room: Room, game: Game) -> dict[str, Any]:
    return two_sided.roster(room, rules.sides(game.params))


def _common(room: Room, game: Game, board: engine.State, tally: Score) -> dict[str, Any]:
    sides = views(room, game)
    state_line = status(board, sides, seats_away.free_mark(game.state))
    return {
        "room": room,
        "game": game,
        "board": board,
        "sides": [sides[engine.Mark.X], sides[engine.Mark.O]],
        "seats": [view["seat"] for view in sides.values() if view["seat"] is not None],
        "turn_seat": sides[board.turn]["seat"] if board.status is engine.Status.PLAYING else None,
        "status": state_line,
        "you_json": json.dumps({str(seat): text for seat, text in state_line["you"].items()}),
        "computers": sum(view["is_computer"] for view in sides.values()),
        "next_game": next_game(game),
        **scoreboard(board, sides, tally),
    }


def game_context(room: Room, game: Game) -> dict[str, Any]:
    """Everything the room page and a snapshot show."""
    board = engine.from_dict(game.state)
    return {
        **_common(room, game, board, score(room)),
        "squares": [square(board, n) for n in range(engine.SIZE)],
        "strike": strike(board),
        **roster(room, game),
    }


def snapshot_html(room: Room, game: Game) -> str:
    return render_to_string(f"{TEMPLATE}#snapshot", game_context(room, game))


def new_game_html(room: Room, game: Game, news: NewGame) -> str:
    """The rematch for everyone: who started it and, sides having swapped, who plays X now."""
    x = views(room, game)[engine.Mark.X]
    narration = two_sided.new_game_narration(news, x, "plays X")
    context = {**game_context(room, game), "narration": narration}
    return render_to_string(f"{TEMPLATE}#snapshot", context)


def gather(room: Room, game: Game, applied: Applied) -> Facts:
    """Seats, names and the score as they are now: every move's status line names people."""
    fresh = Room.objects.prefetch_related("players").get(pk=room.pk)
    return Facts(fresh, score(fresh))


def move_html(news: MoveNews) -> str:
    """The placed square, the status and score; at a win also the line and its squares."""
    facts: Facts = news.facts
    room, game, applied, mover = facts.room, news.game, news.applied, news.mover
    board = engine.from_dict(applied.state)
    if "square" not in applied.summary:
        return seat_html(facts, game, board, applied)
    placed = applied.summary["square"]
    changed = {placed} | set(board.winning_line or ())
    context = {
        **_common(room, game, board, facts.score),
        "squares": [square(board, n, fresh=n == placed) for n in sorted(changed)],
        "strike": strike(board),
        "narration": narrate(room, game, mover, applied, board),
    }
    return render_to_string(f"{TEMPLATE}#move", context)


def seat_html(facts: Facts, game: Game, board: engine.State, applied: Applied) -> str:
    """A side's player went away, came back, lost their seat or the win was claimed: the whole
    (small) game again, its status line saying so."""
    names = {view["mark"]: view["name"] for view in views(facts.room, game).values()}
    context = {**game_context(facts.room, game), "narration": two_sided.seat_news(names, applied)}
    return render_to_string(f"{TEMPLATE}#snapshot", context)


def narrate(
    room: Room, game: Game, mover: Player | None, applied: Applied, board: engine.State
) -> str:
    """One line for screen readers and the activity line."""
    mark = applied.summary["mark"]
    side = views(room, game)[engine.Mark(mark)]
    name = mover.nickname if mover is not None else side["name"]
    line = f"{name} placed {mark} on square {applied.summary['square'] + 1}."
    if board.status is engine.Status.PLAYING:
        return line
    ending = f"{mark} wins!" if board.status is engine.Status.WON else "It's a draw."
    after = next_game(game)
    later = "" if after is None else two_sided.NEXT_GAME_SAID
    return f"{line} {ending}{later}"


def roster_html(room: Room, game: Game) -> str:
    """Presence changed or someone joined: the roster, and the names on the scoreboard and in
    the status line (a person taking the open seat turns "Waiting for…" into their name)."""
    board = engine.from_dict(game.state)
    context = {**_common(room, game, board, score(room)), **roster(room, game)}
    return render_to_string(f"{TEMPLATE}#people", context)


def describe_settings(settings: dict[str, Any]) -> str:
    """ "person vs perfect computer"."""
    return two_sided.matchup(settings)


def spectators_html(count: int | None) -> str:
    """The spectator count alone, swapped by itself: all that changes when spectators come or
    go."""
    return render_to_string(f"{TEMPLATE}#spectators", {"spectators": count, "spectators_oob": True})
