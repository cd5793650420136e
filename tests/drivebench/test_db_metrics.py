"""DriveBench aggregation on hand-made scores: official buckets, task scores, headline, pairs, coverage."""

from __future__ import annotations

import math

import pytest

from drive_evals.drivebench.metrics import GPT, JUDGED, MCQ_CORRECT, YES_NO_CORRECT, Row, summarise

NAN = math.nan


def row(bucket: str, gpt: float, setting: str = "clean", key: str = "q", scene: str = "s1", **values: float) -> Row:
    task, _, kind = bucket.partition(" ")
    meta = {
        "bucket": bucket,
        "task": task,
        "kind": kind,
        "officially_scored": bucket != "prediction yes/no",
        "setting": setting,
        "question_key": key,
        "scene": scene,
    }
    return Row(meta, {GPT: gpt, JUDGED: 0.0 if math.isnan(gpt) else 1.0, **values})


def one_setting(setting: str = "clean", shift: float = 0.0) -> list[Row]:
    return [
        row("perception MCQ", 0.5 + shift, setting, "q1", "s1", **{MCQ_CORRECT: 1.0}),
        row("perception VQA", 0.3 + shift, setting, "q2", "s1"),
        row("perception VQA", 0.1 + shift, setting, "q3", "s2"),
        row("prediction VQA", 0.6 + shift, setting, "q4", "s2"),
        row("prediction yes/no", 0.9, setting, "q5", "s1", **{YES_NO_CORRECT: 1.0}),
        row("planning VQA", 0.7 + shift, setting, "q6", "s1"),
        row("planning VQA", NAN, setting, "q7", "s2"),
        row("behavior MCQ", 0.2 + shift, setting, "q8", "s2", **{MCQ_CORRECT: 0.0}),
    ]


def test_official_buckets_and_task_scores() -> None:
    out = summarise(one_setting())
    assert out["perception_mcq_gpt"] == pytest.approx(0.5)
    assert out["perception_vqa_gpt"] == pytest.approx(0.2)
    assert out["perception_gpt"] == pytest.approx(0.3), "item-weighted over MCQ and VQA"
    assert out["prediction_gpt"] == pytest.approx(0.6), "the yes/no question is not in Prediction"
    assert out["prediction_yes_no_gpt"] == pytest.approx(0.9) and out["prediction_yes_no_accuracy"] == 1.0
    assert out["planning_gpt"] == pytest.approx(0.7), "an unjudged question is in no mean"
    assert out["gpt_score"] == pytest.approx((0.3 + 0.6 + 0.7 + 0.2) / 4)
    assert out["mcq_accuracy"] == 0.5 and out["perception_mcq_accuracy"] == 1.0
    assert out["judge_coverage"] == pytest.approx(7 / 8)


def test_missing_units_lower_coverage() -> None:
    assert summarise(one_setting(), missing=2)["judge_coverage"] == pytest.approx(7 / 10)


def test_headline_needs_all_four_tasks() -> None:
    rows = [r for r in one_setting() if r.meta["task"] != "behavior"]
    assert math.isnan(summarise(rows)["gpt_score"])


def test_paired_settings() -> None:
    rows = one_setting("clean") + one_setting("text_only", shift=-0.1)
    out = summarise(rows)
    assert out["clean_gpt_score"] == pytest.approx((0.3 + 0.6 + 0.7 + 0.2) / 4)
    assert out["text_only_gpt_score"] == pytest.approx(out["clean_gpt_score"] - 0.1)
    assert out["text_only_vs_clean_gpt_score"] == pytest.approx(-0.1)
    assert out["text_only_vs_clean_gpt_score_stderr"] == pytest.approx(0.0, abs=1e-12), "a constant shift"
    assert out["text_only_vs_clean_planning_gpt"] == pytest.approx(-0.1)
    assert out["gpt_score"] == pytest.approx(out["clean_gpt_score"] - 0.05), "pooled: the mean over settings"


def test_reference_is_the_first_setting_without_clean() -> None:
    out = summarise(one_setting("fog") + one_setting("snow", shift=0.1))
    assert out["snow_vs_fog_gpt_score"] == pytest.approx(0.1)
    assert not any(name.startswith("fog_vs_") for name in out)
