"""The fake model's policies do what their names say, so the runs built on them test what they claim to."""

from __future__ import annotations

import pytest
from fakeserver.drive import (
    INVALID_JUDGE_REPLY,
    behaviour,
    drivelmm_o1_prompts,
    drivelmm_o1_reply,
    judge_reply,
    surds_prompts,
    surds_reply,
)

from drive_evals.drivelmm_o1.mcq import official_correct
from drive_evals.drivelmm_o1.rubric import parse_judge_reply
from drive_evals.surds.rules import PromptScore, score_choice, score_point


def surds_verdict(kind: str) -> list[PromptScore]:
    verdicts = []
    for key, prompt in surds_prompts().items():
        reply = surds_reply(kind, prompt, key)
        if prompt.subset == "xy2d":
            assert prompt.bbox is not None
            verdicts.append(score_point(reply, prompt.bbox))
        else:
            verdicts.append(score_choice(reply, prompt.target, prompt.options))
    return verdicts


@pytest.mark.parametrize(
    ("kind", "valid", "score"), [("correct", True, 1.0), ("wrong", True, 0.0), ("malformed", False, 0.0)]
)
def test_surds_policies(kind: str, valid: bool, score: float) -> None:
    verdicts = surds_verdict(kind)
    assert all(verdict.valid == valid and verdict.score == pytest.approx(score) for verdict in verdicts)


def test_surds_chance_answers_are_valid_options() -> None:
    assert all(verdict.valid for verdict in surds_verdict("chance"))


def test_drivelmm_o1_policies() -> None:
    prompts = drivelmm_o1_prompts()
    mcq = [
        (key, prompt) for key, prompt in prompts.items() if "Choose from the following answers only" in prompt.question
    ]
    assert mcq, "the demo has multiple-choice questions"
    for key, prompt in mcq:
        assert official_correct(drivelmm_o1_reply("correct", prompt, key), prompt.final_answer).correct
        assert not official_correct(drivelmm_o1_reply("wrong", prompt, key), prompt.final_answer).correct
        assert official_correct(drivelmm_o1_reply("malformed", prompt, key), prompt.final_answer).model_letter == "none"


def test_mixed_spreads_prompts_and_judge_replies() -> None:
    kinds = {behaviour("mixed", key) for key in surds_prompts()}
    assert kinds == {"correct", "wrong", "malformed", "chance"}
    replies = [judge_reply("mixed", f"judge prompt {index}") for index in range(200)]
    assert 0 < replies.count(INVALID_JUDGE_REPLY) < 50
    assert all(parse_judge_reply(reply).ok for reply in replies if reply != INVALID_JUDGE_REPLY)
    with pytest.raises(LookupError, match="unknown policy"):
        behaviour("sometimes", "key")
