"""Board geometry: cells are numbered row by row, `cell = y * width + x`.

Integers keep sets of cells small and fast; this module is the one place that knows the layout.
"""

from dataclasses import dataclass

from .errors import InvalidBoardError, OutOfBoundsError

MAX_SIDE = 1000
"""Largest width or height the engine accepts; rooms allow less (their pages show every cell)."""


@dataclass(frozen=True, slots=True)
class Grid:
    width: int
    height: int

    def __post_init__(self) -> None:
        for name, value in (("width", self.width), ("height", self.height)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidBoardError(f"{name} must be a whole number, got {value!r}")
            if not 1 <= value <= MAX_SIDE:
                raise InvalidBoardError(f"{name} must be between 1 and {MAX_SIDE}, got {value}")

    @property
    def size(self) -> int:
        return self.width * self.height

    def contains(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, x: int, y: int) -> int:
        """The cell at column x, row y; raises OutOfBoundsError off the board."""
        if not self.contains(x, y):
            raise OutOfBoundsError(
                f"cell ({x}, {y}) is off the board: x must be 0..{self.width - 1}, "
                f"y must be 0..{self.height - 1}"
            )
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        y, x = divmod(cell, self.width)
        return x, y

    def neighbours(self, cell: int) -> list[int]:
        """The up to eight cells touching `cell`."""
        width, height = self.width, self.height
        y, x = divmod(cell, width)
        x0, x1 = max(x - 1, 0), min(x + 1, width - 1)
        y0, y1 = max(y - 1, 0), min(y + 1, height - 1)
        return [
            row * width + column
            for row in range(y0, y1 + 1)
            for column in range(x0, x1 + 1)
            if row != y or column != x
        ]

    def opening(self, cell: int) -> frozenset[int]:
        """The cell and its neighbours: where the first reveal guarantees no mine."""
        return frozenset([cell, *self.neighbours(cell)])

    def largest_opening(self) -> int:
        """Cells in the biggest 3x3 block this board has (fewer on boards under 3 wide or high)."""
        return min(self.width, 3) * min(self.height, 3)


def check_mine_count(grid: Grid, mines: object, low: int, high: int) -> None:
    """`mines` is a whole number from `low` to `high` on this grid, or InvalidBoardError saying
    so: each game kind sets its own range (Minesweeper keeps a cell free, Flags may fill it)."""
    if not isinstance(mines, int) or isinstance(mines, bool):
        raise InvalidBoardError(f"mines must be a whole number, got {mines!r}")
    if not low <= mines <= high:
        raise InvalidBoardError(
            f"mines must be between {low} and {high} on a {grid.width}x{grid.height} "
            f"board, got {mines}"
        )


def mine_counts(grid: Grid, mines: frozenset[int]) -> bytes:
    """For every cell, how many of its neighbours are mines (computed once per board)."""
    counts = bytearray(grid.size)
    for mine in mines:
        for neighbour in grid.neighbours(mine):
            counts[neighbour] += 1
    return bytes(counts)
