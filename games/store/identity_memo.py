"""What was worked out from an object, kept by the object's identity, for objects never changed
in place (a stored game state and its parts): a bounded, thread-safe memo that needs no hashing
of the object. Each entry holds its object, so an id is never reused for another while its entry
lives, and a lookup compares the object itself as well."""

import threading

from cachetools import FIFOCache


class IdentityMemo[K, V]:
    """At most `limit` entries, the least recently stored dropped first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: FIFOCache[int, tuple[K, V]] = FIFOCache(limit)
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:  # another thread may drop the entry between look-up and read
            found = self._entries.get(id(key))
        return found[1] if found is not None and found[0] is key else None

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[id(key)] = (key, value)
