"""Every model a run calls is reached once before the first sample: a closed port, an unknown model, a refused key or
an unknown provider is one line naming the role, the model, the URL and the cause, exit 1, no log, in every display
mode, through the real `openai/`, `openai-api/` and `anthropic/` providers and the fake server.

Before (main at 2c3e92f): the closed port retried for minutes, the unknown model and the refused key ended in exit 0
and a traceback of some 200 lines (nothing under `--display none`), `opanai/` in a 213-line traceback, and
`chance/randon` ran."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import PROXY_VARS, refuse_other_hosts
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs
from inspect_ai.model import get_model
from test_errors import DISPLAYS, assert_short_failure, inspect_cli

SERVED = "Qwen/Qwen2.5-VL-7B-Instruct"
MISTYPED = "Qwen/Qwen2.5-VL-7B-Instruc"
OPENAI_MODEL = "gpt-4o-2024-08-06"
ANTHROPIC_MODEL = "claude-sonnet-4-5-20250929"
GOOD_KEY = "sk-endpoint-good"
SWITCH = "DRIVE_EVALS_CHECK_ENDPOINTS"
NOTHING_RAN = "No sample was run"
SURDS = ["drive_evals/surds", "-T", "data=demo", "--limit", "2"]
O1 = ["drive_evals/drivelmm_o1", "-T", "data=demo", "--limit", "2"]


def closed_port() -> int:
    """A local port where nothing listens (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(policy=drive_policy("correct"), models=[SERVED, OPENAI_MODEL], api_keys={GOOD_KEY}) as s:
        yield s


def env_for(server: FakeModelServer, tmp_path: Path, key: str = GOOD_KEY, **extra: str) -> dict[str, str]:
    env = {"VLLM_BASE_URL": server.openai_base_url, "VLLM_API_KEY": key, "OPENAI_BASE_URL": server.openai_base_url}
    env |= {"OPENAI_API_KEY": key, "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}
    return {**env, **{name: "" for name in PROXY_VARS}, **extra}


@pytest.mark.slow
@pytest.mark.parametrize("display", DISPLAYS)
def test_unknown_model_is_one_line_with_a_did_you_mean(display: str, server: FakeModelServer, tmp_path: Path) -> None:
    code, stdout, stderr = inspect_cli(
        ["eval", *SURDS, "--model", f"openai-api/vllm/{MISTYPED}"], tmp_path, display, **env_for(server, tmp_path)
    )
    expected = (
        f"model under test openai-api/vllm/{MISTYPED} at {server.openai_base_url}: unknown model '{MISTYPED}' "
        f"(did you mean '{SERVED}'?)"
    )
    assert_short_failure(code, stdout, stderr, tmp_path, expected, NOTHING_RAN)
    assert server.requests == [], "no generation was sent"


@pytest.mark.slow
def test_unreachable_judge_stops_eval_set_before_any_sample(server: FakeModelServer, tmp_path: Path) -> None:
    judge_url = f"http://127.0.0.1:{closed_port()}/v1"
    env = env_for(server, tmp_path, OTHER_BASE_URL=judge_url, OTHER_API_KEY="sk-other")
    args = [*O1, "--model", f"openai/{OPENAI_MODEL}", "--model-role", "grader=openai-api/other/judge"]
    code, stdout, stderr = inspect_cli(["eval-set", *args], tmp_path, **env)
    expected = f"role 'grader' openai-api/other/judge at {judge_url}: cannot be reached"
    assert_short_failure(code, stdout, stderr, tmp_path, expected, "Connection refused", NOTHING_RAN)
    assert server.requests == []


@pytest.mark.slow
def test_refused_key_is_one_line(server: FakeModelServer, tmp_path: Path) -> None:
    env = env_for(server, tmp_path, key="sk-revoked")
    code, stdout, stderr = inspect_cli(["eval", *SURDS, "--model", f"openai/{OPENAI_MODEL}"], tmp_path, **env)
    expected = f"model under test openai/{OPENAI_MODEL} at {server.openai_base_url}: the API key was refused (HTTP 401"
    assert_short_failure(code, stdout, stderr, tmp_path, expected, NOTHING_RAN)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--model", "opanai/gpt-4o"], "--model opanai/gpt-4o: unknown provider 'opanai' (did you mean 'openai'?)"),
        (
            ["--model", "chance/random", "--model-role", "grader=opanai/gpt-4o"],
            "role 'grader' model opanai/gpt-4o: unknown provider 'opanai' (did you mean 'openai'?)",
        ),
        (["--model", "chance/randon"], "--model chance/randon: unknown model 'randon' (did you mean 'chance/random'?)"),
    ],
)
def test_unknown_provider_or_chance_model_is_one_line(args: list[str], expected: str, tmp_path: Path) -> None:
    code, stdout, stderr = inspect_cli(["eval", *O1, *args], tmp_path)
    assert_short_failure(code, stdout, stderr, tmp_path, expected)


