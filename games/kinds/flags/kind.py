"""Minesweeper Flags: two players take turns on one board and claim mines; a person against a
person, against the computer (easy or strong), or two computers playing for spectators."""

from .. import sides
from ..seeking import Seeking
from ..table import ApiView, Clock, Computer, GameKind, Rendering, Setup
from . import api, history, render, rules
from .form import CreateFlagsRoomForm
from .options import FlagsOptions

KIND = GameKind(
    name="flags",
    label="Flags",
    tagline="claim more mines than your opponent",
    setup=Setup(
        create_form=CreateFlagsRoomForm,
        options=FlagsOptions,
        game_params=rules.game_params,
        initial_state=rules.initial_state,
        creator_sits=rules.creator_sits,
        grid=rules.grid,
        seats_for_people=sides.seats_for_people,
    ),
    rules=sides.two_sided_rules(rules.apply, rules.presence, rules.sides),
    api=ApiView(
        text_rows=rules.text_rows,
        changed_cells=rules.changed_cells,
        public_summary=rules.PUBLIC_SUMMARY,
        state_fields=api.STATE_FIELDS,
        events_schema=api.EVENTS_SCHEMA,
    ),
    rendering=Rendering(
        page_template="games/flags_room.html",
        create_template="games/flags_create.html",
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
        may_play=rules.has_computer,
        delay=0.7,  # long enough to follow a computer's claims one by one
        plays_at_once=True,  # a bot playing the computer through the API gets the reply at once
        computers_only=rules.computers_only,
        next_game_after=rules.NEXT_GAME_AFTER,
    ),
    clock=Clock(due=rules.due, tick=rules.clock_tick),
    commands=rules.COMMANDS,
    replays=history.REPLAYS,
    seeking=Seeking(label="Flags", room_options={"o": sides.HUMAN}),  # two people, X and O
)
