"""No run hangs on a model that stopped answering: each call gives up after a bounded time, and the run stops with
one line that names the endpoint and the resume command, its finished samples kept.

Inspect 0.3.285 retries a refused connection or a timed-out attempt forever unless `timeout` (the whole call,
retries included) or `max_retries` is set. Each task sets `timeout` to `CALL_TIMEOUT_SECONDS` in its generate
config; `--timeout N` replaces it, and role models (the judge) inherit it (`Model._resolve_config`). `timeout` is
neither in Inspect's cache key nor in `eval-set`'s task identity, so it changes no cached reply and no resume. A
hung attempt ends at `--attempt-timeout` (the judge's own `attempt_timeout`), else at the SDK's own timeout.

When the model under test gives up, the sample fails with `ModelUnansweredError` (one line, no traceback panel),
and the run stops as Inspect stops on a sample error; any later call to that model in the process fails at once
(an `eval-set` would otherwise retry the task and wait the bound again, ten times). A judge that gives up trips the
judge breaker at once (judge_guard.py). While calls are being retried, `waiting_line` says what the run waits for
(`drive_evals.waiting`).
"""

from __future__ import annotations

from drive_evals.errors import DriveEvalsError, report_at_exit, resume_advice
from drive_evals.model_urls import active_model_url

CALL_TIMEOUT_SECONDS = 180
"""Seconds one model call may spend in retries before it fails (a slow answer that arrives is never cut: Inspect
checks this only after a failed attempt). Inspect's backoff (3 s doubling, plus up to 3 s of jitter) retries about
3, 9, 21, 45, 93 and 189 s after the first failure: six retries, enough for the 5xx and 429 bursts of a hosted API
(its `Retry-After` counts seconds) and for a vLLM server restarting (about a minute for a 7B model). The call ends
at the first failure after the bound, the retry at about 190-210 s: a server that died stops the run some 3.5
minutes after its last answer, not a quarter of an hour later (Inspect's own default: never). Any value from 190 to
380 s would end at the next retry, about 380-400 s."""
GAVE_UP = frozenset({"RetryError", "AttemptTimeoutError", "APIConnectionError", "APITimeoutError"})
"""Errors that mean no answer came: Inspect's retries ran out (tenacity's `RetryError`), an attempt timed out, or
the SDK could not connect (the `openai` and `anthropic` SDKs share these names)."""

_STOPPED: dict[str, str] = {}
"""Model -> the stop message, for models that gave up in this process."""


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


def call_limit() -> str:
    """The active bound on one call, as the user sets it: `--timeout N s`, or `its retries`."""
    from inspect_ai.model._generate_config import active_generate_config

    timeout = active_generate_config().timeout
    return f"--timeout {timeout} s" if timeout is not None else "its retries"


def check_answering(model: str) -> None:
    """Fail at once when `model` already gave no answer in this process (an `eval-set` retrying the task)."""
    message = _STOPPED.get(model)
    if message is not None:
        _fail(message)


def stop_unanswered(model: str, error: BaseException) -> None:
    """Raise `ModelUnansweredError` for `error` if it means no answer came; report it on stderr at exit."""
    if not gave_up(error):
        return
    url = active_model_url()
    where = f" at {url}" if url else ""
    message = _STOPPED.setdefault(
        model,
        f"Run stopped: the model under test {model}{where} gave no answer within {call_limit()} "
        f"({reason(error)}); finished samples are kept. {resume_advice()}",
    )
    report_at_exit(message)
    _fail(message)


def _fail(message: str) -> None:
    # rich (Inspect's displays) drops every frame up to one whose locals hold this, and `from None` drops the
    # chain (ConnectError -> RetryError, some 300 lines of panels): the display shows the message alone. The
    # message names the innermost error; the log keeps this traceback.
    _rich_traceback_guard = True
    raise ModelUnansweredError(message) from None


def reason(error: BaseException) -> str:
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
