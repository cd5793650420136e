"""The `drive-evals` command: one argparse subparser per subcommand, each registered by its own small function.

To add a subcommand, write `add_<name>_command(subparsers)` that adds its parser and sets `handler`, and call it
in `build_parser`. Handlers import their implementation lazily so `drive-evals --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from drive_evals import _registry
from drive_evals.cli.manifest import add_manifest_command
from drive_evals.cli.replay import add_replay_command

DEFAULT_REPORT_DIR = "report"
"""Outside the log directory: `inspect eval-set` refuses to resume into a directory holding other files."""


def either(names: Sequence[str]) -> str:
    """`a, b or c`: a list of task names for a help string."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def benchmark_names() -> str:
    """The benchmarks' Inspect names, read from the registry (a benchmark added there appears in the help)."""
    return either([task.qualified for task in _registry.benchmark_tasks()])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="drive-evals", description="Tools around the drive_evals Inspect tasks.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_report_command(subparsers)
    add_manifest_command(subparsers)
    add_describe_command(subparsers)
    add_estimate_command(subparsers)
    add_merge_shards_command(subparsers)
    add_run_command(subparsers)
    add_replay_command(subparsers)
    return parser


def add_report_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare models across the logs in a directory (tables, paired tests, plots)",
        description="Read every benchmark log under LOG_DIR and write report.md, a self-contained "
        "report.html, CSV tables and PNG plots comparing the models, with paired tests between them.",
    )
    parser.add_argument("log_dir", metavar="LOG_DIR", help="directory of Inspect logs (searched recursively)")
    parser.add_argument("--out", metavar="DIR", default=DEFAULT_REPORT_DIR, help="output directory (default: report)")
    parser.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from drive_evals.report import NoRunsError, write_report

    try:
        files = write_report(args.log_dir, args.out, _registry.BENCHMARKS)
    except NoRunsError as error:
        print(f"drive-evals report: {error}", file=sys.stderr)
        return 1
    print(f"wrote {files.markdown}, {files.html}, {len(files.csv)} CSV tables and {len(files.images)} plots")
    return 0


def add_describe_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "describe",
        help="list each task's -T parameters with their defaults and meanings",
        description="Print the -T parameters of a drive_evals task (default: every task) with their defaults and "
        "meanings, read from the task function's signature and docstring.",
    )
    parser.add_argument("task", nargs="?", metavar="TASK", help=either([task.name for task in _registry.TASKS]))
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print every task's parameters as the Markdown page docs/parameters.md (`drive-evals describe "
        "--markdown > docs/parameters.md` regenerates it)",
    )
    parser.set_defaults(handler=_describe)


def _describe(args: argparse.Namespace) -> int:
    from drive_evals.cli.describe import describe, markdown_page
    from drive_evals.errors import ParameterError

    if args.markdown and args.task:
        print("drive-evals describe: --markdown prints every task; give no TASK", file=sys.stderr)
        return 2
    try:
        text = markdown_page() if args.markdown else describe(args.task) + "\n"  # the page ends in its newline
        print(text, end="")
    except ParameterError as error:
        print(f"drive-evals describe: {error}", file=sys.stderr)
        return 2
    return 0


def add_estimate_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from drive_evals.cli.image_tokens import RULES

    parser = subparsers.add_parser(
        "estimate",
        help="requests, tokens and cost of a run, before it runs (no model call)",
        description="Build the task's samples exactly as `inspect eval` would and count what the run will send: "
        "requests, judge requests, input tokens (text and image) and output tokens; with prices, the cost.",
    )
    parser.add_argument("task", metavar="TASK", help=benchmark_names())
    parser.add_argument("--model", required=True, help="the model to be evaluated, e.g. openai/gpt-4o")
    parser.add_argument("-T", dest="task_args", action="append", metavar="NAME=VALUE", help="task parameter")
    parser.add_argument(
        "--image-rule",
        choices=sorted(RULES),
        help="image token rule (default: the one the model's provider documents)",
    )
    parser.add_argument("--judges", type=int, default=1, help="models in the DriveLMM-o1 judge panel (default 1)")
    parser.add_argument("--epochs", type=int, default=1, help="epochs of the run (default 1)")
    parser.add_argument("--from-log", metavar="LOG", help="take mean output tokens per request from this log")
    parser.add_argument("--price-in", type=float, metavar="USD", help="model price per million input tokens")
    parser.add_argument("--price-out", type=float, metavar="USD", help="model price per million output tokens")
    parser.add_argument("--judge-price-in", type=float, metavar="USD", help="judge price per million input tokens")
    parser.add_argument("--judge-price-out", type=float, metavar="USD", help="judge price per million output tokens")
    parser.set_defaults(handler=_estimate)


