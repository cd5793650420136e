"""`drive_evals/drivelmm_o1`: DriveLMM-o1 (arXiv 2503.10621), step-by-step driving reasoning over six cameras."""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from drive_evals.drivelmm_o1.dataset import (
    ImageMode,
    ImageOptions,
    load_drivelmm_o1,
    parse_cell_size,
    parse_image_mode,
)
from drive_evals.drivelmm_o1.images import DEFAULT_CELL_SIZE
from drive_evals.drivelmm_o1.judge import DEFAULT_GRADER, JUDGE_ATTEMPTS, graders, preflight_graders
from drive_evals.drivelmm_o1.lidar import DEFAULT_RANGE_M, DEFAULT_RESOLUTION_M, check_lidar
from drive_evals.drivelmm_o1.metrics import (
    CRITERION_NAMES,
    JUDGE_OUT_OF_RANGE,
    JUDGE_OVERALL,
    JUDGED,
    MCQ_ACCURACY,
    MCQ_CORRECT,
    MCQ_COUNTED,
    MCQ_LENIENT,
    NONE_QUIRK,
    REASONING,
)
from drive_evals.drivelmm_o1.prompts import MODEL_MAX_TOKENS, MODEL_TEMPERATURE
from drive_evals.drivelmm_o1.scorer import drivelmm_o1_scorer
from drive_evals.drivelmm_o1.solver import official_prompt
from drive_evals.kit import (
    DEFAULT_GRADER_KEY,
    DEFAULT_JUDGE_ERROR_LIMIT,
    JUDGE_ENABLED_KEY,
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

HF_DATASET = "ayeshaishaq/DriveLMMo1"
DRIVELMM_O1_TASK = SuiteTask("drivelmm_o1", scorer=drivelmm_o1_scorer)
TASK_VERSION = 6
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@suite_task(DRIVELMM_O1_TASK, data=HF_DATASET)
def drivelmm_o1(
    suite: SuiteArgs,
    nuscenes_root: str | None = None,
    image_mode: ImageMode = "grid",
    cell_size: str = f"{DEFAULT_CELL_SIZE[0]}x{DEFAULT_CELL_SIZE[1]}",
    lidar: bool = False,
    lidar_range_m: float = DEFAULT_RANGE_M,
    lidar_resolution_m: float = DEFAULT_RESOLUTION_M,
    judge: bool = True,
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
) -> Task:
    """DriveLMM-o1: 4,633 questions over 539 frames; a rubric judge scores the reasoning, MCQ accuracy the answer.

    Args:
        data: `ayeshaishaq/DriveLMMo1` (Hugging Face, default), a path to `DriveLMMo1_TEST.json` or a folder
            holding it, or `demo` (synthetic frames shipped with the package).
        revision: Hub revision to download; the resolved commit is recorded in the log.
        nuscenes_root: Folder holding nuScenes `samples/CAM_*` keyframes (default: $NUSCENES_ROOT).
        image_mode: `grid` (official: one 2x3 stitched image per frame, top CAM_FRONT_LEFT, CAM_FRONT,
            CAM_FRONT_RIGHT, bottom CAM_BACK_RIGHT, CAM_BACK, CAM_BACK_LEFT) or `views` (six images, each preceded
            by its camera name).
        cell_size: Size of one camera view in the grid, WIDTHxHEIGHT (the original stitching was never released;
            third parties use 800x450 or 1600x900, both 8:3 overall).
        lidar: Add a bird's-eye view of the LIDAR_TOP sweep as one more image (not part of the official protocol).
        lidar_range_m: Metres shown around the ego vehicle in the LiDAR view, forward up (the defaults give 1000x1000
            pixels).
        lidar_resolution_m: Metres per pixel in the LiDAR view.
        judge: Score reasoning with the `grader` model role (default judge: see README); off = MCQ accuracy only.
        judge_attempts: Judge calls per sample when replies fail validation, before the sample is left unjudged.
        judge_error_limit: Consecutive judge calls failing with an API error that stop the run (no further
            generation is paid for; the samples generated so far stay in the log to be judged later).
        blind: The no-vision control: every image replaced by uniform grey of the same size; the same sample ids,
            so a blind run pairs with a normal one (see README, Validity diagnostics).
        shard: `i/n` runs part i of n (counted from 1: `1/2` and `2/2`), split by frame, to run n processes in
            parallel; `drive-evals merge-shards` joins their logs into one run (docs/performance.md, Shards).
    """
    options = ImageOptions(
        parse_image_mode(image_mode),
        parse_cell_size(cell_size),
        flag("lidar", lidar),
        *check_lidar(lidar_range_m, lidar_resolution_m),
        suite.blind,
    )
    judge = flag("judge", judge)
    breaker = JudgeBreaker(whole("judge_error_limit", judge_error_limit, 1))
    judge_attempts = whole("judge_attempts", judge_attempts, 1)
    nuscenes_root = optional_text("nuscenes_root", nuscenes_root)
    judges = preflight_graders() if judge else []
    built = load_drivelmm_o1(suite.data, suite.revision, nuscenes_root, options, suite.shard)
    return make_task(
        suite,
        dataset=built.dataset,
        version=TASK_VERSION,
        solver=[*([stop_when_judge_down(breaker)] if judge else []), official_prompt()],
        scorer=drivelmm_o1_scorer(
            judge=judge, judge_attempts=judge_attempts, judge_error_limit=breaker.limit, breaker=breaker
        ),
        config=GenerateConfig(temperature=MODEL_TEMPERATURE, max_tokens=MODEL_MAX_TOKENS),
        metadata={
            JUDGE_ENABLED_KEY: judge,
            DEFAULT_GRADER_KEY: DEFAULT_GRADER,
            "judge_error_limit": breaker.limit,
            "judges": judges,
            **built.summary,
        },
        judges=graders() if judge else [],
        # Without the judge there is no reasoning score: MCQ accuracy, the one official number left, is the headline.
        headline=REASONING if judge else MCQ_ACCURACY,
        columns=SampleColumns(
            "DriveLMM-o1 questions",
            [REASONING, MCQ_CORRECT, JUDGED],
            trailing=[
                JUDGE_OVERALL,
                *CRITERION_NAMES.values(),
                MCQ_COUNTED,
                MCQ_LENIENT,
                NONE_QUIRK,
                JUDGE_OUT_OF_RANGE,
            ],
            labels={REASONING: "reasoning score", MCQ_CORRECT: "MCQ correct"},
        ),
    )
