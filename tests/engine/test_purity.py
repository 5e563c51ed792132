"""The engine stays pure: standard library only, and randomness only from an injected seed."""

import ast
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import games.engine

ENGINE_DIR = Path(games.engine.__file__).parent
ENGINE_MODULES = sorted(
    f"games.engine.{module.name}" for module in pkgutil.iter_modules([str(ENGINE_DIR)])
)
FORBIDDEN = ("django", "channels", "asyncio", "logging")


def test_importing_the_engine_loads_no_framework() -> None:
    script = (
        "import importlib, json, sys\n"
        f"for name in {ENGINE_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ENGINE_DIR.parent.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = json.loads(result.stdout)
    assert "games.engine.minesweeper" in loaded
    offenders = [m for m in loaded if m.split(".")[0] in FORBIDDEN]
    assert offenders == []


def global_random_uses(source: str) -> list[str]:
    """Calls to the `random` module's shared generator (anything but building a `Random`)."""
    tree = ast.parse(source)
    aliases = {"random"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == "random"}
        elif isinstance(node, ast.ImportFrom) and node.module == "random":
            found += [f"from random import {a.name}" for a in node.names if a.name != "Random"]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr != "Random"
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_the_checker_spots_the_shared_generator() -> None:
    source = (
        "import random\nimport random as r\nrandom.shuffle(x)\nr.randint(1, 2)\nrandom.Random(1)\n"
    )
    assert global_random_uses(source) == ["line 3: random.shuffle", "line 4: r.randint"]
    assert global_random_uses("from random import choice, Random") == ["from random import choice"]
    assert global_random_uses("def f(rng: random.Random) -> None:\n    rng.random()\n") == []


def test_engine_modules_never_use_the_shared_random_generator() -> None:
    offenders = {
        path.name: uses
        for path in sorted(ENGINE_DIR.glob("*.py"))
        if (uses := global_random_uses(path.read_text()))
    }
    assert offenders == {}
