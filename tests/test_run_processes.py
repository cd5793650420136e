"""`drive-evals run --processes N`: shard processes over the fake server, one merged log, failure exit and resume.

The slow tests run the command as a user does (a subprocess starting `inspect eval-set` subprocesses) against the
fake OpenAI server in this process, and count at the server what each prompt cost.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeModelServer, FakeRequest, Gate, Policy
from fakeserver.drive import drive_policy
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai._util.log_layout import merged_log_candidates_for_shard
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.log._file import without_merged_shards
from inspect_ai.model import ChatMessage, Model, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate
from inspect_runs import TIMEOUT_SECONDS, all_metrics, eval_in_process, mockllm, sample_score_values

from drive_evals._registry import BENCHMARKS
from drive_evals.cli import main
from drive_evals.cli.merge import MERGED_FROM_KEY
from drive_evals.cli.run_processes import (
    JOURNAL_MEMBERS,
    MERGED_NAME,
    START_MEMBER,
    Progress,
    RunError,
    ShardCount,
    ShardCounter,
    adopt_old_layout,
    default_processes,
    plan_shards,
    split_total,
)
from drive_evals.cli.shard_start import FORK_ENV
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.report.runs import load_runs

MODEL = "openai-api/fake/model"
JUDGE = "openai-api/fake/judge"


def fresh(model: str) -> Model:
    """A model client built now, from this test's fake-server environment.

    Inspect memoizes `get_model` by name, not by the base URL it read from the environment: a later test in the same
    worker would get a client of an earlier test's stopped server and spend minutes in retries.
    """
    return get_model(model, memoize=False)


POLICY = "mixed"
"""Correct, wrong, malformed and chance replies, and judge replies that are not JSON: scores neither 0 nor 1."""
PROCESSES = 2


def test_totals_are_split_and_other_options_passed_unchanged(tmp_path: Path) -> None:
    assert split_total(10, 4) == [3, 3, 2, 2] and split_total(3, 3) == [1, 1, 1]
    options = ["--model", "mockllm/m", "--max-connections", "10", "--max-samples=5", "--limit", "7", "-T", "data=demo"]
    shards = plan_shards(3, tmp_path, options)
    assert [shard.log_dir.name for shard in shards] == ["shard-1-of-3", "shard-2-of-3", "shard-3-of-3"]
    first: tuple[str, ...] = ("--model", "mockllm/m", "-T", "data=demo", "--display", "plain", "--no-score-display")
    first += ("--max-connections", "4", "--max-samples", "2", "--limit", "3")
    assert shards[0].options == first  # each shard runs the first ceil(7 / 3) samples of its own part
    assert [s.options[s.options.index("--max-connections") + 1] for s in shards] == ["4", "3", "3"]
    assert [s.options[s.options.index("--max-samples") + 1] for s in shards] == ["2", "2", "1"]
    assert plan_shards(2, tmp_path, ["--display=none", "--no-score-display"])[0].options == (
        "--display=none",
        "--no-score-display",
    )
    command = shards[1].command("drive_evals/surds")
    assert command[command.index("-T") + 1] == "shard=2/3"
    assert command[command.index("--log-dir") + 1] == str(tmp_path / "merged.shards" / "shard-2-of-3")


def test_shard_logs_lie_where_inspects_listing_finds_their_merged_log(tmp_path: Path) -> None:
    """`inspect view` hides a shard log that a finished merged log, written after it, covers; it recognises a shard
    by Inspect's layout `<name>.shards/<k>/<log>` beside `<name>.eval`. Before, `LOG_DIR/shard-i-of-N/` was not that
    layout, and every sharded run showed its shards beside `merged.eval` in the viewer."""
    shard = plan_shards(2, tmp_path, [])[1]
    candidates = merged_log_candidates_for_shard(str(shard.log_dir / "2026-12-04T10-00-00_surds_abc.eval"))
    assert candidates is not None and candidates[0] == str(tmp_path / MERGED_NAME)


def test_a_run_in_the_layout_before_resumes_in_the_new_one(tmp_path: Path) -> None:
    """A run started in `LOG_DIR/shard-i-of-N/` moves into `LOG_DIR/merged.shards/` with its logs and console, so
    `inspect eval-set` finds the shard's log there and resumes it (eval-set keeps no paths)."""
    old = tmp_path / "shard-1-of-2"
    old.mkdir()
    (old / "a.eval").write_bytes(b"log")
    (tmp_path / "shard-2-of-2").mkdir()
    (tmp_path / "notes").mkdir()
    assert default_processes(tmp_path, []) == 2, "the run's count is read from the layout before too"
    adopt_old_layout(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["merged.shards", "notes"]
    assert (tmp_path / "merged.shards" / "shard-1-of-2" / "a.eval").read_bytes() == b"log"
    assert default_processes(tmp_path, []) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-T", "shard=1/2"], "sets the shards itself"),
        (["-Tshard=1/2"], "sets the shards itself"),
        (["--log-format", "json"], "--log-format: not allowed"),
        (["--max-connections", "0"], "--max-connections 0: must be a positive"),
        (["--max-connections", "1"], "--max-connections 1: fewer than the 2 processes (pass --processes 1)"),
        (["--max-samples=1"], "--max-samples 1: fewer than the 2 processes"),
        (["--limit", "10-20"], "--limit 10-20"),
        (["--max-samples"], "--max-samples: needs a value"),
        (["--model", "opanai/gpt-4o"], "--model opanai/gpt-4o: unknown provider 'opanai' (did you mean 'openai'?)"),
        (["--model=chance/randon"], "--model chance/randon: unknown model 'randon' (did you mean 'chance/random'?)"),
        (["--model-role", "grader=opanai/x"], "--model-role grader=opanai/x: unknown provider 'opanai'"),
    ],
)
def test_bad_options_are_refused_before_any_process_starts(
    tmp_path: Path, options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RunError, match=re.escape(message)):
        plan_shards(2, tmp_path, options)
    args = ["run", "drive_evals/surds", "--log-dir", str(tmp_path / "run"), "--processes", "2", *options]
    assert main(args) == 2
    assert message.split(":")[0] in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_other_commands_still_refuse_unknown_options() -> None:
    with pytest.raises(SystemExit):
        main(["describe", "surds", "--bogus"])


