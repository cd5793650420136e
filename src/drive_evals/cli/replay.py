"""`drive-evals replay LOG [LOG_B] --stop RULE ...`: what a stop rule would have saved on finished runs."""

from __future__ import annotations

import argparse
import sys

from drive_evals.errors import DriveEvalsError
from drive_evals.stopping.rule import DEFAULT_ALPHA, DEFAULT_MIN_CLUSTERS, parse_plan


def add_replay_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay finished runs under a stop rule: where it would have stopped, and whether the full run agrees",
        description="Replay a finished run in the committed cluster order a stop rule would have used and print "
        "where each rule stops, its decision and whether the full run agrees. A paired rule compares LOG with LOG_B "
        "(`--stop vs`).",
    )
    parser.add_argument("log", metavar="LOG", help="a finished drive_evals log")
    parser.add_argument("reference", nargs="?", metavar="LOG_B", help="the finished run to compare with (--stop vs)")
    parser.add_argument(
        "--stop",
        action="append",
        required=True,
        metavar="RULE",
        help="precision:W, above:X, below:X, or vs (with LOG_B); repeat for several rules",
    )
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help="error level (default 0.05)")
    parser.add_argument("--seed", type=int, help="the order's seed (default: the log's own, else 0)")
    parser.add_argument("--min-clusters", type=int, default=DEFAULT_MIN_CLUSTERS, help="no stop before (default 10)")
    parser.add_argument("--budget", help="stop undecided after this many clusters, or a share such as 50%%")
    parser.add_argument("--margin", type=float, default=0.0, help="vs: equivalence margin (default 0: none)")
    parser.set_defaults(handler=run_replay_command)


def run_replay_command(args: argparse.Namespace) -> int:
    from drive_evals.stopping.replay import benchmark_of, describe, log_seed, replay

    try:
        seed = args.seed
        if seed is None:
            seed = log_seed(benchmark_of(args.log)[1]) or 0
        budget = int(args.budget) if args.budget is not None and args.budget.isdigit() else args.budget
        for rule in args.stop:
            if rule == "vs":
                if args.reference is None:
                    raise DriveEvalsError("--stop vs needs LOG_B, the finished run to compare with")
                rule = f"vs:{args.reference}"
            plan = parse_plan(rule, args.alpha, seed, args.min_clusters, budget, args.margin)
            assert plan is not None
            print("\n".join(describe(replay(args.log, plan))))
    except DriveEvalsError as error:
        print(f"drive-evals replay: {error}", file=sys.stderr)
        return 1
    return 0
