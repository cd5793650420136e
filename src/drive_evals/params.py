"""Checks of task parameters, run first in each task so that a bad `-T` fails in seconds, before any download.

`-T name=value` reaches a task as a YAML scalar: `-T judge_attempts=two` is the string "two", `-T blind=maybe`
a (truthy) string, `-T subsets=yaw,depth` a list. Each check names the parameter and its valid values.
"""

from __future__ import annotations

import difflib
import inspect
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from drive_evals.errors import ParameterError
from drive_evals.suite import task_functions

logger = logging.getLogger(__name__)


def reject_unknown(task: Callable[..., Any], unknown: Mapping[str, Any]) -> None:
    """Refuse `-T` names the task does not declare (each task takes `**kwargs` to receive them).

    Without `**kwargs` Inspect only warns `param 'x' not used` and runs the task with its defaults: a misspelt
    `-T subset=yaw` then pays for all six subsets. Inspect hands every `-T` to every task of a command, so a name
    that another drive_evals task declares (`inspect eval drive_evals/surds drive_evals/drivelmm_o1 -T
    record_order=sorted`) is only a warning here.
    """
    if not unknown:
        return
    valid = parameter_names(task)
    elsewhere: dict[str, list[str]] = {}
    for owner, names in _sibling_parameters(task).items():
        for name in names:
            elsewhere.setdefault(name, []).append(owner)  # `nuscenes_root`: drivelmm_o1 and drivebench
    problems = []
    for name in unknown:
        if name in elsewhere:
            owners = " and ".join(elsewhere[name])
            logger.warning("%s: -T %s is a parameter of %s only; ignored here", task.__name__, name, owners)
            continue
        close = difflib.get_close_matches(name, valid, n=1)
        problems.append(f"'{name}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    if problems:
        raise ParameterError(
            f"{task.__name__}: unknown parameter {', '.join(problems)}; valid parameters are {', '.join(valid)}"
        )


def parameter_names(task: Callable[..., Any]) -> list[str]:
    """The named parameters of a task function (not its `**kwargs`)."""
    return [
        name
        for name, parameter in inspect.signature(task).parameters.items()
        if parameter.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
    ]


def _sibling_parameters(task: Callable[..., Any]) -> dict[str, list[str]]:
    """The parameter names of every other drive_evals task, by task name.

    Only loaded tasks count; the names are shared only by `inspect eval`, whose entry point loads every task."""
    return {name: parameter_names(other) for name, other in task_functions().items() if name != task.__name__}


def choice(name: str, value: object, valid: Sequence[str]) -> str:
    """`value` if it is one of `valid`."""
    if not isinstance(value, str) or value not in valid:
        raise ParameterError(f"{name}={value!r}: valid values are {', '.join(valid)}")
    return value


def flag(name: str, value: object) -> bool:
    """A true/false parameter (YAML also reads yes/no and on/off as booleans)."""
    if not isinstance(value, bool):
        raise ParameterError(f"{name}={value!r}: valid values are true, false")
    return value


def text(name: str, value: object) -> str:
    """A string parameter (a path, a hub id, a revision)."""
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{name}={value!r}: expected a non-empty string")
    return value


def optional_text(name: str, value: object) -> str | None:
    """A string parameter that may be left unset."""
    return None if value is None else text(name, value)


def whole(name: str, value: object, minimum: int) -> int:
    """An integer parameter of at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name}={value!r}: expected a whole number of at least {minimum}")
    return value


def positive(name: str, value: object) -> float:
    """A finite number above zero."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ParameterError(f"{name}={value!r}: expected a finite number above 0")
    return float(value)


def fraction_part(name: str, value: object) -> tuple[int, int] | None:
    """`i/n` with 1 <= i <= n (a shard: part i of n, counted from 1), or None when unset."""
    if value is None:
        return None
    index, slash, count = str(value).partition("/") if isinstance(value, str) else ("", "", "")
    if not slash or not index.strip().isdigit() or not count.strip().isdigit():
        raise ParameterError(f"{name}={value!r}: expected i/n, part i of n counted from 1 (e.g. {name}=1/2)")
    number = whole(name, int(count), 1)
    part = int(index)
    if not 1 <= part <= number:
        raise ParameterError(f"{name}={value!r}: the part must be between 1 and {number} (counted from 1)")
    return part, number
