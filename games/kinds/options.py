"""A room's create options: the union of every kind's model that the API takes, and what the
kinds' models share (a preset or a size).

Each kind declares its own model (`GameKind.setup.options`, a subclass of `table.CreateOptions`) with its
fields, their bounds and descriptions; the API and the OpenAPI schema list no kind's fields, so
a kind added to `KINDS` is created over the API, with its options documented, without an edit
there. The models are strict (JSON types as declared) and forbid unknown fields: a misspelt
option (`"nogess"`) is refused by name instead of silently ignored (issue 29).
"""

from collections.abc import Collection, Iterable, Mapping
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, TypeAdapter, ValidationError
from pydantic.config import JsonDict

from .table import CreateOptions, SettingsError, whole

Size = dict[str, int]

PRESET_DESCRIPTION = (
    "A standard board: beginner 9×9 with 10 mines, intermediate 16×16 with 40, expert 30×16 "
    "with 99. Give a preset or width, height and mines; both only when they agree."
)
Preset = Literal["beginner", "intermediate", "expert"]
PRESET_OR_SIZE: JsonDict = {
    "anyOf": [{"required": ["preset"]}, {"required": ["width", "height", "mines"]}]
}
"""The schema's word for "a preset, or a whole size" (a model's `json_schema_extra`)."""


def board_size(
    preset: str | None, given: Mapping[str, int | None], presets: Mapping[str, Size]
) -> dict[str, Any]:
    """Width, height and mines from a preset or the explicit size; SettingsError when both are
    given and disagree (a preset silently overriding an explicit size misleads a bot)."""
    if preset is None:
        missing = [key for key, value in given.items() if value is None]
        if missing:
            *first, last = given
            raise SettingsError(
                f"give a preset, or {', '.join(first)} and {last}: {', '.join(missing)} missing.",
                missing[0],
            )
        return dict(given)
    size = presets[preset]
    wrong = [key for key, value in given.items() if value is not None and value != size[key]]
    if wrong:
        shown = ", ".join(f"{key} {size[key]}" for key in wrong)
        raise SettingsError(f"preset {preset!r} is {shown}: give a preset or a size.", wrong[0])
    return dict(size)


def tag_name(model: type[CreateOptions]) -> str:
    """A kind's tag in the union: its `game`, and `game/mode` for a mode of its own (a race)."""
    mode = model.mode_name()
    return model.game_name() + (f"/{mode}" if mode else "")


def tag_of(kinds: Iterable[type[CreateOptions]]) -> Any:
    """The union's discriminator: `game`, and for a game with modes `game/mode`; a missing
    `game` is the first kind's, a missing `mode` its game's default."""
    first = next(iter(kinds)).game_name()

    def tag(body: Any) -> str | None:
        if not isinstance(body, dict):
            return None
        game, mode = body.get("game", first), body.get("mode")
        if mode in (None, "", "coop") or not isinstance(mode, str):
            return game if isinstance(game, str) else None
        return f"{game}/{mode}"

    return tag


def union_of(kinds: Iterable[type[CreateOptions]]) -> Any:
    """Every kind's model in one discriminated union: the create body's type."""
    models = list(kinds)
    members = tuple(Annotated[m, Tag(tag_name(m))] for m in models)
    return Annotated[Union[members], Discriminator(tag_of(models))]  # noqa: UP007


def adapter(kinds: Iterable[type[CreateOptions]]) -> TypeAdapter[Any]:
    return _adapter(tuple(kinds))


@cache
def _adapter(kinds: tuple[type[CreateOptions], ...]) -> TypeAdapter[Any]:
    """Built once per set of kinds: building one takes milliseconds."""
    return TypeAdapter(union_of(kinds))


