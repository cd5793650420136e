"""The DriveBench scorer: the official GPT score (the `grader` role), official and corrected MCQ accuracy, and the
yes/no extension, on the reply as the provider returned it (the official `pred` is the raw output text).

Registered, so `inspect score` can re-judge a log (`--model-role grader=...`).
"""

from __future__ import annotations

import math

import anyio
from inspect_ai.log import transcript
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.drivebench.judge import JUDGE_ATTEMPTS, SCORE_MAX, Judgement, graders, judge_reply
from drive_evals.drivebench.mcq import corrected_result, official_result, yes_no_correct
from drive_evals.drivebench.metrics import (
    GPT,
    JUDGED,
    MCQ_CORRECT,
    MCQ_CORRECTED,
    MCQ_EMPTY_MATCH,
    OFFICIAL_ITEM,
    OUT_OF_RANGE,
    PRED_KEY,
    YES_NO_CORRECT,
    drivebench_metrics,
)
from drive_evals.drivebench.prompts import judge_message
from drive_evals.drivebench.ptb import check_tokenizer
from drive_evals.judge_guard import DEFAULT_JUDGE_ERROR_LIMIT, JudgeBreaker
from drive_evals.replies import (
    NO_CALL,
    REBUILT_STORE_KEY,
    REPLY_REBUILT_KEY,
    REPLY_STORE_KEY,
    rebuilt_note,
    rebuilt_text,
    replies_rebuilt,
    stopped_at_token_limit,
)
from drive_evals.truncation import TRUNCATED_KEY, TRUNCATED_REASON, truncation

GRADER_FAILED = "grader_failed"
NO_RESPONSE = "no_response"
ANSWER_CHARS = 300
JUDGE_INPUT_SOURCE = "judge input (verbatim)"


def mcq_values(kind: str, reply: str, answer: str, question: str) -> tuple[dict[str, float], str | None]:
    """MCQ values (NaN for other kinds) and the answer column's text."""
    if kind != "MCQ":
        return {MCQ_CORRECT: math.nan, MCQ_CORRECTED: math.nan, MCQ_EMPTY_MATCH: math.nan}, None
    official, corrected = official_result(reply, answer), corrected_result(reply, answer, question)
    values = {
        MCQ_CORRECT: float(official.correct),
        MCQ_CORRECTED: float(corrected.correct),
        MCQ_EMPTY_MATCH: float(official.empty_match),
    }
    shown = f"{official.model_letter or '-'} (corrected: {corrected.model_letter or '-'})"
    return values, shown


def explain(judgements: list[Judgement], kind: str, mcq: dict[str, float], gold: str) -> str:
    """Each judge's score (or why there is none) and the MCQ verdicts."""
    parts = [
        f"**Judge {j.judge}**: Total Score {j.score}" if j.score is not None else f"**Judge {j.judge}**: {j.failure}"
        for j in judgements
    ]
    if judgements:
        parts.append(f"The judge's input as sent: Transcript tab, *Info: {JUDGE_INPUT_SOURCE}*.")
    if kind == "MCQ":
        verdict = "correct" if mcq[MCQ_CORRECT] == 1.0 else "wrong"
        empty = " (both unreadable: `'' == ''`)" if mcq[MCQ_EMPTY_MATCH] == 1.0 else ""
        corrected = "correct" if mcq[MCQ_CORRECTED] == 1.0 else "wrong"
        parts.append(f"**MCQ** (gold {gold}): official parser {verdict}{empty}; corrected parser {corrected}.")
    return "\n\n".join(parts)


@scorer(metrics=[drivebench_metrics(), truncation(), replies_rebuilt()])
def drivebench_scorer(
    judge: bool = True,
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_cache: bool = True,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    breaker: JudgeBreaker | None = None,
) -> Scorer:
    """GPT score from the `grader` role (several models: their mean), official and corrected MCQ accuracy.

    Args:
        judge: Call the judge; off, only MCQ accuracy, the yes/no extension and the language metrics are computed.
        judge_attempts: Calls per judge for one question when the reply has no `Total Score`.
        judge_cache: Cache judge replies (a re-run or re-score reuses every readable one).
        judge_error_limit: Consecutive judge API errors after which no judge call is made (`grader_failed`).
        breaker: The task's breaker, shared with its `stop_when_judge_down` solver.
    """
    check_tokenizer()  # the language metrics need the official tokenizer: fail now, not after the model calls
    breaker = breaker if isinstance(breaker, JudgeBreaker) else JudgeBreaker(judge_error_limit)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        stored = state.store.get(REPLY_STORE_KEY)
        reply = stored if isinstance(stored, str) else rebuilt_text(state.output)
        rebuilt = state.store.get(REBUILT_STORE_KEY) if isinstance(stored, str) else [NO_CALL]
        task, kind, question, answer = meta["task"], meta["kind"], meta["question"], meta["answer"]
        judgements: list[Judgement] = []
        if judge:
            message = judge_message(task, kind, question, answer, reply, meta.get("judge_description"))
            transcript().info(f"```text\n{message}\n```", source=JUDGE_INPUT_SOURCE)
            models = graders()
            judgements = [Judgement(judge=str(m)) for m in models]

            async def run(index: int) -> None:
                judgements[index] = await judge_reply(models[index], message, judge_attempts, judge_cache, breaker)

            async with anyio.create_task_group() as group:
                for index in range(len(models)):
                    group.start_soon(run, index)
        given = [j.score for j in judgements if j.score is not None]
        values: dict[str, float] = {
            GPT: sum(given) / len(given) / SCORE_MAX if given else math.nan,
            JUDGED: (1.0 if given else 0.0) if judge else math.nan,
            OUT_OF_RANGE: float(any(s > SCORE_MAX for s in given)),
            OFFICIAL_ITEM: float(bool(meta.get("officially_scored"))),
        }
        mcq, shown = mcq_values(kind, reply, answer, question)
        values.update(mcq)
        values[YES_NO_CORRECT] = float(yes_no_correct(reply, answer)) if kind == "yes/no" else math.nan
        truncated = stopped_at_token_limit(state.output)
        values[TRUNCATED_KEY] = float(truncated)
        failed = judge and not given
        reason = GRADER_FAILED if failed else TRUNCATED_REASON if truncated else None if reply.strip() else NO_RESPONSE
        return Score(
            value=values,
            answer=shown or reply.strip()[:ANSWER_CHARS] or None,
            explanation=explain(judgements, kind, mcq, answer),
            reason=reason,
            metadata={
                "judges": [
                    {"judge": j.judge, "score": j.score, "failure": j.failure}
                    | ({"raw_replies": j.raw_replies} if j.score is None else {})
                    | ({REPLY_REBUILT_KEY: j.rebuilt} if j.rebuilt else {})
                    for j in judgements
                ],
                **({PRED_KEY: reply} if kind == "VQA" else {}),
                **rebuilt_note(rebuilt),
            },
        )

    return score
