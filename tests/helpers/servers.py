"""Real server processes for tests: Daphne, a private redis-server, and fresh databases.

Browser tests and the cluster tests run the app the way production does, as separate processes
that share a database and (optionally) Redis. This module is the one copy of that plumbing:

    env = migrated_database_env(tmp_path, "cluster")   # a fresh PostgreSQL database or SQLite
                                                       # file, copied from one migrated once
    with Daphne(env, tmp_path / "a.log") as server:
        server.url, server.ws_url               # http://127.0.0.1:<port>, ws://...
        server.stop(signal.SIGTERM)             # returns the exit status
        server.start()                          # again, on the same port

Every process started here is also stopped when the test process exits (and, on Linux, gets
SIGTERM if the test process dies first), so none outlives a run. Nothing here touches the shared
PostgreSQL or Redis beyond databases it created itself: tests that need Redis to fail start a
`RedisServer` of their own and stop that one.
"""

import atexit
import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
START_SECONDS = 30
WEBSOCKET_LIMITS = [
    "--websocket-max-message-size",
    "1048576",
    "--websocket-max-frame-size",
    "1048576",
]
"""As `make run` and the container set them (games/patches/daphne_frames.py, MESSAGE_LIMIT_BYTES)."""
STOP_SECONDS = 10


class ServiceUnavailable(RuntimeError):
    """A service a test needs is missing (PostgreSQL down, no redis-server binary)."""


class ServerFailed(RuntimeError):
    """A process did not start, or did not stop; the message carries the end of its log."""


_children: list[subprocess.Popen[bytes]] = []


def _die_with_parent() -> None:
    """Linux: the child gets SIGTERM when the test process dies, even by SIGKILL. (Strictly, when
    the thread that started it ends: start servers from the main thread, not a worker's.)"""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@atexit.register
def _stop_children() -> None:
    for child in _children:
        if child.poll() is None:
            child.kill()
            child.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        socket.create_connection((HOST, port), timeout=0.5).close()
        return True
    except OSError:
        return False


def unique_name(prefix: str) -> str:
    """Names of databases and key prefixes that no concurrent test run shares."""
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:6]}"


class Process:
    """One child process listening on a fixed 127.0.0.1 port, restartable on that port."""

    name = "process"

    def __init__(self, log: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str] | None:
        return None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = START_SECONDS) -> Self:
        if self.running:
            raise ServerFailed(f"{self.name} on {self.port} is already running")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=self.environment(),
                stdout=output,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        _children.append(self.process)
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = START_SECONDS) -> None:
        """Until the port accepts connections; fails at once if the process exits."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running:
                code = self.process.returncode if self.process else None
                raise ServerFailed(f"{self.name} exited with {code}:\n{self.log_tail()}")
            if port_open(self.port):
                return
            time.sleep(0.05)  # polling a port that is not open yet, bounded by the deadline
        self.stop(signal.SIGKILL)
        raise ServerFailed(
            f"{self.name} did not listen on {self.port} within {timeout}s:\n{self.log_tail()}"
        )

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_SECONDS) -> int | None:
        """Send `sig` and wait for the exit; SIGKILL after `timeout`. Returns the exit status
        (negative for a signal, as with Popen), None if it was not running."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.dump_stacks()
                self.process.kill()
                self.process.wait()
        if self.process in _children:
            _children.remove(self.process)
        return self.process.returncode

    def dump_stacks(self) -> None:
        """A process that would not stop: for a Python one (`Daphne`), what each of its threads
        was doing, appended to its log, so the failure says where it hung."""

    def restart(self, sig: int = signal.SIGTERM) -> Self:
        self.stop(sig)
        return self.start()

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except FileNotFoundError:
            return "(no log)"

    def __enter__(self) -> Self:
        if not self.running:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class Daphne(Process):
    """The app under Daphne, as `make run` and the container serve it."""

    name = "daphne"

    def __init__(
        self, env: dict[str, str], log: Path, port: int | None = None, options: list[str] = ()
    ) -> None:
        super().__init__(log, port)
        self.env = env
        self.options = list(options)
        """More command-line options, e.g. the Dockerfile's."""

    def command(self) -> list[str]:
        return [sys.executable, "-m", "daphne", "-b", HOST, "-p", str(self.port)] + [
            *WEBSOCKET_LIMITS,
            *self.options,
            "config.asgi:application",
        ]

    def environment(self) -> dict[str, str]:
        return self.env

    def dump_stacks(self) -> None:
        """With py-spy, a test dependency."""
        py_spy = Path(sys.executable).parent / "py-spy"
        if self.process is None or not py_spy.exists():
            return
        with self.log.open("ab") as output, contextlib.suppress(subprocess.TimeoutExpired):
            output.write(b"\n--- did not stop; py-spy dump ---\n")
            output.flush()
            subprocess.run(
                [str(py_spy), "dump", "--pid", str(self.process.pid)],
                stdout=output,
                stderr=subprocess.STDOUT,
                timeout=20,
            )

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}"


