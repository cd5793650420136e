"""MME-RealWorld AD as shared code sees it (`drive_evals.benchmark.Benchmark`): the official AD perception and
reasoning accuracies beside the paper's cells, the corrected reading and the parser rates, breakdowns by task and
sub-category clustered by image, the chance answers and the estimate's requests. Listed in the registry.

Every reported number is a mean over questions (the official ones micro-averaged, as the paper), so the report
computes their intervals from the questions, clustered by image; the task logs none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage

from drive_evals.kit import (
    Benchmark,
    BreakdownSpec,
    Column,
    ConsoleLine,
    EstimateInputs,
    OfficialCount,
    ParameterError,
    Reference,
    TableSpec,
    UnitMetric,
    paper_percent,
)
from drive_evals.mme_realworld_ad.chance import answer as chance_answer
from drive_evals.mme_realworld_ad.dataset import IMAGE_KEY, TASK_KEY
from drive_evals.mme_realworld_ad.demo import write_demo
from drive_evals.mme_realworld_ad.metrics import (
    CORRECTED_KEY,
    CORRECTED_SUFFIX,
    MISSING_VALUE,
    OFFICIAL_KEY,
    OVERALL,
    OVERALL_CORRECTED,
    PERCEPTION_METRIC,
    RATES,
    REASONING_METRIC,
)
from drive_evals.mme_realworld_ad.outcomes import (
    DIMENSIONS,
    OUTCOME,
    OUTCOMES,
    READING_LEVELS,
    READINGS,
    levels,
    outcomes,
)
from drive_evals.mme_realworld_ad.task import MME_AD_TASK
from drive_evals.mme_realworld_ad.taxonomy import PERCEPTION, REASONING, SUBCATEGORIES, TASKS, expected_counts

# model -> (EN AD perception, EN AD reasoning), README images asset/results_{perception,reasoning}.png (protocol 5)
PAPER_EN = {
    "InternVL-2": (35.46, 29.84), "Claude 3.5 Sonnet": (40.77, 31.92), "InternLM-XComposer2.5": (33.63, 29.99),
    "InternVL-Chat-V1-5": (31.42, 28.94), "Mini-Gemini-34B-HD": (32.70, 22.84), "MiniCPM-V 2.5": (34.15, 31.03),
    "Cambrian-1-34B": (33.61, 16.07), "GPT-4o": (22.43, 26.41), "CogVLM2-llama3-Chat": (30.22, 31.18),
    "Cambrian-1-8B": (38.52, 30.73), "SliME-8B": (33.66, 31.55), "Gemini-1.5-pro": (26.64, 19.20),
    "GPT-4o-mini": (24.18, 26.79), "Monkey": (29.67, 33.04), "mPLUG-DocOwl 1.5": (28.28, 26.04),
    "DeepSeek-VL": (33.39, 27.31), "SliME-13B": (27.16, 30.80), "Mini-Gemini-7B-HD": (24.81, 23.29),
    "YI-VL-34B": (28.31, 31.55), "LLaVA-Next (Llama3-8B)": (18.66, 30.73), "LLaVA-Next (Qwen-72B)": (17.98, 29.69),
    "LLaVA1.5-13B": (26.12, 24.78), "ShareGPT4V-13B": (26.12, 24.55), "MiniGPT-v2": (25.96, 23.66),
    "ShareGPT4V-7B": (26.04, 24.18), "LLaVA1.5-7B": (26.04, 24.18), "Qwen-VL-Chat": (15.08, 24.63),
    "TextMonkey": (14.26, 20.01),
}  # fmt: skip
"""The paper's AD cells of its Perception and Reasoning tables (EN), in its row order. The reasoning header says
1334 items; the cells are k/1344 (protocol 3.5). The CN cells are in docs/mme_realworld_ad.md (no CN run is
compared with the EN rows)."""
REFERENCE_MODELS = ("GPT-4o", "GPT-4o-mini", "Claude 3.5 Sonnet", "Gemini-1.5-pro", "InternVL-2", "Cambrian-1-8B",
                    "LLaVA1.5-7B", "Qwen-VL-Chat")  # fmt: skip
"""The rows the report shows: the commonly run models and the best open one, few enough that the official table is
shown unfolded beside up to four runs (all 28 rows are in docs/mme_realworld_ad.md)."""
PAPER_ROWS = tuple(
    Reference(
        model,
        {PERCEPTION_METRIC: paper_percent(PAPER_EN[model][0]), REASONING_METRIC: paper_percent(PAPER_EN[model][1])},
    )
    for model in REFERENCE_MODELS
)
REFERENCE_SOURCE = "paper (arXiv 2408.13257) AD cells of the EN Perception and Reasoning tables, as the README shows"

PERCEPTION_CORRECTED, REASONING_CORRECTED = PERCEPTION_METRIC + CORRECTED_SUFFIX, REASONING_METRIC + CORRECTED_SUFFIX
UNIT_METRICS = (
    UnitMetric(PERCEPTION_METRIC, OFFICIAL_KEY, subset=PERCEPTION, stderr_logged=False),
    UnitMetric(REASONING_METRIC, OFFICIAL_KEY, subset=REASONING, stderr_logged=False),
    UnitMetric(PERCEPTION_CORRECTED, CORRECTED_KEY, subset=PERCEPTION, stderr_logged=False),
    UnitMetric(REASONING_CORRECTED, CORRECTED_KEY, subset=REASONING, stderr_logged=False),
    UnitMetric(OVERALL, OFFICIAL_KEY, stderr_logged=False),
    UnitMetric(OVERALL_CORRECTED, CORRECTED_KEY, stderr_logged=False),
    *(UnitMetric(name, key, stderr_logged=False) for name, key in RATES.items()),
)
RATE_LABELS = ("no letter (official)", "empty, read as A", "read as E", "no letter (corrected)")
OFFICIAL_TABLE = "Official reading"
TABLES = (
    TableSpec(OFFICIAL_TABLE, (
        Column(PERCEPTION_METRIC, "AD perception"), Column(REASONING_METRIC, "AD reasoning"),
        Column(OVERALL, "AD overall (not a paper number)"))),
    TableSpec("Corrected reading", (
        Column(PERCEPTION_CORRECTED, "AD perception"), Column(REASONING_CORRECTED, "AD reasoning"),
        Column(OVERALL_CORRECTED, "AD overall"))),
    TableSpec("What the parser decides", tuple(map(Column, RATES, RATE_LABELS))),
)  # fmt: skip
COMPARABILITY = ("edition", "subsets", "prompt")


def input_requests(sample: Sample) -> list[list[ChatMessage]]:
    """One request: the sample's input exactly as the task sends it (the image, then the question)."""
    if isinstance(sample.input, str):
        raise ParameterError(f"sample {sample.id}: expected a multimodal input")
    return [list(sample.input)]


