"""axe-core audits of a page in both colour schemes, and a page that does not animate.

Moved out of tests/e2e/test_accessibility.py (issue 34): test modules share helpers from here,
never from each other."""

import json

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from tests.helpers.e2e.site import screenshot

BLOCKING = {"critical", "serious"}


SCHEMES = ("light", "dark")


AXE = Axe()


def violations(page: Page) -> list[dict]:
    """axe's violations on the page as it is now (every rule axe runs by default)."""
    return AXE.run(page).response["violations"]


def report(found: list[dict]) -> str:
    lines = []
    for violation in found:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            lines.append(f"    {json.dumps(node['target'])}")
            for check in node["any"] + node["all"] + node["none"]:
                lines.append(f"        {check['message']}")
    return "\n".join(lines)


def audit(page: Page, screenshots, name: str) -> None:
    """No critical or serious violation in light or in dark mode; a screenshot of each."""
    failures = []
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.mouse.move(0, 0)
        found = violations(page)
        suffix = "" if scheme == "light" else "-dark"
        screenshot(page, screenshots / f"a11y-{name}{suffix}.png", animations="disabled")
        if found:
            print(f"\n--- axe, {name}, {scheme} ---\n{report(found)}")
        blocking = [v for v in found if v["impact"] in BLOCKING]
        if blocking:
            failures.append(f"{name}, {scheme} mode:\n{report(blocking)}")
    page.emulate_media(color_scheme="light", reduced_motion="reduce")
    assert not failures, "axe found critical or serious violations:\n" + "\n".join(failures)


def calm_page(new_context) -> Page:
    return new_context(reduced_motion="reduce").new_page()
