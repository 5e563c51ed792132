"""HTML for race rooms: each screen sees only what it may (docs/contracts.md, "Markup").

Three views of one race:
- a racer: their own board in full (`#board`, cells `cell-X-Y`); while they race, every racer
  as a progress card (`board-SEAT`: share of safe cells open, mines hit, standing) and no cells
  at all: the boards share one seed, so even a rival's "opened" cell is a known-safe cell.
  Once the race is over, or once this racer is out of it, the rivals' boards in full: while
  others still race, as late as the spectators see them (`audiences.LATE`), so that someone who
  stopped cannot coach those still racing;
- a seated player who is not racing (joined late): the progress cards alone (they share the
  players' chat with the racers, so they could pass on anything they saw);
- a spectator: every board in full, a few seconds late (`spectator_delay`).

A move is rendered at most three times (`move_html`): the mover's text (`seat:N`), everyone
seated (`players`) and the spectators; the mover's text is the players' one plus their own
cells, so a racer gets exactly one text per version. A racer who is out gets the players' text
plus every changed board in full, behind `audiences.LATE`: their sockets hear it, and all that
follows until the race is over, as late as the spectators'. Timed events that change several boards at once (Go, a
computer racer's move) add one text per racer whose own board changed. Cells are written here
rather than through the template engine: a cascade or a snapshot has thousands.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from django.template.loader import render_to_string
from django.utils.html import escape

from games.engine import minesweeper as ms
from games.engine import race as engine

from ...protocol import audiences
from ...store.models import Game, Room
from ..roster import roster_cut, spectators
from ..table import COMPUTER_SEAT, Applied, MoveNews, NewGame
from . import rules
from .boards import blank_board, full_cell, lobby_board, own_board, own_cell
from .rivals import (
    NOBODY,
    Name,
    names_of,
    place_html,
    racer_status,
    rivals_html,
    sees_boards,
    shown_seconds,
)

TEMPLATE = "games/race.html"

# The race's bar, the freeze, the results -------------------------------------------------------


def _race_bar(
    room: Room, race: engine.Race, me: engine.Racer | None, seated: bool, now: int
) -> str:
    go_ms = max(0, race.go_at - now) if race.go_at is not None else 0
    context = {
        "room": room,
        "race": race,
        "phase": race.phase.value,
        "me": me,
        "seated": seated,
        "go_ms": go_ms,
        "go_s": -(-go_ms // 1000),
        "elapsed_ms": _elapsed(race, me, now),
        "limit_ms": _limit_left(race, now),
        "settings": room.settings,
        "racers": len(race.racers),
        "entrants": entrants(room),
        "oob": True,
    }
    return render_to_string(f"{TEMPLATE}#bar", context)


def entrants(room: Room, players: list[Any] | None = None) -> int:
    """How many would race if the host started now: every seat, and the Solver bot."""
    seated = len(players if players is not None else room.players.all())
    return seated + (1 if rules.has_bot(room.settings) else 0)


def _limit_left(race: engine.Race, now: int) -> int | None:
    """What is left of the time limit while the race runs, or None."""
    limit = race.rules.time_limit_ms
    if limit is None or race.go_at is None or race.phase is not engine.Phase.RACING:
        return None
    return max(0, race.go_at + limit - now)


def _elapsed(race: engine.Race, me: engine.Racer | None, now: int) -> int:
    """The race clock at render time: from Go; stopped at the viewer's finish or the end."""
    if race.go_at is None or race.phase in (engine.Phase.LOBBY, engine.Phase.COUNTDOWN):
        return 0
    end = race.ended_at if race.ended_at is not None else now
    if me is not None and me.finished_at is not None:
        end = me.finished_at
    return max(0, end - race.go_at)


def _freeze(racer: engine.Racer | None, now: int) -> str:
    left = 0
    if racer is not None and racer.frozen_until is not None and racer.frozen(now):
        left = racer.frozen_until - now
    attrs = f' data-ms="{left}"' if left else ""
    text = f"Mine! Frozen for {left / 1000:.1f} s" if left else ""
    return f'<div id="freeze" class="freeze" role="status"{attrs} hx-swap-oob="true">{text}</div>'


