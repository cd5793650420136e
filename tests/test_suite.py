"""The registry (`drive_evals._registry`): one list of benchmarks every consumer reads, and no import circle."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest
from inspect_ai._util.registry import is_registry_object, registry_info

import drive_evals
from drive_evals import _registry
from drive_evals._registry import BENCHMARKS, TASKS, benchmark_tasks, find_task
from drive_evals.benchmark import PACKAGE, Benchmark, SuiteTask
from drive_evals.cli import main
from drive_evals.errors import ParameterError
from drive_evals.suite import register, task_functions
from drive_evals.surds.scorer import surds_scorer

SOURCE = Path(drive_evals.__file__).parent
TESTS = Path(__file__).parent
TOOLS = TESTS.parent / "tools"
LAZY_BY_DESIGN = ("cli", "command.py")
"""The `drive-evals` command's package, whose handlers import their implementation when run, so `--help` stays
fast, and its entry point, which imports the package with the garbage collector paused."""


def test_every_declared_task_is_registered_and_loaded_by_inspects_entry_point() -> None:
    inspect_names = {
        registry_info(obj).name.removeprefix(f"{PACKAGE}/")
        for obj in (getattr(_registry, name) for name in _registry.__all__)
        if is_registry_object(obj, type="task")
    }
    assert set(task_functions()) == {task.name for task in TASKS}
    assert inspect_names == set(task_functions())


def test_the_registry_lists_each_benchmark_then_its_meta_evaluations() -> None:
    expected = [name for b in BENCHMARKS for name in (b.key, *(meta.name for meta in b.meta_tasks))]
    assert [task.name for task in TASKS] == expected
    assert [task.name for task in TASKS][:2] == ["surds", "drivelmm_o1"]  # the order help and the report show
    assert benchmark_tasks() == tuple(benchmark.task for benchmark in BENCHMARKS)


def test_find_takes_either_name_and_lists_the_tasks_when_unknown() -> None:
    assert find_task("surds") is find_task("drive_evals/surds") is TASKS[0]
    with pytest.raises(ParameterError, match="drive_evals/drivelmm_o1_judge"):
        find_task("surd")


def test_a_task_registers_only_under_its_own_name() -> None:
    def stray() -> None: ...

    with pytest.raises(ValueError, match="on a function named 'stray'"):
        register(SuiteTask("surds", scorer=surds_scorer))(stray)
    assert "stray" not in task_functions()


def command_help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    """`drive-evals COMMAND --help`, with argparse's line wrapping undone."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_command_help_names_the_tasks_the_registry_declares(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A task added to the registry appears in every help that lists tasks; a judge meta-evaluation only where
    every task is taken (`describe`), not where a model is evaluated (`estimate`, `run`)."""
    added, meta = SuiteTask("new_bench", scorer=surds_scorer), SuiteTask("new_meta", surds_scorer, benchmark=False)
    evaluated = ", ".join(task.qualified for task in benchmark_tasks())
    monkeypatch.setattr(_registry, "TASKS", (*TASKS, added, meta))
    listed = ", ".join(task.name for task in TASKS) + ", new_bench or new_meta"
    assert listed in command_help("describe", capsys)
    for command in ("estimate", "run"):
        names = evaluated + " or drive_evals/new_bench"
        assert f"TASK {names}" in command_help(command, capsys), command


def _imported(node: ast.AST) -> list[str]:
    """The modules an import statement names."""
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    return [alias.name for alias in node.names] if isinstance(node, ast.Import) else []


def test_no_module_imports_the_suite_inside_a_function() -> None:
    """A function-level import of our own code is how an import circle hides; only command handlers may."""
    late = [
        f"{path.relative_to(SOURCE)}:{getattr(inner, 'lineno', '?')}"
        for path in sorted(SOURCE.rglob("*.py"))
        if path.relative_to(SOURCE).parts[0] not in LAZY_BY_DESIGN
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for inner in ast.walk(node)
        if any(module.startswith(PACKAGE) for module in _imported(inner))
    ]
    assert late == []


def test_no_test_imports_a_script_from_tools() -> None:
    """The tests stand on the package and their own helpers; scripts in tools/ may use the tests' helpers, not the
    other way round (`tools/` is not on pytest's path). tests/test_demo_data.py runs the demo generator as a
    program, which is what it tests."""
    scripts = {path.stem for path in TOOLS.glob("*.py")}
    imports = [
        f"{path.relative_to(TESTS)}:{getattr(node, 'lineno', '?')} imports {module}"
        for path in sorted(TESTS.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for module in _imported(node)
        if module.split(".")[0] in scripts
    ]
    assert scripts and imports == []


README = Path(__file__).parents[1] / "README.md"
GUIDE = Path(__file__).parents[1] / "docs" / "adding-a-benchmark.md"
TABLE_ROW = re.compile(r"^\| `(drive_evals/\w+)` \|[^\n]*\| `(\w+)` \|$", re.M)
FIELD_ROW = re.compile(r"^\| `(\w+)`(?:, `(\w+)`)? \|", re.M)


def test_the_readme_table_lists_every_task_with_its_headline() -> None:
    rows = dict(TABLE_ROW.findall(README.read_text(encoding="utf-8")))
    assert list(rows) == [task.qualified for task in benchmark_tasks()] + [
        meta.qualified for b in BENCHMARKS for meta in b.meta_tasks
    ]
    for benchmark in BENCHMARKS:
        assert rows[benchmark.task.qualified] == benchmark.headline, benchmark.key


def test_every_benchmark_has_its_docs_page() -> None:
    for benchmark in BENCHMARKS:
        assert (GUIDE.parent / f"{benchmark.key}.md").is_file(), benchmark.key


def test_the_guides_field_table_names_every_benchmark_field() -> None:
    section = GUIDE.read_text(encoding="utf-8").split("## The `Benchmark` value", 1)[1].split("\n## ", 1)[0]
    documented = [name for row in FIELD_ROW.findall(section) for name in row if name and name != "field"]
    assert sorted(documented) == sorted(field.name for field in dataclasses.fields(Benchmark))
