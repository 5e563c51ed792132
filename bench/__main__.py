"""Load benchmark: starts the app itself, measures it, prints a table, writes JSON.

    python -m bench [--only SECTION ...] [--profile] [--quick] [--json PATH]
    make bench

Sections (all by default, about five minutes on two cores):
  engine      the engine benchmarks (bench.engine_reveal, bench.engine_noguess), fewer repeats,
              and rendering CPU per snapshot and fragment (bench.render); a replay position
              of a 30x16 game of 500 moves through the page and the API (bench.replay_page), and of
              an eight-racer race of 500 moves (bench.race_replay_page)
  embedded    one Daphne, SQLite in a temp dir, in-memory layer: latency with 2/20/100 clients,
              bytes per move and per snapshot, resident memory per idle connection
  production  two Daphnes, PostgreSQL (database minesweeper_bench, made afresh) and Redis with
              the default RedisPubSubChannelLayer: latency with 2/20/100 clients split across
              both, then throughput of 100 rooms x 2 players stepping up the offered load until
              p99 passes 100 ms
  core        the same on RedisChannelLayer (REDIS_CHANNEL_LAYER=core): latency with 100
              clients, and throughput
  probe       the peer probe (bench/room_probe.js, Node; `ws` is installed into bench/node/):
              N = 2, 20, 100 in one co-op room, MOVERS=3, embedded and production (one Daphne),
              the issue-17 table: flag/reveal p50/p99, bytes per one-cell update, Daphne CPU
              (bench.probe; the peer side by side: bench.peer)
  attack      not run by default: sockets that never read, cut off and reconnecting, for
              ATTACK_SECONDS, in the embedded shape and in production's (bench.slow_readers):
              a quiet room's p50/p99 during it, and resident memory before, at its peak and
              10 s after
  chat        not run by default: move → every screen at 20 clients, quiet and with chat at
              its rate limits in turn (bench.chat_load)
  crowd       not run by default: a featured game draws a crowd (issue 28), production shape:
              2,000 spectators over two Daphnes, 4 players at a move a second each; move → the
              last screen, memory per spectator socket, the home page's "On now" cost per view
              with 10 and 2,000 watching (bench.crowd; about two minutes)
`--priority` runs the bench and its Daphnes at nice -10 (root only), for a shared machine where
other work would otherwise show up as latency.
`--profile` attaches py-spy to the Daphnes during one throughput run and writes flame graphs.

Every loop is bounded in count and time; Daphne processes die with the bench, Ctrl-C included.
"""

import argparse
import asyncio
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import psutil

from . import (
    chat_load,
    clients,
    crowd,
    engine_noguess,
    engine_reveal,
    probe,
    procs,
    report,
    scenarios,
    slow_readers,
)
from .profile import summarise

RESULTS = Path(__file__).resolve().parent / "results"
BUDGET_SECONDS = 330
"""For the production and core sections' throughput steps; the probe adds about 75 s."""
SECTIONS = ("engine", "embedded", "production", "core", "probe", "attack", "chat", "crowd")
DEFAULT_SECTIONS = SECTIONS[:-3]
ATTACK_SECONDS = 120.0
"""Issue 26's memory attack: two minutes."""
LATENCY_CLIENTS = (2, 20, 100)
MOVES_PER_SECOND = 20.0


def raise_fd_limit(wanted: int = 8192) -> int:
    """A thousand sockets need a thousand descriptors on each side; Daphne inherits this."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(hard, max(soft, wanted)) if hard != resource.RLIM_INFINITY else max(soft, wanted)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def engine_section(quick: bool) -> dict[str, object]:
    """The engine benchmarks' own `measure`, with smaller budgets than their defaults."""
    budget = 0.3 if quick else 1.0
    reveal = [engine_reveal.measure(side, budget=budget) for side in engine_reveal.SIDES]
    seeds, seconds = (10, 1.0) if quick else (50, 3.0)
    noguess = [engine_noguess.measure(*size, seeds, seconds) for size in engine_noguess.SIZES]
    render = subprocess.run(
        [sys.executable, "-m", "bench.render"],
        cwd=procs.ROOT,
        capture_output=True,
        check=True,
        timeout=180,
    )
    replay = subprocess.run(
        [sys.executable, "-m", "bench.replay_page", "--requests", "20" if quick else "60"],
        cwd=procs.ROOT,
        capture_output=True,
        check=True,
        timeout=180,
    )
    race_replay = subprocess.run(
        [sys.executable, "-m", "bench.race_replay_page", "--requests", "10" if quick else "30"],
        cwd=procs.ROOT,
        capture_output=True,
        check=True,
        timeout=180,
    )
    return {
        "reveal": [asdict(r) for r in reveal],
        "noguess": [asdict(r) for r in noguess],
        "render": json.loads(render.stdout),
        "replay": json.loads(replay.stdout),
        "race_replay": json.loads(race_replay.stdout),
    }


