"""DriveBench prompts equal the official strings byte for byte (reference copies in tests/drivebench/data/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import ContentImage, ContentText

from drive_evals.data import demo_dir
from drive_evals.drivebench import prompts
from drive_evals.drivebench.records import load_records
from drive_evals.drivebench.solver import official_message

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "drivebench-prompts.json").read_text(encoding="utf-8"))
MCQ_QUESTION = (
    "What is the moving status of object <c1,CAM_BACK,0.5073,0.5778>? Please select the correct answer from the "
    "following options: A. Going ahead. B. Turn left. C. Turn right."
)
SIX = ["CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT"]


def test_system_prompt_is_prompt_txt() -> None:
    assert REFERENCE["system_prompt_file_prompt_txt"] == prompts.SYSTEM_PROMPT
    assert prompts.SYSTEM_PROMPT.endswith("requirements.\n") and "“Yes”" in prompts.SYSTEM_PROMPT


@pytest.mark.parametrize("name", sorted(REFERENCE["rubric_prompts"]))
def test_rubrics_are_the_official_strings(name: str) -> None:
    assert getattr(prompts, name) == REFERENCE["rubric_prompts"][name]


def test_judge_constants() -> None:
    assert REFERENCE["judge_system_sentence_joined_into_user_message_with_newline"] == prompts.JUDGE_SYSTEM_SENTENCE
    assert prompts.SCORE_PATTERN.pattern == REFERENCE["judge_score_regex"]
    assert REFERENCE["judge_model"] == prompts.JUDGE_MODEL


def test_camera_sentences() -> None:
    assert prompts.CAMERA_SENTENCE.search(REFERENCE["camera_sentence_original"])
    single = prompts.system_prompt(["CAM_BACK"])
    assert REFERENCE["camera_sentence_single"].format(cams="CAM_BACK") in single
    assert REFERENCE["camera_sentence_original"] not in single
    two = prompts.system_prompt(["CAM_FRONT_LEFT", "CAM_BACK_RIGHT"])
    assert REFERENCE["camera_sentence_multi"].format(n=2, cams="CAM_FRONT_LEFT, CAM_BACK_RIGHT") in two
    with pytest.raises(ValueError, match="No valid camera"):
        prompts.system_prompt([])


def test_llava_prompt_equals_the_reference_assembly() -> None:
    """§2.3 of the protocol reference: the official `replace_system_prompt` run on `prompt.txt`, concatenated."""
    expected = (DATA / "llava-prompt-perception-mcq.txt").read_text(encoding="utf-8")
    assert prompts.llava_prompt(["CAM_BACK"], 1, MCQ_QUESTION) == expected


def test_six_camera_head() -> None:
    text = prompts.llava_prompt(SIX, 6, "Predict the behavior of the ego vehicle.")
    assert text.startswith("USER: " + "<image>\n" * 6 + "You are a smart autonomous driving assistant")
    assert "You are provided with 6 camera images in the sequence [" + ", ".join(SIX) + "]." in text


def test_chat_message_is_the_llava_prompt_without_its_template() -> None:
    image = ContentImage(image="data:image/png;base64,AAAA")
    message = official_message(["CAM_BACK"], MCQ_QUESTION, [image])
    assert isinstance(message.content, list) and message.content[0] == image
    assert isinstance(message.content[1], ContentText)
    llava = prompts.llava_prompt(["CAM_BACK"], 1, MCQ_QUESTION)
    assert "USER: <image>\n" + message.content[1].text + "\nASSISTANT:" == llava


def test_judge_message_equals_the_reference_rendering() -> None:
    """§4.3.3: the evaluator sentence, a newline, the perception-MCQ rubric with the object's description."""
    expected = (DATA / "judge-input-perception-mcq.txt").read_text(encoding="utf-8")
    sent = prompts.judge_message("perception", "MCQ", MCQ_QUESTION, "A", "<pred string>", "gray sedan.")
    assert sent == expected


def test_no_description_formats_without_it() -> None:
    text = prompts.rubric_prompt("behavior", "MCQ", "Q?", "C", "C.", None)
    assert text == prompts.BEHAVIOR_MCQ_PROMPT.format(QUESTION="Q?", GT="C", PRED="C.")
    assert prompts.needs_description("planning", "VQA") and not prompts.needs_description("perception", "VQA")


def test_braces_in_a_reply_are_sent_as_written() -> None:
    text = prompts.judge_message("perception", "VQA", "Q?", "GT", "a {PRED} {0} reply", None)
    assert '"a {PRED} {0} reply"' in text


def test_every_demo_question_has_a_rubric() -> None:
    for record in load_records(demo_dir("drivebench") / "drivebench-test.json"):
        assert (record.bucket.task, record.bucket.kind) in prompts.RUBRICS
