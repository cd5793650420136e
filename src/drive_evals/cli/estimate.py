"""`drive-evals estimate`: the requests and tokens a run will pay for, computed before it runs (no model call).

The samples are built by the task functions themselves, so `-T` parameters (subsets, image_mode, lidar, blind, ...)
change the estimate exactly as they change the run. Text tokens use the ~4 characters per token rule of thumb (no
tokenizer is downloaded); image tokens use the provider's published rule (`drive_evals.cli.image_tokens`). Output
tokens are the task's `max_tokens` (an upper bound) unless a log of an earlier run gives the measured mean.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText, get_model
from inspect_ai.model._model import init_model_roles
from PIL import Image

from drive_evals.baseline import CHARS_PER_TOKEN
from drive_evals.cli.image_tokens import ImageRule, Size
from drive_evals.drivelmm_o1.judge_guard import GRADER_ROLE
from drive_evals.drivelmm_o1.prompts import JUDGE_MAX_TOKENS, JUDGE_SYSTEM_PROMPT, judge_user_message
from drive_evals.drivelmm_o1.solver import input_parts, official_message
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import ParameterError
from drive_evals.suite import DRIVELMM_O1, PACKAGE, SURDS, VLADBENCH, find
from drive_evals.surds.task import surds
from drive_evals.vladbench.task import vladbench

TEXT_RULE = f"~{CHARS_PER_TOKEN} characters per token"
TOKENS_PER_MILLION = 1_000_000
ESTIMATE_JUDGE = "mockllm/model"
"""Bound to the `grader` role while the task is built for an estimate: it makes no call and needs no key."""

ImagePart = tuple[Size, str]
"""An image's (width, height) and its OpenAI `detail`."""


@dataclass
class Request:
    """What one model call sends: its text length and its images."""

    text_chars: int
    images: list[ImagePart] = field(default_factory=list)


@dataclass
class Tally:
    """Requests and tokens of one role (the model under test, or the judge)."""

    requests: int = 0
    text_tokens: int = 0
    image_tokens: int = 0
    output_tokens: float = 0.0
    output_basis: str = ""

    @property
    def input_tokens(self) -> int:
        return self.text_tokens + self.image_tokens

    def cost(self, price_in: float, price_out: float) -> float:
        return (self.input_tokens * price_in + self.output_tokens * price_out) / TOKENS_PER_MILLION


@dataclass
class Estimate:
    task: str
    samples: int
    model: Tally
    judge: Tally | None
    image_rule: ImageRule


@dataclass(frozen=True)
class MeasuredOutput:
    """Mean output tokens per request, measured in a log (None where the log has no such requests)."""

    model: float | None
    judge: float | None
    source: str


def text_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


@cache
def image_size(image: str) -> Size:
    """Pixel size from the file header (or a data URI), read once per distinct image."""
    source = io.BytesIO(base64.b64decode(image.partition(",")[2])) if image.startswith("data:") else image
    with Image.open(source) as opened:
        return opened.size


def content_parts(messages: Iterable[ChatMessage]) -> Request:
    request = Request(text_chars=0)
    for message in messages:
        if isinstance(message.content, str):
            request.text_chars += len(message.content)
            continue
        for part in message.content:
            if isinstance(part, ContentText):
                request.text_chars += len(part.text)
            elif isinstance(part, ContentImage):
                request.images.append((image_size(part.image), part.detail))
    return request


def surds_requests(sample: Sample) -> list[Request]:
    """One request per prompt of the unit, each with the unit's image (as `answer_each_prompt` sends them)."""
    image = next(part for part in content_parts(_messages(sample)).images)
    return [Request(len(prompt), [image]) for prompt in (sample.metadata or {})["prompts"]]


def official_requests(sample: Sample) -> list[Request]:
    """One request: the official message the `official_prompt` solver builds from the sample's input."""
    (message,) = _messages(sample)
    if not isinstance(message, ChatMessageUser):
        raise ParameterError(f"sample {sample.id}: expected one user message")
    return [content_parts([official_message(*input_parts(message))])]


