"""CODA-LM as shared code sees it (`drive_evals.benchmark.Benchmark`): what the report shows, the chance answers,
the estimate's model and judge requests, the reference rows. Listed in `drive_evals._registry.BENCHMARKS`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageUser

from drive_evals.coda_lm.chance import chance_answer
from drive_evals.coda_lm.dataset import PLANNED_TASKS_KEY
from drive_evals.coda_lm.demo import write_demo
from drive_evals.coda_lm.metrics import (
    COUNTED,
    DROPPED,
    FAILED,
    FINAL,
    GROUP_KEY,
    IMAGE_KEY,
    JUDGED,
    OUT_OF_RANGE_COUNT,
    RATING,
    STRICT,
    STRICT_FINAL,
    TASK_KEY,
    UNPARSED,
    category_name,
    strict_name,
)
from drive_evals.coda_lm.outcomes import JUDGE_OUTCOME, OUTCOMES, coda_lm_outcomes
from drive_evals.coda_lm.prompts import TASKS, judge_messages
from drive_evals.coda_lm.records import SUPERCATEGORIES, UNMAPPED
from drive_evals.coda_lm.task import CODA_LM_TASK
from drive_evals.kit import (
    Benchmark,
    BreakdownSpec,
    Column,
    ConsoleLine,
    EstimateInputs,
    OfficialCount,
    Reference,
    TableSpec,
    UnitMetric,
    paper_percent,
)

JUDGE_OUTPUT_TOKENS = 512
"""The estimate's bound on one judge reply. The official call sets no `max_tokens`; the few-shot replies the judge
imitates are 60-250 tokens."""
ITEM_RATING, ITEM_STRICT = "item_rating", "item_strict"
"""Unit metrics of the breakdowns: the official and the strict mean of the items at a level."""
OFFICIAL_TABLE = "Official score (mean rating x10 over the ratings the official parser reads)"
SHORT = {"general_perception": "General", "region_perception": "Region", "driving_suggestion": "Suggestion"}


def _row(model: str, general: float, region: float, suggestion: float, final: float) -> Reference:
    values = dict(zip((*TASKS, FINAL), (general, region, suggestion, final), strict=True))
    return Reference(model, {name: paper_percent(value) for name, value in values.items()})


def model_requests(sample: Sample) -> list[list[ChatMessage]]:
    """The one user turn the task sends: the image and the official question, as the sample holds them."""
    assert not isinstance(sample.input, str) and isinstance(sample.input[0], ChatMessageUser)
    return [list(sample.input)]


def judge_request(sample: Sample) -> list[ChatMessage]:
    """The official judge request without the model's answer (the estimate adds it)."""
    meta = sample.metadata or {}
    return judge_messages(meta[TASK_KEY], meta["reference"], "")


def counts_officially(metadata: Mapping[str, Any]) -> bool:
    """An item whose rating can enter `final_score`: not a region of an unmapped category (a stop rule fixes its
    weights from this before the first call; a rating the parser cannot read is then left open, not counted 0)."""
    return metadata.get("supercategory") != UNMAPPED