SAMPLES, EPOCHS, FAILING = 5, 2, "q3"
"""The progress tests' run: 5 samples x 2 epochs, the model failing on one question (2 errored samples of 10)."""
LOGGED = 4
"""Journal entries (one sample each: `log_buffer=1`, one sample at a time) kept in the copy of a log being written."""


def _reply(messages: list[ChatMessage]) -> str:
    if messages[-1].text == FAILING:
        raise RuntimeError("the model failed on this question")
    return "a"


def _shard_log(log_dir: Path) -> Path:
    """A finished Inspect log of the progress tests' run, with its errored samples, in `log_dir`."""
    task = Task(dataset=[Sample(input=f"q{i}", target="a", id=f"s{i}") for i in range(SAMPLES)], scorer=match())
    (log,) = inspect_eval(
        task,
        model=mockllm(_reply),
        solver=generate(),
        log_dir=str(log_dir),
        epochs=EPOCHS,
        log_buffer=1,  # with one sample at a time: one journal entry a sample, as a slow run writes them
        max_samples=1,
        fail_on_error=False,
        display="none",
    )
    assert log.status == "success" and len([s for s in log.samples or [] if s.error]) == EPOCHS
    [path] = log_dir.glob("*.eval")
    return path


def _copy_members(source: Path, target: Path, keep: int) -> None:
    """`source` as it was when only its first `keep` journal entries had been flushed: start.json and those."""
    with zipfile.ZipFile(source) as archive:
        journal = sorted(
            (n for n in archive.namelist() if n.startswith(JOURNAL_MEMBERS)), key=lambda n: int(Path(n).stem)
        )
        with zipfile.ZipFile(target, "w") as copy:
            for name in [START_MEMBER, *journal[:keep]]:
                copy.writestr(name, archive.read(name))


