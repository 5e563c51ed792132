"""Chat lines typed and sent from the keyboard.

Moved out of tests/e2e/test_chat.py (issue 34): test modules share helpers from here, never from
each other."""

from playwright.sync_api import Page, expect


def say(page: Page, text: str) -> None:
    """Typed and sent with the keyboard alone."""
    page.locator("#chat-text").fill(text)
    page.locator("#chat-text").press("Enter")
    expect(page.locator("#chat-text")).to_have_value("")
