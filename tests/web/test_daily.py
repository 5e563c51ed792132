"""The daily board (issue 37, point 3): one no-guess board a day, the same layout for everyone,
seeded from the date and the server's secret, never dealt ahead; a person's first copy is their
attempt and is recorded once, when its game ends; the day's results, fastest win first."""

import uuid
from datetime import timedelta

import pytest
from django.test import Client

from games.rooms import daily
from games.store import daily as daily_store
from games.store.models import DailyResult, Game, GameSummary, Room
from games.web import history
from tests.helpers.daily import finish, mines_of
from tests.helpers.web import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_daily_board(settings):
    """A beginner-sized no-guess board: the same code path, a quicker game to play out."""
    settings.DAILY_BOARD = (9, 9, 10)
    settings.DAILY_PLAYS_PER_MINUTE = 100_000


def play(client: Client, **body) -> dict:
    response = client.post("/api/daily/play", body, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def results(client: Client, day: str) -> list[dict]:
    response = client.get(f"/api/daily/{day}/results")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def on_day(monkeypatch, day):
    """The server's clock on `day`: what "today" deals and lists."""
    monkeypatch.setattr(daily, "today", lambda: day)


def test_the_api_gives_todays_date_and_size_and_nothing_of_the_layout(client):
    body = client.get("/api/daily").json()
    assert body == {
        "date": daily.today().isoformat(),
        "width": 9,
        "height": 9,
        "mines": 10,
        "no_guess": True,
    }


def test_two_peoples_copies_have_the_same_mines_and_the_same_opening():
    ana, bo = play(Client(), name="Ana"), play(Client(), name="Bo")
    assert ana["code"] != bo["code"]
    assert mines_of(ana["code"]) == mines_of(bo["code"])
    assert len(mines_of(ana["code"])) == 10
    first = [Game.objects.get(room__code=c["code"]).state["revealed"] for c in (ana, bo)]
    assert first[0] == first[1] and first[0]  # the opening is played on each copy
    for copy in (ana, bo):
        room = Room.objects.get(code=copy["code"])
        assert not room.is_public and room.locked
        assert room.games.get().params["no_guess"] is True


def test_two_days_deal_two_layouts(monkeypatch):
    today = daily.today()
    first = play(Client(), name="Ana")
    on_day(monkeypatch, today - timedelta(days=1))
    second = play(Client(), name="Ana")
    assert mines_of(first["code"]) != mines_of(second["code"])


def test_the_layout_depends_on_the_servers_secret(settings):
    first = play(Client(), name="Ana")
    settings.SECRET_KEY = "another-secret-entirely-for-this-test"
    second = play(Client(), name="Ana")
    assert mines_of(first["code"]) != mines_of(second["code"])


def test_no_door_takes_or_deals_a_day_to_come(client):
    tomorrow = (daily.today() + timedelta(days=1)).isoformat()
    ahead = client.get(f"/api/daily/{tomorrow}/results")
    assert ahead.status_code == 404
    assert ahead.json()["error"].startswith(f"{tomorrow} has not begun")
    assert client.get(f"/daily/{tomorrow}/").status_code == 404
    with pytest.raises(daily.NotYet):
        daily.seed_for(daily.today() + timedelta(days=1))
    dated = client.post("/api/daily/play", {"date": tomorrow}, content_type="application/json")
    assert dated.status_code == 400 and "date" in dated.json()["error"]


@pytest.mark.parametrize("day", ["2026-13-01", "yesterday", "2026-1-1", "20261129"])
def test_a_malformed_date_is_a_404_naming_the_form(client, day):
    response = client.get(f"/api/daily/{day}/results")
    assert response.status_code == 404
    assert "YYYY-MM-DD" in response.json()["error"]


def test_the_first_attempt_counts_and_a_second_is_played_but_not_recorded(client):
    first = play(client, name="Ana")
    second = play(client, name="Ana")
    assert (first["counted"], second["counted"]) == (True, False)
    assert mines_of(first["code"]) == mines_of(second["code"])
    finish(first["code"], win=False)
    finish(second["code"], win=True)  # learnt from the first: recorded nowhere
    rows = results(client, daily.today().isoformat())
    assert [(row["name"], row["won"]) for row in rows] == [("Ana", False)]
    assert DailyResult.objects.count() == 1
    page = client.get("/daily/").content.decode()
    assert "only your first attempt is recorded" in page
    assert "Play again (not recorded)" in page


def test_a_signed_in_person_counts_by_account_across_browsers():
    laptop, user = signed_in("ana_k")
    phone = Client()
    phone.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    assert play(laptop)["counted"] is True
    assert play(phone)["counted"] is False
    result = DailyResult.objects.get()
    assert (result.account, result.name, result.browser) == (user, "ana_k", "")


def test_two_guest_browsers_are_two_people():
    assert play(Client(), name="Ana")["counted"] is True
    assert play(Client(), name="Bo")["counted"] is True
    assert DailyResult.objects.count() == 2


def test_an_attempt_held_already_makes_a_new_copy_uncounted():
    """The unique row decides, whoever asked first: a second request finds the first's row."""
    client = Client()
    play(client, name="Ana")
    key = DailyResult.objects.get().person
    DailyResult.objects.all().delete()
    DailyResult.objects.create(date=daily.today(), person=key, name="Ana")
    assert play(client, name="Ana")["counted"] is False
    assert DailyResult.objects.count() == 1


def test_results_list_fastest_wins_first_then_lost_ones_without_helped_ones(client):
    today = daily.today()
    rows = [
        ("Slow", True, 90_000, 0.5, False),
        ("Lost", False, 10_000, 0.9, False),
        ("Fast", True, 30_000, 1.5, False),
        ("Helped", True, 1_000, 9.0, True),
        ("Lost more", False, 20_000, 0.3, False),
    ]
    for name, won, time_ms, rate, assisted in rows:
        DailyResult.objects.create(
            date=today,
            person=f"browser:{name}",
            name=name,
            ended_at=daily.timezone.now(),
            won=won,
            time_ms=time_ms,
            three_bv=20,
            three_bv_per_s=rate,
            assisted=assisted,
        )
    DailyResult.objects.create(date=today, person="browser:playing", name="Playing")
    listed = results(client, today.isoformat())
    assert [row["name"] for row in listed] == ["Fast", "Slow", "Lost", "Lost more"]
    assert listed[0] == {"name": "Fast", "time_ms": 30_000, "won": True, "three_bv_per_s": 1.5}


def test_a_won_attempt_records_its_figures_from_the_game(client):
    copy = play(client, name="Ana")
    game = finish(copy["code"], win=True)
    result = DailyResult.objects.get()
    assert result.game == game and result.won is True
    elapsed = game.finished_at - game.started_at
    assert result.time_ms == round(elapsed.total_seconds() * 1000)
    assert result.three_bv is not None and result.three_bv >= 1
    assert result.ended_at == game.finished_at and not result.assisted
    [row] = results(client, daily.today().isoformat())
    assert row["won"] is True and row["time_ms"] == result.time_ms


def test_the_end_written_twice_records_once(client):
    copy = play(client, name="Ana")
    game = finish(copy["code"], win=False)
    before = DailyResult.objects.values().get()
    game.finished_at += timedelta(seconds=30)  # a retry of the end, later
    assert daily_store.record_end(game) is False
    assert DailyResult.objects.values().get() == before


def test_a_hint_in_the_copy_leaves_the_attempt_off_the_results(client):
    copy = play(client, name="Ana")
    Room.objects.filter(code=copy["code"]).update(hints_used=1)
    finish(copy["code"], win=True)
    assert DailyResult.objects.get().assisted is True
    assert results(client, daily.today().isoformat()) == []


def test_a_copy_takes_no_second_player(client):
    copy = play(client, name="Ana")
    joined = Client().post(
        f"/api/rooms/{copy['code']}/join", {"name": "Bo"}, content_type="application/json"
    )
    assert joined.status_code == 409
    assert "locked" in joined.json()["error"]


def test_copies_are_bounded_per_address(settings):
    settings.DAILY_PLAYS_PER_MINUTE = 2
    address = f"test-{uuid.uuid4()}"  # a counter of its own: CI's live in Redis, across runs
    play(Client(REMOTE_ADDR=address), name="Ana")
    play(Client(REMOTE_ADDR=address), name="Bo")
    refused = Client(REMOTE_ADDR=address).post("/daily/play/", {"nickname": "Cy"})
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert "Too many daily boards" in refused.content.decode()
    api = Client(REMOTE_ADDR=address).post("/api/daily/play", content_type="application/json")
    assert api.status_code == 429 and api.json()["error"].startswith("Too many daily boards")
    assert Room.objects.count() == 2


def test_the_page_button_deals_a_copy_and_goes_to_its_room(client):
    response = client.post("/daily/play/", {"nickname": "Ana"})
    room = Room.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/r/{room.code}/"
    assert client.session["players"][room.code] == room.players.get().token
    assert client.get(response["Location"]).status_code == 200


def test_the_page_shows_the_share_text_results_yesterday_and_the_archive(client, monkeypatch):
    today = daily.today()
    on_day(monkeypatch, today - timedelta(days=1))
    yesterday = play(client, name="Ana")
    finish(yesterday["code"], win=True)
    on_day(monkeypatch, today)
    finish(play(client, name="Ana")["code"], win=True)
    page = client.get("/daily/").content.decode()
    share = f"Minesweeper Live daily {today.isoformat()}: cleared in "
    assert share in page and "3BV/s" in page and 'id="copy-share"' in page
    assert page.count('data-won="true"') == 2  # today's row and yesterday's
    room = Room.objects.get(code=yesterday["code"])
    assert f"/r/{room.code}/games/1/" in page  # yesterday is over: its leader's replay
    assert f"/daily/{(today - timedelta(days=1)).isoformat()}/" in page  # the archive
    past = client.get(f"/daily/{(today - timedelta(days=1)).isoformat()}/")
    assert past.status_code == 200 and f"/r/{room.code}/games/1/" in past.content.decode()
    assert client.get(f"/daily/{today.isoformat()}/")["Location"] == "/daily/"


def test_todays_leader_has_no_replay_link_while_the_day_lasts(client):
    copy = play(client, name="Ana")
    finish(copy["code"], win=True)
    assert f"/r/{copy['code']}/games/" not in client.get("/daily/").content.decode()


def test_the_share_text_tells_no_mine_position(client):
    copy = play(client, name="Ana")
    finish(copy["code"], win=False)
    page = client.get("/daily/").content.decode()
    share = page.split('id="share-text"', 1)[1].split("</textarea>", 1)[0]
    assert "lost in" in share and copy["code"] not in share and "(" not in share


def test_the_home_page_links_to_todays_board(client):
    page = client.get("/").content.decode()
    assert 'id="daily-link" href="/daily/"' in page


def test_a_body_is_optional_and_a_guest_without_a_name_plays_as_guest():
    response = Client().post("/api/daily/play", content_type="application/json")
    assert response.status_code == 201
    assert set(response.json()) == {"code", "url", "player_token", "counted"}
    assert response.json()["url"].endswith(f"/r/{response.json()['code']}/")
    assert DailyResult.objects.get().name == "Guest"


def test_a_won_copy_is_no_record_on_the_no_guess_board(client, settings):
    """Every copy after the first may be played knowing the layout: none stands in /records/."""
    settings.DAILY_BOARD = (9, 9, 10)  # the beginner board's size, which has records
    finish(play(client, name="Ana")["code"], win=True)
    boards = history.records()
    assert all(not table.entries for board in boards for table in board.tables)
    assert GameSummary.objects.get().board == ""


def test_two_accounts_play_todays_board_and_see_each_other_on_the_results():
    ana, _ = signed_in("ana_k")
    bo, _ = signed_in("bo_k")
    finish(play(ana)["code"], win=True)
    finish(play(bo)["code"], win=False)
    for reader in (ana, bo):
        listed = results(reader, daily.today().isoformat())
        assert [(row["name"], row["won"]) for row in listed] == [("ana_k", True), ("bo_k", False)]
    page = ana.get("/daily/").content.decode()
    assert "ana_k" in page and "bo_k" in page
