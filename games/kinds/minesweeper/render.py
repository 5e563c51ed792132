"""HTML for Minesweeper rooms: the page and the websocket fragments share the same partials.

Fragments are rendered once per move and sent to everyone in the room, so nothing here depends
on who is looking; what differs per viewer (errors, the nickname form) is rendered elsewhere.

Cells are the bulk of a snapshot and of a cascade, and running the `cell` partial for each one
would make snapshots the largest cost of the thread every database call shares
(docs/performance.md, "kept cells"). A cell's markup depends only on (x, y, state, count), so each is rendered once by
the same partial and kept; snapshots and moves render their template with no cells, then place the
kept cells where the template's loop would have put them. Most moves' fragments (neither a
game's first nor its last move, no Solver bot) are written out without the template
(`_midgame_move_html`). The first snapshot and move of each process are also rendered the plain
way and compared: if a template change ever makes them differ, this process logs it and renders
everything the plain way.
"""

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cachetools import LRUCache
from django.template.loader import render_to_string
from django.utils.html import escape

from games.engine import minesweeper as engine
from games.engine.grid import Grid

from ...store.models import Game, Player, Room
from ..roster import roster_cut, spectators
from ..table import COMPUTER_SEAT, Applied, MoveNews, NewGame
from . import history, rules, words

TEMPLATE = "games/minesweeper.html"
CELL_CACHE_LIMIT = 100_000
"""Distinct cells kept: a 50x50 board has 2,500 positions in at most 15 looks (with and without
hx-swap-oob); about 20 MB at most, the least recently used dropped first."""
COMPACT_CELLS = 1_000
"""Boards over this many cells (expert has 480) are sent compact: each cell keeps the markup
contract (id, data-x, data-y, data-state, data-count) and its class, and leaves out its type,
aria-label and tabindex, which room.js restores from the cell's data and `words.WORDS`.
A 50×50 watch page had been 416 KB (docs/performance.md, "Compressed pages")."""
BOARDS_KEPT_BYTES = 4_000_000
"""The markup of whole boards kept (`_board_cells`): a snapshot's cells change only with a
move, but the roster, which the same snapshot shows, changes with each socket that comes or
goes, so every arrival between two moves rendered the same board again, and every new game
an empty one. A 50x50 board is about 270 KB, an expert one 83 KB; the least recently used
dropped first."""

log = logging.getLogger(__name__)
_verified: dict[str, bool] = {}
_boards: LRUCache[tuple[object, ...], str] = LRUCache(BOARDS_KEPT_BYTES, getsizeof=len)
_boards_lock = threading.Lock()


def cell(
    x: int, y: int, shown: engine.CellState, count: int | None, hint: bool = False
) -> dict[str, Any]:
    return {
        "x": x,
        "y": y,
        "state": shown.value,
        "count": count,
        "hint": hint,
        "label": words.cell_label(x, y, shown.value, count, hint),
    }


@dataclass(frozen=True, slots=True)
class BotSeat:
    """The Solver bot where the templates expect a `Player`: roster, banner, narration."""

    nickname: str = rules.BOT_NAME
    colour: str = "bot"
    number: int = COMPUTER_SEAT
    online: bool = True
    pk: None = None
    is_bot: bool = True


BOT = BotSeat()
BOT_STUCK = f"{rules.BOT_NAME} is stuck: a guess is needed."
BOT_WAITING = f"{rules.BOT_NAME} joins in after the first reveal."


@lru_cache(maxsize=CELL_CACHE_LIMIT)
def cell_html(
    x: int, y: int, shown: engine.CellState, count: int | None, oob: bool, compact: bool = False
) -> str:
    """The `cell` partial for this cell, rendered once per process and then kept."""
    context = {"c": cell(x, y, shown, count), "oob": oob, "compact": compact}
    return render_to_string(f"{TEMPLATE}#cell", context)


def compact(state: engine.GameState) -> bool:
    """Whether the board is sent compact (`COMPACT_CELLS`)."""
    return state.grid.size > COMPACT_CELLS


def _fill(html: str, marker: str, closed: bool, cells: Iterable[str]) -> str | None:
    """`cells` placed inside (closed=False) or right after (closed=True) the empty element that
    starts with `marker`, where the template's cell loop would have put them."""
    start = html.find(marker)
    if start < 0:
        return None
    end = html.find(">", start) + 1
    if not html.startswith("</div>", end):
        return None
    at = end + 6 if closed else end
    return html[:at] + "".join(cells) + html[at:]