async def latency_runs(
    server: procs.Server, quick: bool, counts: tuple[int, ...] = LATENCY_CLIENTS
) -> list[dict[str, object]]:
    runs = []
    for count in counts:
        runs.append(
            await scenarios.latency(server, count, MOVES_PER_SECOND, seconds=5.0 if quick else 10.0)
        )
        report.progress(f"  latency {count:>3} clients", runs[-1])
    return runs


async def embedded_section(workdir: Path, logdir: Path, quick: bool) -> dict[str, object]:
    shape = procs.embedded(workdir)
    procs.prepare(shape)
    server = procs.Server(shape, logdir).start()
    try:
        out: dict[str, object] = {"shape": shape.label}
        out["latency"] = await latency_runs(server, quick)
        out["race"] = await scenarios.race(server, seconds=5.0 if quick else 10.0)
        report.progress("  race 8 racers + 20 spectators", out["race"]["all"])
        out["payload"] = await scenarios.payload(server)
        report.progress("  payload", {"messages": len(out["payload"]["moves"])})
        out["memory"] = await scenarios.memory(server, (100, 300) if quick else (100, 1000))
        report.progress("  memory", out["memory"]["points"][-1])
        return out
    except Exception:
        print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        server.stop()


async def production_section(
    workdir: Path,
    logdir: Path,
    quick: bool,
    layer: str,
    deadline: float,
    profile: bool = False,
) -> dict[str, object]:
    shape = procs.production(workdir, layer)
    procs.prepare(shape)
    server = procs.Server(shape, logdir).start()
    profilers: list[subprocess.Popen[bytes]] = []
    try:
        out: dict[str, object] = {"shape": shape.label}
        if not profile:
            counts = LATENCY_CLIENTS if layer == "pubsub" else LATENCY_CLIENTS[-1:]
            out["latency"] = await latency_runs(server, quick, counts)
        if not profile and layer == "pubsub":
            out["race"] = await scenarios.race(server, seconds=5.0 if quick else 10.0)
            report.progress("  race 8 racers + 20 spectators", out["race"]["all"])
        steps = (100, 200, 300) if quick else (50, 100, 150, 200, 250, 300, 350, 400, 500)
        during = None
        if profile:  # fixed steps, whatever the latency: the profile is the point
            steps = (100, 150)
            during = start_profilers(server, profilers, layer)
        out["throughput"] = await scenarios.throughput(
            server,
            rooms=40 if quick else 100,
            steps=steps,
            seconds=4.0 if quick else 5.0,
            limit_ms=1e9 if profile else 100.0,
            deadline=deadline,
            during=during,
        )
        report.progress(
            "  throughput", {k: v for k, v in out["throughput"].items() if k != "steps"}
        )
        return out
    except Exception:
        print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        for proc in profilers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in profilers:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        server.stop()
        if profilers:
            raw = [RESULTS / f"profile-{layer}-{i}.txt" for i in range(shape.processes)]
            out["profile"] = summarise(raw)
            report.progress("  profile", out["profile"]["watched_pct"])


async def attack_section(quick: bool) -> list[dict[str, object]]:
    """The slow-reader attack on each shape in turn (60 sockets, as issue 26 measured)."""
    runs = []
    for shape in slow_readers.SHAPES:
        attack_seconds = 20.0 if quick else ATTACK_SECONDS
        runs.append(await slow_readers.run("slow", 60, 10.0, shape, attack_seconds))
        report.progress(f"  {shape}", {"quiet": runs[-1]["attacked"], **runs[-1]["rss_mb"]})
    return runs


