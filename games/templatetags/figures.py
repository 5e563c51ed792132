"""`{{ value|figure }}`: a game's figure (3BV/s, IOE, seconds) as every page shows it.

One filter for the banner, the replay, the room's history, the records and the race results,
with the engine's one rounding rule (`engine.stats.rounded`: 0.01, halves up), so a game shows
the same digits wherever it is read and the API's numbers match them.
"""

from django import template

from games.engine.stats import rounded

register = template.Library()


@register.filter
def figure(value: float | None) -> str:
    """Two decimals, or "–" for a figure that is unknown (no time, no click)."""
    if value is None or value == "":
        return "–"
    return f"{rounded(float(value)):.2f}"
