"""The game-kind table: one `GameKind` per kind says everything the shell needs of it.

In the manner of Simon Tatham's `const struct game thegame`: services, the consumer, the API, the
pages and the computer players look a room's kind up once (`games.kinds.kind_of`) and call what
its table offers. An ability a kind lacks (hints, a computer player, a bot the host seats) is an
explicit `None`, never a probe of the module or a branch on the kind's name.

The states, params and settings the table's functions take are the storable (JSON) forms kept in
`Game.state`, `Game.params` and `Room.settings`; each kind parses them with its own engine.
"""

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..protocol.messages import Message, whole_floats
from .seeking import Seeking

if TYPE_CHECKING:  # forms and models are the shell's; the table only names them
    from django import forms

    from ..store.models import Game, Player, Room
    from .replays import Replays

State = dict[str, Any]
"""A game's storable state (`Game.state`)."""
Params = dict[str, Any]
"""One game's parameters (`Game.params`): the room's settings, or more (tic-tac-toe's sides)."""
Settings = dict[str, Any]
"""A room's validated settings (`Room.settings`), which every new game starts from."""
Fragment = str | Mapping[str, str]
"""What a room is told: one HTML text for everyone, or one text per *audience*, so that each
screen gets only what it may see (a racer never another racer's numbers). The keys, and the
order in which a socket looks for its own, are `games.protocol.audiences`'s: `"seat:N"`, `"players"`,
`"spectators"`, `"all"`, and `"json"`/`"json:seat:N"` for bots on the websocket."""

COMPUTER_SEAT = 2_147_483_647
"""`Move.seat` of a computer's move (its `player` is None): a tic-tac-toe computer or the
Minesweeper Solver bot, and the engine's player id for the cells the bot reveals. Seats count up
from 0 per room, so no person's seat ever reaches it; it is the largest value every database's
PositiveIntegerField holds."""


def computer_seat(mark: str) -> int:
    """The seat a two-sided game's replay credits a computer's moves to: the log writes every
    computer's move with the one `COMPUTER_SEAT`, which cannot tell two computers apart, so each
    side's computer gets its own seat just below it (X's first, as lists order seats)."""
    return COMPUTER_SEAT - 2 + "XO".index(mark)


def credited_seat(seat: int, mark: str) -> int:
    """Who made a logged move of `mark`'s side: a person's own seat, or that side's computer."""
    return computer_seat(mark) if seat == COMPUTER_SEAT else seat


class SettingsError(ValueError):
    """Room settings outside the documented limits; the message is shown to the user, next to
    `field` (the form's and the API's name for the setting at fault) when there is one."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def whole(value: Any) -> bool:
    """A whole number as JSON or a form gives it (True is an int to Python, not to a player)."""
    return isinstance(value, int) and not isinstance(value, bool)


class Refused(ValueError):
    """A move the game's state refuses (game over, not your turn): HTTP 409 in the API."""


class HostOnly(Refused):
    """Only the room's host may do this (start a race): HTTP 403, as every "only the host"
    is (`rooms.base.Forbidden`); a socket's sender hears it as any refusal."""


class Invalid(ValueError):
    """A move that can never be valid here (off the board, wrong kind of move): HTTP 400."""


NAME_LIMIT = 24
MAX_SEED = 2**62 - 1
"""The largest seed the server draws itself (`rooms.joining.new_seed`); every database's BigInteger
holds it."""

SIGN_IN_TO_RATE = "Sign in to play rated games"
RATED_NO_COMPUTERS = "Rated rooms have no computer players: only signed-in people play."
"""What a guest hears when creating or joining a rated room (403 in the API)."""


