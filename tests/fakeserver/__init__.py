"""Fake OpenAI, Anthropic and Gemini HTTP servers, so tests exercise Inspect's real providers offline.

Start one with `with FakeModelServer(policy=fixed_text("B"), fault_plan=FaultPlan(...)) as server:` (or the
`fake_model_server` fixture, which also sets `server.client_env()`), point a client at `server.openai_base_url`,
`server.anthropic_base_url` or `server.gemini_base_url`, then assert on `server.requests`, `server.counts` and
`server.injected`. `FakeModelServer(api_keys={...})` refuses other keys as the API does (401; Gemini 400). A
policy may return a `Reply` with a thought: Gemini serves it as a `thought: true` part, the Responses API as a
`reasoning` item, the other APIs refuse it (400). A reply longer than the request's `max_tokens` (about four
characters a token) is cut there and reported as the APIs do (`finish_reason: "length"`, `stop_reason:
"max_tokens"`, `finishReason: "MAX_TOKENS"`, `incomplete_details.reason: "max_output_tokens"`). `drive.py` holds
policies that answer the drive_evals benchmarks (also served in-process as `policy/<name>`); `offline.py` keeps
tests off the network.

What Inspect 0.3.285 sends (read from its providers, confirmed by the self-tests):
- `openai/<model>` uses Chat Completions, except o-series, gpt-5 and codex names and names without `gpt` (taken
  for a new frontier model), and any name with `responses_api=True`, which use the Responses API: served only by
  `FakeModelServer(responses_api=True)` (`openai_responses.py`; a thought becomes a reasoning item), else a 404
  that says so. It streams only with `on_stream` or `stream_idle_timeout`.
- `openai-api/<service>/<model>` uses Chat Completions without streaming; it reads `<SERVICE>_API_KEY` and
  `<SERVICE>_BASE_URL` (`client_env()` sets them for the service `fake`).
- `anthropic/<model>` streams Messages whenever `max_tokens >= 8192` or thinking is on; its default `max_tokens`
  is 32000 for Claude 4 models, so it streams by default. Structured output goes in `output_format`.
- `google/<model>` (google-genai 3.x) calls `POST /v1/models/<model>:generateContent`, or
  `:streamGenerateContent?alt=sse` only with `-M streaming=true`; the key goes in `x-goog-api-key`, images as
  `inlineData` (URL-safe base64), the system prompt as `systemInstruction`, a response schema as
  `responseMimeType: application/json` with `responseJsonSchema`. `GOOGLE_BASE_URL` or `--model-base-url` selects
  the server (a role model takes its URL from `GOOGLE_BASE_URL`). google-genai retries no HTTP error itself.
- The OpenAI and Anthropic SDKs retry 5xx, 429 and dropped connections twice themselves (about 0.5 s apart) before
  Inspect sees an error; Inspect's own retries then wait 3 s and more. google-genai waits 1 to 10 s before it
  reconnects after a dropped connection. The `fast_sdk_retries` and `fast_inspect_retries` fixtures remove the waits.
"""

from .faults import Fault, FaultPlan, InjectedFault
from .policies import Gate, Policy, Reply, ThinkingPolicy, echo, fixed_text
from .records import DecodedImage, FakeRequest, RequestConfig, prompt_key
from .server import OPENAI_API_SERVICE, TEST_API_KEY, FakeModelServer, PromptCounts, Rejection

__all__ = [
    "OPENAI_API_SERVICE",
    "TEST_API_KEY",
    "DecodedImage",
    "FakeModelServer",
    "FakeRequest",
    "Fault",
    "FaultPlan",
    "Gate",
    "InjectedFault",
    "Policy",
    "PromptCounts",
    "Rejection",
    "Reply",
    "RequestConfig",
    "ThinkingPolicy",
    "echo",
    "fixed_text",
    "prompt_key",
]
