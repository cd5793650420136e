"""Self-tests of the fake provider servers, through the raw SDKs and through Inspect's real providers."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ResponseSchema,
    get_model,
)
from inspect_ai.util import json_schema, materialize_media
from PIL import Image
from pydantic import BaseModel
from tenacity import wait_none
from waiting import wait_for

from . import (
    OPENAI_API_SERVICE,
    TEST_API_KEY,
    FakeModelServer,
    FakeRequest,
    Fault,
    FaultPlan,
    InjectedFault,
    PromptCounts,
    Reply,
    echo,
    fixed_text,
)
from .offline import PROXY_VARS, refuse_other_hosts
from .openai_responses import PART_SPLIT

OPENAI_MODEL = "openai/gpt-4o-mini"
OPENAI_API_MODEL = f"openai-api/{OPENAI_API_SERVICE}/qwen2.5-vl-7b"
ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-6"
GEMINI_MODEL = "google/gemini-2.0-flash"
SYSTEM = "You are a careful driving assistant."
QUESTION = "How far away is the truck?"
IMAGE_SIZE = (37, 21)
ATTEMPT_TIMEOUT_SECONDS = 20
"""Far longer than an honest answer takes even on a loaded machine, so only a scheduled hang outlasts it (with one
second, an answer slowed by load was retried and counted twice)."""
# Bounded retries and a bounded total: a broken test fails instead of retrying forever.
RETRYING = GenerateConfig(max_retries=4, attempt_timeout=ATTEMPT_TIMEOUT_SECONDS, timeout=10 * ATTEMPT_TIMEOUT_SECONDS)
# Below 8192 max_tokens Inspect's anthropic provider does not stream.
NON_STREAMING = GenerateConfig(max_tokens=1024, max_retries=0)
HANG_SECONDS = 20.0 * ATTEMPT_TIMEOUT_SECONDS
"""Far longer than the attempt timeout: a hang is never mistaken for a slow answer (the server ends it on stop)."""
STOP_BOUND_SECONDS = 60.0
"""Bound for what takes milliseconds (a request answered or arriving, `stop()` ending a hang), far below the hang."""


GEMINI_JSON = ("responseMimeType", "application/json")


class Answer(BaseModel):
    distance_m: float


def make_png(path: Path, size: tuple[int, int] = IMAGE_SIZE) -> Path:
    Image.new("RGB", size, "orange").save(path, "PNG")
    return path


def data_uri(path: Path, media_type: str = "image/png") -> str:
    return f"data:{media_type};base64,{base64.b64encode(path.read_bytes()).decode()}"


def openai_image_part(uri: str) -> Any:
    return {"type": "image_url", "image_url": {"url": uri}}


def anthropic_image_block(data: str, media_type: str = "image/png") -> Any:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def inspect_generate(
    model_name: str, content: list[Content] | str, config: GenerateConfig = RETRYING, **model_args: Any
) -> ModelOutput:
    async def generate() -> ModelOutput:
        model = get_model(model_name, config=config, memoize=False, **model_args)
        return await model.generate([ChatMessageSystem(content=SYSTEM), ChatMessageUser(content=content)])

    return asyncio.run(generate())


async def image_prompt(png: Path) -> list[Content]:
    """Text then image, the image given as a path and materialised as Inspect does for dataset samples."""
    return [ContentText(text=QUESTION), ContentImage(image=await materialize_media(str(png)))]


def only_counts(server: FakeModelServer) -> PromptCounts:
    (counts,) = server.counts.values()
    return counts


# --- raw SDKs ---


def test_openai_sdk_chat_completion(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    fake_model_server.policy = fixed_text("B")
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY)
    response_format: Any = {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": {"type": "object"}},
    }
    user_content = [
        {"type": "text", "text": QUESTION},
        openai_image_part(data_uri(make_png(tmp_path / "a.png"))),
    ]
    messages: Any = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_content}]
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=messages,
        temperature=0.2,
        max_tokens=50,
        response_format=response_format,
        stream=False,
    )
    assert completion.choices[0].message.content == "B"
    assert completion.usage is not None and completion.usage.total_tokens > completion.usage.completion_tokens
    (request,) = fake_model_server.requests
    assert (request.api, request.model, request.system) == ("openai", "gpt-4o-mini", SYSTEM)
    assert (request.texts, request.part_order) == ([QUESTION], ["text", "image"])
    assert [(image.width, image.height, image.format) for image in request.images] == [(*IMAGE_SIZE, "PNG")]
    assert (request.config.temperature, request.config.max_tokens) == (0.2, 50)
    assert request.config.response_format == response_format
    assert fake_model_server.counts == {request.key: PromptCounts(received=1, answered=1)}


def test_openai_sdk_streaming(fake_model_server: FakeModelServer) -> None:
    text = "a reply long enough to arrive in several stream chunks"
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY)
    chunks = list(
        client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": text}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    deltas = [chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices]
    assert len(deltas) > 2 and "".join(deltas) == text
    assert chunks[-1].usage is not None
    assert fake_model_server.requests[0].config.stream


def test_openai_sdk_responses(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """`responses.create` with a developer message, an image and a JSON schema; a thought is a reasoning item and
    text parts are separate `output_text` parts whose concatenation is the SDK's `output_text`."""
    fake_model_server.responses_api = True
    fake_model_server.policy = lambda request: Reply("<answer>B" + PART_SPLIT + "</answer>", thought="look left")
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY)
    text_format: Any = {"type": "json_schema", "name": "answer", "schema": {"type": "object"}, "strict": True}
    user_content: Any = [
        {"type": "input_text", "text": QUESTION},
        {"type": "input_image", "image_url": data_uri(make_png(tmp_path / "a.png")), "detail": "auto"},
    ]
    response = client.responses.create(
        model="gpt-4o-mini",
        input=[
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": SYSTEM}]},
            {"type": "message", "role": "user", "content": user_content},
        ],
        max_output_tokens=50,
        temperature=0.2,
        text={"format": text_format},
        store=False,
        include=["reasoning.encrypted_content"],
    )
    assert response.output_text == "<answer>B</answer>" and response.status == "completed"
    reasoning, message = response.output
    assert reasoning.type == "reasoning" and [s.text for s in reasoning.summary] == ["look left"]
    assert reasoning.encrypted_content, "asked for with store=False, as Inspect does"
    assert message.type == "message" and [part.type for part in message.content] == ["output_text"] * 2
    assert response.usage is not None and response.usage.output_tokens_details.reasoning_tokens > 0
    (request,) = fake_model_server.requests
    assert (request.api, request.model, request.system) == ("openai-responses", "gpt-4o-mini", SYSTEM)
    assert (request.texts, request.part_order) == ([QUESTION], ["text", "image"])
    assert [(image.width, image.height, image.format) for image in request.images] == [(*IMAGE_SIZE, "PNG")]
    assert (request.config.temperature, request.config.max_tokens) == (0.2, 50)
    assert request.config.response_format == text_format


