"""The SURDS scorer: per-prompt validity and correctness, then the unit's consistency score."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.surds.conventions import describe, diagnose
from drive_evals.surds.metrics import (
    LOST_KEY,
    SCORE_KEY,
    VALID_KEY,
    surds_lost,
    surds_scores,
    surds_stderr,
    surds_validity,
    xy2d_conventions,
)
from drive_evals.surds.scoring import PromptScore, score_choice, score_point, unit_score
from drive_evals.surds.solver import COMPLETIONS_KEY

INVALID_REASON = "invalid_response_format"
NO_RESPONSE_REASON = "no_response"
SCORING_FAILED_REASON = "scoring_failed"
MISSING_COMPLETIONS = (
    "The log holds only the last of this unit's completions (`inspect eval-retry` in Inspect 0.3.285 recovers "
    "samples finished but not yet written when a run died without their store), so the pair cannot be scored "
    "again; its score from the original run stands in that log. Re-run the sample to score it afresh."
)
EXPLANATION_ANSWER_CHARS = 200
"""Long answers are cut in the explanation table; `Score.metadata` keeps them whole."""


def score_unit(
    subset: str,
    targets: Sequence[str],
    options: Sequence[str],
    box: Sequence[float] | None,
    completions: Sequence[str | None],
) -> tuple[float, list[PromptScore]]:
    """Score each prompt of a unit and combine them by the official consistency rule."""
    per_prompt: list[PromptScore] = []
    for index, gold in enumerate(targets):
        completion = completions[index] if index < len(completions) else None
        if subset == "xy2d":
            if box is None:
                raise ValueError("an xy2d unit needs the target box")
            per_prompt.append(score_point(completion, box))
        else:
            per_prompt.append(score_choice(completion, gold, options))
    return unit_score(per_prompt, len(targets)), per_prompt


def explain(subset: str, targets: Sequence[str], box: object, per_prompt: Sequence[PromptScore]) -> str:
    """A Markdown table: one row per prompt with the extracted answer, the gold, validity and correctness."""
    rows = ["| prompt | answer | gold | valid | score | note |", "|---|---|---|---|---|---|"]
    for index, (gold, verdict) in enumerate(zip(targets, per_prompt, strict=True)):
        answer = _cell(verdict.answer) if verdict.answer is not None else "—"
        if subset == "xy2d":
            gold_text = f"box {box} (centre point {gold})"
            note = f"point {verdict.point}, centerness {verdict.score:.3f}" if verdict.point else ""
        else:
            gold_text = _cell(gold)
            note = "correct" if verdict.correct else ("wrong" if verdict.valid else "")
        rows.append(
            f"| {index} | {answer} | {gold_text} | {'yes' if verdict.valid else 'no'} | {verdict.score:g} | "
            f"{verdict.reason or note} |"
        )
    return "\n".join(rows)


def _cell(text: str) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= EXPLANATION_ANSWER_CHARS else flat[:EXPLANATION_ANSWER_CHARS] + "…"


@scorer(metrics=[surds_scores(), surds_stderr(), surds_validity(), xy2d_conventions(), surds_lost()])
def surds_scorer() -> Scorer:
    """Official SURDS scoring of one unit: first `<answer>` block, validity gate, exact match or centerness."""

    async def score(state: TaskState, target: Target) -> Score:
        stored = state.store.get(COMPLETIONS_KEY)
        if stored is None and len(state.metadata["prompts"]) > 1:
            # Not Score.unscored(): metrics never see those, and `<subset>_lost_units` must count this unit.
            lost = {SCORE_KEY: math.nan, VALID_KEY: math.nan, LOST_KEY: 1.0}
            return Score(value=lost, reason=SCORING_FAILED_REASON, explanation=MISSING_COMPLETIONS)
        # An empty completion is no response (an Anthropic stream cut after `message_start` gives one silently),
        # not a format error: each such prompt says "no completion" and the unit's reason is `no_response`.
        completions = [c if c and c.strip() else None for c in stored or [state.output.completion]]
        metadata = state.metadata
        value, per_prompt = score_unit(
            metadata["subset"], target.target, metadata["options"], metadata["bbox"], completions
        )
        valid = all(p.valid for p in per_prompt)
        reasons = [p.reason for p in per_prompt if p.reason]
        empty = None in completions
        first = per_prompt[0]
        conventions = diagnose(first.answer, first.point, metadata["bbox"]) if metadata["subset"] == "xy2d" else {}
        return Score(
            value={SCORE_KEY: value, VALID_KEY: 1.0 if valid else 0.0, LOST_KEY: 0.0, **conventions},
            answer=" | ".join(p.answer if p.answer is not None else "" for p in per_prompt),
            explanation=explain(state.metadata["subset"], target.target, state.metadata["bbox"], per_prompt)
            + describe(conventions),
            reason=None if valid else (NO_RESPONSE_REASON if empty else INVALID_REASON),
            metadata={
                "unit_id": state.metadata["unit_id"],
                "invalid_reasons": reasons,
                "prompts": [
                    {"answer": p.answer, "valid": p.valid, "score": p.score, "reason": p.reason, "point": p.point}
                    for p in per_prompt
                ],
            },
        )

    return score
