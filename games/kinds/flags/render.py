"""HTML for Flags rooms: the page and the websocket fragments share the same partials.

Fragments go to everyone in the room, so nothing here depends on who is looking. What differs per
viewer ("Your turn", the bomb button, which side is yours) rides along as data attributes
(`data-you` on the status, the seats on `#game-meta`) that `flags.js` applies in the browser.
"""

import json
import time
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from games.engine import flags as engine

from ...store.models import Game, Player, Room
from .. import seats_away
from .. import side_pages as two_sided
from ..table import Applied, MoveNews, NewGame
from . import rules

TEMPLATE = "games/flags.html"


def cell(board: engine.State, index: int, fresh: bool = False) -> dict[str, Any]:
    """One cell as every viewer may see it: hidden, open (with its count), claimed by a side,
    or, once the game is over, a mine nobody claimed."""
    x, y = board.grid.xy(index)
    count = None
    seat = ""
    if index in board.revealed:
        state = "revealed"
        count = board.field.counts[index]
        what = f"{count} adjacent mine{'s' if count != 1 else ''}" if count else "empty"
    elif index in board.claimed:
        state = "claimed"
        seat = board.claimed[index].value
        what = f"mine claimed by {seat}"
    elif board.status is not engine.Status.PLAYING and index in board.field.mines:
        state, what = "mine", "mine, unclaimed"
    else:
        state, what = "hidden", "hidden"
    return {
        "x": x,
        "y": y,
        "state": state,
        "count": count,
        "seat": seat,
        "fresh": fresh,
        "label": f"row {y + 1}, column {x + 1}, {what}",
    }


_kept: dict[tuple[Any, ...], str] = {}
"""Each cell's markup, rendered once per process by the `cell` partial and kept: a snapshot is
256 cells, and running the partial for each was most of its 18 ms. Bounded by what a cell can
be: 16x16 positions times 13 looks (hidden, 0-8, X's, O's, a mine), fresh or not, with
hx-swap-oob or not: at most 13,312 entries, about 4 MB."""


def cells_html(cells: list[dict[str, Any]], oob: bool) -> str:
    """The cells' markup, in order, each as the `cell` partial writes it."""
    parts = []
    for c in cells:
        key = (c["x"], c["y"], c["state"], c["count"], c["seat"], c["fresh"], oob)
        html = _kept.get(key)
        if html is None:
            html = _kept[key] = render_to_string(f"{TEMPLATE}#cell", {"c": c, "oob": oob})
        parts.append(html)
    return mark_safe("".join(parts))  # the partial's own output, escaped there


def board_cells(board: engine.State) -> list[dict[str, Any]]:
    return [cell(board, index) for index in range(board.grid.size)]


def changed(board: engine.State, applied: Applied) -> list[dict[str, Any]]:
    """The cells a move changed, the one it aimed at marked fresh; at the game's end also the
    mines nobody claimed, which everyone may see now."""
    cells: set[int] = set()
    for event in applied.events:
        if isinstance(event, engine.CellsRevealed):
            cells.update(event.cells)
        elif isinstance(event, engine.MineClaimed):
            cells.add(board.grid.index(event.x, event.y))
    if board.status is not engine.Status.PLAYING:
        cells.update(board.field.mines.difference(board.claimed))
    summary = applied.summary
    aimed = board.grid.index(summary["x"], summary["y"]) if "x" in summary else None
    return [cell(board, index, fresh=index == aimed) for index in sorted(cells)]


def views(room: Room, game: Game) -> dict[engine.Seat, dict[str, Any]]:
    return two_sided.views(room, rules.sides(game.params))


def contenders(board: engine.State, sides: dict[engine.Seat, dict[str, Any]]) -> list[dict]:
    """X then O: who, their mines, whether they move now, whether their bomb is left and
    whether they may use it now (`bomb_ready`: only then does the page say "bomb ready")."""
    playing = board.status is engine.Status.PLAYING
    return [
        {
            **sides[mark],
            "score": board.score(mark),
            "to_move": playing and board.turn is mark,
            "bomb_left": mark not in board.bombs_used,
            "bomb_ready": rules.may_bomb(board, mark),
            "winner": board.winner is mark,
        }
        for mark in engine.Seat
    ]


