"""Minesweeper Flags: claims keep the turn, safe reveals pass it, the bomb, winning, the forms.

Fixtures are the full text form: `#` hidden safe, `*` hidden mine, `x` / `o` a mine claimed by
X / O, `_` and `1`-`8` revealed.
"""

import json
from dataclasses import replace
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import flags
from games.engine.errors import (
    GameOverError,
    InvalidBoardError,
    InvalidMoveError,
    OutOfBoundsError,
    ParseError,
)
from games.engine.flags import (
    STANDARD,
    Action,
    AlreadyRevealedError,
    BombNotAllowedError,
    BombRefusal,
    BombUsed,
    CellsRevealed,
    Config,
    GameWon,
    MineClaimed,
    Move,
    NotYourTurnError,
    Seat,
    State,
    Status,
    TurnPassed,
    apply_move,
    bomb_area,
    from_dict,
    legal_moves,
    new_game,
    parse,
    render,
    render_full,
    replay,
    rows,
    time_out,
    to_dict,
)

X, O = Seat.X, Seat.O  # noqa: E741 - the seats are named by their letters

OPEN_FIELD = """
*######
#######
#######
###*###
###*###
"""

CROWDED = """
x*#####
*x#####
##o*###
#######
*##**##
#######
#######
"""
"""Nine mines: X has claimed two, O one, so O is behind."""


def reveal(state: State, x: int, y: int, seat: Seat | None = None) -> State:
    state, _ = apply_move(state, Move(Action.REVEAL, x, y, seat or state.turn))
    return state


def test_a_claimed_mine_keeps_the_turn() -> None:
    state = parse(OPEN_FIELD)
    after, events = apply_move(state, Move(Action.REVEAL, 3, 3, X))
    assert events == (MineClaimed(X, 3, 3),)
    assert after.turn is X
    assert after.scores == {X: 1, O: 0}
    assert render(after).splitlines()[3] == "###x###"


def test_a_safe_reveal_floods_through_zeros_and_passes_the_turn() -> None:
    after, events = apply_move(parse(OPEN_FIELD), Move(Action.REVEAL, 6, 0, X))
    assert render_full(after) == "\n".join(["*1_____", "11_____", "__111__", "__2*2__", "__2*2__"])
    assert isinstance(events[0], CellsRevealed)
    assert len(events[0].cells) == len(after.revealed) == 35 - 3  # every safe cell
    assert events[1:] == (TurnPassed(O),)
    assert after.turn is O


def test_a_number_opens_only_itself() -> None:
    after, events = apply_move(parse(OPEN_FIELD), Move(Action.REVEAL, 1, 1, X))
    assert events == (CellsRevealed(X, (8,), bytes([1])), TurnPassed(O))


def test_claims_chain_until_a_safe_reveal() -> None:
    state = reveal(parse(OPEN_FIELD), 3, 3, X)
    state = reveal(state, 1, 1, X)
    assert (state.turn, state.scores) == (O, {X: 1, O: 0})
    state = reveal(state, 0, 0, O)
    assert (state.turn, state.scores) == (O, {X: 1, O: 1})
    state = reveal(state, 2, 2, O)
    assert (state.turn, state.scores) == (X, {X: 1, O: 1})
    assert render(state).splitlines()[:4] == ["o######", "#1#####", "##1####", "###x###"]


def test_the_bomb_claims_the_mines_in_its_square_clipped_at_the_edge_and_ends_the_turn() -> None:
    state = parse(CROWDED, turn=O)
    after, events = apply_move(state, Move(Action.BOMB, 0, 0, O))
    assert render_full(after).splitlines()[:3] == ["xo2####", "ox4####", "23o*###"]
    assert events[0] == BombUsed(O, 0, 0)
    assert set(events[2:4]) == {MineClaimed(O, 1, 0), MineClaimed(O, 0, 1)}
    assert events[-1] == TurnPassed(X)
    assert after.scores == {X: 2, O: 3}
    assert after.bombs_used == frozenset({O})
    assert after.turn is X  # ahead now, yet the turn passed


def test_the_bomb_square_is_five_by_five() -> None:
    grid = Config(9, 9, 1).grid
    assert len(bomb_area(grid, grid.index(4, 4))) == 25
    assert len(bomb_area(grid, grid.index(0, 0))) == 9
    assert len(bomb_area(grid, grid.index(1, 8))) == 12


