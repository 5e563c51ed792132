"""Ours side by side with the fastest open peer, the issue-17 table with ratios: one command.

    python -m bench.peer [--rounds 2] [--clients 2 20 100] [--peer /tmp/peer] [--shape embedded]
    make bench-peer

The peer is Michaell14/Minesweeper-Co-op (Next.js + socket.io + Redis, one Node process), cloned
outside the project (`--peer`, its `server/` folder after `npm ci`; never copied in here):

    git clone https://github.com/Michaell14/Minesweeper-Co-op /tmp/peer && (cd /tmp/peer/server && npm ci)

Started here as ../shared/peer-bench/README.md says: a private Redis on 127.0.0.1, the peer
bound to loopback (`node -r loopback.js server.js`; free ports, so a Redis or peer left running
by hand is neither reused nor measured), ours embedded (one Daphne, SQLite,
the in-memory layer: `make run`'s shape) and in production shape (one Daphne, PostgreSQL, Redis
pub/sub), all with DEBUG off. For each round and each N, interleaved: the peer's probe
(../shared/peer-bench/peer_probe.js, socket.io-client@4), then ours embedded, then ours in
production (bench/room_probe.js, MOVERS=3). Each row: flag and reveal p50/p99 (ms), the ratio
ours / peer from the same round, bytes of a one-cell update, the server's CPU seconds over the
whole run, and the load averages when it started (other work on the machine shows as latency:
quote figures from a quiet machine). About 25 s a run, 4-5 minutes for two rounds. The means of
the rounds close the table: the latency ratios' means, and the ratio of the mean CPUs.

The peer's server CPU is its Node process and its Redis together, as ours embedded is the Daphne
with SQLite inside it: the peer keeps every room's state in Redis and reads and writes it there on
each move, so its store's work is part of a move's cost as our SQLite's is of ours (Redis took
0.23-0.24 s of a 1.4-2.0 s run on the development machine, docs/performance.md). Node's alone
is kept beside it (`node_cpu_s`, and the last lines of the table) for the figures quoted before.
"""

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from . import probe, procs
from .report import progress

PEER_BENCH = Path(
    os.environ.get("PEER_BENCH_DIR", str(procs.ROOT.parent / "shared" / "peer-bench"))
)
"""The peer's probe and loopback preload: ../shared/peer-bench beside the project, or
`PEER_BENCH_DIR` for a checkout elsewhere (`--peer-bench` on the command line)."""


def start(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    out = open(log, "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        preexec_fn=procs._die_with_parent,
    )
    out.close()
    procs._children.append(proc)
    return proc


def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer in {timeout:g} s") from None
            time.sleep(0.3)


def wait_redis(port: int, timeout: float = 10.0) -> None:
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1)
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the peer's Redis on {port} did not answer") from None
            time.sleep(0.1)


def run_peer_probe(
    clients: int, port: int, node_pid: int, redis_pid: int, peer_bench: Path
) -> dict[str, object]:
    module = probe.ensure_node_module("socket.io-client", "socket.io-client@4")
    watch, store = probe.CpuWatch([node_pid]), probe.CpuWatch([redis_pid])
    before = probe.load()
    watch.mark("start")
    store.mark("start")
    done = subprocess.run(
        ["node", str(peer_bench / "peer_probe.js")],
        env={
            **os.environ,
            "SIO_MODULE": str(module),
            "URL": f"http://127.0.0.1:{port}",
            "N": str(clients),
            "PAUSE_MS": probe.METHOD["PAUSE_MS"],
        },
        capture_output=True,
        text=True,
        timeout=probe.RUN_TIMEOUT,
    )
    watch.mark("end")
    store.mark("end")
    if done.returncode:
        raise RuntimeError(f"peer probe N={clients} failed: {done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(
        shape="peer",
        N=clients,
        node_cpu_s=round(watch.marks["end"] - watch.marks["start"], 2),
        server_cpu_s=round(
            watch.marks["end"] - watch.marks["start"] + store.marks["end"] - store.marks["start"],
            2,
        ),
        load_before=before,
    )
    return result


def figures(run: dict[str, object]) -> dict[str, float | None]:
    flag, reveal = run["flag_last"], run["open_last_nonending"]
    return {
        "flag p50": flag.get("p50"),
        "flag p99": flag.get("p99"),
        "reveal p50": reveal.get("p50"),
        "reveal p99": reveal.get("p99"),
    }


def table(rounds: list[list[dict[str, object]]]) -> list[str]:
    keys = ("flag p50", "flag p99", "reveal p50", "reveal p99")
    lines = [
        "Side by side: move -> the LAST of N-1 others, 32x16/20, ms; ratio = ours / peer, same round",
        f"{'round':>5} {'N':>4} {'who':<11} "
        + " ".join(f"{k:>10}" for k in keys)
        + f" {'B/flag':>9} {'B/reveal':>9} {'cpu s':>6}  load",
    ]
    for number, runs in enumerate(rounds, 1):
        peers = {run["N"]: figures(run) for run in runs if run["shape"] == "peer"}
        for run in runs:
            mine = figures(run)
            peer = peers.get(run["N"], {})
            cells = []
            for key in keys:
                value = mine[key]
                if run["shape"] != "peer" and peer.get(key) and value is not None:
                    cells.append(f"{value:>5}({value / peer[key]:.2f})")
                else:
                    cells.append(f"{value}")
            lines.append(
                f"{number:>5} {run['N']:>4} {run['shape']:<11} "
                + " ".join(f"{c:>10}" for c in cells)
                + f" {probe.span(run.get('bytes_flag', [])):>9}"
                f" {probe.span(run.get('bytes_single_cell_reveal', [])):>9}"
                f" {run.get('server_cpu_s', ''):>6}  {run.get('load_before', '')}"
            )
    lines.append(
        "  (x.xx) = ours / peer; goal: embedded <= 1.0, production <= 1.2; cpu s = the server's"
        " CPU over the whole run (Node and its Redis for the peer, the Daphne for ours)"
    )
    return lines + means(rounds)


