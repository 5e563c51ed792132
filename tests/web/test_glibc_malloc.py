"""Freed large buffers go back to the system (`games.live.glibc_malloc`, issue 26).

Each case runs in a fresh interpreter: glibc's thresholds are per process and move as blocks
are freed, so only a process that has done nothing else shows the default behaviour.
"""

import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")

PROBE = """
import os, sys
from games.live import glibc_malloc

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

if sys.argv[1] == "fixed":
    assert glibc_malloc.keep_large_blocks_mapped()
before = rss()
buffers, kept = [], []
for _ in range(60):
    buffers.append(bytes(600_000) + b"x")  # a snapshot, a socket's joined send buffer
    kept.append(bytes(1_000) + b"y")  # a small block that outlives it (above pymalloc's sizes)
    if len(buffers) > 3:
        buffers.pop(0)  # freed as its socket goes
buffers.clear()
print(rss() - before)
"""


def _kept_after_freeing(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def test_large_buffers_freed_between_small_ones_leave_no_memory_behind():
    assert _kept_after_freeing("fixed") < 1024 * 1024


def test_without_it_glibc_keeps_them_in_the_heap():
    """What the module is for: the default's moving threshold puts later large buffers in the
    heap, where the small blocks between them keep the freed ones resident."""
    assert _kept_after_freeing("default") > 2 * 1024 * 1024