class CreateOptions(BaseModel):
    """The API's create body (`GameKind.setup.options`): what every body may carry, whatever the
    kind; each kind's model adds its own fields, with their bounds and descriptions, which the
    OpenAPI schema shows (`kinds.options` puts every kind's in one union)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    game: str
    name: str = Field(
        "Bot", min_length=1, max_length=NAME_LIMIT, description="The creator's name in the room."
    )
    public: bool = Field(False, description="Listed on the home page's live rooms.")
    seed: int | None = Field(
        None,
        ge=0,
        le=MAX_SEED,
        description="The first game's seed, for a reproducible board: two rooms with the same "
        "seed and settings deal the same board (the same first click opens the same cells). "
        "Later games draw their own. Default: a random one. Not in a race or Flags, where "
        "players compete: whoever chose the seed would know the board.",
    )

    _whole_floats = model_validator(mode="before")(whole_floats)
    """`"width": 9.0` is a JSON Schema integer: taken as 9 (strict mode alone refuses it)."""

    takes_mode: ClassVar[bool] = False
    """Whether the kind is one mode of its `game` that a body must name (a race)."""
    takes_seed: ClassVar[bool] = True
    """Whether a body may choose the first game's seed: not where people compete on a board
    (a race, Flags), since the one who chose it could work the board out beforehand."""

    def settings(self) -> Settings:
        """The room's validated settings, or SettingsError (what the fields alone cannot say:
        mines that fit the size)."""
        raise NotImplementedError

    @classmethod
    def game_name(cls) -> str:
        return str(get_args(cls.model_fields["game"].annotation)[0])

    @classmethod
    def mode_name(cls) -> str | None:
        """The mode a body names to choose this kind (a race), None for its game's default."""
        field = cls.model_fields.get("mode")
        return str(get_args(field.annotation)[0]) if field is not None and cls.takes_mode else None


@dataclass(frozen=True)
class Applied:
    """The result of one accepted move, in storable form, with the engine's events."""

    state: State
    status: str
    events: tuple[object, ...]
    summary: dict[str, Any] = field(default_factory=dict)
    board: object | None = field(default=None, compare=False, repr=False)
    """The engine's own object for `state`, when the rules kept it: the renderers and the bot
    use it instead of parsing `state` again on every move."""
    at: float | None = field(default=None, compare=False)
    """The Unix time (seconds) the rules took as "now", when they read the clock (a race): the
    move log stamps the move with this very time, so a replay plays it when the rules did."""
    params: Params | None = field(default=None, compare=False)
    """The game's new params when a command changes who holds a side (a free seat taken);
    None: the params stay."""

    def loaded[T](self, load: Callable[[State], T]) -> T:
        return self.board if self.board is not None else load(self.state)  # type: ignore[return-value]

    @property
    def changed(self) -> bool:
        return bool(self.events)


@dataclass(frozen=True, slots=True)
class MoveNews:
    """Everything a move's fragments show, handed over by the service that made the move.

    `facts` is what the kind's `Rendering.gather` read inside the move's transaction (seats,
    scores), so rendering after the commit queries nothing itself; None when the move needs none.
    `room` is the mover's copy, maybe minutes old: only what never changes is read from it.
    """

    room: "Room"
    game: "Game"
    applied: Applied
    mover: "Player | None"
    facts: Any = None


@dataclass(frozen=True, slots=True)
class NewGame:
    """Who started the room's next game, for the line that announces it to everyone."""

    starter: str | None
    """The nickname of the player who asked for it; None when it started by itself (the next
    game of a room that computers alone play)."""
    interrupted: bool
    """Whether the game it replaced was under way (moves made, not over): a restart."""


@dataclass(frozen=True, slots=True)
class Rendering:
    """A kind's HTML: the room page and the websocket fragments share its templates' partials."""

    page_template: str
    """The room page, rendered with `game_context` plus the viewer (`me`, `watching`, links)."""
    create_template: str
    """The home page's fields for this kind (its part of the create form)."""
    game_context: Callable[["Room", "Game"], dict[str, Any]]
    snapshot_html: Callable[["Room", "Game"], str]
    """The whole game: every (re)connect starts with it."""
    new_game_html: Callable[["Room", "Game", NewGame], Fragment]
    """A new game (a rematch) for everyone: the whole game, as `snapshot_html`, with a line in
    the live region saying who started it; stale narration under a blank board misleads."""
    roster_html: Callable[["Room", "Game"], Fragment]
    """Presence or seats changed."""
    spectators_html: Callable[[int | None], str]
    """The spectator count alone (None: the host hid it)."""
    """Only the number of spectators changed: that count, swapped by itself."""
    gather: Callable[["Room", "Game", Applied], Any]
    """What `move_html` needs from the database, read by the service inside the transaction."""
    move_html: Callable[[MoveNews], Fragment]
    """Only what the move changed."""
    describe_settings: Callable[[Settings], str]
    """A room's settings in a few words, for the home page's list of live rooms."""
    home_stylesheet: str = ""
    """A stylesheet the home page loads for what it shows of this kind's rooms (a race's
    progress in the live rooms), as a static path; "": none."""
    join_summary: str = ""
    """The partial the invitation page shows under its words (a co-op board's size and mines),
    with the room in its context; "": none."""


