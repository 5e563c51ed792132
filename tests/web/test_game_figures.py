"""The figures of a past game read the same everywhere (issue 25, items 3 and 4): a lost game's
3BV is what it solved out of the board's, every view rounds one way, and a game between
computers credits each move to the computer that made it and says who won."""

import re
from datetime import timedelta
from fractions import Fraction

import pytest
from django.test import Client

from games.kinds.flags import rules as flags
from games.kinds.tictactoe import rules as tictactoe
from games.protocol.messages import SquareMove
from games.rooms import computers, dispatch, joining
from games.store.models import Game, Move, Room
from games.web import history
from tests.helpers.replays import lose, win
from tests.helpers.web import records_html, table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_timelines():
    history.forget_timelines()  # ids come again in a flushed database
    yield
    history.forget_timelines()


def half_up(value: Fraction) -> str:
    """The exact ratio to 0.01, a half rounded up: the rule docs/api.md names."""
    hundredths = (value * 100 + Fraction(1, 2)).__floor__()
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def time_game(game: Game, ms: int) -> None:
    """Every move of `game` at its first move's time, the last `ms` later: the game's time."""
    moves = Move.objects.filter(game=game).order_by("seq")
    start = moves.first().created_at
    moves.update(created_at=start)
    Move.objects.filter(pk=moves.last().pk).update(created_at=start + timedelta(milliseconds=ms))
    history.forget_timelines()


def test_a_lost_game_shows_the_3bv_it_solved_and_rates_on_that(client: Client, room, ana):
    lose(room, ana)
    game = room.current_game()
    time_game(game, 940)
    stats = client.get(f"/api/rooms/{room.code}/games/{game.number}").json()["stats"]
    solved, total = stats["solved_three_bv"], stats["three_bv"]
    assert 0 < solved < total
    assert stats["bv_per_s"] == float(half_up(Fraction(solved * 100, 94)))
    assert stats["ioe"] == float(half_up(Fraction(solved, stats["clicks"])))
    html = client.get(f"/r/{room.code}/games/{game.number}/").content.decode()
    assert f'<dd class="three-bv">{solved} / {total}</dd>' in html
    assert f"<dd>{half_up(Fraction(solved * 100, 94))}</dd>" in html


def test_a_won_game_shows_the_same_digits_in_its_replay_history_and_records(
    client: Client, room, ana
):
    win(room, ana)
    game = room.current_game()
    # From the timeline, not the API: the API's view is kept per version, and `time_game` below
    # rewrites the log's times behind the version's back.
    bv = history.timeline_of(room, game).stats["three_bv"]
    # A time whose 3BV/s lies just under a half at the third decimal: rounding twice (to 0.001,
    # then to 0.01) gives a digit more than rounding once.
    centis = next(
        t
        for t in range(100, 100_000)
        if half_up(Fraction(round(bv * 100 / t, 3)).limit_denominator())
        != half_up(Fraction(bv * 100, t))
    )
    time_game(game, centis * 10)
    expected = half_up(Fraction(bv * 100, centis))
    replay = client.get(f"/r/{room.code}/games/{game.number}/").content.decode()
    assert f"<dt>3BV/s</dt><dd>{expected}</dd>" in replay
    listed = client.get(f"/r/{room.code}/history/").content.decode()
    assert f'<span class="history-speed">{expected} 3BV/s</span>' in listed
    assert f'<td class="num">{expected}</td>' in table(records_html(client), "beginner")
    api = client.get(f"/api/rooms/{room.code}/games/{game.number}").json()["stats"]
    assert f"{api['bv_per_s']:.2f}" == expected


def replay_lines(client: Client, room: Room) -> list[str]:
    html = client.get(f"/r/{room.code}/games/1/").content.decode()
    return re.findall(r"<strong>([^<]*)</strong> (placed [XO]|opened|claimed|bombed)", html)


def test_two_computers_at_tictactoe_each_get_their_own_moves(client: Client):
    room = joining.create_room("tictactoe", tictactoe.validate_settings("perfect", "random"))
    computers.play_computer_turns(room)
    lines = replay_lines(client, room)
    assert len(lines) >= 5
    for k, (name, what) in enumerate(lines):
        mark = "XO"[k % 2]
        assert what == f"placed {mark}"
        assert name == {"X": "Computer (perfect)", "O": "Computer (random)"}[mark]
    listed = client.get(f"/r/{room.code}/history/").content.decode()
    assert "Computer (perfect), Computer (random)" in listed
    game = room.current_game()
    said = "Computer (perfect) won" if game.status == "won" else "Draw"
    assert said in listed
    assert said in client.get(f"/r/{room.code}/games/1/").content.decode()


def test_two_computers_at_flags_each_get_their_own_moves(client: Client):
    room = joining.create_room("flags", flags.validate_settings("strong", "easy"))
    computers.play_computer_turns(room)
    game = room.current_game()
    assert game.is_over
    names = {name for name, _ in replay_lines(client, room)}
    assert names == {"Computer (strong)", "Computer (easy)"}
    listed = client.get(f"/r/{room.code}/history/").content.decode()
    assert re.search(r"Computer \((strong|easy)\) won", listed)


def test_a_person_who_lost_to_the_computer_reads_that_the_computer_won(client: Client):
    room = joining.create_room("tictactoe", tictactoe.validate_settings("human", "perfect"))
    cy = joining.join_room(room, "Cy")
    while not room.current_game().is_over:
        free = [n for n, mark in enumerate(room.current_game().state["squares"]) if mark == "."]
        dispatch.play(room, cy, SquareMove(free[0]))
        computers.play_computer_turns(room)
    game = room.current_game()
    assert game.status == "won"
    listed = client.get(f"/r/{room.code}/history/").content.decode()
    assert "Computer (perfect) won" in listed and "Cy won" not in listed
    replay = client.get(f"/r/{room.code}/games/1/").content.decode()
    assert 'data-status="won">Computer (perfect) won</span>' in replay
    assert "<strong>Cy</strong> placed X" in replay


def test_race_results_show_two_decimals_as_every_other_view():
    from django.template.loader import render_to_string

    row = {
        "seat": 0,
        "place": 1,
        "time_ms": 11_330,
        "time_s": "11.33 s",
        "standing": "finished",
        "mines_hit": 0,
        "three_bv": 17,
        "bv_per_s": 1.5,
        "clicks": 11,
        "ioe": 1.515,
        "name": {"nickname": "Ana", "colour": "0"},
    }
    html = render_to_string("games/race.html#results", {"rows": [row]})
    assert "<td>1.50</td><td>11</td><td>1.52</td>" in html


def test_race_results_scroll_sideways_from_the_keyboard_too():
    """On a phone the results table is wider than the screen: its scrolling box takes the focus
    and is named by the heading (axe: scrollable-region-focusable), in the room and the replay."""
    from django.template.loader import render_to_string

    row = {"seat": 0, "place": 1, "name": {"nickname": "Ana", "colour": "0"}}
    player = {"seat": 0, "place": 1, "name": "Ana", "colour": "0"}
    room = render_to_string("games/race.html#results", {"rows": [row]})
    replay = render_to_string(
        "games/race_stats.html#race_results", {"stats": {"players": [player]}}
    )
    for html in (room, replay):
        box = re.search(r'<div class="results-scroll"[^>]*>', html)
        assert box, html
        assert 'tabindex="0"' in box[0] and 'role="region"' in box[0], box[0]
        assert 'aria-labelledby="results-title"' in box[0] and 'id="results-title"' in html