def input_requests(sample: Sample) -> list[Request]:
    """One request: the sample's input exactly as the task sends it (VLADBench: the images, then the question)."""
    return [content_parts(_messages(sample))]


def judge_request(sample: Sample) -> Request:
    """The judge's request without the response (text only, as the official pipeline)."""
    meta = sample.metadata or {}
    chars = len(JUDGE_SYSTEM_PROMPT) + len(
        judge_user_message(meta["question"], meta["steps"], meta["final_answer"], "")
    )
    return Request(chars)


def _messages(sample: Sample) -> list[ChatMessage]:
    if isinstance(sample.input, str):
        raise ParameterError(f"sample {sample.id}: expected a multimodal input")
    return list(sample.input)


@dataclass(frozen=True)
class TaskSpec:
    build: Callable[..., Task]
    requests: Callable[[Sample], list[Request]]
    judged: bool


TASKS = {
    SURDS.name: TaskSpec(surds, surds_requests, judged=False),
    DRIVELMM_O1.name: TaskSpec(drivelmm_o1, official_requests, judged=True),
    VLADBENCH.name: TaskSpec(vladbench, input_requests, judged=False),
}
"""The tasks an estimate covers (the judge meta-evaluation replays fixed responses: only its judge is paid)."""


def build_task(name: str, params: dict[str, object]) -> tuple[str, TaskSpec, Task]:
    """The task built by its own function from `-T` parameters (unknown names are an error, as in Inspect)."""
    short = name.removeprefix(f"{PACKAGE}/")
    if short not in TASKS:
        raise ParameterError(f"unknown task {name!r}: choose one of {', '.join(find(t).qualified for t in TASKS)}")
    suite_task, spec = find(short), TASKS[short]
    # The task's judge preflight builds the grader client, which needs its API key; an estimate calls no model, so
    # the role is bound to a stand-in that is never called (the judge's requests are counted from the prompt).
    init_model_roles({GRADER_ROLE: get_model(ESTIMATE_JUDGE)})
    try:
        task = spec.build(**params)
    except TypeError as error:
        raise ParameterError(f"{suite_task.qualified}: {error}") from error
    return suite_task.qualified, spec, task


def read_measured_output(log_file: str | Path, planned: dict[str, int], judged: dict[str, int]) -> MeasuredOutput:
    """Mean output tokens per request in an earlier run's log, over the samples this run also has.

    `planned` and `judged` give each sample id's request and judge-request count in this run; the log's output
    tokens of the matching samples divided by those counts give the means (judge retries included, as paid).
    Samples answered from Inspect's cache record no usage and are left out.
    """
    header = read_eval_log(str(log_file), header_only=True)
    model_out = judge_out = 0
    model_requests = judge_requests = 0
    for summary in read_eval_log_sample_summaries(str(log_file)):
        sample_id = str(summary.id)
        if sample_id not in planned:
            continue
        total = sum(usage.output_tokens for usage in summary.model_usage.values())
        grader = summary.role_usage.get(GRADER_ROLE)
        grader_out = grader.output_tokens if grader else 0
        if total > grader_out:  # calls answered from Inspect's cache record no usage: they tell nothing
            model_out += total - grader_out
            model_requests += planned[sample_id]
        if grader_out:
            judge_out += grader_out
            judge_requests += judged.get(sample_id, 0)
    if model_requests == 0:
        raise ParameterError(
            f"--from-log {log_file}: no sample of this run has paid output tokens in it (task "
            f"{header.eval.task}); point to a log of the same task and data, not one answered from the cache"
        )
    return MeasuredOutput(
        model_out / model_requests,
        judge_out / judge_requests if judge_requests else None,
        f"mean of {model_requests} requests in {Path(log_file).name}",
    )


