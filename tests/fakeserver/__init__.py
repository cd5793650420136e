"""Fake OpenAI and Anthropic HTTP servers, so tests exercise Inspect's real providers offline.

Start one with `with FakeModelServer(policy=fixed_text("B"), fault_plan=FaultPlan(...)) as server:` (or the
`fake_model_server` fixture, which also sets `server.client_env()`), point a client at `server.openai_base_url`
or `server.anthropic_base_url`, then assert on `server.requests`, `server.counts` and `server.injected`.
`FakeModelServer(api_keys={...})` refuses other keys with the API's 401. A reply longer than the request's
`max_tokens` (about four characters a token) is cut there and reported as the APIs do (`finish_reason: "length"`,
`stop_reason: "max_tokens"`). `drive.py` holds policies that answer the
drive_evals benchmarks (also served in-process as `policy/<name>`); `offline.py` keeps tests off the network.

What Inspect 0.3.285 sends (read from its providers, confirmed by the self-tests):
- `openai/<model>` uses Chat Completions, except o-series, gpt-5 and codex names and names without `gpt` (taken
  for a new frontier model), which use the Responses API (not implemented here: pass `responses_api=False`).
  It streams only with `on_stream` or `stream_idle_timeout`.
- `openai-api/<service>/<model>` uses Chat Completions without streaming; it reads `<SERVICE>_API_KEY` and
  `<SERVICE>_BASE_URL` (`client_env()` sets them for the service `fake`).
- `anthropic/<model>` streams Messages whenever `max_tokens >= 8192` or thinking is on; its default `max_tokens`
  is 32000 for Claude 4 models, so it streams by default. Structured output goes in `output_format`.
- The SDKs retry 5xx, 429 and dropped connections twice themselves (about 0.5 s apart) before Inspect sees an
  error; Inspect's own retries then wait 3 s and more (see the `fast_inspect_retries` fixture).
"""

from .faults import Fault, FaultPlan, InjectedFault
from .policies import Policy, echo, fixed_text
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
    "InjectedFault",
    "Policy",
    "PromptCounts",
    "Rejection",
    "RequestConfig",
    "echo",
    "fixed_text",
    "prompt_key",
]
