"""`drive-evals run`: one run over every core, as N shard processes that share the connections, joined into one log.

One Python process drives about 30 requests a second of this work (docs/performance.md): past that, the harness
and not the model sets the pace. This command starts N `inspect eval-set` processes, shard i of N each
(`-T shard=i/N`, drive_evals/shard.py), with the `--max-connections` (and `--max-samples`) total split between
them, shows one progress line for all of them, and once every shard has finished writes one merged log
(drive_evals/cli/merge.py): the same samples and metrics as an unsharded run. The processes are forked once this
one has imported Inspect (drive_evals/cli/shard_start.py), so start-up is paid once, not N times.

Each shard has a log directory of its own (`LOG_DIR/merged.shards/shard-i-of-N`), which is what makes resume free:
run the same command again and `inspect eval-set` skips the shards that finished, and re-runs a failed or killed
shard from its log, copying every sample the log holds, so only the missing samples are sent again. The layout is
Inspect's own for a merged log's shards (`<name>.shards/<k>/` beside `<name>.eval`, `inspect_ai/_util/log_layout.py`):
`inspect view` lists the shards only until `merged.eval` is written, then hides those it covers.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from inspect_ai.log import list_eval_logs, read_eval_log

from drive_evals.cli.shard_start import ShardChild, start_shard, warm_up
from drive_evals.errors import SHARD_ENV, DriveEvalsError
from drive_evals.shard import SHARD_KEY, clusters_if_too_few

SPLIT_OPTIONS = ("--max-connections", "--max-samples")
"""Totals over the whole run, split between the shard processes."""
MODEL_OPTIONS = ("--model", "--model-role")
"""Checked as `drive-evals estimate` checks `--model`, before any process starts."""
OWN_OPTIONS = {"--log-format": "merging reads and writes .eval logs"}
"""`inspect eval-set` options this command sets itself, and why a user may not pass them."""
MERGED_NAME = "merged.eval"
SHARDS_NAME = "merged.shards"
"""The shards' directory beside the merged log: the name Inspect's log listing recognises as `merged.eval`'s shards
(the viewer then hides a shard log that a finished `merged.eval`, written after it, covers)."""
CONSOLE_NAME = "console.txt"
"""Each shard process's terminal output, kept in its directory."""
CONSOLE_ENV = {"COLUMNS": "160", SHARD_ENV: "1"}
"""The shard processes write to a file, which Inspect's display would otherwise wrap at 80 columns; the marker makes
their resume advice this command's (errors.resume_advice)."""
STOPPED_PREFIX = "Run stopped:"
"""How the one-line reason of a run stopped midway begins (unanswered.py, judge_guard.py)."""
CHILD_DISPLAY = ("--display", "plain")
"""Unless `--display` is given: the shard processes write to files, and `--display none` would hide their errors."""
CHILD_NO_SCORE_DISPLAY = "--no-score-display"
"""Always: a shard's live metrics would only reach its console file, and computing them (every metric over every
score so far, about once a second) costs CPU the requests need."""
PROGRESS_SECONDS = 2.0
"""How often the progress line is refreshed on a terminal."""
PLAIN_PROGRESS_SECONDS = 30.0
"""...and how often a progress line is printed when the output is not a terminal (a log file, a CI job)."""
WATCH_SECONDS = 0.1
"""How often the command looks whether its shard processes have ended: the merge starts at most this late."""
FAILED_TAIL_LINES = 15
"""Lines of a failed shard's console output shown under its name."""
STOP_SECONDS = 30.0
"""After Ctrl-C, how long the shard processes get to write their logs before they are killed."""


class RunError(DriveEvalsError, ValueError):
    """A bad `drive-evals run` command line; the message names the option."""


@dataclass(frozen=True)
class ShardProcess:
    """Shard `index` of `count`: its directory and its own `inspect eval-set` options."""

    index: int
    count: int
    log_dir: Path
    options: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"shard {self.index}/{self.count}"

    def command(self, task: str) -> list[str]:
        shard = ["-T", f"{SHARD_KEY}={self.index}/{self.count}", "--log-dir", str(self.log_dir)]
        return [sys.executable, "-m", "inspect_ai", "eval-set", task, *shard, "--log-format", "eval", *self.options]


def usable_cores() -> int:
    """The cores this process may run on (a Slurm or container CPU limit included)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


SHARD_DIR = re.compile(r"shard-(\d+)-of-(\d+)")
"""A shard's directory under `LOG_DIR/merged.shards` (`ShardProcess.log_dir`)."""


