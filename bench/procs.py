"""Start and stop the app for the bench: migrations, Daphne processes, and their CPU and memory.

Every child is started with a parent-death signal, and `stop_all` runs on normal exit, errors,
Ctrl-C and SIGTERM, so no Daphne outlives the bench.
"""

import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
RUN_ID = os.environ.get("CI_RUN_ID", "")
"""Set (as .ci/run sets it): the bench's database and Redis keys carry it, so benches run at
once on one machine keep apart, and Redis is cleared of this run's keys only."""
BENCH_DATABASE = f"minesweeper_bench_{RUN_ID}" if RUN_ID else "minesweeper_bench"
PREFIX = f"minesweeper-bench-{RUN_ID}" if RUN_ID else "minesweeper-bench"
REDIS_URL = "redis://127.0.0.1:6379/9"
"""A database number of its own, so FLUSHDB at the start touches nothing but the bench's keys."""
WEBSOCKET_LIMITS = [
    "--websocket-max-message-size",
    "1048576",
    "--websocket-max-frame-size",
    "1048576",
]
"""As `make run` and the container set them (games/patches/daphne_frames.py, MESSAGE_LIMIT_BYTES)."""

_children: list[subprocess.Popen[bytes]] = []


def _die_with_parent() -> None:
    """Linux: the child gets SIGTERM when the bench dies, even by SIGKILL."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def stop_all() -> None:
    for child in _children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + 5
    for child in _children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        if child.poll() is None:
            child.kill()
            child.wait()
    _children.clear()


PORTS = os.environ.get("BENCH_PORTS", "")
"""`first-last` (e.g. `9050-9059`): the Daphnes listen on ports from this range, on a machine
where others keep to theirs; unset, any free port."""


_given: set[int] = set()


def free_port() -> int:
    first, _, last = PORTS.partition("-")
    for port in range(int(first), int(last) + 1) if PORTS else [0]:
        if port in _given:  # handed out, its Daphne perhaps not listening yet
            continue
        with socket.socket() as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
            port = s.getsockname()[1]
            _given.add(port)
            return port
    raise RuntimeError(f"no free port in BENCH_PORTS={PORTS}")


@dataclass
class Shape:
    """One way of running the app: the environment every process of it gets."""

    name: str
    processes: int
    env: dict[str, str]
    label: str = ""
    pin: list[str] = field(default_factory=list)
    """A command the servers start under (`taskset`), as `make run` starts its server."""


def base_env(workdir: Path, layer: str = "pubsub") -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "SQLITE_PATH")
        and not key.startswith(("BENCH_", "REDIS_CHANNEL", "CHANNEL_LAYER"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        SECRET_KEY="bench-only-" + "x" * 50,
        BEHIND_TLS="false",
        ALLOWED_HOSTS=HOST,
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(ROOT),
        REDIS_CHANNEL_LAYER=layer,
        # Pub/sub channels ignore the database number: a prefix keeps bench and tests apart.
        CHANNEL_LAYER_PREFIX=PREFIX,
        CACHE_KEY_PREFIX=PREFIX,
        # Every simulated browser joins from 127.0.0.1: the per-address join limit would stop them.
        JOINS_PER_MINUTE="1000000",
        REPLAY_BUILDS_PER_MINUTE="1000000",
        # and so moves from there: the per-address move budget (the per-seat one holds).
        ADDRESS_MOVES_BURST="1000000",
        # The latency scenarios' player moves 20 times a second, the per-seat default; across
        # processes that budget is a moving window, which refuses a steady stream at its exact
        # pace now and then (docs/operations.md, "Limits"), and a refused move shifts every later
        # move's version: the per-seat budget is checked at twice the pace instead.
        MOVES_BURST="80",
        MOVES_PER_SECOND="40",
    )
    return env


def embedded(workdir: Path) -> Shape:
    env = base_env(workdir)
    env["SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    return Shape("embedded", 1, env, "1 Daphne, SQLite file, in-memory layer", one_cpu())


def one_cpu() -> list[str]:
    """As `make run` starts a lone server (SERVER_CPU=auto): under taskset, on the lowest CPU
    this process may use, when it may use more than one."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if len(cpus) < 2 or shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", str(min(cpus))]


