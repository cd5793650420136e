"""Shard processes forked from a warm parent: Inspect's command line in the child, its output, exit status, signals.

The forks here start from a pytest worker (which has threads, so `can_fork()` says no and `fork_shard` is called
directly); `drive-evals run` forks from its own single-threaded process (tests/test_run_processes.py, slow tier).
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drive_evals.cli.shard_start import FORK_ENV, ForkedShard, can_fork, fork_shard, start_shard

WAIT_SECONDS = 120.0
"""Generous: the machine may be busy, and a forked Inspect command line still has some start-up."""


def _inspect(*args: str) -> list[str]:
    return [sys.executable, "-m", "inspect_ai", *args]


def _forked(tmp_path: Path, args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    console_path = tmp_path / "console.txt"
    with console_path.open("w", encoding="utf-8") as console:
        try:
            child = fork_shard(_inspect(*args), console, env or {})
            assert gc.get_freeze_count() > 0, "the parent's objects frozen for the child's collector"
        finally:
            gc.unfreeze()  # this test process is not a `drive-evals run` about to exit
        status = child.wait(timeout=WAIT_SECONDS)
    return status, console_path.read_text(encoding="utf-8")


def test_a_forked_shard_runs_inspects_command_line_with_its_output_and_environment(tmp_path: Path) -> None:
    narrow_status, narrow = _forked(tmp_path, ["eval", "--help"], {"COLUMNS": "60"})
    wide_status, wide = _forked(tmp_path, ["eval", "--help"], {"COLUMNS": "200"})
    assert narrow_status == wide_status == 0
    assert "--max-connections" in narrow and "--max-connections" in wide
    assert len(narrow.splitlines()) > len(wide.splitlines()), "COLUMNS reached Inspect: its help wraps narrower"
    assert "COLUMNS" not in os.environ or os.environ["COLUMNS"] not in ("60", "200"), "the parent's is unchanged"


def test_a_forked_shard_exits_as_inspect_does_and_prints_errors_as_a_new_process_would(tmp_path: Path) -> None:
    status, output = _forked(tmp_path, ["eval", "--no-such-option"])
    assert status == 2 and "No such option" in output, output  # click's usage error
    status, output = _forked(tmp_path, ["eval", "drive_evals/surds", "--model", "mockllm/model", "-T", "data=/no"])
    assert status == 1 and "/no" in output, output


def test_a_forked_shard_can_be_waited_for_interrupted_and_killed() -> None:
    pid = os.fork()
    if pid == 0:  # a child that would outlive the test, ended by SIGINT itself (not by pytest's handler)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        time.sleep(WAIT_SECONDS)
        os._exit(0)
    child = ForkedShard(pid)
    assert child.poll() is None and child.returncode is None
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(timeout=0.2)
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=WAIT_SECONDS) == -signal.SIGINT
    child.kill()  # after its end: nothing to signal, no error
    assert child.returncode == -signal.SIGINT


def test_without_fork_each_shard_is_a_new_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORK_ENV, "0")
    assert not can_fork()
    with (tmp_path / "console.txt").open("w", encoding="utf-8") as console:
        child = start_shard(_inspect("eval", "--no-such-option"), console, {})
        assert isinstance(child, subprocess.Popen)
        assert child.wait(timeout=WAIT_SECONDS) == 2
    assert "No such option" in (tmp_path / "console.txt").read_text(encoding="utf-8")
