"""`drive-evals report` on VLADBench logs: the official scores beside the paper's rows, breakdowns by scene."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.scorer import Score
from inspect_runs import eval_in_process

from drive_evals._registry import BENCHMARKS, benchmark_for
from drive_evals.report import write_report
from drive_evals.vladbench.benchmark import VLADBENCH
from drive_evals.vladbench.outcomes import FULL, NONE, PARTIAL, outcomes


def test_report_shows_official_tables_and_paper_rows(tmp_path: Path) -> None:
    eval_in_process("drive_evals/vladbench", tmp_path / "logs", model="chance/random", task_args={"data": "demo"})
    files = write_report(tmp_path / "logs", tmp_path / "report", BENCHMARKS)
    text = files.markdown.read_text(encoding="utf-8")
    assert "## VLADBench" in text and "### Official scores" in text and "### Tasks" in text
    assert "| paper: Qwen2.5-VL 72B | 58.00 |" in text  # Table 4's total
    assert "paper: GPT-4o | 67.72 | 71.17" in text  # Table 10's first two tasks
    task_row = next(line for line in text.splitlines() if line.startswith("| task | chance/random"))
    assert "Traffic_Light (2/1 " in task_row  # the breakdown by task: 2 questions in 1 scene
    assert benchmark_for("drive_evals/vladbench") is VLADBENCH


def test_outcomes_read_the_accuracy_credit() -> None:
    def outcome(credit: float, reason: str | None = None) -> str:
        return outcomes(Score(value={"correct": credit}, reason=reason), {})["outcome"]

    assert [outcome(1.5), outcome(1.0), outcome(0.5), outcome(0.0)] == [FULL, FULL, PARTIAL, NONE]
    assert outcome(0.0, "no_response") == "no response"
