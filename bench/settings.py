"""The app's own settings, plus opt-in what-ifs the bench uses to measure recommendations for code
it does not own. A plain `make bench` sets none of them and measures the app as it is.

- `BENCH_SQLITE_CONN_MAX_AGE=N`: keep SQLite connections open between database calls (the app
  closes and reopens them around every `database_sync_to_async` call).
- `BENCH_INMEMORY_CLEAN_EVERY=S`: the in-memory layer walks every channel and group for expired
  messages at most every S seconds instead of on every receive (see `bench.layers`).
"""

import os

from config.settings import *  # noqa: F403
from config.settings import CHANNEL_LAYERS, DATABASES

if os.environ.get("BENCH_SQLITE_CONN_MAX_AGE") and "sqlite" in DATABASES["default"]["ENGINE"]:
    DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ["BENCH_SQLITE_CONN_MAX_AGE"])

if (
    os.environ.get("BENCH_INMEMORY_CLEAN_EVERY")
    and "InMemory" in CHANNEL_LAYERS["default"]["BACKEND"]
):
    CHANNEL_LAYERS["default"]["BACKEND"] = "bench.layers.ThrottledInMemoryChannelLayer"
