"""The OpenAI Responses API end to end: the scored reply is the raw `output_text` content, byte for byte.

Inspect's real `openai/` provider talks to the fake server's Responses API (`FakeModelServer(responses_api=True)`),
chosen by `-M responses_api=true` or by an o-series name (which also sends the reasoning-summary probe first).
Rows of issue 18's table, plus what only this API has: a reasoning item (the model's thinking, its own channel,
which stays out of the scored reply and the judge's "LLM Response") and a text in several `output_text` parts
(their concatenation is the reply; Inspect's `completion` joins them with newlines, which changes the score).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from fakeserver import FakeModelServer, FakeRequest, Reply
from fakeserver.drive import drivelmm_o1_prompts, judge_reply, lookup_key, normalise, surds_prompts
from fakeserver.openai_responses import PART_SPLIT
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ContentReasoning, get_model
from inspect_runs import QUIET, metrics

from drive_evals.drivelmm_o1.mcq import official_correct
from drive_evals.drivelmm_o1.prompts import JUDGE_SYSTEM_PROMPT
from drive_evals.replies import REPLY_REBUILT_KEY
from drive_evals.surds.rules import REASON_NO_ANSWER_BLOCK, score_choice

CHAT_MODEL = "openai/gpt-4o-mini"
"""A Chat Completions name: it takes the Responses API only with `responses_api=True`."""
REASONING_MODEL = "openai/o4-mini"
"""An o-series name: Inspect takes the Responses API for it by default."""
RESPONSES = "openai-responses"
SURDS_SCORER = "surds_scorer"
DRIVELMM_O1_SCORER = "drivelmm_o1_scorer"
CHOICE_SUBSETS = "yaw,depth,distance,left_right,front_behind"
CHOICE_UNITS = ["surds-*-0000"]
"""One unit of each of the five subsets with options (xy2d has none)."""
DRIVELMM_O1_MCQ_SAMPLES = "drivelmm-c66d0a-q0[23458]"
"""The five multiple-choice questions of one demo frame."""
PROBE = "Please say 'hello, world'"
"""What Inspect sends once for a reasoning model name, to learn whether reasoning summaries are allowed."""


@pytest.fixture(autouse=True)
def fresh_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge caches its replies: every test starts with empty caches, so each judge request reaches the server."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "drive-cache"))


def raw_text(reply: Reply) -> str:
    """The reply text the API returns: `output_text` parts concatenated."""
    return reply.text.replace(PART_SPLIT, "")


def surds_policy(template: str, thought: str | None) -> Callable[[FakeRequest], Reply]:
    """Each SURDS prompt answered by `template` (`{gold}`, `{wrong}`), with `thought` as a reasoning item."""

    def policy(request: FakeRequest) -> Reply:
        if request.texts == [PROBE]:
            return Reply("hello, world")
        prompt = surds_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        wrong = next(o for o in prompt.options if normalise(o).lower() != normalise(prompt.target).lower())
        fill = {"gold": prompt.target, "wrong": wrong}
        return Reply(template.format(**fill), thought.format(**fill) if thought is not None else None)

    return policy


def run(
    task: str,
    server: FakeModelServer,
    tmp_path: Path,
    task_args: Mapping[str, object],
    model: str,
    model_args: dict[str, object] | None = None,
    **options: object,
) -> EvalLog:
    """One in-process run through the real `openai/` provider on the Responses API, the judge too."""
    forced = {"responses_api": True} if model == CHAT_MODEL else {}
    grader = get_model(CHAT_MODEL, base_url=server.openai_base_url, memoize=False, responses_api=True)
    (log,) = inspect_eval(
        task,
        model=model,
        model_args={**forced, **(model_args or {})},
        model_base_url=server.openai_base_url,
        model_roles={"grader": grader},
        task_args={"data": "demo", **task_args},
        log_dir=str(tmp_path / "logs"),
        **QUIET,
        max_retries=1,
        **options,  # type: ignore[arg-type]
    )
    assert log.status == "success", log.error
    return log


def served(server: FakeModelServer, policy: Callable[[FakeRequest], Reply]) -> Counter[str]:
    """The raw reply texts the server returned (SURDS has no judge; the probe is left out)."""
    return Counter(raw_text(policy(request)) for request in server.requests if request.texts != [PROBE])


@pytest.mark.parametrize(
    ("template", "thought", "expected"),
    [
        pytest.param("<answer>{gold}</answer>", "draft: <answer>{wrong}</answer>", 1.0, id="reasoning-item"),
        pytest.param(
            "<answer>{gold}</answer>\n<think>draft: <answer>{wrong}</answer></think>", None, 1.0, id="answer-then-think"
        ),
        pytest.param("<answer>{gold} <think>hmm</think></answer>", None, 0.0, id="think-inside-answer"),
        pytest.param(
            "<think><summary><answer>{wrong}</answer></summary>r</think><answer>{gold}</answer>",
            None,
            0.0,
            id="summary",
        ),
        # Inspect's completion would be `<answer>gold</\nanswer>`: no closing tag, invalid.
        pytest.param("<answer>{gold}</" + PART_SPLIT + "answer>", None, 1.0, id="two-output-text-parts"),
    ],
)
def test_surds_scores_the_raw_output_text(
    fake_model_server: FakeModelServer, tmp_path: Path, template: str, thought: str | None, expected: float
) -> None:
    fake_model_server.responses_api = True
    policy = surds_policy(template, thought)
    fake_model_server.policy = policy
    args = {"subsets": CHOICE_SUBSETS}
    log = run("drive_evals/surds", fake_model_server, tmp_path, args, CHAT_MODEL, sample_id=CHOICE_UNITS)
    assert {r.api for r in fake_model_server.requests} == {RESPONSES}
    values = metrics(log, SURDS_SCORER)
    assert [values[s] for s in CHOICE_SUBSETS.split(",")] == [expected] * 5
    assert log.samples is not None and len(log.samples) == 5
    stored = Counter(text for sample in log.samples for text in sample.store["surds_completions"])
    assert stored == served(fake_model_server, policy), "each scored reply is a served text, byte for byte"
    for sample in log.samples:
        assert sample.scores is not None
        assert REPLY_REBUILT_KEY not in (sample.scores[SURDS_SCORER].metadata or {})
        if thought is not None:
            content = sample.output.message.content
            assert any(isinstance(part, ContentReasoning) for part in content), "Inspect keeps the reasoning item"
        if PART_SPLIT in template:
            joined = score_choice(sample.output.completion, "x", ["x"])
            assert joined.reason == REASON_NO_ANSWER_BLOCK, "Inspect's text (parts joined by newlines) is invalid"


def test_surds_streamed_responses_are_read_whole(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """`-M streaming=true`: `response.*` events; the reply is the final response's text, parts concatenated."""
    fake_model_server.responses_api = True
    policy = surds_policy("<answer>{gold}</" + PART_SPLIT + "answer>", "draft: <answer>{wrong}</answer>")
    fake_model_server.policy = policy
    args = {"subsets": "yaw,depth"}
    samples = ["surds-yaw-0000", "surds-depth-0000"]
    log = run(
        "drive_evals/surds",
        fake_model_server,
        tmp_path,
        args,
        CHAT_MODEL,
        sample_id=samples,
        model_args={"streaming": True},
    )
    requests = fake_model_server.requests
    assert requests and all(r.api == RESPONSES and r.config.stream for r in requests)
    assert (metrics(log, SURDS_SCORER)["yaw"], metrics(log, SURDS_SCORER)["depth"]) == (1.0, 1.0)
    assert log.samples is not None
    stored = Counter(text for sample in log.samples for text in sample.store["surds_completions"])
    assert stored == served(fake_model_server, policy)


