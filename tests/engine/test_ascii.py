"""The text form: `render` is what a player sees, `render_full` is the truth that `parse` reads."""

import pytest

from games.engine.ascii import parse, render, render_full
from games.engine.errors import EngineError, ParseError
from games.engine.minesweeper import (
    BEGINNER,
    Action,
    Config,
    GameState,
    Move,
    Status,
    apply_move,
    new_game,
)

FIXTURES = {
    "unplaced": "#####\n#####\n#####",
    "unplaced with a flag": "##f##\n#####",
    "playing": "__1*#\n__2f#\n__1*F",
    "won": "_1*\n_22\n_1F",
    "lost": "!1#\n12f\n##*",
}


@pytest.mark.parametrize("text", FIXTURES.values(), ids=FIXTURES.keys())
def test_full_view_round_trips_through_parse(text: str) -> None:
    assert render_full(parse(text)) == text


@pytest.mark.parametrize("seed", range(6))
def test_played_states_round_trip_through_the_full_view(seed: int) -> None:
    state = new_game(BEGINNER, seed)
    for move in [
        Move(Action.REVEAL, 4, 4),
        Move(Action.FLAG, 0, 0),
        Move(Action.FLAG, 8, 0),
        Move(Action.REVEAL, 0, 8),
        Move(Action.REVEAL, 8, 8),
    ]:
        if not state.is_over:
            state, _ = apply_move(state, move)
    assert parse(render_full(state), seed=seed) == state


def test_parse_reads_status_and_marks() -> None:
    state = parse(FIXTURES["lost"], seed=9, player=3)
    assert state.status is Status.LOST
    assert state.ended_by == 3
    assert state.seed == 9
    assert state.config == Config(3, 3, 2)
    assert state.exploded == {0}
    assert state.flags == {5: 3}
    assert state.revealed == {1: 3, 3: 3, 4: 3}
    assert parse(FIXTURES["won"]).status is Status.WON
    assert parse(FIXTURES["playing"]).status is Status.PLAYING


def test_a_board_without_mines_or_openings_has_its_mines_unplaced() -> None:
    state = parse(FIXTURES["unplaced with a flag"])
    assert state.field is None
    assert state.flags == {2: 0}
    assert state.status is Status.PLAYING


def test_parse_ignores_indentation_and_blank_lines() -> None:
    assert parse("\n\n    _1*\n    _22\n\n    _1F\n") == parse(FIXTURES["won"])


def test_render_shows_the_players_view() -> None:
    assert render(parse(FIXTURES["playing"])) == "__1##\n__2F#\n__1#F"


def test_render_after_a_loss_shows_mines_exploded_and_wrong_flags() -> None:
    assert render(parse(FIXTURES["lost"])) == "!1#\n12X\n##*"
    state, _ = apply_move(parse("_1*\n_2f\n_1*"), Move(Action.REVEAL, 2, 0))
    assert render(state) == "_1!\n_2X\n_1*"


def test_render_after_a_win_flags_every_mine() -> None:
    assert render(parse(FIXTURES["won"])) == "_1F\n_22\n_1F"


def test_render_of_a_new_game_is_all_hidden() -> None:
    assert render(new_game(Config(4, 2, 1), 0)) == "####\n####"


def test_render_never_shows_a_hidden_mine_while_playing() -> None:
    state: GameState = parse(FIXTURES["playing"])
    assert "*" in render_full(state)
    assert "*" not in render(state)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "rows of equal length"),
        ("   \n  ", "rows of equal length"),
        ("###\n##", "rows of equal length"),
        ("#?#", r"unknown character '\?' at \(1, 0\)"),
        ("##\n#x", r"unknown character 'x' at \(1, 1\)"),
        ("#X#", r"unknown character 'X' at \(1, 0\)"),  # a wrong flag is public-view only
        ("*2#", r"\(1, 0\) says '2' but touches 1 mines"),
        ("*_#", r"\(1, 0\) says '_' but touches 1 mines"),
        ("#1#", r"\(1, 0\) says '1' but touches 0 mines"),
    ],
)
def test_parse_refuses_bad_text(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse(text)


def test_parse_refuses_boards_the_engine_cannot_hold() -> None:
    with pytest.raises(EngineError):
        parse("#" * 1001)
    with pytest.raises(EngineError):
        parse("**\n**")