@dataclass(frozen=True, slots=True)
class PerSeatBoards:
    """A kind where each seat plays a board of its own that only it may see (a race), and what
    follows from that: a move's changed cells reach only the mover's bot (other bots hear only
    the new version), every screen gets its own snapshot, nobody sees another's pointer (every
    board is a copy of one layout, so a pointer would show a rival where the safe cells are),
    and spectators may watch a few seconds late so that a friend watching cannot coach."""

    viewer_snapshot_html: Callable[["Room", "Game", int | None], str]
    """The whole game as one seat (None: a spectator) may see it."""
    spectator_delay: Callable[["Room"], float]
    """Seconds by which everything a spectator's socket hears (its snapshot too) trails the
    game; 0: live."""
    watching: Callable[[State, Params], frozenset[int]] = lambda state, params: frozenset()
    """The seats out of a game others still play (a racer who gave up, is out or finished):
    they see the others' boards, so they watch as late as spectators do and talk in the
    spectators' channel, which nobody still playing hears (`games.rooms.chat`)."""


@dataclass(frozen=True, slots=True)
class Hints:
    """A kind that can point out a provably safe move for everyone in the room."""

    hint: Callable[[State], tuple[int, int] | None]
    """(x, y) of the hinted cell, or None when nothing can be proved; Refused once the game is
    over. Not a move: nothing of the game changes."""
    none_found: str
    """What the API answers (409) when the hint is None."""
    hint_html: Callable[["Room", "Game", str, tuple[int, int] | None], str]
    opened: Callable[[State, tuple[int, int]], bool]
    """Whether the hinted cell is open on this state: a move got in while the hint was worked
    out, so the hint would show nothing and is neither shown nor counted."""


HINTED = "hinted"
"""The game's params key where the shell keeps the cell last hinted to a person, [x, y], so a
kind's computer can leave it for them."""


@dataclass(frozen=True, slots=True)
class Computer:
    """A kind with computer players, driven live from the websocket process (`rooms.autoplay`).

    `move` depends only on its arguments (the rng comes from the seed and version), so drivers in
    several processes agree and a game replays from its move log.
    """

    to_move: Callable[[State, Params], object | None]
    """Who or what the computer would play now, or None when no computer is due."""
    move: Callable[[State, Params, int, int], tuple[Message, Applied] | None]
    """(state, params, seed, version) -> the computer's message and its result, or None."""
    may_play: Callable[[Params], bool]
    """Whether a game with these params (or a room with these settings) can have a computer
    due at all; False spares the driver a query per move."""
    delay: float
    """Seconds the computer waits before each move, so people can follow."""
    plays_at_once: bool
    """Whether the API plays the computer's replies before it answers (tic-tac-toe), or leaves
    them to the live driver at a person's pace (the Minesweeper Solver bot)."""
    computers_only: Callable[[Params], bool]
    """Whether computers hold every side of a game with these params: nobody in the room could
    start the next game, so `next_game_after` may."""
    next_game_after: float | None
    """Seconds after a `computers_only` game ends before the next one starts by itself (the
    room sees a countdown), for as long as anyone watches; None: only people start games."""


@dataclass(frozen=True, slots=True)
class Clock:
    """A kind with timed events: a countdown that ends, a turn timer, a penalty or a grace
    period that runs out, a time limit.

    The live driver (`rooms.autoplay`) keeps one timer per live room at the current game's `due`;
    when it fires, `rooms.playing.tick` locks the game and applies `tick`, which logs a move
    (`action="tick"`, the computer seat) and is announced as one, so pages, bots and replays
    see timed events exactly as they see moves.
    """

    due: Callable[[State, Params], float | None]
    """Unix time (seconds) of the game's next timed event, or None when nothing is timed."""
    tick: Callable[[State, Params, float], "Applied | None"]
    """(state, params, now) -> what the events due by `now` change, or None when none is due
    (another process ticked first, or a move changed the plan)."""


