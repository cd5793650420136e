"""Logs for the report tests, made once per session by running the real tasks as `inspect` subprocesses, and the
report `drive-evals report` writes from them; plus a headless Chromium driven over the DevTools pipe."""

from __future__ import annotations

import base64
import functools
import json
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from devtools import CHROMIUM_ENV, CHROMIUM_NAMES, find_chromium, headless_chromium
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_runs import TIMEOUT_SECONDS, run_inspect

TASKS = ("drive_evals/surds", "drive_evals/drivelmm_o1")
DEMO = ("-T", "data=demo")
SEED_SPEC = "{{model: chance/random, model_args: {{seed: {seed}}}}}"
COMPARISON_SET = "set"
"""The README's comparison recipe, offline: both tasks, two chance replicates as distinct model specs."""
ORACLE = "oracle"
ODD = "odd"
"""Runs that must be flagged: a different record order and subsets (SURDS) and a different judge (DriveLMM-o1)."""
PAGE_LOAD_SECONDS = 120
"""Only a bound for a browser that never answers: a local page loads in about a second, a few on a loaded machine."""


@dataclass(frozen=True)
class ReportRun:
    log_dir: Path
    out_dir: Path
    stdout: str


def _runs(log_dir: Path) -> list[tuple[list[str], Path]]:
    replicates = ["--model-spec", SEED_SPEC.format(seed=1), "--model-spec", SEED_SPEC.format(seed=2)]
    odd = ["--model-spec", SEED_SPEC.format(seed=3), "-T", "record_order=sorted", "-T", "subsets=yaw,depth"]
    return [
        (["eval-set", *TASKS, *replicates, "--model-role", "grader=chance/random", *DEMO], log_dir / COMPARISON_SET),
        (["eval", "drive_evals/surds", "--model", "oracle/demo", *DEMO], log_dir / ORACLE),
        (["eval", *TASKS, *odd, "--model-role", "grader=grader/valid", *DEMO], log_dir / ODD),
    ]


def console_script() -> Path:
    script = Path(sys.executable).with_name("drive-evals")
    assert script.is_file(), f"{script} missing: install the package (pip install -e .) to get the console script"
    return script


@pytest.fixture(scope="session")
def report_run(tmp_path_factory: pytest.TempPathFactory) -> ReportRun:
    """Three inspect processes in parallel (the machine has two cores; much of each run is start-up), then the
    report through the installed console script."""
    root = tmp_path_factory.mktemp("report")
    log_dir = root / "logs"
    log_dir.mkdir()
    with ThreadPoolExecutor(max_workers=3) as pool:
        for future in [pool.submit(run_inspect, args, target) for args, target in _runs(log_dir)]:
            future.result()
    out_dir = root / "out"
    result = subprocess.run(
        [str(console_script()), "report", str(log_dir), "--out", str(out_dir)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, result.stderr
    return ReportRun(log_dir, out_dir, result.stdout)


@pytest.fixture(scope="session")
def logs(report_run: ReportRun) -> dict[str, EvalLog]:
    """Every log the report read, in full (samples included), by file name: the tests' independent source."""
    return {Path(info.name).name: read_eval_log(info) for info in list_eval_logs(str(report_run.log_dir))}


HEADINGS_SCRIPT = (
    "JSON.stringify([...document.querySelectorAll('h2')]"
    ".map(h => [h.textContent, h.getBoundingClientRect().top + window.scrollY]))"
)
"""Each h2's text and its top in page pixels, so a test can cut one section out of the full-page screenshot."""


@dataclass(frozen=True)
class PageLoad:
    events: list[dict[str, Any]]
    screenshot: bytes
    content_width: float
    """Width of the laid-out page in CSS pixels: wider than the window means sideways scrolling."""
    window_width: int
    headings: list[tuple[str, float]]
    """(text, top in CSS pixels) of every h2; the screenshot is taken at scale 1, so pixels match."""

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors (failed loads, CSP violations)."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in {"error", "assert"}:
                found.append(json.dumps(params.get("args")))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def requested_urls(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]


WINDOW_WIDTH = 1400
"""The window the report must fit without sideways scrolling (a laptop browser window)."""


def open_page(page: Path, width: int = WINDOW_WIDTH, chromium: str | None = None) -> PageLoad:
    """Open a local page in a fresh headless Chromium `width` CSS pixels wide; collect console and network events,
    the laid-out content width and a full-page screenshot."""
    browser_binary = chromium or find_chromium() or CHROMIUM_NAMES[0]
    with headless_chromium(browser_binary, PAGE_LOAD_SECONDS) as pipe:
        session = pipe.open_tab(width, 900)
        for domain in ("Runtime", "Log", "Page", "Network"):
            pipe.call(f"{domain}.enable", session=session)
        pipe.call("Page.navigate", {"url": page.resolve().as_uri()}, session)
        pipe.wait_for("Page.loadEventFired", time.monotonic() + PAGE_LOAD_SECONDS)
        found = pipe.call("Runtime.evaluate", {"expression": HEADINGS_SCRIPT, "returnByValue": True}, session)
        headings = [(str(text), float(top)) for text, top in json.loads(found["result"]["value"])]
        metrics = pipe.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": metrics["width"], "height": metrics["height"], "scale": 1}
        options = {"format": "png", "clip": clip, "captureBeyondViewport": True}
        shot = pipe.call("Page.captureScreenshot", options, session)
    return PageLoad(pipe.events, base64.b64decode(shot["data"]), float(metrics["width"]), width, headings)


@pytest.fixture(scope="session")
def load_page() -> Callable[[Path], PageLoad]:
    """`open_page` with the browser found once (a clear failure when there is none)."""
    chromium = find_chromium()
    if chromium is None or not Path(chromium).is_file():
        pytest.fail(
            f"a Chromium or Chrome binary is required for the HTML report test: set {CHROMIUM_ENV} or install one "
            f"named {', '.join(CHROMIUM_NAMES)} (.ci/run installs Debian's chromium)"
        )
    return functools.partial(open_page, chromium=chromium)
