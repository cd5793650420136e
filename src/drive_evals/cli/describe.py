"""`drive-evals describe [TASK]`: each task's `-T` parameters, defaults and meanings.

Everything printed comes from the task function itself: names and defaults from its signature, meanings from the
Google-style `Args:` section of its docstring (read by `docstring_parser`, as Inspect reads tool docstrings). A
parameter the docstring does not explain, or an explanation of a parameter that no longer exists, is an error, so
the help cannot drift from the code.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

import docstring_parser

from drive_evals import _registry
from drive_evals.benchmark import PACKAGE
from drive_evals.errors import DriveEvalsError
from drive_evals.params import parameter_names
from drive_evals.suite import task_functions

UNSET = "unset"
"""How a `None` default prints: the parameter is simply not set (its meaning says what happens then)."""
REQUIRED = "required"
"""How a parameter without a default prints."""
WIDTH = 100
PARAMETERS_PAGE = "docs/parameters.md"
"""The generated page of every task's parameters, which the README points to."""
REGENERATE = f"drive-evals describe --markdown > {PARAMETERS_PAGE}"


class DocstringError(DriveEvalsError, ValueError):
    """A task's docstring and signature disagree about its parameters."""


@dataclass(frozen=True)
class Parameter:
    name: str
    annotation: str
    default: str
    meaning: str


@dataclass(frozen=True)
class TaskDescription:
    name: str
    summary: str
    parameters: list[Parameter]


def describe_task(name: str, function: Callable[..., Any]) -> TaskDescription:
    """The task's parameters from its signature, each with the meaning its docstring gives."""
    docstring = inspect.getdoc(function) or ""
    meanings = parse_args_section(docstring)
    signature = inspect.signature(function)
    named = [signature.parameters[name] for name in parameter_names(function)]  # not the `**kwargs` catch-all
    # resolved in the task's own module, so an alias such as ImageMode shows its values
    hints = inspect.get_annotations(inspect.unwrap(function), eval_str=True)
    undocumented = [p.name for p in named if p.name not in meanings]
    stale = [m for m in meanings if m not in parameter_names(function)]
    if undocumented or stale:
        problems = [f"not in its docstring's Args: {', '.join(undocumented)}"] if undocumented else []
        problems += [f"documented but not parameters: {', '.join(stale)}"] if stale else []
        raise DocstringError(f"{PACKAGE}/{name}: " + "; ".join(problems))
    parameters = [
        Parameter(
            p.name,
            _type_name(hints[p.name]) if p.name in hints else "",
            _show_default(p.default),
            meanings[p.name],
        )
        for p in named
    ]
    return TaskDescription(f"{PACKAGE}/{name}", docstring.split("\n", 1)[0], parameters)


def parse_args_section(docstring: str) -> dict[str, str]:
    """Parameter name -> meaning, from the Google-style `Args:` section (continuation lines joined)."""
    parsed = docstring_parser.parse(docstring, style=docstring_parser.DocstringStyle.GOOGLE)
    return {param.arg_name: " ".join((param.description or "").split()) for param in parsed.params}


def _type_name(hint: Any) -> str:
    """`str | None`, `bool`, and a Literal as its values (`grid | views`)."""
    if get_origin(hint) is Literal:
        return " | ".join(str(value) for value in get_args(hint))
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "")


def _show_default(default: Any) -> str:
    if default is inspect.Parameter.empty:
        return REQUIRED
    if default is None:
        return UNSET
    if isinstance(default, bool):
        return str(default).lower()  # as typed on the command line: -T blind=true
    return str(default)


def render(description: TaskDescription) -> str:
    """Plain text: the task, how to pass parameters, then one block per parameter."""
    lines = [description.name, f"  {description.summary}", f"  inspect eval {description.name} -T name=value ...", ""]
    for parameter in description.parameters:
        kind = f" ({parameter.annotation})" if parameter.annotation else ""
        lines.append(f"  {parameter.name}{kind}  default: {parameter.default}")
        lines += textwrap.wrap(parameter.meaning, WIDTH, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(lines)


def describe(task: str | None) -> str:
    """The text `drive-evals describe [TASK]` prints: one task, or every task."""
    functions = task_functions()
    names = [_registry.find_task(task).name] if task else [t.name for t in _registry.TASKS]
    return "\n\n".join(render(describe_task(name, functions[name])) for name in names)


def render_markdown(description: TaskDescription) -> str:
    """One task's section of the parameters page: a heading, its summary, and a table of its parameters."""
    lines = [
        f"## {description.name.removeprefix(PACKAGE + '/')}",
        f"{description.summary} `inspect eval {description.name} -T name=value ...`",
        "",
        "| parameter | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for p in description.parameters:
        default = p.default if p.default in (UNSET, REQUIRED) else f"`{p.default}`"
        annotation = f"`{p.annotation}`" if p.annotation else ""
        lines.append("| " + " | ".join(_cell(c) for c in (f"`{p.name}`", annotation, default, p.meaning)) + " |")
    return "\n".join(lines)


def _cell(text: str) -> str:
    """A table cell: a `|` would end the cell, even inside a code span (GitHub's tables)."""
    return text.replace("|", "\\|")


def markdown_page() -> str:
    """docs/parameters.md, as `drive-evals describe --markdown` prints it: every task, in the registry's order."""
    functions = task_functions()
    header = [
        "# Task parameters",
        "",
        f"<!-- Generated by `{REGENERATE}` from the task functions; do not edit by hand. -->",
        "",
        "Every task's `-T name=value` parameters: names and defaults from the task function's signature, meanings",
        "from its docstring (`drive-evals describe TASK` prints the same in the terminal). An unknown name or value",
        "stops the run before any model call. `unset` means the parameter is not set; its meaning says what happens",
        "then.",
    ]
    sections = [render_markdown(describe_task(t.name, functions[t.name])) for t in _registry.TASKS]
    return "\n\n".join(["\n".join(header), *sections]) + "\n"
