"""Where a model's calls go: the base URL its provider's client calls, to name it in messages."""

from __future__ import annotations

from inspect_ai.model import Model


def model_url(model: Model) -> str | None:
    """The base URL a model's client calls, for the providers whose client shows it (OpenAI, Anthropic)."""
    url = getattr(getattr(model.api, "client", None), "base_url", None)
    return str(url).rstrip("/") if url is not None else model.api.base_url


def active_model_url() -> str | None:
    """The base URL of the model under test of the running sample, if its client shows one."""
    from inspect_ai.model._model import active_model  # private in 0.3.285 (endpoints.check_task_endpoints)

    active = active_model()
    return model_url(active) if active is not None else None
