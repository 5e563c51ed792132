# Two commands matter: `make run` serves the app, `make test` runs the whole suite.
# Both build .venv first from the newest Python >= 3.12 they can find (pyenv's .python-version wins).

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
HOST ?= 127.0.0.1
PORT ?= 8000
# The websocket message and frame limits, both ways (games/patches/daphne_frames.py, MESSAGE_LIMIT_BYTES).
WEBSOCKET_LIMITS := --websocket-max-message-size 1048576 --websocket-max-frame-size 1048576
# The lone server keeps its threads on one CPU, with taskset (docs/operations.md, SERVER_CPU):
# a move crosses between the event loop and the database thread twice, and on one core each
# crossing is a context switch, not the wake-up of another, perhaps halted, core. `auto` takes
# the lowest CPU `make` may use when the server is alone (no REDIS_URL: the in-memory channel
# layer) and may use more than one; a number takes that CPU; `make run SERVER_CPU=off` leaves the
# threads to the scheduler, as does a system without taskset.
SERVER_CPU ?= auto
LOWEST_CPU = $(shell command -v taskset >/dev/null && [ "$$(nproc)" -gt 1 ] && \
	taskset -cp $$$$ | sed 's/.*: //; s/[-,].*//')
AUTO_PIN = $(if $(REDIS_URL),,$(addprefix taskset -c ,$(LOWEST_CPU)))
SERVER_PIN = $(if $(filter off,$(SERVER_CPU)),,$(if $(filter auto,$(SERVER_CPU)),$(AUTO_PIN),\
	taskset -c $(SERVER_CPU)))

.PHONY: run test test-fast lint format bench bench-peer browser clean

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v 0
	$(if $(SERVER_PIN),@echo "make run: the server keeps to one CPU ($(strip $(SERVER_PIN))); \
	make run SERVER_CPU=off leaves it to the scheduler")
	$(strip $(SERVER_PIN) $(VENV)/bin/daphne) -b $(HOST) -p $(PORT) $(WEBSOCKET_LIMITS) config.asgi:application

# Two passes: everything but the `serial` tests on three workers (pytest-xdist's `load`, which hands
# tests out in collection order, so a worker's browser tests come after its async ones, the long
# ones first: tests/conftest.py), then the `serial` ones (load and memory measurements) alone.
# Two tests at a time (--maxschedchunk): xdist's default hands a worker up to a quarter of what
# is left at once, and one worker could be left with a dozen browser tests when the other ends.
# Three workers on two cores: browser and cluster tests mostly wait (on Chromium, their Daphnes,
# a heartbeat), so two workers left the cores about 40 % busy; three took a quiet machine's first
# pass from 7 min 05 s to 6 min 15 s and still pass beside a busy core (docs/operations.md).
# Exit status 5 is "no tests collected", e.g. PYTEST_ARGS naming one file.
TEST_WORKERS ?= 3
FAST_WORKERS ?= 2
test: $(TEST_STAMP) browser
	$(PY) manage.py collectstatic --noinput -v 0
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --maxschedchunk 2 -m "not serial" $(PYTEST_ARGS) || [ $$? = 5 ]
	$(VENV)/bin/pytest -m serial $(PYTEST_ARGS) || [ $$? = 5 ]

# The inner loop: the engine and web folders (no browser, no servers of their own), on two
# workers; under 2 minutes on an idle two-core machine (docs/operations.md, Testing this).
test-fast: $(TEST_STAMP)
	$(PY) manage.py collectstatic --noinput -v 0
	$(VENV)/bin/pytest -n $(FAST_WORKERS) -q -m "not serial" tests/engine tests/web $(PYTEST_ARGS) || [ $$? = 5 ]

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-logo --no-cache

format: $(TEST_STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(BENCH_STAMP)
	$(PY) -m bench

# Ours beside the fastest open peer, the issue-17 table with ratios (two interleaved rounds, about
# 5 minutes); the peer must be cloned first: see `$(PY) -m bench.peer -h`.
bench-peer: $(BENCH_STAMP)
	$(PY) -m bench.peer

$(VENV)/bin/python:
	@py=$$(for c in python3 python3.14 python3.13 python3.12 python; do \
		command -v $$c >/dev/null 2>&1 && $$c -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null \
		&& { echo $$c; break; }; done); \
	test -n "$$py" || { echo "Python >= 3.12 is needed (python3.13 recommended)" >&2; exit 1; }; \
	echo "Using $$($$py --version)"; $$py -m venv $(VENV)

# Installs come from the lock files (every package, transitive ones too, pinned with its hashes);
# `make lock` writes them again from pyproject.toml. The project itself goes in without its
# dependencies, so nothing outside the lock is installed.
LOCK_OPTIONS := --universal --python-version 3.12 --generate-hashes --quiet

$(STAMP): $(VENV)/bin/python pyproject.toml requirements/app.lock
	@echo "Installing dependencies into .venv (first run takes a minute or two)…"
	$(PY) -m pip install -q --require-hashes -r requirements/app.lock
	$(PY) -m pip install -q --no-deps -e .
	touch $@

$(TEST_STAMP): $(STAMP) requirements/test.lock
	$(PY) -m pip install -q --require-hashes -r requirements/test.lock
	touch $@

BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): $(TEST_STAMP) requirements/bench.lock
	$(PY) -m pip install -q --require-hashes -r requirements/bench.lock
	touch $@

# Write the lock files again after a change to pyproject.toml's dependencies (needs the test extra's uv).
.PHONY: lock
lock: $(TEST_STAMP)
	$(VENV)/bin/uv pip compile pyproject.toml $(LOCK_OPTIONS) -o requirements/app.lock
	$(VENV)/bin/uv pip compile pyproject.toml --extra test $(LOCK_OPTIONS) -o requirements/test.lock
	$(VENV)/bin/uv pip compile pyproject.toml --extra test --extra bench $(LOCK_OPTIONS) -o requirements/bench.lock

# Browser tests drive Debian's chromium; install it when we may (root with apt-get), never download one;
# the colour-emoji font lets screenshots show the reactions as people see them.
browser:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; fi
	@[ -x /usr/bin/chromium ] || echo "note: /usr/bin/chromium missing; browser tests will skip (install Debian's chromium)"

clean:
	rm -rf $(VENV) staticfiles db.sqlite3*

# Browser tests take their screenshots (under artifacts/screenshots/) only here, never in
# `make test`: they assert nothing. This also refreshes the README's docs/screenshot.png.
screenshot: $(TEST_STAMP) browser
	$(PY) manage.py collectstatic --noinput -v 0
	SCREENSHOTS=1 PUBLISH_SCREENSHOTS=1 $(VENV)/bin/pytest -q $(PYTEST_ARGS) tests/e2e

# Terminal Minesweeper through the venv: make play ARGS="16 16 40" (also --seed N, --no-guess, --plain).
ARGS ?= 9 9 10
.PHONY: play
play: $(STAMP)
	@$(PY) manage.py minesweeper $(ARGS)
