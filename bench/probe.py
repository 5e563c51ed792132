"""The peer probe (bench/room_probe.js, Node) against our server, the way the issue-17 table is taken.

    python -m bench.probe [--shape embedded|production ...] [--clients 2 20 100] [--processes K]

Player A and N-1 others in one co-op room (32x16, 20 mines), MOVERS=3 and a 30-60 ms pause
between moves so the flood limit stays at its default, 40 seated and the rest watching (`METHOD`,
../shared/peer-bench/README.md); latency is a move's send -> the LAST other socket's frame
holding the changed cell. `--profile --whole-run` samples the joins, sockets and snapshots too.
Our server is started as users start it (DEBUG off, `migrate`, `collectstatic`, Daphne with the
Makefile's websocket limits): `embedded` is `make run`'s shape (SQLite file, in-memory layer),
`production` is PostgreSQL + Redis pub/sub (bench/procs.py; `--processes K` runs K Daphnes on
one room, the probe's clients spread over them). Each run prints one row: flag and reveal p50/p99,
bytes of a one-cell update, and the Daphnes' CPU seconds over the whole run and per measured move.

Node's `ws` is installed by `npm` into bench/node/ (git-ignored) on first use. About 15-25 s a run.
"""

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil

from . import procs
from .profile import WATCHED, summarise

HERE = Path(__file__).resolve().parent
NODE_DIR = HERE / "node"
PROBE = HERE / "room_probe.js"
CLIENTS = (2, 20, 100)
SHAPES = ("embedded", "production")
PROBE_DATABASE = f"minesweeper_probe_{procs.RUN_ID}" if procs.RUN_ID else "minesweeper_probe"
"""One per `CI_RUN_ID`, as the bench's: a probe run by someone else meanwhile drops only its own."""
PROBE_REDIS = "redis://127.0.0.1:6379/10"
RUN_TIMEOUT = 150.0
"""Seconds one probe run may take (setup, 2 x 160 moves, exit); its own deadline is 240 s."""


def ensure_node_module(name: str = "ws", spec: str = "ws@8") -> Path:
    """`npm install` the package into bench/node/ once; returns the module's folder."""
    module = NODE_DIR / "node_modules" / name
    if not (module / "package.json").exists():
        if shutil.which("npm") is None or shutil.which("node") is None:
            raise RuntimeError("the probe needs Node.js and npm on the PATH")
        NODE_DIR.mkdir(exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund", spec],
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=300,
        )
    return module