def test_openai_sdk_responses_streaming_and_limits(fake_model_server: FakeModelServer) -> None:
    """Streamed: `response.created`, text deltas, then `response.completed` with the whole response; a reply over
    `max_output_tokens` comes back `incomplete` with the reason Inspect maps to `max_tokens`."""
    fake_model_server.responses_api = True
    text = "a reply long enough to arrive in several stream chunks"
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY)
    events = list(client.responses.create(model="gpt-4o-mini", input=text, stream=True))
    assert [e.type for e in events[:2]] == ["response.created", "response.output_text.delta"]
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == text
    assert events[-1].type == "response.completed" and events[-1].response.output_text == text
    cut = client.responses.create(model="gpt-4o-mini", input=text, max_output_tokens=3)
    assert cut.status == "incomplete" and cut.incomplete_details is not None
    assert cut.incomplete_details.reason == "max_output_tokens" and len(cut.output_text) < len(text)


def test_responses_api_answers_only_when_enabled(fake_model_server: FakeModelServer) -> None:
    """Off (the default), `/v1/responses` is a 404 that says how to enable it or avoid it."""
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY, max_retries=0)
    with pytest.raises(openai.NotFoundError, match=r"FakeModelServer\(responses_api=True\)"):
        client.responses.create(model="gpt-4o-mini", input=QUESTION)
    fake_model_server.responses_api = True
    assert client.responses.create(model="gpt-4o-mini", input=QUESTION).output_text == QUESTION


def test_anthropic_sdk_message(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    fake_model_server.policy = fixed_text("C")
    client = anthropic.Anthropic(base_url=fake_model_server.anthropic_base_url, api_key=TEST_API_KEY)
    image_data = base64.b64encode(make_png(tmp_path / "a.png").read_bytes()).decode()
    output_format = {"type": "json_schema", "schema": {"type": "object"}}
    messages: Any = [
        {"role": "user", "content": [anthropic_image_block(image_data), {"type": "text", "text": QUESTION}]}
    ]
    message = client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        system=[{"type": "text", "text": SYSTEM}],
        messages=messages,
        extra_body={"output_format": output_format},
    )
    assert message.content[0].type == "text" and message.content[0].text == "C"
    assert message.usage.input_tokens > 0
    (request,) = fake_model_server.requests
    assert (request.api, request.system, request.texts) == ("anthropic", SYSTEM, [QUESTION])
    assert (request.images[0].width, request.images[0].height) == IMAGE_SIZE
    assert request.part_order == ["image", "text"]
    assert request.config.max_tokens == 100 and request.config.response_format == output_format


