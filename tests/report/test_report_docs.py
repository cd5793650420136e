"""docs/comparing.md and docs/example-report.md quote the report's first screen as the report prints it now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_runs import TIMEOUT_SECONDS

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "make_report_example.py"


@pytest.mark.slow  # the offline comparison recipe: `inspect` subprocesses on both benchmarks
def test_docs_quote_the_first_screen_the_report_prints() -> None:
    """The tool regenerates the example's logs and report in a scratch directory and compares; it fails naming the
    stale page (python tools/make_report_example.py rewrites them)."""
    result = subprocess.run(
        [sys.executable, str(TOOL), "--check"], capture_output=True, text=True, timeout=TIMEOUT_SECONDS, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "docs quote the report's first screen" in result.stdout