def status(
    board: engine.State, sides: dict[engine.Seat, dict[str, Any]], free: str | None = None
) -> dict[str, Any]:
    """The line above the board: whose turn, or who won; `you` holds per-seat variants.
    `free` is the mark whose player left long enough ago that their seat is free."""
    if board.status is engine.Status.PLAYING and free is not None:
        return two_sided.seat_free_status(sides, engine.Seat(free))
    if board.status is engine.Status.WON:
        assert board.winner is not None
        winner, loser = sides[board.winner], sides[board.winner.other]
        score = f"{board.score(board.winner)} to {board.score(board.winner.other)}"
        you = {}
        if winner["seat"] is not None:
            you[winner["seat"]] = f"You win, {score}!"
        if loser["seat"] is not None:
            you[loser["seat"]] = f"{winner['name']} wins this one, {score}."
        text = f"{winner['name']} ({winner['mark']}) wins, {score}!"
        if board.forfeited is not None:
            text = f"{winner['name']} ({winner['mark']}) wins: {loser['name']} left."
        return {"kind": "won", "text": text, "you": you, "mark": winner["mark"]}
    side = sides[board.turn]
    if side["is_computer"]:
        text = f"{side['name']} is thinking"
        return {"kind": "thinking", "text": text, "you": {}, "mark": side["mark"]}
    if side["waiting"]:
        text = f"Waiting for a second player to join as {side['mark']}"
        return {"kind": "waiting", "text": text, "you": {}, "mark": side["mark"]}
    text = f"{side['name']} ({side['mark']}) to move"
    mine = "Your turn: find a mine" + (" — or use your bomb" if board.can_bomb(board.turn) else "")
    return {"kind": "turn", "text": text, "you": {side["seat"]: mine}, "mark": side["mark"]}


def next_game(game: Game) -> dict[str, int] | None:
    return two_sided.next_game(game, rules.computers_only(game.params), rules.NEXT_GAME_AFTER)


def roster(room: Room, game: Game) -> dict[str, Any]:
    return two_sided.roster(room, rules.sides(game.params))


def _common(room: Room, game: Game, board: engine.State) -> dict[str, Any]:
    sides = views(room, game)
    line = status(board, sides, seats_away.free_mark(game.state))
    playing = board.status is engine.Status.PLAYING
    turn = sides[board.turn]
    bomber = turn["seat"] if playing and board.can_bomb(board.turn) else None
    return {
        "room": room,
        "game": game,
        "board": board,
        "sides": [sides[engine.Seat.X], sides[engine.Seat.O]],
        "contenders": contenders(board, sides),
        "seats": [view["seat"] for view in sides.values() if view["seat"] is not None],
        "turn": board.turn.value if playing else "",
        "turn_seat": turn["seat"] if playing else None,
        "bomb_seat": bomber,
        "status": line,
        "you_json": json.dumps({str(seat): text for seat, text in line["you"].items()}),
        "computers": sum(view["is_computer"] for view in sides.values()),
        "next_game": next_game(game),
        "to_win": board.config.to_win,
        "mines_left": board.config.mines - len(board.claimed),
        "timer": turn_timer(game, board),
    }


def turn_timer(game: Game, board: engine.State) -> dict[str, Any] | None:
    """With a turn timer: its length and the milliseconds left when this was rendered (the page
    counts down from the moment the fragment arrives, whatever its own clock says); `left` is
    None before the clock starts (the game's first move) and while it is `paused` (nobody
    moved for `rules.IDLE_LIMIT` turns)."""
    seconds = game.params.get("turn_seconds") or 0
    if not seconds or board.status is not engine.Status.PLAYING:
        return None
    due = rules.turn_due(game.state, game.params)  # the game as saved, with the move's stamp
    left = None if due is None else max(0, round((due - time.time()) * 1000))
    return {"seconds": seconds, "left_ms": left, "paused": rules.timer_paused(game.state)}


def game_context(room: Room, game: Game) -> dict[str, Any]:
    """Everything the room page and a snapshot show."""
    board = engine.from_dict(game.state)
    return {
        **_common(room, game, board),
        "board_html": cells_html(board_cells(board), oob=False),
        "width": board.config.width,
        "height": board.config.height,
        "mines": board.config.mines,
        **roster(room, game),
    }