def shards_dir(log_dir: Path) -> Path:
    """Where a run's shard directories are: `LOG_DIR/merged.shards`."""
    return log_dir / SHARDS_NAME


def adopt_old_layout(log_dir: Path) -> None:
    """Move the shard directories of a run started before the `merged.shards` layout (`LOG_DIR/shard-i-of-N`) into
    it, so that it resumes where it stopped: `inspect eval-set` keeps no paths in its directory, only logs."""
    for old in sorted(log_dir.glob("shard-*-of-*")):
        new = shards_dir(log_dir) / old.name
        if old.is_dir() and SHARD_DIR.fullmatch(old.name) and not new.exists():
            new.parent.mkdir(parents=True, exist_ok=True)
            old.rename(new)


def default_processes(log_dir: Path, options: Sequence[str]) -> int:
    """The processes of a run given no `--processes`: those of the run already in `log_dir` (resuming on another
    machine keeps its shards; the layout before `merged.shards` too), else one per usable core, but no more than
    `--max-connections` or `--max-samples` allow (each process needs one of each: more would exceed the total the
    user set)."""
    paths = [*shards_dir(log_dir).glob("shard-*-of-*/*.eval"), *log_dir.glob("shard-*-of-*/*.eval")]
    logged = (SHARD_DIR.fullmatch(path.parent.name) for path in paths)
    counts = {int(match[2]) for match in logged if match}
    if len(counts) == 1:
        return counts.pop()
    totals = [int(value) for value in _option_values(options, SPLIT_OPTIONS) if value.isdigit() and int(value) > 0]
    return min([usable_cores(), *totals])


def _option_values(options: Sequence[str], names: Sequence[str]) -> list[str]:
    """The values given to the options `names` (`--name value` or `--name=value`); a missing value is left out."""
    values, opts, index = [], list(options), 0
    while index < len(opts):
        if opts[index].partition("=")[0] in names and ("=" in opts[index] or index + 1 < len(opts)):
            _, value, index = _option_value(opts, index)
            values.append(value)
        else:
            index += 1
    return values


def split_total(total: int, count: int) -> list[int]:
    """`total` shared as evenly as possible by `count` processes (`10, 4 -> [3, 3, 2, 2]`)."""
    base, extra = divmod(total, count)
    return [base + (index < extra) for index in range(count)]


def _option_value(options: list[str], index: int) -> tuple[str, str, int]:
    """The option at `index` (`--name value` or `--name=value`): its name, value and the index after it."""
    option = options[index]
    if "=" in option:
        name, _, value = option.partition("=")
        return name, value, index + 1
    if index + 1 >= len(options):
        raise RunError(f"{option}: needs a value")
    return option, options[index + 1], index + 2


def _check_models(option: str, value: str) -> None:
    """A mistyped `--model` or `--model-role` fails here, in one line, instead of in every shard process."""
    from drive_evals.model_names import check_model_name, misplaced_model_arguments, role_spec

    if option == "--model-role":
        role, equals, value = value.partition("=")
        misplaced = misplaced_model_arguments(value)
        if misplaced:
            fixed = role_spec(value)
            raise RunError(f"--model-role {role}: {', '.join(misplaced)} goes under model_args: '{role}={fixed}'")
        if not equals or value.lstrip().startswith("{"):  # a YAML mapping: Inspect reads it
            return
        option = f"--model-role {role}="
    try:
        for model in value.split(","):
            check_model_name(model.strip(), option)
    except DriveEvalsError as error:
        raise RunError(str(error).replace("= ", "=", 1)) from error


