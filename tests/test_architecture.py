"""What the import-linter contracts in pyproject.toml cannot say, checked on the same graph (grimp's).

Its `acyclic_siblings` contract finds circles between siblings, not one through a package's own
`__init__` (`games.kinds` importing a kind that imports `games.kinds` back), and a `forbidden`
contract names what the engine may not import, where the rule is what it may: the standard
library and itself.
"""

import sys

import grimp
import pytest


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("games", include_external_packages=True, cache_dir=None)


def find_cycle(graph: grimp.ImportGraph, modules: set[str]) -> list[str] | None:
    """One import circle among `modules`, as the path round it, or None."""
    done: set[str] = set()
    for start in sorted(modules):
        if start in done:
            continue
        path, on_path = [start], {start}
        branches = [iter(sorted(graph.find_modules_directly_imported_by(start) & modules))]
        while branches:
            following = next(branches[-1], None)
            if following is None:
                done.add(path[-1])
                on_path.discard(path.pop())
                branches.pop()
            elif following in on_path:
                return path[path.index(following) :] + [following]
            elif following not in done:
                path.append(following)
                on_path.add(following)
                imported = graph.find_modules_directly_imported_by(following) & modules
                branches.append(iter(sorted(imported)))
    return None


def test_no_module_of_games_imports_itself_back(graph):
    games = {m for m in graph.modules if m == "games" or m.startswith("games.")}
    cycle = find_cycle(graph, games)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_a_circle_is_found_and_shown_as_its_path():
    graph = grimp.ImportGraph()
    for importer, imported in [("a", "b"), ("b", "c"), ("c", "b"), ("c", "d")]:
        graph.add_import(importer=importer, imported=imported)
    assert find_cycle(graph, set(graph.modules)) == ["b", "c", "b"]
    graph.remove_import(importer="c", imported="b")
    assert find_cycle(graph, set(graph.modules)) is None


def test_the_engine_imports_only_the_standard_library_and_itself(graph):
    engine = graph.find_descendants("games.engine") | {"games.engine"}
    outside = {
        f"{module} imports {imported}"
        for module in engine
        for imported in graph.find_modules_directly_imported_by(module)
        if imported not in engine and imported.split(".")[0] not in sys.stdlib_module_names
    }
    assert not outside, sorted(outside)


def imports_of_test_modules(graph: grimp.ImportGraph) -> list[str]:
    """Each import, anywhere under tests/, of a module of tests/ that is not a shared helper
    (`tests.helpers…`): a test module that imports another runs the other's module-level set-up,
    breaks when the other is renamed or split, and hides what it shares. A conftest counts as
    another: pytest loads it by path, and an import makes a second copy of its module."""

    def shared(module: str) -> bool:
        return module == "tests" or module.startswith("tests.helpers")

    return sorted(
        f"{module} imports {imported}"
        for module in graph.modules
        if module.startswith("tests.") or module == "tests"
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.startswith("tests.") and not shared(imported)
    )


def test_no_test_module_imports_another():
    graph = grimp.build_graph("tests", cache_dir=None)
    assert not imports_of_test_modules(graph)


def test_an_import_of_one_test_module_from_another_is_found():
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("tests.web.test_a", "tests.helpers.web"),  # shared: fine
        ("tests.e2e.test_b", "tests.e2e.conftest"),  # a conftest: its fixtures, not imports
        ("tests.web.test_c", "tests.web.test_a"),  # another test module
        ("tests.helpers.race", "tests.web.helpers"),  # a helpers.py left in a test folder
    ]:
        graph.add_import(importer=importer, imported=imported)
    assert imports_of_test_modules(graph) == [
        "tests.e2e.test_b imports tests.e2e.conftest",
        "tests.helpers.race imports tests.web.helpers",
        "tests.web.test_c imports tests.web.test_a",
    ]
