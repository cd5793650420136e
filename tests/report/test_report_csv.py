"""The report's CSV files: a header row even when empty, and `\n` line endings (not the csv module's `\r\n`)."""

from __future__ import annotations

import copy
import csv
from pathlib import Path

from inspect_ai.log import EvalLog, write_eval_log
from inspect_runs import eval_in_process

from drive_evals._registry import BENCHMARKS
from drive_evals.report import write_report
from drive_evals.report.breakdown import PAIRED_CSV_COLUMNS
from drive_evals.report.tables import COMPARISON_CSV_COLUMNS

PAIRED_FILES = {"surds-paired.csv": COMPARISON_CSV_COLUMNS, "surds-breakdown-paired.csv": PAIRED_CSV_COLUMNS}


def surds_log(tmp_path: Path) -> EvalLog:
    task_args = {"data": "demo", "subsets": "depth"}
    return eval_in_process("drive_evals/surds", tmp_path / "run", model="chance/random", task_args=task_args, limit=4)


def report_files(log_dir: Path, out: Path) -> dict[str, bytes]:
    write_report(log_dir, out, BENCHMARKS)
    return {path.name: path.read_bytes() for path in out.glob("*.csv")}


def test_paired_files_of_a_single_model_hold_their_header(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    write_eval_log(surds_log(tmp_path), str(log_dir / "a.eval"))
    files = report_files(log_dir, tmp_path / "out")
    for name, columns in PAIRED_FILES.items():
        assert files[name] == (",".join(columns) + "\n").encode(), name
    assert all(b"\r" not in data for data in files.values())


def test_named_columns_are_the_columns_of_a_real_pair(tmp_path: Path) -> None:
    """Two models give a comparison row (the demo's breakdown levels are too small to compare: header only)."""
    log = surds_log(tmp_path)
    other = copy.deepcopy(log)
    other.eval.model = "chance/other"
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    write_eval_log(log, str(log_dir / "a.eval"))
    write_eval_log(other, str(log_dir / "b.eval"))
    files = report_files(log_dir, tmp_path / "out")
    for name, columns in PAIRED_FILES.items():
        rows = list(csv.reader(files[name].decode().splitlines()))
        assert rows[0] == list(columns), name
    assert len(list(csv.reader(files["surds-paired.csv"].decode().splitlines()))) > 1, "a row was written"
