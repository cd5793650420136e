"""Every module of the package is importable by its dotted name in both import forms (issue 23).

`import a.b.c as m` resolves `a.b.c` attribute by attribute after the import, so a name that a package's
`__init__` binds over one of its subpackages breaks that form even though `from a.b import c` works.
"""

import pkgutil
import sys

import pytest

import drive_evals

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(drive_evals.__path__, prefix="drive_evals.")
    if not info.name.endswith(".__main__")  # a script: importing it runs the command (tested below)
)


def test_the_walk_finds_both_benchmarks_modules() -> None:
    assert {"drive_evals.surds.rules", "drive_evals.drivelmm_o1.judge", "drive_evals.stats.paired"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_import_as_reaches_the_module(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"import {name} as imported", namespace)
    assert namespace["imported"] is sys.modules[name]


@pytest.mark.parametrize("name", MODULES)
def test_from_import_reaches_the_module(name: str) -> None:
    parent, leaf = name.rsplit(".", 1)
    namespace: dict[str, object] = {}
    exec(f"from {parent} import {leaf} as imported", namespace)
    assert namespace["imported"] is sys.modules[name]


def test_tasks_are_exported_by_their_subpackages() -> None:
    from drive_evals.drivelmm_o1 import drivelmm_o1, drivelmm_o1_judge
    from drive_evals.surds import surds

    names = [f.__name__ for f in (surds, drivelmm_o1, drivelmm_o1_judge)]
    assert names == ["surds", "drivelmm_o1", "drivelmm_o1_judge"]


def test_the_command_runs_as_a_module() -> None:
    """`python -m drive_evals.cli` is how tests and benchmarks start `drive-evals` without its console script."""
    import subprocess

    result = subprocess.run([sys.executable, "-m", "drive_evals.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "usage: drive-evals" in result.stdout, result.stderr
