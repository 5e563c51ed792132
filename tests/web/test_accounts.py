"""Accounts (issue 36, docs/contracts.md "Players and ratings"): sign up, sign in and out,
password change, the bounds on both, a name that follows a signed-in person into rooms, kicks
bound to the account, API tokens and profiles."""

import json
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from games.broadcast import bot_events
from games.kinds import kind_of
from games.models import Game, Player
from games.players import accounts
from games.players.models import ApiToken
from games.protocol.messages import HostCommand
from games.rooms import dispatch, host, joining
from tests.helpers.web import make_room, signed_in

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-9"


def sign_up(client, username, password=PASSWORD, again=None, address="192.0.2.1"):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": password, "password2": again or password},
        REMOTE_ADDR=address,
    )


def test_a_sign_up_makes_an_argon2_account_signed_in_with_its_name_in_the_header(client):
    answer = sign_up(client, "Ana_K")

    assert answer.status_code == 302
    user = User.objects.get(username="Ana_K")
    assert user.password.startswith("argon2$")
    home = client.get("/").content.decode()
    assert 'class="account-name">Ana_K</a>' in home and "Sign out" in home


@pytest.mark.parametrize(
    ("username", "why"),
    [
        ("ab", "3 to 20"),
        ("a" * 21, "characters"),
        ("Ana K", "3 to 20"),
        ("Ánä", "3 to 20"),
        ("Admin", "the app uses itself"),
        ("Spectator2", "the app uses itself"),
    ],
)
def test_a_username_out_of_the_rules_is_refused_and_leaves_no_user(client, username, why):
    answer = sign_up(client, username)

    assert answer.status_code == 400
    assert why in answer.content.decode()
    assert not User.objects.exists()


@pytest.mark.parametrize("other", ["ANA_K", "ana_k", "AnA_k"])
def test_a_username_in_other_capitals_is_taken(client, other):
    accounts.sign_up("Ana_K", PASSWORD)

    answer = sign_up(client, other)

    assert answer.status_code == 400 and "is taken" in answer.content.decode()
    assert User.objects.count() == 1


def test_a_look_alike_of_a_username_is_taken(client):
    accounts.sign_up("Iily", PASSWORD)  # capital i

    assert "is taken" in sign_up(client, "lily").content.decode()  # small L
    assert User.objects.count() == 1


def test_a_weak_or_mismatched_password_leaves_no_user(client):
    weak = sign_up(client, "Bo_b", password="password")
    mismatched = sign_up(client, "Bo_b", again="another-horse-battery-8")

    assert weak.status_code == 400 and "too common" in weak.content.decode()
    assert mismatched.status_code == 400 and "didn’t match" in mismatched.content.decode()
    assert not User.objects.exists()


def test_a_look_alike_that_got_in_first_leaves_no_user_behind():
    """The database's unique looks refuse what the check before could not see yet."""
    first = accounts.sign_up("Cy_x", PASSWORD)
    from games.players.models import NameLook

    NameLook.objects.filter(user=first).delete()  # as if the check ran before it was written
    NameLook.objects.create(user=first, look="cy_x")

    with pytest.raises(accounts.UsernameError):
        accounts.sign_up("CY_X", PASSWORD)
    assert list(User.objects.values_list("username", flat=True)) == ["Cy_x"]


def test_sign_ups_per_address_and_hour_are_bounded_at_the_setting(settings):
    settings.SIGNUPS_PER_HOUR = 2
    made = [sign_up(Client(), f"user_{n}", address="198.51.100.9").status_code for n in range(3)]

    assert made == [302, 302, 429]
    assert User.objects.count() == 2
    assert sign_up(Client(), "user_9", address="198.51.100.10").status_code == 302


def log_in(client, username, password, address):
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_sign_in_and_out(client):
    accounts.sign_up("Dee_d", PASSWORD)

    assert log_in(client, "Dee_d", PASSWORD, "192.0.2.5").status_code == 302
    assert client.get("/accounts/").status_code == 200
    assert client.get("/accounts/logout/").status_code == 405  # only a POST signs out
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/").status_code == 302  # to the sign-in page