def start_profilers(server: procs.Server, profilers: list, layer: str):
    """py-spy on every Daphne from the first load step on, for as long as the run lasts."""
    py_spy = Path(sys.executable).parent / "py-spy"

    def during(phase: int) -> None:
        if phase != 0:
            return
        for index, pid in enumerate(server.pids):
            for fmt, suffix in (("flamegraph", "svg"), ("raw", "txt")):
                out = RESULTS / f"profile-{layer}-{index}.{suffix}"
                out.unlink(missing_ok=True)
                profilers.append(
                    subprocess.Popen(
                        [str(py_spy), "record", "--pid", str(pid), "--rate", "100"]
                        + ["--format", fmt, "--output", str(out), "--nonblocking"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )

    return during


async def run(args: argparse.Namespace) -> dict[str, object]:
    started = time.monotonic()
    deadline_perf = time.perf_counter() + args.budget
    RESULTS.mkdir(parents=True, exist_ok=True)
    logdir = RESULTS / "logs"
    logdir.mkdir(exist_ok=True)
    results: dict[str, object] = {
        "machine": {
            "cpus": psutil.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "fd_limit": raise_fd_limit(),
            "nice": os.nice(0),
        },
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    sections = args.only or list(DEFAULT_SECTIONS)
    with tempfile.TemporaryDirectory(prefix="minesweeper-bench-") as tmp:
        workdir = Path(tmp)
        if "engine" in sections:
            report.progress("engine", {})
            results["engine"] = engine_section(args.quick)
        if "embedded" in sections:
            report.progress("embedded", {})
            results["embedded"] = await embedded_section(workdir, logdir, args.quick)
        if "production" in sections:
            report.progress("production (RedisPubSubChannelLayer, the default)", {})
            results["production"] = await production_section(
                workdir, logdir, args.quick, "pubsub", deadline_perf, args.profile
            )
        if "core" in sections:
            report.progress("production (RedisChannelLayer)", {})
            results["production_core"] = await production_section(
                workdir, logdir, args.quick, "core", deadline_perf, args.profile
            )
        if "probe" in sections:
            report.progress("peer probe (bench.probe)", {})
            results["probe"] = [
                run
                for shape in probe.SHAPES
                for run in probe.shape_runs(shape, workdir, logdir, progress=report.progress)
            ]
    if "attack" in sections:
        report.progress("attack (bench.slow_readers, slow readers)", {})
        results["attack"] = await attack_section(args.quick)
    if "chat" in sections:
        report.progress("chat against moves (bench.chat_load), quiet and chatting in turn", {})
        seconds, rounds = (5.0, 1) if args.quick else (8.0, 3)
        results["chat"] = await chat_load.run(seconds, rounds, port=None)
    if "crowd" in sections:
        report.progress("crowd (bench.crowd): 2,000 spectators on the featured game", {})
        results["crowd"] = await crowd.run(2000, 20.0 if args.quick else 40.0)
    results["join_retries"] = clients.JOIN_RETRIES["count"]
    results["connect_retries"] = clients.CONNECT_RETRIES["count"]
    results["seconds"] = round(time.monotonic() - started, 1)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--only", action="append", choices=SECTIONS, help="run only these")
    parser.add_argument("--priority", action="store_true", help="nice -10 (needs root)")
    parser.add_argument("--profile", action="store_true", help="py-spy during throughput")
    parser.add_argument("--quick", action="store_true", help="shorter runs, for a smoke test")
    parser.add_argument("--budget", type=float, default=BUDGET_SECONDS, help="seconds in all")
    parser.add_argument("--json", type=Path, default=RESULTS / "latest.json", metavar="PATH")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with it ignored
    if args.priority:
        try:
            os.nice(-10)  # the Daphnes inherit it; PostgreSQL and Redis keep theirs
        except PermissionError:
            print("--priority needs root; running at normal priority", file=sys.stderr)
    try:
        results = asyncio.run(run(args))
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the servers", file=sys.stderr)
        return 130
    finally:
        procs.stop_all()
    print()
    print(report.table(results))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nWrote {args.json} ({results['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