def plan_shards(processes: int, log_dir: Path, options: Sequence[str]) -> list[ShardProcess]:
    """The shard processes of a run: each gets its share of the split totals and `--limit`, the rest unchanged."""
    if processes < 1:
        raise RunError(f"--processes {processes}: must be at least 1")
    shared: list[str] = []
    totals: dict[str, int] = {}
    opts = list(options)
    index = 0
    while index < len(opts):
        option = opts[index]
        name = option.partition("=")[0]
        if name in OWN_OPTIONS:
            raise RunError(f"{name}: not allowed here ({OWN_OPTIONS[name]})")
        if option.startswith("-T"):  # `-T name=value` or `-Tname=value`
            value = _option_value(opts, index)[1] if option == "-T" else option[2:]
            if value.partition("=")[0].strip() == SHARD_KEY:
                raise RunError(f"-T {value}: this command sets the shards itself (use --processes)")
        if name in MODEL_OPTIONS:
            _check_models(*_option_value(opts, index)[:2])
        if name in (*SPLIT_OPTIONS, "--limit"):
            name, value, index = _option_value(opts, index)
            if not value.isdigit() or int(value) < 1:
                raise RunError(f"{name} {value}: must be a positive whole number here")
            if name in SPLIT_OPTIONS and int(value) < processes:  # each process would still take one
                raise RunError(f"{name} {value}: fewer than the {processes} processes (pass --processes {value})")
            totals[name] = int(value)
            continue
        shared.append(option)
        index += 1
    if not any(option.partition("=")[0] == "--display" for option in shared):
        shared.extend(CHILD_DISPLAY)
    if CHILD_NO_SCORE_DISPLAY not in shared:
        shared.append(CHILD_NO_SCORE_DISPLAY)
    shares = {name: split_total(total, processes) for name, total in totals.items() if name in SPLIT_OPTIONS}
    if "--limit" in totals:  # the first ceil(limit / N) samples of each shard, not the dataset's first `limit`
        shares["--limit"] = [math.ceil(totals["--limit"] / processes)] * processes
    return [
        ShardProcess(
            index=i + 1,
            count=processes,
            log_dir=shards_dir(log_dir) / f"shard-{i + 1}-of-{processes}",
            options=(*shared, *(part for name, values in shares.items() for part in (name, str(values[i])))),
        )
        for i in range(processes)
    ]


def finished_log(shard: ShardProcess) -> str | None:
    """The shard's successful log, if it has one (its directory holds one task's logs, retries included)."""
    if not shard.log_dir.is_dir():
        return None
    for info in list_eval_logs(str(shard.log_dir), recursive=False):
        log = read_eval_log(info, header_only=True)
        if log.status == "success":
            return log.location
    return None


START_MEMBER = "_journal/start.json"
"""Written when a shard's task starts: its eval spec, with the sample ids it will run."""
JOURNAL_MEMBERS = "_journal/summaries/"
"""Each flush of Inspect's log buffer adds `N.json` here: the summaries of the samples it wrote."""
SUMMARIES_MEMBER = "summaries.json"
"""A finished log's summaries, all in one member."""


@dataclass(frozen=True)
class ShardCount:
    """A shard's samples: logged, planned (None until its task has started) and logged with an error."""

    done: int = 0
    planned: int | None = None
    errors: int = 0


def newest_log(shard: ShardProcess) -> Path | None:
    """The shard's newest `.eval` file: a retried shard's new log starts with the samples it copied from the old."""
    logs = sorted(shard.log_dir.glob("*.eval"), key=lambda path: path.stat().st_mtime) if shard.log_dir.is_dir() else []
    return logs[-1] if logs else None


class ShardCounter:
    """Counts a shard's samples from its newest log, reading only what was added since the last count.

    The progress line is refreshed every few seconds while the shards run on the same cores, so it must not
    re-parse a log that grows to thousands of samples: a log unchanged since the last count is not opened, and
    each journal member (which, once written, never changes) is read once. The counts are Inspect's sample
    summaries (one per sample and epoch; a later one replaces an earlier), read as plain JSON.
    """

    def __init__(self, shard: ShardProcess) -> None:
        self.shard = shard
        self._log: Path | None = None
        self._stamp: tuple[int, int] | None = None
        self._planned: int | None = None
        self._read: set[str] = set()
        self._errored: dict[tuple[str, int], bool] = {}
        self._last = ShardCount()

    def count(self) -> ShardCount:
        log = newest_log(self.shard)
        if log is None:
            return self._last
        if log != self._log:  # a new attempt: its own plan and samples
            self._log, self._stamp, self._planned, self._read, self._errored = log, None, None, set(), {}
        try:
            stat = log.stat()
            if (stat.st_mtime_ns, stat.st_size) == self._stamp:
                return self._last
            with zipfile.ZipFile(log) as archive:
                self._read_new(archive)
        except (OSError, zipfile.BadZipFile, KeyError, TypeError, ValueError):  # being rewritten: read it next time
            return self._last
        self._stamp = (stat.st_mtime_ns, stat.st_size)
        self._last = ShardCount(len(self._errored), self._planned, sum(self._errored.values()))
        return self._last

    def _read_new(self, archive: zipfile.ZipFile) -> None:
        names = set(archive.namelist())
        if self._planned is None and START_MEMBER in names:
            spec = json.loads(archive.read(START_MEMBER))["eval"]
            ids = spec["dataset"].get("sample_ids")
            self._planned = None if ids is None else len(ids) * (spec["config"].get("epochs") or 1)
        if SUMMARIES_MEMBER in names:  # finished: the whole list at once, replacing what the journal said
            if SUMMARIES_MEMBER not in self._read:
                self._errored = {}
                self._add(json.loads(archive.read(SUMMARIES_MEMBER)))
                self._read.add(SUMMARIES_MEMBER)
            return
        journal = [name for name in names - self._read if name.startswith(JOURNAL_MEMBERS)]
        for name in sorted(journal, key=lambda name: int(Path(name).stem)):  # in the order they were written
            self._add(json.loads(archive.read(name)))
            self._read.add(name)

    def _add(self, summaries: list[dict[str, Any]]) -> None:
        for summary in summaries:
            self._errored[(str(summary["id"]), int(summary["epoch"]))] = summary.get("error") is not None


