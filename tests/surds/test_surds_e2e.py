"""SURDS end to end on the demo data, in-process: chance, a perfect model, a broken model. The task's command-line
smoke test is in tests/test_cli_smoke.py."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_runs import eval_in_process, metrics

from drive_evals.data import demo_dir
from drive_evals.surds.records import load_metadata
from drive_evals.surds.units import SUBSETS, build_units

SCORER = "surds_scorer"
TASK = "drive_evals/surds"
DEMO = {"data": "demo"}


def demo_units_per_subset() -> int:
    return len(build_units(load_metadata(demo_dir("surds")))["yaw"])


def test_perfect_model_scores_one(tmp_path: Path) -> None:
    log = eval_in_process(TASK, tmp_path / "logs", model="oracle/demo", task_args=DEMO)
    values = metrics(log, SCORER)
    for subset in SUBSETS:
        assert values[subset] == pytest.approx(1.0), subset
    assert values["valid_rate"] == 1.0 and "missing_units" not in values
    assert values["overall"] == pytest.approx(1.0)
    # every unit right: the clustered SE is 0, but the report's interval is not [100, 100] (precision.py)
    assert 0.005 < values["overall_stderr"] < 0.02
    assert log.samples is not None and len(log.samples) == 6 * demo_units_per_subset()
    pair = next(s for s in log.samples if s.id == "surds-distance-0000")
    assert pair.scores is not None and len(pair.store["surds_completions"]) == 2
    assert log.eval.metadata is not None and log.eval.metadata["data"]["source"] == "demo"
    assert log.eval.metadata["record_order"] == "metadata"


def test_unclosed_answers_score_zero(tmp_path: Path) -> None:
    log = eval_in_process(TASK, tmp_path / "logs", model="unclosed/any", task_args=DEMO)
    values = metrics(log, SCORER)
    assert values["overall"] == 0.0
    assert values["valid_rate"] == 0.0
    assert log.samples is not None
    score = log.samples[0].scores[SCORER]  # type: ignore[index]
    assert score.reason == "invalid_response_format"
    assert "no <answer>...</answer> block" in (score.explanation or "")


def test_chance_model_matches_independent_scoring(tmp_path: Path) -> None:
    """Recompute every subset score from the logged completions with a scorer written here from the protocol."""
    task_args = {**DEMO, "subsets": "yaw,xy2d,depth"}
    log = eval_in_process(TASK, tmp_path / "logs", model="chance/random", task_args=task_args)
    values = metrics(log, SCORER)
    assert "distance" not in values and "overall" in values
    assert log.samples is not None
    per_subset: dict[str, list[float]] = {}
    for sample in log.samples:
        completions = sample.store["surds_completions"]
        meta = sample.metadata
        per_subset.setdefault(meta["subset"], []).append(independent_unit_score(meta, completions))
    for subset, scores in per_subset.items():
        assert math.isclose(values[subset], sum(scores) / len(scores)), subset
    assert math.isclose(values["overall"], sum(values[s] for s in per_subset) / 3)


def independent_unit_score(meta: dict, completions: list[str]) -> float:
    """A second, deliberately plain implementation of the official rules for the three single-image subsets."""
    import re

    answers = []
    for completion in completions:
        start = completion.find("<answer>")
        end = completion.find("</answer>", start)
        answers.append(completion[start + 8 : end].strip() if start >= 0 and end >= 0 else "")
    if meta["subset"] == "xy2d":
        found = re.search(r"\[\s*(\d+), (\d+)\s*\]", answers[0])
        if not found:
            return 0.0
        x, y = float(found.group(1)), float(found.group(2))
        x0, y0, x1, y1 = meta["bbox"]
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return 0.0
        lr = min(x - x0, x1 - x) / max(x - x0, x1 - x) if max(x - x0, x1 - x) else 1.0
        tb = min(y - y0, y1 - y) / max(y - y0, y1 - y) if max(y - y0, y1 - y) else 1.0
        return math.sqrt(lr * tb)
    return float(all(a.lower() == t.lower() for a, t in zip(answers, meta["targets"], strict=True)))
