"""Scoring the text the model wrote: `<think>` blocks that Inspect split off are put back, in order.

The end-to-end cases go through Inspect's real `openai/` provider against the fake server, which is where the
blocks are split off; the unit cases pin what is and is not re-inserted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeserver import FakeModelServer, FakeRequest
from fakeserver.drive import judge_reply, lookup_key, normalise, o1_prompts, surds_prompts
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput, get_model
from inspect_runs import metrics

from drive_evals.drivelmm_o1.prompts import JUDGE_SYSTEM_PROMPT
from drive_evals.replies import THINK_TAG_SOURCE, emitted_text

OPENAI_MODEL = "openai/gpt-4o-mini"
SURDS_SCORER = "surds_scorer"
O1_SCORER = "drivelmm_o1_scorer"
UNITS = 4
"""Units per run: two-prompt yaw units (the store path) and one-prompt depth units."""


def output_of(*content: ContentText | ContentReasoning) -> ModelOutput:
    return ModelOutput.from_message(ChatMessageAssistant(content=list(content)))


def test_tag_reasoning_goes_back_before_the_visible_text() -> None:
    output = output_of(
        ContentReasoning(reasoning="look <answer>A</answer>", internal=THINK_TAG_SOURCE), ContentText(text="Done.")
    )
    assert output.completion == "Done."
    assert emitted_text(output) == "<think>\nlook <answer>A</answer>\n</think>\nDone."


def test_provider_reasoning_is_not_inserted() -> None:
    """Claude thinking, Gemini thoughts, o-series summaries, vLLM reasoning fields: never part of the text."""
    native = ContentReasoning(reasoning="hidden <answer>A</answer>", signature="sig")
    field = ContentReasoning(reasoning="from reasoning_content", internal="reasoning_content")
    assert emitted_text(output_of(native, field, ContentText(text="<answer>B</answer>"))) == "<answer>B</answer>"


def test_a_reply_that_is_only_a_think_block_is_not_doubled() -> None:
    """Inspect keeps the whole reply as the visible text when nothing remains beside the block."""
    raw = "<think>all <answer>A</answer></think>"
    output = output_of(
        ContentReasoning(reasoning="all <answer>A</answer>", internal=THINK_TAG_SOURCE), ContentText(text=raw)
    )
    assert emitted_text(output) == raw


def test_plain_and_empty_outputs() -> None:
    assert emitted_text(ModelOutput.from_content("m", "<answer>A</answer>")) == "<answer>A</answer>"
    assert emitted_text(ModelOutput(model="m", choices=[])) == ""


def surds_policy(template: str) -> Callable[[FakeRequest], str]:
    """Answer each SURDS prompt by `template` with `{gold}` and `{wrong}` (an option that is not the gold)."""

    def policy(request: FakeRequest) -> str:
        prompt = surds_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        wrong = next(o for o in prompt.options if normalise(o).lower() != normalise(prompt.target).lower())
        return template.format(gold=prompt.target, wrong=wrong)

    return policy


def run(task: str, server: FakeModelServer, tmp_path: Path, task_args: dict[str, object], **options: object) -> EvalLog:
    """One in-process run through the real `openai/` provider, the judge too (clients are not reused across
    servers: Inspect caches models by name and base URL)."""
    (log,) = inspect_eval(
        task,
        model=OPENAI_MODEL,
        model_base_url=server.openai_base_url,
        model_roles={"grader": get_model(OPENAI_MODEL, base_url=server.openai_base_url)},
        task_args={"data": "demo", **task_args},
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=1,
        **options,  # type: ignore[arg-type]
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        pytest.param("<think>I see it: <answer>{gold}</answer></think>See above.", 1.0, id="answer-inside-think"),
        pytest.param("<think>Look left.</think>\n<answer>{gold}</answer>", 1.0, id="answer-after-think"),
        pytest.param("<think>a <think>b <answer>{gold}</answer></think> c</think>Done.", 1.0, id="nested"),
        pytest.param("<think>only <answer>{gold}</answer></think>", 1.0, id="reply-is-one-block"),
        pytest.param("<answer>{gold}</answer>", 1.0, id="no-think"),
        # The official rule takes the FIRST <answer>: the one the model wrote inside its thinking.
        pytest.param("<think><answer>{wrong}</answer></think><answer>{gold}</answer>", 0.0, id="first-answer-wins"),
    ],
)
def test_surds_scores_the_emitted_text(
    fake_model_server: FakeModelServer, tmp_path: Path, template: str, expected: float
) -> None:
    fake_model_server.policy = surds_policy(template)
    samples = ["surds-yaw-000[01]", "surds-depth-000[01]"]
    log = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": "yaw,depth"}, sample_id=samples)
    values = metrics(log, SURDS_SCORER)
    assert (values["yaw"], values["depth"]) == (expected, expected)
    assert values["valid_rate"] == 1.0
    assert log.samples is not None and len(log.samples) == UNITS
    for sample in log.samples:
        for text in sample.store["surds_completions"]:
            assert text.count("<answer>") == template.count("<answer>"), text


def o1_policy(template: str) -> Callable[[FakeRequest], str]:
    """DriveLMM-o1 answers by `template` with `{steps}` and `{final}`; judge requests get valid criteria."""

    def policy(request: FakeRequest) -> str:
        if request.system is not None and normalise(request.system) == normalise(JUDGE_SYSTEM_PROMPT):
            return judge_reply("correct", "\n".join(request.texts))
        prompt = o1_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        return template.format(steps=prompt.steps.strip(), final=prompt.final_answer)

    return policy


def test_drivelmm_o1_judge_and_mcq_read_the_emitted_text(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """The whole answer inside `<think>`: Inspect's completion is only the closing remark, the judge must see all."""
    template = "<think>Reasoning Steps: {steps}\nFinal Answer: {final}</think>That is my answer."
    fake_model_server.policy = o1_policy(template)
    log = run("drive_evals/drivelmm_o1", fake_model_server, tmp_path, {})
    assert log.samples is not None
    mcq = [s for s in log.samples if s.metadata["mcq"]]
    assert mcq and all(s.output.completion == "That is my answer." for s in log.samples)
    assert metrics(log, O1_SCORER)["mcq_accuracy"] == 1.0
    judged = [r for r in fake_model_server.requests if r.system is not None and "LLM Response:" in r.texts[0]]
    assert len(judged) == len(log.samples)
    for request in judged:
        response = request.texts[0].split("LLM Response:", 1)[1]
        assert re.search(
            r"<think>\s*Reasoning Steps: .+Final Answer: .+</think>\s*That is my answer\.$", response, re.DOTALL
        )
