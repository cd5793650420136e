"""DriveBench in `drive-evals report`: its tables, the README's rows, the blind gap paired by question, the
within-run corruption contrasts, outcomes and breakdown levels."""

from __future__ import annotations

import pytest
from inspect_ai.scorer import Score
from inspect_runs import eval_in_process

from drive_evals._registry import BENCHMARKS, benchmark_for
from drive_evals.drivebench.benchmark import DRIVEBENCH
from drive_evals.drivebench.outcomes import levels, outcomes
from drive_evals.report.write import write_report


def test_listed_once_under_its_task_names() -> None:
    assert BENCHMARKS.count(DRIVEBENCH) == 1
    assert benchmark_for("drive_evals/drivebench") is DRIVEBENCH


def test_outcomes_and_levels() -> None:
    judged = Score(value={"judged": 1.0, "mcq_correct": 0.0}, answer="B (corrected: B)")
    assert outcomes(judged, {}) == {"judge outcome": "judged", "MCQ outcome (official parser)": "wrong"}
    failed = Score(value={"judged": 0.0, "mcq_correct": 0.0}, answer="- (corrected: -)", reason="grader_failed")
    assert outcomes(failed, {}) == {"judge outcome": "judge failed", "MCQ outcome (official parser)": "no letter read"}
    meta = {"task": "planning", "bucket": "planning VQA", "camera": "all six", "setting": "fog",
            "setting_category": "Weather"}  # fmt: skip
    assert levels(meta) == {"task": "planning", "question type": "planning VQA", "camera": "all six",
                            "setting": "fog", "corruption category": "Weather"}  # fmt: skip


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("report")
    env = {"INSPECT_CACHE_DIR": str(root / "cache"), "DRIVE_EVALS_CACHE": str(root / "derived")}
    for setting in ("clean", "text_only", "clean,fog"):
        eval_in_process(
            "drive_evals/drivebench",
            root / "logs" / setting.replace(",", "-"),
            env,
            model="chance/random",
            model_roles={"grader": "chance/random"},
            task_args={"data": "demo", "setting": setting},
        )
    write_report(root / "logs", root / "out", BENCHMARKS)
    return (root / "out" / "report.md").read_text(encoding="utf-8")


def test_report_shows_the_tables_and_the_readme_rows(report: str) -> None:
    assert "## DriveBench" in report and "### GPT score" in report
    assert "| paper: GPT-4o |  | 35.37 | 51.30 | 75.75 | 45.40 |" in report
    assert "### Language metrics (open questions)" in report


def test_blind_gap_is_paired_by_question(report: str) -> None:
    blind = report.split("### Blind controls", 1)[1].split("###", 1)[0]
    assert "chance/random (setting=clean) | chance/random [blind] | gpt_score | 13 |" in blind.replace("  ", " ")


def test_corruption_contrast_within_a_run(report: str) -> None:
    contrasts = report.split("### Within-run settings against clean", 1)[1].split("###", 1)[0]
    row = next(line for line in contrasts.splitlines() if "setting=clean,fog" in line)
    cells = [cell.strip() for cell in row.split("|")[2:-1]]
    assert cells[0] == "—" and cells[3] != "—", "text_only absent, fog present"
