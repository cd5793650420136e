"""Completions cut by the output token limit: their share as a metric, and a warning at the end of a run.

A completion that stops at `--max-tokens` is scored exactly as the official rules say (a SURDS reply without its
`<answer>` is invalid), but its Score reason is `truncated`, and `truncated_rate` reports the share. A SURDS unit
counts as truncated when any of its prompts stopped at the limit, valid or not: the rate says how often the limit
was reached, the reason says why a unit is invalid (see docs/reasoning-models.md).

The warning is printed by the end-of-run hook (`drive_evals.run_end`): metrics cannot print, and the task's own code
has finished before its results exist.
"""

from __future__ import annotations

import logging

from inspect_ai.log import EvalLog
from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.suite import benchmark_scorers

TRUNCATED_REASON = "truncated"
"""Score reason of a completion (SURDS: an invalid unit) cut by the output token limit."""
TRUNCATED_KEY = "truncated"
"""Score value key: 1 when the completion (SURDS: any prompt of the unit) stopped at the token limit."""
TRUNCATED_RATE = "truncated_rate"
WARN_ABOVE_RATE = 0.01
"""Warn at the end of a run when more than this share of its samples stopped at the token limit."""

logger = logging.getLogger(__name__)


def _truncated(score: SampleScore) -> float:
    value = score.score.value
    flag = value.get(TRUNCATED_KEY) if isinstance(value, dict) else None
    # Logs scored before this key existed count as not truncated.
    return float(flag) if isinstance(flag, (int, float)) else 0.0


@metric
def truncation() -> Metric:
    """`truncated_rate`: the share of samples cut by the token limit (a fraction per sample under epochs), logged
    only when some were (a line of 0.000 in every console said nothing).

    The share over all samples of the run; `drive-evals report` shows SURDS's per subset.
    """

    def compute(scores: list[SampleScore]) -> Value:
        truncated = sum(_truncated(s) for s in scores)
        return {TRUNCATED_RATE: truncated / len(scores)} if truncated else {}

    return compute


def truncation_warning(log: EvalLog) -> str | None:
    """The end-of-run warning for one log, or None when at most `WARN_ABOVE_RATE` of it was truncated."""
    if log.results is None:
        return None
    for score in log.results.scores:
        if score.name not in benchmark_scorers() or TRUNCATED_RATE not in score.metrics:
            continue
        rate = score.metrics[TRUNCATED_RATE].value
        if rate <= WARN_ABOVE_RATE:
            return None
        limit = log.plan.config.max_tokens
        return (
            f"{log.eval.task} ({log.eval.model}): {rate:.1%} of samples stopped at the output token limit "
            f"(max_tokens={limit if limit is not None else 'task default'}) and are scored as cut off "
            f"(Score reason `{TRUNCATED_REASON}`). Re-run with a higher --max-tokens; for reasoning models see "
            "docs/reasoning-models.md."
        )
    return None
