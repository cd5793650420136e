"""`drive_evals/drivelmm_o1_judge`: check a DriveLMM-o1 judge before trusting its reasoning scores.

For each record the ground-truth reasoning is turned into a reference response, degraded versions of known lower
quality and responses that try to instruct the judge (`degrade.py`). The judge bound to the `grader` role scores
each one with exactly the benchmark's judge call (`judge.judge_response`), and the metrics say whether it orders
them as intended, catches each degradation, resists the injections and repeats itself across epochs. The judge
cache is bypassed, so every epoch is a fresh call and the run-to-run spread is real. No images are needed: the
judge sees text only. One sample is one (record, variant), so the viewer shows each response beside its rubric.
"""

from __future__ import annotations

import math

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import ChatMessageAssistant, Model, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.benchmark import DEFAULT_GRADER_KEY, SuiteTask
from drive_evals.drivelmm_o1.dataset import resolve_test_file
from drive_evals.drivelmm_o1.judge import DEFAULT_GRADER, JUDGE_ATTEMPTS, graders, judge_response, preflight_graders
from drive_evals.drivelmm_o1.judge_meta.degrade import DEGRADATIONS, INJECTIONS, build_variants
from drive_evals.drivelmm_o1.judge_meta.metrics import JUDGE_SCORE, judge_meta_metrics
from drive_evals.drivelmm_o1.metrics import JUDGED
from drive_evals.drivelmm_o1.records import DriveLMMRecord, load_records
from drive_evals.drivelmm_o1.rubric import reasoning_score, rubric_table
from drive_evals.drivelmm_o1.scorer import GRADER_FAILED
from drive_evals.drivelmm_o1.task import HF_DATASET
from drive_evals.endpoints import check_task_endpoints
from drive_evals.errors import ParameterError, route_errors_to_stderr
from drive_evals.judge_guard import DEFAULT_JUDGE_ERROR_LIMIT, JudgeBreaker, stop_when_judge_down
from drive_evals.params import optional_text, reject_unknown, text, whole
from drive_evals.suite import register
from drive_evals.viewer import sample_list_view

JUDGE_NEEDED_ADVICE = "This task evaluates the judge, so it cannot run without one: give it its key or bind another."
TASK_VERSION = 2
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""
DEFAULT_RECORDS = 50
"""Records judged by default: 50 x 13 responses x 3 epochs = 1,950 judge calls (about 3.3M input tokens)."""
DEFAULT_EPOCHS = 3
"""Epochs give the judge's run-to-run spread at temperature 0; one epoch measures the ordering only."""
RESPONSE_SOURCE = "drive_evals/degrade"
"""Model name on the replayed response: it comes from `degrade.py`, not from a model."""


