"""The lock files (requirements/*.lock, written by `make lock`) agree with pyproject.toml: every
package pyproject names is locked, with its hashes, at a version it allows, so `make`, CI and the
Dockerfile, which install from the locks, get what pyproject says. A dependency changed without
`make lock` fails here. pyproject pins exactly (==) the libraries whose internals games/patches
touches, and only those (`games.patches.PINNED`); the rest allow compatible releases (~=)."""

import re
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from games.patches import PINNED

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCKS = {
    "app.lock": [],
    "test.lock": ["test"],
    "bench.lock": ["test", "bench"],
}


def pins(requirements: list[str]) -> dict[str, str]:
    """`name==version` or `name~=version` specifiers by normalised name (extras and comments
    dropped)."""
    found = {}
    for requirement in requirements:
        match = re.match(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?((?:==|~=)[^\s;]+)", requirement)
        assert match, f"neither pinned (==) nor compatible (~=): {requirement!r}"
        found[normalised(match[1])] = match[3]
    return found


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(lock: str) -> dict[str, str]:
    text = (ROOT / "requirements" / lock).read_text()
    return {
        normalised(name): version for name, version in re.findall(r"^(\S+)==(\S+) \\$", text, re.M)
    }


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pinned_dependency_is_locked_at_its_version(lock: str) -> None:
    wanted = pins(PYPROJECT["project"]["dependencies"])
    for extra in LOCKS[lock]:
        wanted |= pins(PYPROJECT["project"]["optional-dependencies"][extra])
    have = locked(lock)
    outside = {
        name: (spec, have.get(name))
        for name, spec in wanted.items()
        if have.get(name) is None or have[name] not in SpecifierSet(spec)
    }
    assert outside == {}


def test_exactly_the_libraries_whose_internals_are_touched_are_pinned_exactly() -> None:
    exact = {
        name
        for name, spec in pins(PYPROJECT["project"]["dependencies"]).items()
        if spec.startswith("==")
    }
    assert exact == PINNED


@pytest.mark.parametrize("lock", LOCKS)
def test_every_locked_package_carries_a_hash(lock: str) -> None:
    text = (ROOT / "requirements" / lock).read_text()
    entries = re.split(r"\n(?=\S)", text.split("\n", 2)[2])
    packages = [entry for entry in entries if "==" in entry.split("\n")[0]]
    assert packages and all("--hash=sha256:" in entry for entry in packages)