def _checked(kind: str, fast: str | None, plain: Callable[[], str]) -> str:
    """The fast rendering, once it has matched the plain one in this process."""
    trusted = _verified.get(kind)
    if trusted is None:
        slow = plain()
        trusted = _verified[kind] = fast == slow
        if not trusted:
            log.warning("fast %s rendering differs from the template; rendering it plainly", kind)
        return slow
    return fast if trusted and fast is not None else plain()


def board_rows(state: engine.GameState) -> list[list[dict[str, Any]]]:
    return [
        [cell(x, y, *shown) for x, shown in enumerate(row)]
        for y, row in enumerate(engine.public_board(state))
    ]


def roster(room: Room, state: engine.GameState | None, bot: bool = False) -> dict[str, Any]:
    """The first players (`roster_cut`) with their share of the board (the Solver bot last, when
    it plays), how many more there are, and the spectator count."""
    shares = Counter(state.revealed.values()) if state is not None else Counter()
    # All seats, filtered in `roster_cut`: one query whose cost is mostly the ORM building it,
    # and a second filter added a third to that.
    cut = roster_cut(room.players.all())
    players = [{"player": player, "revealed": shares.get(player.number, 0)} for player in cut.shown]
    if bot:
        players.append(
            {"player": BOT, "revealed": shares.get(COMPUTER_SEAT, 0), "doing": _bot_doing(state)}
        )
    spectating = spectators(room, None)
    return {"roster": players, "roster_more": cut.more, "spectators": spectating, "bot": bot}


def _bot_doing(state: engine.GameState | None) -> str:
    """What the roster says the bot is up to: waiting for a person's first reveal, solving, or
    stuck until someone guesses."""
    if state is None or state.is_over:
        return "done"
    if state.field is None:
        return "waiting"
    return "stuck" if rules.bot_cell(state) is None else "solving"


def game_context(room: Room, game: Game) -> dict[str, Any]:
    """Everything the room page and a snapshot show."""
    state = engine.from_dict(game.state)
    return {
        **_around_board(room, game, state),
        "rows": board_rows(state),
        "cell_words": words.WORDS,
    }


def _around_board(room: Room, game: Game, state: engine.GameState) -> dict[str, Any]:
    return {
        "room": room,
        "game": game,
        "state": state,
        "width": state.config.width,
        "board_title": engine.board_title(
            state.config.width, state.config.height, state.config.mines
        ),
        "mines_left": state.mines_left,
        "compact": compact(state),
        "ended_by": _player(room, state.ended_by),
        **roster(room, state, rules.has_bot(game.params)),
        **banner(room, game, state),
    }


def banner(room: Room, game: Game, state: engine.GameState) -> dict[str, Any]:
    if not state.is_over:
        return {}
    shares = Counter(state.revealed.values())
    total = sum(shares.values()) or 1
    players: dict[int, Player | BotSeat] = {p.number: p for p in room.players.all()}
    players[COMPUTER_SEAT] = BOT
    split = [
        {"player": players.get(seat), "percent": round(100 * n / total)}
        for seat, n in shares.most_common()
    ]
    return {"split": split, "stats": history.banner_stats(game, players)}


def _player(room: Room, seat: int | None) -> Player | None:
    if seat is None:
        return None
    return next((player for player in room.players.all() if player.number == seat), None)


def snapshot_html(room: Room, game: Game, narration: str = "") -> str:
    """The whole game; with `narration`, also a line for the live region (a new game)."""
    state = engine.from_dict(game.state)
    context = {**_around_board(room, game, state), "rows": (), "narration": narration}
    cells = _board_cells(state, context["compact"])
    fast = _fill(
        render_to_string(f"{TEMPLATE}#snapshot", context), '<div id="board"', False, [cells]
    )

    def plain() -> str:
        return render_to_string(f"{TEMPLATE}#snapshot", {**context, "rows": board_rows(state)})

    return _checked("snapshot", fast, plain)


def _board_cells(state: engine.GameState, compact: bool) -> str:
    """Every cell of the board as a snapshot shows it, kept by what decides each cell's look
    (the public view reads no more than this), so a board edited in place can never show a
    kept copy, and every fresh board of one size shares one."""
    field = state.field
    key = (
        state.grid.width,
        state.grid.height,
        compact,
        state.status,
        frozenset(state.revealed),
        frozenset(state.flags),
        state.exploded,
        None if field is None else field.mines,
        None if field is None else field.counts,
    )
    with _boards_lock:
        kept = _boards.get(key)
    if kept is None:
        kept = "".join(
            cell_html(x, y, shown, count, True, compact)
            for y, row in enumerate(engine.public_board(state))
            for x, (shown, count) in enumerate(row)
        )
        with _boards_lock:
            _boards[key] = kept
    return kept