def drivelmm_o1_policy(template: str, thought: str | None) -> Callable[[FakeRequest], Reply]:
    """DriveLMM-o1 answers by `template` (`{letter}`: the gold's, `{other}`: another); judges get valid criteria."""

    def policy(request: FakeRequest) -> Reply:
        if request.texts == [PROBE]:
            return Reply("hello, world")
        if request.system is not None and normalise(request.system) == normalise(JUDGE_SYSTEM_PROMPT):
            return Reply(judge_reply("correct", "\n".join(request.texts)))
        prompt = drivelmm_o1_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        letter = prompt.final_answer[0]
        fill = {"letter": letter, "other": "D" if letter != "D" else "C"}
        return Reply(template.format(**fill), thought.format(**fill) if thought is not None else None)

    return policy


@pytest.mark.parametrize(
    ("template", "thought"),
    [
        pytest.param(
            "Reasoning Steps: 1. x\nFinal Answer: {other}) go\n"
            "<think>On reflection, Final Answer: {letter}) stop</think>",
            None,
            id="last-final-answer-inside-think",
        ),
        pytest.param(
            "<think>checked</think>\nReasoning Steps: 1. x\nFinal Answer: ({letter}) \n", None, id="trailing-space"
        ),
        pytest.param(
            "Reasoning Steps: 1. x\nFinal Answer: {letter}) stop", "Final Answer: {other}) go", id="reasoning-item"
        ),
        # Inspect's completion would be `Final Answer: X\n) stop`: no `X)`, no letter.
        pytest.param("Reasoning Steps: 1. x\nFinal Answer: {letter}" + PART_SPLIT + ") stop", None, id="two-parts"),
    ],
)
def test_drivelmm_o1_mcq_and_judge_read_the_raw_output_text(
    fake_model_server: FakeModelServer, tmp_path: Path, template: str, thought: str | None
) -> None:
    fake_model_server.responses_api = True
    policy = drivelmm_o1_policy(template, thought)
    fake_model_server.policy = policy
    log = run(
        "drive_evals/drivelmm_o1", fake_model_server, tmp_path, {}, REASONING_MODEL, sample_id=DRIVELMM_O1_MCQ_SAMPLES
    )
    assert {r.api for r in fake_model_server.requests} == {RESPONSES}
    assert any(r.texts == [PROBE] for r in fake_model_server.requests), "an o-series name probes for summaries"
    assert log.samples is not None and len(log.samples) == 5
    judged = [r.texts[0] for r in fake_model_server.requests if r.system is not None and "LLM Response:" in r.texts[0]]
    assert len(judged) == len(log.samples)
    for sample in log.samples:
        assert sample.scores is not None and sample.metadata["mcq"]
        assert sample.scores[DRIVELMM_O1_SCORER].value["mcq_correct"] == 1.0, sample.id  # type: ignore[index,call-overload]
        assert REPLY_REBUILT_KEY not in (sample.scores[DRIVELMM_O1_SCORER].metadata or {})
        letter = sample.metadata["final_answer"][0]
        raw = template.format(letter=letter, other="D" if letter != "D" else "C").replace(PART_SPLIT, "")
        assert sample.store["reply_text"] == raw
        question = f"Question: {sample.metadata['question']}\n"
        (text,) = [t for t in judged if t.startswith(question)]
        assert text.endswith("LLM Response: " + raw), "the judge gets the reply byte for byte, no reasoning"
        if PART_SPLIT in template:
            assert not official_correct(sample.output.completion, sample.metadata["final_answer"]).correct
    assert metrics(log, DRIVELMM_O1_SCORER)["mcq_accuracy"] == 1.0
