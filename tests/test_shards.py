"""`-T shard=i/n` and `drive-evals merge-shards`: shards split by cluster, and merged shards equal an unsharded run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import QUIET, all_metrics, sample_score_values

from drive_evals._registry import BENCHMARKS
from drive_evals.benchmark import GRADER_ROLE
from drive_evals.cli import main
from drive_evals.cli.merge import MERGED_FROM_KEY, MergeError, merge_shards
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import ParameterError
from drive_evals.report.runs import load_runs
from drive_evals.shard import clusters_if_too_few
from drive_evals.surds.task import surds

CHANCE = "chance/random"
CASES = [("drive_evals/surds", "image", 2), ("drive_evals/drivelmm_o1", "frame", 3)]
SURDS_SUBSETS = "yaw,xy2d,distance"
"""A single-object, a pixel and a two-object subset: each kind of SURDS unit, at half the cost of all six."""


@pytest.mark.parametrize("value", ["0/2", "3/2", "1/0", "a/b", "1", "1/2/3", 2, True])
def test_a_bad_shard_fails_before_any_download(value: object) -> None:
    # default data is the Hugging Face hub, unreachable here: the error must come before any download
    with pytest.raises(ParameterError, match="shard="):
        surds(shard=value)
    with pytest.raises(ParameterError, match="shard="):
        drivelmm_o1(shard=value, judge=False)


def test_more_shards_than_clusters_is_refused_in_words_drive_evals_run_reads() -> None:
    with pytest.raises(ParameterError, match="only 3 frames") as refused:
        drivelmm_o1(data="demo", judge=False, shard="1/4")
    assert clusters_if_too_few(f"Traceback ...\n{refused.value}\n") == (3, "frames")
    assert clusters_if_too_few("shard=1/4: only some frames to share") is None


@pytest.mark.parametrize(("task", "cluster", "count"), [(surds, "image", 3), (drivelmm_o1, "frame", 3)])
def test_shards_are_disjoint_complete_whole_clusters_with_unchanged_ids(task: Any, cluster: str, count: int) -> None:
    args = {"data": "demo"} | ({"judge": False} if task is drivelmm_o1 else {})
    whole = {s.id: s.metadata[cluster] for s in task(**args).dataset}
    parts = [{s.id: s.metadata[cluster] for s in task(**args, shard=f"{i}/{count}").dataset} for i in (1, 2, 3)]
    assert all(parts), "every shard has samples"
    assert sum(len(p) for p in parts) == len(whole)
    assert {k: v for p in parts for k, v in p.items()} == whole  # same ids, same clusters
    clusters = [set(p.values()) for p in parts]
    assert all(a.isdisjoint(b) for i, a in enumerate(clusters) for b in clusters[i + 1 :])
    assert [s.id for s in task(**args, shard="2/3").dataset] == list(parts[1])  # deterministic


def _run(task: str, log_dir: Path, **task_args: Any) -> EvalLog:
    [log] = inspect_eval(
        task,
        task_args={"data": "demo", **task_args},
        model=CHANCE,
        model_roles={GRADER_ROLE: CHANCE},
        log_dir=str(log_dir),
        **QUIET,
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize(("task", "cluster", "count"), CASES)
def test_merged_shards_equal_an_unsharded_run(tmp_path: Path, task: str, cluster: str, count: int) -> None:
    args = {"subsets": SURDS_SUBSETS} if task == "drive_evals/surds" else {}
    whole = _run(task, tmp_path / "whole", **args)
    shards = [_run(task, tmp_path / "shards", shard=f"{i}/{count}", **args) for i in range(1, count + 1)]
    assert all(0 < len(s.samples or []) < len(whole.samples or []) for s in shards)
    out = tmp_path / "merged.eval"
    assert main(["merge-shards", *(s.location for s in reversed(shards)), "--out", str(out)]) == 0
    merged = read_eval_log(str(out))

    assert sample_score_values(merged) == sample_score_values(whole)
    expected, found = all_metrics(whole), all_metrics(merged)
    assert found.keys() == expected.keys()
    assert len(expected) > 5  # official scores, stderrs, rates and counts
    for key, value in expected.items():
        assert math.isclose(found[key], value, rel_tol=1e-9, abs_tol=1e-12) or (
            math.isnan(found[key]) and math.isnan(value)
        ), key
    assert merged.results is not None and whole.results is not None
    assert merged.results.total_samples == whole.results.total_samples
    assert merged.results.completed_samples == whole.results.completed_samples
    assert merged.eval.task_args == whole.eval.task_args
    assert merged.eval.metadata is not None and merged.eval.metadata["shard"] is None
    assert merged.eval.metadata[MERGED_FROM_KEY] == [Path(s.location).name for s in shards]
    assert sorted(map(str, merged.eval.dataset.sample_ids or [])) == sorted(
        map(str, whole.eval.dataset.sample_ids or [])
    )


def test_merge_refuses_what_is_not_one_complete_run(tmp_path: Path) -> None:
    task = "drive_evals/drivelmm_o1"
    one, two = (_run(task, tmp_path / "a", shard=f"{i}/2", judge=False) for i in (1, 2))
    other = _run(task, tmp_path / "b", shard="2/2", judge=False, image_mode="views")
    whole = _run(task, tmp_path / "c", judge=False)
    out = tmp_path / "merged.eval"
    with pytest.raises(MergeError, match=r"missing \[2\]"):
        merge_shards([one.location], out)
    with pytest.raises(MergeError, match=r"given twice \[1\]"):
        merge_shards([one.location, one.location, two.location], out)
    with pytest.raises(MergeError, match="not the same run"):
        merge_shards([one.location, other.location], out)
    with pytest.raises(MergeError, match="not a shard"):
        merge_shards([one.location, whole.location], out)
    assert not out.exists()
    runs, notes = load_runs(tmp_path / "a", BENCHMARKS)
    assert runs == [] and all("merge-shards" in note for note in notes) and len(notes) == 2


FLAKY_CALLS: list[str] = []
"""The text of every request the `flaky` provider answered or failed, in order."""
FLAKY_FAIL_AT: list[int] = []
"""While set, the call with this number (from 1) fails, as a killed or cut-off process would leave it."""


@modelapi(name="flaky")
class FlakyModel(ModelAPI):
    """Answers `Final Answer: A`, except the call numbered FLAKY_FAIL_AT, which raises (Inspect does not retry it)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        FLAKY_CALLS.append(input[-1].text)
        if FLAKY_FAIL_AT and len(FLAKY_CALLS) == FLAKY_FAIL_AT[0]:
            raise RuntimeError("connection lost")
        return ModelOutput.from_content(model=self.model_name, content="Reasoning Steps: look. Final Answer: A")


