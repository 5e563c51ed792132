"""Rated rooms and ratings (issue 36, docs/contracts.md "Players and ratings"): the `rated`
option on the forms and the API, guests and computers kept out, a rated race, Flags and
tic-tac-toe game's end moving ratings once (openskill's Plackett–Luce), `rating_changes` on the
API and the bots' events, and the ratings read back on the API, the profile and the
leaderboard."""

import json
import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.template.loader import render_to_string
from django.test import Client
from jsonschema import Draft202012Validator

from games.broadcast import announce, bot_events, outbox
from games.kinds.table import NewGame, Refused
from games.players import accounts
from games.protocol.messages import Command, SquareMove
from games.rooms import computers, dispatch, joining, leaving, ratings
from games.store.models import Game, Move, Player, Rating, RatingChange, Room
from games.web import standings
from tests.helpers.flags import mines as flags_mines
from tests.helpers.race import go_now, race_of, safe_and_mine
from tests.helpers.web import signed_in

pytestmark = pytest.mark.django_db

JSON = "application/json"
SIGN_IN = "Sign in to play rated games"


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def account(username: str) -> tuple[User, str]:
    """A new account and a personal token of it."""
    user = accounts.sign_up(username, "correct-horse-battery-9")
    return user, accounts.issue_token(user)


def rated_room(client: Client, body: dict, names=("Ana_r", "Bo_r")) -> tuple[str, list[str]]:
    """A rated room made and joined over the API by new accounts: its code and their seats'
    player tokens, by seat."""
    tokens = [account(name)[1] for name in names]
    made = client.post(
        "/api/rooms", {**body, "rated": True}, content_type=JSON, **bearer(tokens[0])
    )
    assert made.status_code == 201, made.content
    code, seats = made.json()["code"], [made.json()["player_token"]]
    for token in tokens[1:]:
        joined = client.post(f"/api/rooms/{code}/join", {}, content_type=JSON, **bearer(token))
        assert joined.status_code == 200, joined.content
        seats.append(joined.json()["player_token"])
    return code, seats


def move(client: Client, code: str, seat_token: str, **body):
    headers = {"Authorization": f"Bearer {seat_token}"}
    return client.post(f"/api/rooms/{code}/moves", body, content_type=JSON, headers=headers)


def ended_game(code: str) -> Game:
    game = Room.objects.get(code=code).current_game()
    assert game.is_over
    return game


def tictactoe_won_by_x(client: Client) -> tuple[str, list[str]]:
    code, seats = rated_room(client, {"game": "tictactoe", "x": "human", "o": "human"})
    for seat, cell in ((0, 0), (1, 3), (0, 1), (1, 4), (0, 2)):
        assert move(client, code, seats[seat], action="mark", cell=cell).status_code == 200
    return code, seats


# The option ---------------------------------------------------------------------------------


def test_the_home_page_offers_rated_for_race_flags_and_tictactoe(client):
    page = client.get("/").content.decode()

    assert page.count('name="rated"') == 3
    for fields in ("race-fields", "flags-fields", "tictactoe-fields"):
        part = page.split(f'id="{fields}"', 1)[1].split('class="game-fields"', 1)[0]
        assert 'name="rated"' in part


def test_the_openapi_schema_describes_rated_for_each_rated_kind(client):
    schema = client.get("/api/openapi.json").json()
    text = json.dumps(schema)

    rated = [
        name
        for name, model in schema["components"]["schemas"].items()
        if "rated" in model.get("properties", {})
    ]
    assert {"RaceOptions", "FlagsOptions", "TicTacToeOptions"} <= set(rated)
    assert "403" in schema["paths"]["/api/rooms"]["post"]["responses"]
    assert "rating_changes" in schema["components"]["schemas"]["RoomState"]["properties"]
    assert "Sign in" in text or "signed in" in text


def test_a_rated_room_keeps_rated_in_its_settings(client):
    code, _ = rated_room(client, {"game": "tictactoe", "x": "human", "o": "human"})

    room = Room.objects.get(code=code)
    assert room.settings["rated"] is True
    assert room.current_game().params["rated"] is True
    view = client.get(f"/api/rooms/{code}").json()
    assert view["rated"] is True and view["rating_changes"] == []


def test_an_unrated_room_is_as_before(client):
    made = client.post("/api/rooms", {"game": "tictactoe"}, content_type=JSON)

    room = Room.objects.get(code=made.json()["code"])
    assert "rated" not in room.settings
    assert "rated" not in client.get(f"/api/rooms/{room.code}").json()


