"""Race replays, history and records (issue 16 for races), through the real API, pages and
services: every racer's board at each step of the replay is the board the race had then; a race
under way is never rewound; a finished race's winner lands on the race winners' table of its
board, an unfinished race nowhere."""

import datetime
import re

import pytest
from django.test import Client

from games.engine import race as engine
from games.kinds.race import history as race_history
from games.kinds.race import rules
from games.rooms import playing
from games.store.models import GameSummary, Move, Room
from games.web import history
from tests.helpers.race_replays import (
    api_race,
    go,
    numbered_hidden,
    race_of,
    replay_data,
    safe_hidden,
    send,
)
from tests.helpers.web import records_html, table

pytestmark = pytest.mark.django_db
HIDDEN = re.compile(r'data-state="(mine|exploded|flagged|wrong-flag|revealed)"')


@pytest.fixture(autouse=True)
def fresh_timelines():
    history.forget_timelines()  # ids come again in a flushed database
    yield
    history.forget_timelines()


def a_mine(code: str) -> tuple[int, int]:
    race = race_of(code)
    assert race.field is not None
    return race.grid.xy(min(race.field.mines))


def finish(client: Client, code: str, token: str, seat: int, snapshots: list | None = None) -> None:
    while (racer := race_of(code).racer(seat)) is not None and racer.is_racing:
        x, y = safe_hidden(code, seat)[0]
        assert send(client, code, token, action="reveal", x=x, y=y) == 200
        if snapshots is not None:
            snapshots.append(race_of(code))


def played_race(client: Client, **body) -> tuple[str, list[engine.Race]]:
    """Ana and Bo race (no penalty): Bo flags, unflags, hits a mine; Ana finishes; Bo gives up.
    Returns the room and the race as it stood after each move that changed a board."""
    code, (ana, bo) = api_race(client, penalty_seconds=0, **body)
    assert send(client, code, ana, action="start") == 200
    go(code)
    seen = [race_of(code)]
    mine = a_mine(code)
    for action, (x, y) in (("flag", mine), ("flag", mine), ("reveal", mine)):
        assert send(client, code, bo, action=action, x=x, y=y) == 200
        seen.append(race_of(code))
    x, y = numbered_hidden(code, 1)[0]  # a zero's cascade could finish Bo's board
    assert send(client, code, bo, action="reveal", x=x, y=y) == 200
    seen.append(race_of(code))
    finish(client, code, ana, 0, seen)
    assert send(client, code, bo, action="give_up") == 200
    seen.append(race_of(code))
    assert race_of(code).is_over
    return code, seen


def test_each_racers_board_at_every_step_is_the_board_the_race_had_then(client: Client):
    code, seen = played_race(client)
    room = Room.objects.get(code=code)
    game = room.current_game()
    timeline = history.timeline_of(room, game)
    assert timeline is not None and timeline.over and not timeline.withheld
    assert [part.seat for part in timeline.parts] == [0, 1]
    assert timeline.moves == len(seen)  # Go, then every move; the start shows nothing
    size = timeline.width * timeline.height
    for k, race in enumerate(seen, start=1):
        board = timeline.board_at(k)
        for part in timeline.parts:
            racer = race.racer(part.seat)
            assert racer is not None
            mine = board[part.offset : part.offset + size]
            assert mine == race_history.board_chars(racer), (k, part.seat)
    # The same boards the engine gives when it replays the log on its own.
    rows = [
        (m.seat, m.action, m.x, m.y, m.created_at.timestamp())
        for m in Move.objects.filter(game=game).order_by("seq")
    ]
    again = rules.replay(game.params, game.seed, game.state, rows)
    end = timeline.board_at(timeline.moves)
    for part in timeline.parts:
        racer = again.racer(part.seat)
        assert racer is not None
        assert end[part.offset : part.offset + size] == race_history.board_chars(racer)
    # Each step is outlined on the mover's own board, in their colour on the page.
    flag = timeline.steps[1]
    assert flag.seat == 1 and flag.target is not None and flag.target >= size
    assert "flagged" in flag.line and "removed the flag" in timeline.steps[2].line
    assert "hit a mine" in timeline.steps[3].line
    assert timeline.steps[0].seat == race_history.RACE_SEAT and "Go" in timeline.steps[0].line
    assert "finished in" in timeline.steps[-2].line
    assert timeline.steps[-1].line.startswith("gave up")


def test_the_replay_page_shows_every_racer_side_by_side_and_the_results(client: Client):
    code, seen = played_race(client)
    html = client.get(f"/r/{code}/games/1/?move=3").content.decode()
    assert 'class="replay replay-race"' in html
    assert 'id="board-0"' in html and 'id="board-1"' in html
    assert 'id="cell-1-0-0"' in html and 'id="cell-0-8-8"' in html
    data = replay_data(html)
    assert data["k"] == 3 and len(data["parts"]) == 2 and data["over"] is True
    assert len(data["mines"]) == 2 * 10  # show-all-mines, on both boards, after the race
    assert 'id="replay-show-mines"' in html
    results = html[html.index('id="results"') :]
    results = results[: results.index("</table>")]
    assert 'data-place="1"' in results and "Ana" in results and "Bo" in results
    assert 'data-seat="0" data-place="1"' in results
    for heading in ("Time", "Mines", "3BV", "3BV/s", "Clicks", "IOE"):
        assert f">{heading}<" in results
    assert "Ana won" in html


