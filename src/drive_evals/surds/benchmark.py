"""SURDS as shared code sees it (`drive_evals.benchmark.Benchmark`): what the report shows, the chance answers,
the estimate's requests, the paper's numbers. Listed in `drive_evals._registry.BENCHMARKS`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.log import EvalSampleSummary
from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText

from drive_evals.benchmark import (
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
from drive_evals.errors import ParameterError
from drive_evals.surds import breakdown
from drive_evals.surds.chance import chance_answer
from drive_evals.surds.metrics import OVERALL, SCORE_KEY, VALID_KEY, diagnostics
from drive_evals.surds.outcomes import OUTCOME, SURDS_OUTCOMES, surds_outcomes
from drive_evals.surds.task import SURDS_TASK
from drive_evals.surds.units import CENTERNESS_SUBSET, SUBSETS


def surds_diagnostics(samples: list[EvalSampleSummary]) -> dict[str, float]:
    """`surds.metrics.diagnostics` over every unit-epoch: scored ones, and errored ones as invalid and 0."""
    rows: list[tuple[str, dict[str, float], dict[str, object]]] = []
    for sample in samples:
        subset = str((sample.metadata or {}).get("subset"))
        score = (sample.scores or {}).get(SURDS_TASK.scorer_name)
        if score is not None and isinstance(score.value, dict):
            values = {k: float(v) for k, v in score.value.items() if isinstance(v, (int, float))}
            rows.append((subset, values, score.metadata or {}))
        elif sample.error is not None:
            rows.append((subset, {SCORE_KEY: 0.0, VALID_KEY: 0.0}, {}))
    return diagnostics(rows)


def surds_requests(sample: Sample) -> list[list[ChatMessage]]:
    """One request per prompt of the unit, each with the unit's image (as `answer_each_prompt` sends them)."""
    if isinstance(sample.input, str):
        raise ParameterError(f"sample {sample.id}: expected a multimodal input")
    image = next(
        part
        for message in sample.input
        if not isinstance(message.content, str)
        for part in message.content
        if isinstance(part, ContentImage)
    )
    prompts = (sample.metadata or {})["prompts"]
    return [[ChatMessageUser(content=[ContentText(text=prompt), image])] for prompt in prompts]


def headline_meaning(metrics: Mapping[str, float], metadata: Mapping[str, Any]) -> str:
    """What `overall` is in the end-of-run headline: the equal mean of the subsets the run planned."""
    return f"the equal mean of the {len(metadata.get(PLANNED_SUBSETS) or SUBSETS)} subsets: the headline"


OFFICIAL_RECORDS = 5_919
"""Metadata lines (images) of the official validation split (docs/surds.md)."""
OFFICIAL_UNITS = 925
"""Units of each subset in the official construction (5,550 in all, 9,250 prompts: docs/surds.md)."""


def official_counts(metadata: Mapping[str, Any]) -> list[OfficialCount]:
    """The official set's records, and 925 units in each subset the run selected (the loader's summary)."""
    records = [OfficialCount("records", int(metadata["records"]), (OFFICIAL_RECORDS,))] if "records" in metadata else []
    units = metadata.get("units") or {}
    return [*records, *(OfficialCount(f"{subset} units", int(n), (OFFICIAL_UNITS,)) for subset, n in units.items())]


PLANNED_SUBSETS = "subsets"
"""Task metadata key: the subsets the run planned (`-T subsets`)."""
SURDS_SCORES = "Scores"
SURDS = Benchmark(
    task=SURDS_TASK,
    title="SURDS",
    cluster_key="image",
    group_key="subset",
    headline=OVERALL,
    unit_metrics=(
        UnitMetric(OVERALL, SCORE_KEY, grouped=True),
        *(
            UnitMetric(subset, SCORE_KEY, subset=subset, stderr_logged=False, continuous=subset == CENTERNESS_SUBSET)
            for subset in SUBSETS
        ),
    ),
    tables=(
        TableSpec(SURDS_SCORES, (Column(OVERALL, OVERALL), *(Column(subset, subset) for subset in SUBSETS))),
        TableSpec("Valid-response rate", tuple(Column(f"{s}_valid_rate", s, "rate") for s in SUBSETS)),
    ),
    paired=(OVERALL, *SUBSETS),
    comparability=("record_order", "subsets"),
    missing_values={SCORE_KEY: 0.0, VALID_KEY: 0.0},
    diagnostics=surds_diagnostics,
    reference_source="paper abstract (arXiv 2411.13112), overall x100",
    references=(
        Reference("GPT-4o", {OVERALL: paper_percent(13.30)}),
        Reference("Gemini-2.0-flash", {OVERALL: paper_percent(35.71)}),
        Reference("SURDS authors' GRPO model", {OVERALL: paper_percent(40.80)}),
    ),
    plots=(SURDS_SCORES,),
    breakdown=BreakdownSpec(
        levels=breakdown.sample_levels,
        outcomes=surds_outcomes,
        dimensions=breakdown.DIMENSIONS,
        outcome_dimensions=(OUTCOME,),
        metrics=(OVERALL, *SUBSETS),
        paired=(OVERALL,),
        level_order={**{d: breakdown.level_order(d) for d in breakdown.DIMENSIONS}, OUTCOME: SURDS_OUTCOMES},
    ),
    console=(ConsoleLine(OVERALL, headline_meaning),),
    planned_groups_key=PLANNED_SUBSETS,
    official=official_counts,
    chance=chance_answer,
    estimate=EstimateInputs(requests=surds_requests),
)