def test_progress_counts_samples_done_of_planned_and_errors_from_each_shard_log(tmp_path: Path) -> None:
    first, second = plan_shards(2, tmp_path, [])
    finished = _shard_log(first.log_dir)
    counter = ShardCounter(first)
    planned = SAMPLES * EPOCHS
    assert counter.count() == ShardCount(done=planned, planned=planned, errors=EPOCHS)

    # A log in the middle of its run: the shard's task has started and flushed its first samples.
    second.log_dir.mkdir()
    writing = second.log_dir / finished.name
    _copy_members(finished, writing, LOGGED)
    later = ShardCounter(second)
    partial = later.count()
    assert partial.done == LOGGED and partial.planned == planned
    with zipfile.ZipFile(writing) as archive:
        logged = [name for name in archive.namelist() if name.startswith(JOURNAL_MEMBERS)]
        inputs = [summary["input"] for name in logged for summary in json.loads(archive.read(name))]
    assert partial.errors == inputs.count(FAILING)
    # ...caught while Inspect rewrites the file: the last count stands, nothing raises
    writing.write_bytes(finished.read_bytes()[: finished.stat().st_size // 2])
    assert later.count() == partial
    # ...and finished: the same counts as read from the start
    shutil.copyfile(finished, writing)
    assert later.count() == counter.count()

    progress = Progress("drive_evals/surds", [first, second], sys.stdout)
    line = progress.line(running=1, failed=1)
    assert re.fullmatch(
        rf"drive_evals/surds: {2 * planned}/{2 * planned} samples \(100%\), {2 * EPOCHS} errors; "
        rf"1 of 2 shard processes running, 1 failed; \d+ s; "
        rf"shards 1: {planned}/{planned} \({EPOCHS} errors\), 2: {planned}/{planned} \({EPOCHS} errors\)",
        line,
    ), line


def test_progress_before_a_shard_has_started_counts_what_it_knows(tmp_path: Path) -> None:
    first, second = plan_shards(2, tmp_path, [])
    _shard_log(first.log_dir)
    line = Progress("t", [first, second], sys.stdout).line(running=2)
    planned = SAMPLES * EPOCHS
    assert re.fullmatch(
        rf"t: {planned}/\? samples, {EPOCHS} errors; 2 of 2 shard processes running; \d+ s; "
        rf"shards 1: {planned}/{planned} \({EPOCHS} errors\), 2: 0/\?",
        line,
    ), line


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


COLUMNS = 50


def test_progress_on_a_terminal_rewrites_one_line_that_fits_its_width(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))  # read by shutil.get_terminal_size
    terminal = Terminal()
    progress = Progress("drive_evals/surds", plan_shards(8, tmp_path, []), terminal)
    assert len(progress.line(running=8)) > COLUMNS  # eight shards do not fit in 50 columns
    progress.update(running=8)
    progress.update(running=0, final=True)
    first, second = terminal.getvalue().split("\r\033[K")[1:]
    assert len(first) == COLUMNS - 1 and first.endswith("...") and first.startswith("drive_evals/surds: 0/? samples")
    assert second.endswith("...\n") and "\n" not in second[:-1]


class FailOnce:
    """Answers by `policy`; while armed, refuses the first model (not judge) request asking `question` (HTTP 400)."""

    def __init__(self, policy: Policy, question: str) -> None:
        self.policy, self.question = policy, question
        self.armed = True
        self._lock = threading.Lock()

    def __call__(self, request: FakeRequest) -> str:
        asks = request.config.response_format is None and any(self.question in text for text in request.texts)
        with self._lock:
            fail, self.armed = self.armed and asks, self.armed and not asks
        if fail:
            raise RuntimeError("refused once, as a provider outage would")
        return self.policy(request)


def _drive_evals_run(
    task_args: list[str], log_dir: Path, server: FakeModelServer, tmp: Path, fork: bool = True
) -> tuple[int, str]:
    """The command as a user runs it; `fork=False` starts its shards as new processes (as where fork is missing)."""
    command = [sys.executable, "-m", "drive_evals.cli", "run", *task_args, "--processes", str(PROCESSES)]
    command += ["--log-dir", str(log_dir), "--retry-attempts", "0", "--max-connections", "2", "--max-samples", "2"]
    env = {**server.client_env(), "INSPECT_CACHE_DIR": str(tmp / "cache"), "XDG_DATA_HOME": str(tmp / "data")}
    env[FORK_ENV] = "1" if fork else "0"
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, env={**os.environ, **env}, cwd=tmp
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.slow  # runs the command, which starts `inspect eval-set` subprocesses
@pytest.mark.parametrize("fork", [True, False], ids=["forked", "new-processes"])
def test_an_unusable_model_is_one_error_without_a_resume_hint(tmp_path: Path, fork: bool) -> None:
    """Before: exit 1 after a minute of retries, each shard's traceback, then "run the same command again to
    resume", which cannot help."""
    with FakeModelServer(models=["model"]) as server:
        status, output = _drive_evals_run(["drive_evals/surds", "--model", "openai-api/fake/modle", "-T", "data=demo"],
                                          tmp_path / "run", server, tmp_path, fork)  # fmt: skip
        generated = server.requests
    assert status == 1, output
    expected = "unknown model 'modle' (did you mean 'model'?)"
    assert output.count(expected) == 1, output
    assert f"shard 1/{PROCESSES} (exit 1), 2/{PROCESSES} (exit 1) failed" in output, output
    assert "run the same command again" not in output and "no sample ran" in output, output
    assert generated == []


def _answered(server: FakeModelServer) -> Counter[str]:
    return Counter({key: counts.answered for key, counts in server.counts.items()})


def _assert_same_run(merged: EvalLog, whole: EvalLog) -> None:
    assert sample_score_values(merged) == sample_score_values(whole)
    assert all_metrics(merged) == pytest.approx(all_metrics(whole), nan_ok=True)
    assert merged.eval.metadata is not None and len(merged.eval.metadata[MERGED_FROM_KEY]) == PROCESSES


@pytest.mark.slow  # runs the command, which starts `inspect eval-set` subprocesses
def test_a_failed_shard_exits_non_zero_and_the_rerun_pays_for_nothing_twice(
    fake_model_server: FakeModelServer, tmp_path: Path
) -> None:
    """DriveLMM-o1 with its judge: one shard fails mid-way; the same command again finishes it from its log."""
    server = fake_model_server
    server.policy = drive_policy(POLICY)
    options: dict[str, Any] = {
        "task_args": {"data": "demo"},
        "model": fresh(MODEL),
        "model_roles": {"grader": fresh(JUDGE)},
    }
    whole = eval_in_process("drive_evals/drivelmm_o1", tmp_path / "whole", **options)
    unsharded = _answered(server)

    # The last sample of shard 2 (one sample at a time per shard: the shard's others finish first) fails once.
    [*_, last] = drivelmm_o1(data="demo", judge=False, shard=f"{PROCESSES}/{PROCESSES}").dataset
    assert isinstance(last.input, list)
    server.policy = failing = FailOnce(drive_policy(POLICY), last.input[-1].text)
    before = _answered(server)
    task_args = ["drive_evals/drivelmm_o1", "--model", MODEL, "--model-role", f"grader={JUDGE}", "-T", "data=demo"]
    log_dir = tmp_path / "run"
    status, output = _drive_evals_run(task_args, log_dir, server, tmp_path)
    assert status == 1, output
    assert not failing.armed and "failed" in output and "run the same command again" in output
    assert not (log_dir / "merged.eval").exists()
    shard_logs = map(read_eval_log, map(str, log_dir.glob("merged.shards/shard-*/*.eval")))
    [failed] = [log for log in shard_logs if log.status == "error"]
    assert failed.eval.metadata and failed.eval.metadata["shard"] == f"{PROCESSES}/{PROCESSES}"
    assert len([s for s in failed.samples or [] if s.error is None]) > 1, "the failed shard's finished samples"

    status, output = _drive_evals_run(task_args, log_dir, server, tmp_path)
    assert status == 0, output
    total = len(whole.samples or [])
    assert f": {total}/{total} samples (100%), 0 errors; 0 of {PROCESSES} shard processes running" in output
    paid = _answered(server) - before
    assert paid == unsharded, "every prompt answered as often as in the unsharded run: none paid twice"
    _assert_same_run(read_eval_log(str(log_dir / "merged.eval")), whole)

    again = _answered(server)
    status, output = _drive_evals_run(task_args, log_dir, server, tmp_path)
    assert status == 0 and "already finished" in output, output
    assert _answered(server) == again, "a finished run costs nothing when run again"


BATCH_MODEL = "openai/gpt-4o-mini"
"""Inspect's `openai` provider, whose `--batch` goes through the fake server's Batch API."""
FAST_BATCH = '{"size": 1000, "send_delay": 0.2, "tick": 0.05}'
"""Send what has queued 0.2 s after the last send, poll every 0.05 s (Inspect's default tick is 15 s)."""


@pytest.mark.slow  # runs the command, which starts `inspect eval-set` subprocesses
def test_surds_with_batch_merges_to_the_direct_unsharded_run(
    fake_model_server: FakeModelServer, tmp_path: Path
) -> None:
    server = fake_model_server
    server.policy = drive_policy(POLICY)
    task_args = {"data": "demo", "subsets": "depth,distance"}
    whole = eval_in_process("drive_evals/surds", tmp_path / "whole", task_args=task_args, model=fresh(BATCH_MODEL))
    direct = len(server.requests)
    batch = tmp_path / "batch.json"
    batch.write_text(FAST_BATCH)
    args = ["drive_evals/surds", "--model", BATCH_MODEL, "-T", "data=demo", "-T", "subsets=depth,distance"]
    status, output = _drive_evals_run([*args, "--batch", str(batch)], tmp_path / "run", server, tmp_path)
    assert status == 0, output
    assert len(server.requests) - direct == direct, "as many requests as the direct run"
    assert server.batch_store.batches, "answered through batch jobs"
    _assert_same_run(read_eval_log(str(tmp_path / "run" / "merged.eval")), whole)


def test_merge_only_names_the_unfinished_shards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "drive_evals/surds", "--processes", "3", "--log-dir", str(tmp_path), "--merge-only"]
    assert main(args) == 1
    assert "shards 1, 2, 3 of 3 have not finished" in capsys.readouterr().out
    assert not (tmp_path / "merged.eval").exists()


