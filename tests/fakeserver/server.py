"""An in-process HTTP server that answers like the OpenAI (Chat Completions, Responses), Anthropic and Gemini APIs.

For offline tests: it lets tests drive Inspect's real `openai/`, `openai-api/`, `anthropic/` and `google/` providers
(real SDKs, image encoding, retries, timeouts) against a scripted model, with faults injected on a deterministic
schedule.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import socket
import struct
import threading
import urllib.parse
from collections.abc import Collection
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from inspect_ai.model import _model as inspect_model

from .anthropic_api import AnthropicMessages
from .batches import (
    ANTHROPIC_BATCHES,
    CONTENT_SUFFIX,
    OPENAI_BATCHES,
    OPENAI_FILES,
    RESULTS_SUFFIX,
    BatchStore,
)
from .dialect import Dialect, SseEvent
from .faults import Fault, FaultPlan, InjectedFault
from .gemini_api import BATCH_GET_ROUTE, BATCH_ROUTE, DOWNLOAD_ROUTE, UPLOAD_ROUTE, GeminiGenerate, gemini_route
from .openai_api import OpenAIChat
from .openai_responses import OpenAIResponses
from .policies import Reply, ThinkingPolicy, as_reply, echo
from .records import BadRequest, FakeRequest, cut_to_limit

HOST = "127.0.0.1"
TEST_API_KEY = "test-key"
# Service name for `openai-api/<service>/<model>`: Inspect reads FAKE_API_KEY and FAKE_BASE_URL for it.
OPENAI_API_SERVICE = "fake"
OPENAI = OpenAIChat()
ANTHROPIC = AnthropicMessages()
OPENAI_RESPONSES = OpenAIResponses()
GENERATION_ROUTES: dict[str, Dialect] = {"/v1/chat/completions": OPENAI, "/v1/messages": ANTHROPIC}
RESPONSES_PATH = "/v1/responses"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
MODELS_PATH = "/v1/models"
"""The model list of both APIs (`GET`; Anthropic's also answers `GET /v1/models/{id}`), served when the server is
started with `models=`: without, it is a 404, as on a server that offers no list."""
NOT_FOUND_HINTS = {
    RESPONSES_PATH: "This fake server answers the Responses API only when started with "
    "FakeModelServer(responses_api=True). Inspect's openai provider uses it for o-series, gpt-5 and codex model "
    "names: use a gpt-4o-style name or responses_api=False, or enable it."
}
# Idle keep-alive connections are closed after this long, so no handler thread outlives its use for long.
IDLE_CONNECTION_SECONDS = 10.0
SERVE_POLL_SECONDS = 0.005
"""How often the serving loop looks for a stop request: `stop()` waits up to this long (about 150 fast-tier tests
stop a server; at 0.05 s that was several seconds of the tier spent waiting). Connections wake the loop at once."""
STOP_JOIN_SECONDS = 5.0
LISTEN_BACKLOG = 128
"""Connections the server's socket queues before it accepts them (socketserver's default is 5). A run opens one
connection per sample in flight at once; with the queue full the kernel drops a client's SYN, and the client
sends it again only after a second: runs through this server stalled for a second, at random."""
INVALID_JSON = "{this is not json"
SILENT_HOLD_SECONDS = 3600.0
"""How long a request past `silent_after` is held: until the server stops, in practice."""
GEMINI_KEY_HEADER = "x-goog-api-key"
GEMINI_UPLOAD_SIZE_HEADER = "x-goog-upload-header-content-length"
GEMINI_UPLOAD_QUERY = "upload_id"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PromptCounts:
    """Per prompt key: requests received, answered normally, and answered with an injected fault."""

    received: int = 0
    answered: int = 0
    faulted: int = 0


@dataclass(frozen=True)
class Rejection:
    """A request refused with an HTTP error (bad request, no API key, unknown path, policy error)."""

    path: str
    status: int
    message: str


def forget_model_clients() -> None:
    """Drop every model client Inspect's `get_model` has memoized.

    Inspect memoizes `get_model` by model name and arguments, not by the base URL and key a provider reads from the
    environment: after a server stops, a later test naming the same model against its own server would get a client
    of the stopped one and spend minutes in retries. Clients still in use keep working; new ones are built afresh.
    """
    inspect_model._models.clear()


class FakeModelServer:
    """OpenAI- (Chat Completions, Responses), Anthropic- and Gemini-compatible server on 127.0.0.1, a free port.

    Use as a context manager. `policy`, `fault_plan` and `responses_api` may be replaced while it runs. `counts`,
    `requests`, `injected` and `rejections` are thread-safe snapshots.
    """

    def __init__(
        self,
        policy: ThinkingPolicy = echo,
        fault_plan: FaultPlan | None = None,
        api_keys: Collection[str] | None = None,
        responses_api: bool = False,
        models: Collection[str] | None = None,
    ) -> None:
        self.policy = policy
        self.responses_api = responses_api
        """Answer `POST /v1/responses` (the Responses API); off, it gets a 404 saying how to avoid or enable it,
        so a test that meant Chat Completions cannot pass through the Responses API unnoticed."""
        self.fault_plan = fault_plan or FaultPlan()
        self.api_keys = frozenset(api_keys) if api_keys is not None else None
        """Keys accepted (any non-empty key when None); others get the API's 401, as a revoked key would."""
        self.models = tuple(models) if models is not None else None
        """Models served, listed by `GET /v1/models`; a generation request for another is a 404, as vLLM answers.
        None: any model is served and there is no list."""
        self.silent_after: int | None = None
        """Generation requests answered before the server stops answering: later ones are held, unanswered, until
        it stops (a server that hangs mid-run). None: no limit."""
        self._lock = threading.Lock()
        self._requests: list[FakeRequest] = []
        self._counts: dict[str, PromptCounts] = {}
        self._consecutive_faults: dict[str, int] = {}
        self._injected: list[InjectedFault] = []
        self._rejections: list[Rejection] = []
        self._response_ids = itertools.count(1)
        self._generations = 0
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._serve_thread: threading.Thread | None = None
        self.batch_store = BatchStore()
        """Files and batch jobs of the batch APIs (`batch_store.batches`; `complete_first` keeps later jobs running)."""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> Self:
        """Bind a free port and serve in a background thread."""
        self._httpd = _HTTPServer(self)
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever, args=(SERVE_POLL_SECONDS,), name="fakeserver", daemon=True
        )
        self._serve_thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end hanging handlers and close open connections; wait for handler threads."""
        if self._httpd is None or self._serve_thread is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._serve_thread.join(STOP_JOIN_SECONDS)
        self._httpd.close_connections()
        self._httpd.server_close()
        self._httpd.join_handlers(STOP_JOIN_SECONDS)
        self._httpd = None
        forget_model_clients()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for the `openai` SDK and Inspect's `openai/` and `openai-api/` providers."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """Base URL for the `anthropic` SDK and Inspect's `anthropic/` provider (the SDK adds `/v1`)."""
        return self.url

    @property
    def gemini_base_url(self) -> str:
        """Base URL for the `google-genai` SDK and Inspect's `google/` provider (the SDK adds `/v1/models/...`)."""
        return self.url

    def client_env(self, api_key: str = TEST_API_KEY) -> dict[str, str]:
        """Environment variables that point every supported provider at this server with `api_key`."""
        service = OPENAI_API_SERVICE.upper()
        return {
            "OPENAI_API_KEY": api_key,
            "OPENAI_BASE_URL": self.openai_base_url,
            f"{service}_API_KEY": api_key,
            f"{service}_BASE_URL": self.openai_base_url,
            "ANTHROPIC_API_KEY": api_key,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "GOOGLE_API_KEY": api_key,
            "GOOGLE_BASE_URL": self.gemini_base_url,
        }

    @property
    def requests(self) -> list[FakeRequest]:
        """Every well-formed generation request, in arrival order (faulted ones included)."""
        with self._lock:
            return list(self._requests)

    @property
    def counts(self) -> dict[str, PromptCounts]:
        """Counts per prompt key (`FakeRequest.key`)."""
        with self._lock:
            return dict(self._counts)

    @property
    def injected(self) -> list[InjectedFault]:
        with self._lock:
            return list(self._injected)

    @property
    def rejections(self) -> list[Rejection]:
        with self._lock:
            return list(self._rejections)

    def _admit(self, request: FakeRequest) -> InjectedFault | None:
        """Record a request and decide, under the lock, whether it gets a fault."""
        key = request.key
        with self._lock:
            self._requests.append(request)
            counts = self._counts.get(key, PromptCounts())
            attempt = counts.received + 1
            fault = self.fault_plan.decide(key, attempt, self._consecutive_faults.get(key, 0))
            faulted = counts.faulted + (fault is not None)
            self._counts[key] = replace(counts, received=attempt, faulted=faulted)
            self._consecutive_faults[key] = self._consecutive_faults.get(key, 0) + 1 if fault else 0
            if fault is not None:
                self._injected.append(fault)
            return fault

    def _record_answered(self, key: str) -> None:
        with self._lock:
            counts = self._counts[key]
            self._counts[key] = replace(counts, answered=counts.answered + 1)

    def _record_rejection(self, rejection: Rejection) -> None:
        with self._lock:
            self._rejections.append(rejection)

    def _hold(self, seconds: float) -> None:
        """Sleep for a hang fault, but wake when the server stops so that `stop()` stays quick."""
        self._stopping.wait(seconds)

    def _silenced(self) -> bool:
        """Count a generation request against `silent_after`; True once the limit is passed."""
        with self._lock:
            self._generations += 1
            return self.silent_after is not None and self._generations > self.silent_after

    def _next_response_id(self) -> str:
        return f"fake{next(self._response_ids):06d}"

    def answer(self, dialect: Dialect, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One request of a batch, answered (and counted) as a direct non-streaming call would be."""
        try:
            request = dialect.parse(body)
        except BadRequest as ex:
            return 400, dialect.error_body(400, str(ex))
        fault = self._admit(request)
        if fault is not None:
            status = fault.status or 500
            return status, dialect.error_body(status, f"Injected {fault.fault.value} (HTTP {status})")
        reply = self.reply(dialect, request)
        if isinstance(reply, str):
            return 400, dialect.error_body(400, reply)
        self._record_answered(request.key)
        return 200, dialect.response_body(request, reply.text, self._next_response_id(), thought=reply.thought)

    def reply(self, dialect: Dialect, request: FakeRequest) -> Reply | str:
        """The policy's reply, or the 400 message when the policy fails or answers what `dialect` cannot serve."""
        try:
            reply = as_reply(self.policy(request))
        except Exception as ex:  # a failing test policy must fail the client call, not hang its retries
            return f"fake server policy raised {type(ex).__name__}: {ex}"
        if reply.thought is not None and not isinstance(dialect, GeminiGenerate | OpenAIResponses):
            return (
                "fake server policy returned a thought, which only the Gemini and Responses APIs serve "
                f"(not {dialect.api})"
            )
        return reply


def _anthropic_model(model: str) -> dict[str, Any]:
    return {"type": "model", "id": model, "display_name": model, "created_at": "2025-01-01T00:00:00Z"}


class _HTTPServer(ThreadingHTTPServer):
    """Threading server that can close its open connections and join its handler threads on stop."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, owner: FakeModelServer) -> None:
        super().__init__((HOST, 0), _Handler)
        self.owner = owner
        self._open: dict[threading.Thread, socket.socket] = {}
        self._open_lock = threading.Lock()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open[threading.current_thread()] = request
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._open_lock:
                self._open.pop(threading.current_thread(), None)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (attempt timeout, retry) breaks the pipe mid-response: expected here.
        logger.debug("fake server connection from %s ended with an error", client_address, exc_info=True)

    def close_connections(self) -> None:
        with self._open_lock:
            sockets = list(self._open.values())
        for sock in sockets:
            with contextlib.suppress(OSError):  # already closed by a reset fault or by the client
                sock.shutdown(socket.SHUT_RDWR)

    def join_handlers(self, timeout: float) -> None:
        with self._open_lock:
            threads = list(self._open)
        for thread in threads:
            thread.join(timeout)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_CONNECTION_SECONDS
    # Headers and body go out in separate writes: with Nagle's algorithm on, the client's delayed ACK adds
    # about 40 ms to every response, which made whole-benchmark runs through this server CPU-idle and slow.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("fake server: " + format, *args)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        store = self.server.owner.batch_store
        # Gemini's `GET /v1/batches/{id}` is OpenAI's path too: the client's key header tells them apart.
        gemini = bool(self.headers.get(GEMINI_KEY_HEADER))
        try:
            if gemini and (gemini_batch := BATCH_GET_ROUTE.match(path)):
                self._send_json(200, store.gemini_batch(gemini_batch["id"]))
            elif gemini and (gemini_file := DOWNLOAD_ROUTE.match(path)):
                self._send_bytes(200, store.file_content(gemini_file["id"]))
            elif path.startswith(ANTHROPIC_BATCHES + "/") and path.endswith(RESULTS_SUFFIX):
                batch_id = path.removeprefix(ANTHROPIC_BATCHES + "/").removesuffix(RESULTS_SUFFIX)
                self._send_bytes(200, store.anthropic_results(batch_id))
            elif path.startswith(ANTHROPIC_BATCHES + "/"):
                batch_id = path.removeprefix(ANTHROPIC_BATCHES + "/")
                self._send_json(200, store.anthropic_batch(batch_id, self.server.owner.url))
            elif path.startswith(OPENAI_BATCHES + "/"):
                self._send_json(200, store.openai_batch(path.removeprefix(OPENAI_BATCHES + "/")))
            elif path.startswith(OPENAI_FILES + "/") and path.endswith(CONTENT_SUFFIX):
                file_id = path.removeprefix(OPENAI_FILES + "/").removesuffix(CONTENT_SUFFIX)
                self._send_bytes(200, store.file_content(file_id))
            elif path == MODELS_PATH or path.startswith(MODELS_PATH + "/"):
                self._models(path.removeprefix(MODELS_PATH).removeprefix("/"))
            else:
                self._not_found()
        except KeyError:
            self._not_found()

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path in (OPENAI_FILES, OPENAI_BATCHES, ANTHROPIC_BATCHES):
            self._batch_post(path)
            return
        if UPLOAD_ROUTE.match(path) or BATCH_ROUTE.match(path):
            self._gemini_batch_post(path)
            return
        dialect = ANTHROPIC if path == COUNT_TOKENS_PATH else GENERATION_ROUTES.get(path) or gemini_route(path)
        if path == RESPONSES_PATH and self.server.owner.responses_api:
            dialect = OPENAI_RESPONSES
        if dialect is None:
            self._read_body()
            self._not_found()
            return
        try:
            body = self._read_json()
            key = self._api_key()
            accepted = self.server.owner.api_keys
            if not key:
                self._reject(dialect, dialect.missing_key_status, "No API key provided")
            elif accepted is not None and key not in accepted:
                self._reject(dialect, dialect.invalid_key_status, dialect.invalid_key_message(key))
            elif path == COUNT_TOKENS_PATH:
                self._send_json(200, ANTHROPIC.count_tokens_body(body))
            else:
                request = dialect.parse(body)
                models = self.server.owner.models
                if models is not None and request.model not in models:
                    self._reject(dialect, 404, f"The model `{request.model}` does not exist.")
                else:
                    self._generate(dialect, request)
        except BadRequest as ex:
            self._reject(dialect, 400, str(ex))

    def _models(self, model: str) -> None:
        """`GET /v1/models` (both APIs' list) or Anthropic's `GET /v1/models/{id}`; the key is checked first."""
        owner = self.server.owner
        dialect: Dialect = ANTHROPIC if self.headers.get("anthropic-version") else OPENAI
        key = self._api_key()
        if not key:
            self._reject(dialect, dialect.missing_key_status, "No API key provided")
        elif owner.api_keys is not None and key not in owner.api_keys:
            self._reject(dialect, dialect.invalid_key_status, dialect.invalid_key_message(key))
        elif owner.models is None or (model and dialect is OPENAI):
            # Not a rejection of a request the client meant to succeed: a server without the list answers so.
            self._send_json(404, dialect.error_body(404, f"Unknown request URL: GET {MODELS_PATH}"))
        elif model:
            if model in owner.models:
                self._send_json(200, _anthropic_model(model))
            else:
                self._reject(dialect, 404, f"model: {model}")
        elif dialect is ANTHROPIC:
            listed = [_anthropic_model(name) for name in owner.models]
            first, last = (owner.models[0], owner.models[-1]) if owner.models else (None, None)
            self._send_json(200, {"data": listed, "has_more": False, "first_id": first, "last_id": last})
        else:
            listed = [{"id": name, "object": "model", "created": 0, "owned_by": "fake"} for name in owner.models]
            self._send_json(200, {"object": "list", "data": listed})

    def _batch_post(self, path: str) -> None:
        owner = self.server.owner
        store = owner.batch_store
        dialect: Dialect = ANTHROPIC if path == ANTHROPIC_BATCHES else OPENAI
        try:
            if not self._api_key():
                self._read_body()
                self._reject(dialect, 401, "No API key provided")
            elif path == OPENAI_FILES:
                self._send_json(200, store.upload_file(self.headers.get("content-type") or "", self._read_body()))
            elif path == OPENAI_BATCHES:
                self._send_json(200, store.create_openai_batch(self._read_json(), OPENAI, owner.answer))
            else:
                self._send_json(200, store.create_anthropic_batch(self._read_json(), ANTHROPIC, owner.answer))
        except BadRequest as ex:
            self._reject(dialect, 400, str(ex))

    def _gemini_batch_post(self, path: str) -> None:
        """A resumable upload (start, then the bytes at the session URL) or a batch job of an uploaded file."""
        owner = self.server.owner
        store = owner.batch_store
        gemini = GeminiGenerate()
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        try:
            if GEMINI_UPLOAD_QUERY in query:
                file = store.finish_gemini_upload(query[GEMINI_UPLOAD_QUERY][0], self._read_body())
                self._send_json(200, file, {"X-Goog-Upload-Status": "final"})
            elif not self._api_key():
                self._read_body()
                self._reject(gemini, gemini.missing_key_status, "No API key provided")
            elif UPLOAD_ROUTE.match(path):
                self._read_body()  # the file's metadata
                upload_id = store.start_gemini_upload(int(self.headers.get(GEMINI_UPLOAD_SIZE_HEADER) or 0))
                upload_url = f"{owner.url}{path}?{GEMINI_UPLOAD_QUERY}={upload_id}"
                self._send_json(200, {}, {"X-Goog-Upload-URL": upload_url, "X-Goog-Upload-Status": "active"})
            else:
                match = BATCH_ROUTE.match(path)
                assert match is not None
                model = match["model"]
                self._send_json(
                    200, store.create_gemini_batch(model, self._read_json(), GeminiGenerate(model), owner.answer)
                )
        except BadRequest as ex:
            self._reject(gemini, 400, str(ex))

    def _generate(self, dialect: Dialect, request: FakeRequest) -> None:
        owner = self.server.owner
        if owner._silenced():
            owner._hold(SILENT_HOLD_SECONDS)
            self.close_connection = True
            return
        fault = owner._admit(request)
        if fault is not None:
            self._serve_fault(dialect, request, fault)
            return
        reply = owner.reply(dialect, request)
        if isinstance(reply, str):
            self._reject(dialect, 400, reply)
            return
        owner._record_answered(request.key)
        # As the real APIs do, a reply longer than `max_tokens` is cut there and reported as stopped at the limit.
        text, cut = cut_to_limit(reply.text, request.config.max_tokens)
        self._respond(dialect, request, text, cut, reply.thought)

    def _respond(
        self, dialect: Dialect, request: FakeRequest, text: str | None, cut: bool = False, thought: str | None = None
    ) -> None:
        response_id = self.server.owner._next_response_id()
        if request.config.stream:
            events = dialect.stream_events(request, text, response_id, cut, thought)
            self._send_stream([e.encode() for e in events])
        else:
            self._send_json(200, dialect.response_body(request, text, response_id, cut, thought))

    def _serve_fault(self, dialect: Dialect, request: FakeRequest, fault: InjectedFault) -> None:
        plan = self.server.owner.fault_plan
        if fault.fault is Fault.SERVER_ERROR or fault.fault is Fault.RATE_LIMIT:
            assert fault.status is not None
            rate_limited = fault.fault is Fault.RATE_LIMIT
            headers = {"Retry-After": f"{plan.retry_after_seconds:g}"} if rate_limited else {}
            body = dialect.error_body(fault.status, f"Injected {fault.fault.value} (HTTP {fault.status})")
            self._send_json(fault.status, body, headers)
        elif fault.fault is Fault.CONNECTION_RESET:
            self._reset_connection()
        elif fault.fault is Fault.HANG:
            self.server.owner._hold(plan.hang_seconds)
            self.close_connection = True
        elif fault.fault is Fault.EMPTY_CHOICES:
            self._respond(dialect, request, None)
        else:
            self._serve_bad_json(dialect, request, truncated=fault.fault is Fault.TRUNCATED_JSON)

    def _serve_bad_json(self, dialect: Dialect, request: FakeRequest, truncated: bool) -> None:
        """A 200 whose JSON is cut in half or not JSON; a stream breaks in its second event."""
        response_id = self.server.owner._next_response_id()
        if request.config.stream:
            # The second event breaks; an empty Gemini reply is one event, and that one breaks.
            *head, second = dialect.stream_events(request, "", response_id)[:2]
            if truncated:
                broken = second.encode()[: len(second.encode()) // 2]
            else:
                broken = SseEvent(second.name, INVALID_JSON).encode()
            self._send_stream([*(event.encode() for event in head), broken])
        else:
            payload = json.dumps(dialect.response_body(request, "", response_id)).encode()
            self._send_bytes(200, payload[: len(payload) // 2] if truncated else INVALID_JSON.encode())

    def _reject(self, dialect: Dialect, status: int, message: str) -> None:
        self.server.owner._record_rejection(Rejection(self.path, status, message))
        self._send_json(status, dialect.error_body(status, message))

    def _not_found(self) -> None:
        path = self.path.split("?", 1)[0]
        message = NOT_FOUND_HINTS.get(path, f"Unknown request URL: {self.command} {path}")
        dialect: Dialect = OPENAI
        if self.headers.get("anthropic-version"):
            dialect = ANTHROPIC
        elif self.headers.get(GEMINI_KEY_HEADER):
            dialect = GeminiGenerate()
        self._reject(dialect, 404, message)

    def _api_key(self) -> str:
        """The key from `Authorization: Bearer <key>` (OpenAI), `x-api-key` (Anthropic) or `x-goog-api-key`."""
        bearer = (self.headers.get("authorization") or "").removeprefix("Bearer ").strip()
        return bearer or (self.headers.get("x-api-key") or self.headers.get(GEMINI_KEY_HEADER) or "").strip()

    def _read_body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def _read_json(self) -> dict[str, Any]:
        try:
            body = json.loads(self._read_body())
        except json.JSONDecodeError as ex:
            raise BadRequest(f"Request body is not valid JSON: {ex}") from ex
        if not isinstance(body, dict):
            raise BadRequest("Request body must be a JSON object")
        return body

    def _send_json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(body).encode(), headers)

    def _send_bytes(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _send_stream(self, frames: list[bytes]) -> None:
        """Send server-sent events; the body ends when the connection closes, as with many real servers."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for frame in frames:
            self.wfile.write(frame)
        self.wfile.flush()
        self.close_connection = True

    def _reset_connection(self) -> None:
        """Close with RST (linger 0) instead of a FIN, as a crashed proxy or load balancer does."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.wfile.close()
        self.rfile.close()
        self.connection.close()
        self.close_connection = True