def _mines_left(racer: engine.Racer) -> str:
    """The racer's own counter (mines minus their flags), sent to them alone with each change of
    their board: the race bar drew it once at Go and no move redrew it (issue 35)."""
    return (
        f'<output id="mines-left" class="lcd" aria-label="Mines left" hx-swap-oob="true">'
        f"{racer.board.mines_left:03d}</output>"
    )


def _results(race: engine.Race, names: Mapping[int, Name], room: Room, game: Game) -> str:
    if not race.is_over:
        return '<section id="results" class="results" hidden hx-swap-oob="true"></section>'
    rows = [
        {
            **rules.result_facts(r),
            "name": names.get(r.seat, NOBODY),
            "time_s": shown_seconds(r.time_ms),
            "ended": rules.ENDED[r.standing],
        }
        for r in engine.results(race)
    ]
    context = {"rows": rows, "game": game, "room": room, "oob": True}
    return render_to_string(f"{TEMPLATE}#results", context)


def _meta(game: Game, status: str | None = None) -> str:
    return (
        f'<div id="game-meta" hidden data-game="{game.number}" data-version="{game.version}"'
        f' data-status="{escape(status or game.status)}" hx-swap-oob="true"></div>'
    )


def _narration(text: str) -> str:
    return f'<p id="narration" class="narration" aria-live="polite" hx-swap-oob="innerHTML">{escape(text)}</p>'


# Snapshots ---------------------------------------------------------------------------------


def viewer_snapshot_html(room: Room, game: Game, seat: int | None, narration: str = "") -> str:
    """The whole race as `seat` (None: a spectator) may see it; for a seat, with the sign that
    says whether its sockets hear it at once or, out of a race still running, late."""
    race = rules.load(game.state)
    html = _viewer_html(room, game, race, seat, narration)
    return html if seat is None else signed(race, seat, html)


def signed(race: engine.Race, seat: int, html: str) -> str:
    """`html` for `seat`'s screens, late while the seat is out of a race others still run."""
    if seat in rules.stopped(race):
        return audiences.LATE + html
    return audiences.LIVE + html


def _viewer_html(
    room: Room, game: Game, race: engine.Race, seat: int | None, narration: str = ""
) -> str:
    names = names_of(room)
    now = rules.now_ms()
    me = race.racer(seat) if seat is not None else None
    if race.phase is engine.Phase.LOBBY:
        board = lobby_board(race)
    elif me is not None:
        board = own_board(race, me)
    elif seat is not None:
        board = blank_board(race, "You are watching this race: you race in the next one.")
    else:
        board = blank_board(race, "")
    parts = [
        _meta(game),
        _race_bar(room, race, me, seat is not None, now),
        board,
        _freeze(me, now),
        rivals_html(race, names, now, full=seat is None or sees_boards(race, me)),
        _results(race, names, room, game),
        roster_html(room, game),
        render_to_string("games/partials.html#error", {"oob": True}),
    ]
    if narration:
        parts.append(_narration(narration))
    return "".join(parts)


def snapshot_html(room: Room, game: Game) -> str:
    """Everyone's snapshot, where the shell wants one text: a seated non-racer's view, which
    shows no board (only progress)."""
    return _viewer_html(room, game, rules.load(game.state), -1)


def _per_viewer(room: Room, game: Game, narration: str) -> dict[str, str]:
    """Every racer's own snapshot, the seated non-racers' and the spectators'."""
    race = rules.load(game.state)
    texts = {audiences.seat(s): viewer_snapshot_html(room, game, s, narration) for s in race.seats}
    # Signed too: in a rematch's lobby the last race's racers, late while it ran, take this.
    texts[audiences.PLAYERS] = viewer_snapshot_html(room, game, -1, narration)
    texts[audiences.SPECTATORS] = viewer_snapshot_html(room, game, None, narration)
    return texts