# Guests and computers kept out ------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"game": "minesweeper", "mode": "race", "preset": "beginner"},
        {"game": "flags", "x": "human", "o": "human"},
        {"game": "tictactoe", "x": "human", "o": "human"},
    ],
)
def test_a_guest_creating_a_rated_room_over_the_api_gets_403(client, body):
    answer = client.post("/api/rooms", {**body, "rated": True}, content_type=JSON)

    assert answer.status_code == 403
    assert SIGN_IN in answer.json()["error"]
    assert not Room.objects.exists()


def test_a_guest_joining_a_rated_room_over_the_api_gets_403(client):
    code, _ = rated_room(client, {"game": "flags", "x": "human", "o": "human"}, names=("Ana_r",))

    answer = client.post(f"/api/rooms/{code}/join", {"name": "Guest"}, content_type=JSON)

    assert answer.status_code == 403
    assert SIGN_IN in answer.json()["error"]
    assert Player.objects.filter(room__code=code).count() == 1


def test_a_guest_ticking_rated_on_the_form_is_told_to_sign_in(client):
    answer = client.post(
        "/rooms/",
        {"game": "tictactoe", "nickname": "Ana", "x": "human", "o": "human", "rated": "on"},
    )

    assert answer.status_code == 403
    assert SIGN_IN in answer.content.decode()
    assert 'id="rated-error"' in answer.content.decode()
    assert not Room.objects.exists()


def test_a_signed_in_person_creates_a_rated_room_on_the_form_and_a_guest_cannot_join_it(client):
    browser, _ = signed_in("Ana_f")
    made = browser.post(
        "/rooms/", {"game": "flags", "x": "human", "o": "human", "mines": 51, "rated": "on"}
    )
    assert made.status_code == 302
    room = Room.objects.get()
    assert room.settings["rated"] is True

    guest = Client().post(f"/r/{room.code}/join/", {"nickname": "Guest"})

    assert guest.status_code == 403
    assert SIGN_IN in guest.content.decode()
    assert Player.objects.filter(room=room).count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "flags", "x": "human", "o": "strong"}, "computer"),
        ({"game": "tictactoe", "x": "perfect", "o": "human"}, "computer"),
        (
            {"game": "minesweeper", "mode": "race", "preset": "beginner", "no_guess": False},
            "no-guess",
        ),
    ],
)
def test_a_rated_room_refuses_computers_and_guessing_boards(client, body, field):
    _, token = account("Ana_c")

    answer = client.post("/api/rooms", {**body, "rated": True}, content_type=JSON, **bearer(token))

    assert answer.status_code == 400
    assert field in answer.json()["error"]


def test_the_solver_bot_cannot_join_a_rated_race(client):
    code, _ = rated_room(client, {"game": "minesweeper", "mode": "race", "preset": "beginner"})
    room = Room.objects.get(code=code)
    host = Player.objects.get(room=room, number=0)

    with pytest.raises(Refused, match="no computer"):
        computers.set_bot(room, host, True)
    assert not Room.objects.get(code=code).settings["bot"]


# A rated game's end ---------------------------------------------------------------------------


def test_a_rated_tictactoe_win_moves_both_ratings_once_and_says_so(client):
    code, _ = tictactoe_won_by_x(client)

    game = ended_game(code)
    winner, loser = (
        Rating.objects.get(account__username="Ana_r"),
        Rating.objects.get(account__username="Bo_r"),
    )
    assert winner.rating > 1500 > loser.rating and winner.games == loser.games == 1
    changes = client.get(f"/api/rooms/{code}").json()["rating_changes"]
    assert changes == [
        {"username": "Ana_r", "before": 1500, "after": winner.rating},
        {"username": "Bo_r", "before": 1500, "after": loser.rating},
    ]
    assert RatingChange.objects.filter(game=game).count() == 2


def test_a_second_end_of_the_same_game_changes_nothing(client):
    code, _ = tictactoe_won_by_x(client)
    game = ended_game(code)
    before = list(Rating.objects.order_by("pk").values_list("mu", "sigma", "rating", "games"))

    assert ratings.settle(game) == []

    assert (
        list(Rating.objects.order_by("pk").values_list("mu", "sigma", "rating", "games")) == before
    )
    assert RatingChange.objects.filter(game=game).count() == 2


