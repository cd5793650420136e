"""The VLADBench scorer: each question's part of its task's official counts (`rules.score_question`).

The task, aspect and total scores are computed from these parts by the metrics (`metrics.vladbench_scores`),
since the official scores are not means over questions. Registered, so `inspect score` can re-score a log with
another `box_format`.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.params import choice
from drive_evals.replies import (
    NO_CALL,
    REBUILT_STORE_KEY,
    REPLY_STORE_KEY,
    rebuilt_note,
    rebuilt_text,
    replies_rebuilt,
    stopped_at_token_limit,
)
from drive_evals.truncation import TRUNCATED_KEY, TRUNCATED_REASON, truncation
from drive_evals.vladbench.dataset import TASK_KEY
from drive_evals.vladbench.metrics import CORRECT_KEY, IOU_KEY, OBEY_KEY, PAIRED_KEY, vladbench_scores
from drive_evals.vladbench.readback import read_back
from drive_evals.vladbench.rules import BOX_FORMATS, OBEY_SEMICOLONS, Verdict, score_question
from drive_evals.vladbench.taxonomy import BY_NAME, THIRD_METRIC

NO_RESPONSE_REASON = "no_response"
SHOWN_CHARS = 200


def explain(verdict: Verdict, task: str) -> str:
    """One line: what was read, the credit, obey, and the third metric's part where there is one."""
    info = BY_NAME[task]
    read = f"`{verdict.read[:SHOWN_CHARS]}`" if verdict.read else "nothing"
    parts = [f"read {read}", f"accuracy credit {verdict.correct:g}", f"obey {'yes' if verdict.obey else 'no'}"]
    if verdict.localisation:
        parts.append(f"IoU {verdict.iou:.3f}")
    if info.scorer == "judge":
        parts.append("yes/no question" if verdict.yes_no else "descriptive question")
    if info.scorer in ("relation", "road_speed", "road_change"):
        parts.append("in the tip-consistency pairs" if verdict.paired else "left out of the tip-consistency pairs")
    third = "" if info.scorer == "general" else f" ({THIRD_METRIC[info.scorer]} weighted {info.weights[0]:g})"
    return f"{task}{third}: " + " · ".join(parts)


@scorer(metrics=[vladbench_scores(), truncation(), replies_rebuilt()])
def vladbench_scorer(box_format: str = "norm1000", obey_semicolons: str = "vlmevalkit") -> Scorer:
    """VLMEvalKit's rule for the question's task, on the reply as the provider returned it.

    Args:
        box_format: How box answers are read: `norm1000` (VLMEvalKit's convention, [x1, y1, x2, y2] on a 0-1000
            grid; a box summing below 4 is read as 0-1) or `pixel` (pixels of the image, as the question states
            its size; the authors' unscaled branch).
        obey_semicolons: `vlmevalkit` (the question keeps its `;` in the obey check) or `strip` (removed, as the
            authors' scorer does).
    """
    box = choice("box_format", box_format, BOX_FORMATS)
    semicolons = choice("obey_semicolons", obey_semicolons, OBEY_SEMICOLONS)

    async def score(state: TaskState, target: Target) -> Score:
        stored = state.store.get(REPLY_STORE_KEY)
        reply = stored if stored is not None else rebuilt_text(state.output)
        rebuilt = state.store.get(REBUILT_STORE_KEY) or [NO_CALL]
        truncated = stopped_at_token_limit(state.output)
        metadata = state.metadata
        task = str(metadata[TASK_KEY])
        verdict = score_question(
            BY_NAME[task].scorer,
            str(metadata["question"]),
            target.text,
            metadata.get("dimension"),
            read_back(reply),  # as VLMEvalKit's scorers read it from its xlsx prediction file
            box,  # type: ignore[arg-type]  # checked by `choice`
            semicolons,  # type: ignore[arg-type]
        )
        reason = TRUNCATED_REASON if truncated else (NO_RESPONSE_REASON if not reply else None)
        return Score(
            value={
                CORRECT_KEY: verdict.correct,
                OBEY_KEY: 1.0 if verdict.obey else 0.0,
                IOU_KEY: verdict.iou,
                PAIRED_KEY: 1.0 if verdict.paired else 0.0,
                TRUNCATED_KEY: 1.0 if truncated else 0.0,
            },
            answer=reply,
            explanation=explain(verdict, task),
            reason=reason,
            metadata=rebuilt_note(rebuilt) or None,
        )

    return score