def new_game_html(room: Room, game: Game, news: NewGame) -> dict[str, str]:
    """A rematch: a new lobby for everyone (no boards yet, so one view for all but spectators,
    who see it late)."""
    who = news.starter or "Someone"
    line = f"{who} set up a rematch: a new board, the same settings. The host starts it."
    return _per_viewer(room, game, line)


def game_context(room: Room, game: Game) -> dict[str, Any]:
    """The page's frame; what is in it comes with the socket's first snapshot, which is the
    viewer's own (a spectator's comes a few seconds late, like everything they see)."""
    race = rules.load(game.state)
    return {
        "room": room,
        "game": game,
        "race": race,
        "width": race.grid.width,
        "height": race.grid.height,
        "settings": room.settings,
        "board_title": ms.board_title(race.grid.width, race.grid.height, room.settings["mines"]),
    }


# Moves ------------------------------------------------------------------------------------------

_WHOLE = (engine.CountdownStarted, engine.Went, engine.RaceOver)
"""Events that change every screen's layout: each viewer gets the whole race again."""
_NAMED = (*_WHOLE, engine.Penalised, engine.Finished, engine.Out)


def gather(room: Room, game: Game, applied: Applied) -> Room | None:
    """The room with its seats, for a move whose fragments name people or redraw every screen
    (a start, Go, a mine, a finish, the end); None for the rest, which name nobody."""
    if any(isinstance(e, _NAMED) for e in applied.events):
        return Room.objects.prefetch_related("players").get(pk=room.pk)
    return None


def move_html(news: MoveNews) -> dict[str, str]:
    """The move's texts: the mover's (their own cells too), the players' (progress), the
    spectators' (every board in full)."""
    game, applied = news.game, news.applied
    race = applied.loaded(rules.load)
    room = news.facts if news.facts is not None else news.room
    names = names_of(room) if news.facts is not None else {}
    if any(isinstance(e, _WHOLE) for e in applied.events):
        return _per_viewer(room, game, narrate(applied.events, names))
    now = rules.now_ms()
    changed = engine.changed_seats(applied.events)
    places = engine.places(race)
    common = [_meta(game, applied.status)]
    for seat in sorted(changed):
        racer = race.racer(seat)
        assert racer is not None
        common.append(racer_status(race, racer, places.get(seat), now))
    if changed:  # the others' places may have moved too
        common.extend(place_html(race, s, places.get(s)) for s in race.seats if s not in changed)
    line = narrate(applied.events, names)
    if line:
        common.append(_narration(line))
    if any(isinstance(e, (engine.Finished, engine.Out)) for e in applied.events):
        common.append(roster_html(room, game))  # the roster says who finished, who is out
    full: list[str] = []  # every changed board in full: spectators, and racers who are out
    own: dict[int, list[str]] = {}
    grid = race.grid
    for event in applied.events:
        if not isinstance(event, engine.BoardChanged):
            continue
        mine = own.setdefault(event.seat, [])
        for c in ms.changed_cells(grid, event.changes):
            mine.append(own_cell(c.x, c.y, c.state, c.count))
            full.append(full_cell(event.seat, c.x, c.y, c.state, c.count))
    for seat in changed:
        racer = race.racer(seat)
        assert racer is not None
        extra = own.setdefault(seat, [])
        extra.append(_freeze(racer, now))
        extra.append(_mines_left(racer))
        if not racer.is_racing:  # out or finished just now: the bar says so
            extra.append(_race_bar(room, race, racer, True, now))
    players_text, full_text = "".join(common), "".join(full)
    texts = {audiences.PLAYERS: players_text, audiences.SPECTATORS: players_text + full_text}
    for seat, extra in own.items():
        if seat != COMPUTER_SEAT:
            texts[audiences.seat(seat)] = players_text + "".join(extra)
    for seat in rules.stopped(race):  # out while others race: the rivals' boards, late
        key = audiences.seat(seat)
        boards = rivals_html(race, names, now, full=True) if seat in changed else full_text
        texts[key] = texts.get(key, players_text) + audiences.LATE + boards
    return texts