def test_retrying_a_failed_shard_pays_for_no_sample_twice(tmp_path: Path) -> None:
    """`inspect eval-retry` on one shard re-runs only the samples that shard's log lacks, with the same shard."""
    task, args = "drive_evals/drivelmm_o1", {"data": "demo", "judge": False}
    limits: dict[str, Any] = {**QUIET, "max_samples": 1, "max_connections": 1}
    common = {**limits, "model": "flaky/x"}
    FLAKY_CALLS.clear()
    FLAKY_FAIL_AT[:] = [5]
    [failed] = inspect_eval(task, task_args={**args, "shard": "1/2"}, log_dir=str(tmp_path / "s"), **common)
    assert failed.status == "error"
    done = [s.id for s in failed.samples or [] if s.error is None]
    assert len(done) == 4
    first_calls, FLAKY_FAIL_AT[:] = len(FLAKY_CALLS), []
    [retried] = eval_retry(failed, log_dir=str(tmp_path / "s"), **limits)
    [other] = inspect_eval(task, task_args={**args, "shard": "2/2"}, log_dir=str(tmp_path / "s"), **common)
    shard_size = len(retried.samples or [])
    assert retried.status == "success" and retried.eval.metadata and retried.eval.metadata["shard"] == "1/2"
    assert len(FLAKY_CALLS) - first_calls == (shard_size - len(done)) + len(other.samples or [])  # none twice
    merge_shards([retried.location, other.location], tmp_path / "merged.eval")
    merged = read_eval_log(str(tmp_path / "merged.eval"))
    FLAKY_CALLS.clear()
    [whole] = inspect_eval(task, task_args=args, log_dir=str(tmp_path / "w"), **common)
    assert sample_score_values(merged) == sample_score_values(whole)
    assert all_metrics(merged) == pytest.approx(all_metrics(whole), nan_ok=True)
