"""The link-preview picture (1200×630, the size Open Graph and Twitter cards show): the site's
name, the title, and the public board, drawn with Pillow.

Pure: it draws the characters of a public board (`Timeline.board_at`) by the look the kind's
legend gives each (`data-state`, `data-count`, `data-mark`...), so a hidden cell is drawn the
same whatever lies under it: the picture cannot show a mine the board does not. One dark look,
the site's dark theme, reads on light and dark chat apps alike.
"""

import io
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from ..store.palette import PALETTE

SIZE = (1200, 630)
MARGIN = 48
BOARD_TOP = 196
PARTS_SHOWN = 4
"""Boards side by side at most (a race's first four racers)."""
MAX_CELL = 120
"""A tic-tac-toe square; larger boards get what fits."""

BACKGROUND = "#111821"
PANEL = "#0b0f15"
TEXT = "#e6ebf2"
MUTED = "#a9b3c1"
ACCENT = "#6ea0ff"
HIDDEN = "#3b475a"
HIDDEN_HI = "#5c6c85"
OPEN = "#1a212c"
MINE = "#e6ebf2"
EXPLODED = "#d42a2a"
FLAG = "#ff6b6b"
WIN = "#2c4a2f"
COUNTS = {
    "1": "#6ea0ff",
    "2": "#4cc97a",
    "3": "#ff6b6b",
    "4": "#9aa8ff",
    "5": "#ff9c7a",
    "6": "#4fd6d6",
    "7": "#e6ebf2",
    "8": "#a9b3c1",
}
SIDES = {"X": PALETTE[0], "O": PALETTE[1]}


@dataclass(frozen=True, slots=True)
class Picture:
    """What one preview shows: the board's characters (several boards' one after another, each
    `width`×`height`, when `names` names more than one) and how each character looks."""

    title: str
    width: int
    height: int
    board: str
    legend: Mapping[str, Mapping[str, str]]
    names: Sequence[str] = ()


