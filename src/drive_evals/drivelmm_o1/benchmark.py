"""DriveLMM-o1 as shared code sees it (`drive_evals.benchmark.Benchmark`): what the report shows, the chance
answers and verdicts, the estimate's model and judge requests, the manifest's file list, the paper's Table 1.
Listed in `drive_evals._registry.BENCHMARKS`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from drive_evals.benchmark import (
    Benchmark,
    BreakdownSpec,
    Column,
    ConsoleLine,
    EstimateInputs,
    ManifestWalk,
    OfficialCount,
    Reference,
    TableSpec,
    UnitMetric,
    judge_score,
    paper_percent,
)
from drive_evals.drivelmm_o1 import breakdown
from drive_evals.drivelmm_o1.chance import chance_answer, chance_verdict
from drive_evals.drivelmm_o1.dataset import lidar_relative
from drive_evals.drivelmm_o1.judge_meta.task import JUDGE_META_TASK
from drive_evals.drivelmm_o1.metrics import (
    CRITERION_NAMES,
    JUDGE_COVERAGE,
    JUDGE_OVERALL,
    JUDGED,
    MCQ_ACCURACY,
    MCQ_ACCURACY_LENIENT,
    MCQ_CORRECT,
    MCQ_COUNTED,
    MCQ_ITEMS,
    NONE_QUIRK_COUNT,
    REASONING,
)
from drive_evals.drivelmm_o1.outcomes import DRIVELMM_O1_OUTCOMES, JUDGE_OUTCOME, MCQ_OUTCOME, drivelmm_o1_outcomes
from drive_evals.drivelmm_o1.prompts import CRITERIA, JUDGE_MAX_TOKENS, JUDGE_SYSTEM_PROMPT, judge_user_message
from drive_evals.drivelmm_o1.records import load_records
from drive_evals.drivelmm_o1.solver import input_parts, official_message
from drive_evals.drivelmm_o1.task import DRIVELMM_O1_TASK
from drive_evals.errors import ParameterError

SHORT_CRITERIA = {
    "Faithfulness-Step": "Faithfulness",
    "Informativeness-Step": "Informativeness",
    "Risk Assessment Accuracy": "Risk",
    "Traffic Rule Adherence": "Rule",
    "Scene Awareness & Object Understanding": "Scene",
    "Repetition-Token": "Repetition",
    "Hallucination": "Hallucination",
    "Semantic Coverage-Step": "Coverage",
    "Commonsense": "Commonsense",
    "Missing Step": "Missing step",
    "Relevance": "Relevance",
    "Missing Details": "Missing details",
}
"""Short column labels; Risk, Rule, Scene, Relevance and Missing details are the paper's Table 1 headers."""
CRITERION_LABELS = {CRITERION_NAMES[criterion]: SHORT_CRITERIA[criterion] for criterion in CRITERIA}
"""Metric name -> label, in rubric order (a KeyError here means the rubric changed)."""

HEADLINE_TABLE = "Headline"
CRITERIA_TABLE = "Rubric criteria"

TABLE1_COLUMNS = (
    "risk_assessment_accuracy",
    "traffic_rule_adherence",
    "scene_awareness_object_understanding",
    "relevance",
    "missing_details",
    JUDGE_OVERALL,
    MCQ_ACCURACY,
)
"""Our metrics for the paper's Table 1 columns: Risk, Rule, Scene, Relevance, Missing Details, Overall, MCQ."""


def _table1(model: str, *percent: float) -> Reference:
    return Reference(model, dict(zip(TABLE1_COLUMNS, map(paper_percent, percent), strict=True)))


def model_requests(sample: Sample) -> list[list[ChatMessage]]:
    """One request: the official message the `official_prompt` solver builds from the sample's input."""
    if isinstance(sample.input, str) or len(sample.input) != 1 or not isinstance(sample.input[0], ChatMessageUser):
        raise ParameterError(f"sample {sample.id}: expected one user message")
    return [[official_message(*input_parts(sample.input[0]))]]


def judge_request(sample: Sample) -> list[ChatMessage]:
    """The judge's request without the response (text only, as the official pipeline)."""
    meta = sample.metadata or {}
    user = judge_user_message(meta["question"], meta["steps"], meta["final_answer"], "")
    return [ChatMessageSystem(content=JUDGE_SYSTEM_PROMPT), ChatMessageUser(content=user)]


def nuscenes_files(test_file: Path) -> list[str]:
    """The nuScenes files a DriveLMM-o1 test file names: six cameras per record and the LiDAR sweeps it gives."""
    names: list[str] = []
    for record in load_records(test_file):
        names.extend(record.images)
        if record.lidar is not None:
            names.append(lidar_relative(record.lidar))
    return list(dict.fromkeys(names))


