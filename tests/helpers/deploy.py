"""What the Dockerfile tells Daphne.

Moved out of tests/integration/test_container.py (issue 34): test modules share helpers from here,
never from each other."""

import json

from tests.helpers import servers


def dockerfile_daphne_options() -> list[str]:
    """The CMD's options, without the address, port and application (the test picks those)."""
    line = next(
        line
        for line in (servers.ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("CMD ")
    )
    command = json.loads(line.removeprefix("CMD "))
    assert command[0] == "daphne" and command[-1] == "config.asgi:application", command
    options, rest = [], command[1:-1]
    while rest:
        option = rest.pop(0)
        if option in ("-b", "--bind", "-p", "--port"):
            rest.pop(0)
        else:
            options.append(option)
    return options
