"""VLADBench `total` in the report: its interval and paired test on the question credits (`vladbench.credits`), read
from Inspect's sample summaries, whose shortened text the stored question flags survive."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalSample, read_eval_log_sample_summaries
from inspect_runs import eval_in_process

from drive_evals._registry import BENCHMARKS
from drive_evals.report import write_report
from drive_evals.report.runs import run_of_log
from drive_evals.report.tables import estimate, percent
from drive_evals.stats.intervals import credit_interval
from drive_evals.stats.paired import CREDIT_INTERVAL_CLUSTERS, scaled_paired_difference
from drive_evals.vladbench.credits import question_credits, unit_credits
from drive_evals.vladbench.dataset import LOCALISATION_KEY, SCENE_KEY, YES_NO_KEY, question_flags
from drive_evals.vladbench.metrics import TOTAL, official_scores, task_results
from drive_evals.vladbench.rules import LOCALISATION_MARKER

FEW_TASKS = "Traffic_Light,Pavement_Marking,Traffic_Sign,Right_Of_Way,Vehicle_Recognition,Light,Weather,VRU_Cutin"
"""Tasks of the demo data with 8 scenes (13 questions) between them: a paired p-value, no paired interval."""


def test_the_question_flags_survive_the_sample_summaries() -> None:
    """A box question longer than Inspect's summary text keeps its flag, though the summary cuts the marker off."""
    question = (
        "Describe the traffic in front of the ego vehicle in detail. " * 20
        + "Where is the car "
        + (LOCALISATION_MARKER)
    )
    metadata: dict[str, object] = {"task": "Vehicle_Recognition", "question": question, "answer": "[1, 2, 3, 4]"}
    metadata |= question_flags("Vehicle_Recognition", question, "[1, 2, 3, 4]")
    summary = EvalSample(id="q", epoch=1, input="x", target="t", metadata=metadata).summary()
    assert LOCALISATION_MARKER not in summary.metadata["question"]  # what the flag is for
    assert summary.metadata[LOCALISATION_KEY] is True and summary.metadata[YES_NO_KEY] is False
    judge = question_flags("VRU_Cutin", "Will the pedestrian cross?", " Yes.")
    assert judge == {LOCALISATION_KEY: False, YES_NO_KEY: True}


def test_a_log_without_the_flags_gives_no_credits() -> None:
    """Task version 2's samples hold no flags: their summaries may have lost a box marker, so no credits."""
    metadata = {"task": "Weather", "row": 1, "dindex": "0", "question": "Which weather?", "answer": "sun"}
    value = {"correct": 1.0, "obey": 1.0}
    assert unit_credits([(value, metadata)]) is None
    flagged = {**metadata, **question_flags("Weather", str(metadata["question"]), "sun")}
    assert unit_credits([(value, flagged)]) == [(1.0, 1.0)]


def _rows(log: str) -> tuple[list[tuple[Mapping[str, Any], Mapping[str, Any]]], list[str]]:
    """(score value, metadata) per question from the log's summaries, and the scenes."""
    summaries = sorted(read_eval_log_sample_summaries(log), key=lambda s: str(s.id))
    rows: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
    for summary in summaries:
        value = (summary.scores or {})["vladbench_scorer"].value
        assert isinstance(value, dict)
        rows.append((value, summary.metadata))
    return rows, [str(summary.metadata[SCENE_KEY]) for summary in summaries]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two seeds on the whole demo (29 scenes) and two on a few of its tasks (8 scenes)."""
    root = tmp_path_factory.mktemp("vladtotal")
    for seed in (1, 2):
        eval_in_process("drive_evals/vladbench", root / f"all{seed}", model="chance/random", model_args={"seed": seed},
                        task_args={"data": "demo"})  # fmt: skip
        eval_in_process("drive_evals/vladbench", root / f"few{seed}", model="chance/random", model_args={"seed": seed},
                        task_args={"data": "demo", "tasks": FEW_TASKS})  # fmt: skip
    return root


def test_total_has_the_credits_interval(logs: Path) -> None:
    log = str(next((logs / "all1").glob("*.eval")))
    rows, scenes = _rows(log)
    credits = question_credits(rows)
    assert all(credit is not None for credit in credits)
    values, uppers = [c.value for c in credits if c], [c.upper for c in credits if c]
    assert math.isclose(sum(values) / len(values), official_scores(task_results(rows))[TOTAL], rel_tol=1e-12)
    expected = credit_interval(values, uppers, scenes)
    run = run_of_log(log, BENCHMARKS)
    assert run is not None and expected is not None
    shown = estimate(run, TOTAL)
    assert shown.interval == expected and shown.n == len(values)
    files = write_report(logs, logs / "report", BENCHMARKS)
    text = files.markdown.read_text(encoding="utf-8")
    cell = f"{percent(shown.value)} [{percent(expected[0])}, {percent(expected[1])}]"
    assert f" · demo data | {cell} |" in text  # the Official scores table
    assert "betting interval over scenes with those bounds" in text


def _paired_rows(logs: Path) -> dict[tuple[str, str], dict[str, str]]:
    """The report's paired rows of `total` (one per comparable pair: the whole demo's, the few tasks')."""
    with (logs / "report" / "vladbench-paired.csv").open(encoding="utf-8") as file:
        rows = {(row["a"], row["b"]): row for row in csv.DictReader(file) if row["metric"] == TOTAL}
    assert len(rows) == 2
    return rows


def test_total_is_paired_with_an_interval_from_20_scenes(logs: Path) -> None:
    write_report(logs, logs / "report", BENCHMARKS)
    rows = _paired_rows(logs)
    (rows_a, scenes), (rows_b, _) = (_rows(str(next((logs / name).glob("*.eval")))) for name in ("all1", "all2"))
    a, b = question_credits(rows_a), question_credits(rows_b)
    scale = max(max(x.upper, y.upper) for x, y in zip(a, b, strict=True) if x and y)
    expected = scaled_paired_difference([x.value for x in a if x], [y.value for y in b if y], scenes, scale)
    assert expected.clusters >= CREDIT_INTERVAL_CLUSTERS and not expected.no_interval
    whole = next(row for row in rows.values() if int(row["clusters"]) == expected.clusters)
    sign = 1.0 if "seed=1" in whole["a"] else -1.0
    assert math.isclose(float(whole["difference"]), sign * expected.estimate, abs_tol=1e-12)
    assert sorted(sign * float(whole[k]) for k in ("ci_low", "ci_high")) == pytest.approx(
        [expected.ci_low, expected.ci_high], abs=1e-12
    )
    assert math.isclose(float(whole["p_value"]), expected.p_value)


def test_no_paired_interval_below_20_scenes_but_a_p_value(logs: Path) -> None:
    write_report(logs, logs / "report", BENCHMARKS)
    few = next(row for row in _paired_rows(logs).values() if int(row["clusters"]) < CREDIT_INTERVAL_CLUSTERS)
    assert 6 <= int(few["clusters"]) < CREDIT_INTERVAL_CLUSTERS
    assert math.isnan(float(few["ci_low"])) and few["no_interval"].startswith("fewer than 20 clusters")
    assert 0.0 < float(few["p_value"]) <= 1.0
