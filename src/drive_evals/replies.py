"""What the model wrote and why it stopped, read from Inspect's `ModelOutput` for both benchmarks.

The official SURDS scorer and the official DriveLMM-o1 judge read the model's raw output. Inspect 0.3.285's
OpenAI-compatible path (`openai/`, `openai-api/`, `vllm/`, `together/`, ...) moves the first `<think>...</think>`
block of a reply into a `ContentReasoning` part marked `internal="think"` and keeps the rest as the visible text
(the whole reply, block included, when nothing else remains). `emitted_text` puts such tag-derived reasoning back,
so a reply is scored on the text the model emitted. Reasoning that a provider returns in its own channel (OpenAI
o-series, Claude extended thinking, Gemini thoughts, a vLLM `--reasoning-parser`) was never part of the text and
is not added: see docs/reasoning-models.md.
"""

from __future__ import annotations

from inspect_ai.model import ContentReasoning, ContentText, ModelOutput

# Private, but the very parser that split the reply (inspect_ai is pinned): used only to recognise a visible text
# that still holds its own think block, so that block is not put back a second time.
from inspect_ai.model._reasoning import parse_content_with_reasoning

THINK_TAG_SOURCE = "think"
"""`ContentReasoning.internal` of reasoning that Inspect parsed out of `<think>` tags in the reply text."""
TOKEN_LIMIT_STOP = "max_tokens"
"""Inspect's stop reason for a completion cut by the output token limit (OpenAI `finish_reason: length`,
Anthropic `stop_reason: max_tokens`, Gemini `MAX_TOKENS`, Responses `incomplete: max_output_tokens`), also
under `--batch`."""


def emitted_text(output: ModelOutput) -> str:
    """The reply as the model emitted it: `<think>` blocks Inspect split off, in order, then the visible text.

    Text parts are joined with a newline, as `ModelOutput.completion` joins them. White space around a block is
    not restored exactly (Inspect strips it), which no official rule depends on.
    """
    if not output.choices:
        return ""
    content = output.message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    # Tag-derived reasoning not yet written out. A visible text that still holds the same block (Inspect keeps
    # the whole reply when nothing remains beside the block) is written instead of it.
    pending: list[str] = []
    for part in content:
        if isinstance(part, ContentReasoning) and part.internal == THINK_TAG_SOURCE:
            pending.append(part.reasoning)
        elif isinstance(part, ContentText):
            rest, capsule = parse_content_with_reasoning(part.text)
            if pending and capsule is not None and not rest and capsule.reasoning == pending[-1]:
                pending.pop()
            parts.extend(f"<think>\n{reasoning}\n</think>" for reasoning in pending)
            pending = []
            parts.append(part.text)
    parts.extend(f"<think>\n{reasoning}\n</think>" for reasoning in pending)
    return "\n".join(parts)


def stopped_at_token_limit(output: ModelOutput) -> bool:
    """Whether the completion was cut by the output token limit (`--max-tokens`)."""
    return bool(output.choices) and output.stop_reason == TOKEN_LIMIT_STOP
