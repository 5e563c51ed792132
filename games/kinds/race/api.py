"""What programs read of a race beyond its rows: its `race` field in the API's room state (the
phase, every racer's progress, the results), each racer named for them, and its part of the
bots' events schema (events.schema.json beside this module)."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..table import StateField, events_schema_part

Standing = Literal["racing", "finished", "eliminated", "gave-up", "dnf", "timed-out"]


class RacerOut(BaseModel):
    seat: int = Field(description="The racer's seat; 2147483647 for the Solver bot.")
    name: str | None
    standing: Standing
    progress: int = Field(ge=0, le=100)
    mines_hit: int
    frozen_ms: int
    time_ms: int | None
    away: bool
    computer: bool


class ResultOut(BaseModel):
    seat: int
    name: str | None
    place: int
    standing: Standing
    time_ms: int | None
    mines_hit: int
    three_bv: int
    bv_per_s: float | None
    clicks: int = Field(description="The start cell Go opened counts as the first.")
    ioe: float | None
    progress: int


class RaceOut(BaseModel):
    phase: Literal["lobby", "countdown", "racing", "over"]
    go_in_ms: int | None
    you: RacerOut | None = Field(description="Your racer, when the request carries its token.")
    racers: list[RacerOut]
    results: list[ResultOut] | None = Field(description="By place, once the race is over.")


STATE_FIELDS = (
    StateField(
        "race",
        RaceOut | None,
        "A race: its phase, every racer's progress, yours with your token, and the results at "
        "the end. `board` is your own board; without a racer's token it is all hidden.",
    ),
)

EVENTS_SCHEMA = events_schema_part(Path(__file__).parent)


def named(extra: dict[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """The race's facts with each racer's `name` beside its seat (`ApiView.named`)."""
    race = extra.get("race")
    if not isinstance(race, dict):
        return extra

    def name(facts: dict[str, Any]) -> dict[str, Any]:
        return {**facts, "name": names.get(facts["seat"])}

    race = dict(race)
    if race.get("you") is not None:
        race["you"] = name(race["you"])
    for key in ("racers", "results"):
        if race.get(key) is not None:
            race[key] = [name(facts) for facts in race[key]]
    return {**extra, "race": race}
