"""Shared code reaches a benchmark only through the registry and `drive_evals.benchmark` (issue 34).

A benchmark package is a folder of `drive_evals` with a `benchmark.py`. Two checks over every other module:

- imports: none names a benchmark package (`drive_evals.surds...`, `from drive_evals import surds`), except
  `drive_evals/_registry.py`, which lists the benchmarks;
- copied protocol: a benchmark's protocol strings (prompts, judge schema keys, answer patterns) live in its
  `prompts.py`. Each of their lines of at least `MIN_FRAGMENT` characters is a fragment; a string literal of shared
  code (docstrings aside) that contains a fragment, or a phrase of that length found inside a protocol string, is a
  copy.
  Shorter strings and numbers (a 1-10 scale) are not detected: too many would match by accident.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import drive_evals

SOURCE = Path(drive_evals.__file__).parent
REGISTRY = SOURCE / "_registry.py"
PROTOCOL_MODULE = "prompts.py"
MIN_FRAGMENT = 10
"""Characters: `Overall Score` and `coordinates [x, y]` count, `Answer` and `- {}` do not."""
NOT_PROTOCOL = frozenset({"gpt-4o-mini"})
"""Strings of a `prompts.py` that shared code may hold for its own reasons: the model DriveLMM-o1's script calls
as judge is also a provider whose image tokens `drive-evals estimate` prices."""


def benchmark_packages(source: Path) -> list[str]:
    return sorted(path.parent.name for path in source.glob("*/benchmark.py"))


def shared_modules(source: Path) -> list[Path]:
    packages = benchmark_packages(source)
    return [path for path in sorted(source.rglob("*.py")) if path.relative_to(source).parts[0] not in packages]


def imported_modules(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every module an import statement reaches, `from a import b` as `a.b` too."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)


def benchmark_imports(source: Path) -> list[str]:
    prefixes = tuple(f"{drive_evals.__name__}.{package}" for package in benchmark_packages(source))
    return [
        f"{path.relative_to(source)}:{line} {name}"
        for path in shared_modules(source)
        if path != source / REGISTRY.name
        for line, name in imported_modules(ast.parse(path.read_text()))
        if name == prefixes or name.startswith(tuple(f"{p}." for p in prefixes)) or name in prefixes
    ]


def cross_benchmark_imports(source: Path) -> list[str]:
    """Imports of one benchmark package from another: what two benchmarks share belongs in shared code."""
    packages = benchmark_packages(source)
    found = []
    for package in packages:
        others = tuple(f"{drive_evals.__name__}.{other}" for other in packages if other != package)
        for path in sorted((source / package).rglob("*.py")):
            for line, name in imported_modules(ast.parse(path.read_text())):
                if name in others or name.startswith(tuple(f"{o}." for o in others)):
                    found.append(f"{path.relative_to(source)}:{line} {name}")
    return found


def string_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, text) of every string constant except docstrings."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def protocol_strings(source: Path) -> list[str]:
    return [
        text
        for path in sorted(source.glob(f"*/{PROTOCOL_MODULE}"))
        if path.parent.name in benchmark_packages(source)
        for _, text in string_literals(ast.parse(path.read_text()))
    ]


def copied_protocol(source: Path) -> list[str]:
    protocol = protocol_strings(source)
    lines = {line.strip() for text in protocol for line in text.splitlines()}
    fragments = {line for line in lines if len(line) >= MIN_FRAGMENT} - NOT_PROTOCOL
    found = []
    for path in shared_modules(source):
        for line, literal in string_literals(ast.parse(path.read_text())):
            text = literal.strip()
            copied = any(fragment in text for fragment in fragments) or (
                _is_phrase(text) and text not in NOT_PROTOCOL and any(text in whole for whole in protocol)
            )
            if copied:
                found.append(f"{path.relative_to(source)}:{line} {text[:60]!r}")
    return found


def _is_phrase(text: str) -> bool:
    """Long enough and of several words: `coordinates [x, y]`, not an identifier such as `final_answer`."""
    return len(text) >= MIN_FRAGMENT and any(character.isspace() for character in text)


def test_every_benchmark_is_found_with_its_protocol() -> None:
    assert {"surds", "drivelmm_o1", "drivebench", "vladbench"} <= set(benchmark_packages(SOURCE))
    assert {"Overall Score", r"([A-F])\)\s*(.+)"} <= set(protocol_strings(SOURCE))


def test_no_shared_module_imports_a_benchmark_but_the_registry() -> None:
    assert benchmark_imports(SOURCE) == []


def test_no_benchmark_package_imports_another() -> None:
    assert cross_benchmark_imports(SOURCE) == []


def test_no_benchmark_protocol_string_is_copied_into_shared_code() -> None:
    assert copied_protocol(SOURCE) == []


@pytest.fixture
def leaky_tree(tmp_path: Path) -> Path:
    """A package with one benchmark and a shared module that both imports it and copies its protocol."""
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "benchmark.py").write_text("")
    (tmp_path / "bench" / "prompts.py").write_text('"""Doc."""\nPROMPT = "Answer in the form [x, y].\\nThanks"\n')
    (tmp_path / "shared.py").write_text(
        f'"""Answer in the form [x, y]."""\nfrom {drive_evals.__name__} import bench\nMARK = "form [x, y]"\n'
    )
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "benchmark.py").write_text(f"from {drive_evals.__name__}.bench import prompts\n")
    (tmp_path / "clean.py").write_text('"""Answer in the form [x, y] (a docstring may say it)."""\n')
    return tmp_path


def test_the_checks_catch_an_import_and_a_copy(leaky_tree: Path) -> None:
    assert benchmark_imports(leaky_tree) == [f"shared.py:2 {drive_evals.__name__}.bench"]
    assert copied_protocol(leaky_tree) == ["shared.py:3 'form [x, y]'"]
    assert cross_benchmark_imports(leaky_tree)[0] == f"other/benchmark.py:1 {drive_evals.__name__}.bench"