def load() -> str:
    """The machine's load averages, as `uptime` prints them, for the record beside each run."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class CpuWatch:
    """CPU seconds of some processes, read at the probe's stderr markers; with `profile_to`,
    py-spy samples the first of them between the markers (raw collapsed stacks).

    Only the thread holding the GIL is sampled (`--gil`): without it a thread waiting for the GIL
    counts as busy where it waits, which once made a database thread's `call_soon_threadsafe`
    look like 12 % of a move's work (docs/performance.md, issue 17 round six)."""

    def __init__(
        self, pids: list[int], profile_to: Path | None = None, whole_run: bool = False
    ) -> None:
        self.procs = [psutil.Process(pid) for pid in pids]
        self.marks: dict[str, float] = {}
        self.profile_to = profile_to
        self.profile_from = "start" if whole_run else "measuring"
        """Where py-spy starts: at the run's start (joins, sockets, snapshots too) or at the
        measured moves; it stops at their end or at the run's."""
        self.spy: subprocess.Popen[bytes] | None = None

    def seconds(self) -> float:
        total = 0.0
        for proc in self.procs:
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

    def mark(self, name: str) -> None:
        self.marks[name] = self.seconds()
        if self.profile_to is not None and name == self.profile_from:
            self.spy = subprocess.Popen(
                [str(Path(sys.executable).parent / "py-spy"), "record", "--pid"]
                + [str(self.procs[0].pid), "--rate", "1000", "--format", "raw", "--gil"]
                + ["--nonblocking"]
                + ["--output", str(self.profile_to)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        stop = ("end",) if self.profile_from == "start" else ("measured", "end")
        if self.spy is not None and name in stop:
            self.spy.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.spy.wait(timeout=30)
            self.spy = None


METHOD = {"PAUSE_MS": "30", "SEATS": "40"}
"""../shared/peer-bench/README.md's settings for both probes: a pause of 30-60 ms between moves
keeps two movers under the flood limit (10-20 ms closed one with 1008 at N = 2), and 40 players
seated, the rest of N watching."""


def run_probe(
    bases: list[str],
    clients: int,
    server_pids: list[int],
    extra_env: dict[str, str] | None = None,
    profile_to: Path | None = None,
    whole_run: bool = False,
) -> dict[str, object]:
    """One probe run; its JSON line plus the server's CPU and the load."""
    module = ensure_node_module()
    env = {
        **os.environ,
        "WS_MODULE": str(module),
        "BASE": bases[0],
        "BASES": ",".join(bases),
        "N": str(clients),
        "MOVERS": "3",
        **METHOD,
        **(extra_env or {}),
    }
    watch = CpuWatch(server_pids, profile_to, whole_run)
    before = load()
    watch.mark("start")
    started = time.perf_counter()
    proc = subprocess.Popen(
        ["node", str(PROBE)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=procs._die_with_parent,
    )
    errors: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("probe: "):
                watch.mark(line.split()[1])
            else:
                errors.append(line)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    timer = threading.Timer(RUN_TIMEOUT, proc.kill)  # stdout is read here, stderr by `reader`
    timer.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.wait()
    finally:
        timer.cancel()
    reader.join(timeout=5)
    if proc.returncode == -9:
        raise RuntimeError(f"probe N={clients} took over {RUN_TIMEOUT:g} s")
    watch.mark("end")
    if proc.returncode != 0:
        raise RuntimeError(f"probe N={clients} failed: {''.join(errors)[-2000:]}")
    result = json.loads(out.strip().splitlines()[-1])
    measured = watch.marks.get("measured", watch.marks["end"]) - watch.marks.get(
        "measuring", watch.marks["start"]
    )
    moves = sum(
        result[key].get("n", 0) for key in ("open_last", "flag_last", "first_reveal", "reset")
    ) + 2 * int(os.environ.get("WARM", "10"))
    result.update(
        server_cpu_s=round(watch.marks["end"] - watch.marks["start"], 2),
        server_cpu_s_moves=round(measured, 2),
        server_cpu_ms_per_move=round(1000 * measured / max(1, moves), 3),
        moves_sent=moves,
        load_before=before,
        load_after=load(),
        run_s=round(time.perf_counter() - started, 1),
    )
    return result


def bench_env(shape: procs.Shape) -> procs.Shape:
    """The bench's limits on top of a user's start: many joins and rooms from 127.0.0.1."""
    env = {**shape.env, "ROOMS_PER_MINUTE": "1000000", "JOINS_PER_MINUTE": "1000000"}
    env["ADDRESS_MOVES_BURST"] = "1000000"  # every bench client plays from 127.0.0.1
    return replace(shape, env=env)


def make_shape(name: str, workdir: Path, processes: int = 1) -> procs.Shape:
    if name == "embedded":
        return bench_env(procs.embedded(workdir))
    shape = procs.production(workdir, "pubsub")
    # A database, Redis db and channel prefix of its own: `make bench`, run by someone else at
    # the same time, drops and flushes the bench's.
    shape.env.update(
        DATABASE_URL=f"postgresql://postgres@127.0.0.1:5432/{PROBE_DATABASE}",
        REDIS_URL=PROBE_REDIS,
        CHANNEL_LAYER_PREFIX="minesweeper-probe",
    )
    label = f"{processes} Daphne{'s' if processes > 1 else ''}, PostgreSQL, Redis pub/sub"
    return bench_env(replace(shape, processes=processes, label=label))


def shape_runs(
    name: str,
    workdir: Path,
    logdir: Path,
    counts: tuple[int, ...] = CLIENTS,
    processes: int = 1,
    progress=None,
    profile: bool = False,
    whole_run: bool = False,
) -> list[dict[str, object]]:
    """Start the shape, run the probe at each N, stop it."""
    shape = make_shape(name, workdir, processes)
    procs.prepare(shape)
    server = procs.Server(shape, logdir).start()
    runs = []
    try:
        bases = [f"http://{procs.HOST}:{port}" for port in server.ports]
        for count in counts:
            spy = logdir.parent / f"probe-profile-{name}-{count}.txt" if profile else None
            result = run_probe(bases, count, server.pids, profile_to=spy, whole_run=whole_run)
            result["shape"] = name if processes == 1 else f"{name} x{processes}"
            if spy is not None:
                result["profile"] = summarise([spy], top=40)
            runs.append(result)
            if progress:
                progress(f"  probe {result['shape']} N={count}", summary(result))
        return runs
    except Exception:
        print(server.log_tail(), file=sys.stderr)
        raise
    finally:
        server.stop()


def span(values: list[int]) -> str:
    """The smallest and largest update in bytes. A 0 is not an empty update but one the probe's
    observer had not seen yet when the move was timed (at N=2 the observer is also a mover)."""
    seen = [value for value in values if value > 0]
    return "-" if not seen else f"{min(seen)}-{max(seen)}"


def summary(result: dict[str, object]) -> dict[str, object]:
    """The issue's figures out of one probe run."""
    flag, reveal = result["flag_last"], result["open_last_nonending"]
    return {
        "flag_p50": flag.get("p50"),
        "flag_p99": flag.get("p99"),
        "reveal_p50": reveal.get("p50"),
        "reveal_p99": reveal.get("p99"),
        "bytes_flag": span(result["bytes_flag"]),
        "bytes_reveal": span(result["bytes_single_cell_reveal"]),
        "cpu_s": result.get("server_cpu_s"),
        "cpu_ms_mv": result.get("server_cpu_ms_per_move"),
        "timeouts": len(result.get("timeouts", [])),
        "gaps": result.get("gaps"),
        "load": result.get("load_before"),
    }


def table(runs: list[dict[str, object]]) -> list[str]:
    lines = [
        "Peer probe (bench/room_probe.js): move -> the LAST of N-1 others, 32x16/20, MOVERS=3",
        f"{'shape':<16} {'N':>4} {'flag p50':>8} {'p99':>6} {'reveal p50':>10} {'p99':>6} "
        f"{'B/flag':>9} {'B/reveal':>9} {'cpu s/run':>9} {'ms/move':>7} {'lost':>4}  load (1/5/15)",
    ]
    for run in runs:
        s = summary(run)
        lines.append(
            f"{run['shape']:<16} {run['N']:>4} {s['flag_p50']:>8} {s['flag_p99']:>6} "
            f"{s['reveal_p50']:>10} {s['reveal_p99']:>6} {s['bytes_flag']:>9} "
            f"{s['bytes_reveal']:>9} {s['cpu_s']:>9} {s['cpu_ms_mv']:>7} "
            f"{s['timeouts'] + (s['gaps'] or 0):>4}  {s['load']}"
        )
    lines.append(
        "  ms; B = bytes of a one-cell update; cpu s/run = Daphne CPU over the whole run (joins,"
        " sockets, snapshots, moves); ms/move = Daphne CPU over the measured moves / moves sent;"
        " lost = timeouts + version gaps"
    )
    return lines


SOCKET_PATH = (
    "FileDescriptor.doWrite (twisted/internet/abstract.py)",
    "untilConcludes (twisted/python/util.py)",
    "FileDescriptor.startWriting (twisted/internet/abstract.py)",
    "FileDescriptor.stopWriting (twisted/internet/abstract.py)",
    "send (games/patches/daphne_frames.py)",
    "_write_now (games/patches/daphne_frames.py)",
    "EpollSelector.select (selectors.py)",
)
"""Where a socket's share of a message goes: Twisted's write of it (the `send` system call
inside `untilConcludes`, a writer registered and unregistered around it) and the framed send."""


def profile_lines(profile: dict[str, object]) -> str:
    """The inclusive share of the samples of what a move and a socket cost."""
    found = {**dict(profile.get("inclusive_pct", [])), **profile.get("watched_pct", {})}
    return f"{profile.get('samples', 0)} samples; " + ", ".join(
        f"{name} {found[name]}%"
        for name in dict.fromkeys((*SOCKET_PATH, *WATCHED))
        if name in found
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.probe", description=__doc__)
    parser.add_argument("--shape", action="append", choices=SHAPES, help="default: both")
    parser.add_argument("--clients", type=int, nargs="+", default=list(CLIENTS))
    parser.add_argument("--processes", type=int, default=1, help="Daphnes (production only)")
    parser.add_argument("--json", type=Path, help="write the runs here too")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="py-spy over the measured moves (the GIL's holder; raw stacks in bench/results/)",
    )
    parser.add_argument(
        "--whole-run",
        action="store_true",
        help="with --profile: over the whole run, the joins, sockets and snapshots too",
    )
    args = parser.parse_args(argv)
    from .report import progress

    runs = []
    with tempfile.TemporaryDirectory(prefix="minesweeper-probe-") as tmp:
        logdir = procs.ROOT / "bench" / "results" / "logs"
        logdir.mkdir(parents=True, exist_ok=True)
        try:
            for name in args.shape or SHAPES:
                processes = args.processes if name == "production" else 1
                runs += shape_runs(
                    name,
                    Path(tmp),
                    logdir,
                    tuple(args.clients),
                    processes,
                    progress,
                    args.profile,
                    args.whole_run,
                )
        finally:
            procs.stop_all()
    print("\n".join(table(runs)))
    for run in runs:
        if "profile" in run:
            print(f"\n{run['shape']} N={run['N']}: {profile_lines(run['profile'])}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(runs, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
