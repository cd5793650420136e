"""Make the example comparison (docs/comparing.md) from the demo data: docs/example-report.md and its plots in
docs/images/, the breakdown CSVs as docs/example-<benchmark>-breakdown.csv, and a screenshot of the report's first
screen; or check that the docs still quote what the report prints.

    python tools/make_report_example.py                 # write the example and docs/images/report-glance-3-runs.png
    python tools/make_report_example.py --check         # regenerate in a scratch directory, compare, exit 1 if stale
    python tools/make_report_example.py --replicates 20 # only the screenshot, of 20 chance replicates (some minutes)

Runs the offline comparison recipe (`OFFLINE=1 bash examples/compare/run.sh`: three chance replicates on every
benchmark, or N with --replicates), plus one SURDS run in the other record order, which the report must flag as not
comparable. Logs go to logs/report-example (replaced), so the example's `inspect view` commands work from the
repository root. The check compares the report's first screen ("At a glance", Markdown) with the copy between the
`glance` markers in docs/comparing.md and with docs/example-report.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from drive_evals._registry import BENCHMARKS
from drive_evals.report import write_report

ROOT = Path(__file__).resolve().parents[1]
LOG_ROOT = Path("logs/report-example")
REPORT_DIR = Path("logs/report-example-report")
"""Relative, beside the log directory: the example's "Regenerate with" line shows it, so it must read well."""
DOCS = ROOT / "docs"
EXAMPLE_NAME = "example-report.md"
COMPARING = DOCS / "comparing.md"
GLANCE_BEGIN, GLANCE_END = "<!-- glance: begin -->", "<!-- glance: end -->"
GLANCE_HEADING, NEXT_SECTION = "\n## At a glance\n", "\n## "
IMAGE_DIR = "images"
BREAKDOWN_SUFFIX = "-breakdown.csv"
REPLICATES = 3
SCREENSHOT = "report-glance-{runs}-runs.png"
SCREEN_WIDTH = 1400


def flagged_run(log_root: Path, seed: int) -> list[str]:
    """One more SURDS replicate, of a seed of its own, in the other record order: the report must flag it, never pair
    it."""
    return ["eval", "drive_evals/surds", "--model", "chance/random", "-M", f"seed={seed}", "-T", "data=demo",
            "-T", "record_order=sorted", "--log-dir", str(log_root / "sorted"), "--display", "none"]  # fmt: skip


def make_logs(log_root: Path, replicates: int, scratch: Path) -> None:
    """The offline recipe with `replicates` chance seeds into log_root/main, then the flagged run."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "OFFLINE": "1"}
    recipe = {**env, "LOG_ROOT": str(log_root), "REPORT_DIR": str(scratch / "recipe-report")}
    if replicates != REPLICATES:
        models = scratch / "models.txt"
        specs = (f"{{model: chance/random, model_args: {{seed: {seed}}}}}" for seed in range(1, replicates + 1))
        models.write_text("\n".join(specs) + "\n", encoding="utf-8")
        recipe["MODELS"] = str(models)
    shutil.rmtree(ROOT / log_root, ignore_errors=True)
    subprocess.run(["bash", "examples/compare/run.sh", "--display", "none"], cwd=ROOT, env=recipe, check=True)
    subprocess.run([str(bin_dir / "inspect"), *flagged_run(log_root, replicates + 1)], cwd=ROOT, env=env, check=True)


def glance(report: str) -> str:
    """The report's first screen, from its heading to the next section."""
    return GLANCE_HEADING.lstrip("\n") + report.split(GLANCE_HEADING, 1)[1].split(NEXT_SECTION, 1)[0].strip() + "\n"


def quoted_glance(page: str) -> str:
    return page.split(GLANCE_BEGIN, 1)[1].split(GLANCE_END, 1)[0].strip() + "\n"


def write_docs(report: str) -> None:
    page = COMPARING.read_text(encoding="utf-8")
    before, rest = page.split(GLANCE_BEGIN, 1)
    after = rest.split(GLANCE_END, 1)[1]
    COMPARING.write_text(f"{before}{GLANCE_BEGIN}\n{glance(report)}{GLANCE_END}{after}", encoding="utf-8")


def check(report: str) -> int:
    """0 when docs/comparing.md and docs/example-report.md quote the first screen the report prints now."""
    expected = glance(report)
    stale = [
        name
        for name, quoted in (
            (COMPARING.name, quoted_glance(COMPARING.read_text(encoding="utf-8"))),
            (EXAMPLE_NAME, glance((DOCS / EXAMPLE_NAME).read_text(encoding="utf-8"))),
        )
        if quoted != expected
    ]
    if stale:
        print(f"stale: {', '.join(stale)}; the report prints:\n{expected}", file=sys.stderr)
        return 1
    print("docs quote the report's first screen as it prints it")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the docs instead of writing them")
    parser.add_argument("--replicates", type=int, default=REPLICATES, help="chance replicates (seeds 1..N)")
    parser.add_argument("--reuse-logs", action="store_true", help="report on logs/report-example as it is")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        log_root = Path(scratch) / "logs" if args.check else LOG_ROOT
        if not (args.reuse_logs and not args.check):
            make_logs(log_root, args.replicates, Path(scratch))
        cwd = Path.cwd()
        os.chdir(ROOT)
        try:
            files = write_report(log_root, Path(scratch) / "report" if args.check else REPORT_DIR, BENCHMARKS)
        finally:
            os.chdir(cwd)
        report = (ROOT / files.markdown).read_text(encoding="utf-8")
        if args.check:
            return check(report)
        shot = DOCS / IMAGE_DIR / SCREENSHOT.format(runs=args.replicates)
        # its own process: a browser started from this one, after the report, exits at once (found, not explained)
        screenshot = [sys.executable, str(ROOT / "tools" / "screenshot_report.py"), str(ROOT / files.html), str(shot)]
        subprocess.run([*screenshot, "--width", str(SCREEN_WIDTH)], check=True)
        if args.replicates != REPLICATES:
            print(f"wrote {shot}")
            return 0
        (DOCS / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
        # the report's paths are relative to ROOT, but a logged task argument (the demo's nuscenes_root) is absolute:
        # made relative, so the page does not carry the layout of the machine it was made on
        example = (ROOT / files.markdown).read_text(encoding="utf-8").replace(f"{ROOT}{os.sep}", "")
        (DOCS / EXAMPLE_NAME).write_text(example, encoding="utf-8")
        for image in files.images:
            shutil.copyfile(ROOT / image, DOCS / IMAGE_DIR / image.name)
        breakdowns = [path for path in files.csv if path.name.endswith(BREAKDOWN_SUFFIX)]
        for table in breakdowns:
            shutil.copyfile(ROOT / table, DOCS / f"example-{table.name}")
        write_docs(report)
    print(f"wrote {DOCS / EXAMPLE_NAME}, {len(breakdowns)} breakdown CSVs, {len(files.images)} plots and {shot.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
