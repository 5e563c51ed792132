"""`make run`'s lone server keeps its threads on one CPU (SERVER_CPU=auto, taskset in the
Makefile): a real Daphne started with the Makefile's own command line, after a move has gone
through its database thread."""

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import servers
from tests.helpers.clients import HttpSession, LiveClient, running
from tests.helpers.servers import Daphne

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
        reason="needs Linux and at least two CPUs to choose from",
    ),
    pytest.mark.skipif(
        shutil.which("make") is None or shutil.which("taskset") is None,
        reason="needs make and taskset (util-linux)",
    ),
]


class MadeRun(Daphne):
    """Daphne as `make run` starts it: the last line of `make -n run` (the Makefile's command,
    taskset and all), run here without `make run`'s migrate and collectstatic."""

    def __init__(self, env: dict[str, str], log: Path, server_cpu: str) -> None:
        super().__init__(env, log)
        self.server_cpu = server_cpu

    def command(self) -> list[str]:
        made = subprocess.run(
            ["make", "-s", "-n", "run", f"PORT={self.port}", f"SERVER_CPU={self.server_cpu}"],
            cwd=servers.ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return shlex.split(made.stdout.splitlines()[-1])


def cpus_of_threads(pid: int) -> dict[str, str]:
    """Each thread's name and the CPUs it may run on, as the kernel says."""
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        status = dict(line.split(":\t", 1) for line in (task / "status").read_text().splitlines())
        threads[f"{status['Name']} ({task.name})"] = status["Cpus_allowed_list"]
    return threads


async def threads_after_a_move(tmp_path: Path, name: str, server_cpu: str) -> dict[str, str]:
    environment = servers.migrated_database_env(
        tmp_path, name, REDIS_URL=""
    )  # in-memory layer: the server is alone
    server = MadeRun(environment, tmp_path / f"{name}.log", server_cpu)
    try:
        server.start()
        session = HttpSession(server.url)
        code = await asyncio.to_thread(session.create_room, "Ana")
        player = LiveClient("Ana", server.ws_url, code, session.cookie_header)
        async with running(player):
            await player.wait_connected()
            await player.send(action="flag", x=0, y=0)
            await player.wait_for_version(1)
            return cpus_of_threads(server.process.pid)
    finally:
        server.stop()
        servers.drop_database(environment)


async def test_auto_keeps_every_thread_of_the_lone_server_on_one_cpu(tmp_path) -> None:
    threads = await threads_after_a_move(tmp_path, "cpu_auto", "auto")
    lowest = str(min(os.sched_getaffinity(0)))
    assert len(threads) > 1, threads  # the event loop and at least the database thread
    assert set(threads.values()) == {lowest}, threads


async def test_off_leaves_the_threads_every_cpu(tmp_path) -> None:
    threads = await threads_after_a_move(tmp_path, "cpu_off", "off")
    assert len(threads) > 1, threads
    assert all(cpus != str(min(os.sched_getaffinity(0))) for cpus in threads.values()), threads