def narrate(events: Iterable[object], names: Mapping[int, Name]) -> str:
    lines = []
    for event in events:
        name = names.get(getattr(event, "seat", -1), NOBODY).nickname
        if isinstance(event, engine.CountdownStarted):
            lines.append(f"Get ready: {len(event.seats)} racers, Go in 3 seconds.")
        elif isinstance(event, engine.Went):
            lines.append("Go!")
        elif isinstance(event, engine.Penalised):
            lines.append(f"{name} hit a mine.")
        elif isinstance(event, engine.Finished):
            lines.append(f"{name} finished in {event.time_ms / 1000:.2f} s.")
        elif isinstance(event, engine.Out):
            lines.append(f"{name} is out ({rules.OUT[event.standing]}).")
        elif isinstance(event, engine.RaceOver):
            lines.append("The race is over.")
    return " ".join(lines)


# Roster, spectators, bot, settings ---------------------------------------------------------------


def roster_html(room: Room, game: Game) -> str:
    race = rules.load(game.state)
    players = list(room.players.all())  # one query for the cut and the host's presence
    cut = roster_cut(players)
    running = race.phase in (engine.Phase.COUNTDOWN, engine.Phase.RACING)
    racing = set(race.seats) if running else set()
    for player in cut.shown:  # for the template, which cannot look a seat up in a dict
        racer = race.racer(player.number)
        player.race_word = "" if racer is None else race_word(racer)
    context = {
        "room": room,
        "roster": cut.shown,
        "roster_more": cut.more,
        "racing": racing,
        "running": running,
        "bot_racing": COMPUTER_SEAT in racing,
        "spectators": spectators(room, rules.playing_seats(game.state, game.params)),
        "bot": rules.has_bot(room.settings),
        "bot_pace": room.settings.get("bot_pace", 2),
        "paces": rules.PACES,
        "lobby": race.phase is engine.Phase.LOBBY,
        "entrants": entrants(room, players),
        "host_away": race.phase is engine.Phase.LOBBY
        and not any(p.pk == room.host_id and p.online for p in players),
        "oob": True,
    }
    return render_to_string(f"{TEMPLATE}#roster", context)


_ROSTER_WORDS = {
    engine.Standing.RACING: "racing",
    engine.Standing.FINISHED: "finished",
    engine.Standing.ELIMINATED: "out",
    engine.Standing.GAVE_UP: "out",
    engine.Standing.TIMED_OUT: "out",
    engine.Standing.DNF: "left",
}


def race_word(racer: engine.Racer) -> str:
    """A racer's standing as the roster says it (racing, finished, out or left); whether they
    are online or away follows it there."""
    return _ROSTER_WORDS[racer.standing]


def spectators_html(count: int | None) -> str:
    return render_to_string(f"{TEMPLATE}#spectators", {"spectators": count, "spectators_oob": True})


def bot_html(room: Room, game: Game, host: str, on: bool, stuck: bool) -> str:
    race = rules.load(game.state)
    later = "" if race.phase is engine.Phase.LOBBY else " From the next race."
    pace = room.settings.get("bot_pace", 2)
    cells = "cell" if pace == 1 else "cells"
    line = f"{host} set the {rules.BOT_NAME} to race at {pace} {cells} a second.{later}"
    if not on:
        line = f"{host} removed the {rules.BOT_NAME}.{later}"
    return roster_html(room, game) + _narration(line)


def describe_settings(settings: Mapping[str, Any]) -> str:
    penalty = (
        "mine = out" if settings.get("eliminate") else f"{settings.get('penalty', 5)} s penalty"
    )
    return (
        f"Race · {settings['width']}×{settings['height']} · {settings['mines']} mines · {penalty}"
    )


def spectator_delay(room: Room) -> float:
    return float(room.settings.get("spectator_delay", 3))
