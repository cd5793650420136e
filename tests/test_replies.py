"""Scoring the reply as the provider returned it: both benchmarks, the judge's "LLM Response", every provider.

The end-to-end cases go through Inspect's real `openai/` and `anthropic/` providers against the fake server
(the OpenAI path is where Inspect splits `<think>` blocks off); each row of issue 18's table asserts the official
result. The unit cases pin the text-channel readers and the rebuild used when no raw response exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeserver import OPENAI_API_SERVICE, FakeModelServer, FakeRequest
from fakeserver.anthropic_api import THINKING_SPLIT
from fakeserver.drive import drivelmm_o1_prompts, judge_reply, lookup_key, normalise, surds_prompts
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput, get_model
from inspect_runs import QUIET, metrics

from drive_evals.drivelmm_o1.prompts import JUDGE_SYSTEM_PROMPT
from drive_evals.replies import (
    NO_CALL,
    PROVIDER,
    REBUILT,
    REPLY_REBUILT_KEY,
    THINK_TAG_SOURCE,
    Reply,
    anthropic_text,
    fallback_reply,
    gemini_text,
    openai_chat_text,
    openai_responses_text,
    provider_text,
)
from drive_evals.replies import rebuilt_text as emitted_text

OPENAI_MODEL = "openai/gpt-4o-mini"
SURDS_SCORER = "surds_scorer"
DRIVELMM_O1_SCORER = "drivelmm_o1_scorer"
UNITS = 4
"""Units per run: two-prompt yaw units (the store path) and one-prompt depth units."""


@pytest.fixture(autouse=True)
def own_inspect_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each test starts with an empty model cache: a judge reply cached by an earlier test with the same request (a
    fake server's port can be reused) would answer without a request, and the request counts below would read 0."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


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
        **QUIET,
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


def drivelmm_o1_policy(template: str) -> Callable[[FakeRequest], str]:
    """DriveLMM-o1 answers by `template` with `{steps}` and `{final}`; judge requests get valid criteria."""

    def policy(request: FakeRequest) -> str:
        if request.system is not None and normalise(request.system) == normalise(JUDGE_SYSTEM_PROMPT):
            return judge_reply("correct", "\n".join(request.texts))
        prompt = drivelmm_o1_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        return template.format(steps=prompt.steps.strip(), final=prompt.final_answer)

    return policy


def test_drivelmm_o1_judge_and_mcq_read_the_emitted_text(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """The whole answer inside `<think>`: Inspect's completion is only the closing remark, the judge must see all."""
    template = "<think>Reasoning Steps: {steps}\nFinal Answer: {final}</think>That is my answer."
    fake_model_server.policy = drivelmm_o1_policy(template)
    log = run("drive_evals/drivelmm_o1", fake_model_server, tmp_path, {})
    assert log.samples is not None
    mcq = [s for s in log.samples if s.metadata["mcq"]]
    assert mcq and all(s.output.completion == "That is my answer." for s in log.samples)
    assert metrics(log, DRIVELMM_O1_SCORER)["mcq_accuracy"] == 1.0
    judged = [r for r in fake_model_server.requests if r.system is not None and "LLM Response:" in r.texts[0]]
    assert len(judged) == len(log.samples)
    for request in judged:
        response = request.texts[0].split("LLM Response:", 1)[1]
        assert re.search(
            r"<think>\s*Reasoning Steps: .+Final Answer: .+</think>\s*That is my answer\.$", response, re.DOTALL
        )


# --- the text channel of each provider's raw response -------------------------------------------------------------


def test_openai_chat_content_is_read_verbatim() -> None:
    raw = "<answer>G</answer>\n<think>x</think>  \n"
    body = {"choices": [{"message": {"content": raw, "reasoning_content": "provider channel"}}]}
    assert openai_chat_text(body) == provider_text(body) == raw
    assert openai_chat_text({"choices": [{"message": {"content": None, "refusal": "no"}}]}) == "no"
    assert (
        openai_chat_text({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]})
        == "ab"
    )


def test_responses_reasoning_items_stay_out() -> None:
    body = {
        "object": "response",
        "output": [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "<answer>W</answer>"}]},
            {"type": "message", "content": [{"type": "output_text", "text": "<answer>G</answer>"}]},
        ],
    }
    assert openai_responses_text(body) == provider_text(body) == "<answer>G</answer>"


def test_anthropic_thinking_blocks_stay_out() -> None:
    body = {
        "type": "message",
        "content": [
            {"type": "thinking", "thinking": "<answer>W</answer>", "signature": "s"},
            {"type": "redacted_thinking", "data": "..."},
            {"type": "text", "text": "<answer>G</answer>"},
        ],
    }
    assert anthropic_text(body) == provider_text(body) == "<answer>G</answer>"


