"""Running the tasks the way users do: `inspect` as a subprocess (the slow tier, and the fast tier's one command-line
smoke test), or `inspect_ai.eval()` in this process (no start-up cost: the fast tier); and reading back the log a
run writes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import fake_models  # noqa: F401  (registers the test-only providers for in-process runs)
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

TESTS = Path(__file__).parent
RUNNER = TESTS / "run_inspect.py"
TIMEOUT_SECONDS = 1200
"""Only a bound for a run that never ends: a demo run takes well under a minute even on a loaded machine."""


def run_inspect(args: list[str], log_dir: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`inspect <args> --log-dir <log_dir>` with the test-only providers registered; fails loudly on error."""
    command = [sys.executable, str(RUNNER), *args, "--log-dir", str(log_dir)]
    environment = {**os.environ, "INSPECT_DISPLAY": "plain", "NO_COLOR": "1", **(env or {})}
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, env=environment, cwd=log_dir.parent
    )
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def mockllm(reply: Callable[[list[ChatMessage]], str]) -> Model:
    """Inspect's `mockllm/model` answering every request with `reply(messages)`."""

    def outputs(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content=reply(messages))
        # With usage given, mockllm does not count tokens with tiktoken (which downloads its encoding).
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


QUIET: dict[str, Any] = {"display": "none", "log_realtime": False}
"""Options of every in-process run of the tests: no display, and no live sample events (`log_realtime`, only for
watching a run in `inspect view`), which cost a third of an in-process demo run's time. Neither changes a score or a
token count."""


def eval_in_process(task: str | Task, log_dir: Path, env: Mapping[str, str] | None = None, **options: Any) -> EvalLog:
    """`inspect_ai.eval(task, **options)` with `env` set for the run only; fails loudly unless it succeeds.

    `QUIET` unless `options` says otherwise.

    Returns the log as written to `log_dir`, read back in full, as the subprocess tests read theirs.
    """
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        (log,) = inspect_eval(task, log_dir=str(log_dir), **{**QUIET, **options})
    assert log.status == "success", f"{task} failed: {log.error}"
    return only_log(log_dir)


def only_log(log_dir: Path) -> EvalLog:
    """The single log in `log_dir`, read in full."""
    logs = list_eval_logs(str(log_dir))
    assert len(logs) == 1, f"expected one log in {log_dir}, found {len(logs)}"
    return read_eval_log(logs[0])


def metrics(log: EvalLog, scorer: str) -> dict[str, float]:
    """Metric name -> value for one scorer of a finished log (all its results: a scorer whose metrics mix reduced
    and unreduced scores, like SURDS's, has one entry per view)."""
    assert log.status == "success", log.error
    assert log.results is not None
    found = [score for score in log.results.scores if score.name == scorer]
    assert found, f"no scorer {scorer} in {[s.name for s in log.results.scores]}"
    return {name: m.value for score in found for name, m in score.metrics.items()}


def all_metrics(log: EvalLog) -> dict[tuple[str, str, str], float]:
    """Every metric of every scorer (and reducer) of `log`, keyed (scorer, reducer, metric)."""
    assert log.results is not None
    return {
        (score.name, score.reducer or "", name): metric.value
        for score in log.results.scores
        for name, metric in score.metrics.items()
    }


def sample_score_values(log: EvalLog) -> dict[tuple[str | int, int], dict[str, Any]]:
    """(sample id, epoch) -> scorer -> score value, for comparing two logs sample by sample."""
    return {(s.id, s.epoch): {k: v.value for k, v in (s.scores or {}).items()} for s in log.samples or []}