def test_failed_sign_ins_lock_an_address_out_at_the_limit(client):
    accounts.sign_up("Eve_e", PASSWORD)
    failures = [
        log_in(client, "Eve_e", f"guess-{n}", "203.0.113.7").status_code
        for n in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert failures == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]

    right = log_in(client, "Eve_e", PASSWORD, "203.0.113.7")

    assert right.status_code == 429 and "Too many failed sign-ins" in right.content.decode()
    assert "_auth_user_id" not in client.session


def test_failed_sign_ins_lock_a_username_out_from_every_address(client):
    accounts.sign_up("Fay_f", PASSWORD)
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in(Client(), "Fay_f", f"guess-{n}", f"203.0.113.{10 + n}")

    assert log_in(client, "Fay_f", PASSWORD, "198.51.100.77").status_code == 429
    accounts.sign_up("Gus_g", PASSWORD)
    assert log_in(client, "Gus_g", PASSWORD, "198.51.100.77").status_code == 302


def test_a_password_is_changed_through_the_validators():
    browser, user = signed_in("Hal_h")
    weak = browser.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "12345678", "new_password2": "12345678"},
    )
    assert weak.status_code == 200 and "entirely numeric" in weak.content.decode()

    new = "another-horse-battery-8"
    done = browser.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)


# A name that follows you


def test_a_signed_in_invitee_is_offered_one_click_and_a_get_seats_nobody():
    room = make_room()
    joining.join_room(room, "Hana")  # the guest who invited
    browser, user = signed_in("Ivy_i")

    page = browser.get(f"/r/{room.code}/")

    assert "Join as Ivy_i" in page.content.decode()
    assert 'name="nickname"' not in page.content.decode()
    assert not Player.objects.filter(account=user).exists()
    assert browser.post(f"/r/{room.code}/join/").status_code == 302
    seat = Player.objects.get(account=user)
    assert seat.nickname == "Ivy_i"
    assert 'data-seat="1"' in browser.get(f"/r/{room.code}/").content.decode()


def test_the_api_and_snapshots_name_the_account_and_null_for_guests(client):
    room = make_room()
    joining.join_room(room, "Guest")
    browser, _ = signed_in("Jo_j")
    browser.post(f"/r/{room.code}/join/")

    players = client.get(f"/api/rooms/{room.code}").json()["players"]
    snapshot = json.loads(bot_events.snapshot(kind_of(room.kind), room, room.current_game(), None))

    assert [(p["name"], p["username"]) for p in players] == [("Guest", None), ("Jo_j", "Jo_j")]
    assert [p["username"] for p in snapshot["players"]] == [None, "Jo_j"]


def test_the_roster_tags_guests_and_not_accounts():
    room = make_room()
    joining.join_room(room, "Guest")
    browser, _ = signed_in("Kit_k")
    browser.post(f"/r/{room.code}/join/")

    roster = browser.get(f"/r/{room.code}/").content.decode().split('id="roster"')[1]

    guest, account = roster.split('data-seat="1"')
    assert ">guest</span>" in guest and ">guest</span>" not in account.split("</li>")[0]


def test_a_signed_in_creator_sits_under_their_username():
    browser, user = signed_in("Lu_l")

    answer = browser.post(
        "/rooms/", {"game": "minesweeper", "preset": "beginner", "nickname": "Typed"}
    )

    assert answer.status_code == 302
    seat = Player.objects.get(account=user)
    assert seat.nickname == "Lu_l" and seat.room.host_id == seat.pk


def test_a_kick_binds_to_the_account_not_the_cookie():
    room = make_room()
    hosting = joining.join_room(room, "Hana")
    _, user = signed_in("Mo_m")
    kicked = joining.join_room(room, "Mo_m", user)
    host.apply(room, hosting, HostCommand("kick", seat=kicked.number))

    fresh = Client()  # a new browser: no session, no watcher cookie
    fresh.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    page = fresh.get(f"/r/{room.code}/")
    joined = fresh.post(f"/r/{room.code}/join/")

    assert page.status_code == 403 and joined.status_code == 403
    assert "The host removed you" in joined.content.decode()
    assert Player.objects.filter(room=room).count() == 2


