"""The chance provider's DriveBench answers: official formats that the parsers and the judge pattern read."""

from __future__ import annotations

import random

from drive_evals._registry import BENCHMARKS
from drive_evals.chance import answer as chance_answer
from drive_evals.drivebench.chance import OPEN_ANSWER
from drive_evals.drivebench.judge import read_score
from drive_evals.drivebench.mcq import corrected_letter, leading_yes_no, official_letter
from drive_evals.drivebench.prompts import judge_message, prompt_text
from drive_evals.drivelmm_o1.prompts import MODEL_PROMPT


def answer(prompt: str, rng: random.Random) -> str:
    """The chance provider's answer, asking every benchmark in the registry as it does."""
    return chance_answer(prompt, rng, BENCHMARKS)


MCQ = (
    "Predict the behavior of the ego vehicle. Please select the correct answer from the following options: A. The "
    "ego vehicle is going straight. B. The ego vehicle is steering to the right. C. The ego vehicle is slightly "
    "steering to the left. D. The ego vehicle is steering to the left."
)


def test_mcq_answers_cover_the_options_in_the_official_format() -> None:
    prompt = prompt_text(["CAM_FRONT", "CAM_BACK"], MCQ)
    letters = {corrected_letter(answer(prompt, random.Random(seed)), MCQ) for seed in range(40)}
    assert letters == {"A", "B", "C", "D"}
    reply = answer(prompt, random.Random(1))
    assert reply[0] in "ABCD" and reply[1:3] == ". "
    assert official_letter(reply) in "ABCD"


def test_yes_no_and_open_questions() -> None:
    yes_no = prompt_text(["CAM_BACK"], "Is <c1,CAM_BACK,0.5,0.5> a traffic sign or a road barrier?")
    assert {leading_yes_no(answer(yes_no, random.Random(s))) for s in range(20)} == {"yes", "no"}
    assert (
        answer(prompt_text(["CAM_BACK"], "What actions could the ego vehicle take?"), random.Random(0)) == OPEN_ANSWER
    )


def test_judge_answers_are_read_by_the_official_pattern() -> None:
    message = judge_message("planning", "VQA", "Q?", "GT", "pred", "a car.")
    scores = {read_score(answer(message, random.Random(s))) for s in range(30)}
    assert None not in scores and all(0 <= s <= 100 for s in scores if s is not None) and len(scores) > 5


def test_other_benchmarks_prompts_are_untouched() -> None:
    """DriveLMM-o1's prompt (also lettered options) gets DriveLMM-o1's answer format, not DriveBench's."""
    prompt = f"{MODEL_PROMPT}\nWhat is ahead?\nA) a car\nB) a bus"
    assert "Final Answer" in answer(prompt, random.Random(0))
