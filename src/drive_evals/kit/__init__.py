"""The task kit: everything a benchmark package needs from shared code, in one import.

    from drive_evals.kit import SampleColumns, SuiteArgs, SuiteTask, make_task, open_data, suite_task

A benchmark's `task.py` declares its `SuiteTask` (name and scorer), decorates its task function with
`@suite_task` (which adds and checks `data`, `revision`, `blind` and `shard`) and returns `make_task(...)`
(the suite's plumbing: manifest, data warnings, endpoint check, started samples, raw reply, timeout, headline,
tags, viewer, provenance). Its `benchmark.py` declares a `Benchmark` from the report types below. A judged
benchmark calls its judge through the shared pipeline (`drive_evals.kit.judge`: retries, breaker, per-attempt
cache, batch, the judge's own timeout), re-exported here too. docs/adding-a-benchmark.md walks through one.
"""

from drive_evals.benchmark import (
    DEFAULT_GRADER_KEY,
    GRADER_ROLE,
    JUDGE_ENABLED_KEY,
    Benchmark,
    BreakdownSpec,
    ChanceAnswer,
    ChanceJudge,
    Column,
    ConsoleLine,
    EstimateInputs,
    ManifestWalk,
    OfficialCount,
    Reference,
    SuiteTask,
    TableSpec,
    UnitMetric,
    finite_number,
    judge_score,
    paper_percent,
)
from drive_evals.blind import BLIND_IMAGE_DESCRIPTION, blind_sample
from drive_evals.data import Snapshot, cache_dir, demo_dir, inside, read_json
from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataSourceError, DataValidationError, ParameterError
from drive_evals.kit.judge import (
    ATTEMPT_SCOPE,
    DEFAULT_JUDGE_ERROR_LIMIT,
    NO_VERDICT,
    RAW_REPLY_CHARS,
    Invalid,
    JudgeBreaker,
    JudgeResult,
    call_judge,
    graders,
    judge_generate_config,
    preflight_graders,
    stop_when_judge_down,
)
from drive_evals.kit.metrics import planned_mean, planned_values
from drive_evals.kit.parameters import SUITE_PARAMETERS, SuiteArgs, SuiteParameter, per_task, resolve_data
from drive_evals.kit.task import SampleColumns, make_task, open_data, scorer_name, suite_task
from drive_evals.params import choice, flag, optional_text, positive, text, whole
from drive_evals.replies import generate_raw_reply, stopped_at_token_limit
from drive_evals.shard import Shard
from drive_evals.spread import spread_samples
from drive_evals.started_samples import MISSING_UNITS, MissingUnit, missing_units, running
from drive_evals.truncation import TRUNCATED_KEY, TRUNCATED_REASON, truncation

__all__ = [
    "ATTEMPT_SCOPE",
    "BLIND_IMAGE_DESCRIPTION",
    "DEFAULT_GRADER_KEY",
    "DEFAULT_JUDGE_ERROR_LIMIT",
    "GRADER_ROLE",
    "JUDGE_ENABLED_KEY",
    "MISSING_UNITS",
    "NO_VERDICT",
    "RAW_REPLY_CHARS",
    "SUITE_PARAMETERS",
    "TRUNCATED_KEY",
    "TRUNCATED_REASON",
    "Benchmark",
    "BreakdownSpec",
    "ChanceAnswer",
    "ChanceJudge",
    "Column",
    "ConsoleLine",
    "DataSourceError",
    "DataValidationError",
    "DataWarnings",
    "EstimateInputs",
    "Invalid",
    "JudgeBreaker",
    "JudgeResult",
    "ManifestWalk",
    "MissingUnit",
    "OfficialCount",
    "ParameterError",
    "Reference",
    "SampleColumns",
    "Shard",
    "Snapshot",
    "SuiteArgs",
    "SuiteParameter",
    "SuiteTask",
    "TableSpec",
    "UnitMetric",
    "blind_sample",
    "cache_dir",
    "call_judge",
    "choice",
    "demo_dir",
    "finite_number",
    "flag",
    "generate_raw_reply",
    "graders",
    "inside",
    "judge_generate_config",
    "judge_score",
    "make_task",
    "missing_units",
    "open_data",
    "optional_text",
    "paper_percent",
    "per_task",
    "planned_mean",
    "planned_values",
    "positive",
    "preflight_graders",
    "read_json",
    "resolve_data",
    "running",
    "scorer_name",
    "spread_samples",
    "stop_when_judge_down",
    "stopped_at_token_limit",
    "suite_task",
    "text",
    "truncation",
    "whole",
]