def test_processes_default_to_the_usable_cores_within_the_totals_or_to_the_run_being_resumed(tmp_path: Path) -> None:
    from drive_evals.cli.run_processes import usable_cores

    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert usable_cores() == allowed
    assert default_processes(tmp_path, ["--model", "m", "--max-connections", "64"]) == min(allowed or 1, 64)
    assert default_processes(tmp_path, ["--max-connections", "1"]) == 1, "one connection: one process"
    assert default_processes(tmp_path, ["--max-samples=1", "--max-connections", "8"]) == 1
    assert default_processes(tmp_path, ["--max-connections"]) == allowed, "a missing value is refused later"
    shards = tmp_path / "merged.shards"
    (shards / "shard-2-of-5").mkdir(parents=True)
    assert default_processes(tmp_path, []) == allowed, "a directory without a log: no run to resume"
    (shards / "shard-2-of-5" / "a.eval").write_bytes(b"")
    assert default_processes(tmp_path, ["--max-connections", "1"]) == 5, "the run's own count, to resume it"
    (shards / "shard-1-of-3").mkdir()
    (shards / "shard-1-of-3" / "b.eval").write_bytes(b"")
    assert default_processes(tmp_path, []) == allowed, "two runs in one directory: neither is guessed"


@pytest.mark.slow  # kills and reruns the command's process tree
def test_a_killed_run_resumes_paying_only_for_what_was_in_flight(
    fake_model_server: FakeModelServer, tmp_path: Path
) -> None:
    """SIGKILL to the command and its shard processes mid-run; the same command again finishes and merges."""
    from waiting import wait_for

    server = fake_model_server
    server.policy = drive_policy(POLICY)
    task_args = {"data": "demo", "judge": False}
    whole = eval_in_process("drive_evals/drivelmm_o1", tmp_path / "whole", task_args=task_args, model=fresh(MODEL))
    unsharded = _answered(server)

    sizes = [len(drivelmm_o1(data="demo", judge=False, shard=f"{i}/{PROCESSES}").dataset) for i in (1, 2)]
    # Fewer answers than the smaller shard has samples, so every shard still asks one that the gate holds, whichever
    # shard is answered first (with 8, the 8-sample shard once took all of them, finished, and never stalled).
    server.policy = gate = Gate(drive_policy(POLICY), min(sizes) - 1, TIMEOUT_SECONDS)
    before = _answered(server)
    args = ["drive_evals/drivelmm_o1", "--model", MODEL, "-T", "data=demo", "-T", "judge=false", "--log-buffer", "1"]
    command = [sys.executable, "-m", "drive_evals.cli", "run", *args, "--processes", str(PROCESSES)]
    command += ["--log-dir", str(tmp_path / "run"), "--max-connections", "2", "--max-samples", "2"]
    env = {**os.environ, **server.client_env(), "XDG_DATA_HOME": str(tmp_path / "data")}
    process = subprocess.Popen(command, env=env, cwd=tmp_path, start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: gate.held >= PROCESSES, TIMEOUT_SECONDS, "both shards to stall", poll=0.5)
    finally:
        os.killpg(process.pid, 9)  # the command and its shard processes, as a lost node would
        process.wait()
    gate.released.set()
    assert not (tmp_path / "run" / "merged.eval").exists()
    # what the killed shards had logged, as the progress line counts it
    counts = [ShardCounter(shard).count() for shard in plan_shards(PROCESSES, tmp_path / "run", [])]
    assert [count.planned for count in counts] == sizes, counts
    assert all(count.done < (count.planned or 0) for count in counts) and sum(c.done for c in counts) > 0, counts
    assert not any(count.errors for count in counts), counts

    status, output = _drive_evals_run(args, tmp_path / "run", server, tmp_path)
    assert status == 0, output
    paid = _answered(server) - before
    assert all(paid[key] >= count for key, count in unsharded.items()), "every prompt answered"
    # only a sample answered but not yet logged when the process died can be paid twice: one per shard at most
    assert sum((paid - unsharded).values()) <= PROCESSES
    _assert_same_run(read_eval_log(str(tmp_path / "run" / "merged.eval")), whole)