FONT = "DejaVuSans.ttf"
"""Found by Pillow in the system's font folders (Debian's fonts-dejavu-core: the Dockerfile
installs it): it draws names in most alphabets. Without it, Pillow's own font, ASCII only."""


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The font at `size`, kept per size."""
    try:
        return ImageFont.truetype(FONT, size)
    except OSError:
        return ImageFont.load_default(size=size)


@cache
def has_font() -> bool:
    found = font(12)
    return isinstance(found, ImageFont.FreeTypeFont) and "DejaVu" in str(found.getname())


def drawable(text: str) -> str:
    """`text` as the font can draw it: itself, or, in Pillow's ASCII-only font, accents dropped
    ("José" → "Jose"), dashes and × as ASCII and anything else as "?"."""
    if has_font():
        return text
    text = text.translate({0x2013: "-", 0x2014: "-", 0xD7: "x", 0x2026: "..."})
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return plain if len(plain) >= len(text) / 2 else text.encode("ascii", "replace").decode()


def png(picture: Picture) -> bytes:
    image = Image.new("RGB", SIZE, BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 34), "Minesweeper Live", font=font(30), fill=ACCENT)
    y = 84
    for line in wrap(draw, drawable(picture.title), font(46), SIZE[0] - 2 * MARGIN)[:2]:
        draw.text((MARGIN, y), line, font=font(46), fill=TEXT)
        y += 54
    boards(draw, picture)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()


def wrap(draw: ImageDraw.ImageDraw, text: str, face: object, width: int) -> list[str]:
    """Words into lines no wider than `width`; the second line ends in "…" if more is left."""
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=face) <= width:  # type: ignore[arg-type]
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    if len(lines) > 2:
        lines[1] = lines[1].rstrip(",") + " …"
    return lines


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the boards go: `count` boards of `cell`-pixel squares, the first at (left, top)."""

    count: int
    cell: int
    left: int
    top: int
    stride: int
    """From one board's left edge to the next one's."""
    label: int

    def cell_box(self, part: int, index: int, width: int) -> tuple[int, int, int, int]:
        """The pixels of cell `index` of board `part` (left, top, right, bottom), exclusive."""
        x = self.left + part * self.stride + (index % width) * self.cell
        y = self.top + (index // width) * self.cell
        return (x, y, x + self.cell, y + self.cell)


def layout(picture: Picture) -> Layout:
    """Boards centred in the lower part, as large as fit (at most `MAX_CELL` a square), named
    above when there are several."""
    size = picture.width * picture.height
    count = max(1, min(PARTS_SHOWN, len(picture.board) // size if size else 0))
    label = 30 if len(picture.names) > 1 else 0
    gap = 24
    room_w = (SIZE[0] - 2 * MARGIN - gap * (count - 1)) // count
    room_h = SIZE[1] - MARGIN + 12 - BOARD_TOP - label
    cell = max(1, min(MAX_CELL, room_w // picture.width, room_h // picture.height))
    board_w, board_h = cell * picture.width, cell * picture.height
    left = (SIZE[0] - count * board_w - gap * (count - 1)) // 2
    top = BOARD_TOP + label + (room_h - board_h) // 2
    return Layout(count, cell, left, top, board_w + gap, label)


def boards(draw: ImageDraw.ImageDraw, picture: Picture) -> None:
    at = layout(picture)
    size = picture.width * picture.height
    board_w, board_h = at.cell * picture.width, at.cell * picture.height
    for part in range(at.count):
        x = at.left + part * at.stride
        if at.label:
            name = picture.names[part] if part < len(picture.names) else ""
            draw.text((x, at.top - at.label), drawable(name[:24]), font=font(22), fill=MUTED)
        draw.rectangle((x - 6, at.top - 6, x + board_w + 5, at.top + board_h + 5), fill=PANEL)
        chars = picture.board[part * size : (part + 1) * size]
        for index, char in enumerate(chars):
            box = at.cell_box(part, index, picture.width)
            square(draw, (box[0], box[1], at.cell), picture.legend.get(char, {}))


def square(draw: ImageDraw.ImageDraw, at: tuple[int, int, int], look: Mapping[str, str]) -> None:
    """One cell by its look, never by what the game knows of it."""
    x, y, cell = at
    inset = 1 if cell >= 6 else 0
    box = (x + inset, y + inset, x + cell - 1 - inset, y + cell - 1 - inset)
    state = look.get("data-state")
    if state in ("hidden", "flagged"):
        draw.rectangle(box, fill=HIDDEN)
        if cell >= 10:
            draw.line((box[0], box[1], box[2], box[1]), fill=HIDDEN_HI, width=max(1, cell // 14))
            draw.line((box[0], box[1], box[0], box[3]), fill=HIDDEN_HI, width=max(1, cell // 14))
        if state == "flagged":
            flag(draw, box)
        return
    win = look.get("data-win") == "true"
    fill = {"exploded": EXPLODED, "claimed": SIDES.get(look.get("data-seat", ""), OPEN)}.get(
        state or "", WIN if win else OPEN
    )
    draw.rectangle(box, fill=fill)
    if state in ("mine", "exploded", "claimed", "wrong-flag"):
        mine(draw, box)
    if state == "wrong-flag":
        draw.line(box, fill=FLAG, width=max(1, cell // 10))
        draw.line((box[0], box[3], box[2], box[1]), fill=FLAG, width=max(1, cell // 10))
    text = look.get("text", "")
    if text and cell >= 10:
        colour = COUNTS.get(text) or SIDES.get(look.get("data-mark", ""), TEXT)
        size = int(cell * (0.62 if "data-count" in look else 0.78))
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        draw.text(centre, text, font=font(size), fill=colour, anchor="mm")


def mine(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    pad = max(1, (box[2] - box[0]) // 4)
    draw.ellipse((box[0] + pad, box[1] + pad, box[2] - pad, box[3] - pad), fill=MINE)


def flag(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    w = box[2] - box[0]
    pole = box[0] + w * 0.35
    top, bottom = box[1] + w * 0.2, box[3] - w * 0.2
    draw.polygon([(pole, top), (box[2] - w * 0.2, top + w * 0.18), (pole, top + w * 0.36)], FLAG)
    draw.line((pole, top, pole, bottom), fill=TEXT, width=max(1, w // 16))
