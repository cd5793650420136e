"""The DriveLMM-o1 scorer: the twelve-criterion rubric judge (one judge or a panel) and the MCQ rules, together.

One scorer does both because the official MCQ accuracy only counts items that were also judged; keeping them in
one place makes that denominator, and `judge_coverage`, exact. Registered, so `inspect score` can re-judge a log.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import anyio
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.drivelmm_o1.judge import JUDGE_ATTEMPTS, Judgement, graders, judge_response
from drive_evals.drivelmm_o1.judge_guard import DEFAULT_JUDGE_ERROR_LIMIT, JudgeBreaker
from drive_evals.drivelmm_o1.mcq import MCQResult, lenient_correct, official_correct
from drive_evals.drivelmm_o1.metrics import (
    CRITERION_NAMES,
    JUDGE_OVERALL,
    JUDGED,
    MCQ_CORRECT,
    MCQ_COUNTED,
    MCQ_LENIENT,
    MIN_PANEL,
    NONE_QUIRK,
    PANEL_KEY,
    REASONING,
    by_question,
    judge_key,
    mcq_metrics,
    o1_stderr,
    panel_agreement,
    reasoning_metrics,
)
from drive_evals.drivelmm_o1.rubric import criterion_fractions, judge_overall, reasoning_score, rubric_table

GRADER_FAILED = "grader_failed"
NO_RESPONSE = "no_response"
"""An empty response is judged as given (the official pipeline does), but flagged: it is often a cut stream."""
NAN = math.nan


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else NAN


def rubric_values(judgements: Sequence[Judgement]) -> dict[str, float]:
    """Panel means of the reasoning score, the judge-reported overall and each criterion (all / 10)."""
    valid = [j.parse for j in judgements if j.ok and j.parse is not None]
    overall = [judge_overall(p.reported_overall) for p in valid]
    values = {
        JUDGED: 1.0 if valid else 0.0,
        REASONING: _mean([reasoning_score(p.scores) for p in valid]),
        JUDGE_OVERALL: _mean([o for o in overall if o is not None]),
    }
    fractions = [criterion_fractions(p.scores) for p in valid]
    values.update({name: _mean([f[c] for f in fractions]) for c, name in CRITERION_NAMES.items()})
    values.update(panel_values(judgements))
    return values


def panel_values(judgements: Sequence[Judgement]) -> dict[str, float]:
    """With two judges or more, each judge's reasoning score and criteria, NaN where it gave no valid judgement.

    In `Score.value`, not its metadata: epoch reducers reduce these like the panel means (Inspect keeps only the
    first epoch's metadata), so `panel_agreement` reads the same reduction as the headline.
    """
    if len(judgements) < MIN_PANEL:
        return {}
    values: dict[str, float] = {}
    for index, judgement in enumerate(judgements):
        parse = judgement.parse if judgement.ok else None
        fractions = criterion_fractions(parse.scores) if parse is not None else {}
        values[judge_key(index, REASONING)] = reasoning_score(parse.scores) if parse is not None else NAN
        values.update({judge_key(index, name): fractions.get(c, NAN) for c, name in CRITERION_NAMES.items()})
    return values


def mcq_values(counted: bool, official: MCQResult, lenient: MCQResult) -> dict[str, float]:
    """MCQ values, NaN unless the item counts: with epochs the mean reducer then averages only counted epochs."""
    return {
        MCQ_COUNTED: 1.0 if counted else 0.0,
        MCQ_CORRECT: float(official.correct) if counted else NAN,
        MCQ_LENIENT: float(lenient.correct) if counted else NAN,
        NONE_QUIRK: float(official.none_quirk) if counted else NAN,
    }


def explain(judgements: Sequence[Judgement], is_mcq: bool, official: MCQResult, lenient: MCQResult) -> str:
    parts = []
    for judgement in judgements:
        parse = judgement.parse
        if judgement.ok and parse is not None:
            parts.append(f"**Judge {judgement.judge}**\n\n{rubric_table(parse.scores, parse.reported_overall)}")
        else:
            parts.append(f"**Judge {judgement.judge}**: no valid judgement ({judgement.failure})")
    if is_mcq:
        verdict = "correct" if official.correct else "wrong"
        quirk = " (both letters missing: the official `none == none` quirk)" if official.none_quirk else ""
        parts.append(
            f"**MCQ (official rules)**: model `{official.model_letter}`, gold `{official.gt_letter}`: "
            f"{verdict}{quirk}. "
            f"Lenient diagnostic: model `{lenient.model_letter}`: {'correct' if lenient.correct else 'wrong'}."
        )
    return "\n\n".join(parts)


@scorer(metrics=[reasoning_metrics(), mcq_metrics(), o1_stderr(), by_question(), panel_agreement()])
def drivelmm_o1_scorer(
    judge: bool = True,
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_cache: bool = True,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    breaker: JudgeBreaker | None = None,
) -> Scorer:
    """Rubric judge (the `grader` role; several models form a panel) plus official and lenient MCQ accuracy.

    Args:
        judge: Call the judge. Off, only MCQ accuracy is computed (over all MCQ items) and nothing is paid for.
        judge_attempts: Calls per judge for one sample when replies fail validation.
        judge_cache: Cache judge replies (re-runs and re-scoring reuse every valid judgement).
        judge_error_limit: Consecutive judge API errors after which no judge call is made (`grader_failed`).
        breaker: The task's breaker, shared with its `stop_when_judge_down` solver (default: one of its own).
    """
    breaker = breaker if isinstance(breaker, JudgeBreaker) else JudgeBreaker(judge_error_limit)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        response = state.output.completion
        judgements: list[Judgement] = []
        if judge:
            models = graders()
            judgements = [Judgement(judge=str(m)) for m in models]

            async def run(index: int) -> None:
                judgements[index] = await judge_response(
                    models[index],
                    meta["question"],
                    meta["steps"],
                    meta["final_answer"],
                    response,
                    judge_attempts,
                    judge_cache,
                    breaker,
                )

            async with anyio.create_task_group() as group:
                for index in range(len(models)):
                    group.start_soon(run, index)
        values = rubric_values(judgements)
        is_mcq = bool(meta["mcq"])
        official = official_correct(response, meta["final_answer"])
        lenient = lenient_correct(response, meta["final_answer"])
        counted = is_mcq and (values[JUDGED] == 1.0 or not judge)
        values.update(mcq_values(counted, official, lenient))
        failed = judge and values[JUDGED] == 0.0
        return Score(
            value=values,
            answer=official.final_answer.strip()[:500] or None,
            explanation=explain(judgements, is_mcq, official, lenient),
            reason=GRADER_FAILED if failed else (None if response.strip() else NO_RESPONSE),
            metadata={
                PANEL_KEY: [
                    {
                        "judge": j.judge,
                        "scores": j.parse.scores if j.ok and j.parse else None,
                        "reported_overall": j.parse.reported_overall if j.parse else None,
                        "failure": j.failure,
                        "raw_replies": j.raw_replies,
                    }
                    for j in judgements
                ],
                "mcq_letters": {
                    "official": official.model_letter,
                    "lenient": lenient.model_letter,
                    "gold": official.gt_letter,
                },
            },
        )

    return score
