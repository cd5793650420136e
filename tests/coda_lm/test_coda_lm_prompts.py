"""CODA-LM strings equal the official ones byte for byte, and the judge requests equal the official requests.

`data/coda-lm-prompts.json` is the protocol reference's extraction from the official blobs at 24544cc; the official
requests are rebuilt here from it by its `messages_layout` (stage1 L46-87, stage2 likewise, stage3 L75-90), as the
scripts build their `messages` list, independently of `drive_evals.coda_lm.prompts`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage

from drive_evals.coda_lm import prompts

REFERENCE = json.loads((Path(__file__).parent / "data" / "coda-lm-prompts.json").read_text(encoding="utf-8"))
STAGES = {
    "general_perception": "general_perception (stage1_eval_batch.py)",
    "driving_suggestion": "driving_suggestion (stage2_eval_batch.py)",
    "region_perception": "region_perception (stage3_eval_batch.py)",
}
ITEMS = [
    ("A white van ahead.", "There is a van ahead, Rating: [[3]] is what I'd expect."),
    ("", ""),
    ("Line one\nline two  with  spaces\t", "{braces} and {} and {0} survive"),
]


def official_request(stage: dict[str, Any], reference: str, prediction: str) -> list[dict[str, str]]:
    """The official `messages` list: each `messages_layout` line is `role: what`, filled from the reference JSON."""
    template = REFERENCE["judge_user_template"]["text"]
    shots = stage.get("few_shot") or {}
    out = []
    for line in stage["messages_layout"]:
        role, what = line.split(": ", 1)
        if what == "system_prompt":
            content = stage["system_prompt"]
        elif what == "template(reference, prediction)":
            content = template.format(reference, prediction)
        elif what.startswith("template("):
            shot = shots[what.removeprefix("template(").split(".", 1)[0]]
            content = template.format(shot["reference"], shot["prediction"])
        else:
            content = shots[what.split(".", 1)[0]]["response"]
        out.append({"role": role, "content": content})
    return out


def as_openai(messages: list[ChatMessage]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.text} for m in messages]


@pytest.mark.parametrize("task", prompts.TASKS)
@pytest.mark.parametrize(("reference", "prediction"), ITEMS)
def test_judge_request_is_the_official_one(task: prompts.TaskName, reference: str, prediction: str) -> None:
    stage = REFERENCE["judge"][STAGES[task]]
    built = prompts.judge_messages(task, reference, prediction)
    assert as_openai(built) == official_request(stage, reference, prediction)
    assert all(isinstance(m.content, str) for m in built)  # text only: the judge sees no image


def test_message_counts_and_order() -> None:
    assert [len(prompts.judge_messages(t, "r", "p")) for t in prompts.TASKS] == [6, 2, 6]
    assert [m.role for m in prompts.judge_messages("general_perception", "r", "p")] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]


def test_model_prompts_are_convert2vqa() -> None:
    for task in prompts.TASKS:
        assert prompts.MODEL_PROMPTS[task] == REFERENCE["model_prompts"][task]["text"]


def test_quirks_kept_verbatim() -> None:
    assert "(sessing if" in prompts.GENERAL_JUDGE_SYSTEM_PROMPT
    sentence = "Do not allow the length of the predicted text to influence your evaluation."
    assert prompts.SUGGESTION_JUDGE_SYSTEM_PROMPT.count(sentence) == 2
    assert prompts.REGION_PERCEPTION_PROMPT.endswith("why it affect ego car driving.")
    ends = REFERENCE["_checks"]["few_shot_responses_end"]
    assert prompts.GENERAL_HIGH_SHOT.response.endswith(ends["scene_high"])
    assert prompts.SUGGESTION_LOW_SHOT.response.endswith(ends["sugg_low"])


def test_judge_settings() -> None:
    assert REFERENCE["judge_generation"]["temperature"] == prompts.JUDGE_TEMPERATURE
    assert "openai/" + REFERENCE["judge_generation"]["model"].split()[0] == prompts.DEFAULT_JUDGE
