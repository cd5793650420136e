"""Starting `drive-evals run`'s shard processes warm: forked from the command once it has imported Inspect.

A new `python -m inspect_ai` process spends seconds of CPU importing Inspect, the provider SDKs and the benchmarks
before its first request (docs/performance.md), and N shard processes pay that N times over, after the command
itself paid it to check its options. Forked once those imports are done, each shard starts at its task. The child
runs Inspect's own command line in-process (`python -m inspect_ai eval-set ...`, through runpy), so it does what the
same command in a new process would do.

Forking is used on Linux only (macOS forbids it once some system libraries are loaded; Windows has none) and only
while this process runs a single thread (a fork copies only the calling thread, and a lock another thread held would
stay locked in the child). Otherwise, or with `DRIVE_EVALS_FORK=0`, each shard is a new process as before.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import runpy
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import NoReturn, Protocol, TextIO

FORK_ENV = "DRIVE_EVALS_FORK"
"""`0` starts every shard as a new process, as on platforms without fork."""
WARM_MODULES = (
    "inspect_ai._cli.main",
    "drive_evals._registry",
    "inspect_ai.model._providers.providers",
    "inspect_ai.model._providers.openai_compatible",
    "inspect_ai.model._openai_responses",
    "inspect_ai.model._providers.anthropic",
    "inspect_ai.agent._acp.server",
    "inspect_ai._control.server",
    "inspect_ai._control.current_server",
    "inspect_ai._control.strict",
    "inspect_ai._control.disconnect",
    "inspect_ai.hooks._startup",
    "inspect_ai.solver._transcript",
    "uvicorn",
    "httpcore2",
    "rich.markdown",
)
"""What a shard of Inspect 0.3.285 imports after its command line has started, found by comparing `sys.modules`
before and after a run: Inspect's command line, the benchmarks, the provider modules (Inspect loads the OpenAI and
the Anthropic SDK for every sample's provider state), the agent protocol and the control server it starts for
every eval (about 2 s of CPU each in a new process). Importing one that another Inspect version lacks is skipped."""
ANY_KNOWN_MODEL = "openai/gpt-4o-mini"
"""A model in Inspect's database: looking it up loads the whole database, without a provider SDK call."""
INSPECT_MODULE = "inspect_ai"
"""The module a shard's command runs (`python -m inspect_ai ...`)."""
EXIT_INTERRUPTED = 130
"""A shard stopped by Ctrl-C that Inspect did not handle itself, as a shell reports it."""
SHARD_GC_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation in a forked shard (Python's default: 700). A
shard allocates freely (Inspect's events and models), and at the default its collector ran full collections over
everything alive, the parent's imports included, several times a minute. With the parent's objects frozen before the
fork and this threshold, young garbage is still collected, full collections become rare."""
STDOUT_FD, STDERR_FD = 1, 2
POLL_SECONDS = 0.05
"""How often `ForkedShard.wait` looks whether the child has ended."""


class ShardChild(Protocol):
    """What `drive-evals run` needs of a shard process (`subprocess.Popen` has it)."""

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


def can_fork() -> bool:
    """Whether `start_shard` forks (see the module docstring)."""
    return sys.platform == "linux" and threading.active_count() == 1 and os.environ.get(FORK_ENV, "1") != "0"


def warm_up() -> None:
    """Where shards will be forked, import what every shard would import, once, here (a module missing from this
    Inspect version is skipped), and load Inspect's model database (its YAML files, some 0.4 s), which each shard
    reads when it starts. New processes would each do it again: then nothing is done here."""
    if not can_fork():
        return
    gc.disable()  # imports create objects that all stay alive: collecting meanwhile finds nothing (a fifth of the time)
    try:
        for name in WARM_MODULES:
            try:
                importlib.import_module(name)
            except ImportError:
                continue
        from inspect_ai.model import get_model_info

        get_model_info(ANY_KNOWN_MODEL)
    finally:
        gc.enable()


def start_shard(command: Sequence[str], console: TextIO, env: Mapping[str, str]) -> ShardChild:
    """Start `command` (`python -m inspect_ai ...`) with its output in `console` and `env` added to the environment."""
    if not can_fork():
        return subprocess.Popen(command, stdout=console, stderr=subprocess.STDOUT, env={**os.environ, **env})
    return fork_shard(command, console, env)


def fork_shard(command: Sequence[str], console: TextIO, env: Mapping[str, str]) -> ForkedShard:
    """`start_shard` by fork, whether or not `can_fork()` holds (the caller has checked)."""
    for stream in (sys.stdout, sys.stderr, console):  # or the child would write what the parent had buffered
        stream.flush()
    # What the parent imported stays alive in the child: frozen, no collection there walks it again.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        _run_inspect(list(command[command.index(INSPECT_MODULE) + 1 :]), console.fileno(), env)
    return ForkedShard(pid)


def _run_inspect(args: list[str], output: int, env: Mapping[str, str]) -> NoReturn:
    """In the forked child: `python -m inspect_ai ARGS` with its output in `output`; never returns."""
    status = 1
    try:
        _output_to(output)
        os.environ.update(env)
        atexit._clear()  # the parent's exit handlers are not this process's; Inspect registers its own
        gc.set_threshold(SHARD_GC_THRESHOLD, *gc.get_threshold()[1:])
        sys.argv = [INSPECT_MODULE, *args]
        runpy.run_module(INSPECT_MODULE, run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as exit:  # Inspect's command line ends with sys.exit(code)
        if isinstance(exit.code, str):
            print(exit.code, file=sys.stderr)
        status = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except BaseException:  # as Python itself would: the exception hook prints it, exit 1
        sys.excepthook(*sys.exc_info())
    finally:
        try:
            atexit._run_exitfuncs()  # e.g. a local model server Inspect started
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def _output_to(output: int) -> None:
    """Standard output and error (the file descriptors, and `sys`'s streams if they write elsewhere) to `output`."""
    for fd, name in ((STDOUT_FD, "stdout"), (STDERR_FD, "stderr")):
        os.dup2(output, fd)
        try:
            on_fd = getattr(sys, name).fileno() == fd
        except (AttributeError, OSError, ValueError):  # replaced by a capture (pytest, a notebook)
            on_fd = False
        if not on_fd:  # a stream for the rest of the process's life: no `with`
            stream = open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
            setattr(sys, name, stream)


class ForkedShard:
    """A forked shard process, with the part of `subprocess.Popen`'s interface that `drive-evals run` uses."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"shard process {self.pid}", timeout or 0.0)
            time.sleep(POLL_SECONDS)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