def test_anthropic_sdk_stream_and_count_tokens(fake_model_server: FakeModelServer) -> None:
    text = "a streamed reply that spans several text deltas"
    client = anthropic.Anthropic(base_url=fake_model_server.anthropic_base_url, api_key=TEST_API_KEY)
    messages: list[anthropic.types.MessageParam] = [{"role": "user", "content": text}]
    with client.messages.stream(model="claude-sonnet-4-6", max_tokens=100, messages=messages) as stream:
        message = stream.get_final_message()
    assert message.content[0].type == "text" and message.content[0].text == text
    assert message.stop_reason == "end_turn" and message.usage.output_tokens > 0
    tokens = client.messages.count_tokens(model="claude-sonnet-4-6", messages=messages)
    assert tokens.input_tokens > 0
    assert len(fake_model_server.requests) == 1, "count_tokens is not a generation request"


@pytest.mark.parametrize(
    ("api", "media_type", "payload", "message"),
    [
        ("openai", "image/png", b"not an image", "Could not process image"),
        ("anthropic", "image/png", b"not an image", "Could not process image"),
        ("anthropic", "image/jpeg", None, "does not match the provided media type"),
    ],
)
def test_bad_image_is_rejected_with_400(
    fake_model_server: FakeModelServer,
    tmp_path: Path,
    api: str,
    media_type: str,
    payload: bytes | None,
    message: str,
) -> None:
    data = base64.b64encode(payload or make_png(tmp_path / "a.png").read_bytes()).decode()
    with pytest.raises((openai.BadRequestError, anthropic.BadRequestError), match=message):
        if api == "openai":
            part = openai_image_part(f"data:{media_type};base64,{data}")
            openai_client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY)
            messages: Any = [{"role": "user", "content": [part]}]
            openai_client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        else:
            block = anthropic_image_block(data, media_type)
            client = anthropic.Anthropic(base_url=fake_model_server.anthropic_base_url, api_key=TEST_API_KEY)
            client.messages.create(
                model="claude-sonnet-4-6", max_tokens=10, messages=[{"role": "user", "content": [block]}]
            )
    assert [rejection.status for rejection in fake_model_server.rejections] == [400]
    assert fake_model_server.requests == [] and fake_model_server.counts == {}


def test_rate_limit_sends_retry_after(fake_model_server: FakeModelServer) -> None:
    fake_model_server.fault_plan = FaultPlan(script=[Fault.RATE_LIMIT], retry_after_seconds=1)
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY, max_retries=0)
    messages: list[openai.types.chat.ChatCompletionMessageParam] = [{"role": "user", "content": QUESTION}]
    with pytest.raises(openai.RateLimitError) as raised:
        client.chat.completions.create(model="gpt-4o-mini", messages=messages)
    assert raised.value.response.headers["retry-after"] == "1"
    assert raised.value.code == "rate_limit_exceeded"
    assert client.chat.completions.create(model="gpt-4o-mini", messages=messages).choices[0].message.content
    assert only_counts(fake_model_server) == PromptCounts(received=2, answered=1, faulted=1)


def test_refused_keys_get_the_apis_401() -> None:
    """With `api_keys` set, other keys are refused as the APIs do; OpenAI echoes the key masked, Anthropic not."""
    key = "sk-refused-0123456789abcdef"
    messages: list[openai.types.chat.ChatCompletionMessageParam] = [{"role": "user", "content": QUESTION}]
    with FakeModelServer(api_keys={TEST_API_KEY}) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key=key, max_retries=0)
        with pytest.raises(openai.AuthenticationError, match=r"Incorrect API key provided: sk-\*+cdef\.") as raised:
            client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        assert key not in str(raised.value)
        refused = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key=key, max_retries=0)
        with pytest.raises(anthropic.AuthenticationError, match="invalid x-api-key"):
            refused.messages.create(
                model="claude-sonnet-4-6", max_tokens=10, messages=[{"role": "user", "content": "x"}]
            )
        accepted = openai.OpenAI(base_url=server.openai_base_url, api_key=TEST_API_KEY, max_retries=0)
        assert accepted.chat.completions.create(model="gpt-4o-mini", messages=messages).choices[0].message.content
        assert [rejection.status for rejection in server.rejections] == [401, 401]


@pytest.mark.parametrize(
    ("method", "path", "headers", "status", "message"),
    [
        ("POST", "/v1/chat/completions", {}, 401, "No API key"),
        ("POST", "/v1/responses", {"Authorization": "Bearer x"}, 404, "Responses API"),
        ("GET", "/v1/engines", {"Authorization": "Bearer x"}, 404, "Unknown request URL"),
        ("GET", "/v1/models", {"Authorization": "Bearer x"}, 404, "Unknown request URL"),  # no `models=`: no list
    ],
)
def test_http_errors_have_api_error_bodies(
    fake_model_server: FakeModelServer,
    method: str,
    path: str,
    headers: dict[str, str],
    status: int,
    message: str,
) -> None:
    body = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x"}]}).encode()
    request = urllib.request.Request(
        fake_model_server.url + path, data=body if method == "POST" else None, headers=headers, method=method
    )
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=STOP_BOUND_SECONDS)
    assert raised.value.code == status
    assert message in json.loads(raised.value.read())["error"]["message"]


