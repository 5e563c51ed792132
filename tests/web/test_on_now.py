"""The home page's "On now" (issue 28): which game is featured, that it stays until its game ends,
and that a home page view costs the same however many watch or how many rooms are open."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.kinds.race import rules as race_rules
from games.rooms import joining, playing
from games.store.models import Game, Player, Presence, Room
from games.web import on_now
from games.web.views import LIVE_ROOMS_SHOWN
from tests.helpers.web import current, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_pick():
    """The pick is kept per process and in the cache: every test starts with none."""
    on_now.forget()
    cache.delete(on_now.PICK_KEY)
    yield
    on_now.forget()


def live_room(spectators: int = 0, *, public: bool = True, players: int = 1) -> Room:
    """A room with someone playing in it now (a socket open) and `spectators` watching."""
    room = make_room(is_public=public)
    for index in range(players):
        joining.join_room(room, f"P{index}")
    Player.objects.filter(room=room).update(connections=1)
    Room.objects.filter(pk=room.pk).update(spectators=spectators)
    watched_by(room, spectators)
    return room


def watched_by(room: Room, crowd: int) -> None:
    """`crowd` spectators from as many addresses, as a process's presence writes them."""
    Presence.objects.filter(room=room, player__isnull=True).delete()
    if crowd:
        Presence.objects.create(process="test", room=room, sockets=crowd, crowd=crowd)


def featured_code() -> str | None:
    on_now.forget()  # as the next view would, once the process's second is up
    pick = on_now.featured()
    return None if pick is None else pick.code


def test_the_room_with_the_most_spectators_is_featured():
    live_room(3)
    most = live_room(12)
    live_room(7)
    assert featured_code() == most.code


def live_race(spectators: int, *, started: bool) -> Room:
    settings = race_rules.validate_settings(9, 9, 10, True, spectator_delay=3)
    room = joining.create_room("race", settings)
    joining.join_room(room, "Ana")
    Player.objects.filter(room=room).update(connections=1)
    Room.objects.filter(pk=room.pk).update(spectators=spectators)
    watched_by(room, spectators)
    if started:  # as the host's start leaves it (its first logged move)
        Game.objects.filter(room=room).update(started_at=timezone.now())
    return room


def test_a_race_under_way_goes_first_among_equal_crowds_but_not_before_a_bigger_one():
    live_room(3)
    live_race(3, started=False)  # a lobby is no race under way yet
    race = live_race(3, started=True)
    assert featured_code() == race.code
    assert on_now.featured().racing  # the panel says spectators watch it late
    on_now.forget()
    cache.delete(on_now.PICK_KEY)  # a fresh pick: the race's would stay until it ends
    bigger = live_room(4)
    assert featured_code() == bigger.code


def test_a_private_room_is_never_featured_however_many_watch():
    live_room(500, public=False)
    assert featured_code() is None
    public = live_room(0)
    assert featured_code() == public.code


def test_a_room_nobody_plays_in_is_not_featured():
    room = live_room(40)
    Player.objects.filter(room=room).update(connections=0)
    assert featured_code() is None


def test_the_pick_stays_while_its_game_goes_on():
    first = live_room(5)
    assert featured_code() == first.code
    crowded = live_room(900)  # a bigger crowd elsewhere does not switch mid-game
    assert featured_code() == first.code
    Game.objects.filter(pk=current(first).pk).update(version=7)  # moves go on
    assert featured_code() == first.code
    Game.objects.filter(pk=current(first).pk).update(status=Game.Status.WON)
    assert featured_code() == crowded.code  # its game is over: the next pick


def test_a_new_game_in_the_featured_room_is_a_new_pick():
    first = live_room(5)
    assert featured_code() == first.code
    crowded = live_room(50)
    ana = Player.objects.filter(room=first).first()
    playing.start_next_game(first, ana, replacing=1)
    assert featured_code() == crowded.code


def test_a_featured_room_made_private_gives_way():
    first = live_room(5)
    other = live_room(1)
    assert featured_code() == first.code
    Room.objects.filter(pk=first.pk).update(is_public=False)
    assert featured_code() == other.code


