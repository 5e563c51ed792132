"""Rendering cost per snapshot and per move fragment, in CPU time (so a busy machine barely moves
it), through the kept cells (`games.kinds.minesweeper.render`) and plainly through the templates.

    python -m bench.render            (run by `python -m bench` in a subprocess)

Runs against a throwaway SQLite database; prints JSON.
"""

import json
import sys
import time

from . import procs

REPEATS = 30
KINDS = ("snapshot", "move", "midgame move")
"""`games.kinds.minesweeper.render`'s fast renderings, all switched on, then all off."""


def cpu_ms(render, repeats: int = REPEATS) -> float:
    render()  # warm: templates compiled, cells kept
    started = time.process_time()
    for _ in range(repeats):
        render()
    return round(1e3 * (time.process_time() - started) / repeats, 3)


def measure() -> list[dict[str, object]]:
    from games.engine import minesweeper as engine
    from games.kinds.minesweeper import rules as minesweeper
    from games.protocol.messages import CellMove
    from games.rooms import dispatch, joining  # after django.setup()

    rows = []
    for name, (width, height, mines) in {
        "beginner": (9, 9, 10),
        "expert": (30, 16, 99),
        "custom 50x50": (50, 50, 500),
    }.items():
        room = joining.create_room(
            "minesweeper", minesweeper.validate_settings(width, height, mines)
        )
        player = joining.join_room(room, "Ada")
        dispatch.play(room, player, CellMove("reveal", width // 2, height // 2))
        state = engine.from_dict(room.current_game().state)
        first, hidden = [c for c in range(width * height) if c not in state.revealed][:2]
        # A mid-game move, as most are: the first move of a game also starts its clock.
        dispatch.play(room, player, CellMove("flag", first % width, first // width))
        game = room.current_game()
        applied = minesweeper.apply(
            game.state, CellMove("flag", hidden % width, hidden // width), 0, game.params
        )
        loss = minesweeper.apply(
            game.state,
            CellMove(
                "reveal", *divmod(next(m for m in state.field.mines if m != first), width)[::-1]
            ),
            0,
            game.params,
        )
        rows += board_rows(name, mines, room, game, player, applied, loss)
    return rows


def board_rows(name, mines, room, game, player, applied, loss) -> list[dict[str, object]]:
    from games.kinds.minesweeper import render as rendering
    from games.kinds.table import MoveNews

    flag = MoveNews(room, game, applied, player, rendering.gather(room, game, applied))
    lost = MoveNews(room, game, loss, player, rendering.gather(room, game, loss))
    rows = []
    for label, render in (
        ("snapshot", lambda: rendering.snapshot_html(room, game)),
        ("flag fragment", lambda: rendering.move_html(flag)),
        (f"loss fragment ({mines} mines)", lambda: rendering.move_html(lost)),
    ):
        rendering._verified.update(dict.fromkeys(KINDS, True))
        fast = cpu_ms(render)
        rendering._verified.update(dict.fromkeys(KINDS, False))
        plain = cpu_ms(render, max(3, REPEATS // 5))
        rows.append({"board": name, "what": label, "kept_cells_ms": fast, "plain_ms": plain})
    return rows


def main() -> int:
    procs.setup_django("render")
    from games.broadcast import outbox

    outbox.send = lambda *args, **kwargs: None  # rendering only: nobody listens
    json.dump(measure(), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