def mcq_meaning(metrics: Mapping[str, float], metadata: Mapping[str, Any]) -> str:
    """The MCQ line of the end-of-run headline: the item count, the lenient reading and the `none == none` quirk."""
    lenient = metrics.get(MCQ_ACCURACY_LENIENT)
    quirk = metrics.get(NONE_QUIRK_COUNT, 0.0)
    quirks = f" ({quirk:g} right only by none == none)" if quirk else ""
    shown = "—" if lenient is None or math.isnan(lenient) else f"{100 * lenient:.1f}"  # as the report prints it
    return f"{metrics.get(MCQ_ITEMS, 0.0):g} items; lenient reading {shown}{quirks}"


OFFICIAL_QUESTIONS = (4_633, 4_634)
"""The test file's questions: 4,633 in the paper, 4,634 in a third-party count of the released file."""
OFFICIAL_FRAMES = 539


def official_counts(metadata: Mapping[str, Any]) -> list[OfficialCount]:
    """The official test file's questions and frames (the loader's summary of the whole file)."""
    official = {"records": ("questions", OFFICIAL_QUESTIONS), "frames": ("frames", (OFFICIAL_FRAMES,))}
    return [OfficialCount(what, int(metadata[key]), n) for key, (what, n) in official.items() if key in metadata]


DRIVELMM_O1 = Benchmark(
    task=DRIVELMM_O1_TASK,
    meta_tasks=(JUDGE_META_TASK,),
    title="DriveLMM-o1",
    cluster_key="frame",
    official=official_counts,
    group_key=None,
    headline=REASONING,
    unit_metrics=(
        judge_score(REASONING),
        judge_score(JUDGE_OVERALL),
        UnitMetric(MCQ_ACCURACY, MCQ_CORRECT, counted_key=MCQ_COUNTED),
        *(judge_score(name) for name in CRITERION_LABELS),
    ),
    tables=(
        TableSpec(
            HEADLINE_TABLE,
            (
                Column(REASONING, REASONING),
                Column(JUDGE_OVERALL, JUDGE_OVERALL),
                Column(MCQ_ACCURACY, MCQ_ACCURACY),
                Column(JUDGE_COVERAGE, JUDGE_COVERAGE, "rate"),
                Column(MCQ_ITEMS, MCQ_ITEMS, "count"),
            ),
        ),
        TableSpec(CRITERIA_TABLE, tuple(Column(name, label) for name, label in CRITERION_LABELS.items())),
    ),
    paired=(REASONING, MCQ_ACCURACY),
    missing_values={JUDGED: 0.0},
    comparability=("image_mode", "cell_size", "lidar", "lidar_range_m", "lidar_resolution_m"),
    judged=True,
    reference_source="paper Table 1 (arXiv 2503.10621); its Overall Reasoning is the judge's own overall",
    references=(
        _table1("GPT-4o", 71.32, 80.72, 72.96, 76.65, 71.43, 72.52, 57.84),
        _table1("Qwen-2.5-VL-7B", 46.44, 60.45, 51.02, 50.15, 52.19, 51.77, 37.81),
        _table1("Ovis1.5-Gemma2-9B", 51.34, 66.36, 54.74, 55.72, 55.74, 55.62, 48.85),
        _table1("Mulberry-7B", 51.89, 63.66, 56.68, 57.27, 57.45, 57.65, 52.86),
        _table1("LLaVA-CoT", 57.62, 69.01, 60.84, 62.72, 60.67, 61.41, 49.27),
        _table1("LlamaV-o1", 60.20, 73.52, 62.67, 64.66, 63.41, 63.13, 50.02),
        _table1("InternVL2.5-8B", 69.02, 78.43, 71.52, 75.80, 70.54, 71.62, 54.87),
        _table1("DriveLMM-o1 (InternVL2.5-8B + LoRA)", 73.01, 81.56, 75.39, 79.42, 74.49, 75.24, 62.36),
    ),
    plots=(HEADLINE_TABLE, CRITERIA_TABLE),
    breakdown=BreakdownSpec(
        levels=breakdown.item_levels,
        outcomes=drivelmm_o1_outcomes,
        dimensions=breakdown.DIMENSIONS,
        outcome_dimensions=(JUDGE_OUTCOME, MCQ_OUTCOME),
        metrics=(REASONING, MCQ_ACCURACY),
        paired=(REASONING, MCQ_ACCURACY),
        level_order={JUDGE_OUTCOME: DRIVELMM_O1_OUTCOMES, MCQ_OUTCOME: DRIVELMM_O1_OUTCOMES},
    ),
    console=(
        ConsoleLine(REASONING, "mean of the judge's 12 criteria: the headline", judged=True),
        ConsoleLine(JUDGE_OVERALL, "the judge's own Overall: the paper's Table 1 number", judged=True),
        ConsoleLine(MCQ_ACCURACY, mcq_meaning),
    ),
    chance=chance_answer,
    chance_judge=chance_verdict,
    estimate=EstimateInputs(requests=model_requests, judge_request=judge_request, judge_max_tokens=JUDGE_MAX_TOKENS),
    manifest=ManifestWalk(
        option="--drivelmm-o1",
        metavar="TEST_JSON",
        help="list only the nuScenes files this DriveLMM-o1 test file names (cameras and LiDAR)",
        files=nuscenes_files,
    ),
)
