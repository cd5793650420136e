"""`drive-evals describe`: every task parameter appears with its default and meaning, and drift is an error."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from drive_evals.cli import main
from drive_evals.cli.describe import (
    PARAMETERS_PAGE,
    REGENERATE,
    DocstringError,
    describe,
    describe_task,
    markdown_page,
    parse_args_section,
    render,
)
from drive_evals.suite import task_functions

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", list(task_functions()))
def test_every_parameter_appears_with_its_default(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", name]) == 0
    output = capsys.readouterr().out
    signature = inspect.signature(task_functions()[name])
    assert signature.parameters, name
    named = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    for parameter in named:
        default = parameter.default
        shown = "unset" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        assert f"  {parameter.name} (" in output
        assert f"default: {shown}\n" in output.split(f"  {parameter.name} (", 1)[1]
    assert "kwargs" not in output, "the catch-all that refuses unknown -T names is not a parameter"


def test_meanings_come_from_the_docstring() -> None:
    surds = describe_task("surds", task_functions()["surds"])
    by_name = {p.name: p for p in surds.parameters}
    assert by_name["record_order"].default == "metadata"
    assert by_name["record_order"].meaning.startswith("`metadata` (line order of metadata.jsonl")
    # continuation lines are joined into one sentence
    assert "It decides which images are sampled." in by_name["record_order"].meaning
    assert by_name["blind"].default == "false"
    assert by_name["revision"].default == "unset"


def test_all_tasks_by_default_and_prefixed_names() -> None:
    everything = describe(None)
    for name in task_functions():
        assert f"drive_evals/{name}\n" in everything
    assert describe("drive_evals/surds") == describe("surds")


def test_unknown_task_lists_the_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "surd"]) == 2
    error = capsys.readouterr().err
    assert "unknown task 'surd'" in error and "drive_evals/drivelmm_o1_judge" in error


def _documented(alpha: int = 1, beta: str | None = None) -> None:
    """Summary line.

    Args:
        alpha: First
            parameter.
        beta (str): Second one.

    Returns:
        nothing.
    """


def _missing_beta(alpha: int = 1, beta: str | None = None) -> None:
    """Summary line.

    Args:
        alpha: First parameter.
    """


def _stale_gamma(alpha: int = 1) -> None:
    """Summary line.

    Args:
        alpha: First parameter.
        gamma: Removed long ago.
    """


def test_parse_args_section_stops_at_the_next_section() -> None:
    meanings = parse_args_section(inspect.getdoc(_documented) or "")
    assert meanings == {"alpha": "First parameter.", "beta": "Second one."}
    text = render(describe_task("documented", _documented))
    assert "alpha (int)  default: 1" in text and "beta (str | None)  default: unset" in text


def test_a_parameter_missing_from_the_docstring_is_an_error() -> None:
    with pytest.raises(DocstringError, match="not in its docstring's Args: beta"):
        describe_task("missing", _missing_beta)


def test_a_documented_parameter_that_does_not_exist_is_an_error() -> None:
    with pytest.raises(DocstringError, match="documented but not parameters: gamma"):
        describe_task("stale", _stale_gamma)


def test_every_registered_task_is_described() -> None:
    from inspect_ai._util.registry import is_registry_object, registry_info

    from drive_evals import _registry

    registered = {
        registry_info(obj).name.removeprefix("drive_evals/")
        for obj in (getattr(_registry, name) for name in _registry.__all__)
        if is_registry_object(obj, type="task")
    }
    assert registered == set(task_functions())


def test_the_parameters_page_is_what_describe_generates() -> None:
    """docs/parameters.md is generated; an edited docstring or signature must be carried into it."""
    page = ROOT / PARAMETERS_PAGE
    assert page.read_text(encoding="utf-8") == markdown_page(), f"{PARAMETERS_PAGE} is stale; run: {REGENERATE}"


def test_the_markdown_option_prints_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "--markdown"]) == 0
    printed = capsys.readouterr().out
    assert printed == markdown_page()
    for name in task_functions():
        assert f"\n## {name}\n" in printed
    # a `|` inside a cell would split it: the type `grid | views` is escaped
    assert "| `image_mode` | `grid \\| views` | `grid` |" in printed
    assert main(["describe", "surds", "--markdown"]) == 2
