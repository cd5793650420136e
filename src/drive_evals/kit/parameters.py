"""The task parameters every benchmark of the suite takes (`data`, `revision`, `blind`, `shard`), declared once.

`drive_evals.kit.suite_task` adds each one to a benchmark's task function (signature, docstring, check), so the
function declares only its own parameters. Adding a suite-wide parameter is one `SuiteParameter` in
`SUITE_PARAMETERS` and one field of `SuiteArgs`: every task, `drive-evals describe` and docs/parameters.md pick it
up. A benchmark that documents a suite parameter in its own `Args:` (a more specific wording of `data`) keeps its
wording; the others get `doc` below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from drive_evals.data import Snapshot
from drive_evals.params import flag, optional_text, text
from drive_evals.shard import Shard, parse_shard
from drive_evals.stopping.rule import DEFAULT_ALPHA, DEFAULT_MIN_CLUSTERS, DEFAULT_SEED, StopPlan, parse_plan


@dataclass(frozen=True)
class SuiteParameter:
    """One `-T` parameter of every task: its name, type, default, meaning and check."""

    name: str
    annotation: Any
    default: object
    doc: str
    check: Callable[[str, object], object]
    """Name, raw `-T` value -> the checked value the benchmark receives in `SuiteArgs` (raises ParameterError)."""
    leading: bool = False
    """Listed before the benchmark's own parameters (`data`, `revision`), else after them."""
    optional: bool = False
    """A benchmark may leave it out (`suite_task(..., blind=False)`: DriveBench has `setting=text_only`)."""


def resolve_data(task: str, data: str) -> str:
    """What `-T data=` means for `task`: the one place that decides it. Today the value itself, for every task (a
    hub id, `modelscope:<id>`, a local directory or `demo`: `drive_evals.data.open_snapshot` reads it); a value
    that names one folder per benchmark would be resolved here."""
    return data


def _shard(name: str, value: object) -> Shard | None:
    return parse_shard(value)


DATA = SuiteParameter(
    "data",
    str,
    None,  # every benchmark gives its own default (its official hub id)
    "The data: a Hugging Face dataset id, `modelscope:<id>`, a local directory, or `demo` (synthetic data "
    "shipped with the package).",
    text,
    leading=True,
)
REVISION = SuiteParameter(
    "revision",
    str | None,
    None,
    "Hub revision (branch, tag or commit) to download; the resolved commit is recorded in the log.",
    optional_text,
    leading=True,
)
BLIND = SuiteParameter(
    "blind",
    bool,
    False,
    "The no-vision control: every image replaced by uniform grey of the same size, same sample ids.",
    flag,
    optional=True,
)
SHARD = SuiteParameter(
    "shard",
    str | None,
    None,
    "`i/n` runs part i of n (counted from 1), split by cluster; `drive-evals merge-shards` joins the logs.",
    _shard,
)


def _as_given(name: str, value: object) -> object:
    """Checked together by `stopping.rule.parse_plan` once every `stop_*` value is known (`SuiteArgs.checked`)."""
    return value


STOP_PARAMETERS = (
    SuiteParameter(
        "stop",
        str | None,
        None,
        "A stop rule fixed before the run (docs/early-stopping.md): `precision:W`, `above:X`, `below:X` or "
        "`vs:LOG`; clusters run in a seeded order and the run stops once an interval valid at every look decides.",
        _as_given,
    ),
    SuiteParameter("stop_alpha", float, DEFAULT_ALPHA, "The stop rule's error level.", _as_given),
    SuiteParameter("stop_seed", int, DEFAULT_SEED, "The seed of the stop rule's cluster order.", _as_given),
    SuiteParameter("stop_min_clusters", int, DEFAULT_MIN_CLUSTERS, "No stop before this many clusters.", _as_given),
    SuiteParameter(
        "stop_budget",
        int | str | None,
        None,
        "Stop undecided after this many clusters, or a share of them (`50%`).",
        _as_given,
    ),
    SuiteParameter("stop_margin", float, 0.0, "`vs:LOG`: the equivalence margin (0: none).", _as_given),
    SuiteParameter(
        "stop_shadow", bool, False, "Run every cluster and record where the rule would have stopped.", _as_given
    ),
)
SUITE_PARAMETERS: tuple[SuiteParameter, ...] = (DATA, REVISION, BLIND, SHARD, *STOP_PARAMETERS)
"""In signature order within their place (leading ones before a benchmark's own parameters)."""


@dataclass(frozen=True)
class SuiteArgs:
    """The checked suite-wide parameters of one task call, handed to the benchmark's task function."""

    task: str
    """The task's name (`surds`): the benchmark's demo folder and metadata key."""
    data: str
    revision: str | None
    blind: bool
    shard: Shard | None
    stop: StopPlan | None = None
    """The stop rule (`stop` and the `stop_*` parameters), None without one."""
    opened: list[Snapshot] = field(default_factory=list, compare=False, repr=False)
    """The data snapshots opened for this call (`kit.open_data`), whose fetched files `make_task` verifies."""

    @classmethod
    def checked(cls, task: str, given: Mapping[str, object]) -> SuiteArgs:
        """Check every suite parameter in `given` (a left-out optional one reads as its default)."""
        values = {p.name: p.check(p.name, given[p.name]) if p.name in given else p.default for p in SUITE_PARAMETERS}
        values["data"] = resolve_data(task, values["data"])  # type: ignore[arg-type]
        stop = parse_plan(*(values.pop(p.name) for p in STOP_PARAMETERS))
        return cls(task=task, stop=stop, **values)  # type: ignore[arg-type]
