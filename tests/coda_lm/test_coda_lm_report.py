"""CODA-LM in `drive-evals report`, from two chance runs on the demo (two seeds: two models to compare): its tables,
the reference rows, the dropped counts, the category table and the breakdowns by task and object category."""

from __future__ import annotations

import pytest
from inspect_runs import eval_in_process

from drive_evals._registry import BENCHMARKS, benchmark_for
from drive_evals.coda_lm.benchmark import CODA_LM
from drive_evals.report.write import write_report


def test_listed_once_under_its_task_names() -> None:
    assert BENCHMARKS.count(CODA_LM) == 1 and benchmark_for("drive_evals/coda_lm") is CODA_LM


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("report")
    env = {"INSPECT_CACHE_DIR": str(root / "cache"), "DRIVE_EVALS_CACHE": str(root / "derived")}
    for seed in (0, 1):
        eval_in_process(
            "drive_evals/coda_lm",
            root / "logs" / f"seed{seed}",
            env,
            model="chance/random",
            model_args={"seed": seed},
            model_roles={"grader": "chance/random"},
            task_args={"data": "demo"},
        )
    write_report(root / "logs", root / "out", BENCHMARKS)
    return (root / "out" / "report.md").read_text(encoding="utf-8")


def test_tables_and_reference_rows(report: str) -> None:
    section = report.split("## CODA-LM\n", 1)[1]
    assert "### Official score" in section and "### Strict score" in section
    assert "| paper: GPT-4V (paper, via NexusAD README) | 59.02 | 57.50 | 56.26 | 63.30 |" in section
    dropped = section.split("### Items the official mean drops", 1)[1].split("###", 1)[0]
    assert dropped.count("| 1 | 0 | 0 | 0 |") == 2  # the unmapped region, in both runs
    assert "### Region perception by object category" in section


def test_breakdowns(report: str) -> None:
    failures = report.split("## CODA-LM: where models fail", 1)[1]
    for level in ("general_perception (6/6", "region_perception (8/5", "vehicle (2/2", "judge outcome"):
        assert level in failures