def test_a_rated_tictactoe_draw_is_a_shared_rank(client):
    code, seats = rated_room(client, {"game": "tictactoe", "x": "human", "o": "human"})
    # X O X / X O O / O X X: nobody has three in a row
    for seat, cell in ((0, 0), (1, 1), (0, 2), (1, 4), (0, 7), (1, 5), (0, 3), (1, 6), (0, 8)):
        assert move(client, code, seats[seat], action="mark", cell=cell).status_code == 200

    assert ended_game(code).status == "draw"
    after = set(Rating.objects.values_list("rating", flat=True))
    assert after == {1500}  # equal ratings, a tie: nobody gains
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


def test_a_rated_flags_win_moves_the_ratings(client):
    code, seats = rated_room(client, {"game": "flags", "x": "human", "o": "human", "mines": 1})
    (x, y) = flags_mines(Room.objects.get(code=code))[0]

    assert move(client, code, seats[0], action="reveal", x=x, y=y).status_code == 200

    ended_game(code)
    assert Rating.objects.get(account__username="Ana_r").rating > 1500
    assert Rating.objects.get(account__username="Bo_r").rating < 1500


def start_rated_race(client: Client, names=("Ana_r", "Bo_r", "Cy_r")) -> tuple[str, list[str]]:
    code, seats = rated_room(
        client, {"game": "minesweeper", "mode": "race", "preset": "beginner"}, names=names
    )
    assert move(client, code, seats[0], action="start").status_code == 200
    go_now(Room.objects.get(code=code))
    return code, seats


def finish(client: Client, code: str, seats: list[str], seat: int) -> None:
    """Racer `seat` opens every safe cell of their board."""
    while race_of(code).racer(seat).finished_at is None:
        safe, _ = safe_and_mine(code, seat)
        x, y = safe[0]
        assert move(client, code, seats[seat], action="reveal", x=x, y=y).status_code == 200


def test_a_rated_race_rates_every_racer_by_place_as_one_result(client):
    code, seats = start_rated_race(client)

    finish(client, code, seats, 1)  # Bo first
    finish(client, code, seats, 0)  # Ana second
    assert move(client, code, seats[2], action="give_up").status_code == 200  # Cy last

    game = ended_game(code)
    shown = dict(Rating.objects.values_list("account__username", "rating"))
    assert shown["Bo_r"] > shown["Ana_r"] > shown["Cy_r"]
    changes = client.get(f"/api/rooms/{code}").json()["rating_changes"]
    assert [c["username"] for c in changes] == ["Bo_r", "Ana_r", "Cy_r"]
    assert RatingChange.objects.filter(game=game).count() == 3


def test_leaving_a_rated_race_under_way_places_the_leaver_last(client):
    code, seats = start_rated_race(client, names=("Ana_r", "Bo_r"))
    room = Room.objects.get(code=code)
    safe, _ = safe_and_mine(code, 0)
    for x, y in safe[:3]:  # Ana is ahead on the board when she leaves
        move(client, code, seats[0], action="reveal", x=x, y=y)

    leaving.leave(room, Player.objects.get(room=room, number=0))
    finish(client, code, seats, 1)

    ended_game(code)
    assert Rating.objects.get(account__username="Ana_r").rating < 1500
    assert Rating.objects.get(account__username="Bo_r").rating > 1500


def test_an_unrated_game_end_rates_nobody(client):
    made = client.post("/api/rooms", {"game": "tictactoe", "o": "human"}, content_type=JSON)
    code = made.json()["code"]
    bo = client.post(f"/api/rooms/{code}/join", {"name": "Bo"}, content_type=JSON).json()
    seats = [made.json()["player_token"], bo["player_token"]]
    for seat, cell in ((0, 0), (1, 3), (0, 1), (1, 4), (0, 2)):
        move(client, code, seats[seat], action="mark", cell=cell)

    assert ended_game(code).status == "won"
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


# Reading the ratings --------------------------------------------------------------------------


def test_the_players_endpoint_gives_ratings_per_kind(client):
    tictactoe_won_by_x(client)

    answer = client.get("/api/players/Ana_r").json()

    assert answer["ratings"] == {
        "tictactoe": {
            "rating": Rating.objects.get(account__username="Ana_r").rating,
            "deviation": answer["ratings"]["tictactoe"]["deviation"],
            "games": 1,
            "provisional": True,
        }
    }
    assert 0 < answer["ratings"]["tictactoe"]["deviation"] < 500


