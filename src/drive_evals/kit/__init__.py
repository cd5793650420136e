"""The benchmark-facing task kit: what a benchmark's package calls to build its task, scorer and judge."""

from drive_evals.kit.judge import (
    ATTEMPT_SCOPE,
    DEFAULT_JUDGE_ERROR_LIMIT,
    NO_VERDICT,
    RAW_REPLY_CHARS,
    Invalid,
    JudgeBreaker,
    JudgeResult,
    call_judge,
    graders,
    judge_generate_config,
    preflight_graders,
    stop_when_judge_down,
)

__all__ = [
    "ATTEMPT_SCOPE",
    "DEFAULT_JUDGE_ERROR_LIMIT",
    "NO_VERDICT",
    "RAW_REPLY_CHARS",
    "Invalid",
    "JudgeBreaker",
    "JudgeResult",
    "call_judge",
    "graders",
    "judge_generate_config",
    "preflight_graders",
    "stop_when_judge_down",
]