def test_a_muted_account_comes_back_muted_in_its_own_seat():
    room = make_room()
    hosting = joining.join_room(room, "Hana")
    _, user = signed_in("Nat_n")
    seat = joining.join_room(room, "Nat_n", user)
    host.apply(room, hosting, HostCommand("mute", seat=seat.number))

    again = joining.join_room(room, "Nat_n", user)

    assert again.pk == seat.pk and again.muted


# The API for bot authors


def api_token(client, username, password, address="192.0.2.30"):
    return client.post(
        "/api/accounts/token",
        {"username": username, "password": password},
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def test_a_personal_token_seats_its_account_on_create_and_join(client):
    accounts.sign_up("Oz_o", PASSWORD)
    given = api_token(client, "Oz_o", PASSWORD)
    assert given.status_code == 201 and given.json()["username"] == "Oz_o"
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {given.json()['token']}"}
    assert ApiToken.objects.get().digest != given.json()["token"]  # kept hashed

    made = client.post(
        "/api/rooms",
        {"game": "minesweeper", "preset": "beginner"},
        content_type="application/json",
        **bearer,
    )
    room_code = made.json()["code"]
    other = client.post(
        "/api/rooms", {"game": "minesweeper", "preset": "beginner"}, content_type="application/json"
    ).json()["code"]
    joined = client.post(f"/api/rooms/{other}/join", {}, content_type="application/json", **bearer)

    assert made.status_code == 201 and joined.status_code == 200
    seats = Player.objects.filter(account__username="Oz_o")
    assert {s.room.code for s in seats} == {room_code, other}
    assert joined.json()["player_token"] == seats.get(room__code=other).token


def test_a_wrong_password_or_token_is_a_401_naming_it(client):
    accounts.sign_up("Pip_p", PASSWORD)
    wrong = api_token(client, "Pip_p", "nope")
    bad = client.post(
        "/api/rooms",
        {"game": "minesweeper", "preset": "beginner"},
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer not-a-token",
    )

    assert wrong.status_code == 401 and wrong.json() == {"error": "Wrong username or password."}
    assert bad.status_code == 401 and "no account's" in bad.json()["error"]


def test_token_requests_are_locked_out_at_the_limit_as_json(client):
    accounts.sign_up("Quin_q", PASSWORD)
    failures = [
        api_token(client, "Quin_q", f"guess-{n}", "203.0.113.50").status_code
        for n in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert failures == [401] * (settings.AXES_FAILURE_LIMIT - 1) + [429]

    right = api_token(client, "Quin_q", PASSWORD, "203.0.113.50")

    assert right.status_code == 429 and "Too many failed sign-ins" in right.json()["error"]
    assert int(right["Retry-After"]) > 0


def test_a_kicked_account_is_refused_by_the_api_join(client):
    room = make_room()
    hosting = joining.join_room(room, "Hana")
    user = accounts.sign_up("Rex_r", PASSWORD)
    seat = joining.join_room(room, "Rex_r", user)
    host.apply(room, hosting, HostCommand("kick", seat=seat.number))
    token = accounts.issue_token(user)

    refused = client.post(
        f"/api/rooms/{room.code}/join",
        {},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )

    assert refused.status_code == 403 and "removed you" in refused.json()["error"]


def test_a_join_without_a_name_or_a_token_names_the_field(client):
    room = make_room()

    answer = client.post(f"/api/rooms/{room.code}/join", {}, content_type="application/json")

    assert answer.status_code == 400 and answer.json()["error"].startswith("name:")


def test_the_account_page_lists_and_revokes_tokens():
    browser, user = signed_in("Sam_s")
    shown = browser.post("/accounts/tokens/")
    token = ApiToken.objects.get(user=user)
    assert shown.status_code == 201 and token.hint in shown.content.decode()

    other, _ = signed_in("Tia_t")
    assert other.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert browser.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 302
    assert not ApiToken.objects.exists()


# Profiles


def finish_won(room, seat):
    """The room's game marked won, as if its seat cleared the board (a summary says who)."""
    from games.models import GameSummary

    game = room.current_game()
    game.status = Game.Status.WON
    game.finished_at = datetime.now(UTC)
    game.save()
    GameSummary.objects.create(
        game=game, status="won", kind=room.kind, players=[seat.nickname], stats={}
    )
    return game


def test_a_profile_shows_games_played_won_and_their_replays(client):
    room = make_room()
    _, user = signed_in("Uma_u")
    seat = joining.join_room(room, "Uma_u", user)
    game = finish_won(room, seat)

    page = client.get("/@/Uma_u/").content.decode()
    api = client.get("/api/players/Uma_u").json()

    assert '<dd id="games-played">1</dd>' in page and '<dd id="games-won">1</dd>' in page
    assert f'href="/r/{room.code}/games/{game.number}/"' in page
    assert api == {"username": "Uma_u", "bot": False, "games": 1, "ratings": {}}


def ended(room, number: int, at: datetime, **summary):
    """A won game of `room` with its summary (`players`, or `stats` naming the winner)."""
    from games.models import GameSummary

    game = Game.objects.create(
        room=room, number=number, seed=number, state={}, status="won", finished_at=at
    )
    GameSummary.objects.create(game=game, status="won", kind=room.kind, **summary)
    return game


def test_a_profile_counts_every_game_of_its_seats_and_reads_a_bounded_few(
    client, django_assert_max_num_queries
):
    _, user = signed_in("Vic_u")
    co_op, duel = make_room(), make_room()
    joining.join_room(co_op, "Vic_u", user)
    joining.join_room(duel, "Vic_u", user)
    Player.objects.filter(account=user).update(joined_at=datetime(2026, 1, 2, tzinfo=UTC))
    ended(co_op, 90, datetime(2026, 1, 1, tzinfo=UTC), players=["Vic_u"])  # before the seat
    for n in range(30):  # co-op: won with the team on even games
        at = datetime(2026, 2, 1, n // 24, n % 24 * 2, tzinfo=UTC)
        ended(co_op, 100 + n, at, players=["Vic_u"] if n % 2 == 0 else ["Other"])
    for n in range(5):  # a named winner: Vic on two
        winner = "Vic_u" if n < 2 else "Other"
        ended(duel, 100 + n, datetime(2026, 3, 1, 0, n, tzinfo=UTC), stats={"winner_name": winner})

    with django_assert_max_num_queries(40):
        page = client.get("/@/Vic_u/").content.decode()
    api = client.get("/api/players/Vic_u").json()

    assert '<dd id="games-played">35</dd>' in page and '<dd id="games-won">17</dd>' in page
    assert page.count('<a href="/r/') == 20  # the newest, the duel's first
    assert f'href="/r/{duel.code}/games/104/"' in page
    assert api["games"] == 35


def test_an_unknown_username_is_a_404(client):
    assert client.get("/@/nobody_here/").status_code == 404
    assert client.get("/api/players/nobody_here").status_code == 404


@pytest.mark.django_db(transaction=True)  # the game is kept on commit, as a server keeps it
def test_a_signed_in_seats_move_reads_nothing_more_than_a_guests():
    """The account is read where a page or the roster names it, never on a move's path."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.protocol.messages import CellMove
    from tests.helpers.web import hidden_cells

    room = make_room()
    user = accounts.sign_up("Vi_v", PASSWORD)
    seat = joining.join_room(room, "Vi_v", user)
    dispatch.play(room, seat, CellMove("reveal", 4, 4))
    x, y = hidden_cells(room)[0]
    with CaptureQueriesContext(connection) as queries:
        dispatch.play(room, seat, CellMove("flag", x, y))
    reads = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert reads == [], reads
