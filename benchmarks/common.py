"""Shared by every benchmark: machine and versions, measured subprocesses, the tables in docs/performance-results.md."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from fullsize_data import bench_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS_DOC = REPO_ROOT / "docs" / "performance-results.md"
"""Every benchmark appends its section here; docs/performance.md states the current numbers from it."""
EVALSCOPE_VERSION = "1.14.1"
EVALSCOPE_VENV_ENV = "DRIVE_EVALS_EVALSCOPE_VENV"
INSPECT_CACHE_ENV = "INSPECT_CACHE_DIR"
"""Benchmarks give Inspect a cache of their own: never the user's, never warm from an earlier run."""
RSS_POLL_SECONDS = 0.2
MIB = 2**20


# --- the machine ------------------------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def evalscope_venv() -> Path:
    """The separate virtual environment holding evalscope (never the project's own environment)."""
    configured = os.environ.get(EVALSCOPE_VENV_ENV)
    return Path(configured) if configured else bench_dir() / "evalscope-venv"


def evalscope_python() -> Path:
    return evalscope_venv() / "bin" / "python"


def ensure_evalscope() -> Path:
    """Create the evalscope virtual environment on first use; return its Python."""
    python = evalscope_python()
    if python.exists() and _evalscope_version(python) == EVALSCOPE_VERSION:
        return python
    print(f"Installing evalscope=={EVALSCOPE_VERSION} into {evalscope_venv()} (once; a few minutes)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(evalscope_venv())], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"evalscope=={EVALSCOPE_VERSION}"], check=True)
    return python


def _evalscope_version(python: Path) -> str | None:
    if not python.exists():
        return None
    probe = "import importlib.metadata as m; print(m.version('evalscope'))"
    result = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def environment_lines() -> list[str]:
    """The machine and the versions, as Markdown bullet lines."""
    memory = psutil.virtual_memory().total / 2**30
    versions = ", ".join(
        [
            f"python {platform.python_version()}",
            f"inspect_ai {importlib.metadata.version('inspect_ai')}",
            f"drive_evals {importlib.metadata.version('drive_evals')}",
            f"evalscope {_evalscope_version(evalscope_python()) or 'not installed'}",
            f"openai {importlib.metadata.version('openai')}",
            f"pillow {importlib.metadata.version('pillow')}",
        ]
    )
    system = f"{platform.system()} {platform.release()}"
    return [
        f"- machine: {cpu_model()}, {os.cpu_count()} cores, {memory:.0f} GiB RAM ({system})",
        f"- versions: {versions}",
    ]


# --- measured subprocesses --------------------------------------------------------------------------------------


@dataclass
class Measurement:
    """What a measured subprocess cost: wall time, CPU time (user + system, its children included), memory."""

    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    """Largest resident set of the process tree seen while polling (children included, summed)."""
    returncode: int
    stdout: str = ""
    stderr: str = ""
    marks: dict[str, float] = field(default_factory=dict)
    """Peak RSS (MiB) so far at moments named by the `mark` callback."""


def measure(
    command: Sequence[str],
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    mark: Callable[[], str | None] | None = None,
) -> Measurement:
    """Run a command, polling its process tree's memory; `mark()` names moments whose peak RSS is kept."""
    if cwd is not None:
        cwd.mkdir(parents=True, exist_ok=True)
    before = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(
        list(command),
        env={**os.environ, **(env or {})},
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    output: dict[str, str] = {}
    readers = [
        threading.Thread(target=lambda: output.__setitem__("out", process.stdout.read() if process.stdout else "")),
        threading.Thread(target=lambda: output.__setitem__("err", process.stderr.read() if process.stderr else "")),
    ]
    for reader in readers:
        reader.start()
    peak = 0
    marks: dict[str, float] = {}
    root = psutil.Process(process.pid)
    while process.poll() is None:
        peak = max(peak, _tree_rss(root))
        name = mark() if mark else None
        if name and name not in marks:
            marks[name] = peak / MIB
        time.sleep(RSS_POLL_SECONDS)
    wall = time.perf_counter() - started
    for reader in readers:
        reader.join()
    return Measurement(
        wall_s=wall,
        cpu_s=_children_cpu() - before,
        peak_rss_mib=peak / MIB,
        returncode=process.returncode,
        stdout=output.get("out", ""),
        stderr=output.get("err", ""),
        marks=marks,
    )


def _children_cpu() -> float:
    """CPU seconds of every child process reaped so far (one measured command runs at a time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_rss(root: psutil.Process) -> int:
    total = 0
    try:
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total


# --- the report -------------------------------------------------------------------------------------------------


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows)
    return "\n".join(lines)


def report(title: str, command: str, body: str, notes: Sequence[str] = ()) -> str:
    """Print a section and append it to docs/performance-results.md, with the machine, versions and the command."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"### {title} ({stamp})", "", *environment_lines(), f"- command: `{command}`", "", body]
    if notes:
        parts.extend(["", *notes])
    section = "\n".join(parts) + "\n"
    print("\n" + section)
    RESULTS_DOC.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS_DOC.open("a", encoding="utf-8") as handle:
        handle.write("\n" + section)
    return section