def snapshot_html(room: Room, game: Game) -> str:
    return render_to_string(f"{TEMPLATE}#snapshot", game_context(room, game))


def new_game_html(room: Room, game: Game, news: NewGame) -> str:
    """The rematch for everyone: who started it and, sides having swapped, who plays X now."""
    x = views(room, game)[engine.Seat.X]
    narration = two_sided.new_game_narration(news, x, "plays X and opens")
    context = {**game_context(room, game), "narration": narration}
    return render_to_string(f"{TEMPLATE}#snapshot", context)


def gather(room: Room, game: Game, applied: Applied) -> Room:
    """The room with its seats as they are now: every move's status line names people."""
    return Room.objects.prefetch_related("players").get(pk=room.pk)


def move_html(news: MoveNews) -> str:
    """The cells the move changed, the scores, whose turn, the bomb and a line saying what
    happened; at the end also the mines nobody claimed."""
    room: Room = news.facts
    game, applied = news.game, news.applied
    board = applied.loaded(engine.from_dict)
    if "mark" not in applied.summary:  # a seat's news: the roster and sides change too
        narration = narrate(room, game, news.mover, applied, board)
        return render_to_string(
            f"{TEMPLATE}#snapshot", {**game_context(room, game), "narration": narration}
        )
    context = {
        **_common(room, game, board),
        "cells_html": cells_html(changed(board, applied), oob=True),
        "narration": narrate(room, game, news.mover, applied, board),
    }
    return render_to_string(f"{TEMPLATE}#move", context)


def narrate(
    room: Room, game: Game, mover: Player | None, applied: Applied, board: engine.State
) -> str:
    """One line for screen readers and the activity line."""
    summary = applied.summary
    sides = views(room, game)
    if "mark" not in summary:  # a side's player went away, came back, or lost their seat
        return two_sided.seat_news({v["mark"]: v["name"] for v in sides.values()}, applied)
    side = sides[engine.Seat(summary["mark"])]
    name = mover.nickname if mover is not None else side["name"]
    if summary["action"] == "tick":
        after = sides[board.turn]
        return f"{name} ran out of time: {after['name']} ({board.turn.value}) to move."
    where = f"row {summary['y'] + 1}, column {summary['x'] + 1}"
    claimed, revealed = summary["claimed"], summary["revealed"]
    if summary["action"] == "bomb":
        line = (
            f"{name} bombed around {where}: {claimed} mine{'s' if claimed != 1 else ''} "
            f"claimed, {revealed} cell{'s' if revealed != 1 else ''} opened."
        )
    elif claimed:
        line = f"{name} claimed a mine at {where}" + (
            "." if board.status is not engine.Status.PLAYING else " and goes again."
        )
    else:
        line = f"{name} opened {revealed} cell{'s' if revealed != 1 else ''} at {where}."
    if board.status is engine.Status.PLAYING:
        return line
    assert board.winner is not None
    winner = views(room, game)[board.winner]
    score = f"{board.score(board.winner)} to {board.score(board.winner.other)}"
    upcoming = next_game(game)
    later = "" if upcoming is None else two_sided.NEXT_GAME_SAID
    return f"{line} {winner['name']} ({board.winner.value}) wins, {score}!{later}"


def roster_html(room: Room, game: Game) -> str:
    """Presence changed or someone joined: the roster, and the names on the scoreboard and in
    the status line (a person taking the open seat turns "Waiting for…" into their name)."""
    board = engine.from_dict(game.state)
    context = {**_common(room, game, board), **roster(room, game)}
    return render_to_string(f"{TEMPLATE}#people", context)


def describe_settings(settings: dict[str, Any]) -> str:
    """ "person vs strong computer · 51 mines"."""
    players = two_sided.matchup(settings)
    timer = settings.get("turn_seconds") or 0
    return f"{players} · {settings['mines']} mines" + (f" · {timer} s turns" if timer else "")


def spectators_html(count: int | None) -> str:
    """The spectator count alone, swapped by itself."""
    return render_to_string(f"{TEMPLATE}#spectators", {"spectators": count, "spectators_oob": True})
