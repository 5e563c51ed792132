"""Player colours: a fixed palette picked for contrast on light and dark boards.

Seats take colours in order; the CSS defines `--player-N` for each index, so markup carries only
the index (no inline styles, which the Content-Security-Policy forbids).
"""

PALETTE = ("#e4572e", "#2e86de", "#17a589", "#a55eea", "#f39c12", "#e84393", "#16a3b8", "#6d8a2b")
PALETTE_SIZE = len(PALETTE)


def colour_for_seat(number: int) -> int:
    return number % PALETTE_SIZE
