"""A summary of py-spy's raw (collapsed-stack) output: where the Daphne processes spent their
samples, by function, inclusive of what each calls. The flame graphs beside it show the rest."""

from collections import Counter
from pathlib import Path

WATCHED = (
    "receive (games/live/receiving.py)",
    "play (games/rooms/dispatch.py)",
    "play_move (games/rooms/playing.py)",
    "lock_current_game (games/rooms/playing.py)",
    "record (games/rooms/playing.py)",
    "move (games/broadcast/announce.py)",
    "move_html (games/kinds/minesweeper/render.py)",
    "roster (games/kinds/minesweeper/render.py)",
    "snapshot_html (games/kinds/minesweeper/render.py)",
    "close_old_connections (django/db/__init__.py)",
    "_deliver (games/broadcast/outbox.py)",
    "group_send (channels_redis/core.py)",
    "group_send (channels_redis/pubsub.py)",
    "RedisChannelLayer.receive (channels_redis/core.py)",
    "RoomConsumer.room_html (games/live/consumer.py)",
    "WebSocketProtocol.sendMessage (autobahn/websocket/protocol.py)",
    "Connection.wait (psycopg/connection.py)",
)


def frame(text: str) -> str:
    """'func (path/file.py:12)' -> 'func (path/file.py)': lines merged."""
    name, _, where = text.partition(" (")
    return f"{name} ({where.split(':')[0].rstrip(')')})" if where else name


def summarise(paths: list[Path], top: int = 25) -> dict[str, object]:
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            samples = int(count)
            total += samples
            frames = [frame(f) for f in stack.split(";")]
            for name in set(frames):
                inclusive[name] += samples
            own[frames[-1]] += samples
    if not total:
        return {"samples": 0}

    def share(counter: Counter[str], n: int) -> list[tuple[str, float]]:
        return [(name, round(100 * count / total, 1)) for name, count in counter.most_common(n)]

    watched = {
        name: round(100 * inclusive[name] / total, 1) for name in WATCHED if name in inclusive
    }
    return {
        "samples": total,
        "watched_pct": watched,
        "inclusive_pct": share(inclusive, top),
        "own_pct": share(own, top),
    }