def test_a_race_under_way_is_not_rewound_and_says_why(client: Client):
    code, (ana, bo) = api_race(client, penalty_seconds=0)
    assert send(client, code, ana, action="start") == 200
    go(code)
    x, y = a_mine(code)
    assert send(client, code, bo, action="flag", x=x, y=y) == 200
    x, y = safe_hidden(code, 0)[0]
    assert send(client, code, ana, action="reveal", x=x, y=y) == 200
    for path in (f"/r/{code}/games/1/", f"/r/{code}/games/1/?move=3", f"/r/{code}/rewind/"):
        page = client.get(path, follow=True)
        assert page.status_code == 200
        html = page.content.decode()
        assert "cannot be rewound" in html and 'data-withheld="true"' in html
        assert "replay-data" not in html and not HIDDEN.search(html)
    api = client.get(f"/api/rooms/{code}/games/1").json()
    assert api["moves"] == [] and "boards" not in api and "stats" not in api


def test_the_games_endpoint_of_a_finished_race_gives_every_board_and_the_layout(client: Client):
    code, seen = played_race(client)
    api = client.get(f"/api/rooms/{code}/games/1").json()
    assert api["game"] == "race" and api["status"] == "won" and api["board"] is None
    assert [b["seat"] for b in api["boards"]] == [0, 1]
    final = seen[-1]
    for board in api["boards"]:
        racer = final.racer(board["seat"])
        assert racer is not None and board["rows"] == rules.board_rows(racer)
    assert final.field is not None
    assert sorted(api["mines"]) == sorted(list(final.grid.xy(c)) for c in final.field.mines)
    stats = api["stats"]
    assert stats["winner"] == 0 and stats["winner_name"] == "Ana"
    assert [p["name"] for p in stats["players"]] == ["Ana", "Bo"]
    assert stats["players"][0]["place"] == 1 and stats["players"][1]["standing"] == "gave-up"
    assert stats["time_ms"] == stats["players"][0]["time_ms"] > 0
    assert [m["action"] for m in api["moves"]][:2] == ["start", "tick"]


def test_a_finished_race_is_in_the_room_history_with_its_winner(client: Client):
    code, _ = played_race(client)
    listed = client.get(f"/r/{code}/history/").content.decode()
    assert f'href="/r/{code}/games/1/"' in listed
    assert "Ana won" in listed and "Ana, Bo" in listed and "3BV/s" in listed


def test_a_race_winner_lands_on_the_race_table_of_the_board_and_once(client: Client):
    code, _ = played_race(client, no_guess=False)
    guessing, _ = played_race(client, names=("Nora", "Ned"))  # no-guess, the API's default
    unfinished, (una, uli) = api_race(client, names=("Una", "Uli"))
    assert send(client, unfinished, una, action="start") == 200
    go(unfinished)
    html = records_html(client)
    race = table(html, "race-beginner")
    assert "Ana" in race and f"/r/{code}/games/1/" in race and "Bo" not in race
    assert "Ana" not in table(html, "beginner")  # not on the co-op teams' table
    assert "Nora" in table(html, "race-beginner-no-guess") and "Nora" not in race
    assert "Una" not in html and "Uli" not in html
    assert records_html(client).count(f"/r/{code}/games/1/") == 1
    assert GameSummary.objects.get(game__room__code=code).kind == "race"


def test_records_leave_out_wins_in_no_time_and_games_the_solver_bot_played(client: Client):
    code, _ = played_race(client, no_guess=False)
    assert "Ana" in table(records_html(client), "race-beginner")
    summary = GameSummary.objects.get(game__room__code=code)
    summary.with_bot = True
    summary.save()
    assert "Ana" not in table(records_html(client), "race-beginner")
    summary.with_bot, summary.time_ms = False, 0
    summary.save()
    assert "Ana" not in table(records_html(client), "race-beginner")
    page = records_html(client)
    assert "Solver bot" in page and "0.00 s" in page  # the page says both


def shift_all(code: str, ms: int) -> None:
    """Everything in the race and its log `ms` earlier, as if it had been run that long ago."""
    game = Room.objects.get(code=code).current_game()
    state = dict(game.state)
    for key in ("go_at", "ended_at"):
        if state[key] is not None:
            state[key] -= ms
    state["racers"] = [
        {
            **racer,
            **{
                key: racer[key] - ms
                for key in ("frozen_until", "away_since", "finished_at", "next_at")
                if racer[key] is not None
            },
        }
        for racer in state["racers"]
    ]
    game.state = state
    game.save(update_fields=["state"])
    for move in Move.objects.filter(game=game):
        move.created_at -= datetime.timedelta(milliseconds=ms)
        move.save(update_fields=["created_at"])


def test_a_person_who_beats_the_solver_bot_in_a_race_keeps_the_record(client: Client):
    code, (ana,) = api_race(client, names=("Ana",), time_limit_seconds=60, no_guess=False)
    assert send(client, code, ana, action="add_bot") == 200
    assert send(client, code, ana, action="start") == 200
    go(code)
    finish(client, code, ana, 0)
    shift_all(code, 61_000)  # the bot races on until the time limit puts it out
    while playing.tick(Room.objects.get(code=code)) is not None and not race_of(code).is_over:
        pass
    game = Room.objects.get(code=code).current_game()
    assert game.status == "won" and race_of(code).winner == 0
    html = records_html(client)
    summary = GameSummary.objects.get(game=game)
    assert summary.with_bot is False and summary.stats["winner_name"] == "Ana"
    assert "Ana" in table(html, "race-beginner")