def new_game_html(room: Room, game: Game, news: NewGame) -> str:
    """The new board for everyone, and who started it: a restart of a game under way says so,
    since it wiped cells the others had opened."""
    if news.starter is None:
        return snapshot_html(room, game, "A new game started.")
    if news.interrupted:
        return snapshot_html(room, game, f"{news.starter} restarted the game.")
    return snapshot_html(room, game, f"New game started by {news.starter}.")


def gather(room: Room, game: Game, applied: Applied) -> Room | None:
    """The room with its seats, for a move whose fragments name people: the banner at a game's
    end (who revealed how much), and the roster in rooms with the Solver bot. None for the rest
    (most moves), which name only the mover."""
    if rules.has_bot(game.params) or applied.status != "playing":
        # the banner's figures, from the move log and this move's board: kept for move_html
        history.end_stats(game, applied.loaded(engine.from_dict))
        return Room.objects.prefetch_related("players").get(pk=room.pk)
    return None


def move_html(news: MoveNews) -> str:
    """Only what the move changed: the cells, the counters, and the banner when it ends."""
    game, applied, mover = news.game, news.applied, news.mover
    state = applied.loaded(engine.from_dict)
    cells = _lean_cells(state.grid, applied.events)  # lean in every move: a first cascade too
    templated = state.is_over or game.version == 1 or mover is None or rules.has_bot(game.params)
    if not templated:
        assert mover is not None
        fast: str | None = _midgame_move_html(game, mover, cells)
        return _checked("midgame move", fast, lambda: _plain_move_html(news, state, "lean_move"))
    context = _move_context(news, state)
    fast = _fill(render_to_string(f"{TEMPLATE}#move", context), '<div id="game-meta"', True, cells)
    return _checked("move", fast, lambda: _plain_move_html(news, state, "move"))


def _move_context(news: MoveNews, state: engine.GameState) -> dict[str, Any]:
    """What the `move` partial shows besides the cells: the first and last moves of a game, the
    Solver bot's (the roster), and every move in a room with the bot."""
    game, applied, mover = news.game, news.applied, news.mover
    room = news.facts if news.facts is not None else news.room
    return {
        "room": room,
        "game": game,
        "state": state,
        "cells": (),
        "mines_left": state.mines_left,
        "narration": narrate(mover, applied, state),
        "ended_by": mover if state.is_over else None,
        **_roster_change(room, game, applied, mover, state),
        **banner(room, game, state),
    }


def _plain_move_html(news: MoveNews, state: engine.GameState, partial: str) -> str:
    """The move through its template alone: what the fast rendering is checked against."""
    changes = engine.changed_cells(state.grid, news.applied.events)
    cells = [cell(c.x, c.y, c.state, c.count) for c in changes]
    context = {**_move_context(news, state), "cells": cells, "by": news.mover}
    return render_to_string(f"{TEMPLATE}#{partial}", context)


def _midgame_move_html(game: Game, mover: Player, cells: Iterable[str]) -> str:
    """The `lean_move` partial, for most moves: neither the first nor the last of a game (no
    timer, face or banner) by a person in a room without the Solver bot (no roster). Only what a
    screen cannot work out: the version, who moved, and each changed cell's id, state and count;
    room.js updates the cells in place and derives their labels, the mines counter, the mover's
    share and the narration line, in `words.WORDS` (docs/performance.md, issue 17). Written out
    here because the template machinery costs several times the few elements it writes, on the
    database thread of every move; `_checked` compares it with the partial as for kept cells."""
    return "".join(
        (
            f'<div id="game-meta" data-game="{game.number}" data-version="{game.version}"'
            f' data-status="{escape(game.status)}" data-seat="{mover.number}"'
            f' data-by="{escape(mover.nickname)}"></div>',
            *cells,
        )
    )


def lean_cell_html(x: int, y: int, state: str, count: int | None) -> str:
    """A changed cell as every move carries it: the cell contract's id, state and count (the
    page keeps its cell and updates it in place; room.js)."""
    counted = "" if count is None else f' data-count="{count}"'
    return f'<button id="cell-{x}-{y}" data-state="{state}"{counted}></button>'


