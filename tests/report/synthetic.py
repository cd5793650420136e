"""Runs built in memory, for report code that needs a number of clusters the demo data does not have."""

from __future__ import annotations

import random

from drive_evals.benchmark import Benchmark
from drive_evals.drivelmm_o1.benchmark import DRIVELMM_O1
from drive_evals.report.runs import Run, Unit

QUESTIONS_PER_FRAME = 4


def synthetic_run(benchmark: Benchmark, seed: int, clusters: int, model: str = "chance/random") -> Run:
    """A run of `clusters` frames (images) of four units each, with random scores: judge scores in [0, 1] and MCQ
    answers for DriveLMM-o1, one SURDS subset's 0/1 scores."""
    rng = random.Random(seed)
    units = {}
    for cluster in range(clusters):
        for question in range(QUESTIONS_PER_FRAME):
            if benchmark is DRIVELMM_O1:
                judged = rng.uniform(0.4, 1.0)
                values = {"reasoning_score": judged, "judge_overall": judged, "judged": 1.0}
                values |= {"mcq_counted": 1.0, "mcq_correct": float(rng.random() < 0.5)}
                levels = {"question number": f"Q{question + 1}", "city": f"city {cluster}"}  # too small to compare
            else:
                values = {"score": float(rng.random() < 0.5), "valid": 1.0}
                levels = {}
            units[f"f{cluster:03d}-q{question}"] = Unit(
                f"frame{cluster:03d}", "" if levels else "depth", values, levels
            )
    return Run(
        benchmark=benchmark,
        log_path=f"run{seed}.eval",
        log_name=f"run{seed}.eval",
        created=f"2026-01-0{seed}",
        model=model,
        model_args={"seed": seed},
        generate={},
        task_args={},
        metadata={},
        judge="chance/random",
        metrics={},
        all_metrics=[],
        units=units,
        sample_set="same",
        epochs=1,
        task_version="1",
    )