def test_model_list_and_unknown_models() -> None:
    """With `models=`, both APIs list them (the key checked first), and a generation for another model is a 404."""
    import anthropic

    with FakeModelServer(models=["gpt-4o-mini", "claude-x"], api_keys={TEST_API_KEY}) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key=TEST_API_KEY, max_retries=0)
        assert [model.id for model in client.models.list()] == ["gpt-4o-mini", "claude-x"]
        with pytest.raises(openai.NotFoundError, match="`gpt-4o-mino` does not exist"):
            client.chat.completions.create(model="gpt-4o-mino", messages=[{"role": "user", "content": "x"}])
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=server.openai_base_url, api_key="sk-no", max_retries=0).models.list()
        claude = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key=TEST_API_KEY, max_retries=0)
        assert claude.models.retrieve("claude-x").id == "claude-x"
        assert [model.id for model in claude.models.list()] == ["gpt-4o-mini", "claude-x"]
        with pytest.raises(anthropic.NotFoundError):
            claude.models.retrieve("claude-y")


def gemini_client(server: FakeModelServer, api_key: str = TEST_API_KEY) -> genai.Client:
    """A client for the server; keep it in a variable: a dropped `Client` closes its connections at once."""
    return genai.Client(api_key=api_key, http_options=genai_types.HttpOptions(base_url=server.gemini_base_url))


def test_gemini_sdk_generate_content(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """Image as inline data, system instruction, settings and a JSON schema; a thought comes back as its own part."""
    fake_model_server.policy = lambda request: Reply(text="B", thought="The truck is far.")
    png = make_png(tmp_path / "a.png").read_bytes()
    config = genai_types.GenerateContentConfig(
        system_instruction=SYSTEM,
        temperature=0.2,
        max_output_tokens=50,
        response_mime_type="application/json",
        response_json_schema={"type": "object"},
    )
    contents: Any = [QUESTION, genai_types.Part.from_bytes(data=png, mime_type="image/png")]
    client = gemini_client(fake_model_server)
    response = client.models.generate_content(model="gemini-2.0-flash", contents=contents, config=config)
    assert response.candidates is not None and response.candidates[0].content is not None
    parts = response.candidates[0].content.parts or []
    assert [(part.thought, part.text) for part in parts] == [(True, "The truck is far."), (None, "B")]
    assert response.candidates[0].finish_reason == genai_types.FinishReason.STOP
    usage = response.usage_metadata
    assert usage is not None and usage.thoughts_token_count and usage.prompt_token_count
    (request,) = fake_model_server.requests
    assert (request.api, request.model, request.system) == ("gemini", "gemini-2.0-flash", SYSTEM)
    assert (request.texts, request.part_order) == ([QUESTION], ["text", "image"])
    assert [(image.width, image.height, image.format) for image in request.images] == [(*IMAGE_SIZE, "PNG")]
    assert (request.config.temperature, request.config.max_tokens, request.config.stream) == (0.2, 50, False)
    assert request.config.response_format == {
        "responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object"},
    }


def test_gemini_sdk_streaming(fake_model_server: FakeModelServer) -> None:
    """The thought streams first, in `thought: true` parts, then the text; the last chunk has the usage."""
    text, thought = "a reply long enough to arrive in several stream chunks", "first some thinking to stream"
    fake_model_server.policy = lambda request: Reply(text=text, thought=thought)
    client = gemini_client(fake_model_server)
    chunks = list(client.models.generate_content_stream(model="gemini-2.0-flash", contents="go"))
    candidates = [candidate for chunk in chunks for candidate in chunk.candidates or []]
    parts = [part for candidate in candidates if candidate.content for part in candidate.content.parts or []]
    assert "".join(part.text or "" for part in parts if part.thought) == thought
    assert "".join(part.text or "" for part in parts if not part.thought) == text
    thinking = [bool(part.thought) for part in parts]
    assert thinking == sorted(thinking, reverse=True), "thought parts first"
    assert len(chunks) > 4 and candidates[-1].finish_reason == genai_types.FinishReason.STOP
    assert chunks[-1].usage_metadata is not None and chunks[0].usage_metadata is None
    assert fake_model_server.requests[0].config.stream