def rating(username: str, kind: str, value: int, games: int) -> Rating:
    user = accounts.sign_up(username, "correct-horse-battery-9")
    mu = 25 + (value - 1500) / ratings.SCALE
    return Rating.objects.create(account=user, kind=kind, mu=mu, sigma=3, rating=value, games=games)


def test_the_leaderboard_ranks_by_rating_and_leaves_provisional_ratings_out(
    client, django_assert_max_num_queries
):
    rating("Top_1", "flags", 1700, 9)
    rating("Mid_1", "flags", 1600, 5)
    rating("New_1", "flags", 1900, 4)  # provisional: left out
    rating("Tic_1", "tictactoe", 1550, 6)

    with django_assert_max_num_queries(8):
        page = client.get("/leaderboard/").content.decode()

    flags = page.split('data-kind="flags"', 1)[1].split("</table>", 1)[0]
    assert flags.index("Top_1") < flags.index("Mid_1")
    assert "New_1" not in page
    assert "Tic_1" in page.split('data-kind="tictactoe"', 1)[1]


def test_the_profile_shows_ratings_with_a_history_chart(client):
    tictactoe_won_by_x(client)

    page = client.get("/@/Ana_r/").content.decode()

    shown = Rating.objects.get(account__username="Ana_r").rating
    assert f"{shown}<abbr" in page  # provisional: "?"
    assert 'class="sparkline"' in page and 'role="img"' in page
    assert f"from 1500 to {shown}" in page


def test_the_end_is_announced_to_every_screen_and_bot_after_the_commit(
    client, django_capture_on_commit_callbacks
):
    code, seats = rated_room(client, {"game": "tictactoe", "x": "human", "o": "human"})
    for seat, cell in ((0, 0), (1, 3), (0, 1), (1, 4)):
        move(client, code, seats[seat], action="mark", cell=cell)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        move(client, code, seats[0], action="mark", cell=2)

    announced = [c for c in callbacks if getattr(c, "func", None) is announce.ratings]
    assert len(announced) == 1
    room_id, number, changes = announced[0].args
    assert room_id == Room.objects.get(code=code).pk and number == 1
    event = json.loads(bot_events.ratings(number, changes))
    schema = json.loads(client.get("/api/events.schema.json").content)
    assert not list(Draft202012Validator(schema).iter_errors(event))
    html = render_to_string("games/partials.html#rating_changes", {"rating_changes": changes})
    after = Rating.objects.get(account__username="Ana_r").rating
    assert f"Ana_r 1500 → {after}" in html
    assert f"Ana_r 1500 → {after}" in client.get(f"/r/{code}/watch/").content.decode()


# Two processes at once (each thread has its own connection: PostgreSQL in CI) -------------------


def rated_tictactoe_one_move_from_the_end() -> tuple[Room, Player]:
    """A rated tic-tac-toe room of two accounts where X (Ana) wins with square 2."""
    ana, bo = account("Ana_t")[0], account("Bo_t")[0]
    settings = {"x": "human", "o": "human", "rated": True}
    room, first = joining.open_room("tictactoe", settings, "Ana_t", account=ana)
    second = joining.join_room(room, "Bo_t", bo)
    assert first is not None
    for player, cell in ((first, 0), (second, 3), (first, 1), (second, 4)):
        dispatch.play(room, player, SquareMove(cell))
    return room, first


