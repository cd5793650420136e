"""`drive_evals/coda_lm`: CODA-LM (WACV 2025, arXiv 2404.10595), self-driving corner cases judged as the authors
judge them."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig

from drive_evals.benchmark import DEFAULT_GRADER_KEY, JUDGE_ENABLED_KEY, SuiteTask
from drive_evals.coda_lm.dataset import HF_DATASET, load_coda_lm, parse_split, parse_tasks
from drive_evals.coda_lm.judge import grader, preflight_grader
from drive_evals.coda_lm.metrics import FINAL, GROUP_KEY, IMAGE_KEY, RATING, STRICT, TASK_KEY
from drive_evals.coda_lm.prompts import DEFAULT_JUDGE, TASKS
from drive_evals.coda_lm.scorer import coda_lm_scorer
from drive_evals.endpoints import check_task_endpoints
from drive_evals.errors import route_errors_to_stderr
from drive_evals.judge_guard import DEFAULT_JUDGE_ERROR_LIMIT, JudgeBreaker, stop_when_judge_down
from drive_evals.params import optional_text, reject_unknown, text, whole
from drive_evals.replies import generate_raw_reply
from drive_evals.shard import parse_shard
from drive_evals.started_samples import StartedSamples, record_start
from drive_evals.suite import register
from drive_evals.truncation import enable_end_of_run_warnings
from drive_evals.unanswered import CALL_TIMEOUT_SECONDS
from drive_evals.viewer import replicate_tags, sample_list_view

CODA_LM_TASK = SuiteTask("coda_lm", scorer="coda_lm_scorer")
MODEL_TEMPERATURE = 0.0
MODEL_MAX_TOKENS = 2048
"""No generation setting is official (the repository ships no inference code; protocol §6.4): temperature 0 and a
cap well above the longest reference (so a cut reply is rare and flagged `truncated`, not silently judged)."""
TASK_VERSION = 1
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@register(CODA_LM_TASK)
@task
def coda_lm(
    data: str = HF_DATASET,
    revision: str | None = None,
    split: str = "Test",
    tasks: str = ",".join(TASKS),
    images: str | None = None,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    shard: str | None = None,
    **kwargs: object,
) -> Task:
    """CODA-LM: general perception, region perception and driving suggestions on CODA2022 corner cases, rated 1-10
    by a text-only judge against the references.

    Args:
        data: `KaiChen1998/coda-lm` (the annotation JSON on Hugging Face, default), a folder holding `CODA-LM/<Split>/`,
            the llava-format parquet (`KaiChen1998/coda-lm-llava-format`, a `.parquet` file or a folder of them;
            needs `pip install 'drive_evals[parquet]'`), or `demo` (synthetic data shipped with the package).
        revision: Hub revision to download (default: main, which holds the filled Test annotations of d556763);
            the resolved commit is recorded in the log.
        split: `Test` (default, the reported split: 500 images, 1,123 regions), `Val`, `Mini` (50 images inside
            Val: never report it with Val) or `Train`.
        tasks: Comma list of `general_perception`, `region_perception`, `driving_suggestion` (default all three;
            the final score needs all three).
        images: The CODA2022 folder holding `test/images/NNNN.jpg` (default: $CODA2022_ROOT, else the data folder).
        judge_error_limit: Consecutive judge calls failing with an API error that stop the run (no further
            generation is paid for; the samples generated so far stay in the log to be judged later).
        shard: `i/n` runs part i of n (counted from 1), split by image, to run n processes in parallel;
            `drive-evals merge-shards` joins their logs into one run (docs/performance.md, Shards).
    """
    route_errors_to_stderr()
    reject_unknown(coda_lm, kwargs)
    data, revision = text("data", data), optional_text("revision", revision)
    planned, chosen_split = parse_tasks(tasks), parse_split(split)
    images = optional_text("images", images)
    breaker = JudgeBreaker(whole("judge_error_limit", judge_error_limit, 1))
    part = parse_shard(shard)
    judges = preflight_grader()
    enable_end_of_run_warnings()
    built = load_coda_lm(data, revision, chosen_split, planned, images, part)
    check_task_endpoints(model_under_test=True, judges=[grader()])
    return Task(
        dataset=built.dataset,
        version=TASK_VERSION,
        solver=[
            record_start(StartedSamples(kept=(TASK_KEY, IMAGE_KEY, GROUP_KEY))),
            stop_when_judge_down(breaker),
            generate_raw_reply(),
        ],
        scorer=coda_lm_scorer(judge_error_limit=breaker.limit, breaker=breaker),
        config=GenerateConfig(temperature=MODEL_TEMPERATURE, max_tokens=MODEL_MAX_TOKENS, timeout=CALL_TIMEOUT_SECONDS),
        metadata={
            "benchmark": "coda_lm",
            JUDGE_ENABLED_KEY: True,
            DEFAULT_GRADER_KEY: DEFAULT_JUDGE,
            "judge_error_limit": breaker.limit,
            "judges": judges,
            **built.summary,
        },
        headline_metric=HeadlineMetric(scorer=CODA_LM_TASK.scorer, metric=FINAL if len(planned) == 3 else planned[0]),
        tags=replicate_tags(),
        viewer=sample_list_view(
            "CODA-LM items", CODA_LM_TASK.scorer, [RATING, STRICT], labels={RATING: "rating / 10", STRICT: "strict"}
        ),
    )