def test_zeros_the_bomb_opens_flood_as_usual() -> None:
    state = parse("x#######\n#######o\n########\n###*####\no######*", turn=X)
    after = apply_move(state, Move(Action.BOMB, 6, 0, X))[0]
    assert render_full(after) == "\n".join(
        ["x1____11", "11____1o", "__111_11", "111*1_1#", "o###1_1*"]
    )


def test_the_bomb_is_only_for_the_player_behind() -> None:
    with pytest.raises(BombNotAllowedError, match="not behind") as refused:
        apply_move(parse(CROWDED, turn=X), Move(Action.BOMB, 4, 4, X))
    assert refused.value.reason is BombRefusal.NOT_BEHIND
    level = parse(OPEN_FIELD)
    with pytest.raises(BombNotAllowedError) as refused:
        apply_move(level, Move(Action.BOMB, 3, 3, X))
    assert refused.value.reason is BombRefusal.NOT_BEHIND


def test_the_bomb_is_used_once_per_game() -> None:
    state = parse(CROWDED, turn=O, bombs_used=[O])
    with pytest.raises(BombNotAllowedError, match="already used") as refused:
        apply_move(state, Move(Action.BOMB, 6, 6, O))
    assert refused.value.reason is BombRefusal.USED
    # X may still use its own, once it is behind.
    state = parse(CROWDED.replace("*##**", "o##oo"), turn=X, bombs_used=[O])
    assert state.can_bomb(X)
    after = apply_move(state, Move(Action.BOMB, 4, 0, X))[0]
    assert after.bombs_used == {X, O}


def test_a_bomb_on_open_ground_is_refused() -> None:
    state = reveal(parse(OPEN_FIELD), 6, 0, X)
    state = replace(state, claimed=MappingProxyType({0: X}))
    with pytest.raises(BombNotAllowedError) as refused:
        apply_move(state, Move(Action.BOMB, 6, 1, O))
    assert refused.value.reason is BombRefusal.NOTHING_HIDDEN
    assert state.bombs_used == frozenset()


def test_twenty_six_of_fifty_one_wins_and_ends_the_game() -> None:
    assert (STANDARD.width, STANDARD.height, STANDARD.mines, STANDARD.to_win) == (16, 16, 51, 26)
    state = new_game(STANDARD, seed=7)
    mines = sorted(state.field.mines)
    claimed = dict.fromkeys(mines[:25], X) | dict.fromkeys(mines[25:37], O)
    state = replace(state, claimed=MappingProxyType(claimed))
    after, events = apply_move(state, Move(Action.REVEAL, *state.grid.xy(mines[40]), X))
    assert events[-1] == GameWon(X, 26, 12)
    assert (after.status, after.winner) == (Status.WON, X)
    assert legal_moves(after) == ()
    with pytest.raises(GameOverError, match="X won"):
        apply_move(after, Move(Action.REVEAL, *state.grid.xy(mines[41]), X))


def test_a_winning_bomb_wins_instead_of_passing_the_turn() -> None:
    state = parse(CROWDED, turn=O)
    after, events = apply_move(state, Move(Action.BOMB, 2, 4, O))
    assert after.scores == {X: 2, O: 5}
    assert events[-1] == GameWon(O, 2, 5)
    assert after.status is Status.WON


def test_a_time_out_passes_the_turn_and_changes_nothing_else() -> None:
    state = reveal(parse(CROWDED), 3, 2, X)  # X claims, and would go again
    after, events = time_out(state)
    assert events == (TurnPassed(O),)
    assert after == replace(state, turn=O)
    assert time_out(after)[0].turn is X


def test_a_finished_game_has_no_turn_to_time_out() -> None:
    won = parse("xxx**\n#####")
    assert won.status is Status.WON
    with pytest.raises(GameOverError, match="X won"):
        time_out(won)


def test_moves_out_of_turn_or_on_open_cells_are_refused() -> None:
    state = parse(CROWDED, turn=O)
    with pytest.raises(NotYourTurnError, match="O's turn"):
        apply_move(state, Move(Action.REVEAL, 6, 6, X))
    with pytest.raises(AlreadyRevealedError, match="claimed by X"):
        apply_move(state, Move(Action.REVEAL, 0, 0, O))
    opened = reveal(parse(OPEN_FIELD), 6, 0, X)
    with pytest.raises(AlreadyRevealedError, match=r"\(5, 0\) is already open"):
        apply_move(opened, Move(Action.REVEAL, 5, 0, O))
    with pytest.raises(OutOfBoundsError):
        apply_move(state, Move(Action.REVEAL, 7, 0, O))
    with pytest.raises(InvalidMoveError, match="whole number"):
        apply_move(state, Move(Action.REVEAL, True, 0, O))


