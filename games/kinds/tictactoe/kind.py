"""Tic-tac-toe: two entrants, each a person or a computer (random or perfect)."""

from .. import sides
from ..seeking import Seeking
from ..table import ApiView, Clock, Computer, GameKind, Rendering, Setup
from . import api, history, render, rules
from .form import CreateTicTacToeRoomForm
from .options import TicTacToeOptions

KIND = GameKind(
    name="tictactoe",
    label="Tic-tac-toe",
    tagline="a friend or the computer",
    setup=Setup(
        create_form=CreateTicTacToeRoomForm,
        options=TicTacToeOptions,
        game_params=rules.game_params,
        initial_state=rules.initial_state,
        creator_sits=rules.creator_sits,
        seats_for_people=sides.seats_for_people,
    ),
    rules=sides.two_sided_rules(rules.apply, rules.presence, rules.sides),
    api=ApiView(
        text_rows=rules.text_rows,
        changed_cells=rules.changed_cells,
        state_fields=api.STATE_FIELDS,
        events_schema=api.EVENTS_SCHEMA,
    ),
    rendering=Rendering(
        page_template="games/tictactoe_room.html",
        create_template="games/tictactoe_create.html",
        game_context=render.game_context,
        snapshot_html=render.snapshot_html,
        new_game_html=render.new_game_html,
        roster_html=render.roster_html,
        spectators_html=render.spectators_html,
        gather=render.gather,
        move_html=render.move_html,
        describe_settings=render.describe_settings,
    ),
    computer=Computer(
        to_move=rules.computer_to_move,
        move=rules.computer_move,
        may_play=lambda params: True,
        delay=0.5,  # long enough to see the computer "think"
        plays_at_once=True,  # a bot playing the computer through the API gets the reply at once
        computers_only=rules.computers_only,
        next_game_after=rules.NEXT_GAME_AFTER,
    ),
    clock=Clock(due=rules.due, tick=rules.tick),
    commands=rules.COMMANDS,
    replays=history.REPLAYS,
    seeking=Seeking(label="Tic-tac-toe", room_options={"o": sides.HUMAN}),  # two people, X and O
)