def test_gemini_thought_parts_stay_out() -> None:
    body = {"candidates": [{"content": {"parts": [{"text": "<answer>W</answer>", "thought": True}, {"text": "G"}]}}]}
    assert gemini_text(body) == provider_text(body) == "G"


def test_without_a_raw_response_only_a_lossy_rebuild_is_marked() -> None:
    """An in-process provider's text is the reply; a text Inspect split a `<think>` block off is only rebuilt."""
    assert fallback_reply(ModelOutput.from_content("m", " <answer>A</answer> "), NO_CALL) == Reply(
        " <answer>A</answer> ", PROVIDER
    )
    native = output_of(ContentReasoning(reasoning="hidden", signature="s"), ContentText(text="<answer>B</answer>"))
    assert fallback_reply(native, NO_CALL) == Reply("<answer>B</answer>", PROVIDER)
    split = output_of(
        ContentReasoning(reasoning="x", internal=THINK_TAG_SOURCE), ContentText(text="<answer>C</answer>")
    )
    assert fallback_reply(split, NO_CALL) == Reply("<think>\nx\n</think>\n<answer>C</answer>", REBUILT, NO_CALL)


def test_an_unknown_shape_is_not_read() -> None:
    assert provider_text({"result": "text"}) is None
    assert provider_text("text") is None


# --- issue 18's table, through the real providers ----------------------------------------------------------------

CHOICE_SUBSETS = "yaw,depth,distance,left_right,front_behind"
CHOICE_UNITS = ["surds-*-0000"]
"""One unit of each of the five subsets with options (xy2d has none)."""
ANTHROPIC_MODEL = "anthropic/claude-3-5-sonnet-20241022"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        pytest.param(
            "<answer>{gold}</answer>\n<think>draft: <answer>{wrong}</answer></think>", 1.0, id="answer-then-think"
        ),
        pytest.param("<answer>{gold} <think>hmm</think></answer>", 0.0, id="think-inside-answer"),
        pytest.param(
            "<think><summary><answer>{wrong}</answer></summary>r</think><answer>{gold}</answer>", 0.0, id="summary"
        ),
    ],
)
def test_surds_scores_the_raw_reply_in_every_choice_subset(
    fake_model_server: FakeModelServer, tmp_path: Path, template: str, expected: float
) -> None:
    fake_model_server.policy = surds_policy(template)
    log = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": CHOICE_SUBSETS}, sample_id=CHOICE_UNITS)
    values = metrics(log, SURDS_SCORER)
    assert [values[s] for s in CHOICE_SUBSETS.split(",")] == [expected] * 5
    assert log.samples is not None and len(log.samples) == 5
    for sample in log.samples:
        assert all("<think>" in text for text in sample.store["surds_completions"])
        assert sample.scores is not None
        assert REPLY_REBUILT_KEY not in (sample.scores[SURDS_SCORER].metadata or {})


