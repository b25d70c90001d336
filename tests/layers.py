"""The package-level import check: every import of a package's modules, mapped to the layer of its subpackage.

Every import counts, wherever it stands: at the top, inside a function (a lazy import is still an arrow), and under
`if TYPE_CHECKING:` (a type-only import still ties a package to the names of the one it reads; none crosses a
package today, and one that must is better moved than exempted). A string constant that is exactly a module's
dotted name counts too, as `importlib.import_module` tables name modules that way.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

@dataclass(frozen=True)
class Arrow:
    """One import from a module of one unit to a module of another."""

    source: str
    target: str
    line: int
    source_unit: str
    target_unit: str

    def __str__(self) -> str:
        return f"{self.source} (line {self.line}) imports {self.target}"


def module_paths(root: Path, package: str) -> dict[str, Path]:
    """Dotted name -> file, for every module under `root / package`."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def unit_of(module: str) -> str | None:
    """The layer unit a module belongs to: its subpackage (or top-level module); None for the root. A `__main__`
    module is its package's like any other: no module is exempt."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _imported_names(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            here = module.split(".") if is_package else module.split(".")[:-1]
            here = here[: len(here) - node.level + 1]
            base = ".".join(here + ([node.module] if node.module else []))
        return [f"{base}.{alias.name}" for alias in node.names] + [base]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def arrows(root: Path, package: str) -> list[Arrow]:
    """Every import from one unit of `package` to another, with the module-level import that makes it.

    `from a import b` is an import of module `a.b` when that is a module, else of `a`.
    """
    known = module_paths(root, package)
    found = []
    for module, path in known.items():
        source_unit = unit_of(module)
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = _imported_names(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):
                submodules = [name for name in names[:-1] if name in known]
                names = submodules or names[-1:]
            for name in names:
                if name not in known:
                    continue
                target_unit = unit_of(name)
                if source_unit is not None and target_unit is not None and target_unit != source_unit:
                    found.append(Arrow(module, name, getattr(node, "lineno", 0), source_unit, target_unit))
    return found


def layer_violations(found: Sequence[Arrow], layers: Sequence[Sequence[str]]) -> list[str]:
    """An import of a unit in a higher layer, or of a unit in no layer, one sentence each."""
    rank = {unit: index for index, layer in enumerate(layers) for unit in layer}
    problems = []
    for arrow in found:
        for unit in (arrow.source_unit, arrow.target_unit):
            if unit not in rank:
                problems.append(f"{arrow}: {unit} is in no layer; add it to the layer list")
        if rank.get(arrow.target_unit, -1) > rank.get(arrow.source_unit, len(layers)):
            problems.append(
                f"{arrow}: {arrow.source_unit} (layer {rank[arrow.source_unit]}) may not import "
                f"{arrow.target_unit} (layer {rank[arrow.target_unit]})"
            )
    return sorted(set(problems))


def cycles(found: Sequence[Arrow]) -> list[str]:
    """Each cycle of units (a strongly connected set of two or more), with the imports that close it."""
    graph: dict[str, set[str]] = {}
    for arrow in found:
        graph.setdefault(arrow.source_unit, set()).add(arrow.target_unit)
        graph.setdefault(arrow.target_unit, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(unit: str) -> None:
        index[unit] = low[unit] = len(index)
        stack.append(unit)
        for nxt in sorted(graph[unit]):
            if nxt not in index:
                visit(nxt)
                low[unit] = min(low[unit], low[nxt])
            elif nxt in stack:
                low[unit] = min(low[unit], index[nxt])
        if low[unit] == index[unit]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == unit:
                    break
            components.append(component)

    for unit in sorted(graph):
        if unit not in index:
            visit(unit)
    reports = []
    for component in components:
        if len(component) > 1:
            inside = sorted({str(a) for a in found if a.source_unit in component and a.target_unit in component})
            reports.append(f"cycle among {', '.join(sorted(component))}: " + "; ".join(inside))
    return reports
