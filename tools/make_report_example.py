"""Make the example comparison (docs/comparing.md) from the demo data: docs/example-report.md and its plots in
docs/images/, and the breakdown CSVs as docs/example-<benchmark>-breakdown.csv.

    python tools/make_report_example.py

Runs the offline comparison recipe (`OFFLINE=1 bash examples/compare/run.sh`: three chance replicates on both
benchmarks), plus one SURDS run in the other record order, which the report must flag as not comparable. Logs go
to logs/report-example (replaced), so the example's `inspect view` commands work from the repository root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from drive_evals.report import write_report

ROOT = Path(__file__).resolve().parents[1]
LOG_ROOT = Path("logs/report-example")
REPORT_DIR = Path("logs/report-example-report")
"""Relative, beside the log directory: the example's "Regenerate with" line shows it, so it must read well."""
DOCS = ROOT / "docs"
EXAMPLE_NAME = "example-report.md"
IMAGE_DIR = "images"
BREAKDOWN_SUFFIX = "-breakdown.csv"
FLAGGED_RUN = [
    "eval",
    "drive_evals/surds",
    "--model",
    "chance/random",
    "-M",
    "seed=4",
    "-T",
    "data=demo",
    "-T",
    "record_order=sorted",
    "--log-dir",
    str(LOG_ROOT / "sorted"),
    "--display",
    "none",
]


def main() -> None:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "OFFLINE": "1"}
    shutil.rmtree(ROOT / LOG_ROOT, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        recipe = {**env, "LOG_ROOT": str(LOG_ROOT), "REPORT_DIR": scratch}
        subprocess.run(["bash", "examples/compare/run.sh", "--display", "none"], cwd=ROOT, env=recipe, check=True)
        subprocess.run([str(bin_dir / "inspect"), *FLAGGED_RUN], cwd=ROOT, env=env, check=True)
        cwd = Path.cwd()
        os.chdir(ROOT)
        try:
            files = write_report(LOG_ROOT, REPORT_DIR)
        finally:
            os.chdir(cwd)
        (DOCS / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / files.markdown, DOCS / EXAMPLE_NAME)  # the report's paths are relative to ROOT
        for image in files.images:
            shutil.copyfile(ROOT / image, DOCS / IMAGE_DIR / image.name)
        breakdowns = [path for path in files.csv if path.name.endswith(BREAKDOWN_SUFFIX)]
        for table in breakdowns:
            shutil.copyfile(ROOT / table, DOCS / f"example-{table.name}")
    print(f"wrote {DOCS / EXAMPLE_NAME}, {len(breakdowns)} breakdown CSVs and {len(files.images)} plots in {DOCS}")


if __name__ == "__main__":
    main()