def test_the_transcript_keeps_every_generation(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """The sink hands each ModelEvent on: the log holds both generations of a pair, complete."""
    fake_model_server.policy = surds_policy("<answer>{gold}</answer>")
    log = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": "yaw"}, sample_id="surds-yaw-0000")
    assert log.samples is not None
    events = [e for e in log.samples[0].events if e.event == "model"]
    assert len(events) == 2 and all(e.output.completion.startswith("<answer>") and not e.pending for e in events)


@pytest.mark.parametrize(
    ("model", "template"),
    [
        pytest.param(
            ANTHROPIC_MODEL,
            "<answer>{wrong}</answer>"
            + THINKING_SPLIT
            + "<answer>{gold}</answer>\n<think><answer>{wrong}</answer></think>",
            id="anthropic-thinking-block",
        ),
        pytest.param(
            f"openai-api/{OPENAI_API_SERVICE}/qwen3-vl-8b",
            "<answer>{gold}</answer>\n<think>draft: <answer>{wrong}</answer></think>",
            id="openai-compatible-think-tag",
        ),
    ],
)
def test_the_raw_text_is_scored_without_the_providers_reasoning(
    fake_model_server: FakeModelServer, tmp_path: Path, model: str, template: str
) -> None:
    """Anthropic's thinking blocks are the provider's channel: a wrong answer there does not count. `openai-api/
    <service>/...` (vLLM, SGLang and other compatible servers) splits `<think>` off as `openai/` does. Either way
    the text is scored raw, its `<think>` block included."""
    fake_model_server.policy = surds_policy(template)
    (log,) = inspect_eval(
        "drive_evals/surds",
        model=model,
        task_args={"data": "demo", "subsets": "yaw,depth"},
        sample_id=["surds-yaw-0000", "surds-depth-0000"],
        log_dir=str(tmp_path / "logs"),
        **QUIET,
        max_retries=1,
    )
    assert log.status == "success", log.error
    values = metrics(log, SURDS_SCORER)
    assert (values["yaw"], values["depth"]) == (1.0, 1.0)
    assert log.samples is not None
    for sample in log.samples:
        for text in sample.store["surds_completions"]:
            assert THINKING_SPLIT not in text and text.startswith("<answer>") and text.endswith("</think>")


DRIVELMM_O1_MCQ_SAMPLES = "drivelmm-c66d0a-q0[23458]"
"""The five multiple-choice questions of one demo frame."""


def drivelmm_o1_letter_policy(template: str) -> Callable[[FakeRequest], str]:
    """DriveLMM-o1 answers by `template` with `{letter}` (the gold's) and `{other}` (another letter)."""

    def policy(request: FakeRequest) -> str:
        if request.system is not None and normalise(request.system) == normalise(JUDGE_SYSTEM_PROMPT):
            return judge_reply("correct", "\n".join(request.texts))
        prompt = drivelmm_o1_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        letter = prompt.final_answer[0]
        return template.format(letter=letter, other="D" if letter != "D" else "C")

    return policy


@pytest.mark.parametrize(
    "template",
    [
        pytest.param(
            "Reasoning Steps: 1. x\nFinal Answer: {other}) go\n"
            "<think>On reflection, Final Answer: {letter}) stop</think>",
            id="last-final-answer-inside-think",
        ),
        pytest.param("<think>checked</think>\nReasoning Steps: 1. x\nFinal Answer: ({letter}) \n", id="trailing-space"),
    ],
)
def test_drivelmm_o1_mcq_and_judge_read_the_raw_reply(
    fake_model_server: FakeModelServer, tmp_path: Path, template: str
) -> None:
    fake_model_server.policy = drivelmm_o1_letter_policy(template)
    log = run("drive_evals/drivelmm_o1", fake_model_server, tmp_path, {}, sample_id=DRIVELMM_O1_MCQ_SAMPLES)
    assert log.samples is not None
    mcq = [s for s in log.samples if s.metadata["mcq"]]
    assert len(mcq) == len(log.samples) == 5
    for sample in mcq:
        assert sample.scores is not None
        assert sample.scores[DRIVELMM_O1_SCORER].value["mcq_correct"] == 1.0, sample.id  # type: ignore[index,call-overload]
        assert REPLY_REBUILT_KEY not in (sample.scores[DRIVELMM_O1_SCORER].metadata or {})
    judged = [r.texts[0] for r in fake_model_server.requests if r.system is not None and "LLM Response:" in r.texts[0]]
    assert len(judged) == len(log.samples)
    for sample in log.samples:
        letter = sample.metadata["final_answer"][0]
        raw = template.format(letter=letter, other="D" if letter != "D" else "C")
        assert sample.store["reply_text"] == raw
        question = f"Question: {sample.metadata['question']}\n"
        (text,) = [t for t in judged if t.startswith(question)]
        assert text.endswith("LLM Response: " + raw), "the judge gets the reply byte for byte"


def test_a_cache_hit_reads_the_raw_text_back(
    fake_model_server: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's cache keeps the parsed output only; the raw text kept beside it scores the hit exactly as the call."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "drive-cache"))
    fake_model_server.policy = surds_policy("<answer>{gold}</answer>\n<think>draft: <answer>{wrong}</answer></think>")
    options = {"sample_id": "surds-depth-0000", "cache": True}
    first = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": "depth"}, **options)
    calls = len(fake_model_server.requests)
    second = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": "depth"}, **options)
    assert len(fake_model_server.requests) == calls, "the second run is answered from the cache"
    assert first.samples is not None and second.samples is not None
    (fresh,), (cached,) = first.samples, second.samples
    assert cached.store["surds_completions"] == fresh.store["surds_completions"]
    assert cached.store["surds_completions"][0].startswith("<answer>")
    assert metrics(second, SURDS_SCORER)["depth"] == metrics(first, SURDS_SCORER)["depth"] == 1.0
    assert cached.scores is not None and REPLY_REBUILT_KEY not in (cached.scores[SURDS_SCORER].metadata or {})


def test_a_cache_hit_without_its_raw_text_is_rebuilt_and_says_so(
    fake_model_server: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry cached without its raw text (another tool, a cleared drive_evals cache): rebuilt, and named."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    fake_model_server.policy = surds_policy("<answer>{gold}</answer>\n<think>draft</think>")
    options = {"sample_id": "surds-depth-0000", "cache": True}
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "first"))
    first = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": "depth"}, **options)
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "empty"))
    second = run("drive_evals/surds", fake_model_server, tmp_path, {"subsets": "depth"}, **options)
    assert first.samples is not None and second.samples is not None
    (fresh,), (cached,) = first.samples, second.samples
    assert fresh.scores is not None and cached.scores is not None
    assert REPLY_REBUILT_KEY not in (fresh.scores[SURDS_SCORER].metadata or {})
    assert cached.scores[SURDS_SCORER].metadata == {REPLY_REBUILT_KEY: {"1": NO_CALL}}
