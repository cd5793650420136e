"""Policies that answer the drive_evals benchmarks (demo data), shared by the fake server and `policy/<name>`.

A policy is a pure function of what a request carries: its system text, the last user turn's texts and the
sha256 of its images. The fake server calls it through `drive_policy(name)`; the in-process provider
`policy/<name>` in `fake_models` calls `respond` with the same three things taken from Inspect's messages. So a
run through a real client and the fake server, with or without faults, must give exactly the log of the same
run against the in-process provider: any difference is the client path losing, repeating or changing a reply.

Policies: `correct`, `wrong`, `malformed`, `chance`, and `mixed`, which picks one of the four per prompt by
hash, so its scores are neither 0 nor 1 and a lost or changed reply shows. Judge requests (recognised by the
official judge system prompt) get twelve criteria drawn by hash; under `mixed` a tenth of them get a reply
that is not JSON, every time, so the judge's validation retries and `grader_failed` are exercised too.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fake_models import image_digest
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText

from drive_evals.data import open_snapshot
from drive_evals.drivelmm_o1.dataset import ImageOptions, load_drivelmm_o1
from drive_evals.drivelmm_o1.mcq import official_letter
from drive_evals.drivelmm_o1.prompts import CRITERIA, JUDGE_SYSTEM_PROMPT, OVERALL_SCORE_KEY
from drive_evals.drivelmm_o1.solver import input_parts, official_message
from drive_evals.surds.dataset import load_surds
from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH
from drive_evals.surds.units import SUBSETS

from .policies import Policy
from .records import FakeRequest, prompt_key

DEMO = "demo"
POLICIES = ("correct", "wrong", "malformed", "chance", "mixed")
MIXED_SHARES = (("correct", 50), ("wrong", 20), ("malformed", 15), ("chance", 15))
"""How `mixed` splits prompts among the other behaviours, in percent."""
MIXED_JUDGE_INVALID_PERCENT = 10
INVALID_JUDGE_REPLY = "I would rather not grade this response."
CRITERION_SPAN = 10
"""Judge criteria are drawn from 1..10."""

SURDS_MALFORMED = (
    "I cannot tell from this image.",
    "<think>Unsure.</think>\n<answer>{target}",
    "<answer></answer>",
    "<answer>something else entirely</answer>",
    "<answer>[1e3, 2e2]</answer>",
)
"""Replies that break the SURDS format in different ways (`{target}` is the gold: an unclosed tag hides it)."""
DRIVELMM_O1_MALFORMED = (
    "I would rather describe the scene freely: there are cars, and the ego vehicle should be careful."
)
DRIVELMM_O1_WRONG_FREE_TEXT = "Reasoning Steps: 1. Ignore the scene.\nFinal Answer: Speed up and overtake everyone."
_OPTION_LINE = re.compile(r"^\s*([A-F])\)\s*(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class SurdsPrompt:
    subset: str
    target: str
    options: tuple[str, ...]
    bbox: tuple[float, ...] | None


@dataclass(frozen=True)
class DriveLMMPrompt:
    question: str
    steps: str
    final_answer: str


def normalise(text: str) -> str:
    """White space collapsed: providers may trim or re-join text parts, and the policy must not care."""
    return " ".join(text.split())


def lookup_key(texts: Sequence[str], digests: Sequence[str]) -> str:
    return "\n".join(normalise(text) for text in texts) + "|" + ",".join(digests)


def _input_parts(sample: Sample) -> tuple[list[str], list[str]]:
    first = sample.input[0]
    assert isinstance(first, ChatMessageUser) and isinstance(first.content, list)
    texts = [part.text for part in first.content if isinstance(part, ContentText)]
    digests = [image_digest(part.image) for part in first.content if isinstance(part, ContentImage)]
    return texts, digests


@functools.cache
def surds_prompts() -> dict[str, SurdsPrompt]:
    """Every demo SURDS prompt (both prompts of a pair) by lookup key."""
    index: dict[str, SurdsPrompt] = {}
    for sample in load_surds(open_snapshot(DEMO, "surds"), list(SUBSETS), "metadata").dataset:
        meta = sample.metadata or {}
        _, digests = _input_parts(sample)
        bbox = tuple(meta["bbox"]) if meta["bbox"] is not None else None
        for prompt, target in zip(meta["prompts"], meta["targets"], strict=True):
            index[lookup_key([prompt], digests)] = SurdsPrompt(meta["subset"], target, tuple(meta["options"]), bbox)
    return index


def surds_request_keys() -> dict[str, list[str]]:
    """Demo SURDS sample id -> the server's prompt keys (`FakeRequest.key`) of its requests."""
    keys: dict[str, list[str]] = {}
    for sample in load_surds(open_snapshot(DEMO, "surds"), list(SUBSETS), "metadata").dataset:
        _, digests = _input_parts(sample)
        keys[str(sample.id)] = [prompt_key(None, [prompt], digests) for prompt in (sample.metadata or {})["prompts"]]
    return keys