@dataclass(frozen=True, slots=True)
class Bot:
    """A computer teammate the host seats or unseats in a room (the Minesweeper Solver bot)."""

    name: str
    seated: Callable[[Params], bool]
    """Whether the bot plays (given a game's params, or the room's settings)."""
    changed_html: Callable[["Room", "Game", str, bool, bool], str]
    """(room, game, host's nickname, on, stuck): the roster and a line saying who changed it."""
    with_pace: Callable[[Params, int], Params] | None = None
    """(settings or params, pace) -> the same with the bot at that pace (safe cells a second),
    Invalid for a pace it does not offer; None: the bot has one pace (a race's computer racer
    has several, the co-op teammate one)."""


@dataclass(frozen=True, slots=True)
class Lineup:
    """Who is in the room when a kind's own command runs (a race's start)."""

    seat: int
    """The sender's seat."""
    host: bool
    """Whether the sender hosts the room."""
    seats: tuple[tuple[int, bool], ...]
    """Every seated player as (seat, online), in seat order."""
    host_online: bool = True
    """Whether the host has a socket open (else someone else may have to act for them)."""


@dataclass(frozen=True, slots=True)
class Restart:
    """Who asks for the room's next game, and whether the current one is under way."""

    seat: int
    """The asker's seat (`Player.number`)."""
    host: bool
    """Whether the asker hosts the room."""
    under_way: bool
    """Moves made and not over: a new game now cuts it short (`NewGame.interrupted`)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """How a room of this kind is created and how each of its games begins."""

    create_form: "type[forms.Form]"
    """The home page's form; its cleaned data has `settings`, `nickname` and `is_public`."""
    options: "type[CreateOptions]"
    """The API's create body for this kind (`kinds.create_options`): a strict pydantic model
    with each field's bounds and description, naming the kind by its `game` (and `mode`); its
    `settings()` gives the validated settings, or SettingsError."""
    game_params: Callable[[Settings, Params | None], Params]
    """The next game's params from the room's settings and the previous game's params."""
    initial_state: Callable[[Params, int], State]
    """A new game from its params and seed."""
    creator_sits: Callable[[Settings], bool] = lambda settings: True
    """Whether the room's creator takes a seat (not when only computers play)."""
    grid: Callable[[Settings], tuple[int, int]] | None = None
    """(room settings) -> the board's (width, height), whose cells a player may ping
    (`rooms.signals`); None: no cell pings (tic-tac-toe's nine squares are always all in view)."""
    seats_for_people: Callable[[Settings], int] | None = None
    """How many people a room with these settings seats (two-sided kinds: their human sides), so
    an invite can say the seats are taken before asking a name; None: any number up to the
    room's cap."""


@dataclass(frozen=True, slots=True)
class Rules:
    """What a person's move does, and the hooks by which the room's life (restarts, sockets
    coming and going, leaving, the next game, a rated end) reaches the game under way. A hook
    left None means the kind has nothing to say there."""

    apply: Callable[[State, Message, int, Params], Applied]
    """A person's move: (state, message, seat, params). Invalid for a message that can never
    work here, Refused for one the game's state or the sender's seat refuses."""
    may_restart: Callable[[State, Params, Restart], str | None] | None = None
    """(state, params, who asks): why that player may not start the next game now (a race or a
    two-sided game under way: only the host may call it off), or None; None here: anyone may,
    any time."""
    presence: Callable[[State, Params, int, bool], Applied | None] | None = None
    """(state, params, seat, online): a seat's last socket closed (False) or its first opened
    (True); what that changes (a racer's or a side's grace period), logged as a move, or None."""
    leave: Callable[[State, Params, int], tuple[str, Applied] | None] | None = None
    """(state, params, seat): the seat's player left the room (`games.rooms.leaving`); what that
    does to the game under way (a racer gives up, a side's seat is free at once) as (the move
    log's action, what changed), or None; None here: leaving changes nothing in the game."""
    carry_over: Callable[[State, Params, State, Params, Collection[int]], State] | None = None
    """(previous state, its params, new state, new params, the seats online now) -> the new
    game's state with what outlives a game (a side's player still away: no socket of theirs
    will close to say so again); None: nothing does."""
    playing_seats: Callable[[State, Params], Collection[int] | None] | None = None
    """(state, params) -> the seats that play this game, or None when every seat does (a race's
    lobby); None here: every seat always plays. The others seated only watch, and the pages
    count them with the spectators (a third visitor to a tic-tac-toe room, a late racer)."""
    standings: Callable[[State, Params], Mapping[int, int] | None] | None = None
    """(state, params) -> each person's seat with its rank once the game is over (1 first; a
    tie shares a rank), None while it is on: what a rated game's end rates
    (`games.rooms.ratings`); None here: the kind is never rated."""


