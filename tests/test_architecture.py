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
