"""A SURDS pair unit whose completions were lost (`eval-retry` recovered it without its store) is unscored,
left out of every score, and counted in `lost_units`."""

from __future__ import annotations

import asyncio
import math

import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target, mean_score
from inspect_ai.solver import TaskState

from drive_evals.data import demo_dir
from drive_evals.surds.metrics import surds_lost, surds_scores, surds_validity
from drive_evals.surds.records import load_metadata
from drive_evals.surds.scorer import surds_scorer
from drive_evals.surds.solver import COMPLETIONS_KEY
from drive_evals.surds.units import Unit, build_units

UNITS = build_units(load_metadata(demo_dir("surds")))


def state(unit: Unit, completions: list[str] | None) -> TaskState:
    metadata = {
        "subset": unit.subset,
        "unit_id": unit.unit_id,
        "image": unit.image,
        "prompts": list(unit.prompts),
        "targets": list(unit.targets),
        "options": list(unit.options),
        "bbox": list(unit.bbox) if unit.bbox is not None else None,
    }
    return TaskState(
        model=ModelName("test/lost"),
        sample_id=unit.unit_id,
        epoch=1,
        input=unit.prompts[0],
        messages=[],
        target=Target(list(unit.targets)),
        output=ModelOutput.from_content("test/lost", (completions or [""])[-1]),
        metadata=metadata,
        store={COMPLETIONS_KEY: completions} if completions is not None else {},
    )


def scored(unit: Unit, completions: list[str] | None) -> Score:
    return asyncio.run(surds_scorer()(state(unit, completions), Target(list(unit.targets))))  # type: ignore[return-value]


def sample(unit: Unit, score: Score) -> SampleScore:
    metadata = {"subset": unit.subset, "image": unit.image}
    return SampleScore(score=score, sample_id=unit.unit_id, sample_metadata=metadata)


def right(unit: Unit) -> list[str]:
    return [f"<answer>{target}</answer>" for target in unit.targets]


def compute(metric: object, scores: list[SampleScore]) -> dict[str, float]:
    value = metric(scores)  # type: ignore[operator]
    assert isinstance(value, dict)
    return value


def test_lost_pair_is_unscored_and_counted() -> None:
    lost_unit, kept_unit = UNITS["distance"][:2]
    depth = UNITS["depth"][0]
    lost = scored(lost_unit, None)
    assert lost.reason == "scoring_failed" and isinstance(lost.value, dict) and math.isnan(lost.value["score"])
    scores = [sample(lost_unit, lost), sample(kept_unit, scored(kept_unit, right(kept_unit)))]
    scores.append(sample(depth, scored(depth, right(depth))))
    assert compute(surds_lost(), scores) == {"lost_units": 1.0}
    assert compute(surds_lost(), scores[1:]) == {}, "logged only when some unit is lost"
    means = compute(surds_scores(), scores)
    assert means["distance"] == 1.0 and means["overall"] == 1.0, "the lost unit is not scored 0"
    assert compute(surds_validity(), scores) == {"valid_rate": 1.0}, "no missing units: no line"


def test_single_prompt_unit_is_still_scored_from_its_output() -> None:
    depth = UNITS["depth"][0]
    score = scored(depth, None)
    assert isinstance(score.value, dict) and score.value["lost"] == 0.0 and not math.isnan(score.value["score"])


def test_lost_in_one_epoch_of_two() -> None:
    """With epochs the mean reducer keeps the other epoch's score; the count is the share of epochs lost."""
    unit = UNITS["distance"][0]
    reduced = mean_score()([scored(unit, None), scored(unit, right(unit))])
    scores = [sample(unit, reduced)]
    assert compute(surds_lost(), scores) == {"lost_units": pytest.approx(0.5)}
    assert compute(surds_scores(), scores)["distance"] == 1.0
