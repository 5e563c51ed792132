"""The socket's parser takes anything a client can send: a message value comes back, or
BadMessage, never another exception (which would end the socket with 1011 and skip its cleanup)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.protocol.message_table import parse_message, parse_payload
from games.protocol.messages import (
    MAX_MESSAGE_BYTES,
    BadMessage,
    CellMove,
    Command,
    Hover,
    SquareMove,
    whole_number,
)

MESSAGES = (CellMove, SquareMove, Command, Hover)
KEYS = ["action", "x", "y", "cell", "game", "HEADERS"]
ACTIONS = ["reveal", "flag", "chord", "hover", "mark", "new_game", "sync", "hint", "start"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
number_like = st.one_of(
    st.integers().map(str),
    st.text(alphabet="-+0123456789 _.²³٣e\t\n", max_size=14),
    st.text(max_size=14),
)
payloads = st.fixed_dictionaries(
    {"action": st.sampled_from(ACTIONS) | json_values},
    optional=dict.fromkeys(KEYS[1:], json_values | number_like),
)


def parses_or_refuses(call, *args) -> None:
    try:
        message = call(*args)
    except BadMessage:
        return
    assert isinstance(message, MESSAGES)


@settings(max_examples=400, deadline=None)
@given(payload=payloads)
def test_any_json_object_parses_to_a_message_or_bad_message(payload):
    parses_or_refuses(parse_payload, payload)
    parses_or_refuses(parse_message, json.dumps(payload))


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_any_json_value_parses_to_a_message_or_bad_message(value):
    parses_or_refuses(parse_message, json.dumps(value))


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300) | st.binary(max_size=100))
def test_any_text_or_bytes_parse_to_a_message_or_bad_message(text):
    parses_or_refuses(parse_message, text)


@pytest.mark.parametrize("depth", [MAX_MESSAGE_BYTES // 2 - 1, MAX_MESSAGE_BYTES // 8])
def test_deeply_nested_json_is_refused(depth):
    with pytest.raises(BadMessage):
        parse_message("[" * depth + "]" * depth)
    with pytest.raises(BadMessage):
        parse_message('{"action": "reveal", "x": ' + "[" * depth + "]" * depth + ', "y": 0}')


@pytest.mark.parametrize("value", ["--1", "²", "٣", "1_000", " 1", "1 ", "+1", "-", "", "1e3"])
def test_numbers_are_ascii_digits_only(value):
    with pytest.raises(BadMessage):
        whole_number({"x": value}, "x")


@pytest.mark.parametrize(("value", "number"), [("0", 0), ("17", 17), ("-1", -1), (3, 3)])
def test_digit_strings_and_integers_are_numbers(value, number):
    assert whole_number({"x": value}, "x") == number
