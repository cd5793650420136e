"""Model names as Inspect resolves them (`<provider>/<model>`), so that a mistyped `--model` given to a
drive-evals command is answered with the valid providers instead of Inspect's traceback at run time."""

from __future__ import annotations

import difflib
import json
import re
import sys

from drive_evals.chance import CHANCE_PROVIDER, check_chance_model
from drive_evals.errors import ParameterError, translate_uncaught

UNKNOWN_PROVIDER = re.compile(r"Model API \S+ of model '(?P<model>.+)' not recognized\.")
"""Inspect's error for `--model opanai/gpt-4o` (0.3.285, `get_model`), raised before any task is built; its
traceback is some 200 lines. `tests/test_endpoints.py` runs the command line to catch a change of wording."""


def model_providers() -> list[str]:
    """The providers `--model <provider>/<model>` accepts in this environment: Inspect's and installed packages'.

    Read from Inspect's registry (private in 0.3.285, `inspect_ai._util.registry`), which is what `get_model`
    itself searches.
    """
    import inspect_ai.model._providers.providers  # noqa: F401  (registers Inspect's own providers)
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_find, registry_unqualified_name

    ensure_entry_points()
    return sorted({registry_unqualified_name(p) for p in registry_find(lambda info: info.type == "modelapi")})


def check_model_name(model: str, option: str = "--model") -> None:
    """Raise `ParameterError` unless `model` is `<provider>/<model>` with a provider Inspect knows (and, for the
    chance baseline, its one model)."""
    provider, slash, name = model.partition("/")
    providers = model_providers()
    listed = ", ".join(providers)
    if not slash or not provider or not name:
        raise ParameterError(
            f"{option} {model}: a model is named <provider>/<model> (for example openai/gpt-4o); "
            f"the providers are: {listed}"
        )
    if provider not in providers:
        close = difflib.get_close_matches(provider, providers, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ParameterError(f"{option} {model}: unknown provider '{provider}'{hint}; the providers are: {listed}")
    if provider == CHANCE_PROVIDER:
        check_chance_model(name, option)


def unknown_provider_line(error: BaseException) -> str | None:
    """One line for Inspect's unknown-provider error, with a did-you-mean and the valid providers; else None."""
    unknown = UNKNOWN_PROVIDER.fullmatch(str(error)) if isinstance(error, ValueError) else None
    if unknown is None:
        return None
    model = unknown["model"]
    roles = [arg.partition("=")[0] for arg in sys.argv if "=" in arg and arg.endswith(model)]
    option = f"role '{roles[0]}' model" if roles else "--model"
    try:
        check_model_name(model, option)
    except ParameterError as checked:
        return f"{checked}. No sample was run"
    return None


MODEL_ARGUMENTS = ("base_url", "api_key")
"""`get_model` arguments that Inspect 0.3.285 reads from a `--model-role` YAML mapping only under `model_args`; beside
`model` it takes them for generation settings and fails with a 40-line traceback, before any drive_evals code runs
(so `inspect eval` itself cannot be helped: README, 'Fail fast')."""


def misplaced_model_arguments(value: str) -> list[str]:
    """The `MODEL_ARGUMENTS` given beside `model` in a role's YAML mapping (`{model: M, base_url: U}`)."""
    spec = _role_mapping(value)
    return [key for key in MODEL_ARGUMENTS if spec is not None and key in spec]


def role_spec(value: str) -> str:
    """A `--model-role` value with its misplaced model arguments moved under `model_args`, where Inspect reads them
    (as JSON, which Inspect's YAML parser reads); any other value unchanged."""
    spec = _role_mapping(value)
    if spec is None or not misplaced_model_arguments(value):
        return value
    given = spec.pop("model_args", None)
    model_args: dict[str, object] = dict(given) if isinstance(given, dict) else {}
    model_args.update({key: spec.pop(key) for key in MODEL_ARGUMENTS if key in spec})
    return json.dumps({**spec, "model_args": model_args})


def _role_mapping(value: str) -> dict[str, object] | None:
    import yaml

    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return None
    return parsed if isinstance(parsed, dict) else None


translate_uncaught(unknown_provider_line)  # `drive_evals._registry` imports this module: in every Inspect run

if __name__ == "__main__":  # examples/compare/run.sh: GRADER='{model: M, base_url: U}' as Inspect reads it
    print(role_spec(sys.argv[1]))