def levels(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Breakdown levels: the task, and a region's super-category and raw category."""
    found = {"task": metadata.get(TASK_KEY), "object category": metadata.get(GROUP_KEY)}
    found["raw category"] = metadata.get("category_name")
    return {dimension: level for dimension, level in found.items() if isinstance(level, str)}


OFFICIAL_ITEMS: dict[str, dict[str, int]] = {
    "Test": {"general_perception": 500, "region_perception": 1_123, "driving_suggestion": 500},
    "Val": {"general_perception": 4_384, "driving_suggestion": 4_384},
    "Mini": {"general_perception": 50, "driving_suggestion": 50},
    "Train": {"general_perception": 4_884, "driving_suggestion": 4_884},
}
"""Items of each task per split (docs/coda_lm.md): one per image for general perception and suggestions (the
official README's image counts); regions are counted only for Test (the other splits' counts are inferred)."""


def official_counts(metadata: Mapping[str, Any]) -> list[OfficialCount]:
    """The official items of each task the run selected, in its split (the loader's summary counts them all)."""
    official = OFFICIAL_ITEMS.get(str(metadata.get("split")), {})
    if "items" not in metadata:  # not a loader's summary
        return []
    items = metadata["items"]
    planned = metadata.get(PLANNED_TASKS_KEY) or list(items)
    return [
        OfficialCount(f"{task} items", int(items.get(task, 0)), (official[task],))
        for task in planned
        if task in official
    ]


CODA_LM = Benchmark(
    task=CODA_LM_TASK,
    title="CODA-LM",
    cluster_key=IMAGE_KEY,
    group_key=TASK_KEY,
    headline=FINAL,
    unit_metrics=(
        UnitMetric(FINAL, RATING, grouped=True, counted_key=COUNTED, continuous=True, judged=True),
        *(UnitMetric(task, RATING, subset=task, counted_key=COUNTED, continuous=True, judged=True) for task in TASKS),
        UnitMetric(STRICT_FINAL, STRICT, grouped=True, continuous=True, judged=True),
        *(UnitMetric(strict_name(task), STRICT, subset=task, continuous=True, judged=True) for task in TASKS),
        UnitMetric(ITEM_RATING, RATING, counted_key=COUNTED, stderr_logged=False, continuous=True, judged=True),
        UnitMetric(ITEM_STRICT, STRICT, stderr_logged=False, continuous=True, judged=True),
    ),
    tables=(
        TableSpec(
            OFFICIAL_TABLE,
            (Column(FINAL, "Final"), *(Column(task, SHORT[task]) for task in TASKS)),
        ),
        TableSpec(
            "Strict score (every planned item; no rating or one outside 1-10 counts 0)",
            (Column(STRICT_FINAL, "Final"), *(Column(strict_name(task), SHORT[task]) for task in TASKS)),
        ),
        TableSpec(
            "Items the official mean drops",
            (
                Column(DROPPED, "dropped", "count"),
                Column(FAILED, "judge failed", "count"),
                Column(UNPARSED, "unreadable rating", "count"),
                Column(OUT_OF_RANGE_COUNT, "kept, outside 1-10", "count"),
            ),
        ),
        TableSpec(
            "Region perception by object category (official means)",
            tuple(Column(category_name(group), group, "rate") for group in SUPERCATEGORIES),
        ),
    ),
    plots=(OFFICIAL_TABLE,),
    paired=(FINAL, *TASKS, STRICT_FINAL),
    comparability=("split", "tasks"),
    reference_source=(
        "NexusAD README L106-111 (W-CODA 2024 track, CODA-LM Test); GPT-4V and CODA-VLM agree with the paper's "
        "abstract (+21.42 region over GPT-4V); judge and prompts behind them unverified"
    ),
    references=(
        _row("GPT-4V (paper, via NexusAD README)", 57.50, 56.26, 63.30, 59.02),
        _row("CODA-VLM (paper, via NexusAD README)", 55.04, 77.68, 58.14, 63.62),
        _row("InternVL-2.0-26B (NexusAD's baseline, unverified)", 43.39, 64.91, 48.04, 52.11),
        _row("NexusAD (W-CODA 3rd place, unverified)", 57.58, 84.31, 65.02, 68.97),
    ),
    breakdown=BreakdownSpec(
        levels=levels,
        outcomes=coda_lm_outcomes,
        dimensions=("task", "object category", "raw category"),
        outcome_dimensions=(JUDGE_OUTCOME,),
        metrics=(ITEM_RATING, ITEM_STRICT),
        paired=(ITEM_RATING, ITEM_STRICT),
        level_order={"task": TASKS, "object category": tuple(SUPERCATEGORIES), JUDGE_OUTCOME: OUTCOMES},
    ),
    missing_values={JUDGED: 0.0, COUNTED: 0.0, STRICT: 0.0},
    stop_eligible=counts_officially,
    official=official_counts,
    console=(
        ConsoleLine(
            FINAL, "official final score, mean of the three tasks' mean ratings x10: the headline", judged=True
        ),
        ConsoleLine(STRICT_FINAL, "strict: every planned item, unrated ones counted 0", judged=True),
    ),
    planned_groups_key=PLANNED_TASKS_KEY,
    judged=True,
    demo=write_demo,
    chance=chance_answer,
    estimate=EstimateInputs(requests=model_requests, judge_request=judge_request, judge_max_tokens=JUDGE_OUTPUT_TOKENS),
)
