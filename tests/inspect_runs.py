"""Running `inspect` as a subprocess, the way users do, and reading back the log it writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

TESTS = Path(__file__).parent
RUNNER = TESTS / "run_inspect.py"
TIMEOUT_SECONDS = 300


def run_inspect(args: list[str], log_dir: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`inspect <args> --log-dir <log_dir>` with the test-only providers registered; fails loudly on error."""
    command = [sys.executable, str(RUNNER), *args, "--log-dir", str(log_dir)]
    environment = {**os.environ, "INSPECT_DISPLAY": "plain", "NO_COLOR": "1", **(env or {})}
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, env=environment, cwd=log_dir.parent
    )
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result


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
