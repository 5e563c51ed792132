"""Large buffers in their own memory maps, so that each goes back to the system when freed.

glibc's malloc serves a block above its mmap threshold (128 KiB at start) from a map of its own,
unmapped when freed. But each time such a block is freed, glibc raises the threshold to that
block's size (up to 32 MiB), so the next ones come from the heap instead, which gives memory
back only from its top: a small block still in use above the freed ones keeps them resident.
Snapshots and the send buffers Twisted joins for a socket that does not read (up to the 2 MiB
output limit) are such blocks: under sixty sockets cut off and reconnecting for two minutes the
heap grew by about 14 MB that stayed once they had gone, 6 MB with this (docs/performance.md,
"The memory attack, round two"). A threshold set with `mallopt` stays where it is set
(mallopt(3)).

Only glibc has `mallopt` with this meaning; elsewhere (musl, macOS) nothing is done.
"""

import ctypes
import platform

M_MMAP_THRESHOLD = -3
"""From glibc's malloc.h."""
THRESHOLD_BYTES = 128 * 1024
"""glibc's own starting value: blocks this large and larger are mapped, and unmapped when freed."""


def keep_large_blocks_mapped() -> bool:
    """Fix glibc's mmap threshold at its starting value; whether it was set."""
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD_BYTES))