def test_the_panel_names_the_game_and_links_to_watching_it(client):
    room = live_room(4, players=5)
    html = client.get("/").content.decode()
    panel = html[html.index('id="on-now"') : html.index('id="live-title"')]
    assert f'ws-connect="/ws/r/{room.code}/?watch=1"' in panel
    assert f'href="/r/{room.code}/watch/"' in panel
    assert "P0, P1, P2 and 2 more" in panel and "4 watching" in panel
    assert 'id="cell-' not in panel  # the board comes over the spectator socket, never here


def test_nothing_live_says_so_and_offers_a_room(client):
    html = client.get("/on-now/").content.decode()
    assert "No public game is under way right now" in html
    assert 'href="#create-title"' in html
    assert "ws-connect" not in html


def home_queries(client) -> int:
    on_now.forget()  # the view pays for a fresh pick: the most a view can cost
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200
    return len(queries)


def test_a_home_page_view_costs_the_same_for_10_or_2000_watching_and_for_more_rooms(client):
    featured = live_room(10)
    few = home_queries(client)
    Room.objects.filter(pk=featured.pk).update(spectators=2000)
    for spectators in range(30):  # more live rooms than the list shows
        live_room(spectators)
    assert home_queries(client) == few
    assert featured_code() == featured.code
    with CaptureQueriesContext(connection) as queries:  # within the process's second: no query
        assert on_now.featured() is not None
    assert len(queries) == 0


def test_a_refresh_costs_a_bounded_number_of_queries():
    """No pick yet (pick, names); a pick kept (check it, names); a pick whose game ended (check,
    pick again, names): never more than QUERIES_PER_REFRESH, whatever the rooms."""
    room = live_room(3)
    live_room(1)
    counts = []
    for change in (lambda: None, lambda: None, lambda: current(room).delete()):
        change()
        with CaptureQueriesContext(connection) as queries:
            assert featured_code() is not None
        counts.append(len(queries))
    assert counts == [2, 2, on_now.QUERIES_PER_REFRESH]


def test_on_now_and_live_now_give_the_same_watching_count_from_one_read(client, monkeypatch):
    """Issue 35: "1 watching" in On now beside "2 watching" in Live now. The pick is kept for
    its second (here: for the test), yet both counts come from the list's one read; and the
    list's poll brings the panel's count along (out of band)."""
    monkeypatch.setattr(on_now, "FRESH_SECONDS", 3600.0)
    room = live_room(1)
    for _ in range(LIVE_ROOMS_SHOWN + 2):  # newer rooms push the featured one off the list
        live_room(0)
    assert "1 watching" in client.get("/").content.decode()
    Room.objects.filter(pk=room.pk).update(spectators=2)
    html = client.get("/").content.decode()
    panel = html[html.index('id="on-now"') : html.index('id="live-title"')]
    assert '<span id="on-now-watching" class="on-now-watching">2 watching</span>' in panel
    polled = client.get("/rooms/live/").content.decode()
    assert re.search(r'<span id="on-now-watching" [^>]*hx-swap-oob="true">2 watching<', polled)
    assert "2 watching" in client.get("/on-now/").content.decode()


WATCHING_TARGET = '<span id="on-now-watching" class="on-now-watching" hidden></span>'


def test_the_panel_always_holds_the_watching_count_that_live_nows_poll_swaps_in(client):
    """Live now's poll (every 5 s) swaps the count in out of band, and can bring one before
    the panel (every 15 or 30 s) shows its pick, or shows the count the host had hidden: the
    panel keeps an empty, hidden target, or the page logs htmx:oobErrorNoTarget."""
    nothing = client.get("/on-now/").content.decode()
    assert WATCHING_TARGET in nothing and "No public game is under way right now" in nothing
    room = live_room(2)
    Room.objects.filter(pk=room.pk).update(spectator_count_shown=False)
    on_now.forget()  # as the next view would, once the process's second is up
    hidden = client.get("/on-now/").content.decode()
    assert f'ws-connect="/ws/r/{room.code}/?watch=1"' in hidden and WATCHING_TARGET in hidden
    Room.objects.filter(pk=room.pk).update(spectator_count_shown=True)
    on_now.forget()
    polled = client.get("/rooms/live/").content.decode()
    assert re.search(r'<span id="on-now-watching" [^>]*hx-swap-oob="true">2 watching<', polled)