def production(workdir: Path, layer: str = "pubsub") -> Shape:
    env = base_env(workdir, layer)
    env["DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{BENCH_DATABASE}"
    env["REDIS_URL"] = REDIS_URL
    kind = "RedisPubSubChannelLayer" if layer == "pubsub" else "RedisChannelLayer"
    return Shape(f"production-{layer}", 2, env, f"2 Daphnes, PostgreSQL, {kind}")


def run_manage(shape: Shape, *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=shape.env,
        check=True,
        stdout=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )


def fresh_postgres(name: str = BENCH_DATABASE) -> None:
    import psycopg

    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def fresh_redis(url: str = REDIS_URL) -> None:
    import redis

    client = redis.Redis.from_url(url)
    if RUN_ID:
        for key in client.scan_iter(match=f"*{PREFIX}*"):
            client.delete(key)
    else:
        client.flushdb()
    client.close()


def prepare(shape: Shape) -> None:
    """An empty database with the app's tables (and static files, which pages need with
    DEBUG off)."""
    if "DATABASE_URL" in shape.env:
        fresh_postgres(shape.env["DATABASE_URL"].rsplit("/", 1)[1])
        fresh_redis(shape.env["REDIS_URL"])
    run_manage(shape, "migrate", "--noinput")
    if not (ROOT / "staticfiles" / "staticfiles.json").exists():
        run_manage(shape, "collectstatic", "--noinput", "-v", "0")


def django_side(shape: Shape, command: str, data: object) -> object:
    """Run `bench.djangoside` with the server's environment and return its JSON answer."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.djangoside", command],
        cwd=ROOT,
        env=shape.env,
        input=json.dumps(data).encode(),
        capture_output=True,
        check=True,
        timeout=120,
        preexec_fn=_die_with_parent,
    )
    return json.loads(done.stdout)


@dataclass
class Server:
    """The Daphne processes of one shape, each on its own port."""

    shape: Shape
    logdir: Path
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self) -> "Server":
        daphne = BIN / "daphne"
        command = [str(daphne)] if daphne.exists() else [sys.executable, "-m", "daphne"]
        command = [*self.shape.pin, *command]
        for index in range(self.shape.processes):
            port = free_port()
            log = open(self.logdir / f"{self.shape.name}-{index}.log", "wb")  # noqa: SIM115
            proc = subprocess.Popen(
                [
                    *command,
                    "-b",
                    HOST,
                    "-p",
                    str(port),
                    "--proxy-headers",
                    *WEBSOCKET_LIMITS,
                    "config.asgi:application",
                ],
                cwd=ROOT,
                env=self.shape.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
            log.close()
            _children.append(proc)
            self.ports.append(port)
            self.procs.append(proc)
        for port in self.ports:
            wait_ready(port)
        return self

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            with contextlib.suppress(ValueError):
                _children.remove(proc)

    @property
    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs]

    def rss(self) -> list[int]:
        return [psutil.Process(pid).memory_info().rss for pid in self.pids]

    def rss_parts(self) -> dict[str, float]:
        """Resident MB of all the processes by kind of mapping: glibc's main heap (`[heap]`),
        other anonymous memory (Python's object arenas, other threads' heaps, large blocks),
        and files (code)."""
        parts = {"heap": 0, "anonymous": 0, "files": 0}
        for pid in self.pids:
            for region in psutil.Process(pid).memory_maps(grouped=False):
                kind = {"[heap]": "heap", "": "anonymous", "[anon]": "anonymous"}.get(
                    region.path, "files" if region.path.startswith("/") else "anonymous"
                )
                parts[kind] += region.rss
        return {kind: round(size / 2**20, 1) for kind, size in parts.items()}

    def log_tail(self, lines: int = 20) -> str:
        text = []
        for index in range(self.shape.processes):
            path = self.logdir / f"{self.shape.name}-{index}.log"
            if path.exists():
                text.extend(path.read_text(errors="replace").splitlines()[-lines:])
        return "\n".join(text)


def wait_ready(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"Daphne on port {port} did not answer /healthz in {timeout:g} s")
        time.sleep(0.2)


class CpuMeter:
    """CPU time used between start and stop by the Daphnes, by this process (the clients), by
    PostgreSQL and Redis, and by the whole machine (which shows anything else running)."""

    SERVICES = ("postgres", "redis-server")

    def __init__(self, pids: list[int]) -> None:
        self.procs = [psutil.Process(pid) for pid in pids]

    @staticmethod
    def _seconds(procs: list[psutil.Process]) -> float:
        total = 0.0
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

    def _services(self) -> dict[int, float]:
        found = {}
        for proc in psutil.process_iter(["name"]):
            if proc.info["name"] in self.SERVICES:
                found[proc.pid] = self._seconds([proc])
        return found

    @staticmethod
    def _busy() -> float:
        times = psutil.cpu_times()
        return sum(times) - times.idle - getattr(times, "iowait", 0.0)

    def start(self) -> "CpuMeter":
        self.wall = time.perf_counter()
        self.own = time.process_time()
        self.server = self._seconds(self.procs)
        self.services = self._services()
        self.busy = self._busy()
        return self

    def stop(self) -> dict[str, float]:
        """Percent of one core (so up to 100 x cores), and the Daphnes' CPU seconds."""
        wall = time.perf_counter() - self.wall
        server = self._seconds(self.procs) - self.server
        client = time.process_time() - self.own
        services = sum(v - self.services.get(pid, 0.0) for pid, v in self._services().items())
        busy = self._busy() - self.busy
        return {
            "server_cpu_s": round(server, 3),
            "server_cpu_pct": round(100 * server / wall, 1),
            "client_cpu_pct": round(100 * client / wall, 1),
            "db_cpu_pct": round(100 * services / wall, 1),
            "other_cpu_pct": round(100 * max(0.0, busy - server - client - services) / wall, 1),
            "machine_cpu_pct": round(100 * busy / wall, 1),
        }


async def wait_quiet(max_wait: float = 3.0, threshold: float = 40.0) -> float:
    """Wait (at most `max_wait` s) until the machine is nearly idle before a measurement, since
    other work on a shared machine shows up as latency. Returns the busy % last seen (of one
    core), which goes into the results."""
    import asyncio

    deadline = time.monotonic() + max_wait
    while True:
        busy = await asyncio.to_thread(psutil.cpu_percent, 0.5)
        busy *= psutil.cpu_count() or 1
        if busy < threshold or time.monotonic() > deadline:
            return round(busy, 1)


def setup_django(name: str, database_url: str = "", **env: str) -> str:
    """Django set up in this process for a bench that calls views and services directly:
    the server's settings with DEBUG off, migrated on a throwaway SQLite file (or
    `database_url`), no Redis. `env` adds settings. Returns which database it is."""
    import tempfile

    workdir = tempfile.mkdtemp(prefix=f"minesweeper-{name}-")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SQLITE_PATH=os.path.join(workdir, f"{name}.sqlite3"),
        DEBUG="false",
        SECRET_KEY="bench-only-" + "x" * 50,
        BEHIND_TLS="false",
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="testserver,localhost",
        **env,
    )
    os.environ.pop("REDIS_URL", None)
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return "postgresql" if database_url else "sqlite"


@contextlib.contextmanager
def django_here(name: str, database_url: str = "", **env: str) -> Iterator[str]:
    """`setup_django`, with nothing broadcast and plain static files (pages name them, and the
    plain storage needs no collectstatic manifest). Yields which database it is."""
    from django.test.utils import override_settings

    database = setup_django(name, database_url, **env)
    from games.broadcast import outbox

    outbox.send = lambda *args, **kwargs: None  # nobody listens
    plain = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(STORAGES=plain):
        yield database