def validate(kinds: Iterable[type[CreateOptions]], body: Any) -> CreateOptions:
    """A create body as its kind's options; SettingsError naming the field(s) at fault."""
    models = list(kinds)
    try:
        options = adapter(models).validate_python(body)
    except ValidationError as exc:
        raise SettingsError(*problem(exc, models, body)) from None
    assert isinstance(options, CreateOptions)
    if options.seed is not None and not options.takes_seed:
        raise SettingsError(
            f"seed: not offered in {options.game_name()} {options.mode_name() or ''}".rstrip()
            + ", where players compete: whoever chose it would know the board.",
            "seed",
        )
    return options


def problem(
    exc: ValidationError, models: list[type[CreateOptions]], body: Any
) -> tuple[str, str | None]:
    """One clear sentence for a refused body: every unknown field by name, else the first fault."""
    errors = exc.errors(include_url=False)
    unknown = [str(e["loc"][-1]) for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        names = ", ".join(repr(name[:40]) for name in unknown[:10])
        return f"unknown field{'s' if len(unknown) > 1 else ''} {names}.", unknown[0][:40]
    first = errors[0]
    if not isinstance(body, dict):
        return "Send the options as a JSON object.", None
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        games = ", ".join(dict.fromkeys(m.game_name() for m in models))
        game = str(body.get("game", models[0].game_name()))[:40]
        mode = str(body.get("mode"))[:40]
        if any(m.game_name() == game for m in models):
            return f"mode: {game} has no mode {mode!r}.", "mode"
        return f"game: unknown game {game!r}; choose {games}.", "game"
    where = [str(part) for part in first["loc"][1:]]  # [0] is the union member's tag
    field = ".".join(where) or None
    bounds = _bounds(models, str(first["loc"][0]), field)
    if bounds is not None and first["type"] in BOUND_ERRORS:
        got = str(first["input"])[:40]
        return f"{field} must be a whole number from {bounds[0]} to {bounds[1]}, got {got}.", field
    return f"{field or 'body'}: {first['msg']}", field


BOUND_ERRORS = ("greater_than_equal", "less_than_equal", "int_type", "int_from_float")


def _bounds(
    models: list[type[CreateOptions]], tag: str, field: str | None
) -> tuple[int, int] | None:
    """A whole-number field's (least, most), as its kind declares them, for the message."""
    model = next((m for m in models if tag_name(m) == tag), None)
    info = None if model is None or field is None else model.model_fields.get(field)
    if info is None:
        return None
    least = next((m.ge for m in info.metadata if getattr(m, "ge", None) is not None), None)
    most = next((m.le for m in info.metadata if getattr(m, "le", None) is not None), None)
    return None if least is None or most is None else (least, most)


def size_faults(sides: Iterable[tuple[str, Any, int, int]], mines: Any) -> list[SettingsError]:
    """Each fault of a custom board size that can be told field by field, for `sides` of
    (field, value, smallest, largest): the home form shows them all at once under their fields,
    where a kind's `validate_settings` stops at the first, as the API does. The mines' own range
    depends on the size, so it is told once the size fits."""
    faults = [
        SettingsError(f"{name.capitalize()} must be a whole number from {low} to {high}.", name)
        for name, value, low, high in sides
        if not whole(value) or not low <= value <= high
    ]
    if faults and not (whole(mines) and mines >= 1):
        faults.append(SettingsError("Mines must be a whole number, at least 1.", "mines"))
    return faults


RATED_DESCRIPTION = (
    "A rated room: everyone seated must be signed in (an account's personal token, "
    "`Authorization: Bearer`), no computer plays, and the game's end moves the players' "
    'ratings (docs/contracts.md, "Players and ratings"). A guest gets 403.'
)


def rated_option() -> Any:
    """A kind's `rated` create option (race, Flags, tic-tac-toe)."""
    return Field(False, description=RATED_DESCRIPTION)


def side_option(players: Collection[str], default: str, role: str) -> Any:
    """A two-sided kind's create option for who holds a side: a person (`human`, the first of
    `players`) or one of the kind's computers, listed in the schema."""
    computers = ", ".join(f"`{name}`" for name in players if name != "human")
    return Field(
        default,
        description=f"{role} A person (`human`) or the computer ({computers}).",
        json_schema_extra={"enum": list(players)},
    )
