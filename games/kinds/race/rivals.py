"""The rivals in a race: each racer's name, standing, progress and place, as the cards beside a
racer's own board show them (full boards once the racer may see them, `sees_boards`)."""

from collections.abc import Mapping
from dataclasses import dataclass

from django.utils.html import escape

from games.engine import race as engine
from games.engine.stats import seconds

from ...store.models import Room
from ..table import COMPUTER_SEAT
from . import rules
from .boards import mini_board, progress_card


@dataclass(frozen=True, slots=True)
class Name:
    nickname: str
    colour: str


BOT = Name(rules.BOT_NAME, "bot")
NOBODY = Name("someone", "0")


def names_of(room: Room) -> dict[int, Name]:
    names = {p.number: Name(p.nickname, str(p.colour)) for p in room.players.all()}
    names[COMPUTER_SEAT] = BOT
    return names


def racer_status(race: engine.Race, racer: engine.Racer, place: int | None, now: int) -> str:
    """A racer's progress bar, place and state: swapped whenever it changes, for every view."""
    progress = racer.progress
    frozen = racer.frozen_until - now if racer.frozen_until and racer.frozen(now) else 0
    time_ms = None
    if racer.finished_at is not None and race.go_at is not None:
        time_ms = racer.finished_at - race.go_at
    words = {
        engine.Standing.RACING: "racing",
        engine.Standing.FINISHED: f"finished · {shown_seconds(time_ms)}",
        engine.Standing.ELIMINATED: "out: hit a mine",
        engine.Standing.GAVE_UP: "gave up",
        engine.Standing.DNF: "did not finish (left)",
        engine.Standing.TIMED_OUT: "out of time",
    }
    state = words[racer.standing]
    if racer.is_racing and frozen:
        state = "frozen"
    elif racer.is_racing and racer.away_since is not None:
        state = "away"
    place_text = place_words(race, place)
    return (
        f'<div id="status-{racer.seat}" class="racer-status" data-seat="{racer.seat}"'
        f' data-standing="{racer.standing.value}" data-progress="{progress}"'
        f' data-place="{place or ""}" data-frozen-ms="{frozen}" data-mines-hit="{len(racer.hits)}"'
        f' data-away="{"true" if racer.away_since is not None else "false"}"'
        f'{"" if time_ms is None else f' data-time-ms="{time_ms}"'} hx-swap-oob="true">'
        f'<span class="racer-place" id="place-{racer.seat}">{place_text}</span>'
        f'<progress max="100" value="{progress}" aria-label="Board cleared: {progress}%">'
        f"{progress}%</progress>"
        f'<span class="racer-state">{escape(state)} · {progress}%'
        f"{mines_hit(len(racer.hits))}</span></div>"
    )


def place_words(race: engine.Race, place: int | None) -> str:
    return f"#{place}" if place is not None and race.phase is not engine.Phase.LOBBY else ""


def place_html(race: engine.Race, seat: int, place: int | None) -> str:
    """A racer's place alone, for racers a move passed or let pass without changing their
    board: a few bytes each, where their whole status would be a few hundred."""
    return (
        f'<span class="racer-place" id="place-{seat}" hx-swap-oob="true">'
        f"{place_words(race, place)}</span>"
    )


def mines_hit(count: int) -> str:
    return f" · {count} mine{'s' if count != 1 else ''} hit" if count else ""


def shown_seconds(ms_: int | None) -> str:
    return "" if ms_ is None else f"{seconds(ms_):.2f} s"


def rival_card(
    race: engine.Race, racer: engine.Racer, place: int | None, now: int, name: Name, full: bool
) -> str:
    badge = '<span class="badge">bot</span>' if racer.is_bot else ""
    follow = (  # showing a board large needs a board
        f'<button type="button" class="button follow" data-follow="{racer.seat}"'
        f' aria-pressed="false" title="Show this board large">Follow</button>'
        if full
        else ""
    )
    status = racer_status(race, racer, place, now).replace(' hx-swap-oob="true"', "")
    body = status + mini_board(race, racer) if full else progress_card(racer, status)
    return (
        f'<section class="rival colour-{name.colour}" id="rival-{racer.seat}"'
        f' data-seat="{racer.seat}" data-standing="{racer.standing.value}"'
        f' aria-label="{escape(name.nickname)}">'
        f'<header class="rival-head"><span class="swatch" aria-hidden="true"></span>'
        f'<span class="name">{escape(name.nickname)}</span>{badge}{follow}</header>'
        f"{body}</section>"
    )


def rivals_html(race: engine.Race, names: Mapping[int, Name], now: int, full: bool) -> str:
    places = engine.places(race)
    cards = "".join(
        rival_card(race, r, places.get(r.seat), now, names.get(r.seat, NOBODY), full)
        for r in race.racers
    )
    view = "full" if full else "progress"
    return f'<div id="rivals" class="rivals" data-view="{view}" hx-swap-oob="true">{cards}</div>'


def sees_boards(race: engine.Race, me: engine.Racer | None) -> bool:
    """Whether a racer (None: a seated non-racer) may see the rivals' boards: once the race
    is over, or once they are out of it and nothing they learn can help them."""
    return race.is_over or (me is not None and not me.is_racing)