def means(rounds: list[list[dict[str, object]]]) -> list[str]:
    """Per shape and N over the rounds: the mean of each latency ratio (flag p50, reveal p50),
    and the ratio of the mean CPUs, with the peer's Node and Redis and with its Node alone."""
    lines = [f"Means of {len(rounds)} rounds: flag p50, reveal p50 (mean of the ratios); cpu"]
    shapes = dict.fromkeys(
        run["shape"] for runs in rounds for run in runs if run["shape"] != "peer"
    )
    for shape in shapes:
        for clients in dict.fromkeys(run["N"] for runs in rounds for run in runs):
            pairs = [
                (mine, peer)
                for runs in rounds
                for mine in runs
                for peer in runs
                if mine["shape"] == shape
                and peer["shape"] == "peer"
                and mine["N"] == peer["N"]
                and mine["N"] == clients
            ]
            if not pairs:
                continue
            ratio = {
                key: sum(figures(m)[key] / figures(p)[key] for m, p in pairs) / len(pairs)
                for key in ("flag p50", "reveal p50")
            }
            ours = sum(float(m["server_cpu_s"]) for m, _ in pairs)
            theirs = sum(float(p["server_cpu_s"]) for _, p in pairs)
            node = sum(float(p.get("node_cpu_s", p["server_cpu_s"])) for _, p in pairs)
            lines.append(
                f"  {shape:<11} N={clients:<4} flag {ratio['flag p50']:.2f}  reveal"
                f" {ratio['reveal p50']:.2f}  cpu {ours / theirs:.2f} (Node alone {ours / node:.2f});"
                f" ours {ours / len(pairs):.2f} s, the peer's {theirs / len(pairs):.2f} s"
                f" (Node {node / len(pairs):.2f})"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.peer", description=__doc__)
    parser.add_argument("--peer", type=Path, default=Path("/tmp/peer"), help="the peer's clone")
    parser.add_argument("--peer-bench", type=Path, default=PEER_BENCH)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", type=int, nargs="+", default=list(probe.CLIENTS))
    parser.add_argument("--json", type=Path, default=procs.ROOT / "bench/results/peer.json")
    parser.add_argument(
        "--shape",
        action="append",
        choices=probe.SHAPES,
        help="ours in this shape only (repeatable; default: both): embedded alone takes a"
        " third less time, for more rounds in the same minutes",
    )
    args = parser.parse_args(argv)
    server_dir = args.peer / "server"
    if not (server_dir / "node_modules").exists():
        print(__doc__, file=sys.stderr)
        print(f"no {server_dir}/node_modules: clone the peer and run npm ci", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    logdir = procs.ROOT / "bench" / "results" / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    rounds: list[list[dict[str, object]]] = []
    servers: list[procs.Server] = []
    peer_port, redis_port = procs.free_port(), procs.free_port()
    try:
        redis = start(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no"],
            server_dir,
            dict(os.environ),
            logdir / "peer-redis.log",
        )
        node = start(
            ["node", "-r", str(args.peer_bench / "loopback.js"), "server.js"],
            server_dir,
            {
                **os.environ,
                "PORT": str(peer_port),
                "HOST": "127.0.0.1",
                "REDIS_PORT": str(redis_port),
            },
            logdir / "peer.log",
        )
        wait_redis(redis_port)
        wait_http(f"http://127.0.0.1:{peer_port}/socket.io/?EIO=4&transport=polling")
        with tempfile.TemporaryDirectory(prefix="minesweeper-peer-") as tmp:
            ours = {}
            for name in args.shape or probe.SHAPES:
                shape = probe.make_shape(name, Path(tmp) / name)
                (Path(tmp) / name).mkdir()
                procs.prepare(shape)
                server = procs.Server(shape, logdir).start()
                servers.append(server)
                ours[name] = server
            for number in range(1, args.rounds + 1):
                runs = []
                for clients in args.clients:
                    runs.append(
                        run_peer_probe(clients, peer_port, node.pid, redis.pid, args.peer_bench)
                    )
                    progress(f"round {number} peer N={clients}", figures(runs[-1]))
                    for name, server in ours.items():
                        base = f"http://{procs.HOST}:{server.ports[0]}"
                        run = probe.run_probe([base], clients, server.pids)
                        run["shape"] = f"ours {name[:5]}."
                        runs.append(run)
                        progress(f"round {number} {name} N={clients}", figures(run))
                rounds.append(runs)
    finally:
        for server in servers:
            server.stop()
        procs.stop_all()
        with contextlib.suppress(NameError):
            del redis, node
    print("\n".join(table(rounds)))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(rounds, indent=2) + "\n")
    print(f"\nWrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
