"""`SERVER_CPU`: which CPU a server process keeps its threads on (games.live.server_cpu)."""

import os
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from games.live import server_cpu


@pytest.mark.parametrize(
    ("written", "read"), [("", "off"), ("off", "off"), (" AUTO ", "auto"), ("3", 3), ("0", 0)]
)
def test_the_setting_reads_off_auto_or_a_cpu_number(written, read) -> None:
    assert server_cpu.parse(written) == read


@pytest.mark.parametrize("written", ["yes", "-1", "1,2", "0-1"])
def test_anything_else_stops_the_start_with_what_to_write(written) -> None:
    with pytest.raises(ImproperlyConfigured, match="use 'off', 'auto'"):
        server_cpu.parse(written)


def test_auto_keeps_a_lone_process_on_its_lowest_cpu() -> None:
    assert server_cpu.choose("auto", {2, 3, 5}, alone=True) == 2


def test_auto_leaves_a_process_that_shares_rooms_with_others_to_the_scheduler() -> None:
    assert server_cpu.choose("auto", {0, 1}, alone=False) is None


def test_auto_has_nothing_to_choose_on_one_cpu() -> None:
    assert server_cpu.choose("auto", {1}, alone=True) is None


def test_off_is_off() -> None:
    assert server_cpu.choose("off", {0, 1}, alone=True) is None


def test_a_cpu_number_is_taken_alone_or_not() -> None:
    assert server_cpu.choose(1, {0, 1}, alone=False) == 1


def test_a_cpu_the_process_may_not_use_stops_the_start() -> None:
    with pytest.raises(ImproperlyConfigured, match=r"SERVER_CPU=7, but .* CPUs \[0, 1\]"):
        server_cpu.choose(7, {0, 1}, alone=True)


def test_outside_daphne_nothing_is_pinned() -> None:
    """pytest is no Daphne: its children (browsers, servers) must keep every CPU."""
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        assert not server_cpu.is_daphne()
        assert server_cpu.keep_in_server("auto", alone=True) is None
        if before is not None:
            assert os.sched_getaffinity(0) == before
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)


@pytest.mark.parametrize(
    ("argv0", "daphne"),
    [
        (".venv/bin/daphne", True),
        ("/srv/lib/python3.13/site-packages/daphne/__main__.py", True),
        (".venv/bin/pytest", False),
        ("manage.py", False),
        ("", False),
    ],
)
def test_daphne_is_known_by_its_program(monkeypatch, argv0, daphne) -> None:
    monkeypatch.setattr(sys, "argv", [argv0, "config.asgi:application"])
    assert server_cpu.is_daphne() is daphne
