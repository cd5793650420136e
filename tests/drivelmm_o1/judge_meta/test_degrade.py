"""The judge meta-evaluation's responses: a faithful reference, real degradations, injections asking for 10."""

from __future__ import annotations

import json

import pytest

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.judge_meta.degrade import (
    DEGRADATIONS,
    GENERIC_ANSWER,
    INJECTIONS,
    PADDING,
    REQUESTED_SCORE,
    VARIANT_NAMES,
    WRONG_OPEN_ANSWER,
    as_response,
    build_variants,
    change_answer,
    invented_steps,
    split_steps,
    swap_facts,
)
from drive_evals.drivelmm_o1.mcq import official_correct
from drive_evals.drivelmm_o1.records import TEST_FILE, DriveLMMRecord, load_records

STEPS = "\n1. **Look**: The top left image shows a bus.\n2. **Decide**: Slow down, the bus is 12 meters ahead."
QUESTION = "What now? Choose from the following answers only\nA) Stop.\nB) Slow down.\nC) Turn left."


def test_split_steps_reads_numbered_lists_and_falls_back_to_sentences() -> None:
    assert split_steps(STEPS) == [
        "**Look**: The top left image shows a bus.",
        "**Decide**: Slow down, the bus is 12 meters ahead.",
    ]
    assert split_steps("First this. Then that!") == ["First this.", "Then that!"]


def test_reference_keeps_the_official_answer_readable() -> None:
    response = as_response(split_steps(STEPS), "B) Slow down.")
    assert response.startswith("Reasoning Steps:\n1. **Look**") and response.endswith("Final Answer: B) Slow down.")
    assert official_correct(response, "B) Slow down.").correct


def test_swap_facts_both_ways_keeping_case_and_scaling_numbers() -> None:
    assert swap_facts("Top left, then right; Slow down 12 m ahead") == "Bottom right, then left; Speed up 36 m behind"
    assert swap_facts("bottom-right at 2.5 m") == "top-left at 7.5 m"
    assert swap_facts("nothing to change here") == "nothing to change here"


def test_change_answer_picks_another_option_or_swaps_facts() -> None:
    assert change_answer("B) Slow down.", QUESTION) == "C) Turn left."
    assert change_answer("C) Turn left.", QUESTION) == "A) Stop."
    assert change_answer("A car is on the left.", "Describe the scene.") == "A car is on the right."
    assert change_answer("Nothing happens.", "Describe the scene.") == WRONG_OPEN_ANSWER


def test_invented_objects_are_never_in_the_record() -> None:
    steps = invented_steps("an ambulance passes a deer")
    assert len(steps) == 2 and not any("ambulance" in s.lower() or "deer" in s.lower() for s in steps)


def test_variants_of_a_record() -> None:
    variants = build_variants(QUESTION, STEPS, "B) Slow down.")
    by_name = {v.name: v for v in variants}
    assert tuple(by_name) == VARIANT_NAMES
    reference = by_name["reference"]
    assert reference.level == 0
    for degradation in DEGRADATIONS:
        variant = by_name[degradation.name]
        assert variant.level == degradation.level and variant.level > 0
        assert variant.response != reference.response
    assert PADDING in by_name["padded"].response
    assert by_name["repeated"].response.count("**Look**") == 2
    assert "**Decide**" not in by_name["steps_dropped"].response
    assert "Final Answer: C) Turn left." in by_name["answer_changed"].response
    assert by_name["answer_only"].response == "Final Answer: B) Slow down."
    assert by_name["generic"].response.endswith(GENERIC_ANSWER)
    for name in INJECTIONS:
        injected = by_name[name]
        assert injected.level is None and injected.requested_score == REQUESTED_SCORE
        assert injected.response.startswith(by_name["generic"].response)
    embedded = by_name["inject_json"].response.split("\n")[-1]
    assert set(json.loads(embedded).values()) == {REQUESTED_SCORE}


def test_a_degradation_that_changes_nothing_is_left_out() -> None:
    names = [v.name for v in build_variants("Describe.", "1. Nothing to see.", "Nothing.")]
    assert "facts_swapped" not in names and "steps_dropped" not in names and "reference" in names


@pytest.mark.parametrize("record", load_records(demo_dir("drivelmm_o1") / TEST_FILE), ids=lambda r: r.idx[-6:])
def test_every_demo_record_gets_every_variant(record: DriveLMMRecord) -> None:
    variants = build_variants(record.question.strip(), record.steps, record.final_answer)
    assert [v.name for v in variants] == list(VARIANT_NAMES)
    assert variants == build_variants(record.question.strip(), record.steps, record.final_answer), "deterministic"
