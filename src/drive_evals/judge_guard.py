"""Never pay for generations that no judge can score: check the judge first, stop when it keeps failing.

Shared by the benchmarks with a judge (DriveLMM-o1, DriveBench); each passes its own default judge and advice.

- `preflight_graders` resolves the `grader` role (the default judge included) while the task is built. That is
  the earliest point Inspect 0.3.285 offers: `eval_resolve_tasks` binds the run's model roles
  (`init_model_roles`) before it calls the task function, and nothing of the task runs before that. Constructing
  a provider's client makes no request, so the check costs nothing; a missing API key or an unknown provider
  fails here, in seconds, before the first sample.
- `JudgeBreaker` counts consecutive judge calls that fail with an API error (not a reply that fails validation).
  At the limit it trips, and at once for a call that got no answer within the call bound (`drive_evals.unanswered`:
  waiting `limit` more bounds would not bring the judge back). Further judge calls are then skipped, the samples
  being scored keep their generation with reason `grader_failed` (so `inspect score` can judge them later), and
  `stop_when_judge_down`, the first solver step, fails every sample that has not started generating, which ends
  the run with the breaker's message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver
from rich.text import Text

from drive_evals.benchmark import GRADER_ROLE
from drive_evals.errors import DriveEvalsError, JudgeUnavailableError, report_at_exit
from drive_evals.unanswered import call_limit, gave_up, reason

DEFAULT_JUDGE_ERROR_LIMIT = 10
"""Consecutive judge API errors that stop a run. Inspect has already retried each call (5xx, 429, timeouts), so
an error that reaches the scorer is rarely transient; ten in a row is a broken key, model name or account."""


def graders(default: str) -> list[Model]:
    """The models bound to the `grader` role (several form a panel), else the benchmark's `default` judge."""
    bound = model_roles().get(GRADER_ROLE)
    if isinstance(bound, list) and bound:
        return bound
    if isinstance(bound, Model):
        return [bound]
    return [get_model(role=GRADER_ROLE, default=default)]


def preflight_graders(default: str, advice: str) -> list[str]:
    """Resolve the `grader` role now, as the scorer will (`default` when unbound); raise `JudgeUnavailableError`
    naming role, model and why, then `advice` (what the task offers instead).

    Models bound with `--model-role` were already built by Inspect when the run started (a missing key fails
    there, with Inspect's message); this catches the default judge, which is only built on first use.
    """
    try:
        return [str(model) for model in graders(default)]
    except Exception as error:
        bound = model_roles().get(GRADER_ROLE)
        model = default if bound is None else str(bound)
        how = " (the default; bind another with --model-role grader=<provider>/<model>)" if bound is None else ""
        raise JudgeUnavailableError(
            f"The judge cannot be used, so no sample was run: role '{GRADER_ROLE}', model {model}{how}: "
            f"{plain_reason(error)}. {advice}"
        ) from error


def plain_reason(error: BaseException) -> str:
    """An exception's message as one line of plain text (Inspect's key errors carry rich markup)."""
    flat = Text.from_markup(str(error.message)).plain if isinstance(error, PrerequisiteError) else str(error)
    return re.sub(r"\s+", " ", flat.removeprefix("ERROR:")).strip().rstrip(".") or type(error).__name__


JUDGE_RECOVERY = (
    "The samples generated so far are in the log with reason grader_failed: fix the judge, then re-judge them with "
    "`inspect score` (see README, 'Fail fast')."
)


class JudgeStoppedError(DriveEvalsError, RuntimeError):
    """The judge failed with API errors too often in a row; raised instead of generating another sample."""


@dataclass
class JudgeBreaker:
    """Counts consecutive judge API errors per judge model; trips at `limit` and stays tripped for the run."""

    limit: int
    consecutive: dict[str, int] = field(default_factory=dict)
    stopped: str | None = None
    """The stop message once tripped."""

    def record(self, judge: str, error: BaseException | None) -> None:
        """One judge call's outcome: `error` for an API error, None for any reply (valid or not)."""
        if error is None:
            self.consecutive[judge] = 0
            return
        count = self.consecutive.get(judge, 0) + 1
        self.consecutive[judge] = count
        if self.stopped is not None:
            return
        if gave_up(error):  # no answer after the whole call bound: waiting `limit` bounds more would not help
            self.stopped = (
                f"Run stopped: the judge {judge} gave no answer within {call_limit()} ({reason(error)})."
                f" {JUDGE_RECOVERY}"
            )
        elif count >= self.limit:
            self.stopped = (
                f"Run stopped: {count} consecutive calls to the judge {judge} failed with an API error "
                f"(judge_error_limit={self.limit}); last error: {plain_reason(error)}. {JUDGE_RECOVERY}"
            )
        if self.stopped is not None:
            report_at_exit(self.stopped)  # `--display none` shows no task error: the message must reach stderr

    def check(self) -> None:
        """Raise once tripped.

        The stop is a decision, not a bug: Inspect's displays draw a failed task with rich's traceback renderer,
        which drops every frame above one whose locals hold `_rich_traceback_guard`. Raised from here, the panel
        shows the message alone; the log keeps the whole traceback (Inspect formats it with `traceback`).
        """
        _rich_traceback_guard = True  # read by rich from this frame's locals
        if self.stopped is not None:
            raise JudgeStoppedError(self.stopped)

    def _repr_params_(self) -> None:
        """Recorded as null among the solver's and scorer's arguments in the log (Inspect's registry hook)."""
        return None


@solver
def stop_when_judge_down(breaker: JudgeBreaker) -> Solver:
    """First solver step: fail the sample, before it generates anything, once the judge breaker has tripped."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        breaker.check()
        return state

    return solve
