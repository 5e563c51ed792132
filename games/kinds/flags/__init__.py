"""Minesweeper Flags: two players take turns on one board and claim mines; a person against a
person, against the computer (easy or strong), or two computers playing for spectators."""

from .. import seats_away, sides
from ..table import Clock, Computer, GameKind, Rendering
from . import history, render, rules
from .form import CreateFlagsRoomForm
from .options import FlagsOptions

KIND = GameKind(
    name="flags",
    label="Flags",
    tagline="claim more mines than your opponent",
    create_form=CreateFlagsRoomForm,
    options=FlagsOptions,
    creator_sits=rules.creator_sits,
    game_params=rules.game_params,
    initial_state=rules.initial_state,
    apply=rules.apply,
    text_rows=rules.text_rows,
    changed_cells=rules.changed_cells,
    may_restart=sides.may_restart(rules.sides),
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
    presence=rules.presence,
    leave=seats_away.left,
    carry_over=seats_away.still_away,
    public_summary=rules.PUBLIC_SUMMARY,
    replays=history.REPLAYS,
    seats_for_people=sides.seats_for_people,
    playing_seats=sides.playing_seats,
    standings=sides.standings,
    grid=rules.grid,
)
