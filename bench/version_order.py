"""Version order across two processes (issue 26, item 4): players and spectators spread over two
Daphnes sharing one database and Redis, moves from both at once, and what every socket heard.

    python -m bench.version_order [--moves 5000]

The scenario of tests/integration/test_cluster.py (16 players, 4 spectators, bursts of 20 moves
per player, each committed before the next), run for about `moves` moves. Prints the final
version, the seconds taken, and over all sockets the versions heard out of order (inversions),
missed (gaps, each then a snapshot asked for) and heard twice (duplicates): all three are 0 when
every socket hears every version once and in order. PostgreSQL when DATABASE_URL is set (as
.ci/run sets it), else a SQLite file; Redis at REDIS_URL (else 127.0.0.1:6379/0). 127.0.0.1
only; the Daphnes die with the bench.
"""

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path


def figures(heard: list[int], final: int) -> dict[str, int]:
    """Inversions (a version after a later one), gaps (versions never heard, from the first one
    heard to `final`) and duplicates in what one socket heard, in the order it heard them."""
    inversions = sum(1 for before, after in zip(heard, heard[1:], strict=False) if after < before)
    seen = set(heard)
    first = heard[0] if heard else final + 1
    return {
        "inversions": inversions,
        "gaps": sum(1 for v in range(first, final + 1) if v not in seen),
        "duplicates": len(heard) - len(seen),
    }


async def run(moves: int) -> dict[str, object]:
    from tests.helpers import servers
    from tests.helpers.servers import Daphne, GameDatabase
    from tests.integration import test_cluster as cluster_test

    rounds = max(1, round(moves / (cluster_test.ORDER_PLAYERS * cluster_test.ORDER_BURST)))
    folder = Path(tempfile.mkdtemp(prefix="version-order-"))
    env = servers.database_env(folder, "order", REDIS_URL=cluster_test.REDIS_URL)
    a, b = Daphne(env, folder / "a.log"), Daphne(env, folder / "b.log")
    try:
        servers.migrate(env)
        a.start()
        b.start()
        cluster = cluster_test.Cluster(env, a, b, GameDatabase(env), folder)
        load = os.getloadavg()[0]
        everyone, final, took = await cluster_test.order_run(cluster, rounds)
    finally:
        a.stop()
        b.stop()
        servers.drop_database(env)
    totals = {"inversions": 0, "gaps": 0, "duplicates": 0}
    for client in everyone:
        for name, count in figures([v for _, v in client.heard], final).items():
            totals[name] += count
    return {
        "database": "PostgreSQL" if env.get("DATABASE_URL") else "SQLite",
        "final_version": final,
        "sockets": len(everyone),
        "seconds": round(took, 1),
        "load_1min_before": load,
        "snapshots_asked": sum(client.syncs for client in everyone),
        **totals,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=5000)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(asyncio.wait_for(run(args.moves), 900)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