@pytest.mark.slow  # runs shard processes
def test_a_default_count_above_the_datasets_clusters_runs_one_process_per_cluster(tmp_path: Path) -> None:
    """The demo DriveLMM-o1 has 3 frames: on 4 cores `drive-evals run` refused it (every shard failed)."""
    args = ["-T", "data=demo", "-T", "judge=false", "--model", "chance/random"]
    chosen = [sys.executable, "-m", "drive_evals.cli", "run", "drive_evals/drivelmm_o1", "--processes", "4", *args]
    result = subprocess.run([*chosen, "--log-dir", str(tmp_path / "chosen")], capture_output=True, text=True,
                            timeout=TIMEOUT_SECONDS, cwd=tmp_path)  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    expected = "drive_evals/drivelmm_o1: the data has 3 frames, fewer than 4 processes: pass --processes 3 or fewer"
    assert expected in result.stdout and "only 3 frames" not in result.stdout, "said once, not once a shard"

    # as `drive-evals run` without --processes on 4 cores: from its own single-threaded process, so shards fork
    default = "import sys; from pathlib import Path; from drive_evals.cli.run_processes import run_processes; "
    default += f"sys.exit(run_processes('drive_evals/drivelmm_o1', 4, Path(sys.argv[1]), {args!r}, "
    default += "fit_to_clusters=True))"
    result = subprocess.run([sys.executable, "-c", default, str(tmp_path / "default")], capture_output=True, text=True,
                            timeout=TIMEOUT_SECONDS, cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the data has 3 frames, fewer than 4: 3 processes instead" in result.stdout, result.stdout
    assert sorted(path.name for path in (tmp_path / "default").iterdir()) == ["merged.eval", "merged.shards"]
    assert sorted(path.name for path in (tmp_path / "default" / "merged.shards").iterdir()) == [
        f"shard-{i}-of-3" for i in (1, 2, 3)
    ], "the first plan's directories are gone"
    # what `inspect view --log-dir` lists: the merged log only, its shards hidden behind it
    listed = without_merged_shards(list_eval_logs(str(tmp_path / "default")))
    assert [Path(info.name).name for info in listed] == ["merged.eval"]
    runs, notes = load_runs(tmp_path / "default", BENCHMARKS)
    assert len(runs) == 1 and notes == [], "the report neither counts the shards nor notes them as unmerged"
    merged = read_eval_log(str(tmp_path / "default" / "merged.eval"), header_only=True)
    assert merged.status == "success" and merged.results and merged.results.total_samples == 24


def test_shards_stopped_alike_are_reported_in_one_line(tmp_path: Path) -> None:
    """Two shards whose model stopped answering: their one-line reason once, not each shard's console tail."""
    from types import SimpleNamespace

    from drive_evals.cli.run_processes import CONSOLE_NAME, _report_failed, plan_shards

    shards = plan_shards(2, tmp_path, [])
    stop = "Run stopped: the model under test m at http://x/v1 gave no answer within --timeout 180 s (ConnectError)"
    for shard in shards:
        shard.log_dir.mkdir(parents=True)
        panel = f"Task interrupted. Resume task with:\ninspect eval-retry {shard.log_dir}/a.eval\n"
        (shard.log_dir / CONSOLE_NAME).write_text(f"$ inspect eval-set ...\n{panel}\n{stop}\n", encoding="utf-8")
    stream = io.StringIO()
    _report_failed(shards, {s.index: SimpleNamespace(returncode=1) for s in shards}, stream)
    lines = stream.getvalue().splitlines()
    assert lines[:2] == [
        f"shard 1/2 (exit 1), 2/2 (exit 1) failed; the end of its output, {shards[0].log_dir / CONSOLE_NAME}:",
        stop,
    ]
    assert len(lines) == 3, lines
