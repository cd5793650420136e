"""The task kit (`drive_evals.kit`) on the smallest benchmark it makes (tests/kit_example.py): suite parameters in
the signature, the docstring and their checks; the manifest checked on every load; a run's plumbing and numbers."""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from PIL import Image

from drive_evals import suite
from drive_evals.cli.describe import describe_task
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.kit import SUITE_PARAMETERS, SuiteArgs
from drive_evals.kit.parameters import STOP_PARAMETERS
from drive_evals.manifest import write_manifest
from drive_evals.unanswered import CALL_TIMEOUT_SECONDS

STOP = [parameter.name for parameter in STOP_PARAMETERS]
ANSWERS = ["B", "A", "B", "C"]
"""The four questions' answers; a model that always says B gets two of four."""
TASK_LINES = 40
"""The issue's bound on a rule-scored multiple-choice benchmark's task function."""


@modelapi(name="always_b")
class AlwaysB(ModelAPI):
    """Replies "B) y" to every question (with a token count, so that Inspect needs no tokenizer download)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        output = ModelOutput.from_content(model=self.model_name, content="B) y")
        output.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return output


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    """The example package's task module, registered with the suite only while these tests run."""
    module = importlib.import_module("kit_example")
    yield module
    suite._loaded.pop("toy_mcq", None)  # other tests list the suite's tasks


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Four questions over three images (two share one), in the example's official layout."""
    images = [f"img/{n}.png" for n in (0, 0, 1, 2)]
    records: list[dict[str, Any]] = [
        {"id": f"q{n}", "image": image, "question": f"Q{n}?", "options": ["A) x", "B) y", "C) z"], "answer": answer}
        for n, (image, answer) in enumerate(zip(images, ANSWERS, strict=True))
    ]
    (tmp_path / "img").mkdir()
    for name in set(images):
        Image.new("RGB", (8, 6), (200, 10, 10)).save(tmp_path / name)
    (tmp_path / "questions.json").write_text(json.dumps(records), encoding="utf-8")
    return tmp_path


def test_the_suite_parameters_are_in_the_signature_and_the_docstring(example: ModuleType) -> None:
    signature = inspect.signature(example.toy_mcq)
    assert [p.name for p in signature.parameters.values()][:-1] == [p.name for p in SUITE_PARAMETERS]
    assert signature.parameters["data"].default == "example/toy-mcq"
    described = describe_task("toy_mcq", example.toy_mcq)
    assert [p.name for p in described.parameters] == ["data", "revision", "blind", "shard", *STOP]
    assert all(p.meaning for p in described.parameters)


def test_the_task_function_is_short(example: ModuleType) -> None:
    lines = inspect.getsource(example.toy_mcq.__wrapped__).strip().splitlines()
    assert len(lines) <= TASK_LINES, len(lines)


@pytest.mark.parametrize(
    ("args", "message"),
    [({"subset": "x"}, "unknown parameter 'subset'"), ({"shard": "3/2"}, "shard="), ({"blind": "maybe"}, "blind=")],
)
def test_bad_parameters_fail_before_the_data_is_read(
    example: ModuleType, args: dict[str, object], message: str
) -> None:
    with pytest.raises(ParameterError, match=message):
        example.toy_mcq(data="/no/such/folder", **args)


def test_a_corrupted_file_fails_the_load_when_the_root_has_a_manifest(example: ModuleType, data: Path) -> None:
    write_manifest(data)
    example.toy_mcq(data=str(data))  # intact: loads
    Image.new("RGB", (8, 6), (0, 0, 0)).save(data / "img" / "1.png")
    with pytest.raises(DataValidationError, match=r"img/1.png: sha256"):
        example.toy_mcq(data=str(data))


def test_the_task_carries_the_suite_plumbing(example: ModuleType, data: Path) -> None:
    task = example.toy_mcq(data=str(data), shard="1/2")
    assert [sample.id for sample in task.dataset] == ["q0", "q1", "q3"]  # images 0 and 2 of three: split by image
    assert task.metadata["benchmark"] == "toy_mcq" and task.metadata["data"]["source"] == "local"
    assert task.config.timeout == CALL_TIMEOUT_SECONDS and task.config.max_tokens == 16
    assert task.headline_metric is not None and task.headline_metric.scorer == "toy_mcq_scorer"
    assert SuiteArgs.checked("toy_mcq", {"data": "demo"}).blind is False


def test_a_run_scores_the_official_rule_over_every_planned_question(example: ModuleType, data: Path) -> None:
    [log] = inspect_eval(example.toy_mcq(data=str(data)), model="always_b/model", display="none", log_dir=str(data))
    assert log.status == "success" and log.results is not None, log.error
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == 0.5
    assert "missing_units" not in metrics
