"""Batch APIs of the fake server: OpenAI files + batches, Anthropic message batches, as Inspect 0.3.285 calls them.

Inspect's batchers (`_providers/_openai_batch.py`, `_providers/_anthropic_batch.py`, over `util/batch.py`) make
these calls, and only these:
- OpenAI: `POST /v1/files` (multipart, purpose=batch, a JSONL of `{custom_id, method, url, body}` lines), `POST
  /v1/batches` (input_file_id, endpoint, completion_window), `GET /v1/batches/{id}` until the status is final,
  then `GET /v1/files/{output_file_id}/content` (JSONL of `{custom_id, response: {status_code, body}, error}`).
- Gemini (google-genai): a resumable upload of the JSONL (`POST /upload/v1/files` with `X-Goog-Upload-Command:
  start`, answered with an `x-goog-upload-url`, then one `upload, finalize` POST of the bytes there), `POST
  /v1/models/{model}:batchGenerateContent` (`batch.inputConfig.fileName`), `GET /v1/batches/{id}` until
  `metadata.state` is final, then `GET /download/v1/files/{id}:download?alt=media` (JSONL of `{key, response}` or
  `{key, error}`). The request lines are the SDK's snake_case dump of `GenerateContentRequest`.
- Anthropic: `POST /v1/messages/batches` (`requests: [{custom_id, params}]`), `GET /v1/messages/batches/{id}`
  until `processing_status` is `ended`, then the SDK's `results()`: the batch again and `GET` its `results_url`
  (JSONL of `{custom_id, result: {type: succeeded, message}}`).

A batch is processed (and so paid for: every request is admitted and counted like a direct call) when it is
created; it reports `in_progress` until it has been polled `polls_until_done` times, and forever if it was created
after the first `complete_first` jobs, so a test can kill a run with some jobs returned (their results downloaded:
`returned`) and others in flight.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .dialect import Dialect
from .records import BadRequest

OPENAI_FILES = "/v1/files"
OPENAI_BATCHES = "/v1/batches"
ANTHROPIC_BATCHES = "/v1/messages/batches"
RESULTS_SUFFIX = "/results"
CONTENT_SUFFIX = "/content"
OUTPUT_FILE_PREFIX = "file_out_"
ANSWERED = 200
GEMINI_FILE_PREFIX = "files/"
GEMINI_BATCH_PREFIX = "batches/"
GEMINI_BATCH_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"

Answer = Callable[[Dialect, dict[str, Any]], tuple[int, dict[str, Any]]]
"""Answer one request body as a direct call would: (HTTP status, response or error body)."""


@dataclass
class FakeBatch:
    """One batch job: its provider, requests' results (computed at creation) and polling state."""

    id: str
    api: str
    created_at: int
    results: list[dict[str, Any]]
    keys: list[str]
    """The prompt key (`FakeRequest.key`) of each request, "" for a malformed one."""
    input_file_id: str = ""
    endpoint: str = ""
    polls: int = 0
    done: bool = False

    @property
    def failed(self) -> int:
        return sum(1 for line in self.results if _failed(line))