def _price_pair(first: float | None, second: float | None, names: str) -> tuple[float, float] | None:
    if first is None and second is None:
        return None
    if first is None or second is None or first < 0 or second < 0:
        raise ValueError(f"{names}: give both, as non-negative prices per million tokens")
    return first, second


def _estimate(args: argparse.Namespace) -> int:
    from drive_evals.cli.estimate import estimate, format_estimate, parse_task_args
    from drive_evals.cli.image_tokens import RULES, rule_for_model
    from drive_evals.errors import DriveEvalsError
    from drive_evals.model_names import check_model_name

    rule = RULES[args.image_rule] if args.image_rule else rule_for_model(args.model)
    try:
        check_model_name(args.model)
        if rule is None:
            raise ValueError(
                f"--model {args.model}: its image token rule is unknown; choose one with --image-rule "
                f"({', '.join(sorted(RULES))})"
            )
        if args.judges < 1 or args.epochs < 1:
            raise ValueError("--judges and --epochs must be at least 1")
        prices = _price_pair(args.price_in, args.price_out, "--price-in/--price-out")
        judge_prices = _price_pair(args.judge_price_in, args.judge_price_out, "--judge-price-in/--judge-price-out")
        result = estimate(args.task, parse_task_args(args.task_args), rule, args.judges, args.epochs, args.from_log)
    except (ValueError, DriveEvalsError, FileNotFoundError) as error:
        print(f"drive-evals estimate: {error}", file=sys.stderr)
        return 1
    print("\n".join(format_estimate(result, args.model, prices, judge_prices)))
    return 0


def add_merge_shards_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "merge-shards",
        help="join the logs of a run's shards (-T shard=i/n) into one log",
        description="Check that LOG... are the finished shards 1..n of one run and write one Inspect log holding "
        "all their samples, with metrics recomputed from them (the same as an unsharded run). No model is called.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="the shard logs, in any order")
    parser.add_argument("--out", metavar="MERGED.eval", required=True, help="the merged log to write")
    parser.set_defaults(handler=_merge_shards)


def _merge_shards(args: argparse.Namespace) -> int:
    from drive_evals.cli.merge import MergeError, merge_shards

    try:
        merged = merge_shards(args.logs, args.out)
    except (MergeError, FileNotFoundError) as error:
        print(f"drive-evals merge-shards: {error}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {merged.samples} samples from {len(args.logs)} shards")
    return 0


def add_run_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from drive_evals.cli.run_processes import usable_cores

    parser = subparsers.add_parser(
        "run",
        allow_abbrev=False,  # every option it does not know goes to `inspect eval-set`, however it is spelled
        help="run a task as N shard processes over all cores, merged into one log (run again to resume)",
        description="Start N `inspect eval-set` processes, shard i of N each, with --max-connections and "
        "--max-samples split between them; when all have finished, write one merged log (the same metrics as an "
        "unsharded run). Any other option goes to `inspect eval-set` unchanged. Run the same command again after "
        "a failure or a kill: finished shards are skipped and a failed shard re-runs only its missing samples.",
    )
    parser.add_argument("task", metavar="TASK", help=benchmark_names())
    parser.add_argument(
        "--processes",
        type=int,
        metavar="N",
        help=f"shard processes (default: one per core this machine lets it use, {usable_cores()}, at most one per "
        "connection and sample of --max-connections and --max-samples; when resuming, the run's own)",
    )
    parser.add_argument("--log-dir", required=True, metavar="DIR", help="the run's directory (one per run)")
    parser.add_argument("--out", metavar="MERGED.eval", help="the merged log (default: LOG_DIR/merged.eval)")
    parser.add_argument(
        "--merge-only",
        action="store_true",
        help="run nothing: merge shards run elsewhere into LOG_DIR (a Slurm job array: examples/slurm/)",
    )
    parser.set_defaults(handler=_run, passes_options=True)


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from drive_evals.cli.run_processes import MERGED_NAME, RunError, default_processes, run_processes
    from drive_evals.headline import print_headlines

    try:
        out = Path(args.out) if args.out else None
        log_dir, options = Path(args.log_dir), args.inspect_options
        chosen = args.processes is not None
        processes = args.processes if chosen else default_processes(log_dir, options)
        status = run_processes(
            args.task, processes, log_dir, options, out, merge_only=args.merge_only, fit_to_clusters=not chosen
        )
    except RunError as error:
        print(f"drive-evals run: {error}", file=sys.stderr)
        return 2
    if status == 0:  # the run ends on the merged run's headline, as `inspect eval` does on its own
        print_headlines([str(out or log_dir / MERGED_NAME)], _registry.BENCHMARKS)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "passes_options", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.inspect_options = unknown
    return int(args.handler(args))