def _errors(count: int) -> str:
    return f"{count} error" + ("" if count == 1 else "s")


def _of(done: int, planned: int | None) -> str:
    return f"{done}/{'?' if planned is None else planned}"


class Progress:
    """One line for all shards: samples logged of planned and errors (overall, then per shard), processes, time.

    Samples count once they are in a shard's log, so the counts move in steps of Inspect's log buffer; a shard's
    planned count is known once its task has started (`?` before).
    """

    def __init__(self, task: str, shards: Sequence[ShardProcess], stream: TextIO) -> None:
        self.task, self.stream = task, stream
        self.counters = [ShardCounter(shard) for shard in shards]
        self.live = stream.isatty()
        self.started = time.monotonic()
        self.last_printed = 0.0

    def line(self, running: int, failed: int = 0) -> str:
        counts = [counter.count() for counter in self.counters]
        plans = [count.planned for count in counts]
        planned = None if None in plans else sum(plan or 0 for plan in plans)
        done, errors = sum(count.done for count in counts), sum(count.errors for count in counts)
        overall = f"{_of(done, planned)} samples" + (f" ({100 * done / planned:.0f}%)" if planned else "")
        processes = f"{running} of {len(counts)} shard processes running" + (f", {failed} failed" if failed else "")
        shards = ", ".join(
            f"{counter.shard.index}: {_of(count.done, count.planned)}"
            + (f" ({_errors(count.errors)})" if count.errors else "")
            for counter, count in zip(self.counters, counts, strict=True)
        )
        elapsed = time.monotonic() - self.started
        return f"{self.task}: {overall}, {_errors(errors)}; {processes}; {elapsed:.0f} s; shards {shards}"

    def update(self, running: int, failed: int = 0, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last_printed < (PROGRESS_SECONDS if self.live else PLAIN_PROGRESS_SECONDS):
            return
        self.last_printed = now
        text = self.line(running, failed)
        if self.live:
            # a line longer than the terminal would wrap, and `\r` would then rewrite only its last row
            width = shutil.get_terminal_size().columns - 1
            text = text if len(text) <= width else text[: width - 3] + "..."
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _running_and_failed(children: Iterable[ShardChild]) -> tuple[int, int]:
    status = [child.poll() for child in children]
    return sum(code is None for code in status), sum(code not in (None, 0) for code in status)


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


def _stop(processes: Sequence[ShardChild]) -> None:
    """Ask every shard process to stop as Ctrl-C would (so each writes its log), then kill what lingers."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_processes(
    task: str,
    processes: int,
    log_dir: Path,
    options: Sequence[str],
    out: Path | None = None,
    stream: TextIO | None = None,
    merge_only: bool = False,
    fit_to_clusters: bool = False,
) -> int:
    """Run (or resume) the shards, merge them; the exit status: 0 when merged, 1 when a shard failed.

    With `merge_only` nothing runs: the shards were run elsewhere (a Slurm job array, examples/slurm/) into the
    same layout, and an unfinished one is named instead. With `fit_to_clusters` (the count was not the user's), a
    dataset with fewer clusters than `processes` (the demo data on many cores) runs in one process per cluster.
    """
    stream = stream or sys.stdout  # looked up now, not at import: the caller may have redirected it
    shards = plan_shards(processes, log_dir, options)
    adopt_old_layout(log_dir)
    done = {shard.index: finished_log(shard) for shard in shards}
    pending = [shard for shard in shards if done[shard.index] is None]
    if merge_only:
        if pending:
            names = ", ".join(str(shard.index) for shard in pending)
            stream.write(f"{task}: shards {names} of {processes} have not finished in {log_dir}; run them first\n")
            return 1
        return _merge(shards, processes, out or log_dir / MERGED_NAME, stream)
    if len(pending) < len(shards):
        finished = ", ".join(str(i) for i, log in done.items() if log)
        stream.write(f"{task}: shards {finished} of {processes} already finished; not run again\n")
    children: dict[int, ShardChild] = {}
    consoles: list[TextIO] = []
    progress = Progress(task, shards, stream)
    try:
        if pending:
            warm_up()
        for shard in pending:
            shard.log_dir.mkdir(parents=True, exist_ok=True)
            console: TextIO = (shard.log_dir / CONSOLE_NAME).open("a", encoding="utf-8")
            consoles.append(console)
            console.write(f"$ {shlex.join(shard.command(task))}\n")
            console.flush()
            children[shard.index] = start_shard(shard.command(task), console, CONSOLE_ENV)
        while any(child.poll() is None for child in children.values()):
            progress.update(*_running_and_failed(children.values()))
            time.sleep(WATCH_SECONDS)
        progress.update(*_running_and_failed(children.values()), final=True)
    except KeyboardInterrupt:
        _stop(list(children.values()))
        stream.write(f"\ninterrupted: run the same command again to resume (logs in {log_dir})\n")
        return 130
    finally:
        for console in consoles:
            console.close()
    failed = [shard for shard in pending if children[shard.index].returncode != 0 or finished_log(shard) is None]
    too_few = _too_few_clusters(shards, failed)
    if too_few is not None and fit_to_clusters:
        for shard in shards:  # nothing ran: they hold their console files only
            shutil.rmtree(shard.log_dir)
        clusters, what = too_few
        stream.write(f"{task}: the data has {clusters} {what}, fewer than {processes}: {clusters} processes instead\n")
        return run_processes(task, clusters, log_dir, options, out, stream)
    if too_few is not None:  # every shard said it: once is enough
        clusters, what = too_few
        stream.write(f"{task}: the data has {clusters} {what}, fewer than {processes} processes: pass --processes ")
        stream.write(f"{clusters} or fewer (no sample ran)\n")
        return 1
    if failed:
        _report_failed(failed, children, stream)
        return 1
    return _merge(shards, processes, out or log_dir / MERGED_NAME, stream)


def _too_few_clusters(shards: Sequence[ShardProcess], failed: Sequence[ShardProcess]) -> tuple[int, str] | None:
    """The dataset's clusters and their name, when every shard failed before its task started: too few of them."""
    if len(failed) < len(shards) or any(newest_log(shard) is not None for shard in shards):
        return None
    found = {clusters_if_too_few(_tail(shard.log_dir / CONSOLE_NAME, FAILED_TAIL_LINES)) for shard in failed}
    [too_few] = found if len(found) == 1 else [None]
    return too_few if too_few is not None and 0 < too_few[0] < len(shards) else None


def _report_failed(failed: Sequence[ShardProcess], children: dict[int, ShardChild], stream: TextIO) -> None:
    """The end of each failed shard's output (shards that failed alike, once), then whether running again helps.

    A shard whose task never started (no log: a bad option, an endpoint that cannot be used) fails the same way
    again, so the resume hint is given only when some failed shard has a log to resume from.
    """
    tails: dict[str, list[ShardProcess]] = {}
    for shard in failed:
        lines = _tail(shard.log_dir / CONSOLE_NAME, FAILED_TAIL_LINES).splitlines()
        stops = [line.strip() for line in lines if line.lstrip().startswith(STOPPED_PREFIX)]
        # A run stopped midway ends on its one-line reason (errors.report_at_exit), the same for every shard;
        # otherwise the end of the output, less each shard's own command.
        tail = stops[-1] if stops else "\n".join(line for line in lines if not line.lstrip().startswith("$ "))
        tails.setdefault(tail, []).append(shard)
    for tail, shards in tails.items():
        names = ", ".join(f"{s.index}/{s.count} (exit {children[s.index].returncode})" for s in shards)
        stream.write(f"shard {names} failed; the end of its output, {shards[0].log_dir / CONSOLE_NAME}:\n{tail}\n")
    if any(newest_log(shard) is not None for shard in failed):
        stream.write("run the same command again to resume: finished samples and shards are not run again\n")
    else:
        stream.write("no sample ran: fix the error above, then run the command again\n")


def _merge(shards: Sequence[ShardProcess], processes: int, target: Path, stream: TextIO) -> int:
    from drive_evals.cli.merge import MergeError, merge_shards

    logs = [finished_log(shard) for shard in shards]
    try:
        merged = merge_shards([log for log in logs if log], target)
    except MergeError as error:
        stream.write(f"drive-evals run: {error}\n")
        return 1
    stream.write(f"wrote {target}: {merged.samples} samples from {processes} shards\n")
    return 0