def test_gemini_keys_and_images_get_googles_errors(tmp_path: Path) -> None:
    """No key: 403; a key it does not know: 400 "API key not valid" (Google does not answer 401); a bad image: 400."""
    with FakeModelServer(api_keys={TEST_API_KEY}) as server:
        refused_client, client = gemini_client(server, "AIza-refused"), gemini_client(server)
        with pytest.raises(genai_errors.ClientError, match="API key not valid") as refused:
            refused_client.models.generate_content(model="gemini-2.0-flash", contents="x")
        assert (refused.value.code, refused.value.status) == (400, "INVALID_ARGUMENT")
        bad_image: Any = [genai_types.Part.from_bytes(data=b"not an image", mime_type="image/png")]
        with pytest.raises(genai_errors.ClientError, match="Could not process image"):
            client.models.generate_content(model="gemini-2.0-flash", contents=bad_image)
        body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "x"}]}]}).encode()
        url = f"{server.url}/v1/models/gemini-2.0-flash:generateContent"
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(urllib.request.Request(url, data=body, method="POST"), timeout=STOP_BOUND_SECONDS)
        assert missing.value.code == 403 and json.loads(missing.value.read())["error"]["status"] == "PERMISSION_DENIED"
        assert [rejection.status for rejection in server.rejections] == [400, 400, 403]
        assert server.requests == []


def test_a_thought_is_refused_where_the_api_has_no_channel_for_it(fake_model_server: FakeModelServer) -> None:
    fake_model_server.policy = lambda request: Reply(text="B", thought="hidden")
    client = openai.OpenAI(base_url=fake_model_server.openai_base_url, api_key=TEST_API_KEY, max_retries=0)
    with pytest.raises(openai.BadRequestError, match="only the Gemini and Responses APIs serve"):
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": QUESTION}])


# --- Inspect's providers ---


@pytest.mark.parametrize(
    ("model_name", "api", "streamed"),
    [
        (OPENAI_MODEL, "openai", False),
        (OPENAI_API_MODEL, "openai", False),
        (ANTHROPIC_MODEL, "anthropic", True),
        (GEMINI_MODEL, "gemini", False),
    ],
)
def test_inspect_provider_roundtrip(
    fake_model_server: FakeModelServer, tmp_path: Path, model_name: str, api: str, streamed: bool
) -> None:
    fake_model_server.policy = fixed_text("B")
    output = inspect_generate(model_name, asyncio.run(image_prompt(make_png(tmp_path / "a.png"))))
    assert output.completion == "B" and output.usage is not None
    (request,) = fake_model_server.requests
    assert (request.api, request.model) == (api, model_name.split("/")[-1])
    assert (request.system, request.texts, request.part_order) == (SYSTEM, [QUESTION], ["text", "image"])
    assert [(image.width, image.height, image.format) for image in request.images] == [(*IMAGE_SIZE, "PNG")]
    assert request.config.stream is streamed
    assert only_counts(fake_model_server) == PromptCounts(received=1, answered=1)


def test_inspect_gpt5_names_need_chat_completions_forced(fake_model_server: FakeModelServer) -> None:
    """o-series, gpt-5 and codex names go to the Responses API, which the fake server answers with a 404 hint."""
    with pytest.raises(openai.NotFoundError, match="responses_api=False"):
        inspect_generate("openai/gpt-5-mini", QUESTION, NON_STREAMING)
    output = inspect_generate("openai/gpt-5-mini", QUESTION, NON_STREAMING, responses_api=False)
    assert output.completion == QUESTION
    (request,) = fake_model_server.requests
    assert request.raw["messages"][0]["role"] == "developer" and request.system == SYSTEM
    assert request.raw["max_completion_tokens"] == request.config.max_tokens == NON_STREAMING.max_tokens


def test_failing_policy_fails_the_call_without_retries(fake_model_server: FakeModelServer) -> None:
    def policy(request: FakeRequest) -> str:
        raise LookupError("no answer scripted")

    fake_model_server.policy = policy
    # Inspect reports a 400 as its ModelGenerateError (a RuntimeError that keeps the status code).
    with pytest.raises(RuntimeError, match="LookupError: no answer scripted") as raised:
        inspect_generate(OPENAI_MODEL, QUESTION)
    assert getattr(raised.value, "status_code", None) == 400
    assert only_counts(fake_model_server) == PromptCounts(received=1)
    assert [rejection.status for rejection in fake_model_server.rejections] == [400]


