"""What programs read of a co-op Minesweeper game beyond its rows: its part of the bots' events
schema (events.schema.json beside this module). Its extras (`mines_left`, the Solver bot) are
fields every room state has."""

from pathlib import Path

from ..table import events_schema_part

EVENTS_SCHEMA = events_schema_part(Path(__file__).parent)
