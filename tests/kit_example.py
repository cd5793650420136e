"""The smallest benchmark the task kit makes: a multiple-choice question per image, one letter rule, the whole
`task.py` of such a package (docs/adding-a-benchmark.md shows this file; tests/test_kit.py runs it)."""

from __future__ import annotations

import re

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.kit import (
    TRUNCATED_KEY,
    SampleColumns,
    SuiteArgs,
    SuiteTask,
    blind_sample,
    make_task,
    open_data,
    planned_mean,
    read_json,
    stopped_at_token_limit,
    suite_task,
    truncation,
)

QUESTIONS_FILE = "questions.json"
"""The official annotation file: a list of {id, image, question, options, answer}."""
LETTER = re.compile(r"\b([A-D])\b")
"""The official answer rule: the first standalone option letter in the reply."""
CORRECT, IMAGE_KEY = "correct", "image"
TASK_VERSION = 1


@scorer(metrics=[planned_mean("accuracy", CORRECT, IMAGE_KEY), truncation()])
def toy_mcq_scorer() -> Scorer:
    """1 when the reply's first option letter is the answer (no letter: wrong), as the official script reads it."""

    async def score(state: TaskState, target: Target) -> Score:
        found = LETTER.search(state.output.completion)
        answer = found[1] if found else ""
        truncated = float(stopped_at_token_limit(state.output))
        return Score(value={CORRECT: float(answer == target.text), TRUNCATED_KEY: truncated}, answer=answer)

    return score


TOY_MCQ_TASK = SuiteTask("toy_mcq", scorer=toy_mcq_scorer)


@suite_task(TOY_MCQ_TASK, data="example/toy-mcq")
def toy_mcq(suite: SuiteArgs) -> Task:
    """Toy MCQ: one multiple-choice question per driving image, scored by the official letter rule."""
    snapshot = open_data(suite)
    snapshot.fetch([QUESTIONS_FILE])
    records = read_json(snapshot.root / QUESTIONS_FILE)
    images = suite.shard.clusters((r["image"] for r in records), "images") if suite.shard else None
    records = [r for r in records if images is None or r["image"] in images]
    snapshot.fetch([r["image"] for r in records])
    samples = [
        Sample(
            id=r["id"],
            input=[
                ChatMessageUser(
                    content=[
                        ContentImage(image=str(snapshot.root / r["image"])),
                        ContentText(text=r["question"] + "\n" + "\n".join(r["options"])),
                    ]
                )
            ],
            target=r["answer"],
            metadata={IMAGE_KEY: r["image"]},
        )
        for r in records
    ]
    return make_task(
        suite,
        dataset=[blind_sample(s) for s in samples] if suite.blind else samples,
        scorer=toy_mcq_scorer(),
        version=TASK_VERSION,
        headline="accuracy",
        config=GenerateConfig(temperature=0.0, max_tokens=16),
        kept=[IMAGE_KEY],
        metadata={"data": snapshot.provenance(), "questions": len(samples)},
        columns=SampleColumns("Toy MCQ questions", [CORRECT]),
    )
