"""Token usage adds up: every model call is counted once, and a judge that shares the model's name stays apart.

Inspect counts each call under the model's name (`stats.model_usage`) and, for a role model, again under the role
(`stats.role_usage`); its console prints a line for each. Checked against the calls themselves: the usage of the
`ModelEvent`s in the samples' transcripts.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelUsage
from inspect_runs import eval_in_process

from drive_evals.benchmark import GRADER_ROLE

CHANCE = "chance/random"
DEMO = {"data": "demo"}
SAMPLES = 4


def counts(usage: ModelUsage) -> tuple[int, int, int]:
    return usage.input_tokens, usage.output_tokens, usage.total_tokens


def call_usage(log: EvalLog, role: str | None = None, any_role: bool = False) -> tuple[int, int, int]:
    """Input, output and total tokens of the log's model calls made with `role` (or of every call, `any_role`)."""
    total = ModelUsage()
    for sample in log.samples or []:
        for event in sample.events:
            if isinstance(event, ModelEvent) and event.output.usage and (any_role or event.role == role):
                total += event.output.usage
    return counts(total)


def test_the_judge_meta_evaluation_counts_each_judge_call_once(tmp_path: Path) -> None:
    """Every call of this task is a judge call: one usage entry, under the judge's name, and no role entry that
    repeats it (before, the console showed `chance/random` and `grader (role)` with the same tokens)."""
    log = eval_in_process(
        "drive_evals/drivelmm_o1_judge",
        tmp_path / "logs",
        model_roles={GRADER_ROLE: CHANCE},
        task_args={**DEMO, "records": 1},
        epochs=1,
    )
    calls = call_usage(log, any_role=True)
    assert calls[2] > 0
    assert log.stats.role_usage == {}, "the judge is the run's model, not a role model as well"
    assert list(log.stats.model_usage) == [CHANCE] and counts(log.stats.model_usage[CHANCE]) == calls
    assert str(log.eval.model) == CHANCE, "the log list names the judge"


def test_a_judge_named_like_the_model_is_told_apart_by_its_role(tmp_path: Path) -> None:
    """DriveLMM-o1 with `chance/random` as model and judge: Inspect adds both under the one name, and the judge's
    share is its role entry, which is exactly the judge's calls (so `drive-evals estimate` can subtract it)."""
    log = eval_in_process(
        "drive_evals/drivelmm_o1",
        tmp_path / "logs",
        {"INSPECT_CACHE_DIR": str(tmp_path / "cache")},  # a judge reply read from the cache has no usage
        model=CHANCE,
        model_roles={GRADER_ROLE: CHANCE},
        task_args=DEMO,
        limit=SAMPLES,
    )
    judge, model = call_usage(log, role=GRADER_ROLE), call_usage(log, role=None)
    assert judge[2] > 0 and model[2] > 0
    assert list(log.stats.role_usage) == [GRADER_ROLE] and counts(log.stats.role_usage[GRADER_ROLE]) == judge
    both = tuple(a + b for a, b in zip(model, judge, strict=True))
    assert list(log.stats.model_usage) == [CHANCE] and counts(log.stats.model_usage[CHANCE]) == both
