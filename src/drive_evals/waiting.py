"""While a model's calls are being retried, say what the run is waiting for, and for how long at most.

Inspect's display shows only an "HTTP retries" count climbing, for as long as the call bound lasts (before: a
silent quarter of an hour). An Inspect hook on `on_model_retry` logs one warning per model when one call has failed
`NOTICE_AFTER_ATTEMPTS` times in a row, and again at most every `NOTICE_EVERY_SECONDS`: the model, its endpoint,
the error and the bound after which the run stops (`drive_evals.unanswered`). Shorter bursts (the fault mix of
docs/reliability.md has at most two faults in a row) print nothing.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Iterable

from inspect_ai.hooks import Hooks, ModelRetry, hooks
from inspect_ai.model import Model

from drive_evals.model_urls import model_url
from drive_evals.unanswered import call_limit

NOTICE_AFTER_ATTEMPTS = 3
"""Failed attempts of one call before the first notice: about 20 s of Inspect's backoff (3, 6, 12 s)."""
NOTICE_EVERY_SECONDS = 60.0
"""At most one notice per model in this many seconds."""

logger = logging.getLogger(__name__)

_ENDPOINTS: dict[str, tuple[str, str | None]] = {}
"""A model's names as Inspect's retry reports it -> (its name as given, its base URL)."""
_LAST_NOTICE: dict[str, float] = {}


def waiting_line(data: ModelRetry, now: float) -> str | None:
    """The notice for one retry, or None when it is too early or too soon after the last for this model."""
    if data.attempt < NOTICE_AFTER_ATTEMPTS:
        return None
    model, url = _ENDPOINTS.get(data.model_name, (data.model_name, None))
    last = _LAST_NOTICE.get(model)
    if last is not None and now - last < NOTICE_EVERY_SECONDS:
        return None
    _LAST_NOTICE[model] = now
    where = f" at {url}" if url else ""
    error = data.exception_type or "no answer"
    if data.status_code is not None:
        error += f", HTTP {data.status_code}"
    return (
        f"waiting for {model}{where}: attempt {data.attempt} of a call failed ({error}); next try in "
        f"{data.wait_time:.0f} s. A call gives up after {call_limit()} of retries, and the run then stops."
    )


class WaitingNotice(Hooks):
    """Logs `waiting_line` for retried calls of the run's models."""

    async def on_model_retry(self, data: ModelRetry) -> None:
        line = waiting_line(data, time.monotonic())
        if line is not None:
            logger.warning(line)


def watch(models: Iterable[Model]) -> None:
    """Name `models` (the run's model under test and judges) and their endpoints in the notices; register the hook.

    Called while a task is built, not at import: a hook registered at import is announced (`hooks enabled`) in
    every Inspect run, of every suite (see truncation.enable_end_of_run_warnings).
    """
    for model in models:
        entry = (str(model), model_url(model))
        for name in (str(model), model.api.model_name, getattr(model.api, "qualified_model_name", None)):
            if isinstance(name, str):
                _ENDPOINTS[name] = entry
    _register()


@functools.cache
def _register() -> None:
    hooks(name="drive_evals_waiting", description="says what a drive_evals run waits for while calls are retried")(
        WaitingNotice
    )
