"""Test-only model providers with known behaviour, for end-to-end runs whose scores are known in advance.

`oracle/<data>` answers every SURDS prompt correctly (xy2d: the centre of the gold box), looking the answer up by
prompt text and image bytes. `unclosed/any` opens `<answer>` and never closes it. `grader/<script>` is a judge
whose replies follow a named script (see `GRADER_SCRIPTS`). All report usage, so Inspect never needs a tokenizer
download. Set `FAKE_MODEL_CALLS` to a file path to get one line per call appended there (calls across processes).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.log._samples import sample_active
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from drive_evals.data import open_snapshot
from drive_evals.surds.dataset import load_surds
from drive_evals.surds.units import SUBSETS

TEST_USAGE = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)


def image_digest(image: str) -> str:
    """sha256 of an image given as a data URI or a file path."""
    data = base64.b64decode(image.split(",", 1)[1]) if image.startswith("data:") else Path(image).read_bytes()
    return hashlib.sha256(data).hexdigest()


def surds_answer_key(data: str = "demo") -> dict[tuple[str, str], str]:
    """(prompt text, image digest) -> the completion that answers correctly."""
    key: dict[tuple[str, str], str] = {}
    for sample in load_surds(open_snapshot(data, "surds"), list(SUBSETS), "metadata").dataset:
        metadata = sample.metadata or {}
        first = sample.input[0]
        assert not isinstance(first, str) and isinstance(first.content, list)
        image = next(part for part in first.content if isinstance(part, ContentImage))
        digest = image_digest(image.image)
        for prompt, target in zip(metadata["prompts"], metadata["targets"], strict=True):
            if metadata["subset"] == "xy2d":
                x0, y0, x1, y1 = metadata["bbox"]
                target = f"[{(x0 + x1) / 2}, {(y0 + y1) / 2}]"
            key[(prompt, digest)] = f"<think>I know this one.</think>\n<answer>{target}</answer>"
    return key


def request_key(messages: list[ChatMessage]) -> tuple[str, str]:
    user = next(m for m in messages if isinstance(m, ChatMessageUser))
    assert isinstance(user.content, list), "SURDS prompts carry an image"
    image = next(part for part in user.content if isinstance(part, ContentImage))
    return user.text, image_digest(image.image)


class _TestModel(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    def reply(self, messages: list[ChatMessage]) -> str:
        raise NotImplementedError

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        output = ModelOutput.from_content(model=self.model_name, content=self.reply(input))
        output.usage = TEST_USAGE
        return output


@modelapi(name="oracle")
class OracleModel(_TestModel):
    """Answers every SURDS prompt of the named data source (`oracle/demo`) correctly."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key)
        self.key = surds_answer_key(model_name)

    def reply(self, messages: list[ChatMessage]) -> str:
        return self.key[request_key(messages)]


@modelapi(name="unclosed")
class UnclosedModel(_TestModel):
    """Opens an `<answer>` block and never closes it."""

    def reply(self, messages: list[ChatMessage]) -> str:
        return "<think>Looking at the image.</think>\n<answer>The white car"


VALID_SCORES = {
    "Faithfulness-Step": 7.0,
    "Informativeness-Step": 6.0,
    "Risk Assessment Accuracy": 8.0,
    "Traffic Rule Adherence": 9.0,
    "Scene Awareness & Object Understanding": 5.0,
    "Repetition-Token": 10.0,
    "Hallucination": 4.0,
    "Semantic Coverage-Step": 6.0,
    "Commonsense": 7.0,
    "Missing Step": 8.0,
    "Relevance": 3.0,
    "Missing Details": 9.0,
    "Overall Score": 6.8,
}
"""Twelve criteria with mean 6.833..., and a reported overall of 6.8 (the judge's own arithmetic is not trusted)."""


def valid_reply() -> str:
    return json.dumps(VALID_SCORES)


def _with(**changes: object) -> str:
    return json.dumps({**VALID_SCORES, **changes})


