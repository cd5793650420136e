"""Runs of a judged benchmark scored by different judges are never compared (docs/comparing.md)."""

from __future__ import annotations

import dataclasses

import pytest

from drive_evals._registry import BENCHMARKS
from drive_evals.benchmark import Benchmark
from drive_evals.drivebench.benchmark import DRIVEBENCH
from report.synthetic import synthetic_run

JUDGED = [benchmark for benchmark in BENCHMARKS if benchmark.judged]


def test_two_drivebench_runs_with_different_judges_are_not_comparable() -> None:
    run = synthetic_run(DRIVEBENCH, seed=1, clusters=3)
    same, other = dataclasses.replace(run, judge="openai/gpt-4o"), dataclasses.replace(run, judge="openai/gpt-4.1")
    assert same.comparability_key() != other.comparability_key()
    assert same.comparability_key() == dataclasses.replace(run, judge="openai/gpt-4o").comparability_key()
    assert other.settings()["judge"] == "openai/gpt-4.1"


@pytest.mark.parametrize("benchmark", JUDGED, ids=lambda b: b.key)
def test_every_judged_benchmark_compares_only_runs_of_one_judge(benchmark: Benchmark) -> None:
    run = synthetic_run(benchmark, seed=2, clusters=3)
    keys = {dataclasses.replace(run, judge=judge).comparability_key() for judge in ("a/judge", "b/judge", None)}
    assert len(keys) == 3


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.key)
def test_a_benchmark_is_judged_exactly_when_it_sends_judge_requests(benchmark: Benchmark) -> None:
    assert benchmark.judged == (benchmark.estimate.judge_request is not None)
