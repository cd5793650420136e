"""No import circle among the package's modules, late (function-level) imports included.

A circle holds only by the order modules happen to be imported in (a last-line import, a hook list filled at import
time); this test reads every `import` statement of the source, wherever it is, and fails naming each circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import drive_evals

ROOT = Path(drive_evals.__file__).parent
PACKAGE = "drive_evals"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a `from M import name` of a submodule counts as that module)."""
    modules = {module_name(path): path for path in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                ]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    graph = import_graph()
    assert graph[f"{PACKAGE}._registry"], "the graph has edges"
    assert circles(graph) == []
