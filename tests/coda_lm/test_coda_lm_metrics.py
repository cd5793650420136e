"""The aggregation equals the official scripts' (stage1 L224-226, stage2 L221-223, stage3 L243-282), stated here
independently, on the same ratings; NaN where they divide by zero or print 0.0 for an empty category; the strict
score and the counts beside it."""

from __future__ import annotations

import math
import random

from inspect_ai.scorer import SampleScore, Score

from drive_evals.coda_lm.metrics import (
    COUNTED,
    DROPPED,
    FAILED,
    FINAL,
    JUDGED,
    OUT_OF_RANGE,
    OUT_OF_RANGE_COUNT,
    RATING,
    STRICT,
    STRICT_FINAL,
    UNPARSED,
    Item,
    category_name,
    items_of,
    summarise,
)
from drive_evals.coda_lm.records import CATEGORY_GROUP, SUPERCATEGORIES, UNMAPPED

OFFICIAL_GROUPS = ("vehicle", "vru", "traffic_sign", "traffic_light", "traffic_cone", "barrier", "miscellaneous")


def official_stage12(ratings: list[int | None]) -> float:
    """`score = sum(parsed) / len(parsed)` over the replies that parsed (None: failed or unparsed, skipped)."""
    parsed = [r for r in ratings if r is not None]
    return sum(parsed) / len(parsed)


def official_stage3(regions: list[tuple[str, int | None]]) -> tuple[float, dict[str, float]]:
    """Per super-category mean (0.0 when empty), and `all_score / all_num` over every parsed region of the seven."""
    all_score, all_num, per = 0.0, 0, {}
    for group in OFFICIAL_GROUPS:
        parsed = [r for category, r in regions if CATEGORY_GROUP.get(category) == group and r is not None]
        per[group] = sum(parsed) / len(parsed) if parsed else 0.0
        all_score += sum(parsed)
        all_num += len(parsed)
    return all_score / all_num, per


def item(task: str, rating: int | None, judged: bool = True, category: str | None = None, image: str = "1") -> Item:
    group = CATEGORY_GROUP.get(category, UNMAPPED) if category else None
    values = {
        RATING: rating / 10 if rating is not None else math.nan,
        COUNTED: 1.0 if rating is not None and group != UNMAPPED else 0.0,
        STRICT: rating / 10 if rating is not None and 1 <= rating <= 10 else 0.0,
        JUDGED: 1.0 if judged else 0.0,
        OUT_OF_RANGE: 1.0 if rating is not None and not 1 <= rating <= 10 else 0.0,
    }
    return Item(task, group, image, values)


def test_official_order_of_groups() -> None:
    assert tuple(SUPERCATEGORIES) == OFFICIAL_GROUPS


def test_equal_to_the_official_formulas_on_random_ratings() -> None:
    rng = random.Random(2404)
    categories = [c for names in SUPERCATEGORIES.values() for c in names]
    for _ in range(200):
        gp = [rng.choice([None, *range(0, 12)]) for _ in range(rng.randint(1, 30))]
        ds = [rng.choice([None, *range(1, 11)]) for _ in range(rng.randint(1, 30))]
        rp = [(rng.choice(categories), rng.choice([None, *range(1, 11), 100])) for _ in range(rng.randint(1, 40))]
        if all(r is None for r in gp) or all(r is None for r in ds) or all(r is None for _, r in rp):
            continue
        items = [item("general_perception", r) for r in gp] + [item("driving_suggestion", r) for r in ds]
        items += [item("region_perception", r, category=c) for c, r in rp]
        numbers = summarise(items)
        region, per = official_stage3(rp)
        assert math.isclose(10 * numbers["general_perception"], official_stage12(gp))
        assert math.isclose(10 * numbers["driving_suggestion"], official_stage12(ds))
        assert math.isclose(10 * numbers["region_perception"], region)
        for group, value in per.items():
            ours = numbers[category_name(group)]
            assert (math.isnan(ours) and value == 0.0) or math.isclose(10 * ours, value)
        final = (official_stage12(gp) + region + official_stage12(ds)) / 3
        assert math.isclose(10 * numbers[FINAL], final)


def test_the_probe_run() -> None:
    """The protocol's end-to-end run of the unmodified scripts: 16 parsed ratings summing to 199, 8 unparsed
    replies and 1 failed call printed 12.4375 in every stage."""
    parsed = [8, 10, 7, 7, 0, 11, -3, 100, 6, 5, 7, 6, 9, 8, 8, 10]
    items = [item("general_perception", r) for r in parsed]
    items += [item("general_perception", None) for _ in range(8)] + [item("general_perception", None, judged=False)]
    numbers = summarise(items)
    assert 10 * numbers["general_perception"] == 12.4375
    assert (numbers[DROPPED], numbers[FAILED], numbers[UNPARSED], numbers[OUT_OF_RANGE_COUNT]) == (9, 1, 8, 4)
    in_scale = [r for r in parsed if 1 <= r <= 10]
    assert math.isclose(numbers["strict_general_perception"], sum(in_scale) / 10 / 25)
    assert math.isnan(numbers[FINAL]) and math.isnan(numbers[STRICT_FINAL])  # two tasks have no items


def test_no_rating_is_nan_not_zero_division() -> None:
    numbers = summarise([item("general_perception", None), item("driving_suggestion", None, judged=False)])
    assert math.isnan(numbers["general_perception"]) and math.isnan(numbers[FINAL])
    assert numbers["strict_general_perception"] == 0.0 and numbers[DROPPED] == 2


def test_unmapped_regions_are_outside_the_official_mean_only() -> None:
    items = [
        item("region_perception", 8, category="car"),
        item("region_perception", 2, category="suitcase"),  # correctly spelt: not in the official mapping
    ]
    numbers = summarise(items)
    assert numbers["region_perception"] == 0.8
    assert numbers["strict_region_perception"] == 0.5 and numbers[DROPPED] == 1


def test_errored_samples_count_in_strict() -> None:
    def score(sample_id: str, rating: int) -> SampleScore:
        value = {RATING: rating / 10, COUNTED: 1.0, STRICT: rating / 10, JUDGED: 1.0, OUT_OF_RANGE: 0.0}
        meta = {"task": "general_perception", "image_id": sample_id}
        return SampleScore(score=Score(value=value), sample_id=sample_id, sample_metadata=meta)

    items, missing = items_of([score("a", 6), score("b", 8)])
    assert missing == 0 and summarise(items)["general_perception"] == 0.7
    errored = Item("general_perception", None, "c", {})
    numbers = summarise([*items, errored], missing=1)
    assert numbers["general_perception"] == 0.7 and math.isclose(numbers["strict_general_perception"], 1.4 / 3)
    assert numbers[FAILED] == 1 and numbers["missing_samples"] == 1
