"""The chance provider asks each benchmark for its answer; each benchmark answers only its own prompts."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from types import SimpleNamespace

import pytest

from drive_evals import chance
from drive_evals._registry import BENCHMARKS
from drive_evals.benchmark import SuiteTask
from drive_evals.chance import UNKNOWN_PROMPT_REPLY, UNKNOWN_SCHEMA_REPLY, answer, judge_reply, running_benchmark
from drive_evals.drivelmm_o1.chance import chance_answer as drivelmm_o1_answer
from drive_evals.drivelmm_o1.chance import chance_verdict
from drive_evals.drivelmm_o1.prompts import CRITERIA, MODEL_PROMPT, OVERALL_SCORE_KEY
from drive_evals.surds.chance import chance_answer as surds_answer
from drive_evals.surds.prompts import DEPTH_TEMPLATE, XY2D_TEMPLATE
from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH
from drive_evals.vladbench.benchmark import VLADBENCH

DEPTH_PROMPT = DEPTH_TEMPLATE.format("the white car", "3 m", "10 m", "25 m")
XY2D_PROMPT = XY2D_TEMPLATE.format("the white car")
MCQ_PROMPT = MODEL_PROMPT + "\n\nWhat should the ego vehicle do?\nA) Stop\nB) Turn left\nC) Go on"
OPEN_PROMPT = MODEL_PROMPT + "\n\nWhat are the important objects?"


def test_each_benchmark_answers_only_its_own_prompts() -> None:
    rng = random.Random(0)
    for prompt in (MCQ_PROMPT, OPEN_PROMPT, "Describe the image."):
        assert surds_answer(prompt, rng) is None
    for prompt in (DEPTH_PROMPT, XY2D_PROMPT, "Describe the image."):
        assert drivelmm_o1_answer(prompt, rng) is None


def test_surds_answers_an_option_or_a_pixel_in_the_official_format() -> None:
    rng = random.Random(0)
    option = surds_answer(DEPTH_PROMPT, rng)
    assert option is not None and re.fullmatch(r"<think>.+</think>\n<answer>(3 m|10 m|25 m)</answer>", option)
    pixel = surds_answer(XY2D_PROMPT, rng)
    found = re.fullmatch(r"<think>.+</think>\n<answer>\[(\d+), (\d+)\]</answer>", pixel or "")
    assert found and int(found[1]) < IMAGE_WIDTH and int(found[2]) < IMAGE_HEIGHT


def test_drivelmm_o1_answers_an_option_letter_or_a_generic_reasoning() -> None:
    rng = random.Random(0)
    mcq = drivelmm_o1_answer(MCQ_PROMPT, rng)
    assert mcq is not None and re.search(r"Final Answer: (A\) Stop|B\) Turn left|C\) Go on)$", mcq)
    assert (drivelmm_o1_answer(OPEN_PROMPT, rng) or "").startswith("Reasoning Steps:")


def test_the_provider_takes_the_answer_of_the_benchmark_whose_prompt_it_is() -> None:
    for prompt, own in ((DEPTH_PROMPT, surds_answer), (MCQ_PROMPT, drivelmm_o1_answer)):
        assert answer(prompt, random.Random(7), BENCHMARKS) == own(prompt, random.Random(7))
    assert answer("Describe the image.", random.Random(7), BENCHMARKS) == UNKNOWN_PROMPT_REPLY


def test_a_judge_verdict_covers_the_schema_in_range_with_the_mean_as_overall() -> None:
    schema = {"properties": {key: {"type": "number"} for key in (*CRITERIA, OVERALL_SCORE_KEY)}}
    scores = json.loads(judge_reply(schema, random.Random(0), BENCHMARKS))
    criteria = [scores[key] for key in CRITERIA]
    assert list(scores) == [*CRITERIA, OVERALL_SCORE_KEY] and all(1 <= value <= 10 for value in criteria)
    assert scores[OVERALL_SCORE_KEY] == round(sum(criteria) / len(criteria), 2)
    assert chance_verdict({"properties": {"label": {}}}, random.Random(0)) is None
    assert judge_reply({"properties": {"label": {}}}, random.Random(0), BENCHMARKS) == UNKNOWN_SCHEMA_REPLY


def test_the_running_sample_decides_which_benchmark_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """VLADBench's answerer claims any "Answer 'yes' or 'no'" prompt; a later benchmark's sample asking one still
    gets its own benchmark's answer, not VLADBench's."""
    prompt = "Is the light red? Answer 'yes' or 'no'."
    later = dataclasses.replace(
        VLADBENCH, task=SuiteTask("new_bench", scorer=VLADBENCH.task.scorer), chance=lambda _prompt, _rng: "mine"
    )
    benchmarks = [VLADBENCH, later]
    assert answer(prompt, random.Random(0), running_benchmark(benchmarks)) in ("yes", "no")  # no sample: first claim
    monkeypatch.setattr(chance, "sample_active", lambda: SimpleNamespace(task="drive_evals/new_bench"))
    assert running_benchmark(benchmarks) == [later]
    assert answer(prompt, random.Random(0), running_benchmark(benchmarks)) == "mine"