GRADER_SCRIPTS: dict[str, list[str]] = {
    "valid": [valid_reply()],
    "alias": [json.dumps({("Commonsense Reasoning" if k == "Commonsense" else k): v for k, v in VALID_SCORES.items()})],
    "prose": ["Sure! Here is my evaluation:\n```json\n" + valid_reply() + "\n```\nHope this helps."],
    "invalid-then-valid": ["I cannot produce JSON today.", valid_reply()],
    "always-invalid": ["{not json"],
    "out-of-range": [_with(Relevance=11.0)],
    "missing-key": [json.dumps({k: v for k, v in VALID_SCORES.items() if k != "Hallucination"})],
    "low": [json.dumps({k: 2.0 for k in VALID_SCORES})],
}
"""Replies per script, by the number of times the same judge prompt was asked (the last reply repeats)."""


def record_call(model: str, text: str) -> None:
    path = os.environ.get("FAKE_MODEL_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"model": model, "prompt": hashlib.sha256(text.encode()).hexdigest()}) + "\n")


@modelapi(name="grader")
class ScriptedGrader(_TestModel):
    """A judge that replies by script: `grader/invalid-then-valid` fails once per prompt, then answers."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key)
        self.script = GRADER_SCRIPTS[model_name]
        self.asked: Counter[str] = Counter()

    def reply(self, messages: list[ChatMessage]) -> str:
        text = "\n".join(m.text for m in messages)
        record_call(f"grader/{self.model_name}", text)
        attempt = self.asked[text]
        self.asked[text] += 1
        return self.script[min(attempt, len(self.script) - 1)]


# --- mock judges for the judge meta-evaluation (drive_evals/drivelmm_o1_judge) ----------------------------------

JUDGE_GROUND_TRUTH_MARK = "\nGround Truth: "
JUDGE_RESPONSE_MARK = "\nLLM Response: "
RESPONSE_LABELS = ("**Step-by-Step Reasoning**:", "**Final Answer**:", "Reasoning Steps:", "Final Answer:")
OVERLAP_ORDERS = (1, 2, 3)
"""The good judge compares word n-grams of these lengths, so swapped facts and repetition cost it points."""
OBEYED_WORDS = ("score", "scored", "metric")
GROUND_TRUTH_ANSWER_LABEL = "**Final Answer**:"
RESPONSE_ANSWER_LABEL = "Final Answer:"
STEPS_WEIGHT = 0.7
"""The good judge weighs the reasoning steps over the final answer, as the rubric does (most criteria are steps)."""


def judged_parts(messages: list[ChatMessage]) -> tuple[str, str]:
    """(ground truth, response) from the benchmark's judge user message."""
    text = next(m.text for m in messages if isinstance(m, ChatMessageUser))
    rest = text.split(JUDGE_GROUND_TRUTH_MARK, 1)[1]
    ground_truth, response = rest.split(JUDGE_RESPONSE_MARK, 1)
    return ground_truth, response


def words(text: str) -> list[str]:
    for label in RESPONSE_LABELS:
        text = text.replace(label, " ")
    return "".join(c if c.isalnum() else " " for c in text.lower()).split()


def ngram_f1(response: list[str], reference: list[str], n: int) -> float:
    """Clipped n-gram F1: extra, repeated or changed n-grams lower precision; missing ones lower recall."""
    got = Counter(tuple(response[i : i + n]) for i in range(len(response) - n + 1))
    want = Counter(tuple(reference[i : i + n]) for i in range(len(reference) - n + 1))
    overlap = sum((got & want).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(got.values()), overlap / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def uniform_reply(score: float) -> str:
    return json.dumps(dict.fromkeys(VALID_SCORES, round(score, 3)))


def overlap(response: str, reference: str) -> float:
    got, want = words(response), words(reference)
    return sum(ngram_f1(got, want, n) for n in OVERLAP_ORDERS) / len(OVERLAP_ORDERS)


def overlap_reply(messages: list[ChatMessage]) -> str:
    """Every criterion 1 + 9 x the n-gram overlap with the ground truth, of the steps and of the final answer
    (weighted `STEPS_WEIGHT` : 1 - `STEPS_WEIGHT`): tracks the response's quality."""
    ground_truth, response = judged_parts(messages)
    gt_steps, _, gt_answer = ground_truth.rpartition(GROUND_TRUTH_ANSWER_LABEL)
    steps, _, answer = response.rpartition(RESPONSE_ANSWER_LABEL)
    quality = STEPS_WEIGHT * overlap(steps, gt_steps) + (1 - STEPS_WEIGHT) * overlap(answer, gt_answer)
    return uniform_reply(1 + 9 * quality)


def embedded_rubric(response: str) -> str | None:
    """A JSON object with the rubric's keys written inside the response, if there is one."""
    decoder = json.JSONDecoder()
    start = response.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(response, start)
        except ValueError:
            value = None
        if isinstance(value, dict) and "Faithfulness-Step" in value:
            return json.dumps(value)
        start = response.find("{", start + 1)
    return None


@modelapi(name="judge")
class MockJudge(_TestModel):
    """`judge/good` scores by overlap with the ground truth; `judge/lazy` gives everything the same scores;
    `judge/gullible` is good but copies a rubric written in the response and obeys "score it 10"."""

    def reply(self, messages: list[ChatMessage]) -> str:
        record_call(f"judge/{self.model_name}", "\n".join(m.text for m in messages))
        if self.model_name == "lazy":
            return valid_reply()
        if self.model_name == "gullible":
            _, response = judged_parts(messages)
            lowered = response.lower()
            embedded = embedded_rubric(response)
            if embedded is not None:
                return embedded
            if "10" in words(response) and any(word in lowered for word in OBEYED_WORDS):
                return uniform_reply(10.0)
        return overlap_reply(messages)


GRID_SIZE = 1000


@modelapi(name="grid1000")
class GridOracle(_TestModel):
    """The oracle, but xy2d points on a 0-1000 grid (as Qwen2-VL and Qwen3-VL answer): `grid1000/demo`."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key)
        self.key = surds_answer_key(model_name)

    def reply(self, messages: list[ChatMessage]) -> str:
        prompt, digest = request_key(messages)
        answer = self.key[(prompt, digest)]
        if "coordinates [x, y]" not in prompt:
            return answer
        x, y = json.loads(answer.split("<answer>", 1)[1].split("</answer>", 1)[0])
        return f"<answer>[{round(x * GRID_SIZE / 1600)}, {round(y * GRID_SIZE / 900)}]</answer>"


@modelapi(name="policy")
class PolicyModel(_TestModel):
    """The fake server's benchmark policies in-process: `policy/mixed` answers exactly as the server does.

    It sees what the server sees (system text, the last user turn's texts and image digests), so a run through a
    real client and the fake server can be compared reply for reply with a run of this provider. With
    `POLICY_CALLS` set to a file path, each call appends a line there: its prompt key (as the server counts them)
    and the sample asking (`<id>#<epoch>`, `-` outside a sample).
    """

    def reply(self, messages: list[ChatMessage]) -> str:
        from fakeserver import prompt_key  # imported here: fakeserver.drive imports this module
        from fakeserver.drive import respond

        system = "\n".join(m.text for m in messages if isinstance(m, ChatMessageSystem)) or None
        user = [m for m in messages if isinstance(m, ChatMessageUser)][-1]
        parts = [ContentText(text=user.content)] if isinstance(user.content, str) else user.content
        texts = [part.text for part in parts if isinstance(part, ContentText)]
        digests = [image_digest(part.image) for part in parts if isinstance(part, ContentImage)]
        calls = os.environ.get("POLICY_CALLS")
        if calls:
            active = sample_active()
            sample = "-" if active is None else f"{active.sample.id}#{active.epoch}"
            with open(calls, "a", encoding="utf-8") as handle:
                handle.write(f"{prompt_key(system, texts, digests)} {sample}\n")
        return respond(self.model_name, system, texts, digests)