@dataclass
class BatchStore:
    """Files and batch jobs of both APIs, thread-safe."""

    polls_until_done: int = 1
    complete_first: int | None = None
    """When set, only the first this many jobs created ever complete; later ones stay in flight."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _files: dict[str, bytes] = field(default_factory=dict)
    _batches: dict[str, FakeBatch] = field(default_factory=dict)
    _returned: list[str] = field(default_factory=list)
    _uploads: dict[str, int] = field(default_factory=dict)
    """Gemini upload sessions started and not yet finalised: id -> the size announced."""

    @property
    def batches(self) -> list[FakeBatch]:
        """Every batch job created, in creation order."""
        with self._lock:
            return list(self._batches.values())

    @property
    def returned(self) -> list[FakeBatch]:
        """The jobs whose results the client downloaded, in the order it first did."""
        with self._lock:
            return [self._batches[batch_id] for batch_id in self._returned]

    def _mark_returned(self, batch_id: str) -> None:
        if batch_id not in self._returned:
            self._returned.append(batch_id)

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_{len(self._files) + len(self._batches) + 1:06d}"

    # --- OpenAI ---------------------------------------------------------------------------------------------

    def upload_file(self, content_type: str, body: bytes) -> dict[str, Any]:
        fields = _multipart_fields(content_type, body)
        if fields.get("purpose") != b"batch" or "file" not in fields:
            raise BadRequest("expected a multipart upload with purpose=batch and a file")
        with self._lock:
            file_id = self._new_id("file")
            self._files[file_id] = fields["file"]
        return _openai_file(file_id, len(fields["file"]))

    def create_openai_batch(self, body: dict[str, Any], openai: Dialect, answer: Answer) -> dict[str, Any]:
        file_id = body.get("input_file_id")
        with self._lock:
            content = self._files.get(str(file_id))
        if content is None:
            raise BadRequest(f"No such File object: {file_id}")
        results, keys = [], []
        for raw in content.decode().splitlines():
            line = json.loads(raw)
            keys.append(_prompt_key(openai, line["body"]))
            status, response = answer(openai, line["body"])
            error = None if status == ANSWERED else {"code": status, "message": json.dumps(response)}
            results.append(
                {
                    "id": f"batch_req_{line['custom_id']}",
                    "custom_id": line["custom_id"],
                    "response": {"status_code": status, "body": response} if error is None else None,
                    "error": error,
                }
            )
        with self._lock:
            batch = FakeBatch(self._new_id("batch"), "openai", int(time.time()), results, keys, str(file_id))
            batch.endpoint = str(body.get("endpoint"))
            self._batches[batch.id] = batch
        return self._openai_view(batch)

    def openai_batch(self, batch_id: str) -> dict[str, Any]:
        return self._openai_view(self._poll(batch_id))

    def file_content(self, file_id: str) -> bytes:
        with self._lock:
            content = self._files.get(file_id)
            if content is None:
                raise KeyError(file_id)
            if file_id.startswith(OUTPUT_FILE_PREFIX):
                self._mark_returned(file_id.removeprefix(OUTPUT_FILE_PREFIX))
        return content

    def _openai_view(self, batch: FakeBatch) -> dict[str, Any]:
        output_id = None
        if batch.done:
            with self._lock:
                output_id = f"{OUTPUT_FILE_PREFIX}{batch.id}"
                if output_id not in self._files:
                    self._files[output_id] = "".join(json.dumps(r) + "\n" for r in batch.results).encode()
        total = len(batch.results)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": batch.endpoint,
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": "completed" if batch.done else "in_progress",
            "created_at": batch.created_at,
            "output_file_id": output_id,
            "error_file_id": None,
            "errors": None,
            "request_counts": {
                "total": total,
                "completed": total - batch.failed if batch.done else 0,
                "failed": batch.failed if batch.done else 0,
            },
        }

    # --- Anthropic ------------------------------------------------------------------------------------------

    def create_anthropic_batch(self, body: dict[str, Any], anthropic: Dialect, answer: Answer) -> dict[str, Any]:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            raise BadRequest("requests: Field required")
        results, keys = [], []
        for item in requests:
            keys.append(_prompt_key(anthropic, item["params"]))
            status, response = answer(anthropic, item["params"])
            result = {"type": "succeeded", "message": response} if status == ANSWERED else _errored(response)
            results.append({"custom_id": item["custom_id"], "result": result})
        with self._lock:
            batch = FakeBatch(self._new_id("msgbatch"), "anthropic", int(time.time()), results, keys)
            self._batches[batch.id] = batch
        return self._anthropic_view(batch, base_url="")

    def anthropic_batch(self, batch_id: str, base_url: str) -> dict[str, Any]:
        return self._anthropic_view(self._poll(batch_id), base_url)

    def anthropic_results(self, batch_id: str) -> bytes:
        with self._lock:
            batch = self._batches[batch_id]
            self._mark_returned(batch_id)
        return "".join(json.dumps(r) + "\n" for r in batch.results).encode()

    def _anthropic_view(self, batch: FakeBatch, base_url: str) -> dict[str, Any]:
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created_at))
        errored = batch.failed if batch.done else 0
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if batch.done else "in_progress",
            "request_counts": {
                "processing": 0 if batch.done else len(batch.results),
                "succeeded": len(batch.results) - errored if batch.done else 0,
                "errored": errored,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": created,
            "expires_at": created,
            "ended_at": created if batch.done else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{base_url}{ANTHROPIC_BATCHES}/{batch.id}{RESULTS_SUFFIX}" if batch.done else None,
        }

    # --- Gemini ---------------------------------------------------------------------------------------------

    def start_gemini_upload(self, announced_size: int) -> str:
        """Open a resumable upload session; its id goes into the upload URL."""
        with self._lock:
            upload_id = self._new_id("upload")
            self._uploads[upload_id] = announced_size
        return upload_id

    def finish_gemini_upload(self, upload_id: str, content: bytes) -> dict[str, Any]:
        """Store the bytes of a whole upload (sent in one `upload, finalize` request) as a file."""
        with self._lock:
            announced = self._uploads.pop(upload_id, None)
            if announced is None:
                raise BadRequest(f"No upload session {upload_id}")
            if announced != len(content):
                raise BadRequest(f"Upload of {len(content)} bytes, {announced} announced")
            file_id = self._new_id("file")
            self._files[file_id] = content
        return {"file": _gemini_file(file_id, len(content))}

    def create_gemini_batch(self, model: str, body: dict[str, Any], gemini: Dialect, answer: Answer) -> dict[str, Any]:
        file_name = str(((body.get("batch") or {}).get("inputConfig") or {}).get("fileName", ""))
        with self._lock:
            content = self._files.get(file_name.removeprefix(GEMINI_FILE_PREFIX))
        if content is None:
            raise BadRequest(f"* GenerateContentBatch.input_config: file {file_name!r} not found")
        results = []
        keys = []
        for raw in content.decode().splitlines():
            line = json.loads(raw)
            keys.append(_prompt_key(gemini, line["request"]))
            status, response = answer(gemini, line["request"])
            outcome = {"response": response} if status == ANSWERED else {"error": response["error"]}
            results.append({"key": line["key"], **outcome})
        with self._lock:
            batch = FakeBatch(self._new_id("gbatch"), "gemini", int(time.time()), results, keys, file_name)
            batch.endpoint = model
            self._batches[batch.id] = batch
        return _gemini_batch_view(batch)

    def gemini_batch(self, batch_id: str) -> dict[str, Any]:
        batch = self._poll(batch_id)
        if batch.done:
            with self._lock:
                self._files.setdefault(_gemini_output(batch), _jsonl(batch.results))
        return _gemini_batch_view(batch)

    # --- shared ---------------------------------------------------------------------------------------------

    def _poll(self, batch_id: str) -> FakeBatch:
        with self._lock:
            batch = self._batches[batch_id]
            held_back = self.complete_first is not None and list(self._batches).index(batch_id) >= self.complete_first
            if not held_back:
                batch.polls += 1
                batch.done = batch.done or batch.polls >= self.polls_until_done
            return batch


def _prompt_key(dialect: Dialect, body: dict[str, Any]) -> str:
    try:
        return dialect.parse(body).key
    except BadRequest:
        return ""


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _gemini_file(file_id: str, size: int) -> dict[str, Any]:
    return {
        "name": GEMINI_FILE_PREFIX + file_id,
        "mimeType": "application/jsonl",
        "sizeBytes": str(size),
        "state": "ACTIVE",
        "source": "UPLOADED",
    }


def _gemini_output(batch: FakeBatch) -> str:
    """The id of a finished job's results file, named as OpenAI's are (`file_out_<batch id>`)."""
    return f"{OUTPUT_FILE_PREFIX}{batch.id}"


def _gemini_batch_view(batch: FakeBatch) -> dict[str, Any]:
    """A batch as an operation: Google returns it so from `batchGenerateContent` and `batches.get` alike."""
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created_at))
    metadata: dict[str, Any] = {
        "@type": GEMINI_BATCH_TYPE,
        "model": f"models/{batch.endpoint}",
        "displayName": batch.id,
        "inputConfig": {"fileName": batch.input_file_id},
        "createTime": created,
        "updateTime": created,
        "state": "BATCH_STATE_SUCCEEDED" if batch.done else "BATCH_STATE_RUNNING",
        "name": GEMINI_BATCH_PREFIX + batch.id,
    }
    if batch.done:
        metadata["output"] = {"responsesFile": GEMINI_FILE_PREFIX + _gemini_output(batch)}
    return {"name": GEMINI_BATCH_PREFIX + batch.id, "metadata": metadata, "done": batch.done}


def _failed(line: dict[str, Any]) -> bool:
    if "error" in line:
        return line["error"] is not None
    if "result" in line:
        return bool(line["result"]["type"] != "succeeded")
    return False  # a Gemini line with its response


def _errored(response: dict[str, Any]) -> dict[str, Any]:
    return {"type": "errored", "error": {"type": "error", "error": response.get("error", response)}}


def _openai_file(file_id: str, size: int) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": "batch.jsonl",
        "purpose": "batch",
        "status": "processed",
    }


def _multipart_fields(content_type: str, body: bytes) -> dict[str, bytes]:
    """The named parts of a multipart/form-data body."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    fields: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = payload
    return fields