@pytest.mark.parametrize("mines", [0, 2, 50, 257, True])
def test_configs_need_an_odd_mine_count_that_fits(mines: int) -> None:
    with pytest.raises(InvalidBoardError):
        Config(16, 16, mines)


def test_new_game_places_the_mines_from_the_seed() -> None:
    first, again = new_game(STANDARD, 3), new_game(STANDARD, 3)
    assert first == again and len(first.field.mines) == 51
    assert new_game(STANDARD, 4).field != first.field
    assert render(first) == "\n".join(["#" * 16] * 16)


def test_the_public_rows_hide_unclaimed_mines() -> None:
    state = parse(CROWDED)
    assert rows(state)[0] == "x######"
    assert "*" not in render(state)
    assert render_full(state).splitlines()[0] == "x*#####"


def test_parse_refuses_bad_fixtures() -> None:
    with pytest.raises(ParseError, match="unknown character"):
        parse("#F#")
    with pytest.raises(ParseError, match="touches 1 mines"):
        parse("*_#")
    with pytest.raises(ParseError, match="odd"):
        parse("**#")


def test_storage_and_text_forms_round_trip() -> None:
    state = parse(CROWDED, turn=O)
    state = apply_move(state, Move(Action.BOMB, 0, 0, O))[0]
    state = reveal(state, 6, 6, X)
    stored = json.loads(json.dumps(to_dict(state)))
    assert from_dict(stored) == state
    assert parse(render_full(state), turn=state.turn, bombs_used=state.bombs_used) == state


def test_from_dict_refuses_stored_forms_that_contradict_themselves() -> None:
    stored = to_dict(parse(CROWDED, turn=O))
    with pytest.raises(ParseError, match="claimed cells must be mines"):
        from_dict(stored | {"claimed": {"X": [2], "O": []}})
    with pytest.raises(ParseError, match="status"):
        from_dict(stored | {"status": "won", "winner": "X"})
    with pytest.raises(ParseError):
        from_dict(stored | {"turn": "Z"})
    with pytest.raises(ParseError, match="version"):
        from_dict({})


# Properties ----------------------------------------------------------------------------------


@st.composite
def configs(draw: st.DrawFn) -> Config:
    width, height = draw(st.integers(2, 9)), draw(st.integers(2, 9))
    return Config(width, height, draw(st.integers(0, (width * height - 1) // 2)) * 2 + 1)


@settings(max_examples=40, deadline=None)
@given(config=configs(), seed=st.integers(0, 2**32), data=st.data())
def test_random_legal_games_keep_the_scores_consistent(
    config: Config, seed: int, data: st.DataObject
) -> None:
    state = new_game(config, seed)
    log: list[Move] = []
    while state.status is Status.PLAYING:
        move = data.draw(st.sampled_from(legal_moves(state)))
        state, _ = apply_move(state, move)
        log.append(move)
        scores = state.scores
        assert sum(scores.values()) == len(state.claimed) <= config.mines
        assert (max(scores.values()) >= config.to_win) is (state.status is Status.WON)
    assert state.winner is not None
    assert state.scores[state.winner.other] < config.to_win <= state.scores[state.winner]
    assert replay(config, seed, log) == state
    assert from_dict(json.loads(json.dumps(to_dict(state)))) == state


def test_forfeit_gives_the_game_to_the_other_seat_whatever_the_score() -> None:
    board = parse(CROWDED, turn=O)  # X leads 2 to 1
    new, events = flags.forfeit(board, X)
    assert (new.status, new.winner, new.forfeited) == (Status.WON, O, X)
    assert events == (GameWon(O, 2, 1),)
    assert board.status is Status.PLAYING  # the input is untouched
    with pytest.raises(GameOverError):
        apply_move(new, Move(Action.REVEAL, 6, 6, O))
    with pytest.raises(GameOverError):
        flags.forfeit(new, O)


def test_a_forfeit_round_trips_and_a_stored_one_must_agree_with_its_winner() -> None:
    new, _ = flags.forfeit(parse(CROWDED, turn=O), O)
    assert from_dict(to_dict(new)) == new
    with pytest.raises(ParseError):
        from_dict({**to_dict(new), "winner": "O"})