@pytest.mark.parametrize(
    ("model_name", "kind"),
    [(OPENAI_MODEL, ("type", "json_schema")), (ANTHROPIC_MODEL, ("type", "json_schema")), (GEMINI_MODEL, GEMINI_JSON)],
)
def test_inspect_structured_output_is_recorded(
    fake_model_server: FakeModelServer, model_name: str, kind: tuple[str, str]
) -> None:
    """OpenAI gets `response_format`, Anthropic `output_format`, Gemini `responseMimeType` and `responseJsonSchema`:
    each with the JSON schema; the policy just answers."""
    fake_model_server.policy = fixed_text('{"distance_m": 12.5}')
    schema = ResponseSchema(name="answer", json_schema=json_schema(Answer), strict=True)
    output = inspect_generate(model_name, QUESTION, RETRYING.merge(GenerateConfig(response_schema=schema)))
    assert Answer.model_validate_json(output.completion).distance_m == 12.5
    response_format = fake_model_server.requests[0].config.response_format
    key, value = kind
    assert response_format is not None and response_format[key] == value
    assert "distance_m" in json.dumps(response_format)


@pytest.mark.parametrize("model_name", [OPENAI_MODEL, ANTHROPIC_MODEL])
@pytest.mark.parametrize("fault", [Fault.SERVER_ERROR, Fault.RATE_LIMIT, Fault.CONNECTION_RESET])
@pytest.mark.usefixtures("fast_sdk_retries")
def test_inspect_survives_transient_fault(fake_model_server: FakeModelServer, model_name: str, fault: Fault) -> None:
    """The SDK's own retries (two by default, about 0.5 s apart; at once here) absorb a single transient fault."""
    fake_model_server.fault_plan = FaultPlan(script=[fault])
    assert inspect_generate(model_name, QUESTION).completion == QUESTION
    assert only_counts(fake_model_server) == PromptCounts(received=2, answered=1, faulted=1)
    (injected,) = fake_model_server.injected
    assert (injected.fault, injected.attempt) == (fault, 1)


@pytest.mark.usefixtures("fast_inspect_retries", "fast_sdk_retries")
@pytest.mark.parametrize("fault", [Fault.SERVER_ERROR, Fault.RATE_LIMIT, Fault.CONNECTION_RESET])
def test_inspect_retries_gemini_faults_itself(fake_model_server: FakeModelServer, fault: Fault) -> None:
    """google-genai does not retry an HTTP error (and a dropped connection only once, inline): Inspect does."""
    fake_model_server.fault_plan = FaultPlan(script=[fault])
    assert inspect_generate(GEMINI_MODEL, QUESTION).completion == QUESTION
    assert only_counts(fake_model_server) == PromptCounts(received=2, answered=1, faulted=1)


@pytest.mark.usefixtures("fast_inspect_retries", "fast_sdk_retries")
@pytest.mark.parametrize("model_name", [OPENAI_MODEL, ANTHROPIC_MODEL, GEMINI_MODEL])
def test_inspect_retries_after_sdk_gives_up(fake_model_server: FakeModelServer, model_name: str) -> None:
    fake_model_server.fault_plan = FaultPlan(script=[Fault.SERVER_ERROR] * 3, server_error_statuses=(503,))
    assert inspect_generate(model_name, QUESTION).completion == QUESTION
    assert only_counts(fake_model_server) == PromptCounts(received=4, answered=1, faulted=3)
    assert {injected.status for injected in fake_model_server.injected} == {503}


@dataclass(frozen=True)
class HungRun:
    """What a run that waits out hangs returned, how long it took, and what its server saw."""

    completions: list[str]
    seconds: float
    counts: dict[str, PromptCounts]
    injected: list[InjectedFault]


FAULT_RATES_PLAN = FaultPlan(
    rates={Fault.SERVER_ERROR: 0.2, Fault.RATE_LIMIT: 0.1, Fault.HANG: 0.05},
    seed=3,
    max_consecutive=2,
    hang_seconds=HANG_SECONDS,
)
RATES_PROMPTS = [f"scene {index}: what is ahead?" for index in range(24)]
RATES_RUN = "fault rates"