def estimate(
    task_name: str,
    params: dict[str, object],
    image_rule: ImageRule,
    judges: int = 1,
    epochs: int = 1,
    from_log: str | None = None,
) -> Estimate:
    """Count the run's requests and tokens from the samples the task builds."""
    name, spec, task = build_task(task_name, params)
    judging = spec.judged and bool((task.metadata or {}).get("judge_enabled"))
    samples = list(task.dataset)
    per_sample = {str(s.id): spec.requests(s) for s in samples}
    planned = {sample_id: len(requests) for sample_id, requests in per_sample.items()}
    judged = {sample_id: judges for sample_id in planned} if judging else {}
    measured = read_measured_output(from_log, planned, judged) if from_log else None

    model = Tally()
    for requests in per_sample.values():
        for request in requests:
            model.requests += 1
            model.text_tokens += text_tokens(request.text_chars)
            model.image_tokens += sum(image_rule.tokens(size, detail) for size, detail in request.images)
    max_tokens = task.config.max_tokens or 0
    if measured and measured.model is not None:
        per_request, model.output_basis = measured.model, measured.source
    else:
        per_request, model.output_basis = max_tokens, f"upper bound: max_tokens {max_tokens} per request"
    model.output_tokens = per_request * model.requests

    judge: Tally | None = None
    if judging:
        judge = Tally()
        for sample in samples:
            judge.requests += judges
            judge.text_tokens += judges * (text_tokens(judge_request(sample).text_chars) + math.ceil(per_request))
        if measured and measured.judge is not None:
            judge_per_request, judge.output_basis = measured.judge, measured.source
        else:
            judge_per_request = JUDGE_MAX_TOKENS
            judge.output_basis = f"upper bound: max_tokens {JUDGE_MAX_TOKENS} per request; retries not counted"
        judge.output_tokens = judge_per_request * judge.requests
    for tally in (model, judge):
        if tally is not None and epochs > 1:
            _scale(tally, epochs)
    return Estimate(name, len(samples), model, judge, image_rule)


def _scale(tally: Tally, factor: int) -> None:
    tally.requests *= factor
    tally.text_tokens *= factor
    tally.image_tokens *= factor
    tally.output_tokens *= factor


def format_estimate(
    result: Estimate,
    model: str,
    prices: tuple[float, float] | None,
    judge_prices: tuple[float, float] | None,
) -> list[str]:
    """The printed report: one row per role, the rules used, and the cost when prices are given."""
    lines = [
        f"estimate for {result.task} with {model} (no model call): {result.samples:,} samples",
        f"image tokens: {result.image_rule.name}: {result.image_rule.summary}",
        f"  source: {result.image_rule.source}",
        f"text tokens: {TEXT_RULE}",
        "",
        f"{'':8} {'requests':>10} {'input text':>12} {'input image':>12} {'input total':>12} {'output':>12}",
    ]
    rows: list[tuple[str, Tally]] = [("model", result.model)]
    if result.judge is not None:
        rows.append(("judge", result.judge))
    for label, tally in rows:
        lines.append(
            f"{label:8} {tally.requests:>10,} {tally.text_tokens:>12,} {tally.image_tokens:>12,} "
            f"{tally.input_tokens:>12,} {round(tally.output_tokens):>12,}"
        )
    lines.append("")
    for label, tally in rows:
        lines.append(f"{label} output tokens: {tally.output_basis}")
    if result.judge is not None:
        lines.append("judge input includes the model's response at the model's output estimate; judge sees text only")
    if prices is not None:
        cost = result.model.cost(*prices)
        lines.append(f"model cost: ${cost:,.2f} at ${prices[0]:g} / ${prices[1]:g} per million input / output tokens")
    if result.judge is not None and judge_prices is not None:
        cost = result.judge.cost(*judge_prices)
        lines.append(
            f"judge cost: ${cost:,.2f} at ${judge_prices[0]:g} / ${judge_prices[1]:g} per million input / output tokens"
        )
    elif result.judge is not None and prices is not None:
        lines.append("judge cost: not included (give --judge-price-in/--judge-price-out for the grader's prices)")
    return lines


def parse_task_args(args: Sequence[str] | None) -> dict[str, object]:
    """`-T name=value` exactly as `inspect eval` parses it (YAML values, comma lists)."""
    from inspect_ai._util.config import parse_cli_args

    for arg in args or []:
        if "=" not in arg:
            raise ParameterError(f"-T {arg}: expected NAME=VALUE")
    return parse_cli_args(list(args or []))
