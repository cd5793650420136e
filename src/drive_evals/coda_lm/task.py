"""`drive_evals/coda_lm`: CODA-LM (WACV 2025, arXiv 2404.10595), self-driving corner cases judged as the authors
judge them."""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from drive_evals.coda_lm.dataset import HF_DATASET, load_coda_lm, parse_split, parse_tasks
from drive_evals.coda_lm.judge import grader, preflight_grader
from drive_evals.coda_lm.metrics import FINAL, GROUP_KEY, IMAGE_KEY, RATING, STRICT, TASK_KEY
from drive_evals.coda_lm.prompts import DEFAULT_JUDGE, TASKS
from drive_evals.coda_lm.scorer import coda_lm_scorer
from drive_evals.kit import (
    DEFAULT_GRADER_KEY,
    DEFAULT_JUDGE_ERROR_LIMIT,
    JUDGE_ENABLED_KEY,
    JudgeBreaker,
    SampleColumns,
    SuiteArgs,
    SuiteTask,
    blind_sample,
    make_task,
    optional_text,
    stop_when_judge_down,
    suite_task,
    whole,
)

CODA_LM_TASK = SuiteTask("coda_lm", scorer=coda_lm_scorer)
MODEL_TEMPERATURE = 0.0
MODEL_MAX_TOKENS = 2048
"""No generation setting is official (the repository ships no inference code; protocol §6.4): temperature 0 and a
cap well above the longest reference (so a cut reply is rare and flagged `truncated`, not silently judged)."""
TASK_VERSION = 1
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@suite_task(CODA_LM_TASK, data=HF_DATASET)
def coda_lm(
    suite: SuiteArgs,
    split: str = "Test",
    tasks: str = ",".join(TASKS),
    images: str | None = None,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
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
    """
    planned, chosen = parse_tasks(tasks), parse_split(split)
    breaker = JudgeBreaker(whole("judge_error_limit", judge_error_limit, 1))
    judges = preflight_grader()
    built = load_coda_lm(suite, chosen, planned, optional_text("images", images))
    return make_task(
        suite,
        dataset=[blind_sample(s) for s in built.samples] if suite.blind else built.samples,
        scorer=coda_lm_scorer(judge_error_limit=breaker.limit, breaker=breaker),
        version=TASK_VERSION,
        headline=FINAL if len(planned) == len(TASKS) else planned[0],
        config=GenerateConfig(temperature=MODEL_TEMPERATURE, max_tokens=MODEL_MAX_TOKENS),
        columns=SampleColumns("CODA-LM items", [RATING, STRICT], labels={RATING: "rating / 10", STRICT: "strict"}),
        solver=[stop_when_judge_down(breaker)],
        kept=(TASK_KEY, IMAGE_KEY, GROUP_KEY),
        metadata={
            JUDGE_ENABLED_KEY: True,
            DEFAULT_GRADER_KEY: DEFAULT_JUDGE,
            "judge_error_limit": breaker.limit,
            "judges": judges,
            "blind": suite.blind,
            **built.summary,
        },
        judges=[grader()],
        data_warnings=built.warnings,
    )