def _lean_cells(grid: Grid, events: Iterable[object]) -> Iterator[str]:
    """`lean_cell_html` of every cell the events changed, from the engine's cell values: no
    object per cell of a large opening, which was a tenth of a busy room's CPU
    (docs/performance.md); the count only on a revealed cell."""
    revealed = engine.CellState.REVEALED
    for x, y, state, count in engine.changed_cell_values(grid, events):
        yield lean_cell_html(x, y, state.value, count if state is revealed else None)


def _roster_change(
    room: Room, game: Game, applied: Applied, mover: Player | None, state: engine.GameState
) -> dict[str, Any]:
    """What a move changes in the roster: only the mover's share of the board, and only when it
    revealed cells. Presence, seats and the bot come in fragments of their own, so the roster (a
    query, and about 500 of a flag's 1,300 bytes) is re-sent only in rooms with the Solver bot,
    whose "solving / stuck" can change with any move; there `room` is as `gather` read it."""
    if rules.has_bot(game.params):
        return roster(room, state, bot=True)
    if mover is None or not applied.summary.get("revealed"):
        return {}
    mine = sum(1 for seat in state.revealed.values() if seat == mover.number)
    return {"share": {"seat": mover.number, "revealed": mine}}


def narrate(mover: Player | None, applied: Applied, state: engine.GameState) -> str:
    """One line for screen readers and the activity line; `mover` is None for the Solver bot."""
    name = mover.nickname if mover is not None else rules.BOT_NAME
    if state.status is engine.Status.LOST:
        return f"{name} hit a mine. Game over."
    if state.status is engine.Status.WON:
        return f"{name} cleared the board. The players won!"  # spectators read it too
    revealed = applied.summary.get("revealed", 0)
    if revealed:
        line = words.plural("opened", revealed).format(name=name, count=revealed)
        return f"{line} {BOT_STUCK}" if applied.summary.get("stuck") else line
    flag = next((e for e in applied.events if isinstance(e, engine.CellChange)), None)
    if flag is not None and flag.state is engine.CellState.FLAGGED:
        return words.say("flagged-at", name=name, row=flag.y + 1, column=flag.x + 1)
    if flag is not None:
        return words.say("unflagged", name=name)
    return words.say("moved", name=name)


def roster_html(room: Room, game: Game) -> str:
    state = engine.from_dict(game.state)
    context = {"room": room, "oob": True, **roster(room, state, rules.has_bot(game.params))}
    return render_to_string(f"{TEMPLATE}#roster", context)


def hint_html(room: Room, game: Game, asker: str, at: tuple[int, int] | None) -> str:
    """The hinted cell outlined (`data-hint="true"`), who asked, and the room's hint counter.

    Rendered from the board as it is now, after the commit: a cell revealed since the hint is
    left alone. No `#game-meta`: a hint is not a move, so it has no version of its own, and the
    highlight goes away by itself when the cell is next re-rendered (revealed, or a snapshot).
    """
    state = engine.from_dict(game.state)
    cells = []
    if at is None:
        narration = f"{asker} asked for a hint. {rules.NO_SAFE_CELL}"
    else:
        x, y = at
        narration = f"{asker} asked for a hint: row {y + 1}, column {x + 1} is safe."
        shown, count = state.cell_state(state.grid.index(x, y))
        if not state.is_over and shown is not engine.CellState.REVEALED:
            cells.append(cell(x, y, shown, count, hint=True))
    context = {"room": room, "game": game, "cells": cells, "narration": narration}
    return render_to_string(f"{TEMPLATE}#hint", context)


def bot_html(room: Room, game: Game, host: str, on: bool, stuck: bool) -> str:
    """The roster with (or without) the Solver bot, and a line saying who changed it."""
    state = engine.from_dict(game.state)
    if on:
        later = BOT_WAITING if state.field is None else BOT_STUCK if stuck else ""
        narration = f"{host} added the {rules.BOT_NAME}. {later}".strip()
    else:
        narration = f"{host} removed the {rules.BOT_NAME}."
    context = {"room": room, "narration": narration, **roster(room, state, on)}
    return render_to_string(f"{TEMPLATE}#bot", context)


def describe_settings(settings: dict[str, Any]) -> str:
    return f"{settings['width']}×{settings['height']} · {settings['mines']} mines"


def spectators_html(count: int | None) -> str:
    """The spectator count alone, swapped by itself: all that changes when spectators come or
    go."""
    return render_to_string(f"{TEMPLATE}#spectators", {"spectators": count, "spectators_oob": True})
