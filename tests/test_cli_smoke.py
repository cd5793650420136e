"""The command-line smoke test of every task: one `inspect eval` command runs all three, as a user types it.

One process for the three tasks, so the fast tier pays Inspect's start-up once: imports were most of a profiled
SURDS-only command run (Inspect, then the OpenAI and Anthropic SDKs it imports at the first sample). The scores
themselves are checked by the in-process end-to-end tests; this one checks that each task is found, takes its `-T`
values and writes a complete log.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_runs import metrics, run_inspect

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.judge_meta.degrade import VARIANT_NAMES
from drive_evals.drivelmm_o1.judge_meta.task import DEFAULT_EPOCHS
from drive_evals.drivelmm_o1.records import TEST_FILE, load_records
from drive_evals.surds.records import load_metadata
from drive_evals.surds.units import SUBSETS, build_units

SURDS = "drive_evals/surds"
O1 = "drive_evals/drivelmm_o1"
JUDGE = "drive_evals/drivelmm_o1_judge"
JUDGE_RECORDS = 1


def test_every_task_runs_from_one_inspect_eval_command(tmp_path: Path) -> None:
    env = {
        "INSPECT_CACHE_DIR": str(tmp_path / "cache"),
        "DRIVE_EVALS_CACHE": str(tmp_path / "derived"),
        "COLUMNS": "300",  # so that the console does not wrap the warning checked below
    }
    args = [
        "eval",
        SURDS,
        O1,
        JUDGE,
        "--model",
        "chance/random",
        "--model-role",
        "grader=judge/good",
        "-T",
        "data=demo",
        "-T",
        f"records={JUDGE_RECORDS}",
    ]
    result = run_inspect(args, tmp_path / "logs", env)
    logs: dict[str, EvalLog] = {}
    for info in list_eval_logs(str(tmp_path / "logs")):
        log = read_eval_log(info)
        logs[log.eval.task] = log
    assert logs.keys() == {SURDS, O1, JUDGE}
    # `records` belongs to the judge task only: the other two say so and run with their defaults
    assert "-T records is a parameter of drivelmm_o1_judge only; ignored here" in result.stdout + result.stderr

    surds_log, drivelmm_o1_log, judge_log = logs[SURDS], logs[O1], logs[JUDGE]
    surds = metrics(surds_log, "surds_scorer")
    units = build_units(load_metadata(demo_dir("surds")))
    assert len(surds_log.samples or []) == sum(len(units[s]) for s in SUBSETS)
    assert all(0.0 <= surds[subset] <= 1.0 for subset in SUBSETS) and surds["valid_rate"] == 1.0
    assert (surds_log.eval.metadata or {})["data"]["source"] == "demo"

    o1 = metrics(drivelmm_o1_log, "drivelmm_o1_scorer")
    assert o1["judge_coverage"] == 1.0 and 0.1 <= o1["reasoning_score"] <= 1.0 and 0.0 <= o1["mcq_accuracy"] <= 1.0
    assert len(drivelmm_o1_log.samples or []) == len(load_records(demo_dir("drivelmm_o1") / TEST_FILE))
    assert "grader" in (drivelmm_o1_log.eval.model_roles or {})

    judge = metrics(judge_log, "judge_meta_scorer")
    assert judge["judge_coverage"] == 1.0 and judge["injection_success_rate"] == 0.0
    judged = judge_log.samples or []
    assert len(judged) == JUDGE_RECORDS * len(VARIANT_NAMES) * DEFAULT_EPOCHS
    assert all(str(sample.id).split("-", 2)[-1] in VARIANT_NAMES for sample in judged)