# --- in process: the same check through `eval()`, Anthropic, and the switch ------------------------------------


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    refuse_other_hosts(monkeypatch)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def run_surds(model: str, server: FakeModelServer, tmp_path: Path, key: str = GOOD_KEY, base_url: str = "") -> None:
    url = base_url or (server.anthropic_base_url if model.startswith("anthropic/") else server.openai_base_url)
    client = get_model(model, api_key=key, base_url=url, memoize=False)
    inspect_eval(
        "drive_evals/surds", model=client, task_args={"data": "demo"}, limit=1, log_dir=str(tmp_path / "logs"),
        display="none",
    )  # fmt: skip


def test_anthropic_unknown_model_names_the_listed_one(server: FakeModelServer, tmp_path: Path, offline: None) -> None:
    from drive_evals.endpoints import EndpointError

    server.models = (ANTHROPIC_MODEL,)
    with pytest.raises(EndpointError) as raised:
        run_surds("anthropic/claude-sonnet-4-5-2025092", server, tmp_path)
    assert f"(did you mean '{ANTHROPIC_MODEL}'?)" in str(raised.value)
    assert not list_eval_logs(str(tmp_path / "logs"))


def test_served_model_runs(server: FakeModelServer, tmp_path: Path, offline: None) -> None:
    run_surds(f"openai/{OPENAI_MODEL}", server, tmp_path)
    server.models = (ANTHROPIC_MODEL,)
    run_surds(f"anthropic/{ANTHROPIC_MODEL}", server, tmp_path)
    assert len(server.requests) >= 2, "both runs generated"


def test_server_without_a_model_list_is_reached_and_runs(tmp_path: Path, offline: None) -> None:
    with FakeModelServer(policy=drive_policy("correct")) as listless:
        run_surds(f"openai/{OPENAI_MODEL}", listless, tmp_path)
        run_surds(f"anthropic/{ANTHROPIC_MODEL}", listless, tmp_path)
        assert {request.api for request in listless.requests} == {"openai", "anthropic"}
        assert listless.rejections == []


def test_switch_turns_the_check_off(
    server: FakeModelServer, tmp_path: Path, offline: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from drive_evals.endpoints import EndpointError

    with pytest.raises(EndpointError, match="cannot be reached"):
        run_surds(f"openai/{OPENAI_MODEL}", server, tmp_path, base_url=f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv(SWITCH, "0")
    logs = inspect_eval(
        "drive_evals/surds",
        model=get_model(f"openai/{OPENAI_MODEL}", api_key="sk-revoked", base_url=server.openai_base_url, memoize=False),
        task_args={"data": "demo"},
        limit=1,
        max_retries=0,
        log_dir=str(tmp_path / "off"),
        display="none",
    )
    assert logs[0].status == "error", "with the check off the run starts, and fails at its first call"
    refused = server.rejections
    assert refused and {(r.path, r.status) for r in refused} == {("/v1/chat/completions", 401)}, "no model list read"
