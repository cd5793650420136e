"""A minimal Hugging Face Hub on 127.0.0.1 serving one dataset snapshot from a local folder.

It answers the two calls `hf_hub_download` makes per file (HEAD for metadata, GET for the bytes) with the headers
the real hub sends (`X-Repo-Commit`, `ETag`, `Content-Length`), so `HF_ENDPOINT=<url>` runs the real download code
offline. It counts downloads per file, which lets tests check that only the needed files are fetched.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

from fakeserver.server import LISTEN_BACKLOG, SERVE_POLL_SECONDS

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    """State shared with the request handler: the served repo, its files and what was fetched."""

    def __init__(self, repo_id: str, folder: Path, status: int = 200) -> None:
        self.repo_id = repo_id
        self.folder = folder
        self.status = status
        self.downloads: Counter[str] = Counter()
        self.url = ""
        self.lock = threading.Lock()

    def resolve(self, path: str) -> Path | None:
        prefix = f"/datasets/{self.repo_id}/resolve/"
        if not path.startswith(prefix):
            return None
        _revision, _, relative = unquote(path[len(prefix) :]).partition("/")
        candidate = (self.folder / relative).resolve()
        return candidate if candidate.is_file() and candidate.is_relative_to(self.folder.resolve()) else None


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            """Silence per-request logging."""

        def _answer(self, with_body: bool) -> None:
            target = hub.resolve(self.path.split("?")[0])
            if hub.status != 200 or target is None:
                self.send_response(hub.status if hub.status != 200 else 404)
                self.send_header("X-Error-Code", "EntryNotFound" if target is None else "ServerError")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = target.read_bytes()
            self.send_response(200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if with_body:
                with hub.lock:
                    hub.downloads[str(target.relative_to(hub.folder.resolve()))] += 1
                self.wfile.write(data)

        def do_HEAD(self) -> None:
            self._answer(with_body=False)

        def do_GET(self) -> None:
            self._answer(with_body=True)

    return Handler


class _HubServer(ThreadingHTTPServer):
    """The fake model server's listen backlog: parallel downloads must not overflow socketserver's 5."""

    request_queue_size = LISTEN_BACKLOG


@contextmanager
def serve(hub: FakeHub) -> Iterator[FakeHub]:
    """Run the hub on a free loopback port for the duration of the block."""
    server = _HubServer(("127.0.0.1", 0), _handler(hub))
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(SERVE_POLL_SECONDS,), daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
