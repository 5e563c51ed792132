"""Minesweeper races: 2 to 8 racers, each on their own copy of one seeded board."""

from games.engine import race as engine

from ..seeking import Seeking
from ..table import ApiView, Bot, Clock, GameKind, PerSeatBoards, Rendering, Rules, Setup
from . import api, history, render, rules
from .form import CreateRaceForm
from .options import RaceOptions

KIND = GameKind(
    name="race",
    label="Minesweeper race",
    tagline="race friends on the same board",
    setup=Setup(
        create_form=CreateRaceForm,
        options=RaceOptions,
        game_params=rules.game_params,
        initial_state=rules.initial_state,
        creator_sits=rules.creator_sits,
        grid=rules.grid,
    ),
    rules=Rules(
        apply=rules.apply,
        may_restart=rules.may_restart,
        presence=rules.presence,
        leave=rules.leave,
        playing_seats=rules.playing_seats,
        standings=rules.standings,
    ),
    api=ApiView(
        text_rows=rules.text_rows,
        changed_cells=rules.changed_cells,
        state_fields=api.STATE_FIELDS,
        events_schema=api.EVENTS_SCHEMA,
        named=api.named,
    ),
    rendering=Rendering(
        page_template="games/race_room.html",
        create_template="games/race_create.html",
        game_context=render.game_context,
        snapshot_html=render.snapshot_html,
        new_game_html=render.new_game_html,
        roster_html=render.roster_html,
        spectators_html=render.spectators_html,
        gather=render.gather,
        move_html=render.move_html,
        describe_settings=render.describe_settings,
        home_stylesheet="games/race.css",
    ),
    bot=Bot(
        name=rules.BOT_NAME,
        seated=rules.has_bot,
        changed_html=render.bot_html,
        with_pace=rules.with_pace,
    ),
    clock=Clock(due=rules.due, tick=rules.tick),
    per_seat_boards=PerSeatBoards(
        viewer_snapshot_html=render.viewer_snapshot_html,
        spectator_delay=render.spectator_delay,
        watching=rules.watching,
    ),
    commands=rules.COMMANDS,
    replays=history.REPLAYS,
    seeking=Seeking(
        label="Race",
        players=range(engine.MIN_RACERS, engine.MAX_RACERS + 1),
        players_label="Racers",
        presets=tuple(rules.PRESETS),
        why_this_mode="co-op Minesweeper is played with friends, not strangers",
        start_command="start",  # once every racer matched is connected
    ),
)
