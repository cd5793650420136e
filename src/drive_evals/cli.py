"""The `drive-evals` command: one argparse subparser per subcommand, each registered by its own small function.

To add a subcommand, write `add_<name>_command(subparsers)` that adds its parser and sets `handler`, and call it
in `build_parser`. Handlers import their implementation lazily so `drive-evals --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from drive_evals.manifest import add_manifest_command

DEFAULT_REPORT_DIR = "report"
"""Outside the log directory: `inspect eval-set` refuses to resume into a directory holding other files."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="drive-evals", description="Tools around the drive_evals Inspect tasks.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_report_command(subparsers)
    add_manifest_command(subparsers)
    add_describe_command(subparsers)
    return parser


def add_report_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare models across the logs in a directory (tables, paired tests, plots)",
        description="Read every SURDS and DriveLMM-o1 log under LOG_DIR and write report.md, a self-contained "
        "report.html, CSV tables and PNG plots comparing the models, with paired tests between them.",
    )
    parser.add_argument("log_dir", metavar="LOG_DIR", help="directory of Inspect logs (searched recursively)")
    parser.add_argument("--out", metavar="DIR", default=DEFAULT_REPORT_DIR, help="output directory (default: report)")
    parser.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from drive_evals.report import NoRunsError, write_report

    try:
        files = write_report(args.log_dir, args.out)
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
    parser.add_argument("task", nargs="?", metavar="TASK", help="surds, drivelmm_o1 or drivelmm_o1_judge")
    parser.set_defaults(handler=_describe)


def _describe(args: argparse.Namespace) -> int:
    from drive_evals.describe import describe
    from drive_evals.errors import ParameterError

    try:
        print(describe(args.task))
    except ParameterError as error:
        print(f"drive-evals describe: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
