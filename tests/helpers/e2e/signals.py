"""Pings: a long press on a cell.

Moved out of tests/e2e/test_signals.py (issue 34): test modules share helpers from here, never from
each other."""

from playwright.sync_api import Page

HOLD_MS = 700


def ping_on(page: Page, x: int, y: int, seat: str):
    return page.locator(f'#signals .ping[data-x="{x}"][data-y="{y}"][data-seat="{seat}"]')
