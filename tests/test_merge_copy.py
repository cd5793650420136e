"""`drive-evals merge-shards` copies the shards' sample members as stored: the merged log equals the one the earlier
merge wrote through Inspect (tests/merge_reference.py) in every member, sample, score, summary and metric."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import QUIET
from merge_reference import reference_merge, shard_order

from drive_evals.benchmark import GRADER_ROLE
from drive_evals.cli import eval_zip
from drive_evals.cli.merge import MergeError, merge_shards

CHANCE = "chance/random"
RUN_ID_FIELDS = ("eval_id",)
"""Fields a merge draws afresh: the merged log is a new run."""


def _shards(log_dir: Path, task: str, count: int, **options: Any) -> list[EvalLog]:
    logs = []
    for index in range(1, count + 1):
        args = {**options.pop("task_args", {}), "data": "demo", "shard": f"{index}/{count}"}
        options["task_args"] = args
        [log] = inspect_eval(task, log_dir=str(log_dir), **{**QUIET, **options})
        assert log.status == "success", log.error
        logs.append(log)
    return logs


def _without_run_id(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_run_id(v) for k, v in value.items() if k not in RUN_ID_FIELDS}
    if isinstance(value, list):
        return [_without_run_id(item) for item in value]
    return value


def _members(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        return {name: _without_run_id(json.loads(archive.read(name))) for name in archive.namelist()}


def _assert_equal_logs(found: Path, expected: Path) -> None:
    """Every member's JSON equal, and equal as Inspect reads them: samples, scores, metrics, reductions, summaries."""
    assert _members(found) == _members(expected)
    new, old = read_eval_log(str(found)), read_eval_log(str(expected))
    assert new.samples and len(new.samples) == len(old.samples or [])
    assert [s.model_dump() for s in new.samples] == [s.model_dump() for s in old.samples or []]
    assert new.results is not None and new.results.model_dump() == (old.results and old.results.model_dump())
    assert [r.model_dump() for r in new.reductions or []] == [r.model_dump() for r in old.reductions or []]
    assert _without_run_id(new.eval.model_dump()) == _without_run_id(old.eval.model_dump())
    assert new.stats.model_dump() == old.stats.model_dump() and new.plan.model_dump() == old.plan.model_dump()
    summaries = [read_eval_log_sample_summaries(str(path)) for path in (found, expected)]
    assert [s.model_dump() for s in summaries[0]] == [s.model_dump() for s in summaries[1]]


def _merge_both(shards: list[EvalLog], tmp_path: Path) -> tuple[Path, Path]:
    new, old = tmp_path / "merged.eval", tmp_path / "reference.eval"
    # as `drive-evals run` passes them: the `file://` URIs Inspect lists its logs by
    merged = merge_shards([Path(log.location).absolute().as_uri() for log in reversed(shards)], new)
    reference_merge(shard_order(shards), old)
    assert merged.samples == sum(len(log.samples or []) for log in shards)
    return new, old


@pytest.fixture(scope="module")
def surds_shards(tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """SURDS on the demo data as 2 shards, with Inspect's default logging (the images are in the samples)."""
    return _shards(tmp_path_factory.mktemp("surds"), "drive_evals/surds", 2, model=CHANCE)


def test_surds_with_images_in_the_log_merges_as_before(surds_shards: list[EvalLog], tmp_path: Path) -> None:
    _assert_equal_logs(*_merge_both(surds_shards, tmp_path))


def test_a_log_elsewhere_than_this_machine_is_named(tmp_path: Path) -> None:
    with pytest.raises(MergeError, match=r"s3://bucket/shard\.eval: not a local file"):
        merge_shards(["s3://bucket/shard.eval"], tmp_path / "merged.eval")


def test_drivelmm_with_its_judge_and_two_epochs_merges_as_before(tmp_path: Path) -> None:
    options = {"model": CHANCE, "model_roles": {GRADER_ROLE: CHANCE}, "epochs": 2}
    shards = _shards(tmp_path / "logs", "drive_evals/drivelmm_o1", 3, **options)
    assert all(log.reductions for log in shards)  # the epochs' reductions are recomputed, not copied
    _assert_equal_logs(*_merge_both(shards, tmp_path))


FAIL_AT: list[int] = []
"""While set, the `merge_flaky` provider's call with this number (from 1, counting every call) raises."""
CALLS: list[int] = []


@modelapi(name="merge_flaky")
class MergeFlakyModel(ModelAPI):
    """Answers `A`, except the call numbered FAIL_AT (a retry of its run, with FAIL_AT cleared, answers)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        CALLS.append(1)
        if FAIL_AT and len(CALLS) == FAIL_AT[0]:
            raise RuntimeError("connection lost")
        return ModelOutput.from_content(model=self.model_name, content="A")


def _failing_at(call: int) -> str:
    CALLS.clear()
    FAIL_AT[:] = [call]
    return "merge_flaky/x"


@pytest.mark.slow  # four runs of one sample at a time
def test_errored_samples_and_a_retried_shard_merge_as_before(tmp_path: Path) -> None:
    """Samples logged with an error stay missing units in the recomputed metrics; a shard finished by
    `inspect eval-retry` (its log seeded from the failed one) merges like any other."""
    one_at_a_time: dict[str, Any] = {"max_samples": 1, "max_connections": 1}
    kept = _shards(
        tmp_path / "kept", "drive_evals/surds", 2, model=_failing_at(3), fail_on_error=False, **one_at_a_time
    )
    assert sum(1 for log in kept for s in log.samples or [] if s.error) == 1
    _assert_equal_logs(*_merge_both(kept, tmp_path / "kept"))

    [failed] = inspect_eval(
        "drive_evals/surds",
        task_args={"data": "demo", "shard": "1/2"},
        model=_failing_at(5),
        log_dir=str(tmp_path / "retry"),
        **QUIET,
        **one_at_a_time,
    )
    assert failed.status == "error"
    FAIL_AT.clear()
    [retried] = eval_retry(failed, log_dir=str(tmp_path / "retry"), **QUIET)
    assert retried.status == "success"
    _assert_equal_logs(*_merge_both([retried, kept[1]], tmp_path / "retry"))


def test_the_merge_validates_no_sample_transcript(
    surds_shards: list[EvalLog], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What makes the merge cost seconds: no sample's messages, events or attachments are parsed into Inspect's
    models (the earlier merge validated every sample in full, and wrote it again)."""
    shards = surds_shards
    validated: list[set[str]] = []
    original = EvalSample.model_validate.__func__  # type: ignore[attr-defined]

    def recording(cls: type[EvalSample], data: Any, *args: Any, **kwargs: Any) -> EvalSample:
        validated.append(set(data) if isinstance(data, dict) else {"?"})
        return original(cls, data, *args, **kwargs)

    monkeypatch.setattr(EvalSample, "model_validate", classmethod(recording))
    merged = merge_shards([log.location for log in shards], tmp_path / "merged.eval")
    assert len(validated) == merged.samples
    assert not any(fields & {"messages", "events", "attachments", "output"} for fields in validated)
    with zipfile.ZipFile(tmp_path / "merged.eval") as archive, zipfile.ZipFile(shards[0].location) as shard:
        stored = eval_zip.sample_members(archive)
        for name, info in eval_zip.sample_members(shard).items():  # the shard's compressed bytes, as they were
            assert eval_zip.raw_bytes(archive, stored[name]) == eval_zip.raw_bytes(shard, info)
