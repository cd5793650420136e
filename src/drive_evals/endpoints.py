"""Reach every model a run will call once, before the first sample, so that a wrong URL, model name or key fails in
seconds with one line instead of retrying for minutes or ending in a traceback.

Each task calls `check_task_endpoints` while it is built: Inspect 0.3.285 has made the model under test active and bound
the `--model-role` models by then (`eval_resolve_tasks`), and a `DriveEvalsError` raised there is printed on stderr
in every display mode, with exit 1 and no log (drive_evals.errors). The check costs nothing: it only reads the
provider's model list, which no API bills:

- OpenAI and OpenAI-compatible servers (`openai/`, `openai-api/<service>/`, vLLM, SGLang, Ollama): `GET /models`;
  the model must be listed (a server without the list, a 404, is only reached: the name is not checked).
- Anthropic: `GET /v1/models/{model}`, which resolves aliases too; on a 404, `GET /v1/models` for a did-you-mean
  (a server that answers neither, a proxy, is only reached).

Other providers (Google, Bedrock, Azure, local and test providers) are not reached: their model is built, as
Inspect builds it, and that is all. `DRIVE_EVALS_CHECK_ENDPOINTS=0` turns the check off (a gateway that serves
models it does not list, an air-gapped proxy that only forwards generation requests).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import Model

from drive_evals.errors import DriveEvalsError
from drive_evals.run_status import exit_nonzero_on_failure
from drive_evals.waiting import watch

SWITCH_ENV = "DRIVE_EVALS_CHECK_ENDPOINTS"
"""Set to 0 (or false, no, off) to skip the check."""
OFF_VALUES = frozenset({"0", "false", "no", "off"})
TIMEOUT_ENV = "DRIVE_EVALS_CHECK_TIMEOUT"
DEFAULT_TIMEOUT_SECONDS = 10.0
"""Per request, connection included; no retries. A server that takes longer to list its models is not ready."""
SHOWN_MODELS = 8
"""Models of the server's list named in a message (a hosted API lists dozens)."""
MODEL_UNDER_TEST = "model under test"
GRADER_ROLE = "grader"
NOTHING_RAN = f"No sample was run ({SWITCH_ENV}=0 skips this check)"
NO_MODEL = "none/none"
"""The model Inspect 0.3.285 makes active without `--model` (and without `INSPECT_EVAL_MODEL`): every call fails."""
NO_MODEL_MESSAGE = (
    "no model to evaluate: pass --model PROVIDER/MODEL (the offline demo: --model chance/random) or set "
    "INSPECT_EVAL_MODEL. No sample was run"
)


class EndpointError(DriveEvalsError, RuntimeError):
    """A model the run would call cannot be used: unreachable, unknown model, refused key, unknown provider."""


@dataclass(frozen=True)
class Endpoint:
    """One model a run calls: who calls it, its name as given, where, and how to list what the server serves."""

    role: str
    model: str
    url: str
    probe: Callable[[], str | None]
    """None when the model is served; else the reason, one line."""

    def problem(self) -> str | None:
        reason = self.probe()
        return None if reason is None else f"{self.role} {self.model} at {self.url}: {reason}"


def check_endpoints(roles: dict[str, list[Model]]) -> None:
    """Reach each distinct endpoint of `roles` (role -> models) once; raise `EndpointError` listing every problem."""
    if os.environ.get(SWITCH_ENV, "").strip().lower() in OFF_VALUES:
        return
    seen: set[tuple[str, str, str]] = set()
    problems = []
    for role, models in roles.items():
        for model in models:
            endpoint = endpoint_of(role, model)
            if endpoint is None or (key := (endpoint.model, endpoint.url, _api_key(model))) in seen:
                continue
            seen.add(key)
            problem = endpoint.problem()
            if problem is not None:
                problems.append(problem)
    if problems:
        raise EndpointError("\n".join(f"{problem}. {NOTHING_RAN}" for problem in problems))


def role_label(role: str) -> str:
    return role if role == MODEL_UNDER_TEST else f"role '{role}'"


