"""A headless Chromium driven over the DevTools pipe: the HTML report test and `tools/screenshot_viewer.py` share it
(it lives with the tests, which must not depend on `tools/`; the script puts this folder on its path).

Chosen because it needs no package and no browser download: Playwright would need its own browser build or network
access, and `--enable-logging` output does not report failed resource loads reliably.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM_ENV = "DRIVE_EVALS_CHROMIUM"
"""Path of the browser binary; without it, the first of `CHROMIUM_NAMES` on PATH."""
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""What Debian, Ubuntu and Google's packages call the binary (GitHub's Ubuntu runners have google-chrome)."""
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-pipe",
)
PIPE_IN, PIPE_OUT = 3, 4
"""Chromium's --remote-debugging-pipe reads commands from fd 3 and writes replies to fd 4."""


class DevToolsPipe:
    """A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (NUL-separated JSON messages).

    Events that arrive while waiting for a reply are kept in `events` (console errors, failed loads).
    """

    def __init__(self, write_fd: int, read_fd: int) -> None:
        self.write_fd, self.read_fd = write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply["result"])
            self.events.append(reply)

    def receive(self) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return dict(json.loads(raw))

    def wait_for(self, method: str, deadline: float) -> None:
        while time.monotonic() < deadline:
            event = self.receive()
            self.events.append(event)
            if event.get("method") == method:
                return
        raise TimeoutError(f"no {method} within the deadline")

    def open_tab(self, width: int, height: int) -> str:
        """A new blank tab `width` x `height` CSS pixels at scale 1; returns its session id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = str(self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"])
        window = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.call("Emulation.setDeviceMetricsOverride", window, session)
        return session


def find_chromium() -> str | None:
    """The browser binary: `$DRIVE_EVALS_CHROMIUM` when set, else the first usual name on PATH."""
    if named := os.environ.get(CHROMIUM_ENV):
        return named
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


@contextmanager
def headless_chromium(binary: str, close_seconds: float) -> Iterator[DevToolsPipe]:
    """A fresh headless browser (its own temporary profile) and the pipe that drives it; closed on exit, killed if
    it has not exited `close_seconds` later."""
    command_read, command_write = os.pipe()
    reply_read, reply_write = os.pipe()

    def wire_pipes() -> None:
        high_in, high_out = os.dup(command_read), os.dup(reply_write)
        os.dup2(high_in, PIPE_IN)
        os.dup2(high_out, PIPE_OUT)

    with tempfile.TemporaryDirectory() as profile:
        browser = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=wire_pipes,
            close_fds=False,  # the pipes are wired to fds 3 and 4 in preexec_fn, which runs before closing
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(command_read)
        os.close(reply_write)
        pipe = DevToolsPipe(command_write, reply_read)
        try:
            yield pipe
            pipe.call("Browser.close")
        finally:
            os.close(command_write)
            os.close(reply_read)
            try:
                browser.wait(timeout=close_seconds)
            except subprocess.TimeoutExpired:
                browser.kill()
                browser.wait()
