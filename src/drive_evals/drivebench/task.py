"""`drive_evals/drivebench`: DriveBench (arXiv 2501.04003), driving questions under clean, corrupted and text-only
inputs, scored as the official toolkit scores them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from drive_evals.drivebench.context import judge_descriptions, load_descriptions, resolve_description_file
from drive_evals.drivebench.dataset import HF_DATASET, HF_REVISION, load_drivebench, parse_image_size
from drive_evals.drivebench.judge import DEFAULT_GRADER, JUDGE_ATTEMPTS, graders, preflight_graders
from drive_evals.drivebench.metrics import (
    GPT,
    GPT_SCORE,
    JUDGED,
    MCQ_ACCURACY,
    MCQ_CORRECT,
    MCQ_CORRECTED,
    OFFICIAL_ITEM,
)
from drive_evals.drivebench.prompts import MODEL_MAX_TOKENS, MODEL_TEMPERATURE, MODEL_TOP_P
from drive_evals.drivebench.records import DBRecord
from drive_evals.drivebench.scorer import drivebench_scorer
from drive_evals.drivebench.settings import parse_settings
from drive_evals.drivebench.solver import official_prompt
from drive_evals.kit import (
    DEFAULT_GRADER_KEY,
    DEFAULT_JUDGE_ERROR_LIMIT,
    JUDGE_ENABLED_KEY,
    DataWarnings,
    JudgeBreaker,
    SampleColumns,
    SuiteArgs,
    SuiteTask,
    flag,
    make_task,
    optional_text,
    stop_when_judge_down,
    suite_task,
    whole,
)

DRIVEBENCH_TASK = SuiteTask("drivebench", scorer=drivebench_scorer)
TASK_VERSION = 3
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""
DESCRIPTION_KEY = "judge_description"


def description_metadata(
    parameter: str | None, warnings: DataWarnings, found: dict[str, str]
) -> Callable[[list[DBRecord], Path], list[dict[str, Any]]]:
    """Load the official object descriptions and give each record its `{DESC}` (checked before any image)."""

    def describe(records: list[DBRecord], question_file: Path) -> list[dict[str, Any]]:
        path, source = resolve_description_file(parameter, question_file)
        found.update(path=str(path), source=source)
        descriptions = judge_descriptions(records, load_descriptions(path), str(path), warnings)
        return [{DESCRIPTION_KEY: desc} for desc in descriptions]

    return describe


@suite_task(DRIVEBENCH_TASK, data=HF_DATASET, revision=HF_REVISION, blind=False)
def drivebench(
    suite: SuiteArgs,
    setting: str | list[str] = "clean",
    nuscenes_root: str | None = None,
    corruption_root: str | None = None,
    image_size: str = "224x224",
    visual_description: str | None = None,
    judge: bool = True,
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
) -> Task:
    """DriveBench: DriveLM-nuScenes questions (perception, prediction, planning, behavior) under 17 input settings.

    Args:
        data: `drive-bench/arena` (Hugging Face, default), a path to `drivebench-test.json` (or its preprocessed
            `-final` copy) or a folder holding it, or `demo` (synthetic frames shipped with the package).
        revision: Hub revision (default: the pinned commit); the resolved commit is recorded in the log.
        setting: `clean`, `text_only` (one black 224x224 image per camera, as officially), a corruption by name
            (`fog`, `biterror`, ... or its folder name `Fog`, `BitError`, ...), `corruptions` (all 15), `all`, or
            several comma-separated: each question is then asked in every setting and the settings are compared
            question by question against `clean` (or the first).
        nuscenes_root: Folder holding nuScenes `samples/CAM_*` keyframes (default: $NUSCENES_ROOT).
        corruption_root: Folder holding the authors' corrupted images, `<Corruption>/CAM_*`
            (default: $DRIVEBENCH_CORRUPTION_ROOT).
        image_size: WIDTHxHEIGHT every image is squashed to (official: 224x224) or `native` (the files as they are).
        visual_description: The official `visual_description.json` the judge quotes (default: beside the question
            file, else downloaded from the official repository at the pinned commit).
        judge: Score with the `grader` role (default judge: see docs/drivebench.md); off = MCQ accuracy only.
        judge_attempts: Judge calls per question when its reply has no `Total Score`, before it is left unjudged.
        judge_error_limit: Consecutive judge API errors that stop the run.
        shard: `i/n` runs part i of n (counted from 1), split by scene; `drive-evals merge-shards` joins the logs.
    """
    settings = parse_settings(setting)
    size = parse_image_size(image_size)
    judge = flag("judge", judge)
    breaker = JudgeBreaker(whole("judge_error_limit", judge_error_limit, 1))
    judge_attempts = whole("judge_attempts", judge_attempts, 1)
    judges = preflight_graders() if judge else []
    warnings = DataWarnings("DriveBench")
    found: dict[str, str] = {}
    describe = description_metadata(optional_text("visual_description", visual_description), warnings, found)
    built = load_drivebench(
        suite.data,
        suite.revision,
        settings,
        optional_text("nuscenes_root", nuscenes_root),
        optional_text("corruption_root", corruption_root),
        size,
        suite.shard,
        describe if judge else None,
    )
    return make_task(
        suite,
        dataset=built.dataset,
        version=TASK_VERSION,
        solver=[*([stop_when_judge_down(breaker)] if judge else []), official_prompt()],
        scorer=drivebench_scorer(
            judge=judge, judge_attempts=judge_attempts, judge_error_limit=breaker.limit, breaker=breaker
        ),
        config=GenerateConfig(temperature=MODEL_TEMPERATURE, top_p=MODEL_TOP_P, max_tokens=MODEL_MAX_TOKENS),
        metadata={
            JUDGE_ENABLED_KEY: judge,
            DEFAULT_GRADER_KEY: DEFAULT_GRADER,
            "judges": judges,
            "judge_error_limit": breaker.limit,
            "visual_description": found or None,
            **built.summary,
        },
        data_warnings=warnings,
        judges=graders() if judge else [],
        headline=GPT_SCORE if judge else MCQ_ACCURACY,
        columns=SampleColumns(
            "DriveBench questions",
            [GPT, MCQ_CORRECT, JUDGED],
            trailing=[MCQ_CORRECTED, OFFICIAL_ITEM],
            labels={GPT: "GPT score / 100", MCQ_CORRECT: "MCQ correct (official)"},
        ),
    )
