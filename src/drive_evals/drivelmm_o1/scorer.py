"""The DriveLMM-o1 scorer: the twelve-criterion rubric judge (one judge or a panel) and the MCQ rules, together.

One scorer does both because the official MCQ accuracy only counts items that were also judged; keeping them in
one place makes that denominator, and `judge_coverage`, exact. Registered, so `inspect score` can re-judge a log.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import anyio
from inspect_ai.log import transcript
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.drivelmm_o1.judge import JUDGE_ATTEMPTS, Judgement, graders, judge_response
from drive_evals.drivelmm_o1.mcq import MCQResult, lenient_correct, official_correct
from drive_evals.drivelmm_o1.metrics import (
    CRITERION_NAMES,
    JUDGE_OUT_OF_RANGE,
    JUDGE_OVERALL,
    JUDGED,
    MCQ_CORRECT,
    MCQ_COUNTED,
    MCQ_GOLD_UNREADABLE,
    MCQ_LENIENT,
    MIN_PANEL,
    NONE_QUIRK,
    OUT_OF_RANGE_KEY,
    PANEL_KEY,
    REASONING,
    drivelmm_o1_stderr,
    judge_key,
    mcq_metrics,
    panel_agreement,
    reasoning_metrics,
)
from drive_evals.drivelmm_o1.prompts import judge_user_message
from drive_evals.drivelmm_o1.rubric import criterion_fractions, judge_overall, reasoning_score
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
"""An empty response is judged as given (the official pipeline does), but flagged: it is often a cut stream."""
NAN = math.nan


ANSWER_CHARS = 500
JUDGE_INPUT_SOURCE = "judge input (verbatim)"


def shown_answer(final_answer: str) -> str | None:
    """The official final answer as the list shows it: without the `:` left over from `Final Answer:`."""
    return final_answer.strip().lstrip(":").strip()[:ANSWER_CHARS] or None


def verbatim(text: str) -> str:
    """`text` as a fenced block, so the viewer shows it as sent instead of rendering it as Markdown."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def panel_entry(judgement: Judgement, with_scores: bool) -> dict[str, object]:
    """One judge's record in Score.metadata, kept small because every score is copied into the log header.

    The criteria are in the score value already for one judge (a panel needs each judge's, for agreement). The
    raw replies are kept only when the judgement failed; a valid reply is in the transcript.
    """
    parse = judgement.parse if judgement.ok else None
    entry: dict[str, object] = {"judge": judgement.judge, "failure": judgement.failure}
    if with_scores:
        entry["scores"] = parse.scores if parse else None
        entry["reported_overall"] = parse.reported_overall if parse else None
    if parse is None:
        entry["raw_replies"] = judgement.raw_replies
    if judgement.rebuilt:
        entry[REPLY_REBUILT_KEY] = judgement.rebuilt
    return entry


def out_of_range_note(judgements: Sequence[Judgement]) -> dict[str, dict[str, dict[str, float]]]:
    """Score.metadata entry: per judge, the values it gave outside 1-10 (empty when none did)."""
    flagged = {j.judge: j.parse.out_of_range for j in judgements if j.ok and j.parse and j.parse.out_of_range}
    return {OUT_OF_RANGE_KEY: flagged} if flagged else {}


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
        JUDGE_OUT_OF_RANGE: 1.0 if any(p.out_of_range for p in valid) else 0.0,
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


GOLD_UNREADABLE_NOTE = (
    "**Gold answer without an option letter**: the official rule reads no letter from it, so any reply without a "
    "readable letter counts as correct here."
)


def response_reason(judge_failed: bool, truncated: bool, response: str) -> str | None:
    """`grader_failed` (the sample is unjudged) before `truncated` before `no_response`; None otherwise."""
    if judge_failed:
        return GRADER_FAILED
    if truncated:
        return TRUNCATED_REASON
    return None if response.strip() else NO_RESPONSE


def explain(
    judgements: Sequence[Judgement],
    is_mcq: bool,
    official: MCQResult,
    lenient: MCQResult,
    gold_unreadable: bool = False,
) -> str:
    """A few lines: each judge's verdict, where to read the judge's input, the MCQ verdict.

    Short on purpose: every score is copied into the log header. The twelve criteria are in the score value
    (panel means, / 10) and, for a panel, each judge's in Score.metadata.
    """
    parts = []
    for judgement in judgements:
        parse = judgement.parse
        if judgement.ok and parse is not None:
            overall = "not reported" if parse.reported_overall is None else f"{parse.reported_overall:g}"
            parts.append(
                f"**Judge {judgement.judge}**: mean of the 12 criteria {10 * reasoning_score(parse.scores):.2f} "
                f"/ 10; its own Overall Score {overall}."
                + (
                    f" Outside 1-10, counted as given (as the official script does): {parse.out_of_range}."
                    if parse.out_of_range
                    else ""
                )
            )
        else:
            parts.append(f"**Judge {judgement.judge}**: no valid judgement ({judgement.failure})")
    if judgements:
        parts.append(f"The judge's input as it received it: Transcript tab, *Info: {JUDGE_INPUT_SOURCE}*.")
    if is_mcq:
        verdict = "correct" if official.correct else "wrong"
        quirk = " (both letters missing: the official `none == none` quirk)" if official.none_quirk else ""
        parts.append(
            f"**MCQ (official rules)**: model `{official.model_letter}`, gold `{official.gt_letter}`: "
            f"{verdict}{quirk}. "
            f"Lenient diagnostic: model `{lenient.model_letter}`: {'correct' if lenient.correct else 'wrong'}."
        )
        if gold_unreadable:
            parts.append(GOLD_UNREADABLE_NOTE)
    return "\n\n".join(parts)


@scorer(
    metrics=[
        reasoning_metrics(),
        mcq_metrics(),
        drivelmm_o1_stderr(),
        panel_agreement(),
        truncation(),
        replies_rebuilt(),
    ]
)
def drivelmm_o1_scorer(
    judge: bool = True,
    judge_attempts: int = JUDGE_ATTEMPTS,
    judge_cache: bool = True,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    breaker: JudgeBreaker | None = None,
) -> Scorer:
    """Rubric judge (the `grader` role; several models form a panel) plus official and lenient MCQ accuracy.

    Both read the response as the provider returned it (`drive_evals.replies`), as the official judge and MCQ
    rules read the raw output; a rebuilt one is named in the score's metadata. A response cut by the token limit
    is judged as written and gets the reason `truncated` (unless the judge failed).

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
        stored = state.store.get(REPLY_STORE_KEY)
        response = stored if isinstance(stored, str) else rebuilt_text(state.output)
        # A log written before the raw reply was stored holds none: its reply is rebuilt.
        rebuilt = state.store.get(REBUILT_STORE_KEY) if isinstance(stored, str) else [NO_CALL]
        truncated = stopped_at_token_limit(state.output)
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
        values[TRUNCATED_KEY] = 1.0 if truncated else 0.0
        failed = judge and values[JUDGED] == 0.0
        if judge:
            judge_input = judge_user_message(meta["question"], meta["steps"], meta["final_answer"], response)
            transcript().info(verbatim(judge_input), source=JUDGE_INPUT_SOURCE)
        return Score(
            value=values,
            answer=shown_answer(official.final_answer),
            explanation=explain(judgements, is_mcq, official, lenient, bool(meta.get(MCQ_GOLD_UNREADABLE))),
            reason=response_reason(failed, truncated, response),
            metadata={
                PANEL_KEY: [panel_entry(j, len(judgements) > 1) for j in judgements],
                **out_of_range_note(judgements),
                **rebuilt_note(rebuilt),
            },
        )

    return score
