"""Model names as Inspect resolves them (`<provider>/<model>`), so that a mistyped `--model` given to a
drive-evals command is answered with the valid providers instead of Inspect's traceback at run time."""

from __future__ import annotations

import difflib
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


translate_uncaught(unknown_provider_line)  # `drive_evals._registry` imports this module: in every Inspect run
