"""No run hangs on a model that stopped answering: each call gives up after a bounded time, and the run stops with
one line that says so, its finished samples kept for `inspect eval-retry`.

Inspect 0.3.285 retries a refused connection or a timed-out attempt forever unless `timeout` (the whole call,
retries included) or `max_retries` is set. Both tasks set `timeout` to `CALL_TIMEOUT_SECONDS` in their generate
config; `--timeout N` replaces it, and role models (the judge) inherit it (`Model._resolve_config`). `timeout` is
neither in Inspect's cache key nor in `eval-set`'s task identity, so it changes no cached reply and no resume. A
hung attempt ends at `--attempt-timeout` (the judge's own `attempt_timeout`), else at the SDK's own timeout.

When the model under test gives up, the sample fails with `ModelUnansweredError` (one line), and the run stops as
Inspect stops on a sample error; a judge that gives up is one API error for the judge breaker
(judge_guard.py), which stops the run at `judge_error_limit`.
"""

from __future__ import annotations

from drive_evals.errors import DriveEvalsError, report_at_exit

CALL_TIMEOUT_SECONDS = 900
"""Seconds one model call may take, retries included, before it fails. Long enough to ride out the 5xx and 429
bursts of a hosted API (Inspect's backoff starts at 3 s and doubles), short enough that a dead server stops a run
within a quarter of an hour instead of never."""
GAVE_UP = frozenset({"RetryError", "AttemptTimeoutError", "APIConnectionError", "APITimeoutError"})
"""Errors that mean no answer came: Inspect's retries ran out (tenacity's `RetryError`), an attempt timed out, or
the SDK could not connect (the `openai` and `anthropic` SDKs share these names)."""


class ModelUnansweredError(DriveEvalsError, RuntimeError):
    """The model under test gave no answer within the run's time limit; the run stops, finished samples kept."""


def gave_up(error: BaseException) -> bool:
    """Whether `error` means the model did not answer (rather than answered with an error)."""
    seen: BaseException | None = error
    for _ in range(10):  # the chain: RetryError -> the last attempt's error -> its cause
        if seen is None:
            return False
        if type(seen).__name__ in GAVE_UP or isinstance(seen, TimeoutError):
            return True
        last = getattr(seen, "last_attempt", None)
        seen = last.exception() if last is not None else seen.__cause__
    return False


def stop_unanswered(model: str, error: BaseException) -> None:
    """Raise `ModelUnansweredError` for `error` if it means no answer came; report it on stderr at exit."""
    if not gave_up(error):
        return
    from inspect_ai.model._generate_config import active_generate_config

    timeout = active_generate_config().timeout
    limit = f"--timeout {timeout} s" if timeout is not None else "its retries"
    message = (
        f"Run stopped: the model under test {model} gave no answer within {limit} ({_reason(error)}). "
        "The finished samples are in the log: once the model answers, `inspect eval-retry <log>` runs only the rest "
        "(see README, 'Fail fast')."
    )
    report_at_exit(message)
    _rich_traceback_guard = True  # read by rich: the display shows the message, not our frames (see judge_guard)
    raise ModelUnansweredError(message) from error


def _reason(error: BaseException) -> str:
    """The innermost error's name and first line."""
    seen = error
    for _ in range(10):
        last = getattr(seen, "last_attempt", None)
        inner = last.exception() if last is not None else seen.__cause__
        if inner is None:
            break
        seen = inner
    text = str(seen).strip().splitlines()
    return type(seen).__name__ + (f": {text[0]}" if text else "")
