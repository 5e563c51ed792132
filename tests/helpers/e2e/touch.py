"""Touches on a phone's screen.

Moved out of tests/e2e/test_board_script.py (issue 34): test modules share helpers from here, never
from each other."""


def touch(cdp, locator, kind: str) -> None:
    """A finger on the middle of `locator` (touchStart) or lifted (touchEnd), through CDP."""
    box = locator.bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    points = [point] if kind == "touchStart" else []
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
