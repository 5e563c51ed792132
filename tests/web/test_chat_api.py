"""Room chat over the JSON API: a seat's token says a line, anyone reads the last 50; bad lines
get a 400 naming the fault, a wrong token 403, a flood 429 with its headers, and nothing is kept."""

import re

import pytest

from games.kinds.race import rules
from games.limits import Limit
from games.protocol.messages import CellMove
from games.rooms import chat, dispatch, joining
from games.store.models import ChatMessage, Player

from .helpers import make_room

pytestmark = pytest.mark.django_db


def say(client, code, token, text):
    return client.post(
        f"/api/rooms/{code}/chat",
        {"text": text},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def test_a_seat_says_a_line_and_anyone_reads_it(client):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    answer = say(client, room.code, ana.token, "  hello <b>all</b>  ")
    assert answer.status_code == 201
    line = answer.json()
    assert (line["author"], line["channel"], line["text"]) == ("Ana", "players", "hello <b>all</b>")
    read = client.get(f"/api/rooms/{room.code}/chat")
    assert read.status_code == 200
    assert read.json() == {"messages": [line]}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "empty"),
        (" \n ", "empty"),
        ("y" * 201, "too long"),
        ("bell\a", "control character"),
    ],
)
def test_a_bad_line_is_a_400_that_says_why_and_nothing_is_kept(client, text, error):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    answer = say(client, room.code, ana.token, text)
    assert answer.status_code == 400 and error in answer.json()["error"]
    assert not ChatMessage.objects.exists()


def test_a_line_needs_a_seats_token_and_a_string(client):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    assert say(client, room.code, "not-a-token", "hi").status_code == 403
    answer = client.post(
        f"/api/rooms/{room.code}/chat", {"text": "hi"}, content_type="application/json"
    )
    assert answer.status_code == 401
    assert say(client, room.code, ana.token, 5).status_code == 400
    assert say(client, "nosuchroomnosuchroomxx", ana.token, "hi").status_code == 404
    assert client.get("/api/rooms/nosuchroomnosuchroomxx/chat").status_code == 404
    assert not ChatMessage.objects.exists()


def test_past_five_lines_in_ten_seconds_a_seat_gets_429_and_nothing_is_kept(client):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    bo = joining.join_room(room, "Bo")
    for n in range(chat.PER_SENDER.count):
        assert say(client, room.code, ana.token, f"line {n}").status_code == 201
    refused = say(client, room.code, ana.token, "one more")
    assert refused.status_code == 429 and "Too many chat" in refused.json()["error"]
    assert refused["RateLimit-Policy"] == '"chat";q=5;w=10'
    assert int(refused["Retry-After"]) >= 1
    assert say(client, room.code, bo.token, "Bo may").status_code == 201
    assert ChatMessage.objects.count() == chat.PER_SENDER.count + 1


def test_a_muted_seat_gets_403(client):
    """A seat the host muted (`games.rooms.host`): its line is refused, nothing kept."""
    room = make_room()
    ana = joining.join_room(room, "Ana")
    Player.objects.filter(pk=ana.pk).update(muted=True)
    answer = say(client, room.code, ana.token, "hi")
    assert answer.status_code == 403 and "muted" in answer.json()["error"]
    assert not ChatMessage.objects.exists()


def test_the_reader_sees_the_spectators_only_once_no_race_runs(client):
    room = joining.create_room("race", rules.validate_settings(9, 9, 10, True))
    ana = joining.join_room(room, "Ana")
    chat.say(room, None, "coach", address="a", sender="s")
    chat.say(room, ana, "racer", address="a", sender="r")
    read = client.get(f"/api/rooms/{room.code}/chat").json()["messages"]
    assert [m["text"] for m in read] == ["racer"]
    game = room.current_game()
    game.status = game.Status.LOST
    game.save(update_fields=["status"])
    read = client.get(f"/api/rooms/{room.code}/chat").json()["messages"]
    assert [(m["channel"], m["text"]) for m in read] == [
        ("spectators", "coach"),
        ("players", "racer"),
    ]


def test_the_replay_lists_the_players_chat_of_that_game_on_its_timeline(client):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    chat.say(room, ana, "before the first click", address="a", sender="a")
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    chat.say(room, ana, "after <one> move", address="a", sender="a")
    chat.say(room, None, "a spectator's line", address="a", sender="s")
    game = room.current_game()
    html = client.get(f"/r/{room.code}/games/{game.number}/").content.decode()
    lines = re.findall(
        r'<li class="chat-message" data-channel="(\w+)" data-author="(\w+)" data-k="(\d+)">'
        r'<a class="when" href="\?move=(\d+)"[^>]*>[\d:.]+</a> <b class="chat-author">\w+</b> '
        r'<span class="chat-text">([^<]*)</span>',
        html,
    )
    assert lines == [
        ("players", "Ana", "0", "0", "before the first click"),
        ("players", "Ana", "1", "1", "after &lt;one&gt; move"),
    ]


def test_an_address_is_limited_across_its_seats_and_a_refusal_costs_the_sender_nothing(
    monkeypatch,
):
    # The address's burst with (almost) no token back: 20 writes take over half a second on a
    # busy machine, time enough at 2 a second for a token to return and the 21st to pass.
    burst = chat.PER_ADDRESS.count
    monkeypatch.setattr(chat, "PER_ADDRESS", Limit.rate("chat-address", burst, 0.001))
    room = make_room()
    other = make_room()
    for n in range(chat.PER_ADDRESS.count):
        chat.say(room if n % 2 else other, None, f"line {n}", address="1.2.3.4", sender=n)
    with pytest.raises(chat.TooFast) as refused:
        chat.say(room, None, "one more", address="1.2.3.4", sender="fresh")
    assert refused.value.decision.limit.name == "chat-address"
    # The fresh sender's own bucket was given back: five lines from elsewhere still pass.
    for n in range(chat.PER_SENDER.count):
        chat.say(room, None, f"elsewhere {n}", address="5.6.7.8", sender="fresh")
    assert ChatMessage.objects.count() == chat.PER_ADDRESS.count + chat.PER_SENDER.count