@pytest.fixture(scope="module")
def hung_runs() -> Iterator[dict[str, HungRun]]:
    """The runs whose requests hang, made at the same time (so the module waits out one attempt timeout, not one per
    test), each against its own server: one hang of one prompt through each of `OPENAI_MODEL` and `ANTHROPIC_MODEL`
    (by model name), and `RATES_PROMPTS` at once through `OPENAI_MODEL` with `FAULT_RATES_PLAN` (`RATES_RUN`).
    Inspect's own backoff is off, as `fast_inspect_retries` turns it off; the SDKs' is kept."""
    plans = {
        OPENAI_MODEL: FaultPlan(script=[Fault.HANG], hang_seconds=HANG_SECONDS),
        ANTHROPIC_MODEL: FaultPlan(script=[Fault.HANG], hang_seconds=HANG_SECONDS),
        RATES_RUN: FAULT_RATES_PLAN,
    }
    with pytest.MonkeyPatch.context() as patch, ExitStack() as stack:
        refuse_other_hosts(patch)
        for name in PROXY_VARS:
            patch.delenv(name, raising=False)
        patch.setattr(ModelAPI, "retry_wait", lambda self: wait_none())
        servers = {name: stack.enter_context(FakeModelServer(fault_plan=plan)) for name, plan in plans.items()}

        async def run(name: str) -> HungRun:
            server, model_name = servers[name], OPENAI_MODEL if name == RATES_RUN else name
            base_url = server.anthropic_base_url if model_name == ANTHROPIC_MODEL else server.openai_base_url
            model = get_model(model_name, config=RETRYING, memoize=False, base_url=base_url, api_key=TEST_API_KEY)
            started = time.monotonic()
            if name == RATES_RUN:
                outputs = await asyncio.gather(*(model.generate(prompt) for prompt in RATES_PROMPTS))
            else:
                outputs = [await model.generate([ChatMessageSystem(content=SYSTEM), ChatMessageUser(content=QUESTION)])]
            seconds = time.monotonic() - started
            return HungRun([output.completion for output in outputs], seconds, server.counts, server.injected)

        async def run_all() -> list[HungRun]:
            return await asyncio.gather(*(run(name) for name in plans))

        yield dict(zip(plans, asyncio.run(run_all()), strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("model_name", [OPENAI_MODEL, ANTHROPIC_MODEL])
def test_inspect_retries_hang_past_attempt_timeout(hung_runs: dict[str, HungRun], model_name: str) -> None:
    run = hung_runs[model_name]
    assert run.completions == [QUESTION]
    assert run.seconds >= ATTEMPT_TIMEOUT_SECONDS, "the answer came only after the attempt timeout"
    (counts,) = run.counts.values()
    assert counts == PromptCounts(received=2, answered=1, faulted=1)


@pytest.mark.parametrize(
    ("model_name", "config", "fault", "error"),
    [
        (OPENAI_MODEL, RETRYING, Fault.TRUNCATED_JSON, json.JSONDecodeError),
        (OPENAI_MODEL, RETRYING, Fault.INVALID_JSON, json.JSONDecodeError),
        (ANTHROPIC_MODEL, NON_STREAMING, Fault.TRUNCATED_JSON, json.JSONDecodeError),
        (ANTHROPIC_MODEL, RETRYING, Fault.INVALID_JSON, json.JSONDecodeError),
    ],
)
def test_malformed_success_raises_without_retry(
    fake_model_server: FakeModelServer, model_name: str, config: GenerateConfig, fault: Fault, error: type
) -> None:
    """A 200 whose body is not a usable response is not an API error: Inspect does not retry it."""
    fake_model_server.fault_plan = FaultPlan(script=[fault])
    with pytest.raises(error):
        inspect_generate(model_name, QUESTION, config)
    assert only_counts(fake_model_server) == PromptCounts(received=1, faulted=1)


@pytest.mark.parametrize(
    ("model_name", "fault", "stop_reasons"),
    [
        (OPENAI_MODEL, Fault.EMPTY_CHOICES, []),
        (ANTHROPIC_MODEL, Fault.TRUNCATED_JSON, ["unknown"]),
        (ANTHROPIC_MODEL, Fault.EMPTY_CHOICES, ["stop"]),
    ],
)
def test_malformed_success_gives_empty_output(
    fake_model_server: FakeModelServer, model_name: str, fault: Fault, stop_reasons: list[str]
) -> None:
    """No error and no retry, only an empty answer: a stream cut off after `message_start`, or no output.

    With zero choices, `ModelOutput.completion` is "" but `.stop_reason` and `.message` raise IndexError.
    """
    fake_model_server.fault_plan = FaultPlan(script=[fault])
    output = inspect_generate(model_name, QUESTION)
    assert (output.completion, output.error) == ("", None)
    assert [choice.stop_reason for choice in output.choices] == stop_reasons
    assert only_counts(fake_model_server) == PromptCounts(received=1, faulted=1)


@pytest.mark.slow
def test_fault_rates_through_inspect_concurrently(hung_runs: dict[str, HungRun]) -> None:
    plan, run = FAULT_RATES_PLAN, hung_runs[RATES_RUN]
    assert run.completions == RATES_PROMPTS
    counts = run.counts
    assert len(counts) == len(RATES_PROMPTS)
    assert all(count.answered == 1 and count.received == count.faulted + 1 for count in counts.values())
    injected = run.injected
    assert sum(count.faulted for count in counts.values()) == len(injected)
    assert {fault.fault for fault in injected} == set(plan.rates), "seed 3 draws every kind of fault here"
    assert all(plan.decide(fault.key, fault.attempt, fault.attempt - 1) == fault for fault in injected)


# --- fault plans and server lifecycle ---


def test_fault_plan_is_deterministic_and_follows_rates() -> None:
    rates = {Fault.SERVER_ERROR: 0.2, Fault.RATE_LIMIT: 0.1, Fault.HANG: 0.05}
    plan = FaultPlan(rates=rates, seed=1)
    draws = [plan.decide(f"prompt-{index}", 1, 0) for index in range(4000)]
    assert draws == [plan.decide(f"prompt-{index}", 1, 0) for index in range(4000)]
    assert draws != [FaultPlan(rates=rates, seed=2).decide(f"prompt-{index}", 1, 0) for index in range(4000)]
    for fault, rate in rates.items():
        assert abs(sum(d is not None and d.fault is fault for d in draws) / len(draws) - rate) < 0.03
    statuses = {d.status for d in draws if d is not None and d.fault is Fault.SERVER_ERROR}
    assert statuses == {500, 502, 503}


def test_fault_plan_script_and_consecutive_limit() -> None:
    plan = FaultPlan(rates={Fault.SERVER_ERROR: 1.0}, script=[None, Fault.HANG], max_consecutive=2)
    assert plan.decide("k", 1, 0) is None
    faults = [plan.decide("k", attempt, consecutive_faults=0) for attempt in (2, 3)]
    assert [fault and fault.fault for fault in faults] == [Fault.HANG, Fault.SERVER_ERROR]
    assert plan.decide("k", 4, consecutive_faults=2) is None


@pytest.mark.parametrize(
    "options",
    [
        {"rates": {Fault.HANG: 0.7, Fault.RATE_LIMIT: 0.4}},
        {"rates": {Fault.HANG: -0.1}},
        {"server_error_statuses": (429,)},
    ],
)
def test_fault_plan_rejects_impossible_settings(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        FaultPlan(**options)


def test_fixture_refuses_other_hosts(fake_model_server: FakeModelServer) -> None:
    with pytest.raises(OSError, match="only reach the fake model server"):
        socket.getaddrinfo("api.openai.com", 443)


def test_a_model_named_again_gets_a_client_of_the_running_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """`get_model` memoizes by name, and the provider reads the base URL from the environment only when it builds a
    client: once a server stops, the same name must give a client of the next server, not of the stopped one."""
    built_for = []
    for _ in range(2):
        with FakeModelServer() as server:
            for name, value in server.client_env().items():
                monkeypatch.setenv(name, value)
            built_for.append((get_model(OPENAI_API_MODEL).api.base_url, server.openai_base_url))
    assert [client for client, _ in built_for] == [served for _, served in built_for]


def test_stop_ends_a_hanging_request_promptly() -> None:
    """`stop()` ends a hang at once: the caller fails long before the hang or the client's own timeout would end
    the call (the bounds are far apart, so load on the machine cannot blur them)."""
    server = FakeModelServer(policy=echo, fault_plan=FaultPlan(script=[Fault.HANG], hang_seconds=HANG_SECONDS)).start()
    errors: list[Exception] = []

    def call() -> None:
        client = openai.OpenAI(
            base_url=server.openai_base_url, api_key=TEST_API_KEY, max_retries=0, timeout=HANG_SECONDS
        )
        try:
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": QUESTION}])
        except openai.APIConnectionError as ex:
            errors.append(ex)

    caller = threading.Thread(target=call)
    caller.start()
    wait_for(lambda: bool(server.requests), STOP_BOUND_SECONDS, "the request to reach the server")
    started = time.monotonic()
    server.stop()
    caller.join(STOP_BOUND_SECONDS)
    assert not caller.is_alive() and len(errors) == 1
    assert time.monotonic() - started < STOP_BOUND_SECONDS < HANG_SECONDS


def test_batches_after_complete_first_stay_in_flight(fake_model_server: FakeModelServer) -> None:
    """Every job is answered (and counted) at creation; only the first `complete_first` ever end, and a job counts
    as returned once its results were downloaded."""
    fake_model_server.policy = fixed_text("B")
    store = fake_model_server.batch_store
    store.complete_first = 1
    client = anthropic.Anthropic(base_url=fake_model_server.anthropic_base_url, api_key=TEST_API_KEY)

    def job(question: str) -> str:
        messages: list[anthropic.types.MessageParam] = [{"role": "user", "content": question}]
        params: MessageCreateParamsNonStreaming = {"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": messages}
        return client.messages.batches.create(requests=[{"custom_id": "only", "params": params}]).id

    first, second = job(QUESTION), job("And the car?")
    assert sum(counts.received for counts in fake_model_server.counts.values()) == 2, "both jobs paid at creation"
    assert client.messages.batches.retrieve(first).processing_status == "ended"
    assert client.messages.batches.retrieve(second).processing_status == "in_progress"
    assert store.returned == []
    (result,) = list(client.messages.batches.results(first))
    assert result.result.type == "succeeded"
    assert [batch.id for batch in store.returned] == [first]
    assert [len(batch.keys) for batch in store.batches] == [1, 1] and store.batches[0].keys != store.batches[1].keys