def select_records(records: list[DriveLMMRecord], count: int) -> list[DriveLMMRecord]:
    """`count` records spread evenly over the file (so over scenes and question numbers), in file order."""
    if count < 1:
        raise ParameterError(f"records={count}: must be at least 1")
    if count >= len(records):
        return records
    return [records[index * len(records) // count] for index in range(count)]


def variant_samples(record: DriveLMMRecord) -> list[Sample]:
    """One sample per variant; the input is the question as asked (text only), the response is in the metadata."""
    question = record.question.strip()
    return [
        Sample(
            id=f"judge-{record.position:04d}-{variant.name}",
            input=question,
            target=record.final_answer,
            metadata={
                "idx": record.idx,
                "frame": record.frame,
                "question_number": record.question_number,
                "question": question,
                "steps": record.steps,
                "final_answer": record.final_answer,
                "variant": variant.name,
                "level": variant.level,
                "requested_score": variant.requested_score,
                "response": variant.response,
            },
        )
        for variant in build_variants(question, record.steps, record.final_answer)
    ]


@solver
def replay_response() -> Solver:
    """The variant's response stands in for a model's answer (no model is called), so the viewer shows it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        response = state.metadata["response"]
        state.messages.append(ChatMessageAssistant(content=response, model=RESPONSE_SOURCE))
        state.output = ModelOutput.from_content(model=RESPONSE_SOURCE, content=response)
        return state

    return solve


@scorer(metrics=[judge_meta_metrics()])
def judge_meta_scorer(
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    breaker: JudgeBreaker | None = None,
) -> Scorer:
    """Score each response with the benchmark's judge call, uncached, so that epochs are independent calls.

    `breaker` is the task's, shared with its `stop_when_judge_down` solver (default: one of its own).
    """
    breaker = breaker if isinstance(breaker, JudgeBreaker) else JudgeBreaker(judge_error_limit)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        judgement = await judge_response(
            get_model(),  # the run's model: the task makes the judge under evaluation its model (`judge_as_model`)
            meta["question"],
            meta["steps"],
            meta["final_answer"],
            state.output.completion,
            judge_attempts,
            cache=False,
            breaker=breaker,
        )
        parse = judgement.parse if judgement.ok else None
        return Score(
            value={
                JUDGED: 0.0 if parse is None else 1.0,
                JUDGE_SCORE: math.nan if parse is None else reasoning_score(parse.scores),
            },
            answer=meta["variant"],
            explanation=(
                f"No valid judgement ({judgement.failure})"
                if parse is None
                else rubric_table(parse.scores, parse.reported_overall)
            ),
            reason=GRADER_FAILED if parse is None else None,
            metadata={"judge": judgement.judge, "failure": judgement.failure, "raw_replies": judgement.raw_replies},
        )

    return score


def judge_as_model() -> Model:
    """The judge under evaluation (bound to the `grader` role, else the default judge) as a model without a role.

    Inspect counts a call of a role model twice over: under the model's name (`stats.model_usage`) and under its
    role (`stats.role_usage`), and the console prints a line for each, so every token of this task showed twice.
    Here every call is a judge call: the task makes the judge its model (same client, settings and args, no role),
    so each call is counted once, under the judge's name, and the log list names the judge instead of none/none.
    """
    models = graders()
    if len(models) != 1:
        raise ParameterError(f"bind one judge to the grader role (got {len(models)}): judges are checked singly")
    judge = models[0]
    return Model(judge.api, judge.config, judge.model_args)


JUDGE_META_TASK = SuiteTask("drivelmm_o1_judge", scorer=judge_meta_scorer, benchmark=False)
SCORER_NAME = JUDGE_META_TASK.scorer_name


@register(JUDGE_META_TASK)
@task
def drivelmm_o1_judge(
    data: str = HF_DATASET,
    revision: str | None = None,
    records: int = DEFAULT_RECORDS,
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    **kwargs: object,
) -> Task:
    """Meta-evaluate the `grader` judge on reference, degraded and injected responses built from DriveLMM-o1.

    Args:
        data: As for `drive_evals/drivelmm_o1`: the hub dataset, a path to the test file, or `demo`.
        revision: Hub revision to download; the resolved commit is recorded in the log.
        records: How many records to use, spread evenly over the file (each gives 13 responses to judge).
        judge_attempts: Judge calls per response when replies fail validation.
        judge_error_limit: Consecutive judge calls failing with an API error that stop the run.
    """
    route_errors_to_stderr()
    reject_unknown(drivelmm_o1_judge, kwargs)
    data, revision = text("data", data), optional_text("revision", revision)
    records = whole("records", records, 1)
    judge_attempts = whole("judge_attempts", judge_attempts, 1)
    breaker = JudgeBreaker(whole("judge_error_limit", judge_error_limit, 1))
    preflight_graders(JUDGE_NEEDED_ADVICE)
    judge = judge_as_model()
    test_file, provenance = resolve_test_file(data, revision)
    all_records = load_records(test_file)
    chosen = select_records(all_records, records)
    samples = [sample for record in chosen for sample in variant_samples(record)]
    check_task_endpoints(model_under_test=False, judges=graders())  # the responses are replayed, not generated
    return Task(
        dataset=MemoryDataset(samples, name="drivelmm_o1_judge", shuffled=False),
        model=judge,
        version=TASK_VERSION,
        solver=[stop_when_judge_down(breaker), replay_response()],
        scorer=judge_meta_scorer(judge_attempts=judge_attempts, judge_error_limit=breaker.limit, breaker=breaker),
        epochs=DEFAULT_EPOCHS,
        metadata={
            "benchmark": "drivelmm_o1_judge",
            "records": len(chosen),
            "records_in_file": len(all_records),
            "levels": {"reference": 0, **{d.name: d.level for d in DEGRADATIONS}},
            "injections": list(INJECTIONS),
            "judge_cache": False,
            DEFAULT_GRADER_KEY: DEFAULT_GRADER,
            "judges": [str(judge)],
            "judge_error_limit": breaker.limit,
            "data": provenance,
        },
        headline_metric=HeadlineMetric(scorer=SCORER_NAME, metric="rank_agreement"),
        viewer=sample_list_view("Judged responses", SCORER_NAME, [JUDGE_SCORE, JUDGED], show_target=False),
    )