def at_once(*calls) -> list[object]:
    """Each call in a thread of its own (its own database connection), started together; what
    each returned or raised."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(n, call):
        try:
            barrier.wait(timeout=10)
            results[n] = call()
        except Exception as error:  # compared by the caller
            results[n] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_two_processes_sending_the_winning_move_at_once_rate_the_game_once():
    room, ana = rated_tictactoe_one_move_from_the_end()

    results = at_once(*[lambda: dispatch.play(room, ana, SquareMove(2))] * 2)

    assert sum(isinstance(r, Refused) for r in results) == 1, results  # the game was over
    game = room.current_game()
    assert game.status == "won"
    assert sorted(RatingChange.objects.filter(game=game).values_list("username", flat=True)) == [
        "Ana_t",
        "Bo_t",
    ]
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


@pytest.mark.django_db(transaction=True)
def test_two_processes_rating_one_ended_game_at_once_write_one_change_per_account():
    room, _ = rated_tictactoe_one_move_from_the_end()
    game = room.current_game()
    won = {**game.state, "squares": "XXXOO....", "status": "won", "winner": "X"}
    Game.objects.filter(pk=game.pk).update(state=won, status="won")  # ended, not rated yet
    game.refresh_from_db()

    def settle() -> list:
        with transaction.atomic():
            return ratings.settle(game)

    results = at_once(settle, settle)

    assert sorted(len(r) for r in results) == [0, 2], results
    assert RatingChange.objects.filter(game=game).count() == 2
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


def test_leaving_a_rated_tictactoe_game_loses_it_and_nobody_takes_the_seat_over(client):
    code, seats = rated_room(client, {"game": "tictactoe", "x": "human", "o": "human"})
    room = Room.objects.get(code=code)
    move(client, code, seats[0], action="mark", cell=4)
    _, cy = account("Cy_r")
    visitor = client.post(f"/api/rooms/{code}/join", {}, content_type=JSON, **bearer(cy))
    players = {p.number: p for p in Player.objects.filter(room=room)}

    leaving.leave(room, players[0])  # Ana, X, leaves under way: she loses at once

    game = ended_game(code)
    assert game.status == "won" and game.state["winner"] == "O"
    last = Move.objects.filter(game=game).order_by("-seq").first()
    assert (last.action, last.seat) == ("claim_win", 1)  # logged as Bo's claim, as replays read
    with pytest.raises(Refused):
        dispatch.play(room, players[2], Command("take_seat"))
    assert visitor.status_code == 200
    shown = dict(Rating.objects.values_list("account__username", "rating"))
    assert shown["Ana_r"] < 1500 < shown["Bo_r"] and "Cy_r" not in shown


def test_a_rematch_clears_the_rating_line_on_every_screen(client, monkeypatch):
    code, _ = tictactoe_won_by_x(client)
    room = Room.objects.get(code=code)
    sent = []
    monkeypatch.setattr(
        outbox, "send", lambda room_id, texts, *rest, **controls: sent.append(texts)
    )

    announce.new_game(room.pk, NewGame("Ana_r", interrupted=False))

    lines = [t["all"] for t in sent if 'id="rating-changes"' in t.get("all", "")]
    assert len(lines) == 1 and " hidden>" in lines[0] and "→" not in lines[0]


def test_reading_an_accounts_ratings_and_history_takes_two_queries_however_many_games(
    client, django_assert_num_queries
):
    code, seats = tictactoe_won_by_x(client)
    for _ in range(2):  # rematches: the sides swap, X wins again
        assert move(client, code, seats[0], action="new_game").status_code == 200
        x = Room.objects.get(code=code).current_game().params["X"]["seat"]
        for seat, cell in ((x, 0), (1 - x, 3), (x, 1), (1 - x, 4), (x, 2)):
            assert move(client, code, seats[seat], action="mark", cell=cell).status_code == 200
    ana = User.objects.get(username="Ana_r")

    with django_assert_num_queries(2):
        shown = standings.profile_ratings(ana)

    assert [r.label for r in shown] == ["Tic-tac-toe"]
    assert shown[0].figures["games"] == 3 and len(shown[0].history) == 4
    assert shown[0].history[0] == 1500 and shown[0].history[-1] == shown[0].figures["rating"]


def test_a_guest_opening_a_rated_rooms_invite_is_asked_to_sign_in_not_for_a_name(client):
    code, _ = rated_room(client, {"game": "flags", "x": "human", "o": "human"}, names=("Ana_r",))

    page = Client().get(f"/r/{code}/").content.decode()
    member = signed_in("Bo_i")[0].get(f"/r/{code}/").content.decode()

    assert SIGN_IN in page and 'name="nickname"' not in page and "/accounts/login/" in page
    assert SIGN_IN not in member and "Join as Bo_i" in member


def test_leaving_a_rated_flags_game_under_way_loses_it_at_once(client):
    code, _ = rated_room(client, {"game": "flags", "x": "human", "o": "human", "mines": 9})
    room = Room.objects.get(code=code)
    players = {p.number: p for p in Player.objects.filter(room=room)}

    leaving.leave(room, players[1])  # Bo, O, leaves before a move

    game = ended_game(code)
    last = Move.objects.filter(game=game).order_by("-seq").first()
    assert (last.action, last.seat) == ("claim_win", 0)
    shown = dict(Rating.objects.values_list("account__username", "rating"))
    assert shown["Bo_r"] < 1500 < shown["Ana_r"]
