"""The SURDS scorer: per-prompt validity and correctness, then the unit's consistency score."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.replies import (
    NO_CALL,
    REBUILT_STORE_KEY,
    rebuilt_note,
    rebuilt_text,
    replies_rebuilt,
    stopped_at_token_limit,
)
from drive_evals.surds.conventions import describe, diagnose
from drive_evals.surds.metrics import (
    CONVENTIONS_KEY,
    LOST_KEY,
    SCORE_KEY,
    VALID_KEY,
    surds_lost,
    surds_scores,
    surds_stderr,
    surds_validity,
)
from drive_evals.surds.rules import PromptScore, score_choice, score_point, unit_score
from drive_evals.surds.solver import COMPLETIONS_KEY, TRUNCATED_STORE_KEY
from drive_evals.truncation import TRUNCATED_KEY, TRUNCATED_REASON, truncation

INVALID_REASON = "invalid_response_format"
NO_RESPONSE_REASON = "no_response"
SCORING_FAILED_REASON = "scoring_failed"
MISSING_COMPLETIONS = (
    "The log holds only the last of this unit's completions (`inspect eval-retry` in Inspect 0.3.285 recovers "
    "samples finished but not yet written when a run died without their store), so the pair cannot be scored "
    "again; its score from the original run stands in that log. Re-run the sample to score it afresh."
)
EXPLANATION_ANSWER_CHARS = 200
"""Long answers are cut in the explanation; the transcript keeps them whole."""
PAIR_SEPARATOR = ", "
"""Joins a pair's answers; the viewer joins a list target with the same separator, so the columns line up."""


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
    """One Markdown line per prompt, numbered as the transcript numbers turns (`1/2`, `2/2`).

    A list rather than a table: the viewer's score panel draws Markdown tables without cell padding, so short
    headers ran together ("validscorenote").
    """
    total = len(targets)
    lines = []
    for number, (gold, verdict) in enumerate(zip(targets, per_prompt, strict=True), start=1):
        answer = f"`{_cell(verdict.answer)}`" if verdict.answer is not None else "none"
        if subset == "xy2d":
            gold_text = f"box {box} (centre point {gold})"
            note = f"point {verdict.point}, centerness {verdict.score:.3f}" if verdict.point else ""
        else:
            gold_text = f"`{_cell(gold)}`"
            note = "correct" if verdict.correct else ("wrong" if verdict.valid else "")
        validity = "valid" if verdict.valid else "invalid"
        detail = verdict.reason or note
        lines.append(
            f"- **Prompt {number}/{total}**: answer {answer} · gold {gold_text} · {validity} · "
            f"score {verdict.score:g}{f' · {detail}' if detail else ''}"
        )
    return "\n".join(lines)


def _cell(text: str) -> str:
    flat = " ".join(text.split()).replace("`", "'")
    return flat if len(flat) <= EXPLANATION_ANSWER_CHARS else flat[:EXPLANATION_ANSWER_CHARS] + "…"


def unit_reason(
    per_prompt: Sequence[PromptScore], completions: Sequence[str | None], truncated: Sequence[bool]
) -> str | None:
    """Why a unit is invalid: `truncated` when an invalid prompt stopped at the token limit, else `no_response`
    when a prompt has no completion, else `invalid_response_format`; None for a valid unit."""
    invalid = [index for index, verdict in enumerate(per_prompt) if not verdict.valid]
    if not invalid:
        return None
    if any(truncated[index] for index in invalid):
        return TRUNCATED_REASON
    return NO_RESPONSE_REASON if None in completions else INVALID_REASON


def describe_truncation(truncated: Sequence[bool]) -> str:
    """A line under the explanation table naming the prompts cut by the token limit (empty when none was)."""
    cut = [f"{index + 1}/{len(truncated)}" for index, flag in enumerate(truncated) if flag]
    if not cut:
        return ""
    label = "Prompt" if len(cut) == 1 else "Prompts"  # numbered as the transcript's turns
    return f"\n\n{label} {', '.join(cut)} stopped at the output token limit (`max_tokens`): scored as written."


@scorer(metrics=[surds_scores(), surds_stderr(), surds_validity(), truncation(), surds_lost(), replies_rebuilt()])
def surds_scorer() -> Scorer:
    """Official SURDS scoring of one unit: first `<answer>` block, validity gate, exact match or centerness.

    Each reply is scored as the provider returned it (`drive_evals.replies`); a rebuilt one is named in the
    score's metadata.
    """

    async def score(state: TaskState, target: Target) -> Score:
        stored = state.store.get(COMPLETIONS_KEY)
        if stored is None and len(state.metadata["prompts"]) > 1:
            # Not Score.unscored(): metrics never see those, and `lost_units` must count this unit.
            lost = {SCORE_KEY: math.nan, VALID_KEY: math.nan, TRUNCATED_KEY: 0.0, LOST_KEY: 1.0}
            return Score(value=lost, reason=SCORING_FAILED_REASON, explanation=MISSING_COMPLETIONS)
        # An empty completion is no response (an Anthropic stream cut after `message_start` gives one silently),
        # not a format error: each such prompt says "no completion" and the unit's reason is `no_response`.
        completions = [c if c and c.strip() else None for c in stored or [rebuilt_text(state.output)]]
        # Logs written before the raw text was stored hold rebuilt replies.
        rebuilt = state.store.get(REBUILT_STORE_KEY) or [NO_CALL] * len(completions)
        # Logs written before the flags were stored count as not truncated.
        flags = state.store.get(TRUNCATED_STORE_KEY) or ([] if stored else [stopped_at_token_limit(state.output)])
        truncated = [index < len(flags) and bool(flags[index]) for index in range(len(target.target))]
        metadata = state.metadata
        value, per_prompt = score_unit(
            metadata["subset"], target.target, metadata["options"], metadata["bbox"], completions
        )
        valid = all(p.valid for p in per_prompt)
        reasons = [p.reason for p in per_prompt if p.reason]
        first = per_prompt[0]
        conventions = diagnose(first.answer, first.point, metadata["bbox"]) if metadata["subset"] == "xy2d" else {}
        return Score(
            value={
                SCORE_KEY: value,
                VALID_KEY: 1.0 if valid else 0.0,
                TRUNCATED_KEY: 1.0 if any(truncated) else 0.0,
                LOST_KEY: 0.0,
            },
            answer=PAIR_SEPARATOR.join(p.answer if p.answer is not None else "" for p in per_prompt),
            explanation=explain(state.metadata["subset"], target.target, state.metadata["bbox"], per_prompt)
            + describe(conventions)
            + describe_truncation(truncated),
            reason=unit_reason(per_prompt, completions, truncated),
            # Lean: every score is copied into the log header (`reductions`); the explanation shows each prompt.
            metadata={
                **({"invalid_reasons": reasons} if reasons else {}),
                **({CONVENTIONS_KEY: conventions} if conventions else {}),
                **rebuilt_note(rebuilt),
            }
            or None,
        )

    return score