@dataclass(frozen=True, slots=True)
class StateField:
    """One field a kind adds to the API's room state (`RoomState`) beside the shell's own: the
    API's schema is assembled from every kind's, so no kind's field is silently dropped."""

    name: str
    annotation: Any
    """Its type, as pydantic reads it (`int | None`, a model of the kind's own)."""
    description: str
    """What the OpenAPI schema says of it."""


@dataclass(frozen=True, slots=True)
class ApiView:
    """What programs read of a game: the JSON API and bots on the websocket."""

    text_rows: Callable[[State, Params, int | None], tuple[list[str], dict[str, Any]]]
    """(state, params, seat) -> the board as text rows (the terminal's form) and the kind's
    size, counters and results (API); `seat` is the reader's, None for a reader without a seat's
    token, for what depends on who asks (tic-tac-toe's `you`)."""
    changed_cells: Callable[[Applied], list[dict[str, Any]]]
    """What one move changed, cell by cell, never more than the players may see (API)."""
    public_summary: tuple[str, ...] = ()
    """Keys of `Applied.summary` that bots on the websocket get in each move's JSON event
    (whose turn it is, the scores): what a page reads off its fragments."""
    state_fields: tuple[StateField, ...] = ()
    """The fields `text_rows` adds beside those every room state has (its size, `mines_left`):
    the API's `RoomState` declares every registered kind's; a field two kinds share, such as a
    two-sided game's `winner`, is declared once, with the first kind's description."""
    events_schema: Mapping[str, Any] = field(default_factory=dict)
    """This kind's part of the bots' events schema, which the API serves assembled from the
    shell's (games/web/events.schema.json) and every kind's (`games.kinds.events_schema`):
    `$defs`, the definitions it adds; `snapshot` and `move`, what its events carry beyond the
    shared fields (a JSON schema applied when the event's `game` is this kind's)."""
    named: Callable[[dict[str, Any], Mapping[int, str]], dict[str, Any]] | None = None
    """(the extras of `text_rows`, each seat's name) -> the extras with each seat's `name`
    beside it (a race's racers and results); None: the extras name no seat."""


@dataclass(frozen=True, slots=True)
class GameKind:
    """One game kind: everything the shell needs, looked up once per room. Its parts group
    what belongs together; what a kind does not use keeps its default (None: the shell asks
    before it offers it)."""

    name: str
    """As stored in `Room.kind` and named by the API's `game` and the home form's `game`."""
    label: str
    tagline: str
    """What the home page's game choice says after the label."""
    setup: Setup
    rules: Rules
    api: ApiView
    rendering: Rendering
    commands: Mapping[str, Callable[[State, Lineup, Params], Applied]] = field(default_factory=dict)
    """Commands of this kind by name (a race's `start` and `give_up`), applied under the game's
    lock with the room's seats and logged as moves; the socket and the API take them as
    `{"action": name}` in rooms of this kind (`message_table.read_payload`)."""
    hints: Hints | None = None
    computer: Computer | None = None
    bot: Bot | None = None
    clock: Clock | None = None
    per_seat_boards: PerSeatBoards | None = None
    """Each seat's own board (a race); None: one board everyone in the room sees."""
    replays: "Replays | None" = None
    """Replays, the room's history and records from the move log (`kinds.replays`)."""
    seeking: Seeking | None = None
    """How quick match offers it to strangers (`kinds.seeking`); None: played with friends."""

    @property
    def api_game(self) -> str:
        """The API's and the home form's `game` for this kind (a race's is `minesweeper`)."""
        return self.setup.options.game_name()

    @property
    def mode(self) -> str | None:
        """The `mode` that, with `api_game`, names this kind (`race`); None for its game's
        default."""
        return self.setup.options.mode_name()


def events_schema_part(folder: Path) -> dict[str, Any]:
    """A kind's part of the bots' events schema, kept as JSON beside its code
    (`<kind>/events.schema.json`, the form the served schema takes; `ApiView.events_schema`)."""
    part: dict[str, Any] = json.loads((folder / "events.schema.json").read_text())
    return part
