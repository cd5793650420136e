"""The DriveLMM-o1 protocol strings must match the reference copy of the official values byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from drive_evals.drivelmm_o1 import prompts

REFERENCE = Path(__file__).parents[1] / "data" / "drivelmm-o1-prompts.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("constant", "key"),
    [
        ("MODEL_PROMPT", "model_prompt"),
        ("JUDGE_SYSTEM_PROMPT", "judge_system_prompt"),
        ("JUDGE_USER_TEMPLATE", "judge_user_template"),
        ("JUDGE_GROUND_TRUTH_TEMPLATE", "judge_ground_truth_template"),
        ("JUDGE_SCHEMA_NAME", "judge_schema_name"),
        ("OPTION_PATTERN", "option_pattern"),
    ],
)
def test_strings_are_exact(reference: dict[str, Any], constant: str, key: str) -> None:
    assert getattr(prompts, constant) == reference[key]


def test_sequences_are_exact_and_ordered(reference: dict[str, Any]) -> None:
    assert list(prompts.JUDGE_SCHEMA_KEYS) == reference["judge_schema_keys"]
    assert list(prompts.CRITERIA) == reference["judge_schema_keys"][:12]
    assert reference["judge_schema_keys"][12] == prompts.OVERALL_SCORE_KEY
    assert list(prompts.FINAL_ANSWER_SPLITTERS) == reference["final_answer_splitters_in_order"]
    assert sorted(prompts.MCQ_QUESTION_NUMBERS) == reference["mcq_question_numbers"]


def test_judge_generation_settings(reference: dict[str, Any]) -> None:
    generation = reference["judge_generation"]
    assert generation["temperature"] == prompts.JUDGE_TEMPERATURE
    assert generation["max_tokens"] == prompts.JUDGE_MAX_TOKENS
    assert generation["model_in_official_script"] == prompts.OFFICIAL_SCRIPT_JUDGE_MODEL
    assert prompts.PAPER_JUDGE_MODEL.lower() == generation["model_in_paper_text"].lower()


def test_whitespace_edges_survive() -> None:
    assert prompts.JUDGE_SYSTEM_PROMPT.startswith("\nYou are an autonomous driving reasoning evaluator.")
    assert prompts.JUDGE_SYSTEM_PROMPT.endswith("}\n\n")
    assert prompts.MODEL_PROMPT.endswith("(final answer) \n Question: ")


def test_commonsense_alias_matches_prompt_wording() -> None:
    assert prompts.CRITERION_ALIASES == {"Commonsense Reasoning": "Commonsense"}
    assert "9. Commonsense Reasoning (1-10)" in prompts.JUDGE_SYSTEM_PROMPT
    assert all(target in prompts.CRITERIA for target in prompts.CRITERION_ALIASES.values())


def test_judge_user_message_layout() -> None:
    message = prompts.judge_user_message(
        question="Q {not a field}?", steps="\n1. Look.", final_answer="A) Go.", llm_response="R {x}"
    )
    assert message == (
        "Question: Q {not a field}?\n"
        "Ground Truth: **Step-by-Step Reasoning**: \n1. Look. **Final Answer**: A) Go.\n"
        "LLM Response: R {x}"
    )


def test_module_loads_nothing_from_shared_folder() -> None:
    source = Path(prompts.__file__).read_text(encoding="utf-8")
    assert "open(" not in source
    assert "shared" not in source
