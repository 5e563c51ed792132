"""A lone server process keeps its threads on one CPU (`SERVER_CPU`; `make run` sets `auto`).

Every move crosses between two threads of the process twice: the event loop hands it to the
database thread (Channels' `database_sync_to_async`) and takes the result back. Each hand-over
wakes the other thread. When that thread sleeps on another core, the core may be halted
(virtual machines halt an idle vCPU at once), and waking it costs more than the move's own work.
On one core a hand-over is a context switch on a core that is awake. A lone process (the
in-memory channel layer, `make run`'s shape) runs Python one thread at a time anyway (the GIL),
so one core costs it little: measured, lower latency and more moves a second. Several processes
behind a proxy share the machine with PostgreSQL and Redis, and pinned there they were no faster,
so `auto` leaves them to the scheduler (docs/performance.md, issue 17 round six).
"""

import os
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

OFF = "off"
AUTO = "auto"


def parse(value: str) -> str | int:
    """`SERVER_CPU` as written: `off`, `auto` or a CPU number; anything else stops the start."""
    value = value.strip().lower() or OFF
    if value in (OFF, AUTO):
        return value
    if value.isdigit():
        return int(value)
    raise ImproperlyConfigured(
        f"SERVER_CPU={value!r}: use 'off', 'auto' (one CPU when the process is alone) or a CPU "
        "number."
    )


def choose(setting: str | int, allowed: set[int], alone: bool) -> int | None:
    """The CPU to keep the process on, or None to leave it to the scheduler. `auto` takes the
    lowest CPU the process may use when it is `alone` (the in-memory channel layer) and may use
    more than one; a number must be one of `allowed`."""
    if setting == OFF or (setting == AUTO and (not alone or len(allowed) < 2)):
        return None
    if setting == AUTO:
        return min(allowed)
    assert isinstance(setting, int)
    if setting not in allowed:
        raise ImproperlyConfigured(
            f"SERVER_CPU={setting}, but this process may only run on CPUs {sorted(allowed)}."
        )
    return setting


def is_daphne() -> bool:
    """Whether this process is Daphne (`daphne ...` or `python -m daphne ...`). Not Twisted's
    reactor among the modules: the test suite imports it too, and a pinned test process would
    pin every browser and server it starts."""
    program = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    return program.name == "daphne" or (program.parent.name, program.name) == (
        "daphne",
        "__main__.py",
    )


def keep_in_server(setting: str | int, alone: bool) -> int | None:
    """Keep this process's threads on the CPU `choose` picks, when the process is Daphne on a
    system that can (Linux). Called before the server starts its threads: the threads it starts
    later inherit the main thread's CPUs."""
    if not is_daphne() or not hasattr(os, "sched_setaffinity"):
        return None
    cpu = choose(setting, os.sched_getaffinity(0), alone)
    if cpu is not None:
        for thread in os.listdir("/proc/self/task"):  # the main thread and any already started
            os.sched_setaffinity(int(thread), {cpu})
    return cpu
