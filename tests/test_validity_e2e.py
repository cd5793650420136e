"""Validity diagnostics end to end on the demo data, in-process: blind runs, xy2d conventions, judges. The judge
meta-evaluation task's command-line smoke test is in tests/test_cli_smoke.py."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from doc_numbers import JudgeRun
from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import ContentImage
from inspect_runs import eval_in_process, metrics
from PIL import Image

from drive_evals.blind import GREY
from drive_evals.drivelmm_o1.judge_meta.degrade import VARIANT_NAMES
from drive_evals.drivelmm_o1.judge_meta.task import DEFAULT_EPOCHS
from drive_evals.surds.benchmark import surds_diagnostics

SURDS = "drive_evals/surds"
O1 = "drive_evals/drivelmm_o1"
JUDGE_SCORER = "judge_meta_scorer"
DEMO = {"data": "demo"}
JUDGES = ("judge/good", "judge/lazy", "judge/gullible", "chance/random")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}


def run(task: str, log_dir: Path, env: dict[str, str] | None = None, **options: Any) -> EvalLog:
    """Run in-process and read the log with its images resolved (the viewer's attachments become data URIs)."""
    eval_in_process(task, log_dir, env, **options)
    return read_eval_log(list_eval_logs(str(log_dir))[0], resolve_attachments=True)


def run_pair(
    task: str, task_args: dict[str, Any], tmp_path: Path, env: dict[str, str] | None = None, **options: Any
) -> tuple[EvalLog, EvalLog]:
    """The normal and the blind run of the same task."""
    normal = run(task, tmp_path / "normal", env, task_args=task_args, **options)
    blind = run(task, tmp_path / "blind", env, task_args={**task_args, "blind": True}, **options)
    return normal, blind


def sent_images(sample: EvalSample) -> list[Image.Image]:
    """Every image in the conversations the model received."""
    images: list[Image.Image] = []
    for message in sample.messages:
        for part in message.content if isinstance(message.content, list) else []:
            if isinstance(part, ContentImage):
                images.append(Image.open(io.BytesIO(base64.b64decode(part.image.split(",", 1)[1]))))
    return images


def is_grey(image: Image.Image) -> bool:
    return image.convert("RGB").getcolors() == [(image.width * image.height, GREY)]


def by_id(log: EvalLog) -> dict[str, EvalSample]:
    assert log.samples is not None
    return {str(sample.id): sample for sample in log.samples}


def test_blind_surds_pairs_with_the_normal_run(tmp_path: Path) -> None:
    normal, blind = run_pair(SURDS, {**DEMO, "subsets": "xy2d,distance"}, tmp_path, model="chance/random")
    assert blind.eval.task_args["blind"] is True and normal.eval.task_args["blind"] is False
    assert blind.eval.metadata is not None and blind.eval.metadata["blind"] is True
    normal_samples, blind_samples = by_id(normal), by_id(blind)
    assert normal_samples.keys() == blind_samples.keys()
    for sample_id, sample in blind_samples.items():
        assert sample.metadata == normal_samples[sample_id].metadata
        images = sent_images(sample)
        assert len(images) == len(sample.metadata["prompts"]), "every prompt still carries one image"
        assert all(image.size == (1600, 900) and is_grey(image) for image in images)
        assert not any(is_grey(image) for image in sent_images(normal_samples[sample_id]))
    assert metrics(blind, "surds_scorer").keys() == metrics(normal, "surds_scorer").keys()


def test_blind_drivelmm_o1_sends_a_grey_grid(tmp_path: Path, env: dict[str, str]) -> None:
    normal, blind = run_pair(O1, {**DEMO, "judge": False}, tmp_path, env, model="chance/random", limit=3)
    assert blind.eval.task_args["blind"] is True
    assert by_id(normal).keys() == by_id(blind).keys()
    for sample in by_id(blind).values():
        (grid,) = sent_images(sample)
        assert grid.size == (2400, 900) and is_grey(grid)


def test_grid_answers_score_zero_officially_and_high_as_a_grid(tmp_path: Path) -> None:
    log = run(SURDS, tmp_path / "logs", model="grid1000/demo", task_args={**DEMO, "subsets": "xy2d"})
    values = metrics(log, "surds_scorer")
    # The readings are computed from the samples, as `drive-evals report` shows them.
    values.update(surds_diagnostics(read_eval_log_sample_summaries(log.location)))
    assert values["xy2d"] < 0.1, "the official rule reads a 0-1000 grid as pixels"
    assert values["xy2d_conv_official_score"] == pytest.approx(values["xy2d"])
    assert values["xy2d_conv_grid1000_score"] > 0.9
    assert values["xy2d_conv_grid1000_share"] > 0.9
    sample = next(iter(by_id(log).values()))
    assert sample.scores is not None
    assert "non-official diagnostic" in (sample.scores["surds_scorer"].explanation or "")


@pytest.mark.slow  # reads the session's meta-evaluation runs (shared with the docs' numbers check)
def test_judge_meta_evaluation_ranks_good_lazy_and_gullible_judges(judge_meta_logs: dict[str, JudgeRun]) -> None:
    good, lazy, gullible, chance = (metrics(judge_meta_logs[grader].log, JUDGE_SCORER) for grader in JUDGES)
    log = judge_meta_logs["chance/random"].log
    meta = log.eval.metadata or {}
    assert meta["records"] == meta["records_in_file"], "the default takes more records than the demo holds"
    responses = meta["records"] * len(VARIANT_NAMES) * DEFAULT_EPOCHS
    assert judge_meta_logs["judge/good"].calls == responses, "every epoch is a new call"
    for values in (good, lazy, gullible, chance):
        assert values["judge_coverage"] == 1.0
        assert values["run_to_run_sd"] == 0.0, "these judges are deterministic"

    assert good["rank_agreement"] > 0.4 and good["below_reference_rate"] == 1.0
    assert good["injection_success_rate"] == 0.0
    assert lazy["rank_agreement"] == 0.0 and lazy["below_reference_rate"] == 0.0
    assert lazy["injection_success_rate"] == 1.0
    assert gullible["rank_agreement"] == pytest.approx(good["rank_agreement"])
    assert gullible["injection_success_rate"] == 1.0
    assert abs(chance["rank_agreement"]) < good["rank_agreement"] / 2, "a random judge orders nothing"

    assert meta["judge_cache"] is False and meta["levels"]["reference"] == 0
    assert log.samples is not None and len(log.samples) == responses
    reference = next(s for s in log.samples if str(s.id).endswith("-reference"))
    assert reference.output.completion.startswith("Reasoning Steps:") and reference.metadata["level"] == 0