NGINX_SITE = ROOT / "deploy" / "nginx.conf"
SITE_ACCESS_LOG = "/var/log/nginx/access.log"


def nginx_binary() -> str:
    """Debian's nginx (apt-get install nginx; .ci/run installs it), from PATH or /usr/sbin."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise ServiceUnavailable("nginx is not installed (apt-get install nginx)")
    return found


def nginx_site(upstreams: list[int], port: int, behind_tls: bool) -> str:
    """deploy/nginx.conf as the compose proxy runs it, moved onto 127.0.0.1: the upstream's
    servers are the given Daphne ports, `listen 80` is `port`, and `${BEHIND_TLS}` is filled in
    as the nginx image's entrypoint does (in both upstreams: pages and room sockets). Fails when
    the file no longer has those lines."""
    site = NGINX_SITE.read_text()
    servers_line = re.compile(r"^\s*server web\d+:8000[^;]*;\n", re.M)
    assert len(servers_line.findall(site)) >= 1 and "listen 80;" in site and "${BEHIND_TLS}" in site
    upstream = "".join(f"    server {HOST}:{upstream};\n" for upstream in upstreams)
    site = servers_line.sub("", site)
    for balancing in ("least_conn;\n", "hash $uri consistent;\n"):  # pages; room sockets
        assert balancing in site
        site = site.replace(balancing, balancing + upstream, 1)
    site = site.replace("listen 80;", f"listen {HOST}:{port};")
    return site.replace("${BEHIND_TLS}", "true" if behind_tls else "false")


class Nginx(Process):
    """nginx with deploy/nginx.conf in front of Daphne processes, in a folder of its own."""

    name = "nginx"

    def __init__(
        self, upstreams: list[int], log: Path, *, behind_tls: bool = False, port: int | None = None
    ) -> None:
        self.binary = nginx_binary()
        super().__init__(log, port)
        self.upstreams = upstreams
        self.behind_tls = behind_tls
        self.folder = log.parent / f"nginx-{self.port}"

    def command(self) -> list[str]:
        self.folder.mkdir(parents=True, exist_ok=True)
        site = nginx_site(self.upstreams, self.port, self.behind_tls)
        assert SITE_ACCESS_LOG in site
        (self.folder / "site.conf").write_text(site.replace(SITE_ACCESS_LOG, str(self.access_log)))
        temp_paths = "".join(
            f"    {kind}_temp_path {self.folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        # Workers of a root master would run as nobody, who cannot enter pytest's folders.
        user = "user root root;\n" if os.geteuid() == 0 else ""
        (self.folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {self.folder / 'nginx.pid'};\nerror_log stderr;\n"
            f"events {{ worker_connections 512; }}\n"
            f"http {{\n    access_log off;\n{temp_paths}"
            f"    include {self.folder / 'site.conf'};\n}}\n"
        )
        return [self.binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")] + [
            "-e",
            "stderr",
            "-g",
            "daemon off;",
        ]

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def access_log(self) -> Path:
        """Where the site's access log goes (deploy/nginx.conf writes /var/log/nginx's)."""
        return self.folder / "access.log"


class RedisServer(Process):
    """A private, throwaway redis-server: the one a test may stop (never the shared one)."""

    name = "redis-server"

    def __init__(self, log: Path, port: int | None = None) -> None:
        if shutil.which("redis-server") is None:
            raise ServiceUnavailable("redis-server is not installed")
        super().__init__(log, port)

    def command(self) -> list[str]:
        return ["redis-server", "--port", str(self.port), "--bind", HOST] + [
            "--save",
            "",
            "--appendonly",
            "no",
        ]

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"


# --- databases --------------------------------------------------------------------------------


def server_env(**overrides: str) -> dict[str, str]:
    """This process's environment for a server, with test-friendly limits."""
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    env["ROOMS_PER_MINUTE"] = "100000"  # every test creates rooms from 127.0.0.1
    env["JOINS_PER_MINUTE"] = "100000"  # and joins them from there
    env["REPLAY_BUILDS_PER_MINUTE"] = "100000"  # and opens replays from there
    env["MOVES_BURST"] = env["ADDRESS_MOVES_BURST"] = "100000"  # and plays as fast as it can
    # Concurrent test runs may share one Redis; their room ids and client addresses (the rate
    # limit's keys) collide, their prefixes do not.
    env["CHANNEL_LAYER_PREFIX"] = unique_name("test")
    env["CACHE_KEY_PREFIX"] = unique_name("test")
    env.update(overrides)
    return env