def endpoint_of(role: str, model: Model) -> Endpoint | None:
    """The endpoint of a model whose provider offers a free model list, else None (nothing to reach)."""
    client = getattr(model.api, "client", None)
    name = _served_name(model)
    timeout = _timeout()
    try:
        import openai

        if isinstance(client, openai.AsyncOpenAI) and not isinstance(client, openai.AsyncAzureOpenAI):
            url = str(client.base_url).rstrip("/")
            sync = openai.OpenAI(
                api_key=client.api_key,
                organization=client.organization,
                project=client.project,
                base_url=url,
                max_retries=0,
                timeout=timeout,
            )
            return Endpoint(role_label(role), str(model), url, lambda: _openai_probe(sync, name))
    except ImportError:  # the provider's SDK is an optional dependency of Inspect
        pass
    try:
        import anthropic

        if isinstance(client, anthropic.AsyncAnthropic):
            url = str(client.base_url).rstrip("/")
            sync_anthropic = anthropic.Anthropic(
                api_key=client.api_key, auth_token=client.auth_token, base_url=url, max_retries=0, timeout=timeout
            )
            return Endpoint(role_label(role), str(model), url, lambda: _anthropic_probe(sync_anthropic, name))
    except ImportError:
        pass
    return None


def _served_name(model: Model) -> str:
    """The name the provider sends (`openai-api/vllm/Qwen/X` sends `Qwen/X`)."""
    served = getattr(model.api, "service_model_name", None)
    return str(served()) if callable(served) else model.api.model_name


def _api_key(model: Model) -> str:
    return str(getattr(getattr(model.api, "client", None), "api_key", None) or model.api.api_key or "")


def _timeout() -> float:
    try:
        return float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT_SECONDS))
    except ValueError:
        return DEFAULT_TIMEOUT_SECONDS


def _openai_probe(client: Any, name: str) -> str | None:
    import openai

    try:
        listed = [model.id for model in client.models.list()]
    except openai.NotFoundError:
        return None  # a server without the list: reached, and that is all it offers
    except openai.APIError as error:
        return _reason(error)
    return None if name in listed else _unknown_model(name, listed)


def _anthropic_probe(client: Any, name: str) -> str | None:
    import anthropic

    try:
        client.models.retrieve(name)
        return None
    except anthropic.NotFoundError:
        pass
    except anthropic.APIError as error:
        return _reason(error)
    try:
        listed = [model.id for model in client.models.list(limit=1000)]
    except anthropic.APIError:
        return None  # no model endpoints at all (a proxy): reached, and that is all it offers
    return None if name in listed else _unknown_model(name, listed)


def _unknown_model(name: str, listed: list[str]) -> str:
    close = difflib.get_close_matches(name, listed, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    more = len(listed) - SHOWN_MODELS
    shown = ", ".join(listed[:SHOWN_MODELS]) + (f" and {more} more" if more > 0 else "")
    return f"unknown model '{name}'{hint}; the server lists: {shown or 'no models'}"


def _reason(error: Exception) -> str:
    """One line for an SDK error: what failed, then the server's or the connection's own words."""
    status = getattr(error, "status_code", None)
    if status in (401, 403):
        return f"the API key was refused (HTTP {status}: {_message(error)})"
    if status is not None:
        return f"HTTP {status}: {_message(error)}"
    cause = _root_cause(error)
    return f"cannot be reached ({type(error).__name__}: {cause})"


def _message(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return _one_line(inner["message"])
    return _one_line(str(getattr(error, "message", error)))


def _root_cause(error: BaseException) -> str:
    """The innermost exception's message (`Connection refused`, not the SDK's `Connection error.`)."""
    seen: list[BaseException] = [error]
    while seen[-1].__cause__ is not None and len(seen) < 10:
        seen.append(seen[-1].__cause__)
    for candidate in reversed(seen):
        text = _one_line(str(candidate))
        if text:
            return text
    return type(error).__name__


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def check_task_endpoints(model_under_test: bool, judges: Sequence[Model] = ()) -> None:
    """The check as a task runs it: the active model (if the task calls it) and the task's judges.

    A run without a model (no `--model`) fails here too, whatever the switch: Inspect would start it, fail every
    sample with a traceback, write an error log and exit 0. A task built outside a run (`drive-evals estimate`,
    `describe`) has no active model and reaches nothing.
    """
    from inspect_ai.model._model import active_model  # private in 0.3.285: the model `inspect eval` made active

    active = active_model() if model_under_test else None
    if active is not None and str(active) == NO_MODEL:
        raise EndpointError(NO_MODEL_MESSAGE)
    if active is None and not judges:
        return
    roles: dict[str, list[Model]] = {}
    if active is not None:
        roles[MODEL_UNDER_TEST] = [active]
    if judges:
        roles[GRADER_ROLE] = list(judges)
    check_endpoints(roles)
    watch(model for models in roles.values() for model in models)  # say what the run waits for while retrying
    exit_nonzero_on_failure()
