"""Minesweeper: co-op rooms on one shared board, with hints and the Solver bot."""

from ..table import ApiView, Bot, Computer, GameKind, Hints, Rendering, Rules, Setup
from . import api, history, render, rules
from .form import CreateMinesweeperRoomForm
from .options import MinesweeperOptions

KIND = GameKind(
    name="minesweeper",
    label="Minesweeper",
    tagline="clear the board together",
    setup=Setup(
        create_form=CreateMinesweeperRoomForm,
        options=MinesweeperOptions,
        game_params=rules.game_params,
        initial_state=rules.initial_state,
        creator_sits=rules.creator_sits,
        grid=rules.grid,
    ),
    rules=Rules(
        apply=rules.apply,
    ),
    api=ApiView(
        text_rows=rules.text_rows,
        changed_cells=rules.changed_cells,
        events_schema=api.EVENTS_SCHEMA,
    ),
    rendering=Rendering(
        page_template="games/minesweeper_room.html",
        create_template="games/minesweeper_create.html",
        game_context=render.game_context,
        snapshot_html=render.snapshot_html,
        new_game_html=render.new_game_html,
        roster_html=render.roster_html,
        spectators_html=render.spectators_html,
        gather=render.gather,
        move_html=render.move_html,
        describe_settings=render.describe_settings,
        join_summary="games/minesweeper.html#join_summary",
    ),
    hints=Hints(
        hint=rules.hint,
        none_found=rules.NO_SAFE_CELL,
        hint_html=render.hint_html,
        opened=rules.hint_opened,
    ),
    computer=Computer(
        to_move=rules.computer_to_move,
        move=rules.computer_move,
        may_play=rules.has_bot,
        delay=1.0,  # about a person's pace, so people can follow and play along
        plays_at_once=False,  # played out at once it would clear the board before a bot's next request
        computers_only=lambda params: False,  # the bot is a teammate: people play every game
        next_game_after=None,
    ),
    bot=Bot(name=rules.BOT_NAME, seated=rules.has_bot, changed_html=render.bot_html),
    replays=history.REPLAYS,
)
