"""Bot accounts (docs/contracts.md, "Players and ratings"): marked by staff, shown as bots on the
roster, the profile and the API, and ranked on their own list of the leaderboard."""

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from games.broadcast import announce
from games.players import accounts
from games.players.models import Profile
from games.rooms import ratings
from games.store.models import Rating, Room

pytestmark = pytest.mark.django_db

JSON = "application/json"
PASSWORD = "correct-horse-battery-9"


def rating(user: User, kind: str, value: int, games: int = 9) -> Rating:
    mu = 25 + (value - 1500) / ratings.SCALE
    return Rating.objects.create(account=user, kind=kind, mu=mu, sigma=3, rating=value, games=games)


def test_mark_bot_marks_an_account_and_off_unmarks_it():
    user = accounts.sign_up("Robo_1", PASSWORD)
    assert not accounts.is_bot(user)

    call_command("mark_bot", "Robo_1")
    assert accounts.is_bot(user)

    call_command("mark_bot", "Robo_1", "--off")
    assert not accounts.is_bot(user)
    assert Profile.objects.filter(user=user).count() == 1


def test_mark_bot_names_an_unknown_username():
    with pytest.raises(CommandError, match="Nobody_9"):
        call_command("mark_bot", "Nobody_9")


def test_staff_mark_a_bot_account_on_its_admin_page():
    user = accounts.sign_up("Robo_2", PASSWORD)
    staff = User.objects.create_superuser("staff_1", "staff@example.org", PASSWORD)
    admin = Client()
    admin.force_login(staff, backend="django.contrib.auth.backends.ModelBackend")
    page = admin.get(f"/admin/auth/user/{user.pk}/change/")
    assert page.status_code == 200
    assert 'name="profile-0-bot"' in page.content.decode()

    form = {
        "username": "Robo_2",
        "is_active": "on",
        "date_joined_0": "2026-11-29",
        "date_joined_1": "08:00:00",
        "profile-TOTAL_FORMS": "1",
        "profile-INITIAL_FORMS": "0",
        "profile-MIN_NUM_FORMS": "0",
        "profile-MAX_NUM_FORMS": "1",
        "profile-0-user": str(user.pk),
        "profile-0-bot": "on",
        "_save": "Save",
    }
    saved = admin.post(f"/admin/auth/user/{user.pk}/change/", form)

    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert accounts.is_bot(user)
    listed = admin.get("/admin/auth/user/?profile__bot__exact=1").content.decode()
    results = listed.split('id="result_list"', 1)[1].split("</table>", 1)[0]
    assert "Robo_2" in results and "staff_1" not in results


def test_the_players_endpoint_says_bot(client):
    accounts.mark_bot(accounts.sign_up("Robo_3", PASSWORD))
    accounts.sign_up("Ana_3", PASSWORD)

    assert client.get("/api/players/Robo_3").json()["bot"] is True
    assert client.get("/api/players/Ana_3").json()["bot"] is False


def test_a_bot_accounts_profile_shows_the_bot_badge(client):
    accounts.mark_bot(accounts.sign_up("Robo_4", PASSWORD))
    accounts.sign_up("Ana_4", PASSWORD)

    assert 'class="badge bot-account"' in client.get("/@/Robo_4/").content.decode()
    assert 'class="badge bot-account"' not in client.get("/@/Ana_4/").content.decode()


@pytest.mark.parametrize(
    "body",
    [
        {"game": "tictactoe", "x": "human", "o": "human"},
        {"game": "minesweeper", "mode": "race", "preset": "beginner"},
        {"game": "minesweeper", "preset": "beginner"},
    ],
    ids=["sides", "race", "minesweeper"],
)
def test_the_roster_marks_a_bot_accounts_seat_and_a_persons_seat_not(client, body):
    robot = accounts.sign_up("Robo_5", PASSWORD)
    accounts.mark_bot(robot)
    person = accounts.sign_up("Ana_5", PASSWORD)
    made = client.post(
        "/api/rooms",
        body,
        content_type=JSON,
        HTTP_AUTHORIZATION=f"Bearer {accounts.issue_token(robot)}",
    )
    assert made.status_code == 201, made.content
    code = made.json()["code"]
    joined = client.post(
        f"/api/rooms/{code}/join",
        {},
        content_type=JSON,
        HTTP_AUTHORIZATION=f"Bearer {accounts.issue_token(person)}",
    )
    assert joined.status_code == 200, joined.content

    roster = str(announce.roster_html(Room.objects.get(code=code).pk))

    robot_line, person_line = (
        roster.split(f">{name}</span>", 1)[1] for name in ("Robo_5", "Ana_5")
    )
    assert robot_line.split("</li>", 1)[0].count('class="badge bot-account"') == 1
    assert 'class="badge bot-account"' not in person_line.split("</li>", 1)[0]


def test_the_leaderboard_ranks_bot_accounts_on_their_own_list(
    client, django_assert_max_num_queries
):
    people = [accounts.sign_up(name, PASSWORD) for name in ("Ana_6", "Bo_6")]
    robot = accounts.sign_up("Robo_6", PASSWORD)
    accounts.mark_bot(robot)
    rating(people[0], "flags", 1600)
    rating(people[1], "flags", 1550)
    rating(robot, "flags", 1900)

    with django_assert_max_num_queries(11):
        page = client.get("/leaderboard/").content.decode()

    flags = page.split('data-kind="flags"', 1)[1].split("</table>", 1)[0]
    bots = page.split('data-kind="flags" data-list="bots"', 1)[1].split("</table>", 1)[0]
    assert "Ana_6" in flags and "Bo_6" in flags and "Robo_6" not in flags
    assert "Robo_6" in bots and "Ana_6" not in bots
    assert "Flags: Bots" in page
    assert 'id="bots-tictactoe"' not in page  # no bot rated there: no empty list
