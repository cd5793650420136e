"""DriveLMM-o1's judge reply is read raw, as the released script reads `response.choices[0].message.content`:
through Inspect's real `openai/` provider (which moves a `<think>` block out of `output.completion`) against the
fake server. The official script parses that text with `ast.literal_eval`, so any reply holding a think block is
dropped there; drive_evals reads the verdict outside the block (docs/drivelmm_o1.md, Fidelity) and never a draft
written inside it."""

from __future__ import annotations

import ast
import json

import anyio
import pytest
from fakeserver import FakeModelServer, FakeRequest
from inspect_ai.model import get_model

from drive_evals.drivelmm_o1.judge import Judgement, judge_response

JUDGE = "openai/gpt-4o-mini-2024-07-18"
SCHEMA_KEYS = (
    "Faithfulness-Step",
    "Informativeness-Step",
    "Risk Assessment Accuracy",
    "Traffic Rule Adherence",
    "Scene Awareness & Object Understanding",
    "Repetition-Token",
    "Hallucination",
    "Semantic Coverage-Step",
    "Commonsense",
    "Missing Step",
    "Relevance",
    "Missing Details",
    "Overall Score",
)
"""The 13 required keys of the official `EvaluationScores` schema (evaluation_script.py)."""


def verdict(score: float) -> str:
    return json.dumps(dict.fromkeys(SCHEMA_KEYS, score))


def official_overall(content: str) -> float | None:
    """The official reading, restated: `ast.literal_eval` of the raw content; any exception drops the item."""
    try:
        return float(ast.literal_eval(content)["Overall Score"])
    except Exception:
        return None


def judged(server: FakeModelServer, reply: str) -> Judgement:
    def policy(request: FakeRequest) -> str:
        return reply

    server.policy = policy
    model = get_model(JUDGE, base_url=server.openai_base_url, memoize=False)
    return anyio.run(judge_response, model, "What now?", "1. Look.", "A) Stop.", "Final Answer: A) Stop.", 3, False)


def test_a_plain_reply_reads_as_official(fake_model_server: FakeModelServer) -> None:
    reply = verdict(8.0)
    assert official_overall(reply) == 8.0
    judgement = judged(fake_model_server, reply)
    assert judgement.ok and judgement.parse is not None and judgement.parse.reported_overall == 8.0
    assert len(fake_model_server.requests) == 1


def test_a_draft_inside_a_think_block_is_never_the_verdict(fake_model_server: FakeModelServer) -> None:
    """The final verdict after the block is read (the official script drops the whole reply: a documented
    leniency, like JSON inside prose); the draft inside the block is not."""
    reply = f"<think>First pass: {verdict(3.0)}</think>\n{verdict(8.0)}"
    assert official_overall(reply) is None
    judgement = judged(fake_model_server, reply)
    assert judgement.ok and judgement.parse is not None
    assert judgement.parse.reported_overall == 8.0 and set(judgement.parse.scores.values()) == {8.0}


@pytest.mark.parametrize(
    "reply",
    [
        # Inspect's completion of this reply is the whole text, so reading it found the draft.
        pytest.param(f"<think>{verdict(3.0)}</think>", id="only-a-block"),
        # Inspect's completion of this one is `No verdict.`: the kept reply must be the raw text.
        pytest.param(f"<think>{verdict(3.0)}</think>\nNo verdict.", id="block-then-prose"),
    ],
)
def test_a_draft_alone_fails_with_its_raw_text_kept(fake_model_server: FakeModelServer, reply: str) -> None:
    """Official: dropped. Here: no verdict after three attempts (`grader_failed`), each raw reply kept as sent."""
    assert official_overall(reply) is None
    judgement = judged(fake_model_server, reply)
    assert not judgement.ok and judgement.failure == "invalid judge reply: invalid_json"
    assert judgement.raw_replies == [reply] * 3
    assert len(fake_model_server.requests) == 3


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(f"<think>a <think>b</think> then {verdict(3.0)}</think>Done.", id="nested"),
        pytest.param(f"<think>a</think>Done. <think>b {verdict(3.0)}</think>", id="second-block"),
    ],
)
def test_a_verdict_anywhere_inside_a_block_is_set_aside(fake_model_server: FakeModelServer, reply: str) -> None:
    assert official_overall(reply) is None
    judgement = judged(fake_model_server, reply)
    assert not judgement.ok and judgement.raw_replies == [reply] * 3