@functools.cache
def drivelmm_o1_prompts() -> dict[str, DriveLMMPrompt]:
    """Every demo DriveLMM-o1 prompt (grid mode) by lookup key, as the model receives it (the official message the
    solver builds from the sample input); builds the grids in the drive_evals cache."""
    built = load_drivelmm_o1(DEMO, None, None, ImageOptions())
    index: dict[str, DriveLMMPrompt] = {}
    for sample in built.dataset:
        meta = sample.metadata or {}
        _, digests = _input_parts(sample)
        question, images = input_parts(sample.input[0])  # type: ignore[arg-type]
        sent = official_message(question, images).content
        texts = [part.text for part in sent if isinstance(part, ContentText)]
        index[lookup_key(texts, digests)] = DriveLMMPrompt(meta["question"], meta["steps"], meta["final_answer"])
    return index


def draw(*parts: str) -> int:
    """A stable pseudo-random integer from strings (no process-dependent hashing)."""
    return int.from_bytes(hashlib.sha256("\0".join(parts).encode()).digest()[:8], "big")


def behaviour(policy: str, key: str) -> str:
    if policy not in POLICIES:
        raise LookupError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    if policy != "mixed":
        return policy
    point = draw("mixed", key) % 100
    for name, share in MIXED_SHARES:
        if point < share:
            return name
        point -= share
    raise AssertionError("MIXED_SHARES must add up to 100")


def respond(policy: str, system: str | None, texts: Sequence[str], digests: Sequence[str]) -> str:
    """The policy's reply to one request; raises LookupError for a prompt it does not know."""
    if system is not None and normalise(system) == normalise(JUDGE_SYSTEM_PROMPT):
        return judge_reply(policy, "\n".join(texts))
    key = lookup_key(texts, digests)
    surds = surds_prompts().get(key)
    if surds is not None:
        return surds_reply(behaviour(policy, key), surds, key)
    o1 = drivelmm_o1_prompts().get(key)
    if o1 is not None:
        return drivelmm_o1_reply(behaviour(policy, key), o1, key)
    raise LookupError(f"policy {policy!r} does not know this prompt: {key[:120]!r}")


def drive_policy(name: str) -> Policy:
    """The fake server's side of policy `name`."""
    behaviour(name, "")  # fail at once on an unknown name

    def policy(request: FakeRequest) -> str:
        return respond(name, request.system, request.texts, [image.sha256 for image in request.images])

    return policy


def surds_reply(kind: str, prompt: SurdsPrompt, key: str) -> str:
    if kind == "malformed":
        return SURDS_MALFORMED[draw("malformed", key) % len(SURDS_MALFORMED)].format(target=prompt.target)
    if prompt.subset == "xy2d":
        answer = _xy2d_answer(kind, prompt, key)
    elif kind == "correct":
        answer = prompt.target
    elif kind == "wrong":
        answer = next(o for o in prompt.options if normalise(o).lower() != normalise(prompt.target).lower())
    else:
        answer = prompt.options[draw("chance", key) % len(prompt.options)]
    return f"<think>Answering by policy ({kind}).</think>\n<answer>{answer}</answer>"


def _xy2d_answer(kind: str, prompt: SurdsPrompt, key: str) -> str:
    assert prompt.bbox is not None
    x0, y0, x1, y1 = prompt.bbox
    if kind == "correct":
        return f"[{(x0 + x1) / 2}, {(y0 + y1) / 2}]"
    if kind == "wrong":  # the frame corner farthest from the box: valid, centerness 0
        x = IMAGE_WIDTH - 1 if (x0 + x1) / 2 < IMAGE_WIDTH / 2 else 0
        y = IMAGE_HEIGHT - 1 if (y0 + y1) / 2 < IMAGE_HEIGHT / 2 else 0
        return f"[{x}, {y}]"
    value = draw("chance", key)
    return f"[{value % IMAGE_WIDTH}, {value // IMAGE_WIDTH % IMAGE_HEIGHT}]"


def drivelmm_o1_reply(kind: str, prompt: DriveLMMPrompt, key: str) -> str:
    options = _OPTION_LINE.findall(prompt.question)
    if kind == "correct":
        return f"Reasoning Steps: {prompt.steps.strip()}\nFinal Answer: {prompt.final_answer}"
    if kind == "malformed":
        return DRIVELMM_O1_MALFORMED
    if not options:
        return DRIVELMM_O1_WRONG_FREE_TEXT
    if kind == "wrong":
        gold = official_letter(prompt.final_answer)
        letter, text = next((o for o in options if o[0] != gold), options[0])
    else:
        letter, text = options[draw("chance", key) % len(options)]
    return f"Reasoning Steps: 1. Pick an option ({kind}).\nFinal Answer: {letter}) {text}"


def judge_reply(policy: str, user_text: str) -> str:
    """Twelve criteria drawn by hash from the judge prompt; `mixed` answers a tenth of prompts with prose."""
    key = normalise(user_text)
    if policy == "mixed" and draw("judge-invalid", key) % 100 < MIXED_JUDGE_INVALID_PERCENT:
        return INVALID_JUDGE_REPLY
    scores = {name: float(1 + draw("judge", name, key) % CRITERION_SPAN) for name in CRITERIA}
    scores[OVERALL_SCORE_KEY] = round(sum(scores.values()) / len(scores), 1)
    return json.dumps(scores)