def official_counts(metadata: Mapping[str, Any]) -> list[OfficialCount]:
    """The official items of each task whose every sub-category the run selected, in its edition (EN 3,660 and
    1,344, as the loader's own count warning; per sub-category counts rest on a third party's and are not checked)."""
    edition = metadata.get("edition")
    if edition not in SUBCATEGORIES or "items" not in metadata:
        return []
    selected = set(metadata.get("subsets") or [])
    return [
        OfficialCount(f"{task} items", int(metadata["items"].get(task, 0)), (expected,))
        for task, expected in expected_counts(edition).items()
        if all(sub.name in selected for sub in SUBCATEGORIES[edition] if sub.task == task)
    ]


MME_REALWORLD_AD = Benchmark(
    task=MME_AD_TASK,
    title="MME-RealWorld AD",
    cluster_key=IMAGE_KEY,
    group_key=TASK_KEY,
    headline=PERCEPTION_METRIC,
    unit_metrics=UNIT_METRICS,
    tables=TABLES,
    paired=(PERCEPTION_METRIC, REASONING_METRIC, PERCEPTION_CORRECTED, REASONING_CORRECTED),
    comparability=COMPARABILITY,
    missing_values=MISSING_VALUE,
    reference_source=REFERENCE_SOURCE,
    references=PAPER_ROWS,
    plots=(OFFICIAL_TABLE,),
    breakdown=BreakdownSpec(
        levels=levels,
        outcomes=outcomes,
        dimensions=DIMENSIONS,
        outcome_dimensions=(OUTCOME, READINGS),
        metrics=(OVERALL, OVERALL_CORRECTED),
        paired=(OVERALL,),
        level_order={TASK_KEY: TASKS, OUTCOME: OUTCOMES, READINGS: READING_LEVELS},
    ),
    console=(
        ConsoleLine(PERCEPTION_METRIC, "AD perception, official reading (the paper's cell): the headline"),
        ConsoleLine(REASONING_METRIC, "AD reasoning, official reading (the paper's cell)"),
        ConsoleLine(PERCEPTION_CORRECTED, "AD perception, corrected reading (not the paper's)"),
        ConsoleLine(REASONING_CORRECTED, "AD reasoning, corrected reading (not the paper's)"),
        ConsoleLine("unparsed_rate", "replies the official reading finds no letter in (scored wrong)"),
        ConsoleLine("empty_as_a_rate", "empty replies, which the official reading takes as A"),
    ),
    chance=chance_answer,
    estimate=EstimateInputs(requests=input_requests),
    demo=write_demo,
    official=official_counts,
)
