"""The message table (`games.protocol.message_table`): every door maps every handler it may be
handed, and the table says of each message what the doors did before it existed."""

import pytest

from games.kinds import KINDS
from games.live.receiving import HANDLERS
from games.protocol import messages
from games.protocol.message_table import (
    KIND_COMMAND,
    TABLE,
    Budget,
    Handler,
    MovesDoor,
    Sender,
    entry_for,
    read_payload,
)
from games.rooms.dispatch import PLAYS


def test_the_socket_has_a_handler_for_every_name_and_the_moves_door_for_what_it_takes():
    assert set(HANDLERS) == set(Handler)
    taken = {entry.handler for entry in (*TABLE.values(), KIND_COMMAND)}
    assert taken == set(Handler)
    for entry in (*TABLE.values(), KIND_COMMAND):
        if entry.moves_door is MovesDoor.TAKEN:
            assert entry.handler in PLAYS, entry.name


def test_every_action_the_errors_list_is_in_the_table():
    listed = (*messages.MOVES, *messages.SIGNALS, "hint", "sync", "new_game", "add_bot")
    for name in (*listed, "remove_bot", "chat", "leave", "name", *messages.HOST_ACTIONS):
        assert TABLE[name].name == name
    for name in messages.SOCKET_ONLY_ACTIONS:
        assert TABLE[name].moves_door is not MovesDoor.TAKEN


def test_moves_spend_the_move_budget_and_are_a_seats():
    for name in (*messages.MOVES, "new_game", "add_bot", "remove_bot"):
        entry = TABLE[name]
        assert entry.budget is Budget.MOVE and entry.sender is not Sender.ANYONE
        assert entry.refusal == "move"
    for name in ("hover", "ping", "react", "chat", "hint", "sync", "kick"):
        assert TABLE[name].budget is not Budget.MOVE


@pytest.mark.parametrize("kind", list(KINDS.values()), ids=lambda kind: kind.name)
def test_a_kinds_own_commands_come_by_their_name(kind):
    for name in kind.commands:
        entry = entry_for(name, kind.commands)
        assert entry is not None and entry.name == name
        if name not in TABLE:
            assert entry.handler is Handler.KIND_COMMAND
            found, value = read_payload({"action": name}, kind.commands, moves_door=True)
            assert found.name == name and value == messages.Command(name)
    assert entry_for("start", ()) is None


def test_every_value_names_the_action_it_came_by():
    for name, data in (
        ("reveal", {"x": 1, "y": 2}),
        ("mark", {"cell": 4}),
        ("hover", {"x": 0, "y": 0}),
        ("ping", {"x": 0, "y": 0}),
        ("react", {"emote": "wave"}),
        ("chat", {"text": "hi"}),
        ("kick", {"seat": 2}),
        ("leave", {}),
        ("name", {"name": "Cy"}),
        ("sync", {}),
    ):
        entry, value = read_payload({"action": name, **data})
        assert entry.name == name and value.action == name
        assert isinstance(value, entry.value)  # type: ignore[arg-type]
