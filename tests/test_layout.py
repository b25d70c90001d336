"""The shape the code keeps: a small top level, short modules, no private import across packages, no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.runner import ROOT

PACKAGES = ("harness", "envs")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under `if TYPE_CHECKING:`, which never run."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def imports(path: Path, type_only: bool = False) -> list[str]:
    """Every harness/envs module a file imports at run time (and under `if TYPE_CHECKING:` with `type_only`), as
    `from x import y` may name a module y too."""
    tree = ast.parse(path.read_text())
    names = []
    for node in ast.walk(tree) if type_only else _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return [name for name in names if name.split(".")[0] in PACKAGES]


def test_the_top_level_of_harness_has_at_most_13_entries() -> None:
    # A folder per concept, plus errors.py (the one-sentence errors every layer raises) and extensions.py (the one
    # module a plugin imports).
    entries = [p.name for p in (ROOT / "harness").iterdir() if p.name != "__pycache__"]
    assert len(entries) <= 13, sorted(entries)


def test_no_module_is_over_400_lines() -> None:
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > 400}
    assert long == {}


def test_no_module_imports_a_private_module_of_another_package() -> None:
    known = modules()
    offenders = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for imported in imports(path):
            if imported not in known:
                continue
            parent, _, leaf = imported.rpartition(".")
            if leaf.startswith("_") and not leaf.startswith("__") and parent != package:
                offenders.append(f"{name} -> {imported}")
    assert offenders == []


def test_there_is_no_import_cycle() -> None:
    """Type-only imports count: a cycle that only type checkers follow still ties two modules into one."""
    known = modules()
    graph = {
        name: {i for i in imports(path, type_only=True) if i in known and i != name} for name, path in known.items()
    }
    # A package's own __init__ importing its submodules is how a package shows its face, not a cycle.
    for name, targets in graph.items():
        graph[name] = {t for t in targets if not t.startswith(name + ".")}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == []


# Tests of the project as a whole (its shape and its documents) sit at the top of tests/; every other test under
# tests/harness/ in the folder of the package it tests, and tests/envs/ for envs/.
PROJECT_TESTS = {"test_layers.py", "test_layout.py", "test_code_form.py", "test_docs_commands.py", "test_docs_links.py"}


def test_tests_mirror_the_packages() -> None:
    tests = ROOT / "tests"
    assert {p.name for p in tests.glob("test_*.py")} <= PROJECT_TESTS
    folders = {p.parent.relative_to(tests / "harness") for p in (tests / "harness").rglob("test_*.py")}
    assert sorted(str(f) for f in folders if not (ROOT / "harness" / f).is_dir()) == []
