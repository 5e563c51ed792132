"""What a race's roster, results and side card say: each racer's standing as it is (racing,
finished, out, away), the winner's place once, and no watch link offered to a spectator who
is already on it."""

import re

import pytest

from games.kinds.race import render
from games.store.models import Room

from .helpers import receive_until, send
from .test_race import _safe_and_mine, api_race, fast_forward, move, race_of
from .test_race_watch import _racing

pytestmark = pytest.mark.django_db(transaction=True)


def _presence(roster: str, seat: int) -> str:
    item = re.search(
        rf'class="roster-player[^"]*" data-seat="{seat}".*?<span class="presence"[^>]*>([^<]*)</span>',
        roster,
        re.S,
    )
    assert item is not None, roster
    return item[1]


async def test_the_roster_says_a_racer_who_gave_up_is_out_not_racing():
    _, _, (a, b) = await _racing()
    await send(b, action="give_up")
    roster = await receive_until(a, r"Bo is out")  # the give-up's own frame
    assert _presence(roster, 1) == "out · online" and _presence(roster, 0) == "racing · online"
    for socket in (a, b):
        await socket.disconnect()


def test_the_winner_is_placed_once_and_the_roster_says_finished(client):
    code, (ana, bo) = api_race(client)
    move(client, code, ana, action="start")
    fast_forward(code)
    for x, y in _safe_and_mine(code, 1)[0]:
        if race_of(code).racer(1).is_racing:  # type: ignore[union-attr]
            move(client, code, bo, action="reveal", x=x, y=y)
    room = Room.objects.prefetch_related("players").get(code=code)
    game = room.current_game()
    assert _presence(render.roster_html(room, game), 1) == "finished · away"
    move(client, code, ana, action="give_up")
    results = render.viewer_snapshot_html(room, room.current_game(), None)
    cell = re.search(
        r'data-seat="1" data-place="1".*?<td class="place"[^>]*>(.*?)</td>', results, re.S
    )
    assert cell is not None and re.sub(r"<[^>]+>", "", cell[1]) == "1st"
    assert "data-winner" not in re.search(r'<td class="place"[^>]*>', cell[0])[0]  # type: ignore[index]


def test_a_spectator_is_not_offered_the_watch_link_they_are_on(client):
    code, _ = api_race(client)
    watching = client.get(f"/r/{code}/watch/").content.decode()
    assert "Open this link to race in the next one." in watching
    assert (
        f"/r/{code}/watch/"
        not in re.search(r'<section class="invite".*?</section>', watching, re.S)[0]
    )  # type: ignore[index]
