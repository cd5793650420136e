"""Screenshots of `inspect view` on a log directory: each task's sample list and one sample's score view.

    python tools/screenshot_viewer.py LOG_DIR [--out test-artifacts] [--port 7599]

Starts `inspect view` on LOG_DIR, drives a headless Chromium over the DevTools pipe (no browser download, no
package), waits until the page's text stops changing (the viewer renders with JavaScript after the load event),
and writes `viewer-logs.png` (the log list), then `viewer-<task>-samples.png`, `viewer-<task>-sample.png` (score
view) and `viewer-<task>-transcript.png` per log the list shows (shard logs a merged log covers are hidden there).
Look at them: that is the check.
"""

from __future__ import annotations

import argparse
import base64
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, unquote, urlparse

from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_sample_summaries
from inspect_ai.log._file import without_merged_shards

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from devtools import CHROMIUM_ENV, CHROMIUM_NAMES, DevToolsPipe, find_chromium, headless_chromium  # tests/devtools.py

WINDOW = (1400, 1000)
SERVER_START_SECONDS = 60
RENDER_SECONDS = 40
SETTLE_SECONDS = 2.0
"""The page counts as rendered once its text has not changed for this long."""


class Browser:
    """One headless Chromium tab: open a URL, wait for the page to settle, capture the window."""

    def __init__(self, pipe: DevToolsPipe) -> None:
        self.pipe = pipe
        self.session = pipe.open_tab(*WINDOW)

    def text(self) -> str:
        result = self.pipe.call("Runtime.evaluate", {"expression": "document.body.innerText"}, self.session)
        return str(result["result"].get("value", ""))

    def shoot(self, url: str, expect: str) -> bytes:
        """Navigate, wait until `expect` is on the page and the text has settled, and return a PNG of the window."""
        self.pipe.call("Page.navigate", {"url": url}, self.session)
        deadline = time.monotonic() + RENDER_SECONDS
        last, stable_since = "", time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = self.text()
            if now != last:
                last, stable_since = now, time.monotonic()
            elif expect.lower() in now.lower() and time.monotonic() - stable_since >= SETTLE_SECONDS:
                break
        else:
            print(f"warning: {url}: {expect!r} did not appear within {RENDER_SECONDS} s", file=sys.stderr)
        shot = self.pipe.call("Page.captureScreenshot", {"format": "png"}, self.session)
        return base64.b64decode(shot["data"])


@contextmanager
def chromium() -> Iterator[Browser]:
    binary = find_chromium()
    if binary is None:
        sys.exit(f"no Chromium or Chrome found: set {CHROMIUM_ENV} or install one named {', '.join(CHROMIUM_NAMES)}")
    with headless_chromium(binary, RENDER_SECONDS) as pipe:
        yield Browser(pipe)


@contextmanager
def inspect_view(log_dir: Path, port: int) -> Iterator[str]:
    """`inspect view` on `log_dir`, stopped (by its process id) on exit; yields the base URL."""
    inspect = Path(sys.executable).with_name("inspect")
    command = [str(inspect), "view", "--log-dir", str(log_dir), "--port", str(port), "--host", "127.0.0.1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(base, timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"inspect view did not start on port {port}") from None
                time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def screenshot_logs(log_dir: Path, out: Path, port: int) -> list[Path]:
    """Per log in `log_dir`: its sample list and its first sample's scoring and transcript tabs. Returns the files
    written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with inspect_view(log_dir, port) as base, chromium() as browser:
        listed = without_merged_shards(list_eval_logs(str(log_dir)))  # what the viewer's own listing shows
        path = out / "viewer-logs.png"
        path.write_bytes(browser.shoot(f"{base}/#/logs/", Path(listed[0].name).name if listed else "logs"))
        written.append(path)
        for info in listed:
            log = read_eval_log(info, header_only=True)
            summaries = read_eval_log_sample_summaries(info)
            if not summaries:
                continue
            sample = summaries[0]
            name = _relative(info.name, log_dir)
            task = log.eval.task.split("/")[-1]
            if any(path.name == f"viewer-{task}-samples.png" for path in written):  # a second log of the task
                task = f"{task}-{Path(name).stem}"
            route = f"{base}/#/logs/{quote(name)}/samples"
            first_id = min(str(summary.id) for summary in summaries)  # the list opens sorted by id
            scoring = f"{route}/sample/{quote(str(sample.id))}/{sample.epoch}/scoring"
            shots = {
                f"viewer-{task}-samples.png": (f"{route}/", first_id),
                f"viewer-{task}-sample.png": (scoring, "explanation"),
                f"viewer-{task}-transcript.png": (scoring.removesuffix("scoring") + "transcript", "scoring"),
            }
            for file_name, (url, expect) in shots.items():
                path = out / file_name
                path.write_bytes(browser.shoot(url, expect))
                written.append(path)
    return written


def _relative(location: str, log_dir: Path) -> str:
    """A log's path inside the log directory, as the viewer's routes name it."""
    parsed = urlparse(location)
    path = Path(unquote(parsed.path)) if parsed.scheme == "file" else Path(location)
    return path.resolve().relative_to(log_dir.resolve()).as_posix()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log_dir", type=Path)
    parser.add_argument("--out", type=Path, default=Path("test-artifacts"))
    parser.add_argument("--port", type=int, default=7599)
    args = parser.parse_args()
    for path in screenshot_logs(args.log_dir, args.out, args.port):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