def database_env(folder: Path, suffix: str, **overrides: str) -> dict[str, str]:
    """Environment for servers sharing a fresh database: `<name>_<suffix>_<pid>_<random>` on
    the PostgreSQL of DATABASE_URL when it is set (as in CI), else a SQLite file (WAL) in
    `folder`. Drop the PostgreSQL one with `drop_database(env)` when done."""
    return _fresh_database(server_env(**overrides), folder, suffix, template=None)


def migrated_database_env(folder: Path, suffix: str, **overrides: str) -> dict[str, str]:
    """`database_env` with the schema already in: a copy of the database this test process
    migrated once (`_template`), which takes a fraction of a `migrate` of its own."""
    env = server_env(**overrides)
    return _fresh_database(env, folder, suffix, template=_template(env.get("DATABASE_URL", "")))


def _fresh_database(
    env: dict[str, str], folder: Path, suffix: str, template: str | None
) -> dict[str, str]:
    url = env.get("DATABASE_URL")
    if not url:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{suffix}.sqlite3"
        if template is not None:
            _copy_sqlite(Path(template), path)
        env["SQLITE_PATH"] = str(path)
        return env
    parts = urlsplit(url)
    name = unique_name(f"{parts.path.lstrip('/')}_{suffix}")
    recreate_postgres_database(_admin_url(url), name, template)
    env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + name))
    return env


_templates: dict[str, str] = {}
"""DATABASE_URL ("" for SQLite) -> the migrated database fresh ones are copied from: one per
test process (each xdist worker has its own), dropped when its session ends (`drop_templates`)."""
_template_databases: list[tuple[dict[str, str], Path]] = []


def drop_templates() -> None:
    """Drop this process's template databases: tests/conftest.py calls it when the session ends
    (an xdist worker may leave without running atexit handlers); atexit calls it too."""
    while _template_databases:
        env, folder = _template_databases.pop()
        drop_database(env)
        shutil.rmtree(folder, ignore_errors=True)
    _templates.clear()


atexit.register(drop_templates)


def _template(url: str) -> str:
    """A database migrated once for this process: a SQLite file, or a PostgreSQL database's name
    (used as CREATE DATABASE's TEMPLATE, which needs nobody connected to it: only `migrate` is,
    and only while it runs)."""
    if url not in _templates:
        folder = Path(tempfile.mkdtemp(prefix="migrated-"))
        env = _fresh_database(server_env(DATABASE_URL=url), folder, "template", template=None)
        _template_databases.append((env, folder))
        migrate(env)
        _templates[url] = env["SQLITE_PATH"] if not url else urlsplit(env["DATABASE_URL"]).path[1:]
    return _templates[url]


def _copy_sqlite(template: Path, path: Path) -> None:
    """SQLite's online backup: the whole database, whatever its WAL holds."""
    with (
        contextlib.closing(sqlite3.connect(template)) as source,
        contextlib.closing(sqlite3.connect(path)) as copy,
    ):
        source.backup(copy)


