"""What programs read of a tic-tac-toe game beyond its rows: its fields in the API's room state
and its part of the bots' events schema (events.schema.json beside this module)."""

from pathlib import Path

from ..sides import WINNER, YOU
from ..table import events_schema_part

STATE_FIELDS = (WINNER, YOU)

EVENTS_SCHEMA = events_schema_part(Path(__file__).parent)