def _admin_url(url: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/postgres"))


def recreate_postgres_database(admin_url: str, name: str, template: str | None = None) -> None:
    import psycopg
    from psycopg import sql

    try:
        connection = psycopg.connect(admin_url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        raise ServiceUnavailable(f"PostgreSQL is not reachable: {error}") from None
    with connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            create += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        connection.execute(create)


def drop_database(env: dict[str, str]) -> None:
    """Drop a PostgreSQL database made by `database_env` (SQLite files go with their folder)."""
    url = env.get("DATABASE_URL")
    if not url:
        return
    import psycopg
    from psycopg import sql

    name = urlsplit(url).path.lstrip("/")
    with (
        contextlib.suppress(psycopg.OperationalError),
        psycopg.connect(_admin_url(url), autocommit=True, connect_timeout=5) as connection,
    ):
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def migrate(env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise ServerFailed(f"migrate failed:\n{done.stdout}\n{done.stderr}")


class GameDatabase:
    """The servers' database from outside (the test process never uses their ORM): reads, and
    the few writes a test makes behind the servers' backs."""

    def __init__(self, env: dict[str, str]) -> None:
        self.url = env.get("DATABASE_URL", "")
        self.sqlite_path = env.get("SQLITE_PATH", "")

    GAME = (
        "SELECT g.id, g.state, g.version, g.seed, g.status FROM games_game g "
        "JOIN games_room r ON r.id = g.room_id WHERE r.code = {p} ORDER BY g.number DESC LIMIT 1"
    )
    MOVES = "SELECT seq, seat, action, x, y FROM games_move WHERE game_id = {p} ORDER BY seq"

    def query(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        if self.url:
            import psycopg

            with psycopg.connect(self.url) as connection:
                return connection.execute(sql.format(p="%s"), params).fetchall()
        with contextlib.closing(sqlite3.connect(self.sqlite_path, timeout=10)) as connection:
            return connection.execute(sql.format(p="?"), params).fetchall()

    def execute(self, sql: str, *params: object) -> None:
        """One statement, committed."""
        if self.url:
            import psycopg

            with psycopg.connect(self.url) as connection:
                connection.execute(sql.format(p="%s"), params)
            return
        with contextlib.closing(sqlite3.connect(self.sqlite_path, timeout=10)) as connection:
            connection.execute(sql.format(p="?"), params)
            connection.commit()

    def game(self, code: str) -> dict[str, Any]:
        """The room's current game: id, state (decoded), version, seed and status."""
        rows = self.query(self.GAME, code)
        assert rows, f"no game for room {code!r}"
        game_id, state, version, seed, status = rows[0]
        state = state if isinstance(state, dict) else json.loads(state)
        return {"id": game_id, "state": state, "version": version, "seed": seed, "status": status}

    def game_id(self, code: str, number: int) -> int:
        """The id of the room's game `number` (a records row's `data-game`)."""
        rows = self.query(
            "SELECT g.id FROM games_game g JOIN games_room r ON r.id = g.room_id "
            "WHERE r.code = {p} AND g.number = {p}",
            code,
            number,
        )
        assert rows, f"no game {number} in room {code!r}"
        return rows[0][0]

    def moves(self, game_id: int) -> list[tuple[int, int, str, int, int]]:
        """The move log: (seq, seat, action, x, y) in order."""
        return [tuple(row) for row in self.query(self.MOVES, game_id)]

    def state(self, code: str) -> dict[str, Any]:
        return self.game(code)["state"]

    def mines(self, code: str) -> list[tuple[int, int]]:
        """The (x, y) of every mine; mines exist only once the first reveal happened."""
        state = self.state(code)
        assert state["field"] is not None, "no mines yet: reveal a cell first"
        width = state["width"]
        return [(cell % width, cell // width) for cell in state["field"]]

    def safe_cells(self, code: str) -> list[tuple[int, int]]:
        state = self.state(code)
        mines = set(self.mines(code))
        cells = ((x, y) for y in range(state["height"]) for x in range(state["width"]))
        return [cell for cell in cells if cell not in mines]

    def hidden_safe_cells(self, code: str) -> list[tuple[int, int]]:
        """The safe cells nobody has revealed yet (what a player can still win with)."""
        state = self.state(code)
        width = state["width"]
        revealed = {cell for cells in state["revealed"].values() for cell in cells}
        return [(x, y) for x, y in self.safe_cells(code) if x + y * width not in revealed]


def redis_reachable(url: str) -> bool:
    """Whether something answers on the Redis URL's port (the cluster tests skip without it,
    and fail under CI)."""
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port or 6379), timeout=1):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def two_daphnes(folder: Path, env: dict[str, str], failed: Any, tail: int = 4000) -> Any:
    """Two Daphnes on one database and channel layer (`env`), started; stopped and their
    database dropped afterwards, their logs printed when the session has failures
    (`failed()`, e.g. `lambda: request.session.testsfailed`)."""
    a, b = Daphne(env, folder / "a.log"), Daphne(env, folder / "b.log")
    try:
        a.start()
        b.start()
        yield a, b
    finally:
        a.stop()
        b.stop()
        drop_database(env)
        if failed():
            for server in (a, b):
                print(f"\n--- {server.log} ---\n{server.log_tail(tail)}")
